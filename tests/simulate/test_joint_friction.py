"""Joint damping (JointSpring with stiffness 0) and smoothed Coulomb friction (JointFriction) as force elements:
their generalized forces, analytic motions under them, model-file round trips, and errors naming the joint."""
import numpy as np
import pytest

import multibody as mb
from multibody.io.files import model_from_dict, model_to_dict

from sim_models import point_pendulum


def _slider(mass=2.0, gravity=(0, 0, 0)):
    """One body on a prismatic joint along x (no gravity along the axis by default)."""
    model = mb.Model("slider", gravity=gravity)
    model.add(mb.Body("cart", mass=mass, inertia=np.eye(3) * 0.1), joint=mb.Prismatic((1, 0, 0), name="rail"))
    return model


def test_joint_spring_with_zero_stiffness_is_a_pure_damper():
    """JointSpring(joint, stiffness=0, damping=c): Q = −c q̇ whatever q, no stored energy; a sliding mass m decays
    as q̇(t) = q̇₀ e^(−c t / m)."""
    model = _slider(mass=2.0)
    damper = model.add_force(mb.JointSpring("rail", stiffness=0.0, damping=0.5))
    for q in (-3.0, 0.0, 7.0):
        assert damper.generalized_force(model, np.array([q]), np.array([0.4])) == pytest.approx([-0.2], abs=1e-15)
        assert damper.potential_energy(model, np.array([q])) == 0.0
    traj = mb.simulate(model, [0.0], [1.5], t_end=2.0, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(traj.v[:, 0], 1.5 * np.exp(-0.25 * traj.t), rtol=1e-8)
    np.testing.assert_allclose(traj.q[:, 0], 1.5 * 4.0 * (1 - np.exp(-0.25 * traj.t)), rtol=1e-8, atol=1e-10)


def test_joint_friction_is_a_smoothed_sign():
    """Q = −F_c tanh(q̇ / v_s) on the joint's entry only: odd, saturating at F_c, slope F_c / v_s at rest."""
    model = point_pendulum(links=2)
    friction = model.add_force(mb.JointFriction("bob1_joint", friction=0.3, velocity_scale=1e-2))
    for rate in (-1.0, -1e-2, 0.0, 3e-3, 0.5):
        Q = friction.generalized_force(model, np.zeros(2), np.array([7.0, rate]))
        assert Q[0] == 0.0
        assert Q[1] == pytest.approx(-0.3 * np.tanh(rate / 1e-2), rel=1e-15, abs=1e-300)
    assert friction.generalized_force(model, np.zeros(2), np.array([0.0, 1.0]))[1] == pytest.approx(-0.3, rel=1e-12)
    assert friction.potential_energy(model, np.zeros(2)) == 0.0
    assert mb.JointFriction("j", 1.0).velocity_scale == 1e-3


def test_sliding_block_decelerates_at_the_coulomb_rate_and_creeps_at_the_predicted_speed():
    """A mass sliding with friction F_c decelerates at F_c/m until it nearly stops (q̇ ≫ v_s), and under a
    constant push τ < F_c it creeps at q̇ = v_s artanh(τ / F_c) (the smoothing does not hold it at rest)."""
    model = _slider(mass=2.0)
    model.add_force(mb.JointFriction("rail", friction=1.0, velocity_scale=1e-4))
    traj = mb.simulate(model, [0.0], [1.0], t_end=1.8, rtol=1e-10, atol=1e-12, max_step=1e-2)  # stops at 2 s
    np.testing.assert_allclose(traj.v[:, 0], 1.0 - 0.5 * traj.t, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(traj.q[:, 0], traj.t - 0.25 * traj.t ** 2, rtol=1e-9, atol=1e-9)
    push = mb.simulate(model, [0.0], [0.0], t_end=0.1, torque=[0.5], rtol=1e-10, atol=1e-14)
    assert push.v[-1, 0] == pytest.approx(1e-4 * np.arctanh(0.5), rel=1e-6)


def test_friction_dissipates_energy_monotonically():
    """Kinetic + gravitational energy of a pendulum with joint friction never increases and ends lower."""
    model = point_pendulum(links=1)
    model.add_force(mb.JointFriction("bob0_joint", friction=0.5))
    traj = mb.simulate(model, [1.0], [0.0], t_end=3.0, rtol=1e-10, atol=1e-12, max_step=1e-3)
    energy = traj.energy()
    assert np.all(np.diff(energy) <= 1e-9)
    assert energy[-1] < energy[0] - 1.0


def test_joint_friction_and_damper_round_trip_through_the_model_file_form():
    model = point_pendulum(links=2)
    model.add_force(mb.JointFriction("bob1_joint", friction=0.25, velocity_scale=2e-3, name="elbow friction"))
    model.add_force(mb.JointSpring("bob0_joint", stiffness=0.0, damping=0.1))
    data = model_to_dict(model)
    assert data["forces"][0] == {"type": "joint_friction", "name": "elbow friction", "joint": "bob1_joint",
                                 "friction": 0.25, "velocity_scale": 2e-3}
    again = model_from_dict(data)
    assert [f.to_dict() for f in again.forces] == data["forces"]
    q, v = np.array([0.3, -0.2]), np.array([0.1, -0.004])
    from multibody.simulate.forces import elements_force
    np.testing.assert_array_equal(elements_force(again, q, v), elements_force(model, q, v))


def test_joint_friction_reads_from_yaml_text(tmp_path):
    path = tmp_path / "slider.yaml"
    path.write_text("bodies:\n  - {name: cart, joint: {type: prismatic, axis: [1, 0, 0], name: rail}, mass: 1,"
                    " inertia: [0.1, 0.1, 0.1]}\n"
                    "forces:\n  - {type: joint_friction, joint: rail, friction: 0.4}\n")
    element = mb.load(path).forces[0]
    assert isinstance(element, mb.JointFriction)
    assert (element.friction, element.velocity_scale) == (0.4, 1e-3)


@pytest.mark.parametrize("kwargs, message", [
    ({"friction": np.nan}, "friction must be finite and non-negative, got nan"),
    ({"friction": -1.0}, "friction must be finite and non-negative, got -1.0"),
    ({"friction": "big"}, "friction must be a number, got 'big'"),
    ({"friction": 1.0, "velocity_scale": -1e-3}, "velocity_scale must be finite and non-negative, got -0.001"),
    ({"friction": 1.0, "velocity_scale": 0.0}, "velocity_scale must be positive"),
    ({"friction": 1.0, "velocity_scale": np.inf}, "velocity_scale must be finite and non-negative, got inf"),
])
def test_bad_friction_values_name_the_joint_and_the_value(kwargs, message):
    with pytest.raises(mb.ModelError, match="joint friction elbow") as info:
        mb.JointFriction("elbow", **kwargs)
    assert message in str(info.value)


def test_friction_on_unknown_or_multi_dof_joints_names_the_joint():
    model = point_pendulum(links=1)
    with pytest.raises(mb.ModelError, match="unknown joint 'elbow'"):
        model.add_force(mb.JointFriction("elbow", 1.0))
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3)), parent="bob0", joint=mb.Spherical(name="wrist"))
    with pytest.raises(mb.ModelError, match="joint 'wrist' is Spherical"):
        model.add_force(mb.JointFriction("wrist", 1.0))
    with pytest.raises(mb.ModelError, match="joint 'wrist' is Spherical"):
        model.add_force(mb.JointSpring("wrist", 0.0, damping=1.0))
