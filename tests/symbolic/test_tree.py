"""Equations of motion of a tree Model: against mb.crba/mb.rnea, sympy's KanesMethod, and across methods."""
import numpy as np
import pytest
import sympy as sp

import multibody as mb
from multibody import ModelError
from multibody import symbolic as sym
from symbolic_systems import chain_values, mixed_joint_model, numeric_chain, sympy_chain


@pytest.mark.parametrize("intermediates", [False, True])  # literal equations, or over auxiliary symbols
@pytest.mark.parametrize("n", [1, 2, 3, 4, *(pytest.param(n, marks=pytest.mark.slow) for n in (5, 6))])
def test_chain_matches_crba_and_rnea(n, intermediates):
    rng = np.random.default_rng(n)
    model, symbols = sym.symbolic_chain(n)
    eom = sym.equations_of_motion(model, intermediates=intermediates)
    values = chain_values(symbols, n, rng)
    f = eom.to_numeric(values, backend="numpy")
    numeric = numeric_chain(symbols, n, values)
    for _ in range(3):
        q, u = rng.normal(size=n), rng.normal(size=n)
        np.testing.assert_allclose(f.mass_matrix(q, u), mb.crba(numeric, q), rtol=0, atol=1e-10)
        np.testing.assert_allclose(f.forcing(q, u), -mb.rnea(numeric, q, u, np.zeros(n)), rtol=0, atol=1e-10)
        np.testing.assert_allclose(f.rhs(0.0, np.r_[q, u])[n:], mb.aba(numeric, q, u, np.zeros(n)), rtol=0, atol=1e-9)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_chain_matches_sympy_kanesmethod(n):
    rng = np.random.default_rng(10 + n)
    model, symbols = sym.symbolic_chain(n)
    eom = sym.equations_of_motion(model)
    km = sympy_chain(n, symbols)
    values = chain_values(symbols, n, rng)
    state = dict(zip([*eom.q, *eom.u], rng.normal(size=2 * n)))
    for ours, theirs in ((eom.mass_matrix, km.mass_matrix), (eom.forcing, km.forcing)):
        a = np.array(ours.xreplace(values).xreplace(state), dtype=float)
        b = np.array(sp.Matrix(theirs).xreplace(values).xreplace(state), dtype=float)
        assert np.allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("method", ["lagrange", "gauss"])
def test_methods_agree_on_the_tree(method):
    model, symbols = sym.symbolic_chain(2)
    kane = sym.equations_of_motion(model)
    other = sym.equations_of_motion(model, method=method)
    assert (kane.mass_matrix - other.mass_matrix).applyfunc(sp.simplify) == sp.zeros(2, 2)
    assert (kane.forcing - other.forcing).applyfunc(sp.simplify) == sp.zeros(2, 1)


@pytest.mark.parametrize("speeds", ["qdot", "body"])
def test_mixed_joints_match_the_numeric_core(speeds):
    """Planar base, prismatic and revolute links; 'body' speeds are the model's v, 'qdot' speeds are q̇."""
    rng = np.random.default_rng(5)
    model = mixed_joint_model(mb.Revolute((0, 1, 0)), np.diag([0.001, 0.004, 0.004]))
    eom = sym.equations_of_motion(model, speeds=speeds, torques=True)
    tau = rng.normal(size=model.nv)
    f = eom.to_numeric(dict(zip(eom.inputs, tau)), backend="numpy")
    q, u = rng.normal(size=model.nq), rng.normal(size=model.nv)
    if speeds == "body":
        v = u
        assert np.allclose(f.qdot(q, u), mb.configuration_rate(model, q, v), atol=1e-12)
        assert np.allclose(f.rhs(0, np.r_[q, u])[model.nq:], mb.aba(model, q, v, tau), atol=1e-10)
    else:  # u = q̇: the energy ½ uᵀ X u must equal the model's kinetic energy at v(q, q̇)
        c, s = np.cos(q[2]), np.sin(q[2])
        v = np.r_[c * u[0] + s * u[1], -s * u[0] + c * u[1], u[2:]]
        assert np.isclose(0.5 * u @ f.mass_matrix(q, u) @ u, mb.kinetic_energy(model, q, v), atol=1e-12)


def test_spherical_joint_with_body_speeds_matches_aba():
    rng = np.random.default_rng(8)
    model = mb.Model("ball", gravity=(0, 0, -9.81))
    model.add(mb.Body("top", mass=1.5, com=(0.0, 0.05, 0.3), inertia=np.diag([0.05, 0.06, 0.02])), joint=mb.Spherical())
    eom = sym.equations_of_motion(model, speeds="body")
    f = eom.to_numeric({}, backend="numpy")
    quat = rng.normal(size=4)
    q, u = quat / np.linalg.norm(quat), rng.normal(size=3)
    assert np.allclose(f.rhs(0, np.r_[q, u])[4:], mb.aba(model, q, u, np.zeros(3)), atol=1e-10)
    assert np.allclose(f.qdot(q, u), mb.configuration_rate(model, q, u), atol=1e-12)
    with pytest.raises(ModelError, match="quaternion"):
        sym.equations_of_motion(model, speeds="qdot")


def test_bad_method_and_speeds_are_rejected():
    model, _ = sym.symbolic_chain(1)
    with pytest.raises(ValueError, match="method"):
        sym.equations_of_motion(model, method="newton")
    with pytest.raises(ValueError, match="speeds"):
        sym.equations_of_motion(model, speeds="fast")
