"""Unilateral contact with Coulomb friction: block on an incline (stick, slip onset, sliding), a box dropped on
the ground (time stepping), a resting sphere's contact force."""
import numpy as np
import pytest

import multibody as mb

G, MU = 9.81, 0.5
HALF = np.array([0.2, 0.1, 0.05])


def _block_on_incline(theta, mu=MU):
    """A box resting on a plane tilted by θ about the world x axis (downhill = −y' of the plane)."""
    model = mb.Model("incline", gravity=(0, 0, -G))
    model.add(mb.Body("block", mass=2.0, inertia=np.diag([0.01, 0.03, 0.04])), joint=mb.Free())
    model.add_geometry("block", mb.Box(HALF), friction=mu)
    R = mb.rotation_about((1, 0, 0), theta)
    model.add_geometry("world", mb.Plane(), friction=mu, placement=mb.Transform(R))
    q = np.array([*(R @ [0, 0, HALF[2]]), *mb.rotation_to_quat(R)])
    downhill = R @ [0, -1, 0] if theta > 0 else R @ [0, 1, 0]
    return model, q, R, downhill


def _acceleration_along(model, q, v, direction):
    a = mb.forward_dynamics(model, q, v)
    R = mb.body_pose(model, q, "block")[0]
    # body-axes v̇ of the origin plus ω × v gives the classical acceleration (here ω = 0)
    return (R @ a[3:]) @ direction, a


@pytest.mark.parametrize("theta", [0.2, 0.4])
def test_block_sticks_when_tan_theta_below_mu(theta):
    model, q, R, downhill = _block_on_incline(theta)
    assert np.tan(theta) < MU
    acc, a = _acceleration_along(model, q, np.zeros(6), downhill)
    np.testing.assert_allclose(a, 0, atol=1e-6)
    res = mb.constraint_forces(model, q, np.zeros(6))
    total = sum(c["force"] for c in res.contacts)
    np.testing.assert_allclose(total, [0, 0, 2.0 * G], atol=1e-6)  # the contacts carry the weight
    assert "slip" not in {c["status"] for c in res.contacts}  # a redundant corner may carry no load


@pytest.mark.parametrize("theta", [0.6, 1.0])
def test_block_starts_sliding_when_tan_theta_above_mu(theta):
    model, q, R, downhill = _block_on_incline(theta)
    assert np.tan(theta) > MU
    acc, a = _acceleration_along(model, q, np.zeros(6), downhill)
    assert acc == pytest.approx(G * (np.sin(theta) - MU * np.cos(theta)), abs=1e-6)
    np.testing.assert_allclose(a[:3], 0, atol=1e-4)  # no rotation (to the one-step slip-direction refinement)


@pytest.mark.parametrize("theta", [0.2, 0.6])
def test_sliding_block_has_kinetic_friction(theta):
    """Sliding downhill at 1 m/s: a = g (sin θ − μ cos θ) (decelerating when tan θ < μ)."""
    model, q, R, downhill = _block_on_incline(theta)
    v = np.concatenate([np.zeros(3), R.T @ downhill])
    acc, _ = _acceleration_along(model, q, v, downhill)
    assert acc == pytest.approx(G * (np.sin(theta) - MU * np.cos(theta)), abs=1e-6)


def test_block_slides_in_time_stepping():
    """The velocity-level scheme reproduces the sliding acceleration (pyramid edge along the slope)."""
    theta = 0.6
    model, q, R, downhill = _block_on_incline(theta)
    traj = mb.simulate(model, q, np.zeros(6), 0.2, method="contact", dt=1e-3)
    speed = np.array([(mb.body_pose(model, qq, "block")[0] @ vv[3:]) @ downhill for qq, vv in zip(traj.q, traj.v)])
    expected = G * (np.sin(theta) - MU * np.cos(theta))
    assert speed[-1] / traj.t[-1] == pytest.approx(expected, rel=0.1)


