"""Gauss's principle (Yao Wenli, "Modelling multi-rigid-body systems by Gauss's principle of least constraint in
generalized coordinates" (2016)): its examples, and agreement with Kane's method."""
import numpy as np
import sympy as sp
from sympy.physics.mechanics import Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

from multibody import symbolic as sym
from multibody.symbolic.jet import jacobian_at
from symbolic_systems import at_random_states, hinged_rod, rod_and_particle

t = dynamicsymbols._t


def test_free_planar_body_gauss_function_and_minimizer():
    """Yao 2016: a free planar body gives m ẍ = Fx, m ÿ = Fy, Jz φ̈ = Mz."""
    x, y, phi = q = dynamicsymbols("x y phi")
    u = dynamicsymbols("ux uy w")
    m, Jz, Fx, Fy, Mz = sp.symbols("m J_z F_x F_y M_z")
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [phi, N.z])
    O = Point("O")
    G = O.locatenew("G", x * N.x + y * N.y)
    G.set_vel(N, G.pos_from(O).dt(N))
    body = RigidBody("B", G, B, m, (inertia(B, 0, 0, Jz), G))
    eom = sym.gauss(N, q, u, [ui - qi.diff(t) for ui, qi in zip(u, q)], [body],
                    loads=[(G, Fx * N.x + Fy * N.y), (B, Mz * N.z)])
    a = eom.udot
    expected = m * a[0] ** 2 / 2 + m * a[1] ** 2 / 2 + Jz * a[2] ** 2 / 2 - Fx * a[0] - Fy * a[1] - Mz * a[2]
    assert sp.expand(eom.gauss_function - expected) == 0
    assert eom.minimizer() == sp.Matrix([Fx / m, Fy / m, Mz / Jz])


def test_fixed_axis_rotation_by_gauss_and_by_transfer():
    """Yao 2016: rotation about a fixed axis A gives J_A θ̈ = M_A, with J_A = J_C + m a²; the same from the
    Cartesian Gauss function moved to θ through the Jacobian alone (eqs. 10–11)."""
    N, B, C, body, (theta, w, m, a, Jc) = hinged_rod()
    MA = sp.Symbol("M_A")
    eom = sym.gauss(N, [theta], [w], [w - theta.diff(t)], [body], loads=[(B, MA * N.z)])
    assert sp.simplify(eom.minimizer()[0] - MA / (Jc + m * a**2)) == 0
    # Cartesian (x_C, y_C, φ): M = diag(m, m, J_C), H = 0, Q = (0, 0, M_A) -> θ
    Mp, gp, Qp = sym.transfer(sp.diag(m, m, Jc), sp.zeros(3, 1), sp.Matrix([0, 0, MA]),
                              [a * sp.cos(theta), a * sp.sin(theta), theta], [theta])
    assert sp.simplify(Mp[0] - (Jc + m * a**2)) == 0 and gp[0] == 0 and Qp[0] == MA


def test_gauss_equals_kane_on_the_worked_example():
    e = rod_and_particle()
    kane = sym.kane(e["frame"], e["q"], e["u"], e["kd"], e["bodies"], e["loads"], simplify=False)
    gauss = sym.gauss(e["frame"], e["q"], e["u"], e["kd"], e["bodies"], e["loads"], simplify=False)
    variables = [*e["q"], *e["u"], *e["symbols"]]
    for ours, theirs in ((kane.mass_matrix, gauss.mass_matrix), (kane.forcing, gauss.forcing)):
        for a, b in at_random_states([ours, theirs], variables):
            assert np.allclose(a, b, rtol=1e-12, atol=1e-12)


def test_minimizer_of_a_five_body_tree_is_fast_and_matches_aba():
    """u̇* = X⁻¹Y by elimination, unsimplified: a 5-link 3D pendulum with symbolic parameters in well under 10 s."""
    import time

    import multibody as mb
    from symbolic_systems import chain_values, numeric_chain
    n = 5
    model, symbols = sym.symbolic_chain(n)
    eom = sym.equations_of_motion(model, method="gauss")
    start = time.perf_counter()
    udot = eom.minimizer()
    assert time.perf_counter() - start < 10.0
    rng = np.random.default_rng(5)
    values = chain_values(symbols, n, rng)
    numeric = numeric_chain(symbols, n, values)
    q, u = rng.normal(size=n), rng.normal(size=n)
    # the tree is large, its graph small: evaluate each distinct subexpression once
    at, _ = jacobian_at(list(udot), [], {**values, **dict(zip(eom.q, q)), **dict(zip(eom.u, u))})
    assert np.allclose(np.array(at, dtype=float).ravel(), mb.aba(numeric, q, u, np.zeros(n)), atol=1e-9)


def test_simplify_false_calls_no_simplification(monkeypatch):
    """simplify=False: neither kane, gauss nor lagrange (nor the minimizer) calls simplify/trigsimp."""
    def forbidden(*args, **kwargs):
        raise AssertionError("simplify called with simplify=False")

    for name in ("simplify", "trigsimp"):
        monkeypatch.setattr(sp, name, forbidden)
    e = rod_and_particle()
    for method in (sym.kane, sym.gauss):
        method(e["frame"], e["q"], e["u"], e["kd"], e["bodies"], e["loads"], simplify=False).minimizer()
    sym.lagrange(e["frame"], e["q"], e["bodies"], e["loads"], simplify=False).minimizer()
