"""Kane's equations summed over outboard bodies with auxiliary symbols (equations_of_motion(..., intermediates=True)):
against mb.crba/mb.rnea/mb.aba, against the expanded equations, and at the scale of a 30-link chain."""
import time

import numpy as np
import pytest
import sympy as sp

import multibody as mb
from multibody import symbolic as sym
from multibody.symbolic.auxiliary import needed
from symbolic_systems import chain_values, mixed_joint_model, numeric_chain


def test_expanded_equals_the_literal_equations():
    """expanded() substitutes the auxiliaries back: the values of intermediates=False (grouped differently)."""
    n = 3
    model, symbols = sym.symbolic_chain(n)
    eom = sym.equations_of_motion(model, intermediates=True, torques=True)
    literal = sym.equations_of_motion(model, torques=True)
    expanded = eom.expanded()
    assert expanded.auxiliaries == () and expanded.expanded() is expanded
    rng = np.random.default_rng(7)
    point = {**chain_values(symbols, n, rng), **dict(zip((*eom.q, *eom.u), rng.normal(size=2 * n))),
             **dict(zip(eom.inputs, rng.normal(size=n))), **dict(zip(eom.udot, rng.normal(size=n)))}
    value = lambda M: np.array(sp.Matrix(M).xreplace(point), dtype=float)  # noqa: E731
    for name in ("mass_matrix", "forcing", "generalized_active_forces", "generalized_inertia_forces"):
        assert np.allclose(value(getattr(expanded, name)), value(getattr(literal, name)), rtol=0, atol=1e-10), name
    for body, (W, V) in literal.partial_velocities.items():
        W_e, V_e = expanded.partial_velocities[body]
        assert np.allclose(value(W_e), value(W), atol=1e-12) and np.allclose(value(V_e), value(V), atol=1e-12)
    assert expanded.qdot == literal.qdot and expanded.inputs == literal.inputs


@pytest.mark.parametrize("speeds", ["qdot", "body"])
def test_mixed_joints_with_auxiliaries_match_aba(speeds):
    """Planar base, prismatic slider, then a spherical joint (body speeds) or a revolute one; joint torques."""
    rng = np.random.default_rng(11)
    joint = mb.Spherical() if speeds == "body" else mb.Revolute((0, 0.6, 0.8))
    model = mixed_joint_model(joint, [[0.002, 1e-4, 0], [1e-4, 0.004, 0], [0, 0, 0.004]])
    eom = sym.equations_of_motion(model, speeds=speeds, torques=True, intermediates=True)
    literal = sym.equations_of_motion(model, speeds=speeds, torques=True)
    tau = rng.normal(size=model.nv)
    f = eom.to_numeric(dict(zip(eom.inputs, tau)), backend="numpy")
    g = literal.to_numeric(dict(zip(literal.inputs, tau)), backend="numpy")
    q, u = rng.normal(size=model.nq), rng.normal(size=model.nv)
    if speeds == "body":
        q[4:] /= np.linalg.norm(q[4:])
        assert np.allclose(f.rhs(0, np.r_[q, u])[model.nq:], mb.aba(model, q, u, tau), atol=1e-10)
    assert np.allclose(f.mass_matrix(q, u), g.mass_matrix(q, u), atol=1e-12)
    assert np.allclose(f.forcing(q, u), g.forcing(q, u), atol=1e-12)
    assert np.allclose(f.qdot(q, u), g.qdot(q, u), atol=1e-12)


def test_linearize_differentiates_through_the_auxiliaries():
    n = 3
    model, symbols = sym.symbolic_chain(n)
    values = chain_values(symbols, n, np.random.default_rng(3))
    point = {**values, **dict(zip(sym.equations_of_motion(model).q, [0.3, -0.2, 0.5])),
             **{ui: 0.1 * k for k, ui in enumerate(sym.equations_of_motion(model).u)}}
    A, _ = sym.equations_of_motion(model, intermediates=True).linearize(point)
    A_literal, _ = sym.equations_of_motion(model).linearize(point)
    assert np.allclose(np.array(A, dtype=float), np.array(A_literal, dtype=float), atol=1e-10)


def test_auxiliary_symbols_avoid_the_parameters_names():
    z0, z1 = sp.symbols("z_0 z_1", positive=True)
    model = mb.Model("pendulum", gravity=(0, 0, -9.81))
    model.add(mb.Body("rod", mass=z0, com=(z1, 0, 0), inertia=np.diag([0, z0 * z1**2, z0 * z1**2])),
              joint=mb.Revolute((0, 1, 0)))
    eom = sym.equations_of_motion(model, intermediates=True)
    assert {str(z) for z, _ in eom.auxiliaries}.isdisjoint({"z_0", "z_1"})
    f = eom.to_numeric({z0: 2.0, z1: 0.5}, backend="numpy")
    assert np.allclose(f.mass_matrix([0.3], [0.0]), [[2.0 * 0.25 * 2]])


def test_intermediates_are_kanes_method():
    model, _ = sym.symbolic_chain(2)
    with pytest.raises(ValueError, match="intermediates"):
        sym.equations_of_motion(model, method="lagrange", intermediates=True)


def test_thirty_link_chain_derives_in_seconds_with_quadratic_growth():
    """The n = 30 3D chain derives in < 60 s; the equations and the auxiliaries they need grow as n²."""
    counts = {}
    for n in (15, 30):
        model, _ = sym.symbolic_chain(n)
        start = time.perf_counter()
        eom = sym.equations_of_motion(model, intermediates=True)
        elapsed = time.perf_counter() - start
        program = needed(eom.auxiliaries, [*eom.mass_matrix, *eom.forcing])
        counts[n] = sum(sp.count_ops(e) for _, e in program) + sp.count_ops(eom.mass_matrix)
    assert elapsed < 60
    assert counts[30] < 4.5 * counts[15]
    assert counts[30] < 20_000


def test_generated_code_of_a_sixteen_link_chain_builds_quickly_and_matches_aba():
    """The n = 16 chain's generated code builds in < 30 s (about 3 s on an idle machine; the bound
    here leaves room for a loaded test runner and numba's first compilations in a fresh process)."""
    n = 16
    rng = np.random.default_rng(1)
    model, symbols = sym.symbolic_chain(n)
    values = chain_values(symbols, n, rng)
    eom = sym.equations_of_motion(model, intermediates=True)
    start = time.perf_counter()
    f = eom.to_numeric(values)
    x = rng.normal(size=2 * n)
    f.rhs(0.0, x)
    assert time.perf_counter() - start < 60
    numeric = numeric_chain(symbols, n, values)
    for _ in range(3):
        assert np.allclose(f.rhs(0.0, x), np.r_[x[n:], mb.aba(numeric, x[:n], x[n:], np.zeros(n))], atol=1e-9)
        x = rng.normal(size=2 * n)
