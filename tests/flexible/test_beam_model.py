"""Flexible beams as bodies of the Model tree: the identities of the recursive algorithms on random trees with beams,
a single floating beam against its floating-frame equations, the undeformed beam against its rigid equivalent, and
the kinematics of bodies carried by a beam's cross-sections."""
import numpy as np
import pytest

import multibody as mb
from multibody.flexible import floating_frame_equations
from oracles import JOINT_FACTORIES, random_inertia, random_rotation

KINDS = ("revolute", "prismatic", "spherical", "cylindrical", "planar", "fixed")


def random_beam(rng, name):
    elements = int(rng.integers(1, 4))
    components = str(rng.choice(["uvw", "uv", "vw", "w", "uw"]))
    return mb.FlexibleBeam(name, length=rng.uniform(0.5, 1.5), mass_per_length=rng.uniform(0.5, 2.0),
                           EA=rng.uniform(50.0, 200.0), EIv=rng.uniform(0.5, 2.0), EIw=rng.uniform(0.5, 2.0),
                           root=rng.uniform(0.0, 0.3), polar_inertia=rng.uniform(0.0, 0.01), elements=elements,
                           modes=[None, 1, elements][int(rng.integers(3))], components=components,
                           stiffening=bool(rng.integers(2)))


def random_tree(rng, n, free_base=False):
    """A random tree of n bodies, about a third of them beams (at least one, carrying a child at its tip); a child
    of a beam sits at a random station (beyond the ends too: clamped to them) and offset."""
    model = mb.Model("random beams", gravity=rng.normal(size=3) * 3.0)
    beams = {int(rng.integers(0, n))} | {i for i in range(n) if rng.uniform() < 0.3}
    for i in range(n):
        if i in beams:
            body = random_beam(rng, f"b{i}")
        else:
            mass = rng.uniform(0.5, 3.0)
            body = mb.Body(f"b{i}", mass=mass, com=rng.normal(size=3) * 0.2, inertia=random_inertia(rng, mass))
        parent = "world" if i == 0 or rng.uniform() < 0.1 else f"b{rng.integers(0, i)}"
        kind = ("free" if free_base else "revolute") if i == 0 else str(rng.choice(KINDS))
        translation = rng.normal(size=3) * 0.3
        if parent != "world" and model.body(parent).ne:
            translation[0] = rng.uniform(-0.2, 1.9)
        model.add(body, parent=parent, joint=JOINT_FACTORIES[kind](rng),
                  placement=mb.Transform(random_rotation(rng), translation))
    tip_of = min(beams)
    beam = model.body(f"b{tip_of}").beam
    model.add(mb.Body("tip", mass=0.3, com=(0.05, 0, 0), inertia=np.diag([1e-3, 2e-3, 2e-3])), parent=f"b{tip_of}",
              joint=mb.Revolute((0, 0, 1)), placement=mb.Transform(translation=(beam.root + beam.length, 0.0, 0.1)))
    return model


def random_state(rng, model, scale=0.1):
    q = mb.normalize(model, np.r_[rng.normal(size=model.nq - model.ne), scale * rng.normal(size=model.ne)])
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv)


@pytest.fixture(params=range(6), ids=lambda k: f"tree{k}")
def tree(request):
    rng = np.random.default_rng(100 + request.param)
    model = random_tree(rng, int(rng.integers(2, 6)), free_base=request.param % 2 == 1)
    return model, *random_state(rng, model)


def test_aba_inverts_rnea(tree):
    model, q, v, a = tree
    tau = mb.rnea(model, q, v, a)
    np.testing.assert_allclose(mb.aba(model, q, v, tau), a, atol=1e-10 * (1 + np.abs(a).max()))


def test_crba_times_acceleration_plus_bias_is_rnea(tree):
    model, q, v, a = tree
    lhs = mb.crba(model, q) @ a + mb.nonlinear_effects(model, q, v)
    np.testing.assert_allclose(lhs, mb.rnea(model, q, v, a), atol=1e-10 * (1 + np.abs(lhs).max()))


