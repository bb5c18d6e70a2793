"""Real quadrupeds of example-robot-data (their URDF collision primitives and meshes, SRDF disabled pairs) dropped on a
floor land and stand: the contact time stepper's LCP on several feet (redundant rows) never fails, the feet do not
sink, the energy only decreases after the impacts, and the base ends where MuJoCo's run of the same URDF ends. And
the contact solver's fallback on degenerate problems."""
from pathlib import Path
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import multibody as mb
from multibody.constraints import contact as contact_module
from multibody.constraints.contact import ApproximateContactWarning, contact_pairs
from multibody.constraints.lcp import lemke, projected_gauss_seidel
from multibody.io.srdf import disable_collisions
from oracles import mujoco_urdf_on_floor

pin = pytest.importorskip("pinocchio")
mujoco = pytest.importorskip("mujoco")
ROBOTS = Path(pin.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"
QUADRUPEDS = {"go1": ("go1_description/urdf/go1.urdf", "go1_description/srdf/go1.srdf"),
              "anymal": ("anymal_b_simple_description/robots/anymal.urdf",
                         "anymal_b_simple_description/srdf/anymal.srdf"),
              "solo12": ("solo_description/robots/solo12.urdf", "solo_description/srdf/solo.srdf")}
G = 9.81
# [N·m/rad], [N·m·s/rad]: the legs' joint spring-dampers (PD torques) about the standing pose; Solo12's legs are
# light (2.5 kg robot): stiffer ones would need a shorter step
GAINS = {"go1": (150.0, 4.0), "anymal": (150.0, 4.0), "solo12": (6.0, 0.3)}


def _standing(srdf):
    """The SRDF's "standing" group state: {joint: angle [rad]} of the leg joints."""
    state = next(s for s in ET.parse(srdf).getroot().iter("group_state") if s.get("name") == "standing")
    return {j.get("name"): float(j.get("value")) for j in state.iter("joint") if j.get("name") != "root_joint"}


def _quadruped(name):
    """(model with a floor and leg spring-dampers holding the standing pose, q0 with the lowest shape 5 cm above
    the floor)."""
    urdf, srdf = (ROBOTS / p for p in QUADRUPEDS[name])
    stiffness, damping = GAINS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cylinders read as capsules, meshes as hulls, box–box and hull–hull pairs
        model = mb.Model.from_urdf(urdf, floating_base=True, collisions=True)
        disable_collisions(model, srdf)
        model.add_geometry("world", mb.Plane(), friction=0.8, name="floor")
        q0 = model.neutral()
        for joint, angle in _standing(srdf).items():
            q0[model.q_slice(joint)] = angle
            model.add_force(mb.JointSpring(joint, stiffness, rest=angle, damping=damping))
        contact_pairs(model)
    q0[2] += 0.05 - min(_floor_gaps(model, q0))
    return model, q0


def _disable_pairs_touching(model, q):
    """Leave out the contacts between robot shapes that overlap at q (as MoveIt's setup assistant disables the
    pairs "in collision by default"): Solo12's base hull overlaps its upper legs' hulls by 4 mm in the standing pose
    (its meshes do not), ANYmal's hind hip capsules each other by 5 mm. Returns the pairs' names."""
    snapshot = mb.constraints._kinematics.Snapshot(model, q, np.zeros(model.nv))
    touching = [(c.a, c.b) for c in contact_module.detect(model, snapshot, 0.0) if "floor" not in (c.a.name, c.b.name)]
    for a, b in touching:
        a.exclude_contacts(b)
    return sorted(f"{a.name}–{b.name}" for a, b in touching)


def _floor_gaps(model, q):
    """Signed distances [m] of the robot's shapes to the floor at q."""
    snapshot = mb.constraints._kinematics.Snapshot(model, q, np.zeros(model.nv))
    return [c.geometry.distance for c in contact_module.detect(model, snapshot, np.inf)
            if "floor" in (c.a.name, c.b.name)]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["anymal", "go1"])
