"""Event-driven collisions: bouncing ball (apex ratio e², finite rest time, impact records saved and tabled),
Newton's cradle, a rod landing on one end (closed-form planar impact), bad input."""
import dataclasses

import numpy as np
import pytest

import multibody as mb
from multibody import simulate_impacts

from ._helpers import ball_on_arm

G = 9.81


def bouncing_ball(e, height=1.0, radius=0.1):
    model = mb.Model("ball", gravity=(0, 0, -G))
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 0.004), joint=mb.Free())
    model.add_geometry("ball", mb.Sphere(radius), restitution=e, friction=0.0)
    model.add_geometry("world", mb.Plane(), restitution=e, friction=0.0, name="ground")
    q0 = model.neutral()
    q0[2] = radius + height
    return model, q0


def apex(t, z):
    """Vertex of the parabola z = a t² + b t + c through the highest sample and its neighbours (exact in flight)."""
    k = int(np.argmax(z))
    a, b, c = np.polyfit(t[k - 1:k + 2] - t[k], z[k - 1:k + 2], 2)
    return c - b * b / (4 * a)


def test_bouncing_ball_apex_ratio_is_e_squared_and_it_comes_to_rest():
    e, radius = 0.8, 0.1
    model, q0 = bouncing_ball(e, radius=radius)
    traj = simulate_impacts(model, q0, np.zeros(6), t_end=4.5, samples=2251)
    times = [r.time for r in traj.impacts]
    heights = []
    for start, stop in zip(times[:4], times[1:5]):
        inside = (traj.t > start) & (traj.t < stop)
        heights.append(apex(traj.t[inside], traj.q[inside, 2]) - radius)
    ratios = np.array(heights[1:]) / np.array(heights[:-1])
    np.testing.assert_allclose(ratios, e**2, atol=1e-6)
    assert heights[0] == pytest.approx(e**2 * 1.0, abs=1e-6)
    # infinitely many bounces would end at t∞ = (v₀/g)(1 + 2e/(1 − e)); the rest threshold stops it just before
    v0 = np.sqrt(2 * G * 1.0)
    t_inf = v0 / G * (1 + 2 * e / (1 - e))
    t_rest = traj.impacts[-1].time
    assert t_inf - 2 * 1e-3 / (G * (1 - e)) < t_rest <= t_inf
    assert traj.impacts[-1].resting == [("ball_geom0", "ground")]
    after = traj.t > t_rest
    np.testing.assert_allclose(traj.q[after, 2], radius, atol=1e-8)
    np.testing.assert_allclose(traj.v[after], 0.0, atol=1e-8)
    for record in traj.impacts:
        assert record.kinetic_energy_after <= record.kinetic_energy_before
        if not record.resting:
            assert record.kinetic_energy_after == pytest.approx(e**2 * record.kinetic_energy_before, rel=1e-9)


def _same(x, y):
    """Bit-identical values of the same type (arrays and lists of arrays by their bytes)."""
    if isinstance(x, np.ndarray) or (isinstance(x, list) and x and isinstance(x[0], np.ndarray)):
        return (type(x) is type(y) and np.shape(x) == np.shape(y)
                and np.array(x, dtype=float).tobytes() == np.array(y, dtype=float).tobytes())
    return (isinstance(x, type(y)) or isinstance(y, type(x))) and x == y


def test_bouncing_ball_impacts_survive_save_and_load(tmp_path):
    e = 0.5
    model, q0 = bouncing_ball(e)
    traj = simulate_impacts(model, q0, np.zeros(6), t_end=1.5, samples=31)
    assert len(traj.impacts) > 5 and traj.impacts[-1].resting == [("ball_geom0", "ground")]
    loaded = mb.Trajectory.load(traj.save(tmp_path / "ball.npz"))
    assert [g.to_dict() for g in loaded.model.geometries] == [g.to_dict() for g in model.geometries]
    assert len(loaded.impacts) == len(traj.impacts)
    for before, after in zip(traj.impacts, loaded.impacts):
        for field in dataclasses.fields(before):
            assert _same(getattr(before, field.name), getattr(after, field.name)), field.name
    assert loaded.impacts[0].bodies == [("ball", None)]