def test_mass_matrix_is_symmetric_positive_definite_and_gives_the_kinetic_energy(tree):
    model, q, v, _ = tree
    M = mb.crba(model, q)
    np.testing.assert_allclose(M, M.T, atol=1e-12 * np.abs(M).max())
    assert np.linalg.eigvalsh(M).min() > 0
    np.testing.assert_allclose(mb.kinetic_energy(model, q, v), 0.5 * v @ M @ v, rtol=1e-12)


def test_rnea_at_rest_is_the_gradient_of_gravity_and_strain_energy(tree):
    """g(q) + K e = ∂V/∂δ along every velocity direction, V = gravity + ½ eᵀ K e."""
    model, q, _, _ = tree
    g, h = mb.generalized_gravity(model, q), 1e-6
    for k in range(model.nv):
        step = np.eye(model.nv)[k]
        dV = (mb.potential_energy(model, mb.integrate(model, q, step, h))
              - mb.potential_energy(model, mb.integrate(model, q, step, -h))) / (2 * h)
        assert dV == pytest.approx(g[k], abs=1e-6 * (1 + abs(g[k])))


def test_power_balance(tree):
    """d(kinetic + potential)/dt = vᵀτ at every state (so Ṁ − 2C is skew and c is consistent with M): the
    central difference of the energy along q ⊕ v h, v + v̇ h, with v̇ = aba(τ)."""
    model, q, v, a = tree
    tau = mb.rnea(model, q, v, a)
    h = 1e-5

    def total(step):
        return sum(mb.energy(model, mb.integrate(model, q, v, step), v + step * a))
    assert (total(h) - total(-h)) / (2 * h) == pytest.approx(v @ tau, abs=1e-6 * (1 + abs(v @ tau)))


def test_jacobians_of_points_carried_by_beams_are_derivatives_of_their_poses(tree):
    """ṗ = J_v v and Ṙ Rᵀ = [J_ω v]× for a point of the tip body and for a frame on every beam (off its axis,
    carried by a cross-section), with the frame's Jacobian equal to that of the beam's material point."""
    model, q, v, _ = tree
    h = 1e-6
    frames = [("tip", (0.1, 0.2, 0.0))]
    for body in [b for b in model.bodies if b.ne]:
        model.add_frame(f"{body.name} point", body, mb.Transform(translation=(0.4, 0.05, -0.03)))
        np.testing.assert_array_equal(mb.jacobian(model, q, f"{body.name} point"),
                                      mb.jacobian(model, q, body.name, (0.4, 0.05, -0.03)))
        frames.append((f"{body.name} point", (0.0, 0.0, 0.0)))
    for name, point in frames:
        J = mb.jacobian(model, q, name, point)
        (Rp, pp), (Rm, pm) = (mb.body_pose(model, mb.integrate(model, q, v, s * h), name) for s in (1, -1))
        Ro, _ = mb.body_pose(model, q, name)
        velocity = ((pp + Rp @ point) - (pm + Rm @ point)) / (2 * h)
        W = (Rp - Rm) / (2 * h) @ Ro.T
        np.testing.assert_allclose(J[3:] @ v, velocity, atol=1e-7 * (1 + np.abs(velocity).max()))
        np.testing.assert_allclose(J[:3] @ v, [W[2, 1], W[0, 2], W[1, 0]], atol=1e-7 * (1 + np.abs(W).max()))


def test_batched_calls_match_single_states(tree):
    model, q, v, a = tree
    Q, V, A = np.stack([q, q]), np.stack([v, -v]), np.stack([a, 2 * a])
    np.testing.assert_allclose(mb.rnea(model, Q, V, A)[1], mb.rnea(model, q, -v, 2 * a))
    np.testing.assert_allclose(mb.crba(model, Q)[0], mb.crba(model, q))
    np.testing.assert_allclose(mb.energy(model, Q, V)[0][1], mb.kinetic_energy(model, q, -v))