@pytest.mark.parametrize("e", [0.0, 0.5])
def test_contact_scheme_bounces_a_sphere_and_rests_it(e):
    """A ball dropped from 0.5 m onto the ground (mb.simulate's velocity-level contact stepper, dt = 1 ms). The
    approach is caught in the step in which the ball reaches the ground: it ends that step on the ground (e = 0),
    or rebounds at e |v| from within one step's travel h|v| of it (after the step, h (1 + e)|v| above the
    ground) to e² of the height (to 2 %). Once the bounces die out it rests on the plane without penetrating or
    jittering."""
    radius, height, dt = 0.1, 0.5, 1e-3
    model = mb.Model("ball", gravity=(0, 0, -G))
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 0.004), joint=mb.Free())
    model.add_geometry("ball", mb.Sphere(radius), restitution=e, friction=0.5)
    model.add_geometry("world", mb.Plane(), restitution=e, friction=0.5)
    q0 = model.neutral()
    q0[2] = radius + height
    traj = mb.simulate(model, q0, np.zeros(6), 1.5, method="contact", dt=dt)
    z, vz = traj.q[:, 2] - radius, traj.v[:, 5]
    impact_speed = np.sqrt(2 * G * height)
    first = 1 + np.argmax(vz[1:] > -1e-6)  # the first step that stops the fall
    assert traj.t[first] == pytest.approx(np.sqrt(2 * height / G), abs=dt)
    assert -1e-9 <= z[first] < (1 + e) * dt * impact_speed
    assert vz[first] == pytest.approx(e * impact_speed, rel=0.01, abs=1e-8)
    assert z[first:].max() == pytest.approx(e**2 * height, rel=0.02, abs=dt * impact_speed)
    assert z.min() > -1e-9
    rest = traj.t > 1.2
    np.testing.assert_allclose(z[rest], 0.0, atol=1e-9)
    np.testing.assert_allclose(traj.v[rest], 0.0, atol=1e-9)


def test_box_dropped_on_ground_comes_to_rest():
    """Dropped tilted from 0.3 m: it lands, settles, penetrates < 1 mm, and rests without jitter."""
    model = mb.Model("drop", gravity=(0, 0, -G))
    model.add(mb.Body("box", mass=1.0, inertia=np.diag([0.01, 0.02, 0.025])), joint=mb.Free())
    model.add_geometry("box", mb.Box(HALF), friction=0.8)
    model.add_geometry("world", mb.Plane(), friction=0.8)
    q0 = np.array([0, 0, 0.3, *mb.rotation_to_quat(mb.rotation_about((1, 1, 0), 0.3))])
    traj = mb.simulate(model, q0, np.zeros(6), 1.2, method="contact", dt=2e-3)
    corners = np.array([mb.body_pose(model, qq, "box")[1] + mb.body_pose(model, qq, "box")[0] @ c
                        for qq in traj.q for c in mb.Box(HALF).corners()])
    assert corners[:, 2].min() > -1e-3
    rest = traj.t > 0.9
    assert np.abs(traj.v[rest]).max() < 1e-6
    assert np.ptp(traj.q[rest, 2]) < 1e-7
    assert traj.q[-1, 2] == pytest.approx(HALF[2], abs=1e-3)


def test_sphere_resting_on_sphere_carries_its_weight():
    model = mb.Model("stack", gravity=(0, 0, -G))
    model.add(mb.Body("ball", mass=3.0, inertia=np.eye(3) * 0.01), joint=mb.Free())
    model.add_geometry("ball", mb.Sphere(0.1))
    model.add_geometry("world", mb.Sphere(0.2))
    q = np.array([0, 0, 0.3, 1, 0, 0, 0.0])
    res = mb.constraint_forces(model, q, np.zeros(6))
    np.testing.assert_allclose(res.a, 0, atol=1e-7)  # to the LCP regularization (1e-10 relative)
    np.testing.assert_allclose(res.contacts[0]["force"], [0, 0, 3.0 * G], atol=1e-6)


def test_separating_contact_exerts_no_force():
    model, q, R, _ = _block_on_incline(0.2)
    v = np.array([0, 0, 0, 0, 0, 1.0])  # moving off the plane
    np.testing.assert_allclose(mb.forward_dynamics(model, q, v)[3:], R.T @ [0, 0, -G], atol=1e-9)