def test_quadruped_dropped_on_the_floor_lands_and_stands(name):
    """Dropped from 5 cm in its standing pose, legs held by spring-dampers: it lands on its feet and comes to rest
    within 1.5 s (base height still to 0.2 mm, speeds below 5 cm/s), no shape sinks more than 2 mm into the floor,
    the total energy (kinetic, gravity, springs) never grows after touchdown (to 1e-6 of m g × 5 cm), and the
    contact LCP is solved exactly throughout (no approximate-contact warning)."""
    model, q0 = _quadruped(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximateContactWarning)
        traj = mb.simulate(model, q0, np.zeros(model.nv), 2.0, method="contact", dt=2e-3)
    assert np.all(np.isfinite(traj.q)) and np.all(np.isfinite(traj.v))
    rest = traj.t >= 1.5
    assert np.ptp(traj.q[rest, 2]) < 2e-4
    assert np.abs(traj.v[rest]).max() < 5e-2
    gaps = [min(_floor_gaps(model, q)) for q in traj.q]
    assert min(gaps) > -2e-3
    energy = traj.energy()
    touchdown = next(k for k, gap in enumerate(gaps) if gap <= 1e-3)
    assert np.diff(energy[touchdown:]).max() <= 1e-6 * model.total_mass() * G * 0.05
    assert energy[-1] < energy[touchdown]


def _mujoco_quadruped(name, stiff):
    """MuJoCo's model of the same URDF (its own URDF reader; meshes as convex hulls too) on a floor plane, with a
    free joint on the root link, every geom with friction 0.8 and touching only the floor (no self-collision).
    ``stiff``: MuJoCo's contact made as rigid as its step allows (time constant 2 dt, impedance 0.99–0.999) and
    without slip (50 no-slip iterations), like multibody's complementarity contact; by default it sinks 6–7 mm
    into the floor and its feet creep outwards under load (:func:`oracles.mujoco_urdf_on_floor`)."""
    model = mujoco_urdf_on_floor(ROBOTS / QUADRUPEDS[name][0], ROBOTS)
    if stiff:
        model.opt.noslip_iterations = 50
        model.geom_solref[:] = [2 * model.opt.timestep, 1.0]
        model.geom_solimp[:] = [0.99, 0.999, 0.001, 0.5, 2.0]
    return model


def _mujoco_run(name, q0, duration, stiff=True):
    """Base heights [m] of MuJoCo's run (:func:`_mujoco_quadruped`) from the same pose, the same PD torques in
    ``qfrc_applied`` each step (dt 2 ms), and the deepest contact distance [m] seen."""
    model = _mujoco_quadruped(name, stiff)
    data = mujoco.MjData(model)
    stiffness, damping = GAINS[name]
    targets = _standing(ROBOTS / QUADRUPEDS[name][1])
    qpos = np.array([model.joint(j).qposadr[0] for j in targets])
    dofs = np.array([model.joint(j).dofadr[0] for j in targets])
    rest = np.array(list(targets.values()))
    data.qpos[:7] = q0[:7]
    data.qpos[qpos] = rest
    heights, deepest = [], 0.0
    for _ in range(round(duration / model.opt.timestep)):
        data.qfrc_applied[dofs] = -stiffness * (data.qpos[qpos] - rest) - damping * data.qvel[dofs]
        mujoco.mj_step(model, data)
        heights.append(data.qpos[2])
        deepest = min(deepest, data.contact.dist[:data.ncon].min(initial=0.0))
    return np.array(heights), deepest


@pytest.mark.slow
@pytest.mark.parametrize("name", ["go1", "anymal", "solo12"])
def test_quadruped_stands_where_mujoco_stands(name):
    """Dropped 5 cm in its standing pose with the legs' PD torques, 2 s, with the URDF's collision shapes (Solo12's
    all meshes: convex hulls) and the SRDF's disabled pairs: the base ends within 2 cm of MuJoCo's run of the same
    URDF (its contact made stiff and without slip, :func:`_mujoco_quadruped`; the robot touches only the floor there),
    both at rest, and no shape sinks more than 3 mm into the floor. The robot's shape pairs that overlap in the
    standing pose are left out (:func:`_disable_pairs_touching`)."""
    model, q0 = _quadruped(name)
    model.friction_rule = "max"  # MuJoCo's: the floor's 0.8
    assert len(_disable_pairs_touching(model, q0)) == {"go1": 0, "anymal": 1, "solo12": 4}[name]
    duration = 2.0
    traj = mb.simulate(model, q0, np.zeros(model.nv), duration, method="contact", dt=2e-3)
    heights, _ = _mujoco_run(name, q0, duration)
    assert abs(traj.q[-1, 2] - heights[-1]) < 0.02, (traj.q[-1, 2], heights[-1])
    assert min(min(_floor_gaps(model, q)) for q in traj.q[::10]) > -3e-3
    assert np.abs(traj.v[-1]).max() < 0.1