def test_a_single_floating_beam_obeys_its_floating_frame_equations():
    """Free joint: v = [ω; v_origin] (B axes), ė — the speeds u of floating_frame_equations, so M = M_b and
    τ = M_b a − f_b with gravity in B axes."""
    rng = np.random.default_rng(3)
    model = mb.Model("floating beam", gravity=(1.0, -2.0, -9.81))
    beam = model.add(mb.FlexibleBeam("beam", length=1.0, mass_per_length=1.0, EA=400.0, EIv=1.0, EIw=2.0, root=0.2,
                                     polar_inertia=0.01, elements=3), joint=mb.Free())
    q, v, a = random_state(rng, model)
    R, _ = mb.body_pose(model, q, "beam")
    M, f = floating_frame_equations(beam.discretization, q[7:], v[6:], v[:3], v[3:6], gravity=R.T @ model.gravity)
    np.testing.assert_allclose(mb.crba(model, q), M, atol=1e-13)
    np.testing.assert_allclose(mb.rnea(model, q, v, a), M @ a - f, atol=1e-12 * np.abs(f).max())


def rigid_equivalent(model):
    """The model with every beam replaced by the rigid body of its undeformed mass elements."""
    rigid = mb.Model("rigid", gravity=model.gravity)
    for body, joint, parent, placement in zip(model.bodies, model.joints, model.parents, model.placements):
        twin = type(joint)(joint.axis) if joint.code in (0, 1, 6) else type(joint)()
        rigid.add(mb.Body(body.name, mass=body.mass, com=body.com, inertia=body.inertia, check_inertia="none"),
                  parent="world" if parent < 0 else model.bodies[parent].name, joint=twin, placement=placement)
    return rigid


def test_an_undeformed_beam_moves_as_its_rigid_equivalent(tree):
    """At e = ė = ë = 0 the joint rows of M and τ are those of the rigid tree (compiled core) in which each beam
    is the rigid body of its mass elements, and the carried bodies sit at the undeformed stations."""
    model, q, v, a = tree
    rigid = rigid_equivalent(model)
    nj = rigid.nv
    q, v, a = q.copy(), v.copy(), a.copy()
    q[rigid.nq:], v[nj:], a[nj:] = 0.0, 0.0, 0.0
    np.testing.assert_allclose(mb.crba(model, q)[:nj, :nj], mb.crba(rigid, q[:rigid.nq]), atol=1e-12)
    np.testing.assert_allclose(mb.rnea(model, q, v, a)[:nj], mb.rnea(rigid, q[:rigid.nq], v[:nj], a[:nj]),
                               atol=1e-11 * (1 + np.abs(a).max()))
    np.testing.assert_allclose(mb.body_poses(model, q)[1], mb.body_poses(rigid, q[:rigid.nq])[1], atol=1e-14)


# ------------------------------------------------------------------------------------------------
# Motion: simulate, the spin-up benchmark, conservation laws
# ------------------------------------------------------------------------------------------------
def hub_and_beam(beam, hub_inertia, elements, modes, components="uv", stiffening=True):
    """A hub turning about the world z axis (revolute joint) with ``beam`` clamped to it (fixed joint)."""
    model = mb.Model("hub and beam", gravity=(0.0, 0.0, 0.0))
    model.add(mb.Body("hub", mass=1.0, inertia=np.diag([hub_inertia] * 3)), joint=mb.Revolute((0, 0, 1)))
    model.add(mb.FlexibleBeam("blade", beam.length, beam.mass_per_length, beam.EA, beam.EIv, root=beam.root,
                              elements=elements, modes=modes, components=components, stiffening=stiffening),
              parent="hub", joint=mb.Fixed())
    return model


