"""Linear complementarity problems by Lemke's complementary pivoting.

LCP(M, q): find z ≥ 0 with w = M z + q ≥ 0 and zᵀ w = 0. Lemke's method (Cottle, Pang & Stone, *The Linear
Complementarity Problem*, §4.4) adds an artificial variable z₀ with covering vector d = 1,
w − M z − d z₀ = q, starts from the almost-complementary basis where z₀ = −min q, and pivots the complement of
each leaving variable in until z₀ leaves. The ratio test is lexicographic (on the rows of the basis inverse) so
degenerate problems do not cycle. It solves every LCP whose matrix is copositive-plus, which includes the
positive semidefinite contact problems and, in practice, the frictional ones.

A time step's LCP is close to the previous step's: :func:`basis_solution` tries the complementary basis of the
previous solution first (one small dense solve, z_B = −M_BB⁻¹ q_B), corrected by a few block principal pivots
(Júdice & Pires 1994, *A block principal pivoting algorithm for large-scale strictly monotone linear
complementarity problems*, Computers & OR 21(5)), and keeps it only if it satisfies the LCP to round-off; else
Lemke's method solves the problem from scratch.

Round-off can still end it on a false secondary ray when many rows are redundant (a foot's eight friction-pyramid
edges, four box corners on one face: 36 rows of rank 12 for four feet), and a sliding contact's kinetic friction
can leave the problem without any solution (Painlevé's paradox). :func:`projected_gauss_seidel` is the fallback of
:func:`multibody.constraints.contact.solve_contacts` then: the relaxation that ODE's QuickStep, Bullet and PhysX
use (Erleben 2007, *Velocity-based shock propagation for multibody dynamics animation*, ACM TOG 26(2)), which always
returns a force. Its sweep, :func:`gauss_seidel_sweep`, also takes bilateral blocks: it is the solver of
:func:`multibody.impact.resolve_impact` too.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class LCPError(RuntimeError):
    """Lemke's method ended on a secondary ray (no solution found) or ran out of pivots."""


def lemke(M, q, max_pivots=None, tol=1e-9):
    """z (n,) solving LCP(M, q): z ≥ 0, w = M z + q ≥ 0, zᵀ w = 0. Raises LCPError on ray termination.

    ``tol``: pivots smaller than tol · max|column| are refused and ratios within tol are ties (too small a value
    lets round-off pivots through on the redundant contact problems)."""
    M, q = np.asarray(M, dtype=float), np.asarray(q, dtype=float)
    n = q.shape[0]
    if M.shape != (n, n):
        raise ValueError(f"lemke: M must have shape ({n}, {n}), got {M.shape}")
    pivots = max_pivots or 50 * (n + 1)
    z = np.zeros(n)
    status = lemke_into(np.ascontiguousarray(M), np.ascontiguousarray(q), pivots, tol, z)
    if status == _RAY:
        raise LCPError("lemke: secondary ray (the complementarity problem has no solution from this start)")
    if status == _EXHAUSTED:
        raise LCPError(f"lemke: no solution after {pivots} pivots")
    return z


_SOLVED, _RAY, _EXHAUSTED = 0, 1, 2  # how _pivot ends


@njit(cache=True, nogil=True, inline="always")
def subtract_row(A, i, c, factor, start, end):
    """A[i, start:end] −= factor · A[c, start:end] in place, looping on unsigned indices: numba then leaves out its
    check for negative (wrapping) indices, and LLVM vectorizes the loop (the same arithmetic, 1.6–1.8x faster on the
    LCPs' 30–40 rows)."""
    ui, uc, j, stop = np.uint64(i), np.uint64(c), np.uint64(start), np.uint64(end)
    while j < stop:
        A[ui, j] -= factor * A[uc, j]
        j += np.uint64(1)


