"""Lemke's method against brute-force enumeration and a bound-constrained QP (scipy), and its failure mode; the
warm start from a guessed basis against Lemke's method; the projected Gauss–Seidel sweep on mixed bilateral and contact blocks against Lemke's method."""
import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

import multibody as mb
from multibody.constraints._step import compliance_columns, free_acceleration
from multibody.constraints.lcp import (GaussSeidelBlock, LCPError, basis_solution, gauss_seidel_sweep, lemke,
                                      lemke_basis_into, pyramid_acceleration)
from multibody.dynamics._tree_factor import dof_parents
from oracles import random_model, random_state


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


def _textbook_lemke(M, q, tol=1e-9):
    """Lemke's method on the full tableau [I | −M | −d | q] (Cottle, Pang & Stone §4.4), the lexicographic ratio
    test on (b, B⁻¹) with the artificial variable's row preferred: the basis (variables w 0..n−1, z n..2n−1) and z."""
    n = len(q)
    T = np.hstack([np.eye(n), -M, -np.ones((n, 1)), q[:, None]])
    basis, row, entering = list(range(n)), int(np.argmin(q)), 2 * n
    while True:
        T[row] /= T[row, entering]
        for i in range(n):
            if i != row and T[i, entering] != 0.0:
                T[i] -= T[i, entering] * T[row]
        leaving, basis[row] = basis[row], entering
        if leaving == 2 * n:
            break
        entering = leaving + n if leaving < n else leaving - n
        column = T[:, entering]
        rows = [i for i in range(n) if column[i] > tol * max(1.0, np.abs(column).max())]
        assert rows, "secondary ray"
        for k in [-1, *range(n)]:
            ratios = {i: T[i, k] / column[i] for i in rows}
            best = min(ratios.values())
            rows = [i for i in rows if ratios[i] <= best + tol * max(1.0, abs(best))]
            if any(basis[i] == 2 * n for i in rows):
                rows = [i for i in rows if basis[i] == 2 * n]
            if len(rows) == 1 or basis[rows[0]] == 2 * n:
                break
        row = rows[0]
    z = np.zeros(n)
    for i, b in enumerate(basis):
        if n <= b < 2 * n:
            z[b - n] = max(T[i, -1], 0.0)
    return sorted(b - n for b in basis if n <= b < 2 * n), z


@pytest.mark.parametrize("seed", range(6))
def test_lemke_on_redundant_rows_pivots_as_the_full_tableau(seed):
    """Redundant rows (M = J Jᵀ of rank 3 for 9 rows, three rows repeated exactly, equal q on the copies: the ratio
    tests tie and the lexicographic rule decides, on the basis inverse's columns, basic ones among them): the
    compiled method ends in the textbook full tableau's basis with its z, which solves the LCP."""
    rng = np.random.default_rng(seed)
    J = rng.normal(size=(6, 3))
    J = np.vstack([J, J[:3]])
    M = J @ J.T
    # q = w₀ − M z₀ of a complementary z₀, w₀ ≥ 0 (a solvable problem), equal on the copies
    on = rng.random(6) < 0.5
    z0, w0 = np.where(on, rng.random(6), 0.0), np.where(on, 0.0, rng.random(6))
    z0, w0 = np.concatenate([z0, z0[:3]]), np.concatenate([w0, w0[:3]])
    q = w0 - M @ z0
    z, basic = np.empty(9), np.empty(9, dtype=bool)
    assert lemke_basis_into(M, q, 500, 1e-9, z, basic) == 0
    expected_basis, expected = _textbook_lemke(M, q)
    assert list(np.flatnonzero(basic)) == expected_basis
    np.testing.assert_allclose(z, expected, rtol=0, atol=1e-12)
    w = M @ z + q
    assert z.min() >= 0 and w.min() >= -1e-10 and abs(z @ w) <= 1e-10


def test_lemke_trivial_and_infeasible():
    np.testing.assert_array_equal(lemke(np.eye(2), np.array([1.0, 2.0])), 0)
    with pytest.raises(LCPError):
        lemke(np.array([[-1.0]]), np.array([-1.0]))  # w = −z − 1 ≥ 0 has no z ≥ 0
    with pytest.raises(ValueError, match="shape"):
        lemke(np.eye(2), np.ones(3))