def test_spin_up_as_a_model_matches_the_published_curve_of_simo_and_vu_quoc():
    """Kane–Ryan–Banerjee spin-up built as a Model (hub + beam, the hub driven along Ω(t) by the computed torque of
    prescribed_joint_torque), Ωs = 6 rad/s, Ts = 15 s, the 4-element × 2-mode beam of test_spinup.py: the peak lag
    −0.572 m at t = 6.75 s of the published curve within 2 % and 0.25 s, the whole curve within 0.03 m, and the
    hub-and-beam toolkit (simulate_spin_up) to 1e-6 m. Measured: −0.5750 m at 6.75 s, largest gap 0.0145 m,
    toolkit 2e-9 m."""
    from multibody.flexible import (SIMO_VU_QUOC_1988_TIP, discretize, kane_ryan_banerjee_beam, spin_up_profile,
                                    tip_displacement)
    from multibody.simulate.spin_up import prescribed_joint_torque, simulate_spin_up
    beam = kane_ryan_banerjee_beam()
    model = hub_and_beam(beam, 0.1, elements=4, modes=2)
    torque = prescribed_joint_torque(model, "hub_joint", lambda t: spin_up_profile(t, 6.0, 15.0))
    traj = mb.simulate(model, t_end=15.0, method="Radau", rtol=1e-6, atol=1e-8, samples=181, torque=torque)
    tip = traj.q[:, 1:] @ model.body("blade").discretization.tip.T
    t_published, v_published = SIMO_VU_QUOC_1988_TIP.T
    peak = np.argmin(v_published)
    np.testing.assert_allclose(tip[:, 1].min(), v_published[peak], rtol=0.02)
    assert abs(traj.t[np.argmin(tip[:, 1])] - t_published[peak]) < 0.25
    assert np.abs(np.interp(t_published, traj.t, tip[:, 1]) - v_published).max() < 0.03
    np.testing.assert_allclose(traj.v[:, 0], [spin_up_profile(t, 6.0, 15.0)[1] for t in traj.t], atol=1e-8)
    toolkit = simulate_spin_up(discretize(beam, elements=4, components="uv", modes=2), final_rate=6.0,
                               duration=15.0, t_end=15.0, rtol=1e-6, atol=1e-8, samples=181)
    np.testing.assert_allclose(tip, tip_displacement(toolkit), atol=1e-6)


def test_free_hub_conserves_angular_momentum():
    """Hub free to turn, vibrating beam (in-plane and axial), no gravity: mb.momentum's H_z constant to 1e-9 over
    1 s while the hub rate changes by −0.35 rad/s, energy to 1e-9 (measured 4e-14 and 4e-11), and the motion that
    of free_hub_accelerations."""
    from multibody.flexible import Beam, discretize, free_hub_accelerations
    beam, hub_inertia = Beam(1.0, 1.0, EA=200.0, EIv=1.0, root=0.3), 0.05
    model = hub_and_beam(beam, hub_inertia, elements=2, modes=2)
    n = model.ne
    q0, v0 = np.r_[0.0, 0.01 * np.ones(n)], np.r_[2.0, 0.1 * np.ones(n)]
    traj = mb.simulate(model, q0, v0, t_end=1.0, rtol=1e-11, atol=1e-12, samples=11)
    H = mb.momentum(model, traj.q, traj.v)[0][:, 2]
    assert H[-1] == pytest.approx(mb.momentum(model, traj.q[-1], traj.v[-1])[0][2], rel=1e-14)
    assert np.abs(H - H[0]).max() < 1e-9 * abs(H[0])
    energy = traj.energy()
    assert np.abs(energy - energy[0]).max() < 1e-9 * energy[0]
    assert abs(traj.v[-1, 0] - v0[0]) > 1e-3  # the hub rate did change
    fb = discretize(beam, elements=2, components="uv", modes=2)
    rate_dot, e_ddot = free_hub_accelerations(fb, hub_inertia, v0[0], q0[1:], v0[1:])
    np.testing.assert_allclose(traj.a[0], np.r_[rate_dot, e_ddot], rtol=1e-12, atol=1e-12)


