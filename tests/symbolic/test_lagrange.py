"""Lagrange's equations: T. R. Kane, "A new method for formulating equations of motion" eq. 34 (corrected), same
motion as Kane's; multipliers; Hamilton."""
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from sympy.physics.mechanics import Particle, Point, ReferenceFrame, dynamicsymbols

from multibody import symbolic as sym
from multibody.symbolic.lagrange import kinetic_energy
from symbolic_systems import at_random_states, hinged_rod, rod_and_particle

t = dynamicsymbols._t


@pytest.fixture(scope="module")
def example():
    e = rod_and_particle()
    e["lagrange"] = sym.lagrange(e["frame"], e["q"], e["bodies"], e["loads"], simplify=False)
    return e


def test_lagrange_worked_example_equals_corrected_eq_34(example):
    m, L, k, L0 = example["symbols"]
    q1, q2, q3, q4 = example["q"]
    d1, d2, d3, d4 = [x.diff(t) for x in example["q"]]
    a1, a2, a3, a4 = [x.diff(t, 2) for x in example["q"]]
    s, c = sp.sin(q3), sp.cos(q3)
    expected = [2 * a1 + a4 * c - 2 * d4 * d3 * s - (L + q4) * (a3 * s + d3**2 * c),
                2 * a2 + a4 * s + 2 * d4 * d3 * c + (L + q4) * (a3 * c - d3**2 * s),
                (L + q4) * (a2 * c - a1 * s) + (4 * L**2 / 3 + q4**2) * a3 + 2 * q4 * d3 * d4,
                a4 + a1 * c + a2 * s - q4 * d3**2 + k / m * (q4 - L0)]
    equations = example["lagrange"].equations
    for r in range(4):
        assert sp.trigsimp(sp.expand(equations[r] / (-m) - expected[r])) == 0


def test_kane_and_lagrange_give_the_same_trajectory(example):
    e = example
    m, L, k, L0 = e["symbols"]
    values = {m: 1.2, L: 0.5, k: 30.0, L0: 0.4}
    kane = sym.kane(e["frame"], e["q"], e["u"], e["kd"], e["bodies"], e["loads"], simplify=False)
    kane = kane.to_numeric(values, backend="numpy")
    lagrange = e["lagrange"].to_numeric(values, backend="numpy")
    q0, qd0 = np.array([0.1, -0.2, 0.3, 0.6]), np.array([0.5, 0.1, 1.5, -0.3])
    c, s = np.cos(q0[2]), np.sin(q0[2])
    u0 = [qd0[0] * c + qd0[1] * s, -qd0[0] * s + qd0[1] * c + 0.5 * qd0[2], qd0[2], qd0[3]]
    times = np.linspace(0, 2, 11)
    a = solve_ivp(kane.rhs, (0, 2), np.r_[q0, u0], t_eval=times, rtol=1e-11, atol=1e-11, method="DOP853")
    b = solve_ivp(lagrange.rhs, (0, 2), np.r_[q0, qd0], t_eval=times, rtol=1e-11, atol=1e-11, method="DOP853")
    assert np.allclose(a.y[:4], b.y[:4], atol=1e-8)


def pendulum_in_cartesian():
    """A particle on a rod of length l, described by x, y with the holonomic constraint x² + y² − l² = 0."""
    x, y = q = dynamicsymbols("x y")
    m, l, g = sp.symbols("m l g", positive=True)
    N = ReferenceFrame("N")
    O = Point("O")
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, P.pos_from(O).dt(N))
    return q, N, Particle("P", P, m), (m, l, g), [(P, -m * g * N.y)]


def test_lagrange_multipliers_keep_the_constraint_and_match_the_pendulum():
    q, N, particle, (m, l, g), loads = pendulum_in_cartesian()
    eom = sym.lagrange(N, q, [particle], loads, holonomic_constraints=[q[0] ** 2 + q[1] ** 2 - l**2], simplify=False)
    assert len(eom.multipliers) == 1
    f = eom.to_numeric({m: 1.0, l: 1.0, g: 9.81}, backend="numpy")
    theta0 = 0.7  # angle from the downward vertical
    x0 = [np.sin(theta0), -np.cos(theta0), 0.0, 0.0]
    sol = solve_ivp(f.rhs, (0, 1.0), x0, rtol=1e-11, atol=1e-11, method="DOP853", dense_output=True)
    # oracle: θ̈ = −(g/l) sin θ
    ref = solve_ivp(lambda t, s: [s[1], -9.81 * np.sin(s[0])], (0, 1.0), [theta0, 0.0], rtol=1e-11, atol=1e-11,
                    method="DOP853")
    x, y = sol.y[0, -1], sol.y[1, -1]
    assert np.isclose(np.arctan2(x, -y), ref.y[0, -1], atol=1e-7)
    assert abs(x * x + y * y - 1.0) < 1e-7