@njit(cache=True)
def _pivot(T, basis, column_of, max_pivots, tol):
    """Lemke's pivots on the condensed tableau T (n, n + 2) with basis (n,), in place, from the artificial variable
    z₀ entering at the row of min q until z₀ leaves: _SOLVED, or _RAY (secondary ray), or _EXHAUSTED (max_pivots).

    T holds the n + 1 nonbasic variables' columns and b (the last); ``column_of`` (2n + 1,) each variable's column
    in T, −1 while basic. A basic variable's column of the full tableau [B⁻¹ | B⁻¹(−M) | B⁻¹(−d) | b] is a unit
    column, which a pivot leaves unchanged unless it leaves: then it takes the entering variable's column, whose
    update gives the same numbers as the full tableau's (the pivot row 1/p, the others 0 − f 1/p), at half its
    width (Cottle, Pang & Stone §4.4's schema)."""
    n = T.shape[0]
    artificial = 2 * n
    row = np.argmin(T[:, -1])
    entering = artificial
    candidates, ratios = np.empty(n, dtype=np.int64), np.empty(n)  # the rows still tied in the ratio test, their ratios
    for _ in range(max_pivots):
        # pivot on (row, entering): that row divided by the pivot, the column eliminated from the other rows; the
        # column then holds the leaving variable's (its unit column e_row before the pivot)
        c = column_of[entering]
        pivot = T[row, c]
        T[row, c] = 1.0
        T[row] /= pivot
        for i in range(n):
            factor = T[i, c]
            if i != row and factor != 0.0:
                T[i, c] = 0.0
                subtract_row(T, i, row, factor, 0, T.shape[1])
        leaving = basis[row]
        basis[row] = entering
        column_of[leaving], column_of[entering] = c, -1
        if leaving == artificial:
            return _SOLVED
        entering = leaving + n if leaving < n else leaving - n
        row = _lexicographic_ratio(T, column_of[entering], basis, column_of, artificial, n, tol, candidates, ratios)
        if row < 0:
            return _RAY
    return _EXHAUSTED


@njit(cache=True)
def _lexicographic_ratio(T, entering, basis, column_of, artificial, n, tol, candidates, ratios):
    """Row of the lexicographically smallest (b, B⁻¹ rows) / column ratio for the entering column ``entering`` of
    the condensed tableau T (:func:`_pivot`; B⁻¹'s column k: w_k's, a unit column while w_k is basic); prefers the
    artificial variable's row; −1 when no row bounds the entering variable (a secondary ray). ``candidates`` (n,),
    ``ratios`` (n,): scratch."""
    largest = 0.0
    for i in range(n):
        largest = max(largest, abs(T[i, entering]))
    count = 0
    for i in range(n):
        if T[i, entering] > tol * max(1.0, largest):
            candidates[count] = i
            count += 1
    if count == 0:
        return -1
    for k in range(-1, n):
        # keep the rows whose ratio in column k ties the smallest (to tol)
        best = np.inf
        c_k = -1 if k < 0 else column_of[k]
        for c in range(count):
            i = candidates[c]
            if k >= 0 and c_k < 0:
                value = 1.0 if basis[i] == k else 0.0
            else:
                value = T[i, c_k]
            ratios[c] = value / T[i, entering]
            best = min(best, ratios[c])
        kept, artificial_row = 0, -1
        for c in range(count):
            if ratios[c] <= best + tol * max(1.0, abs(best)):
                candidates[kept] = candidates[c]
                if basis[candidates[c]] == artificial:
                    artificial_row = candidates[c]
                kept += 1
        count = kept
        if artificial_row >= 0:
            return artificial_row
        if count == 1:
            break
    return candidates[0]


@njit(cache=True)
def lemke_into(M, q, max_pivots, tol, z):
    """:func:`lemke` compiled: z (n,) of LCP(M, q) written in place; returns _SOLVED, _RAY or _EXHAUSTED."""
    return lemke_basis_into(M, q, max_pivots, tol, z, np.empty(q.shape[0], dtype=np.bool_))