def test_impact_table_has_one_row_per_contact_and_the_momentum_jump():
    pd = pytest.importorskip("pandas")
    e = 0.5
    model, q0 = bouncing_ball(e)
    traj = simulate_impacts(model, q0, np.zeros(6), t_end=1.0, samples=3)
    table = traj.impacts_dataframe()
    assert len(table) == len(traj.impacts) >= 2
    assert (table["body_a"] == "ball").all() and (table["body_b"] == "world").all()
    assert (table["shape_b"] == "ground").all()
    np.testing.assert_array_equal(table["time"], [r.time for r in traj.impacts])
    # impulse on the ball = its momentum jump m (v⁺ − v⁻) (m = 1 kg, no rotation: body axes are world axes)
    jump = np.array([r.v_after[3:] - r.v_before[3:] for r in traj.impacts])
    np.testing.assert_allclose(table[["impulse_x", "impulse_y", "impulse_z"]], jump, rtol=1e-12, atol=1e-15)
    first = table.iloc[0]
    assert first["impulse_z"] == pytest.approx((1 + e) * np.sqrt(2 * G * 1.0), rel=1e-8)
    assert first["kinetic_energy_after"] == pytest.approx(e**2 * first["kinetic_energy_before"], rel=1e-9)
    empty = mb.simulate(model, q0, np.zeros(6), t_end=0.1, samples=3).impacts_dataframe()
    assert isinstance(empty, pd.DataFrame) and empty.empty and list(empty.columns) == list(table.columns)


def test_a_failed_run_keeps_the_impacts_so_far():
    model, q0 = bouncing_ball(0.5)
    broken = (lambda t, q, v: np.full(6, np.nan if t > 0.7 else 0.0))
    with pytest.raises(mb.SimulationError) as info:
        simulate_impacts(model, q0, np.zeros(6), t_end=1.5, torque=broken, max_step=0.01)
    impacts = info.value.trajectory.impacts
    assert len(impacts) == 1 and impacts[0].time == pytest.approx(np.sqrt(2 * 1.0 / G), abs=1e-8)


def test_ctrl_c_keeps_the_impacts_so_far():
    model, q0 = bouncing_ball(0.5)

    def torque(t, q, v):
        if t > 0.7:
            raise KeyboardInterrupt
        return np.zeros(6)
    with pytest.raises(mb.SimulationInterrupted) as info:
        simulate_impacts(model, q0, np.zeros(6), t_end=1.5, torque=torque, max_step=0.01)
    impacts = info.value.trajectory.impacts
    assert len(impacts) == 1 and impacts[0].time == pytest.approx(np.sqrt(2 * 1.0 / G), abs=1e-8)


def cradle(n, length=0.5, radius=0.02, mass=0.1, inertia=1e-7):
    """n pendulum balls hanging in a touching row along x (pivot spacing 2 r), all with e = 1."""
    model = mb.Model("cradle", gravity=(0, 0, -G))
    for k in range(n):
        name = f"ball{k}"
        model.add(mb.Body(name, mass=mass, com=(0, 0, -length), inertia=np.eye(3) * inertia),
                  joint=mb.Revolute((0, 1, 0)), placement=mb.Transform(translation=(2 * radius * k, 0, 0)))
        model.add_geometry(name, mb.Sphere(radius), restitution=1.0, friction=0.0,
                           placement=mb.Transform(translation=(0, 0, -length)))
    return model


@pytest.mark.parametrize("n", [3, 5])
def test_newtons_cradle_passes_momentum_and_energy_to_the_last_ball(n):
    model = cradle(n)
    q0 = np.zeros(n)
    q0[0] = 0.3  # first ball pulled back (away from the row)
    traj = simulate_impacts(model, q0, np.zeros(n), t_end=1.2, samples=1201)
    first = traj.impacts[0]
    i = np.searchsorted(traj.t, first.time)
    assert first.kinetic_energy_after == pytest.approx(first.kinetic_energy_before, rel=1e-12)
    # just after the impact the last ball moves with the first ball's velocity and the others are at rest
    state = traj.v[i]
    v_hit = np.sqrt(2 * G * 0.5 * (1 - np.cos(0.3))) / 0.5  # angular rate at the bottom
    np.testing.assert_allclose(state[:-1], 0.0, atol=1e-6)
    assert state[-1] == pytest.approx(-v_hit, rel=1e-5)
    # the last ball swings out to the release angle while the others hang still, then the pulse comes back
    swing = (traj.t > first.time) & (traj.t < traj.impacts[1].time)
    assert traj.q[swing, -1].min() == pytest.approx(-0.3, abs=1e-5)  # sampled every 1 ms
    np.testing.assert_allclose(traj.q[swing, :-1], 0.0, atol=1e-8)  # event root at gap = −5e-10 m
    assert len(traj.impacts) == 2
    assert traj.q[-1, 0] > 0.1  # ... and the first ball is out again
    energy = traj.energy()
    assert np.ptp(energy) < 1e-9 * abs(energy[0])