def test_hamilton_equations_agree_with_lagrange():
    """Double pendulum: H = T + V and ṗ = d/dt ∂L/∂q̇ along Lagrange's solution."""
    q = dynamicsymbols("a b")
    m, l, g = sp.symbols("m l g", positive=True)
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    A = N.orientnew("A", "Axis", [q[0], N.z])
    B = N.orientnew("B", "Axis", [q[1], N.z])
    P1 = O.locatenew("P1", l * A.x)
    P1.v2pt_theory(O, N, A)
    P2 = P1.locatenew("P2", l * B.x)
    P2.v2pt_theory(P1, N, B)
    bodies = [Particle("p1", P1, m), Particle("p2", P2, m)]
    V = -m * g * l * (2 * sp.cos(q[0]) + sp.cos(q[1]))
    ham = sym.hamilton(N, q, bodies, potential_energy=V, simplify=False)
    lag = sym.lagrange(N, q, bodies, potential_energy=V, simplify=False)
    values = {m: 1.0, l: 0.7, g: 9.81}
    state = {q[0]: 0.3, q[1]: -0.4, q[0].diff(t): 1.1, q[1].diff(t): -0.6}
    T = kinetic_energy(N, bodies)
    L = T - V
    p = [L.diff(v).xreplace(values).xreplace(state) for v in (q[0].diff(t), q[1].diff(t))]
    at = {**dict(zip(ham.p, p)), **{k: v for k, v in state.items() if k in q}}
    assert np.isclose(float(ham.H.xreplace(values).xreplace(at)), float((T + V).xreplace(values).xreplace(state)))
    assert np.allclose(np.array(ham.qdot.xreplace(values).xreplace(at), dtype=float).ravel(), [1.1, -0.6])
    X, Y = (np.array(M.xreplace(values).xreplace(state), dtype=float) for M in (lag.mass_matrix, lag.forcing))
    qdd = np.linalg.solve(X, Y).ravel()
    pdot = sp.Matrix([L.diff(v).diff(t) for v in (q[0].diff(t), q[1].diff(t))])
    pdot = pdot.xreplace(dict(zip([x.diff(t, 2) for x in q], qdd))).xreplace(values).xreplace(state)
    assert np.allclose(np.array(ham.pdot.xreplace(values).xreplace(at), dtype=float), np.array(pdot, dtype=float))


def test_lagrange_with_speeds_u_equals_kane_with_u_equal_qdot():
    """One body description, two formulations, speeds in the same form: u(t) with q̇ = u."""
    N, B, C, body, (theta, w, m, a, J) = hinged_rod()
    g = sp.Symbol("g")
    loads = [(C, -m * g * N.y)]
    kane = sym.kane(N, [theta], [w], [w - theta.diff(t)], [body], loads, simplify=False)
    lagrange = sym.lagrange(N, [theta], [body], loads, simplify=False, u=[w])
    assert lagrange.u == kane.u == (w,) and lagrange.qdot == kane.qdot
    assert sp.simplify(lagrange.mass_matrix - kane.mass_matrix) == sp.zeros(1, 1)
    assert sp.simplify(lagrange.forcing - kane.forcing) == sp.zeros(1, 1)


def test_one_body_description_serves_kane_lagrange_and_gauss():
    """The chain's bodies written in u (set_ang_vel(u_k)), as sym.kane takes them: sym.lagrange and sym.gauss
    take the same list and all three return X u̇ = Y in u_k(t)."""
    from symbolic_systems import chain_system
    symbols = {name: sp.symbols(f"{name}_0:2", positive=True) for name in ("m", "l", "Ixx", "Iyy", "Izz")}
    symbols["g"] = (sp.Symbol("g"),)
    s = chain_system(2, symbols, axes="yx")
    common = dict(loads=s["loads"], simplify=False)
    kane = sym.kane(s["frame"], s["q"], s["u"], s["kd"], s["bodies"], **common)
    gauss = sym.gauss(s["frame"], s["q"], s["u"], s["kd"], s["bodies"], **common)
    lagrange = sym.lagrange(s["frame"], s["q"], s["bodies"], u=s["u"], kinematic_equations=s["kd"], **common)
    assert kane.u == gauss.u == lagrange.u == tuple(s["u"])
    variables = sorted(set().union(*[e.free_symbols for e in (*kane.mass_matrix, *kane.forcing)]) | {*s["q"], *s["u"]},
                       key=str)
    for eom in (gauss, lagrange):
        assert eom.qdot == kane.qdot
        for expected, got in zip(*(at_random_states([e.mass_matrix, e.forcing], variables) for e in (kane, eom))):
            assert np.allclose(expected[0], got[0], rtol=1e-12) and np.allclose(expected[1], got[1], rtol=1e-12)


def test_lagrange_in_other_speeds_equals_kane(example):
    """Kane's speeds of eq. 20 (u ≠ q̇): Lagrange's equations premultiplied by Nᵀ, q̇ = N u, are Kane's."""
    e = example
    kane = sym.kane(e["frame"], e["q"], e["u"], e["kd"], e["bodies"], e["loads"], simplify=False)
    lagrange = sym.lagrange(e["frame"], e["q"], e["bodies"], e["loads"], simplify=False, u=e["u"],
                            kinematic_equations=e["kd"])
    variables = [*e["symbols"], *e["q"], *e["u"]]
    for expected, got in zip(*(at_random_states([m.mass_matrix, m.forcing, m.generalized_active_forces],
                                                variables) for m in (kane, lagrange))):
        for a, b in zip(expected, got):
            assert np.allclose(a, b, rtol=1e-12, atol=1e-12)