@njit(cache=True)
def lemke_basis_into(M, q, max_pivots, tol, z, basic):
    """:func:`lemke_into` that also writes the final basis: ``basic`` (n,) True where z_i is basic (degenerate
    z_i = 0 included, which keeps M_BB of :func:`basis_solution` regular).

    Variables w: 0..n−1, z: n..2n−1, z₀: 2n; the condensed tableau of :func:`_pivot`, from the basis w: the columns
    of z (−M), z₀ (−d) and b = q."""
    n = q.shape[0]
    z[:] = 0.0
    basic[:] = False
    if n == 0 or q.min() >= 0.0:
        return _SOLVED
    T = np.empty((n, n + 2))
    for i in range(n):
        for j in range(n):
            T[i, j] = -M[i, j]
        T[i, n] = -1.0
        T[i, n + 1] = q[i]
    basis = np.arange(n)
    column_of = np.full(2 * n + 1, -1, dtype=np.int64)
    for j in range(n + 1):
        column_of[n + j] = j
    status = _pivot(T, basis, column_of, max_pivots, tol)
    if status == _SOLVED:
        for i in range(n):
            if n <= basis[i] < 2 * n:
                z[basis[i] - n] = max(T[i, -1], 0.0)
                basic[basis[i] - n] = True
    return status


@njit(cache=True)
def complementarity_error(M, q, z):
    """max(−min w, |zᵀ w|) of z ≥ 0 with w = M z + q: zero for a solution of LCP(M, q)."""
    w = M @ z + q
    return max(-min(w.min(), 0.0), abs(z @ w)) if w.shape[0] else 0.0


@njit(cache=True)
def first_solution(M, q, tolerances, pivots_per_unknown, accepted, z):
    """Lemke's method (:func:`lemke_into`) at each pivot tolerance of ``tolerances`` in turn, at most
    ``pivots_per_unknown`` (n + 1) pivots each, until a solution satisfies the LCP to ``accepted`` · max(1, max|q|)
    (:func:`complementarity_error`); True when one does (written to z)."""
    return first_basis_solution(M, q, tolerances, pivots_per_unknown, accepted, z, np.empty(q.shape[0], dtype=np.bool_))


@njit(cache=True)
def first_basis_solution(M, q, tolerances, pivots_per_unknown, accepted, z, basic):
    """:func:`first_solution` that also writes the solution's basis (:func:`lemke_basis_into`) to ``basic``."""
    n = q.shape[0]
    scale = max(1.0, np.abs(q).max()) if n else 1.0
    for tol in tolerances:
        if lemke_basis_into(M, q, pivots_per_unknown * (n + 1), tol, z, basic) == _SOLVED:
            if complementarity_error(M, q, z) <= accepted * scale:
                return True
    return False


BASIS_TOLERANCE = 1e-9  # a guessed basis' z ≥ 0 and w ≥ 0 to this, relative to max|z_B| and max(1, max|q|)
BASIS_PIVOTS = 2  # block principal pivots after the guess before Lemke's method takes over


@njit(cache=True, nogil=True)
def _solve_in_place(A, b):
    """b ← A⁻¹ b (A (k, k) overwritten) by Gaussian elimination with partial pivoting; False when a pivot is below
    1e-14 of max|A| (singular to round-off)."""
    k = b.shape[0]
    largest = 0.0
    for i in range(k):
        for j in range(k):
            largest = max(largest, abs(A[i, j]))
    for c in range(k):
        p = c
        for i in range(c + 1, k):
            if abs(A[i, c]) > abs(A[p, c]):
                p = i
        if abs(A[p, c]) <= 1e-14 * largest:
            return False
        if p != c:
            for j in range(k):
                A[c, j], A[p, j] = A[p, j], A[c, j]
            b[c], b[p] = b[p], b[c]
        for i in range(c + 1, k):
            factor = A[i, c] / A[c, c]
            if factor != 0.0:
                subtract_row(A, i, c, factor, c + 1, k)
                b[i] -= factor * b[c]
    for c in range(k - 1, -1, -1):
        total = b[c]
        for j in range(c + 1, k):
            total -= A[c, j] * b[j]
        b[c] = total / A[c, c]
    return True


