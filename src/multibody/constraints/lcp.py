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
returns a force.
"""
from __future__ import annotations

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
    if n == 0 or q.min() >= 0.0:
        return np.zeros(n)
    # tableau [B⁻¹ | B⁻¹(−M) | B⁻¹(−d) | B⁻¹ q]; variables w: 0..n−1, z: n..2n−1, z₀: 2n
    T = np.hstack([np.eye(n), -M, -np.ones((n, 1)), q[:, None]])
    basis = np.arange(n)
    pivots = max_pivots or 50 * (n + 1)
    status = _pivot(T, basis, pivots, tol)
    if status == _RAY:
        raise LCPError("lemke: secondary ray (the complementarity problem has no solution from this start)")
    if status == _EXHAUSTED:
        raise LCPError(f"lemke: no solution after {pivots} pivots")
    z = np.zeros(n)
    for i, b in enumerate(basis):
        if n <= b < 2 * n:
            z[b - n] = T[i, -1]
    return np.maximum(z, 0.0)


_SOLVED, _RAY, _EXHAUSTED = 0, 1, 2  # how _pivot ends


@njit(cache=True)
def _pivot(T, basis, max_pivots, tol):
    """Lemke's pivots on the tableau T (n, 2n + 2) with basis (n,), in place, from the artificial variable z₀
    entering at the row of min q until z₀ leaves: _SOLVED, or _RAY (secondary ray), or _EXHAUSTED (max_pivots)."""
    n = T.shape[0]
    artificial = 2 * n
    row = np.argmin(T[:, -1])
    entering = artificial
    for _ in range(max_pivots):
        # pivot on (row, entering): that row divided by the pivot, the column eliminated from the other rows
        T[row] /= T[row, entering]
        for i in range(n):
            factor = T[i, entering]
            if i != row:
                for j in range(T.shape[1]):
                    T[i, j] -= factor * T[row, j]
        leaving = basis[row]
        basis[row] = entering
        if leaving == artificial:
            return _SOLVED
        entering = leaving + n if leaving < n else leaving - n
        row = _lexicographic_ratio(T, entering, basis, artificial, n, tol)
        if row < 0:
            return _RAY
    return _EXHAUSTED


@njit(cache=True)
def _lexicographic_ratio(T, entering, basis, artificial, n, tol):
    """Row of the lexicographically smallest (b, B⁻¹ rows) / column ratio; prefers the artificial variable's row;
    −1 when no row bounds the entering variable (a secondary ray)."""
    column = T[:, entering]
    candidates = np.flatnonzero(column > tol * max(1.0, np.abs(column).max()))
    if candidates.size == 0:
        return -1
    for k in range(-1, n):
        key = T[candidates, k] / column[candidates]
        best = key.min()
        candidates = candidates[key <= best + tol * max(1.0, abs(best))]
        for c in candidates:
            if basis[c] == artificial:
                return c
        if candidates.size == 1:
            break
    return candidates[0]


def complementarity_error(M, q, z):
    """max(−min w, |zᵀ w|) of z ≥ 0 with w = M z + q: zero for a solution of LCP(M, q)."""
    w = M @ z + q
    return max(-w.min(initial=0.0), abs(z @ w))


def projected_gauss_seidel(A, b, mu, cfm=1e-6, sweeps=300, tol=1e-10):
    """Forces f (3k,) of k contacts in blocks (λ_n, λ_t1, λ_t2) with relative acceleration (or velocity) A f + b:
    the normal part ≥ 0 ⟂ λ_n ≥ 0, the tangential part as small as the Coulomb disc |λ_t| ≤ μ λ_n lets it be.

    Projected Gauss–Seidel (Erleben 2007; ODE's QuickStep, Bullet): per contact, its normal row solved with the
    other forces fixed and clamped to λ_n ≥ 0, then its two tangential rows solved together and projected onto the
    disc of radius μ λ_n, sweep after sweep until no force changes by more than ``tol`` relative to the largest.
    ``cfm`` adds cfm · mean(diag A) to the diagonal (constraint force mixing, as ODE's CFM and MuJoCo's
    regularization): a compliance that makes redundant rows well posed at the price of a relative force error of
    that order; physically, the contact gives way by cfm · mean(diag A) [m/s² or m/s] per newton. A contact whose
    normal row cannot move (diagonal below 1e-12 of the largest: two shapes their joints cannot part) takes no force.
    ``mu`` (k,): friction of each block (0: a normal row only). Returns f; with ``sweeps`` exhausted, the last
    iterate.
    """
    k = len(mu)
    diagonal = np.abs(np.diag(A))
    movable = [i for i in range(k) if diagonal[3 * i] > 1e-12 * diagonal.max(initial=0.0)]
    A = A + cfm * max(np.mean(diagonal), 1e-300) * np.eye(3 * k)
    f = np.zeros(3 * k)
    tangential = {i: np.linalg.inv(A[3 * i + 1:3 * i + 3, 3 * i + 1:3 * i + 3]) for i in movable if mu[i] > 0}
    for _ in range(sweeps):
        change = 0.0
        for i in movable:
            n, t = 3 * i, slice(3 * i + 1, 3 * i + 3)
            old = f[n:n + 3].copy()
            # Signorini: λ_n ← max(0, λ_n − (A f + b)_n / A_nn)
            f[n] = max(f[n] - (A[n] @ f + b[n]) / A[n, n], 0.0)
            if i in tangential:
                # Coulomb: λ_t ← λ_t − A_tt⁻¹ (A f + b)_t, then onto the disc |λ_t| ≤ μ λ_n
                f[t] -= tangential[i] @ (A[t] @ f + b[t])
                norm = np.linalg.norm(f[t])
                if norm > mu[i] * f[n]:
                    f[t] *= mu[i] * f[n] / norm
            change = max(change, np.abs(f[n:n + 3] - old).max())
        if change <= tol * max(np.abs(f).max(), 1e-300):
            break
    return f