@pytest.mark.parametrize("seed", range(5))
def test_the_basis_of_a_solution_gives_that_solution_and_a_near_one_is_corrected(seed):
    """A P-matrix LCP: from the basis of Lemke's solution, one solve gives it; from that basis with one variable
    flipped, block principal pivots find it again; from a wrong guess without pivots, no solution is claimed."""
    rng = np.random.default_rng(seed)
    n = 8
    A, S = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    M, q = A @ A.T + 0.5 * np.eye(n) + (S - S.T), rng.normal(size=n)
    expected = lemke(M, q)
    z = np.empty(n)
    basic = expected > 0
    assert basis_solution(M, q, basic, 1e-9, 0, z)
    np.testing.assert_allclose(z, expected, rtol=0, atol=1e-12)
    flipped = expected > 0
    flipped[np.argmax(np.abs(q))] ^= True
    wrong = flipped.copy()
    assert not basis_solution(M, q, wrong, 1e-9, 0, z)
    assert basis_solution(M, q, flipped, 1e-9, 20, z)
    np.testing.assert_allclose(z, expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(flipped, expected > 0)


def test_a_singular_guessed_basis_is_refused():
    M, q = np.array([[1.0, 1.0], [1.0, 1.0]]), np.array([-1.0, -1.0])
    assert not basis_solution(M, q, np.array([True, True]), 1e-9, 0, np.empty(2))


@pytest.mark.parametrize("seed", range(3))
def test_compliance_columns_from_the_tree_factor_equal_the_inverse_times_the_rows(seed):
    """On random trees (branches, multi-dof joints, damping on the diagonal): K Bᵀ and (M + h D)⁻¹ b from the sparse
    factor M + h D = Lᵀ L equal the dense inverse's, and the dense path of compliance_columns equals K @ Bᵀ."""
    rng = np.random.default_rng(seed)
    model = random_model(rng, 8, free_base=bool(seed % 2))
    q, _, _ = random_state(rng, model)
    M = mb.crba(model, q)
    M[np.diag_indices_from(M)] += 0.01 * rng.uniform(0.0, 5.0, size=model.nv)
    K, B, b = np.linalg.inv(M), rng.normal(size=(5, model.nv)), rng.normal(size=model.nv)
    lam, L, a, C = np.empty(model.nv), M.copy(), np.empty(model.nv), np.empty((model.nv, 5))
    dof_parents(model.compile().topology, lam)
    assert free_acceleration(L, lam, b, a)
    np.testing.assert_allclose(a, K @ b, rtol=0, atol=1e-10 * np.abs(K @ b).max())
    compliance_columns(L, lam, B, C)
    np.testing.assert_allclose(C, K @ B.T, rtol=0, atol=1e-10 * np.abs(K @ B.T).max())
    compliance_columns(K, np.empty(0), B, C)
    np.testing.assert_allclose(C, K @ B.T, rtol=0, atol=1e-13 * np.abs(K @ B.T).max())


def test_a_resting_box_solved_from_its_last_basis_equals_lemke():
    """A unit box's four corners on a floor, friction 0.5, pushed sideways: the frictional LCP solved without a guess
    and again from the returned basis give the same acceleration."""
    m, I = 1.0, np.diag([1 / 6, 1 / 6, 1 / 6])
    K = np.zeros((6, 6))
    K[:3, :3], K[3:, 3:] = np.eye(3) / m, np.linalg.inv(I)
    corners = np.array([[x, y, -0.5] for x in (-0.5, 0.5) for y in (-0.5, 0.5)])
    rows = []
    for axis in np.eye(3):  # the corner's velocity along the axis: (axis, r × axis) · (ṗ, ω)
        rows.append([np.r_[axis, np.cross(c, axis)] for c in corners])
    N, T = np.array(rows[2]), np.stack([np.array(rows[0]), np.array(rows[1])], axis=1)
    a_eq = np.r_[2.0, 0.0, -9.81, 0.0, 0.0, 0.0]  # gravity and a push of 2 N along x
    mu, gamma_n, gamma_t = np.full(4, 0.5), np.zeros(4), np.zeros((4, 2))
    cone = np.array([[np.cos(t), np.sin(t)] for t in np.arange(8) * np.pi / 4])
    B = np.vstack([N, T.reshape(8, 6)])  # the normal rows, then each corner's two tangent rows
    C = np.empty((6, 12))
    compliance_columns(K, np.empty(0), B, C)
    np.testing.assert_allclose(C, K @ B.T, rtol=0, atol=1e-15)
    args = (B, C, a_eq, 4, mu, gamma_n, gamma_t, cone, 1e-10, np.array([1e-9, 1e-7]), 5, 1e-6)
    cold, warm, basic = np.empty(6), np.empty(6), np.zeros((4, 10), dtype=bool)
    assert pyramid_acceleration(*args, basic, cold)
    assert basic[:, 0].any()
    np.testing.assert_allclose(cold, 0.0, atol=1e-8)  # the push (2 N < μ m g) does not slide it
    assert pyramid_acceleration(*args, basic, warm)
    np.testing.assert_allclose(warm, cold, rtol=0, atol=1e-10)


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
