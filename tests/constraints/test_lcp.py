"""Lemke's method against brute-force enumeration and a bound-constrained QP (scipy), and its failure mode."""
import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from multibody.constraints.lcp import LCPError, lemke


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
