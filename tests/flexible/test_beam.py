"""Floating-frame beam: kinematics, Kane's equations against the generalized Euler equation (the proceedings "Dynamics
of Multibody Systems — Theory, Computational Method and Application" (1992)
eq. 19), conservation laws of a free-floating beam, and the linearization against the modal analysis."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import multibody as mb
from multibody.flexible import (Beam, deformed_kinematics, discretize, floating_frame_equations,
                                momentum_and_energy, prescribed_hub_accelerations, rotating_eigenvalues)

SOFT = Beam(length=1.0, mass_per_length=1.0, EA=400.0, EIv=1.0, EIw=2.0, root=0.2, polar_inertia=0.01)
rng = np.random.default_rng(7)


@pytest.fixture(scope="module")
def fb():
    return discretize(SOFT, elements=3)


def _state(fb, scale=0.05):
    return scale * rng.normal(size=fb.n), scale * rng.normal(size=fb.n)


def test_partial_velocities_are_derivatives_of_positions(fb):
    e, e_dot = _state(fb)
    r, Psi, r_dot, Psi_dot_e_dot = deformed_kinematics(fb, e, e_dot)
    h = 1e-6
    r_plus = deformed_kinematics(fb, e + h * e_dot, e_dot)
    r_minus = deformed_kinematics(fb, e - h * e_dot, e_dot)
    np.testing.assert_allclose((r_plus[0] - r_minus[0]) / (2 * h), r_dot, atol=1e-8)
    np.testing.assert_allclose((r_plus[2] - r_minus[2]) / (2 * h), Psi_dot_e_dot, atol=1e-8)


def test_foreshortening_keeps_a_bent_inextensible_beam_at_its_length():
    """With zero stretch, a beam bent into the shape w = a(1 − cos(πs/2L)) pulls its points inward by ½∫₀ˢ w'² dσ
    (second order; π²a²/16L at the tip)."""
    fb = discretize(Beam(1.0, 1.0, EA=1e3, EIv=1.0), elements=40, components="uv")
    nodes = np.arange(1, 41) / 40
    a = 0.01
    e = np.zeros(fb.n)
    e[1::3] = a * (1 - np.cos(np.pi * nodes / 2))       # v at the nodes
    e[2::3] = a * np.pi / 2 * np.sin(np.pi * nodes / 2)  # v' at the nodes
    r = deformed_kinematics(fb, e, np.zeros(fb.n))[0]
    linear = deformed_kinematics(fb, e, np.zeros(fb.n), stiffening=False)[0]
    tip = np.argmax(fb.s)
    s = fb.s[tip]  # ½∫₀ˢ w'² dσ with w' = (aπ/2) sin(πσ/2)
    np.testing.assert_allclose(linear[tip, 0] - r[tip, 0], a**2 * np.pi**2 / 8 * (s / 2 - np.sin(np.pi * s) / (2 * np.pi)),
                               rtol=1e-5)


@pytest.mark.parametrize("stiffening", [True, False])
def test_mass_matrix_gives_the_kinetic_energy(fb, stiffening):
    e, e_dot = _state(fb)
    omega, velocity = rng.normal(size=3), rng.normal(size=3)
    M, _ = floating_frame_equations(fb, e, e_dot, omega, velocity, stiffening=stiffening)
    u = np.r_[omega, velocity, e_dot]
    kinetic = momentum_and_energy(fb, e, e_dot, omega, velocity, stiffening)[2]
    np.testing.assert_allclose(0.5 * u @ M @ u, kinetic, rtol=1e-12)
    np.testing.assert_allclose(M, M.T, atol=1e-12)
    assert np.linalg.eigvalsh(M)[0] > 0


def test_angular_rows_are_the_generalized_euler_equation(fb):
    """The 1992 proceedings eq. 19: I Ω̇ + Ω × IΩ + İΩ + J̇ + Ω × J = N, with I the inertia of the deformed beam about
    B's origin and J = Σ m r × ṙ the angular momentum of the deformation velocity (origin fixed)."""
    e, e_dot = _state(fb)
    e_ddot, omega, omega_dot = rng.normal(size=fb.n), rng.normal(size=3), rng.normal(size=3)
    M, f = floating_frame_equations(fb, e, e_dot, omega)
    N_kane = M[:3] @ np.r_[omega_dot, 0, 0, 0, e_ddot] - f[:3]

    r, Psi, r_dot, Psi_dot_e_dot = deformed_kinematics(fb, e, e_dot)
    m = fb.mass
    Jx = np.diag([SOFT.polar_inertia * SOFT.length, 0, 0])
    I = np.einsum("g,gab->ab", m, np.einsum("gc,gc->g", r, r)[:, None, None] * np.eye(3) - np.einsum("ga,gb->gab", r, r)) + Jx
    I_dot = np.einsum("g,gab->ab", m, 2 * np.einsum("gc,gc->g", r, r_dot)[:, None, None] * np.eye(3)
                      - np.einsum("ga,gb->gab", r_dot, r) - np.einsum("ga,gb->gab", r, r_dot))
    J = m @ np.cross(r, r_dot)
    J_dot = m @ np.cross(r, Psi @ e_ddot + Psi_dot_e_dot)
    N_euler = I @ omega_dot + np.cross(omega, I @ omega) + I_dot @ omega + J_dot + np.cross(omega, J)
    np.testing.assert_allclose(N_kane, N_euler, rtol=1e-10, atol=1e-12)