def satellite():
    """A free-floating bus (6.5 kg·m² class), two solar-array beams along ±y bending both ways (2 modes per
    direction), and a reaction wheel spinning about the bus z axis (model.add_rotor)."""
    model = mb.Model("satellite", gravity=(0.0, 0.0, 0.0))
    model.add(mb.Body("bus", mass=50.0, inertia=np.diag([6.0, 7.0, 8.0])), joint=mb.Free())
    for side, angle in (("left", np.pi / 2), ("right", -np.pi / 2)):
        model.add(mb.FlexibleBeam(f"array_{side}", length=2.0, mass_per_length=1.5, EA=2e4, EIv=40.0, EIw=15.0,
                                  root=0.5, polar_inertia=0.002, elements=2, modes=2, components="vw"),
                  parent="bus", joint=mb.Fixed(),
                  placement=mb.Transform(mb.rotation_about((0, 0, 1), angle), (0.0, 0.0, 0.1)))
    model.add_rotor(mb.Gyrostat("bus", axis=(0, 0, 1), polar_inertia=0.02), "wheel", mass=2.0,
                    transverse_inertia=0.012, position=(0.2, 0.0, 0.0))
    return model


def test_satellite_with_solar_arrays_and_a_wheel_conserves_momentum_and_energy():
    """Torque-free: linear and angular momentum (world) and energy constant to 1e-9 over 2 s while the arrays
    vibrate and exchange momentum with the bus (measured: 2e-13, 8e-13 and 2e-12)."""
    model = satellite()
    rng = np.random.default_rng(5)
    q0 = model.neutral()
    q0[-model.ne:] = 0.02 * rng.normal(size=model.ne)
    v0 = np.r_[0.1, -0.05, 0.3, 0.2, 0.0, -0.1, 50.0, 0.3 * rng.normal(size=model.ne)]
    traj = mb.simulate(model, q0, v0, t_end=2.0, rtol=1e-11, atol=1e-12, samples=21)
    H, L = mb.momentum(model, traj.q, traj.v)
    energy = traj.energy()
    assert np.abs(H - H[0]).max() < 1e-9 * np.linalg.norm(H[0])
    assert np.abs(L - L[0]).max() < 1e-9 * np.linalg.norm(L[0])
    assert np.abs(energy - energy[0]).max() < 1e-9 * energy[0]
    assert np.abs(traj.v[:, :3] - v0[:3]).max() > 1e-3  # the bus rate did change


def test_an_impulse_on_a_solar_array_changes_the_momenta_by_the_impulse_and_its_moment():
    """apply_impulse at a material point of a beam (M Δv = Jᵀ P̂): ΔL = P̂ and ΔH = r × P̂ about the world origin,
    r the point's position; the kinetic energy changes by P̂ · (v⁻ + v⁺)/2 at the point."""
    model = satellite()
    q = model.neutral()
    q[-model.ne:] = 0.03
    v = np.r_[0.1, -0.05, 0.3, 0.2, 0.0, -0.1, 50.0, np.full(model.ne, 0.2)]
    point, impulse = (2.3, 0.05, 0.0), np.array([0.3, -0.2, 1.0])  # near the tip of the left array
    response = mb.impulse_response(model, q, v, "array_left", point=point, impulse=impulse)
    (H0, L0), (H1, L1) = mb.momentum(model, q, v), mb.momentum(model, q, response.v)
    model.add_frame("hit", "array_left", mb.Transform(translation=point))
    r = mb.body_pose(model, q, "hit")[1]
    np.testing.assert_allclose(L1 - L0, impulse, atol=1e-12)
    np.testing.assert_allclose(H1 - H0, np.cross(r, impulse), atol=1e-12)
    velocities = [mb.point_velocity(model, q, x, "hit") for x in (v, response.v)]
    gain = mb.kinetic_energy(model, q, response.v) - mb.kinetic_energy(model, q, v)
    assert gain == pytest.approx(impulse @ (velocities[0] + velocities[1]) / 2, rel=1e-10)


def test_constraints_and_contact_shapes_are_refused_with_beams():
    model = satellite()
    with pytest.raises(mb.ModelError, match="constraints are not supported on models with flexible beams"):
        model.add_constraint(mb.Connect("array_left", (2.5, 0, 0), "world", (0, 1, 0)))
    with pytest.raises(mb.ModelError, match="contact shapes are not supported"):
        model.add_geometry("bus", mb.Sphere(0.5))
    rigid = mb.Model("rigid")
    rigid.add(mb.Body("ball", mass=1.0, inertia=[0.1, 0.1, 0.1]), joint=mb.Free())
    rigid.add_geometry("ball", mb.Sphere(0.1))
    with pytest.raises(mb.ModelError, match="beam 'rod': constraints and contact shapes are not supported"):
        rigid.add(mb.FlexibleBeam("rod", 1.0, 1.0, 1e3, 1.0, elements=1), parent="ball", joint=mb.Fixed())


