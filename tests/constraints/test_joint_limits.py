"""Joint limits as unilateral constraints (mb.JointLimit): the LCP rows of forward dynamics, impacts and resting
bounds in mb.simulate (analytic pendulum stops and rebounds, energy), no effect away from the bounds, a two-link
arm checked against an independent impact law and rigid model, model files, and errors naming the joint."""
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.io.files import model_from_dict, model_to_dict

sys.path.insert(0, str(Path(__file__).parents[1] / "simulate"))
from sim_models import G, point_pendulum  # noqa: E402

STOP, START = 0.3, 1.0  # the pendulum is released at 1 rad and swings down onto a lower bound at 0.3 rad


def _pendulum(restitution=0.0, **bounds):
    """Point pendulum (mass 1, length 1, hinge about y, q = 0 hanging) with a lower bound at 0.3 rad."""
    model = point_pendulum(links=1)
    model.add_constraint(mb.JointLimit("bob0_joint", **({"lower": STOP} | bounds), restitution=restitution))
    return model


def _energy(q):
    """Energy of the point pendulum at rest at angle q (mass 1, length 1; the tiny inertia is negligible)."""
    return -G * np.cos(q)


def test_pendulum_released_against_a_bound_stops_there_and_loses_the_impact_energy():
    """Plastic stop: the angle never goes below the bound (to 1e-8 rad), the joint then rests on it, and the
    energy drops at the impact from E(1.0) to E(0.3) (the kinetic energy ½ ω² is lost), constant before and after."""
    model = _pendulum()
    traj = mb.simulate(model, [START], [0.0], t_end=2.0, rtol=1e-10, atol=1e-12)
    (name, t_hit), = traj.events
    assert name == "limit bob0_joint lower"
    assert traj.q[:, 0].min() > STOP - 1e-8
    after = traj.t > t_hit + 1e-3
    np.testing.assert_allclose(traj.q[after, 0], STOP, atol=1e-8)
    np.testing.assert_allclose(traj.v[after, 0], 0.0, atol=1e-8)
    energy = traj.energy()
    np.testing.assert_allclose(energy[traj.t < t_hit], _energy(START), atol=1e-8)
    np.testing.assert_allclose(energy[after], _energy(STOP), atol=1e-8)


def test_resting_bound_carries_the_gravity_torque():
    """On the bound, pushed by gravity, the limit force is the gravity torque m g L sin(0.3) and q̈ = 0; pulled
    away (torque), the bound exerts nothing; approaching fast, nothing until an impulse (free acceleration)."""
    model = _pendulum()
    res = mb.constraint_forces(model, [STOP], [0.0])
    assert res.a[0] == pytest.approx(0.0, abs=1e-9)  # the LCP's 1e-10 relative regularization
    np.testing.assert_allclose(res.multipliers[0], [G * np.sin(STOP), 0.0], rtol=1e-9)
    away = mb.constraint_forces(model, [STOP], [0.0], tau=[2 * G])
    assert away.a[0] > 0 and np.all(away.multipliers[0] == 0)
    fast = mb.constraint_forces(model, [STOP], [-1.0])
    assert fast.a[0] == pytest.approx(mb.aba(model, [STOP], [-1.0], [0.0])[0], rel=1e-12)
    assert mb.constraint_forces(model, [STOP + 1e-3], [0.0]).a[0] < -1.0  # not touching: free fall


def test_elastic_bound_reflects_the_pendulum_and_conserves_energy():
    model = _pendulum(restitution=1.0)
    traj = mb.simulate(model, [START], [0.0], t_end=2.5, rtol=1e-10, atol=1e-12)
    assert len(traj.events) == 3  # one bounce every 0.87 s
    assert traj.q[:, 0].min() > STOP - 1e-8
    assert np.max(np.abs(traj.energy() - _energy(START))) < 1e-8
    assert traj.q[:, 0].max() == pytest.approx(START, abs=1e-6)