def test_free_floating_beam_conserves_energy_and_momenta():
    """A torque-free flexible body tumbling in space: energy, linear and angular momentum (world) conserved."""
    fb = discretize(Beam(1.0, 1.0, EA=100.0, EIv=1.0, EIw=2.0, root=0.2, polar_inertia=0.01), elements=2, modes=1)
    n = fb.n

    def world_quantities(y):
        quat, p, omega, velocity, e, e_dot = y[:4], y[4:7], y[7:10], y[10:13], y[13:13 + n], y[13 + n:]
        R = mb.quat_to_rotation(quat)
        linear, angular, kinetic, elastic = momentum_and_energy(fb, e, e_dot, omega, velocity)
        return kinetic + elastic, R @ linear, R @ angular + np.cross(p, R @ linear)

    def rhs(t, y):
        quat, omega, velocity, e, e_dot = y[:4], y[7:10], y[10:13], y[13:13 + n], y[13 + n:]
        M, f = floating_frame_equations(fb, e, e_dot, omega, velocity)
        u_dot = np.linalg.solve(M, f)
        w, x, yy, z = quat
        quat_dot = 0.5 * np.array([[-x, -yy, -z], [w, -z, yy], [z, w, -x], [-yy, x, w]]) @ omega
        return np.r_[quat_dot, mb.quat_to_rotation(quat) @ velocity, u_dot[:6], e_dot, u_dot[6:]]

    e, e_dot = _state(fb, 0.05)
    y0 = np.r_[1.0, 0, 0, 0, 0.1, -0.2, 0.3, 0.3, 0.5, 2.0, 0.1, 0.0, -0.1, e, e_dot]
    sol = solve_ivp(rhs, (0.0, 0.4), y0, method="DOP853", rtol=1e-10, atol=1e-11)
    assert sol.success
    (E0, P0, H0), (E1, P1, H1) = world_quantities(y0), world_quantities(sol.y[:, -1])
    assert abs(E1 - E0) < 1e-8 * E0
    np.testing.assert_allclose(P1, P0, atol=1e-8 * np.linalg.norm(P0))
    np.testing.assert_allclose(H1, H0, atol=1e-8 * np.linalg.norm(H0))
    assert np.linalg.norm(sol.y[13:13 + n, -1] - e) > 1e-3  # the beam did vibrate


@pytest.mark.parametrize("stiffening", [True, False])
def test_linearized_spinning_dynamics_match_the_modal_analysis(stiffening):
    """Finite-difference linearization of the nonlinear floating-frame equations (foreshortening) about the
    steadily spinning, centrifugally stretched beam equals the classical rotating-beam eigenproblem (centrifugal
    tension). Linearizing about the unstretched beam would not do: without the stretch there is no tension."""
    fb = discretize(Beam(1.0, 1.0, EA=1e7, EIv=1.0, EIw=1.5, root=0.3), elements=4)
    spin, n, h = 3.0, fb.n, 1e-7
    accel = lambda y: prescribed_hub_accelerations(fb, spin, 0.0, y[:n], y[n:], stiffening)[0]  # noqa: E731

    def jacobian(y):
        columns = []
        for k in range(2 * n):
            dy = np.zeros(2 * n)
            dy[k] = h
            columns.append((accel(y + dy) - accel(y - dy)) / (2 * h))
        return np.array(columns).T

    y = np.zeros(2 * n)
    for _ in range(3):  # Newton steps to the relative equilibrium ë = 0
        y[:n] -= np.linalg.solve(jacobian(y)[:, :n], accel(y))
    assert np.linalg.norm(accel(y)) < 1e-9 and np.max(np.abs(y[:n])) > 1e-8
    A = np.block([[np.zeros((n, n)), np.eye(n)], [jacobian(y)]])
    s = np.linalg.eigvals(A)
    expected = rotating_eigenvalues(fb, (0, 0, spin), stiffening=stiffening)
    np.testing.assert_allclose(np.sort(s.imag[s.imag > 1e-6]), np.sort(expected.imag), rtol=1e-5)


def test_bad_beam_data_are_named():
    with pytest.raises(mb.ModelError, match="EIv"):
        Beam(length=1.0, mass_per_length=1.0, EA=1.0, EIv=-2.0)
    with pytest.raises(mb.ModelError, match="root"):
        Beam(length=1.0, mass_per_length=1.0, EA=1.0, EIv=1.0, root=float("nan"))
    with pytest.raises(mb.ModelError, match="components"):
        discretize(SOFT, components="x")
    with pytest.raises(mb.ModelError, match="modes"):
        discretize(SOFT, elements=2, components="u", modes=3)


def test_bad_state_shapes_and_values_raise(fb):
    with pytest.raises(ValueError, match=r"e: expected shape \(%d,\)" % fb.n):
        floating_frame_equations(fb, np.zeros(3), np.zeros(fb.n), (0, 0, 1))
    with pytest.raises(ValueError, match="e_dot: must be finite"):
        floating_frame_equations(fb, np.zeros(fb.n), np.full(fb.n, np.nan), (0, 0, 1))
    with pytest.raises(ValueError, match="omega"):
        floating_frame_equations(fb, np.zeros(fb.n), np.zeros(fb.n), (0, 1))


def test_displacement_interpolates_the_shape_functions(fb):
    e = _state(fb)[0]
    np.testing.assert_allclose(fb.displacement(e), fb.tip @ e)
    np.testing.assert_allclose(fb.displacement(e, fb.s[5]), fb.Phi[5] @ e, atol=1e-14)