# ------------------------------------------------------------------------------------------------
# Vibration: natural_frequencies at rest, linearize about steady rotation (Southwell)
# ------------------------------------------------------------------------------------------------
def test_natural_frequencies_of_a_cantilever_model_are_its_finite_element_and_euler_bernoulli_frequencies():
    from multibody.flexible import Beam, discretize, euler_bernoulli_frequencies, natural_frequencies
    beam = Beam(1.0, 1.0, EA=1e7, EIv=1.0)
    model = mb.Model("cantilever", gravity=(0.0, 0.0, 0.0))
    model.add(mb.FlexibleBeam("beam", 1.0, 1.0, 1e7, 1.0, elements=6, modes=3, components="uv"), joint=mb.Fixed())
    omega, _ = mb.natural_frequencies(model, model.neutral())
    np.testing.assert_allclose(omega, natural_frequencies(discretize(beam, 6, components="uv", modes=3))[0],
                               rtol=1e-6)
    np.testing.assert_allclose(omega[:3], euler_bernoulli_frequencies(beam, 3), rtol=2e-3)


def test_a_tip_mass_on_a_beam_lowers_its_frequency_as_the_continuous_beam_predicts():
    """Point mass m_t = ρAL at the tip of a cantilever, carried by its end section: the lowest root of
    1 + cos λ cosh λ + μ λ (cos λ sinh λ − sin λ cosh λ) = 0, μ = m_t/ρAL (λ = 1.2479 for μ = 1), ω = λ² √(EI/ρAL⁴)
    — within 1e-4 with 4 elements."""
    from scipy.optimize import brentq
    model = mb.Model("tip mass", gravity=(0.0, 0.0, 0.0))
    model.add(mb.FlexibleBeam("beam", 1.0, 1.0, 1e7, 1.0, elements=4, components="uv"), joint=mb.Fixed())
    model.add(mb.Body("mass", mass=1.0, inertia=np.zeros((3, 3))), parent="beam", joint=mb.Fixed(),
              placement=mb.Transform(translation=(1.0, 0.0, 0.0)))
    root = brentq(lambda x: 1 + np.cos(x) * np.cosh(x) + x * (np.cos(x) * np.sinh(x) - np.sin(x) * np.cosh(x)),
                  0.5, 2.0)
    np.testing.assert_allclose(root, 1.2479, atol=1e-4)
    np.testing.assert_allclose(mb.natural_frequencies(model, model.neutral())[0][0], root**2, rtol=1e-4)


@pytest.mark.parametrize("rate", [0.0, 3.0, 6.0])
def test_linearized_spinning_model_has_the_rotating_beam_frequencies(rate):
    """A massive hub (10⁶ kg·m²) turning at Ω with a beam (root at 0.3 m) clamped to it: linearize about the
    relative equilibrium (centrifugally stretched beam, found by root on the elastic accelerations) gives the
    vibration frequencies of rotating_eigenvalues — flapwise stiffened (Southwell: ω_f² = ω₀² + k Ω²), chordwise
    ω_c² = ω_f² − Ω² — to 1e-5 (measured 5e-7 at Ω = 3, 1.5e-6 at Ω = 6 rad/s)."""
    from scipy.optimize import root
    from multibody.flexible import Beam, discretize, rotating_eigenvalues
    beam = Beam(1.0, 1.0, EA=1e7, EIv=1.0, root=0.3)
    model = hub_and_beam(beam, 1e6, elements=6, modes=3, components="uvw")
    v = np.r_[rate, np.zeros(model.ne)]
    stretched = root(lambda e: mb.aba(model, np.r_[0.0, e], v, np.zeros(model.nv))[1:], np.zeros(model.ne),
                     tol=1e-14)
    A, _ = mb.linearize(model, np.r_[0.0, stretched.x], v)
    s = np.linalg.eigvals(A)
    frequencies = np.sort(s.imag[s.imag > 1e-6])
    expected = np.sort(rotating_eigenvalues(discretize(beam, 6, components="uvw", modes=3), (0, 0, rate)).imag)
    np.testing.assert_allclose(frequencies, expected, rtol=1e-5)
    np.testing.assert_allclose(frequencies[0] ** 2, frequencies[1] ** 2 - rate**2, rtol=1e-5)


