"""Lemke's method against brute-force enumeration and a bound-constrained QP (scipy), and its failure mode; the
projected Gauss–Seidel sweep on mixed bilateral and contact blocks against Lemke's method."""
import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from multibody.constraints.lcp import GaussSeidelBlock, LCPError, gauss_seidel_sweep, lemke


def _enumerate(M, q):
    """All solutions of LCP(M, q) by trying every complementary basis (small n only)."""
    n = len(q)
    solutions = []
    for active in itertools.product([False, True], repeat=n):
        idx = np.flatnonzero(active)
        z = np.zeros(n)
        if idx.size:
            try:
                z[idx] = np.linalg.solve(M[np.ix_(idx, idx)], -q[idx])
            except np.linalg.LinAlgError:
                continue
        w = M @ z + q
        if z.min() >= -1e-10 and w.min() >= -1e-10:
            solutions.append(z)
    return solutions


@pytest.mark.parametrize("seed", range(5))
def test_lemke_matches_enumeration_on_p_matrices(seed):
    """A P-matrix (here: positive definite plus a skew part, non-symmetric) has exactly one solution."""
    rng = np.random.default_rng(seed)
    n = 6
    A = rng.normal(size=(n, n))
    S = rng.normal(size=(n, n))
    M = A @ A.T + 0.5 * np.eye(n) + (S - S.T)
    q = rng.normal(size=n)
    (expected,) = _enumerate(M, q)
    np.testing.assert_allclose(lemke(M, q), expected, atol=1e-10)


def test_lemke_matches_qp_for_symmetric_matrices():
    """For symmetric positive definite M, LCP(M, q) is min ½ zᵀMz + qᵀz over z ≥ 0 (L-BFGS-B as oracle)."""
    rng = np.random.default_rng(11)
    n = 12
    A = rng.normal(size=(n, n))
    M, q = A @ A.T + np.eye(n), rng.normal(size=n) * 3
    qp = minimize(lambda z: 0.5 * z @ M @ z + q @ z, np.zeros(n), jac=lambda z: M @ z + q,
                  bounds=[(0, None)] * n, method="L-BFGS-B", options=dict(ftol=1e-15, gtol=1e-12))
    np.testing.assert_allclose(lemke(M, q), qp.x, atol=1e-6)


def test_lemke_trivial_and_infeasible():
    np.testing.assert_array_equal(lemke(np.eye(2), np.array([1.0, 2.0])), 0)
    with pytest.raises(LCPError):
        lemke(np.array([[-1.0]]), np.array([-1.0]))  # w = −z − 1 ≥ 0 has no z ≥ 0
    with pytest.raises(ValueError, match="shape"):
        lemke(np.eye(2), np.ones(3))


@pytest.mark.parametrize("seed", range(5))
def test_gauss_seidel_with_bilateral_blocks_matches_lemke(seed):
    """A bilateral block (3 rows held at their targets) beside two frictionless contact blocks: the converged sweep
    equals the LCP of the contact normals after the bilateral rows are eliminated (Schur complement), solved by
    Lemke's method, and the bilateral rows meet their targets."""
    rng = np.random.default_rng(seed)
    J = rng.normal(size=(9, 12))
    W, u0, target = J @ J.T, rng.normal(size=9), np.zeros(9)
    target[:3] = rng.normal(size=3)
    blocks = [GaussSeidelBlock(slice(0, 3), None, np.linalg.inv(W[:3, :3])),
              GaussSeidelBlock(slice(3, 6), 0.0, np.zeros((2, 2))), GaussSeidelBlock(slice(6, 9), 0.0, np.zeros((2, 2)))]
    lam = np.zeros(9)
    for _ in range(20000):
        if gauss_seidel_sweep(W, u0, target, lam, blocks) <= 1e-14:
            break
    bilateral, normals = np.arange(3), np.array([3, 6])
    S = np.linalg.inv(W[np.ix_(bilateral, bilateral)])
    M = W[np.ix_(normals, normals)] - W[np.ix_(normals, bilateral)] @ S @ W[np.ix_(bilateral, normals)]
    q = u0[normals] + W[np.ix_(normals, bilateral)] @ S @ (target[:3] - u0[:3])
    z = lemke(M, q)
    np.testing.assert_allclose(lam[normals], z, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lam[[4, 5, 7, 8]], 0.0, rtol=0, atol=0)
    np.testing.assert_allclose((u0 + W @ lam)[:3], target[:3], rtol=0, atol=1e-9)
    assert np.all((u0 + W @ lam)[normals] >= -1e-9)
