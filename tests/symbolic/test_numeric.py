"""NumericEquations: the linear solve of the state derivative (Cholesky for a symmetric X, LU otherwise)."""
import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

from multibody import symbolic as sym
from multibody.symbolic.numeric import _solve_spd


def test_cholesky_solve_matches_numpy():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(7, 7))
    X, Y, out = A @ A.T + 7 * np.eye(7), rng.normal(size=7), np.empty(7)
    assert _solve_spd(X, Y, out)
    assert np.allclose(out, np.linalg.solve(X, Y), rtol=1e-12)
    assert not _solve_spd(-X, Y, out)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("X", [[[-2, 1], [1, -3]], [[2, 1], [0, 3]]], ids=["symmetric-indefinite", "unsymmetric"])
def test_rhs_solves_any_invertible_mass_matrix(X, backend):
    """X u̇ = Y by LU when X is not symmetric positive definite."""
    q, u = dynamicsymbols("q_0:2"), dynamicsymbols("u_0:2")
    zero = sp.zeros(2, 1)
    eom = sym.EquationsOfMotion(method="test", q=tuple(q), u=tuple(u), mass_matrix=sp.Matrix(X),
                                forcing=sp.Matrix([1, 2]), qdot=sp.Matrix(u), generalized_active_forces=zero,
                                generalized_inertia_forces=zero)
    f = eom.to_numeric({}, backend=backend)
    assert np.allclose(f.rhs(0.0, [0.1, 0.2, 0.3, 0.4]), [0.3, 0.4, *np.linalg.solve(X, [1, 2])])


def _one_speed_equations(X, Y):
    """X u̇ = Y in one coordinate q and speed u, q̇ = u."""
    q, u = dynamicsymbols("q u")
    zero = sp.zeros(1, 1)
    eom = sym.EquationsOfMotion(method="test", q=(q,), u=(u,), mass_matrix=sp.Matrix([[X(q, u)]]),
                                forcing=sp.Matrix([Y(q, u)]), qdot=sp.Matrix([u]), generalized_active_forces=zero,
                                generalized_inertia_forces=zero)
    return eom


@pytest.mark.parametrize("Y", [
    lambda q, u: sp.sin(q) * sp.cos(u) - sp.tan(q / 3) + sp.atan2(u, 2 + q**2) + sp.exp(-u**2) * sp.log(2 + q**2),
    lambda q, u: sp.sqrt(1 + q**2) - 1 / sp.sqrt(2 + u**2) + (1 + q**2)**sp.Rational(3, 2) - 3 * u**-2 + sp.Abs(q),
    lambda q, u: -sp.Rational(2, 7) * q * u**5 / (1 + q**4) + sp.pi * sp.asin(q / 9) - sp.cosh(u) * dynamicsymbols._t,
    lambda q, u: sp.Piecewise((q, q > 0), (-u, True)) + sp.sign(u),  # no LLVM form: numba compiles the Python
], ids=["trigonometric", "powers", "coefficients", "piecewise"])
def test_compiled_kernel_matches_the_python_kernel(Y):
    eom = _one_speed_equations(lambda q, u: 2 + sp.cos(q), Y)
    f, g = eom.to_numeric({}, backend="numba"), eom.to_numeric({}, backend="numpy")
    for x in ([0.4, -1.3], [-0.8, 0.7]):
        assert np.allclose(f.rhs(0.9, x), g.rhs(0.9, x), rtol=1e-13, atol=1e-13)
