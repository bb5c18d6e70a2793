"""Linear complementarity problems by Lemke's complementary pivoting.

LCP(M, q): find z ≥ 0 with w = M z + q ≥ 0 and zᵀ w = 0. Lemke's method (Cottle, Pang & Stone, *The Linear
Complementarity Problem*, §4.4) adds an artificial variable z₀ with covering vector d = 1,
w − M z − d z₀ = q, starts from the almost-complementary basis where z₀ = −min q, and pivots the complement of
each leaving variable in until z₀ leaves. The ratio test is lexicographic (on the rows of the basis inverse) so
degenerate problems do not cycle. It solves every LCP whose matrix is copositive-plus, which includes the
positive semidefinite contact problems and, in practice, the frictional ones.
"""
from __future__ import annotations

import numpy as np


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
    artificial = 2 * n
    row = int(np.argmin(q))
    entering = artificial
    for _ in range(max_pivots or 50 * (n + 1)):
        T[row] /= T[row, entering]
        others = np.arange(n) != row
        T[others] -= np.outer(T[others, entering], T[row])
        leaving, basis[row] = basis[row], entering
        if leaving == artificial:
            break
        entering = leaving + n if leaving < n else leaving - n
        row = _lexicographic_ratio(T, entering, basis, artificial, n, tol)
    else:
        raise LCPError(f"lemke: no solution after {max_pivots or 50 * (n + 1)} pivots")
    z = np.zeros(n)
    for i, b in enumerate(basis):
        if n <= b < 2 * n:
            z[b - n] = T[i, -1]
    return np.maximum(z, 0.0)


def _lexicographic_ratio(T, entering, basis, artificial, n, tol):
    """Row of the lexicographically smallest (b, B⁻¹ rows) / column ratio; prefers the artificial variable's row."""
    column = T[:, entering]
    candidates = np.flatnonzero(column > tol * max(1.0, np.abs(column).max()))
    if candidates.size == 0:
        raise LCPError("lemke: secondary ray (the complementarity problem has no solution from this start)")
    for k in range(-1, n):
        key = T[candidates, k] / column[candidates]
        best = key.min()
        candidates = candidates[key <= best + tol * max(1.0, abs(best))]
        hit = candidates[basis[candidates] == artificial]
        if hit.size:
            return int(hit[0])
        if candidates.size == 1:
            break
    return int(candidates[0])