def test_partly_elastic_bound_rebounds_to_the_predicted_height_and_comes_to_rest():
    """Rebound speed e ω: cos θ₁ = cos 0.3 − e² (cos 0.3 − cos 1.0). Bounces shorter than rest_velocity end plastic
    and the pendulum rests on the bound (no Zeno chatter)."""
    e = 0.5
    model = _pendulum(restitution=e)
    traj = mb.simulate(model, [START], [0.0], t_end=3.0, rtol=1e-10, atol=1e-12, max_step=1e-3)
    t1, t2 = (t for _, t in traj.events[:2])
    between = (traj.t > t1) & (traj.t < t2)
    peak = np.arccos(np.cos(STOP) - e**2 * (np.cos(STOP) - np.cos(START)))
    np.testing.assert_allclose(traj.energy()[between], _energy(peak), atol=1e-8)
    assert traj.q[between, 0].max() == pytest.approx(peak, abs=1e-4)  # sampled every 10 ms
    assert 5 < len(traj.events) < 20
    assert traj.q[:, 0].min() > STOP - 1e-6
    np.testing.assert_allclose(traj.q[traj.t > 2.5, 0], STOP, atol=1e-8)
    np.testing.assert_allclose(traj.energy()[-1], _energy(STOP), atol=1e-8)


def test_bounds_default_to_the_joint_limits():
    model = mb.Model("p", gravity=(0, 0, -G))
    model.add(mb.Body("bob", mass=1.0, com=(0, 0, -1.0), inertia=np.eye(3) * 1e-12),
              joint=mb.Revolute((0, 1, 0), name="hinge", limits=mb.JointLimits(STOP, 2.0, effort=5, velocity=3)))
    limit = model.add_constraint(mb.JointLimit("hinge"))
    assert (limit.lower, limit.upper) == (STOP, 2.0)
    assert model.add_constraint(mb.JointLimit("hinge", upper=1.5)).lower == STOP
    model.constraints.pop()
    traj = mb.simulate(model, [START], [0.0], t_end=1.0, rtol=1e-10, atol=1e-12)
    assert traj.q[:, 0].min() > STOP - 1e-8
    assert traj.q[-1, 0] == pytest.approx(STOP, abs=1e-8)