# ------------------------------------------------------------------------------------------------
# Model files
# ------------------------------------------------------------------------------------------------
BLADE_FILE = """
name: rotor
gravity: [0, 0, 0]
bodies:
  - {name: hub, joint: {type: revolute, axis: [0, 0, 1]}, mass: 1.0, inertia: [0.1, 0.1, 0.1]}
  - name: blade
    parent: hub
    joint: fixed
    placement: {xyz: [0.1, 0, 0]}
    beam: {length: 10.0, mass_per_length: 1.2, EA: 2.8e7, EIv: 1.4e+4, elements: 4, modes: 2, components: uv}
  - {name: tip, parent: blade, joint: fixed, placement: {xyz: [10.0, 0, 0]}, mass: 0.5, inertia: [0, 0, 0]}
initial:
  v: [6.0, 0, 0, 0, 0]
"""


def test_a_model_file_describes_beams_and_round_trips_exactly(tmp_path):
    import yaml
    from multibody.io.files import model_to_dict
    path = tmp_path / "rotor.yaml"
    path.write_text(BLADE_FILE)
    content = mb.read_model_file(path)
    model = content.model
    blade = model.body("blade")
    assert (model.nq, model.nv, blade.ne, blade.stiffening) == (5, 5, 4, True)
    assert content.v0.tolist() == [6.0, 0, 0, 0, 0]
    twin = mb.Model("twin", gravity=(0, 0, 0))
    twin.add(mb.Body("hub", mass=1.0, inertia=[0.1, 0.1, 0.1]), joint=mb.Revolute((0, 0, 1)))
    twin.add(mb.FlexibleBeam("blade", 10.0, 1.2, 2.8e7, 1.4e4, elements=4, modes=2, components="uv"), parent="hub",
             joint=mb.Fixed(), placement=mb.Transform(translation=(0.1, 0, 0)))
    twin.add(mb.Body("tip", mass=0.5, inertia=np.zeros((3, 3))), parent="blade", joint=mb.Fixed(),
             placement=mb.Transform(translation=(10.0, 0, 0)))
    q = np.r_[0.3, 0.01, -0.02, 0.03, 0.01]
    np.testing.assert_array_equal(mb.rnea(model, q, content.v0, content.v0), mb.rnea(twin, q, content.v0, content.v0))
    for original in (model, satellite()):
        copy = tmp_path / "copy.yaml"
        copy.write_text(yaml.safe_dump(model_to_dict(original)))
        assert model_to_dict(mb.load(copy)) == model_to_dict(original)
    traj = mb.Trajectory(model, [0.0, 1.0], np.stack([q, 2 * q]), np.zeros((2, 5)))
    loaded = mb.Trajectory.load(traj.save(tmp_path / "rotor.npz"))
    assert loaded.energy().tobytes() == traj.energy().tobytes()


@pytest.mark.parametrize("text, broken, message", [
    ("mass_per_length: 1.2", "mass_per_length: -1.2",
     r"bodies\[1\]\.beam: beam 'blade': Beam: mass_per_length must be finite and positive"),
    ("elements: 4", "elements: 0", r"bodies\[1\]\.beam: beam 'blade': discretize: elements must be a positive integer"),
    ("components: uv", "components: uv, spin: 3", r"bodies\[1\]\.beam\.spin: unknown field"),
    ("EIv: 1.4e+4", "EIv: stiff", r"bodies\[1\]\.beam\.EIv: expected a number, got 'stiff'"),
])
def test_bad_beam_entries_are_named(tmp_path, text, broken, message):
    path = tmp_path / "bad.yaml"
    path.write_text(BLADE_FILE.replace(text, broken))
    with pytest.raises(mb.ModelError, match=message):
        mb.load(path)