@pytest.mark.parametrize("n, size", [(3, "small"), (3, "large"), (5, "large")])
def test_newtons_cradle_has_exactly_the_physical_impacts_and_keeps_its_energy(n, size):
    """Default settings, 10 s: an impact every half period of the (large-amplitude, physical) pendulum, each through
    the whole row, and the energy kept to the integrator's tolerance. Balls left touching at rest and held by the
    contact LCP instead (Baumgarte on overlapping trial states) would split the pulse into two impacts 2 µs apart
    and slow spurious ones would follow (3 balls: 17 impacts instead of 10, energy +1.3e-4 J on the large cradle)."""
    from scipy.special import ellipk
    length, radius, mass, inertia = {"small": (0.5, 0.02, 0.1, 1e-7), "large": (1.0, 0.05, 1.0, 1e-3)}[size]
    model = cradle(n, length, radius, mass, inertia)
    amplitude = 0.3
    q0 = np.zeros(n)
    q0[0] = amplitude
    traj = simulate_impacts(model, q0, np.zeros(n), t_end=10.0)
    # T = 4 K(sin²(θ₀/2)) / ω₀ with ω₀² = m g L / (m L² + I) (scipy's ellipk takes the parameter m = k²)
    period = 4 * ellipk(np.sin(amplitude / 2) ** 2) / np.sqrt(mass * G * length / (mass * length**2 + inertia))
    expected = period / 4 + period / 2 * np.arange(int((10.0 - period / 4) // (period / 2)) + 1)
    times = np.array([r.time for r in traj.impacts])
    assert len(times) == len(expected)
    np.testing.assert_allclose(times, expected, atol=1e-6)
    for record in traj.impacts:
        assert len(record.pairs) == n - 1  # the whole row at once
        assert min(record.approach) < -0.5  # a real impact, not a graze
        assert record.kinetic_energy_after == pytest.approx(record.kinetic_energy_before, rel=1e-10)
    energy = traj.energy()
    assert np.ptp(energy) < 1e-8 * traj.energy("kinetic").max()
    # between impacts only one end ball swings; the others hang still
    moving = np.abs(traj.q).max(axis=0)
    assert moving[0] == pytest.approx(amplitude, abs=1e-6) and moving[-1] == pytest.approx(amplitude, abs=1e-3)
    np.testing.assert_allclose(traj.q[:, 1:-1], 0.0, atol=1e-8)


def falling_rod(theta, drop, friction, e, length=1.0, radius=0.01):
    """A uniform rod (mass 1) in the vertical xy plane (gravity −y), tilted by θ, its lower end ``drop`` above
    the ground; returns (model, q0, contact lever r (2,) from the mass center)."""
    model = mb.Model("rod", gravity=(0, -G, 0))
    model.add(mb.Body("rod", mass=1.0, inertia=np.diag([1e-4, length**2 / 12, length**2 / 12])), joint=mb.Planar())
    along_x = mb.Transform(mb.rotation_about((0, 1, 0), np.pi / 2))
    model.add_geometry("rod", mb.Capsule(radius, length / 2), friction=friction, restitution=e, placement=along_x)
    model.add_geometry("world", mb.Plane(), friction=friction, restitution=e,
                       placement=mb.Transform(mb.rotation_about((1, 0, 0), -np.pi / 2)))
    half = length / 2
    q0 = np.array([0.0, half * np.sin(theta) + radius + drop, theta])
    return model, q0, np.array([-half * np.cos(theta), -half * np.sin(theta) - radius])


@pytest.mark.parametrize("e", [0.0, 0.6])
def test_rod_landing_on_one_end_matches_the_planar_closed_form(e):
    theta, drop, length = 0.5, 0.3, 1.0
    model, q0, r = falling_rod(theta, drop, friction=0.0, e=e)
    t_hit = np.sqrt(2 * drop / G)
    traj = simulate_impacts(model, q0, np.zeros(3), t_end=t_hit + 0.01, samples=3)
    hit = traj.impacts[0]
    assert hit.time == pytest.approx(t_hit, abs=1e-9)  # event root at gap = −5e-10 m
    v_minus = -np.sqrt(2 * G * drop)
    # frictionless end impact: P = (1 + e) m |v⁻| / (1 + 3 cos²θ) (effective mass m / (1 + 3 cos²θ))
    P = (1 + e) * abs(v_minus) / (1 + 3 * np.cos(theta) ** 2)
    np.testing.assert_allclose(hit.impulses[0], [0.0, P, 0.0], atol=1e-9)
    assert hit.approach[0] == pytest.approx(v_minus, rel=1e-9)
    # the velocity right after
    I = length**2 / 12
    q, v = hit.q, hit.v_after
    com_velocity = mb.point_velocity(model, q, v, "rod")
    np.testing.assert_allclose(com_velocity[:2], [0.0, v_minus + P], atol=1e-8)
    assert v[2] == pytest.approx(r[0] * P / I, rel=1e-8)


def test_rough_rod_landing_sticks_by_moreaus_law():
    theta, drop, e = 0.5, 0.3, 0.4
    model, q0, r = falling_rod(theta, drop, friction=5.0, e=e)
    t_hit = np.sqrt(2 * drop / G)
    traj = simulate_impacts(model, q0, np.zeros(3), t_end=t_hit + 0.01, samples=3)
    hit = traj.impacts[0]
    # sticking: the contact point's velocity jumps to −e u⁻; Δu = K P with K = 1/m + [−r_y; r_x][−r_y, r_x]/I
    I = 1.0 / 12
    arm = np.array([-r[1], r[0]])
    K = np.eye(2) + np.outer(arm, arm) / I
    u_minus = np.array([0.0, -np.sqrt(2 * G * drop)])
    P = np.linalg.solve(K, -(1 + e) * u_minus)
    assert abs(P[0]) < 5.0 * P[1]
    np.testing.assert_allclose(hit.impulses[0][:2], P, atol=1e-9)
    q, v = hit.q, hit.v_after
    contact = mb.point_velocity(model, q, v, "rod", _body_point(model, q, hit.points[0]))
    np.testing.assert_allclose(contact[:2], -e * u_minus, atol=1e-8)


def _body_point(model, q, world_point):
    R, p = mb.body_pose(model, q, "rod")
    return R.T @ (world_point - p)


def test_bad_input():
    model, q0 = bouncing_ball(0.5)
    with pytest.raises(ValueError, match="rest_velocity"):
        simulate_impacts(model, q0, np.zeros(6), t_end=0.1, rest_velocity=-1.0)
    with pytest.raises(mb.ModelError, match=r"restitution must be in \[0, 1\]"):
        model.add_geometry("ball", mb.Sphere(0.1), restitution=1.2)
    bare = mb.Model("bare")
    bare.add(mb.Body("b", inertia=np.eye(3)), joint=mb.Free())
    with pytest.raises(mb.ModelError, match="no contact shapes"):
        simulate_impacts(bare, bare.neutral(), np.zeros(6), t_end=0.1)


def test_collisions_are_an_option_of_simulate():
    """simulate_impacts is simulate(collisions=...) with its tolerances; with the fixed-step RK4 (exact in flight
    under gravity, impacts located on the cubic interpolant) the apex ratio is e² and the ball comes to rest."""
    e = 0.5
    model, q0 = bouncing_ball(e)
    alias = simulate_impacts(model, q0, np.zeros(6), t_end=1.0, samples=21, law="poisson")
    direct = mb.simulate(model, q0, np.zeros(6), t_end=1.0, samples=21, rtol=1e-10, atol=1e-12,
                         collisions={"law": "poisson"})
    np.testing.assert_array_equal(direct.q, alias.q)
    assert [r.time for r in direct.impacts] == [r.time for r in alias.impacts] and len(direct.impacts) == 2
    traj = mb.simulate(model, q0, np.zeros(6), t_end=1.6, method="RK4", dt=2e-3, collisions=True)
    times = [r.time for r in traj.impacts]
    heights = [apex(traj.t[(traj.t > start) & (traj.t < stop)], traj.q[(traj.t > start) & (traj.t < stop), 2]) - 0.1
               for start, stop in zip(times[:3], times[1:4])]
    # (to the impact's offset: the root is at a gap of −contact_tolerance/2 = −5e-10 m, on heights down to 1.6 cm)
    np.testing.assert_allclose(np.array(heights[1:]) / heights[:-1], e**2, rtol=0, atol=1e-7)
    assert heights[0] == pytest.approx(e**2 * 1.0, abs=1e-9)
    assert traj.impacts[-1].resting == [("ball_geom0", "ground")] and traj.info["method"] == "RK4"
    after = traj.t > times[-1]
    np.testing.assert_allclose(traj.q[after, 2], 0.1, atol=1e-8)
    np.testing.assert_allclose(traj.v[after], 0.0, atol=1e-8)


def test_collisions_refuse_what_they_cannot_take():
    model, q0 = bouncing_ball(0.5)
    with pytest.raises(ValueError, match="collisions takes law, method.*'bounce'"):
        mb.simulate(model, q0, np.zeros(6), t_end=0.1, collisions={"bounce": 1.0})
    with pytest.raises(ValueError, match="collisions bring their own dynamics"):
        mb.simulate(model, q0, np.zeros(6), t_end=0.1, collisions=True, dynamics=lambda t, q, v, tau: 0 * v)
    with pytest.raises(ValueError, match="contact scheme .* takes no collisions"):
        mb.simulate(model, q0, np.zeros(6), t_end=0.1, collisions=True, method="contact", dt=1e-3)
    with pytest.raises(ValueError, match="collisions: rest_velocity"):
        mb.simulate(model, q0, np.zeros(6), t_end=0.1, collisions={"rest_velocity": -1.0})


def test_loop_constraints_hold_in_flight_and_through_impacts():
    """The loop model moves as the equivalent tree: its Connect constraint acts in flight (constrained forward
    dynamics, not the free bodies' ABA) and in the impact (impulses with A Δv = 0)."""
    t_eval = np.linspace(0.0, 0.5, 11)
    tree = mb.simulate(ball_on_arm(False), None, None, 0.5, collisions=True, t_eval=t_eval)
    loop = mb.simulate(ball_on_arm(True), np.r_[0.0, 1, 0, 0, 1, 0, 0, 0], None, 0.5, collisions=True, t_eval=t_eval)
    assert len(tree.impacts) == len(loop.impacts) == 1
    assert abs(tree.impacts[0].time - loop.impacts[0].time) < 1e-7
    np.testing.assert_allclose(loop.q[:, 0], tree.q[:, 0], rtol=0, atol=1e-7)
    np.testing.assert_allclose(loop.v[:, 0], tree.v[:, 0], rtol=0, atol=1e-7)


def test_the_floor_may_come_first_in_the_shapes():
    """A world shape listed before the body's (as MJCF floors are) gives the same bounces as listed after it."""
    model, q0 = bouncing_ball(0.5)
    floor_first = mb.Model("ball", gravity=(0, 0, -G))
    floor_first.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 0.004), joint=mb.Free())
    floor_first.add_geometry("world", mb.Plane(), restitution=0.5, friction=0.0, name="ground")
    floor_first.add_geometry("ball", mb.Sphere(0.1), restitution=0.5, friction=0.0)
    runs = [mb.simulate(m, q0, np.zeros(6), t_end=1.0, samples=21, collisions=True) for m in (model, floor_first)]
    assert len(runs[0].impacts) == 2
    assert [r.time for r in runs[1].impacts] == pytest.approx([r.time for r in runs[0].impacts], abs=1e-12)
    np.testing.assert_allclose(runs[1].q, runs[0].q, rtol=0, atol=1e-12)