@njit(cache=True, nogil=True)
def basis_solution(M, q, basic, tolerance, pivots, z):
    """z (n,) of LCP(M, q) from the guessed complementary basis ``basic`` (n,) bool (z_i basic, w_i = 0 where True;
    z_i = 0 elsewhere): M_BB z_B = −q_B, then while z_B < 0 or w_N = (M z + q)_N < 0 (to ``tolerance``, relative to
    max|z_B| and max(1, max|q|)) those variables swap sides (a block principal pivot, Júdice & Pires 1994), at most
    ``pivots`` times. True when a basis satisfies the LCP (z ≥ 0, w ≥ 0, zᵀw = 0 to round-off; z written, ``basic``
    its basis); False (z, basic overwritten) otherwise."""
    n = q.shape[0]
    scale = 1.0
    for i in range(n):
        scale = max(scale, abs(q[i]))
    index = np.empty(n, dtype=np.int64)
    for _ in range(pivots + 1):
        k = 0
        for i in range(n):
            if basic[i]:
                index[k] = i
                k += 1
        # M_BB z_B = −q_B
        A, z_B = np.empty((k, k)), np.empty(k)
        for r in range(k):
            z_B[r] = -q[index[r]]
            for c in range(k):
                A[r, c] = M[index[r], index[c]]
        if not _solve_in_place(A, z_B):
            return False
        largest = 0.0
        for r in range(k):
            largest = max(largest, abs(z_B[r]))
        z[:] = 0.0
        feasible = True
        for r in range(k):
            if z_B[r] < -tolerance * largest:
                basic[index[r]], feasible = False, False
            else:
                z[index[r]] = max(z_B[r], 0.0)
        # w_N = (M z + q)_N ≥ 0
        for i in range(n):
            if not basic[i]:
                w = q[i]
                for r in range(k):
                    w += M[i, index[r]] * z[index[r]]
                if w < -tolerance * scale:
                    basic[i], feasible = True, False
        if feasible:
            return True
    return False


@njit(cache=True)
def pyramid_lcp(K, a_eq, N, Fn, T, mu, owner, gamma_n, gamma_t, cone, regularization, lcp, rhs, forces):
    """The frictional contact LCP of Stewart & Trinkle (1996) (:mod:`multibody.constraints.contact`) in place:
    lcp (m + ns, m + ns), rhs (m + ns,), force columns ``forces`` (nv, m), m = nc + edges · ns, for nc rows
    N (nc, nv) with normal force columns Fn (nv, nc), tangent rows T (nc, 2, nv), friction μ (nc,), the ns
    sticking rows ``owner`` each with the pyramid ``cone`` (edges, 2) in its tangent basis, compliance K (nv, nv),
    around a_eq with N a ≥ γ_n, T a = γ_t (nc, 2):

        [[A, (0; E)], [(Mu, −Eᵀ), 0]],  A = (N; D) K (Fn, Dᵀ) + ε mean|diag A| I,   rhs = ((N; D) a_eq − (γ_n; γ_d); 0)

    D the edge directions cone_e · T_i, γ_d = cone_e · γ_t,i, E ones on each contact's edges, Mu its μ."""
    nc, nv = N.shape
    ns, edges = owner.shape[0], cone.shape[0]
    m = nc + edges * ns
    rows, goal = np.empty((m, nv)), np.empty(m)
    rows[:nc], goal[:nc] = N, gamma_n
    forces[:, :nc] = Fn
    for s in range(ns):
        i = owner[s]
        for e in range(edges):
            r = nc + s * edges + e
            for j in range(nv):
                rows[r, j] = cone[e, 0] * T[i, 0, j] + cone[e, 1] * T[i, 1, j]
                forces[j, r] = rows[r, j]
            goal[r] = gamma_t[i, 0] * cone[e, 0] + gamma_t[i, 1] * cone[e, 1]
    # W = (N; T) K (Fn, Tᵀ) (nc + 2 ns)²: an edge row is cone_e · (its two tangent rows)
    P = nc + 2 * ns
    basis_rows, basis_forces = np.empty((P, nv)), np.empty((nv, P))
    basis_rows[:nc], basis_forces[:, :nc] = N, Fn
    for s in range(ns):
        for j in range(2):
            basis_rows[nc + 2 * s + j] = T[owner[s], j]
            basis_forces[:, nc + 2 * s + j] = T[owner[s], j]
    pyramid_matrix((basis_rows @ K) @ basis_forces, nc, owner, mu, cone, regularization, lcp)
    rhs[:m] = rows @ a_eq - goal
    rhs[m:] = 0.0