def test_shapes_overlapping_at_the_start_are_named():
    """Solo12 with its SRDF's disabled pairs alone: its base hull overlaps the four upper legs' hulls by 4.1 mm in
    the standing pose, which a contact run names in one warning at its start; with those pairs left out it says
    nothing (the floor 5 cm below touches nothing)."""
    model, q0 = _quadruped("solo12")
    with pytest.warns(UserWarning, match="overlap at the start") as caught:
        mb.simulate(model, q0, np.zeros(model.nv), 2e-3, method="contact", dt=1e-3)
    message = str(next(w.message for w in caught if "overlap at the start" in str(w.message)))
    for leg in ("FL", "FR", "HL", "HR"):
        assert f"base_link_0–{leg}_UPPER_LEG_0 (4.1 mm)" in message, message
    _disable_pairs_touching(model, q0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mb.simulate(model, q0, np.zeros(model.nv), 2e-3, method="contact", dt=1e-3)


def _box_on_floor(mass=2.0, half=(0.2, 0.1, 0.05)):
    model = mb.Model("box", gravity=(0, 0, -G))
    model.add(mb.Body("box", mass=mass, inertia=np.diag([0.01, 0.03, 0.04])), joint=mb.Free())
    model.add_geometry("box", mb.Box(half), friction=0.5)
    model.add_geometry("world", mb.Plane(), friction=0.5)
    return model, np.array([0, 0, half[2], 1, 0, 0, 0.0])


def test_fallback_carries_a_box_resting_on_its_four_corners(monkeypatch):
    """Four coplanar corners (4 normal rows of rank 3, 32 pyramid rows of rank 8): with Lemke's method made to
    fail, projected Gauss–Seidel carries the box and says so. The corner forces of a rigid box are not unique;
    their resultant is: m g up through the centre (no moment), each corner pushing, within its Coulomb disc, and
    the box stays at rest."""
    monkeypatch.setattr(contact_module, "first_solution", lambda *args: False)  # Lemke's method "fails"
    model, q = _box_on_floor()
    with pytest.warns(ApproximateContactWarning, match="projected Gauss–Seidel"):
        res = mb.constraint_forces(model, q, np.zeros(6))
    forces = np.array([c["force"] for c in res.contacts])
    points = np.array([c["point"] for c in res.contacts])
    assert len(forces) == 4 and forces[:, 2].min() > 0
    assert np.all(np.hypot(forces[:, 0], forces[:, 1]) <= 0.5 * forces[:, 2] * (1 + 1e-9))
    np.testing.assert_allclose(forces.sum(axis=0), [0, 0, 2.0 * G], rtol=0, atol=1e-4)
    np.testing.assert_allclose(np.cross(points - q[:3], forces).sum(axis=0), 0, rtol=0, atol=1e-4)
    np.testing.assert_allclose(res.a, 0, rtol=0, atol=1e-4)


def test_redundant_contacts_are_solved_exactly_without_the_fallback():
    """The same box by Lemke's method (no warning): the weight is carried, m g in sum, the box at rest."""
    model, q = _box_on_floor()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximateContactWarning)
        res = mb.constraint_forces(model, q, np.zeros(6))
    np.testing.assert_allclose(sum(c["force"] for c in res.contacts), [0, 0, 2.0 * G], rtol=0, atol=1e-6)
    np.testing.assert_allclose(res.a, 0, rtol=0, atol=1e-7)


def _painleve_rod(mu, theta=np.radians(60), mass=1.0, half_length=0.5):
    """A rod at θ to the floor on its lower end, sliding towards its foot (kinetic friction then presses the end into
    the floor: Painlevé's paradox when μ > (1 + 3 cos²θ) / (3 sin θ cos θ), 1.35 at 60°)."""
    model = mb.Model("painleve", gravity=(0, 0, -G))
    inertia = mass * half_length ** 2 / 3
    model.add(mb.Body("rod", mass=mass, inertia=np.diag([inertia, inertia, 1e-4])), joint=mb.Free())
    model.add_geometry("rod", mb.Capsule(1e-3, half_length), friction=mu)
    model.add_geometry("world", mb.Plane(), friction=mu)
    R = mb.rotation_about((1, 0, 0), np.pi / 2 - theta)  # rod axis z → (0, −cos θ, sin θ)
    q = np.array([*(R @ [0, 0, half_length] + [0, 0, 1e-3]), *mb.rotation_to_quat(R)])
    return model, q, R