def test_unsupported_pair_is_named_and_left_out():
    """A pair of shapes without a contact model (a plane on a body and the floor) never touches, and a warning
    says which."""
    model = mb.Model("planes", gravity=(0, 0, -G))
    model.add(mb.Body("a", mass=1.0, inertia=np.eye(3) * 0.01), joint=mb.Free())
    model.add_geometry("a", mb.Plane(), name="paddle")
    model.add_geometry("world", mb.Plane(), name="floor")
    with pytest.warns(UserWarning, match="no contact model for 1 pairs of shapes, which never touch: paddle–floor "
                                         "\\(Plane–Plane\\)"):
        a = mb.forward_dynamics(model, np.array([0, 0, 0.05, 1, 0, 0, 0.0]), np.zeros(6))
    np.testing.assert_allclose(a, [0, 0, 0, 0, 0, -G], rtol=0, atol=1e-12)


@pytest.mark.parametrize("shape", [mb.Box((0.2, 0.1, 0.05)), mb.Capsule(0.05, 0.15)])
def test_a_box_and_a_capsule_dropped_on_a_table_come_to_rest_on_it(shape):
    """Box–box and capsule–box contact in the contact stepper: dropped tilted onto a box table, the body lands and
    settles flat on the table top (z = 0.1), the contacts carrying its weight; the box comes to rest, the capsule
    rolls on about its axis (no rolling resistance), its centre neither rising nor sinking."""
    model = mb.Model("table", gravity=(0, 0, -G))
    model.add(mb.Body("thing", mass=1.0, inertia=np.diag([0.01, 0.02, 0.025])), joint=mb.Free())
    model.add_geometry("thing", shape, friction=0.8)
    model.add_geometry("world", mb.Box((0.5, 0.5, 0.1)), friction=0.8, name="table")
    turn = mb.rotation_about((1, 1, 0), 0.3) @ (np.eye(3) if isinstance(shape, mb.Box)
                                                 else mb.rotation_about((0, 1, 0), np.pi / 2))
    q0 = np.array([0.05, 0, 0.4, *mb.rotation_to_quat(turn)])
    traj = mb.simulate(model, q0, np.zeros(6), 1.5, method="contact", dt=2e-3, progress=False)
    rest = traj.t > 1.2
    rolling = np.abs(traj.v[rest, 2]).max() if isinstance(shape, mb.Capsule) else 0.0  # ω about its own axis
    assert np.abs(traj.v[rest]).max() < 1e-6 + rolling and np.abs(traj.v[rest, 5]).max() < 1e-6
    height = shape.half_extents[2] if isinstance(shape, mb.Box) else shape.radius
    np.testing.assert_allclose(traj.q[-1, 2], 0.1 + height, rtol=0, atol=1e-3)
    res = mb.constraint_forces(model, traj.q[-1], np.zeros(6))
    np.testing.assert_allclose(sum(c["force"] for c in res.contacts), [0, 0, G], rtol=0, atol=1e-5)


def test_a_body_and_its_parent_never_touch():
    """As in MuJoCo, shapes of a body and of its parent are not paired (two links' shapes meet at their joint),
    while the world is paired with every body."""
    from multibody.constraints.contact import contact_pairs
    model = mb.Model.chain(3)
    for link in ("link1", "link2", "link3"):
        model.add_geometry(link, mb.Sphere(0.1), name=link)
    model.add_geometry("world", mb.Plane(), name="floor")
    names = [(model.geometries[i].name, model.geometries[j].name) for i, j in contact_pairs(model)]
    assert names == [("link1", "link3"), ("link1", "floor"), ("link2", "floor"), ("link3", "floor")]


def test_bad_geometry_input():
    model = mb.Model.chain(1)
    with pytest.raises(mb.ModelError, match="friction"):
        model.add_geometry("link1", mb.Sphere(0.1), friction=-1)
    with pytest.raises(mb.ModelError, match="restitution"):
        model.add_geometry("link1", mb.Sphere(0.1), restitution=1.5)
    with pytest.raises(mb.ModelError, match="nobody"):
        model.add_geometry("nobody", mb.Sphere(0.1))
    with pytest.raises(mb.ModelError, match="shape"):
        model.add_geometry("link1", "sphere")
    with pytest.raises(mb.ModelError, match="Sphere radius"):
        mb.Sphere(0)
