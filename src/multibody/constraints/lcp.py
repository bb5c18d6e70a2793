"""Linear complementarity problems by Lemke's complementary pivoting.

LCP(M, q): find z ≥ 0 with w = M z + q ≥ 0 and zᵀ w = 0. Lemke's method (Cottle, Pang & Stone, *The Linear
Complementarity Problem*, §4.4) adds an artificial variable z₀ with covering vector d = 1,
w − M z − d z₀ = q, starts from the almost-complementary basis where z₀ = −min q, and pivots the complement of
each leaving variable in until z₀ leaves. The ratio test is lexicographic (on the rows of the basis inverse) so
degenerate problems do not cycle. It solves every LCP whose matrix is copositive-plus, which includes the
positive semidefinite contact problems and, in practice, the frictional ones.

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


@njit(cache=True)
def _pivot(T, basis, max_pivots, tol):
    """Lemke's pivots on the tableau T (n, 2n + 2) with basis (n,), in place, from the artificial variable z₀
    entering at the row of min q until z₀ leaves: _SOLVED, or _RAY (secondary ray), or _EXHAUSTED (max_pivots)."""
    n = T.shape[0]
    artificial = 2 * n
    row = np.argmin(T[:, -1])
    entering = artificial
    candidates = np.empty(n, dtype=np.int64)  # the rows still tied in the ratio test
    for _ in range(max_pivots):
        # pivot on (row, entering): that row divided by the pivot, the column eliminated from the other rows
        T[row] /= T[row, entering]
        for i in range(n):
            factor = T[i, entering]
            if i != row and factor != 0.0:
                for j in range(T.shape[1]):
                    T[i, j] -= factor * T[row, j]
        leaving = basis[row]
        basis[row] = entering
        if leaving == artificial:
            return _SOLVED
        entering = leaving + n if leaving < n else leaving - n
        row = _lexicographic_ratio(T, entering, basis, artificial, n, tol, candidates)
        if row < 0:
            return _RAY
    return _EXHAUSTED


@njit(cache=True)
def _lexicographic_ratio(T, entering, basis, artificial, n, tol, candidates):
    """Row of the lexicographically smallest (b, B⁻¹ rows) / column ratio; prefers the artificial variable's row;
    −1 when no row bounds the entering variable (a secondary ray). ``candidates`` (n,): scratch."""
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
        for c in range(count):
            best = min(best, T[candidates[c], k] / T[candidates[c], entering])
        kept = 0
        for c in range(count):
            i = candidates[c]
            if T[i, k] / T[i, entering] <= best + tol * max(1.0, abs(best)):
                candidates[kept] = i
                kept += 1
        count = kept
        for c in range(count):
            if basis[candidates[c]] == artificial:
                return candidates[c]
        if count == 1:
            break
    return candidates[0]


@njit(cache=True)
def lemke_into(M, q, max_pivots, tol, z):
    """:func:`lemke` compiled: z (n,) of LCP(M, q) written in place; returns _SOLVED, _RAY or _EXHAUSTED.

    Tableau [B⁻¹ | B⁻¹(−M) | B⁻¹(−d) | B⁻¹ q]; variables w: 0..n−1, z: n..2n−1, z₀: 2n."""
    n = q.shape[0]
    z[:] = 0.0
    if n == 0 or q.min() >= 0.0:
        return _SOLVED
    T = np.zeros((n, 2 * n + 2))
    for i in range(n):
        T[i, i] = 1.0
        for j in range(n):
            T[i, n + j] = -M[i, j]
        T[i, 2 * n] = -1.0
        T[i, 2 * n + 1] = q[i]
    basis = np.arange(n)
    status = _pivot(T, basis, max_pivots, tol)
    if status == _SOLVED:
        for i in range(n):
            if n <= basis[i] < 2 * n:
                z[basis[i] - n] = max(T[i, -1], 0.0)
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
    n = q.shape[0]
    scale = max(1.0, np.abs(q).max()) if n else 1.0
    for tol in tolerances:
        if lemke_into(M, q, pivots_per_unknown * (n + 1), tol, z) == _SOLVED:
            if complementarity_error(M, q, z) <= accepted * scale:
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
            rows[r] = cone[e, 0] * T[i, 0] + cone[e, 1] * T[i, 1]
            forces[:, r] = rows[r]
            goal[r] = gamma_t[i, 0] * cone[e, 0] + gamma_t[i, 1] * cone[e, 1]
            lcp[r, m + s], lcp[m + s, r] = 1.0, -1.0
        lcp[m + s, i] = mu[i]
    A = (rows @ K) @ forces
    scale = 0.0
    for r in range(m):
        scale += abs(A[r, r])
    scale /= max(m, 1)
    lcp[:m, :m] = A
    for r in range(m):
        lcp[r, r] += regularization * max(scale, 1e-300)
    rhs[:m] = rows @ a_eq - goal
    rhs[m:] = 0.0


@njit(cache=True)
def pyramid_acceleration(K, a_eq, N, T, mu, gamma_n, gamma_t, cone, regularization, tolerances, pivots_per_unknown,
                         accepted, a):
    """a = a_eq + K Q of the LCP of :func:`pyramid_lcp` (every row with μ > 0 sticking, Fn = Nᵀ) solved by
    :func:`first_solution`, Q = F z; False (a untouched) when Lemke's method finds no accepted solution."""
    nc, nv = N.shape
    owner = np.flatnonzero(mu > 0)
    ns, edges = owner.shape[0], cone.shape[0]
    m = nc + edges * ns
    lcp, rhs, forces, z = np.zeros((m + ns, m + ns)), np.empty(m + ns), np.empty((nv, m)), np.empty(m + ns)
    pyramid_lcp(K, a_eq, N, np.ascontiguousarray(N.T), T, mu, owner, gamma_n, gamma_t, cone, regularization, lcp,
                rhs, forces)
    if not first_solution(lcp, rhs, tolerances, pivots_per_unknown, accepted, z):
        return False
    a[:] = a_eq + K @ (forces @ z[:m])
    return True


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