@njit(cache=True, nogil=True)
def pyramid_matrix(W, nc, owner, mu, cone, regularization, lcp):
    """lcp (m + ns, m + ns) of :func:`pyramid_lcp` from W = (N; T) K (Fn, Tᵀ) (P, P), P = nc + 2 ns, the products of
    the nc normal rows and the ns sticking rows' two tangent rows each (in that order): A's edge row e of sticking
    row s is cone_e · (its two tangent rows), so A = (N; D) K (Fn, Dᵀ) takes P² products instead of m² (nv each)."""
    ns, edges = owner.shape[0], cone.shape[0]
    m = nc + edges * ns
    lcp[:, :] = 0.0
    # the rows of A as combinations of W's: row r = w_first[r] W[first[r]] + w_second[r] W[second[r]]
    first, second, w_first, w_second = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.ones(m), np.zeros(m)
    for r in range(nc):
        first[r], second[r] = r, r
    for s in range(ns):
        for e in range(edges):
            r = nc + s * edges + e
            first[r], second[r], w_first[r], w_second[r] = nc + 2 * s, nc + 2 * s + 1, cone[e, 0], cone[e, 1]
            lcp[r, m + s], lcp[m + s, r] = 1.0, -1.0
        lcp[m + s, owner[s]] = mu[owner[s]]
    # A from U = W (Fn, Dᵀ) (P, m), then A's row r = w_first[r] U[first[r]] + w_second[r] U[second[r]]
    P = W.shape[0]
    U = np.empty((P, m))
    for p in range(P):
        for c in range(m):
            U[p, c] = w_first[c] * W[p, first[c]] + w_second[c] * W[p, second[c]]
    scale = 0.0
    for r in range(m):
        for c in range(m):
            lcp[r, c] = w_first[r] * U[first[r], c] + w_second[r] * U[second[r], c]
        scale += abs(lcp[r, r])
    scale /= max(m, 1)
    for r in range(m):
        lcp[r, r] += regularization * max(scale, 1e-300)


@njit(cache=True, nogil=True)
def pyramid_rows(B, C, a_eq, nc, mu, gamma_n, gamma_t, W, r, slot):
    """The contact problem in contact coordinates, in place: W (P, P) = B C = B K Bᵀ, r (P,) = B a_eq − γ (the rows'
    residual at zero force), slot (nc,) the index in B of each row's first tangent row (−1: μ = 0), for the rows B of
    :func:`pyramid_acceleration` with C = K Bᵀ."""
    P, nv = B.shape
    # W's row i = Σ_k B_ik C's row k, over the coordinates the row moves (B_ik ≠ 0: a foot's row moves only the
    # joints from the root to the foot), C's rows contiguous (the inner loop vectorizes)
    for i in range(P):
        W[i] = 0.0
        for k in range(nv):
            b = B[i, k]
            if b != 0.0:
                for j in range(P):
                    W[i, j] += b * C[k, j]
        r[i] = dot(B[i], a_eq)
    s = 0
    for i in range(nc):
        r[i] -= gamma_n[i]
        slot[i] = -1
        if mu[i] > 0:
            slot[i] = nc + 2 * s
            r[slot[i]] -= gamma_t[i, 0]
            r[slot[i] + 1] -= gamma_t[i, 1]
            s += 1


@njit(cache=True, nogil=True)
def pyramid_acceleration(B, C, a_eq, nc, mu, gamma_n, gamma_t, cone, regularization, tolerances, pivots_per_unknown,
                         accepted, basic, a):
    """a = a_eq + K Q of the LCP of :func:`pyramid_lcp` (every row with μ > 0 sticking, Fn = Nᵀ), Q = F z, solved
    from the guessed basis ``basic`` (nc, edges + 2) bool by :func:`basis_solution` or else (and without a guess)
    by Lemke's method (:func:`first_solution`); False (a untouched) when neither finds a solution. ``basic``, per row,
    whether its normal force, each edge's force and (a sticking row's) sliding speed are basic: the guess in (all
    False: none), the solution's basis out.

    The rows come as B (P, nv): the nc normal rows, then the two tangent rows of each row with μ > 0 (in the rows'
    order), with C = K Bᵀ (nv, P) (:func:`~._step.compliance_columns`): W = B C is all the LCP takes of K, and
    a = a_eq + C w with w the forces z on B's rows (an edge's force on its tangent rows as cone_e)."""
    P, nv = B.shape
    W, r, slot, w = np.empty((P, P)), np.empty(P), np.empty(nc, dtype=np.int64), np.empty(P)
    pyramid_rows(B, C, a_eq, nc, mu, gamma_n, gamma_t, W, r, slot)
    if not pyramid_forces(W, r, nc, slot, mu, cone, regularization, tolerances, pivots_per_unknown, accepted, basic,
                          w):
        return False
    for j in range(nv):
        a[j] = a_eq[j] + dot(C[j], w)
    return True