def test_joint_away_from_its_bounds_moves_exactly_as_without_them():
    free = mb.Model.chain(2, axes="yy")
    limited = mb.Model.chain(2, axes="yy")
    for joint, (lo, up) in zip(limited.joints, [(-3.0, 3.0), (-2.9, 2.9)]):
        limited.add_constraint(mb.JointLimit(joint.name, lower=lo, upper=up))
    q0, v0 = [0.4, -0.3], [0.0, 0.5]
    a = mb.simulate(free, q0, v0, t_end=1.0, rtol=1e-10, atol=1e-12)
    b = mb.simulate(limited, q0, v0, t_end=1.0, rtol=1e-10, atol=1e-12)
    assert not b.events
    assert np.max(np.abs(np.abs(b.q) - [3.0, 2.9])) > 0.5  # never near a bound
    np.testing.assert_allclose(b.q, a.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(b.v, a.v, rtol=0, atol=1e-9)


def _rigid_arm(angle):
    """Model.chain(2, "yy") with the elbow welded at ``angle`` (a Fixed joint): one coordinate."""
    model = mb.Model("rigid", gravity=(0, 0, -G))
    rod = np.diag([1e-4, 0.3**2 / 12, 0.3**2 / 12])
    model.add(mb.Body("link1", mass=1.0, com=(0.15, 0, 0), inertia=rod), joint=mb.Revolute((0, 1, 0)))
    model.add(mb.Body("link2", mass=1.0, com=(0.15, 0, 0), inertia=rod), parent="link1", joint=mb.Fixed(),
              placement=mb.Transform(mb.rotation_about((0, 1, 0), angle), (0.3, 0, 0)))
    return model


def test_two_link_arm_elbow_stops_at_its_bound_as_the_impact_law_and_the_rigid_arm_predict():
    """The elbow of a falling two-link arm hits an upper bound at 0.3 rad and stays on it. Independent check: the
    unconstrained arm run to the crossing gives v⁻; a plastic stop of the elbow keeps the shoulder's generalized
    momentum, (M v⁺)₀ = (M v⁻)₀ with v⁺ = (w, 0); from there the arm moves as the rigid arm with the elbow welded
    at 0.3 rad, as long as the bound pushes."""
    bound = 0.3
    limited = mb.Model.chain(2, axes="yy")
    limited.add_constraint(mb.JointLimit("link2_joint", upper=bound))
    start = mb.simulate(limited, [0.0, 0.0], [0.0, 0.0], t_end=0.5, rtol=1e-11, atol=1e-12)  # past its first bounce
    q0, v0 = start.q[-1], start.v[-1]
    assert q0[1] < bound - 1e-3 and start.events
    traj = mb.simulate(limited, q0, v0, t_end=0.75, rtol=1e-11, atol=1e-12, t_eval=np.linspace(0, 0.75, 301))
    (_, t_hit), *_ = traj.events

    free = mb.Model.chain(2, axes="yy")
    hits = []
    crossing = mb.Event(lambda t, q, v: bound - q[1], terminal=True, direction=-1,
                        action=lambda t, q, v: hits.append((q.copy(), v.copy())) or (q, v))
    pre = mb.simulate(free, q0, v0, t_end=0.75, rtol=1e-11, atol=1e-12, events=[crossing])
    assert pre.events[0][1] == pytest.approx(t_hit, abs=1e-8)
    (q_hit, v_minus), = hits
    M = mb.crba(free, q_hit)
    w = (M @ v_minus)[0] / M[0, 0]

    resting = (traj.t > t_hit) & (traj.t < t_hit + 0.2)
    np.testing.assert_allclose(traj.q[resting, 1], bound, atol=1e-8)
    rigid = mb.simulate(_rigid_arm(bound), [q_hit[0]], [w], t_end=0.2, rtol=1e-11, atol=1e-12,
                        t_eval=traj.t[resting] - t_hit)
    np.testing.assert_allclose(traj.q[resting, 0], rigid.q[:, 0], atol=1e-8)
    np.testing.assert_allclose(traj.v[resting, 0], rigid.v[:, 0], atol=1e-7)
    forces = [mb.constraint_forces(limited, q, v).multipliers[0][1] for q, v in zip(traj.q[resting], traj.v[resting])]
    assert min(forces) > 0.0  # the bound pushes the whole time


def test_bound_on_a_mimicked_master_stops_both_joints():
    """Impulse and rest respect the equality constraints: the master of a 1:−1 gear hits its bound, both stop,
    and φ stays zero."""
    model = mb.Model("geared", gravity=(0, 0, -G))
    for name, x in (("a", 0.0), ("b", 1.0)):
        model.add(mb.Body(name.upper(), mass=1.0, com=(0, 0, -0.5), inertia=np.eye(3) * 1e-3),
                  joint=mb.Revolute((0, 1, 0), name=name), placement=mb.Transform(translation=(x, 0, 0)))
    model.add_constraint(mb.Mimic("b", "a", multiplier=-1.0))
    model.add_constraint(mb.JointLimit("a", lower=STOP))
    traj = mb.simulate(model, [START, -START], [0.0, 0.0], t_end=1.5, rtol=1e-10, atol=1e-12)
    assert traj.events and traj.q[:, 0].min() > STOP - 1e-8
    np.testing.assert_allclose(traj.q[-20:], [[STOP, -STOP]] * 20, atol=1e-8)
    assert np.max(np.abs(traj.q[:, 0] + traj.q[:, 1])) < 1e-8


def test_joint_limit_round_trips_through_the_model_file_form(tmp_path):
    model = point_pendulum(links=2)
    model.add_constraint(mb.JointLimit("bob1_joint", lower=-0.5, upper=0.75, restitution=0.25, name="elbow"))
    model.add_constraint(mb.JointLimit("bob0_joint", upper=1.0))
    data = model_to_dict(model)
    assert data["constraints"] == [
        {"type": "joint_limit", "joint": "bob1_joint", "lower": -0.5, "upper": 0.75, "restitution": 0.25,
         "name": "elbow"},
        {"type": "joint_limit", "joint": "bob0_joint", "lower": None, "upper": 1.0, "restitution": 0.0,
         "name": None}]
    again = model_from_dict(data)
    assert model_to_dict(again) == data
    path = tmp_path / "arm.yaml"
    path.write_text("bodies:\n  - {name: arm, joint: {type: revolute, axis: [0, 1, 0], name: hinge}, mass: 1,"
                    " com: [0, 0, -1], inertia: [0.1, 0.1, 0.1]}\n"
                    "constraints:\n  - {type: joint_limit, joint: hinge, lower: 0.3, restitution: 1}\n")
    limit = mb.load(path).constraints[0]
    assert isinstance(limit, mb.JointLimit)
    assert (limit.lower, limit.upper, limit.restitution) == (0.3, np.inf, 1.0)


def test_bad_joint_limits_name_the_joint_and_the_value():
    model = point_pendulum(links=1)
    with pytest.raises(mb.ModelError, match=r"JointLimit\('bob0_joint'\): joint 'bob0_joint' has no limits"):
        model.add_constraint(mb.JointLimit("bob0_joint"))
    with pytest.raises(mb.ModelError, match=r"unknown joint 'knee'"):
        model.add_constraint(mb.JointLimit("knee", lower=0.0))
    with pytest.raises(mb.ModelError, match=r"on joint 'bob0_joint': lower must be a number, not NaN, got nan"):
        mb.JointLimit("bob0_joint", lower=np.nan)
    with pytest.raises(mb.ModelError, match=r"on joint 'bob0_joint': upper must be a number, got 'high'"):
        mb.JointLimit("bob0_joint", upper="high")
    with pytest.raises(mb.ModelError, match=r"'bob0_joint'\): lower 1 exceeds upper 0.5"):
        mb.JointLimit("bob0_joint", lower=1.0, upper=0.5)
    with pytest.raises(mb.ModelError, match=r"restitution must be in \[0, 1\].*got 1.5"):
        mb.JointLimit("bob0_joint", lower=0.0, restitution=1.5)
    with pytest.raises(mb.ModelError, match=r"no finite bound \(lower -inf, upper inf\)"):
        mb.JointLimit("bob0_joint", lower=-np.inf, upper=np.inf)
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3)), parent="bob0", joint=mb.Spherical(name="wrist"))
    with pytest.raises(mb.ModelError, match=r"joint 'wrist' is Spherical"):
        model.add_constraint(mb.JointLimit("wrist", lower=0.0))
    assert not model.constraints


def test_simulate_impacts_holds_a_resting_bound_too():
    """With contact shapes (event-driven collisions) the bounds get their impacts and rest on the LCP as well."""
    model = _pendulum()
    model.add_geometry("bob0", mb.Sphere(0.05), placement=mb.Transform(translation=(0, 0, -1.0)))
    model.add_geometry("world", mb.Plane(), placement=mb.Transform(translation=(0, 0, -5.0)))  # never reached
    traj = mb.simulate_impacts(model, [START], [0.0], t_end=1.5)
    assert [name for name, _ in traj.events] == ["limit bob0_joint lower"]
    assert traj.q[:, 0].min() > STOP - 1e-8
    np.testing.assert_allclose(traj.q[traj.t > 0.5, 0], STOP, atol=1e-8)