def test_a_beam_entry_takes_no_rigid_mass(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BLADE_FILE.replace("joint: fixed\n", "joint: fixed\n    mass: 3.0\n", 1))
    with pytest.raises(mb.ModelError, match=r"bodies\[1\]\.mass: a beam's mass comes from its mass_per_length"):
        mb.load(path)


def test_the_deformed_axis_runs_from_the_root_to_the_carried_tip_and_beam_models_plot():
    from multibody.flexible import deformed_axis
    from multibody.dynamics.flexible_tree import beam_segments
    from multibody.viz.plots import coordinate_units, plot_trajectory
    model = mb.Model("bent", gravity=(0.0, 0.0, -9.81))
    model.add(mb.FlexibleBeam("beam", 1.0, 1.0, 1e3, 1.0, root=0.2, elements=3, components="uvw"),
              joint=mb.Revolute((0, 0, 1)), placement=mb.Transform(translation=(0, 0, 1)))
    model.add(mb.Body("tip", mass=0.1, inertia=np.zeros((3, 3))), parent="beam", joint=mb.Fixed(),
              placement=mb.Transform(translation=(1.2, 0, 0)))
    q = np.r_[0.5, 0.02 * np.arange(1, model.ne + 1)]
    axis = deformed_axis(model, q, "beam", points=11)
    R, p = mb.body_pose(model, q, "beam")
    np.testing.assert_allclose(axis[0], p + R @ (0.2, 0, 0), atol=1e-15)
    np.testing.assert_allclose(axis[-1], mb.body_pose(model, q, "tip")[1], atol=1e-15)
    assert [s.shape for s in beam_segments(model, np.stack([q, q]), points=11)] == [(2, 10, 2, 3)]
    from multibody.viz.animation import posed_drawing
    sticks = posed_drawing(model, q[None])["sticks"][0]  # the animation draws the bent axis
    drawn = deformed_axis(model, q, "beam")
    assert all(np.isclose(sticks[:, 1], point).all(axis=1).any() for point in drawn[1:])
    assert coordinate_units(model, "q")[:4] == ["rad", "m", "m", "rad"]
    traj = mb.simulate(model, q, t_end=0.05, samples=6)
    assert len(plot_trajectory(traj, what=("q", "v", "tau", "energy")).axes) == 4


def test_trajectory_energy_counts_the_strain_as_elastic_not_gravity():
    """Trajectory.energy: "elastic" holds the beams' strain ½ eᵀ K e, "gravity" only −Σ m g·c."""
    model = mb.Model("cantilever", gravity=(0, 0, 0))
    model.add(mb.FlexibleBeam("beam", length=1.0, mass_per_length=1.0, EA=1e3, EIv=1.0, elements=2,
                              components="uv"), joint=mb.Fixed())
    q = model.neutral()
    q[-model.ne:] = 0.01
    traj = mb.simulate(model, q, None, 0.01, samples=3)
    beam = model.bodies[0].discretization
    e = traj.q[:, -model.ne:]
    np.testing.assert_allclose(traj.energy("elastic"), 0.5 * np.einsum("ti,ij,tj->t", e, beam.K, e), rtol=1e-12)
    np.testing.assert_allclose(traj.energy("gravity"), 0.0, atol=1e-15)


def test_symbolic_equations_refuse_beams_rather_than_treat_them_as_rigid():
    from multibody import symbolic as sym
    model = mb.Model("blade")
    model.add(mb.FlexibleBeam("blade", length=1.0, mass_per_length=1.0, EA=1e3, EIv=1.0, elements=2,
                              components="uv"), joint=mb.Revolute())
    with pytest.raises(mb.ModelError, match="flexible beams \\(blade\\)"):
        sym.equations_of_motion(model)