@pytest.mark.parametrize("sliding, paradox", [(1.0, True), (-1.0, False)])
def test_painleve_paradox_falls_back_with_a_warning(sliding, paradox):
    """μ = 2 > 1.35: sliding one way, kinetic friction makes the end's normal acceleration fall as the normal force
    grows and the acceleration-level LCP has no solution; projected Gauss–Seidel then gives a force (said by the
    warning) that pushes (λ_n > 0) within the Coulomb disc. Sliding the other way is solved exactly, at the cone's
    edge."""
    model, q, R = _painleve_rod(2.0)
    v = np.zeros(6)
    v[3:] = R.T @ [0, sliding, 0]  # body-axes velocity of the origin: the rod slides along world y
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mb.constraint_forces(model, q, v)
    assert any(issubclass(w.category, ApproximateContactWarning) for w in caught) == paradox
    (contact,) = res.contacts
    f = contact["force"]
    assert np.all(np.isfinite(res.a)) and f[2] > 0 and np.hypot(f[0], f[1]) <= 2.0 * f[2] * (1 + 1e-9)
    assert paradox or contact["status"] == "slip" and np.hypot(f[0], f[1]) == pytest.approx(2.0 * f[2], rel=1e-9)


def test_projected_gauss_seidel_matches_lemke_on_a_frictionless_problem():
    """Frictionless blocks (μ = 0: no tangential force) on a positive definite A: the relaxation converges to the
    unique solution of the LCP of the normal rows (to its constraint force mixing)."""
    rng = np.random.default_rng(4)
    J = rng.normal(size=(9, 12))
    A, b = J @ J.T, rng.normal(size=9)
    f = projected_gauss_seidel(A, b, np.zeros(3), cfm=1e-12, sweeps=5000, tol=1e-14)
    normal = [0, 3, 6]
    np.testing.assert_allclose(f[normal], lemke(A[np.ix_(normal, normal)], b[normal]), rtol=0, atol=1e-8)
    np.testing.assert_array_equal(np.delete(f, normal), 0.0)


def test_srdf_disables_the_pairs_pinocchio_removes():
    """Go1's SRDF (658 <disable_collisions>): every shape pair we test is one Pinocchio's removeCollisionPairs keeps,
    and every pair it keeps that we do not test is one we leave out for another reason (shapes of one body or of a
    body and its parent, box–box without a contact model)."""
    urdf, srdf = (ROBOTS / p for p in QUADRUPEDS["go1"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mb.Model.from_urdf(urdf, floating_base=True, collisions=True)
        assert disable_collisions(model, srdf) > 0
        ours = {frozenset((model.geometries[i].name, model.geometries[j].name)) for i, j in contact_pairs(model)}
    reference = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    geometry = pin.buildGeomFromUrdf(reference, str(urdf), pin.GeometryType.COLLISION)
    geometry.addAllCollisionPairs()
    pin.removeCollisionPairs(reference, geometry, str(srdf))
    names = [g.name for g in geometry.geometryObjects]
    kept = {frozenset((names[p.first], names[p.second])) for p in geometry.collisionPairs}
    assert ours and ours <= kept
    shapes = {g.name: g for g in model.geometries}
    for pair in kept - ours:
        a, b = (shapes.get(name) for name in sorted(pair))
        if a is None or b is None:
            continue  # a mesh
        ia, ib = (model.locate(g.body)[0] for g in (a, b))
        assert ia == ib or model.parents[ia] == ib or model.parents[ib] == ia or (
            isinstance(a.shape, mb.Box) and isinstance(b.shape, mb.Box)), pair


def test_srdf_errors_and_unknown_links_are_said():
    model = mb.Model.chain(2)
    model.add_geometry("link1", mb.Sphere(0.1), name="link1_0")
    model.add_geometry("link2", mb.Sphere(0.1), name="link2_0")
    with pytest.warns(UserWarning, match="names links model 'chain2' does not have \\(ignored\\): ghost"):
        count = disable_collisions(model, '<robot><disable_collisions link1="link1" link2="link2"/>'
                                          '<disable_collisions link1="ghost" link2="link2"/></robot>')
    assert count == 1 and model.geometries[0].exclude == {"link2_0"}
    with pytest.raises(mb.ModelError, match="no such SRDF file"):
        disable_collisions(model, "missing.srdf")
    with pytest.warns(UserWarning, match="not saved in the model file"):
        model.geometries[0].to_dict()