@njit(cache=True, nogil=True)
def pyramid_forces(W, r, nc, slot, mu, cone, regularization, tolerances, pivots_per_unknown, accepted, basic, w):
    """The forces w (P,) on the rows of W, r (:func:`pyramid_rows`) (normal forces, then each sticking row's
    friction force on its two tangent rows) by the LCP of :func:`pyramid_acceleration`, its basis ``basic`` in and out
    as there; False (w undefined) when neither the guessed basis nor Lemke's method solves it."""
    ns, edges = (W.shape[0] - nc) // 2, cone.shape[0]
    owner = np.empty(ns, dtype=np.int64)
    for i in range(nc):
        if slot[i] >= 0:
            owner[(slot[i] - nc) // 2] = i
    m = nc + edges * ns
    lcp, rhs, z = np.empty((m + ns, m + ns)), np.zeros(m + ns), np.empty(m + ns)
    pyramid_matrix(W, nc, owner, mu, cone, regularization, lcp)
    # rhs = (N; D) a_eq − (γ_n; γ_d): an edge's cone_e · (T a_eq − γ_t)
    for i in range(nc):
        rhs[i] = r[i]
    for s in range(ns):
        t = nc + 2 * s
        for e in range(edges):
            rhs[nc + s * edges + e] = cone[e, 0] * r[t] + cone[e, 1] * r[t + 1]
    # the variables (normal forces nc; edge forces ns · edges; sliding speeds ns) of each row
    guess = np.empty(m + ns, dtype=np.bool_)
    any_basic = False
    for i in range(nc):
        guess[i] = basic[i, 0]
    for s in range(ns):
        for e in range(edges):
            guess[nc + s * edges + e] = basic[owner[s], 1 + e]
        guess[m + s] = basic[owner[s], edges + 1]
    for k in range(m + ns):
        any_basic = any_basic or guess[k]
    if not (any_basic and basis_solution(lcp, rhs, guess, BASIS_TOLERANCE, BASIS_PIVOTS, z)):
        if not first_basis_solution(lcp, rhs, tolerances, pivots_per_unknown, accepted, z, guess):
            return False
    basic[:, :] = False
    for i in range(nc):
        basic[i, 0] = guess[i]
    for s in range(ns):
        for e in range(edges):
            basic[owner[s], 1 + e] = guess[nc + s * edges + e]
        basic[owner[s], edges + 1] = guess[m + s]
    # w = the normal forces, and each sticking row's edge forces summed onto its two tangent rows
    for i in range(nc):
        w[i] = z[i]
    for s in range(ns):
        w0, w1 = 0.0, 0.0
        for e in range(edges):
            w0 += cone[e, 0] * z[nc + s * edges + e]
            w1 += cone[e, 1] * z[nc + s * edges + e]
        w[nc + 2 * s], w[nc + 2 * s + 1] = w0, w1
    return True


@njit(cache=True, nogil=True)
def product(X, Y, out):
    """out (n, p) = X (n, k) Y (k, p) in loops: no BLAS call, whose cost outweighs the small matrices' products."""
    for i in range(X.shape[0]):
        for j in range(Y.shape[1]):
            total = 0.0
            for k in range(X.shape[1]):
                total += X[i, k] * Y[k, j]
            out[i, j] = total


@njit(cache=True, nogil=True)
def dot(x, y):
    """x · y of two vectors in a loop (no BLAS call)."""
    total = 0.0
    for k in range(x.shape[0]):
        total += x[k] * y[k]
    return total


class GaussSeidelBlock(NamedTuple):
    """One block of rows of :func:`gauss_seidel_sweep`: ``rows`` (slice) of the problem; ``friction`` μ of a
    contact block (rows λ_n, λ_t1, λ_t2), or None for a bilateral block (rows held at their targets); ``step`` the
    matrix that turns a residual into a force change (a bilateral block's (pseudo-)inverse diagonal block, a contact's
    tangential step); ``weight`` scales the block's force change in the returned measure of change."""

    rows: slice
    friction: float | None
    step: np.ndarray
    weight: float = 1.0


def gauss_seidel_sweep(A, b, target, f, blocks):
    """One projected Gauss–Seidel sweep (Erleben 2007; ODE's QuickStep, Bullet) over ``blocks`` (sequence of
    :class:`GaussSeidelBlock`) on the residual r = (b + A f) − target, f updated in place; returns the largest
    weighted force change of a block.

    Each block is solved with the other forces fixed. A bilateral block: f ← f − step · r (r = 0 on its rows).
    A contact block: the normal row f_n ← max(f_n − r_n / A_nn, 0) (Signorini: r_n ≥ 0 ⟂ f_n ≥ 0); with μ > 0,
    then the tangential rows f_t ← f_t − step · r_t, projected onto the Coulomb disc |f_t| ≤ μ f_n (with μ = 0
    they keep their force, zero from the start). ``target`` None stands for zero."""
    change = 0.0
    for block in blocks:
        s = block.rows
        old = f[s].copy()
        r = b[s] + A[s] @ f
        if target is not None:
            r = r - target[s]
        if block.friction is None:
            f[s] -= block.step @ r
        else:
            n, t = s.start, slice(s.start + 1, s.start + 3)
            f[n] = max(f[n] - r[0] / A[n, n], 0.0)
            if block.friction > 0:
                residual_t = b[t] + A[t] @ f
                if target is not None:
                    residual_t = residual_t - target[t]
                tangential = f[t] - block.step @ residual_t
                limit, norm = block.friction * f[n], np.linalg.norm(tangential)
                f[t] = tangential if norm <= limit else tangential * (limit / norm)
        change = max(change, np.abs(f[s] - old).max() * block.weight)
    return change


def projected_gauss_seidel(A, b, mu, cfm=1e-6, sweeps=300, tol=1e-10):
    """Forces f (3k,) of k contacts in blocks (λ_n, λ_t1, λ_t2) with relative acceleration (or velocity) A f + b:
    the normal part ≥ 0 ⟂ λ_n ≥ 0, the tangential part as small as the Coulomb disc |λ_t| ≤ μ λ_n lets it be.

    Sweeps of :func:`gauss_seidel_sweep` (per contact, its normal row solved with the other forces fixed and
    clamped to λ_n ≥ 0, then its two tangential rows solved together, step A_tt⁻¹, and projected onto the disc of
    radius μ λ_n) until no force changes by more than ``tol`` relative to the largest.
    ``cfm`` adds cfm · mean(diag A) to the diagonal (constraint force mixing, as ODE's CFM and MuJoCo's
    regularization): a compliance that makes redundant rows well posed at the price of a relative force error of
    that order; physically, the contact gives way by cfm · mean(diag A) [m/s² or m/s] per newton. A contact whose
    normal row cannot move (diagonal below 1e-12 of the largest: two shapes their joints cannot part) takes no force.
    ``mu`` (k,): friction of each block (0: a normal row only). Returns f; with ``sweeps`` exhausted, the last
    iterate.
    """
    k = len(mu)
    diagonal = np.abs(np.diag(A))
    A = A + cfm * max(np.mean(diagonal), 1e-300) * np.eye(3 * k)
    blocks = [GaussSeidelBlock(slice(3 * i, 3 * i + 3), float(mu[i]),
                               np.linalg.inv(A[3 * i + 1:3 * i + 3, 3 * i + 1:3 * i + 3]) if mu[i] > 0 else np.zeros((2, 2)))
              for i in range(k) if diagonal[3 * i] > 1e-12 * diagonal.max(initial=0.0)]
    f = np.zeros(3 * k)
    for _ in range(sweeps):
        if gauss_seidel_sweep(A, b, None, f, blocks) <= tol * max(np.abs(f).max(), 1e-300):
            break
    return f
