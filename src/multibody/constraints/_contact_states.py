"""The contact step's LCP solved first in contact coordinates, from each contact's state at the last step.

The Stewart–Trinkle LCP of :func:`~.lcp.pyramid_acceleration` has 1 + edges + 1 unknowns per frictional row (its
normal force, the pyramid edges' forces and a sliding speed), most of them redundant: the friction force f (2,) in
the row's tangent basis is all the motion takes of its edge forces. Each of its solutions puts every row in one of
the contact states of Pfeiffer & Glocker (1996, *Multibody Dynamics with Unilateral Contacts*, §7):

    separating      λ = 0, f = 0                  N a − γ_n ≥ 0
    sticking        λ ≥ 0, f in the pyramid      N a − γ_n = 0, T a − γ_t = 0
    sliding, edge k  λ ≥ 0, f = μ λ cone_k         N a − γ_n = 0, the slip u = T a − γ_t with cone_k · u ≤ 0 and
                                                  cone_k · u ≤ cone_e · u for every edge e (friction at the
                                                  pyramid's vertex that most opposes the slip)
    sliding, face k  f = β_k cone_k + β_k+1 cone_k+1, β ≥ 0, μ λ = β_k + β_k+1: as on edge k, with
                     (cone_k − cone_k+1) · u = 0 (the slip held across the face between edges k and k + 1,
                     both opposing it most)

(a frictionless row: separating or, with its equality, sticking). Given the states, the forces solve one linear
system in contact coordinates, W x = −r on the rows that hold with equality (≤ 3 per sticking row, 1 or 2 per
sliding one), W = B K Bᵀ; if every row's inequalities then hold (to :data:`~.lcp.BASIS_TOLERANCE`), x gives a
solution of the same LCP (λ, the edge forces that sum to f, the sliding speed ζ = −cone_k · u) and is taken. Else
the rows that fail change state, all at once (block principal pivoting, Júdice & Pires 1994, in contact
coordinates): separating → sticking where N a − γ_n < 0; sticking or sliding → separating where λ < 0; sticking →
sliding on the face f leaves the pyramid through (the side of f's sector); sliding → sticking where the slip turns
(cone_k · u > 0); a face's row onto the edge whose force stays positive; an edge's onto the face beside it or the
edge that most opposes the slip. Where the number of failing rows has not fallen for :data:`STALLED` solves, only
one row changes (the first failing: Murty's least-index rule, which Júdice & Pires use against cycling); at most
:data:`PASSES` solves. Failing that, the LCP itself is solved (:func:`~.lcp.pyramid_forces`: the last basis, then
Lemke's method), so every problem Lemke's method solves is still solved.

The states are guessed from the last step's LCP basis (whose rows' normal forces, edge forces and sliding speeds
were basic), and returned in it: a sticking row's two edges around f, a sliding row's edge (or face's two edges)
and sliding speed. The regularization ε (:func:`~.lcp.pyramid_matrix`'s, ε = regularization × the LCP's mean
diagonal) is added to W's diagonal on the normal rows as in the LCP, and as ε/4 on a sticking row's tangent rows
(the LCP's with all its edge forces basic, Σ_e cone_e cone_eᵀ = (edges/2) I for edges ≥ 3): where the rows are
redundant, the forces they leave free are the regularized ones and the accelerations those of the LCP to the
regularization's order.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .lcp import BASIS_TOLERANCE, _solve_in_place, dot, pyramid_forces, pyramid_rows

SEPARATING, STICKING = -2, -1  # a row's state; 0 ≤ k < edges: sliding along edge k; edges + k: on face k
PASSES = 10  # linear solves in contact coordinates (each changing the states that fail) before the LCP is solved
STALLED = 1  # solves without fewer failing rows, after which one row changes per solve
UNSOLVED, STATES, LCP = 0, 1, 2  # what solved a problem (contact_acceleration)


@njit(cache=True, nogil=True)
def contact_acceleration(B, C, a_eq, nc, mu, gamma_n, gamma_t, cone, regularization, tolerances, pivots_per_unknown,
                         accepted, basic, a):
    """a = a_eq + C w of :func:`~.lcp.pyramid_acceleration`'s LCP (same arguments, ``basic`` the guess in and the
    solution's basis out), solved first in contact coordinates from the states ``basic`` gives
    (:func:`state_forces`), else by the LCP (:func:`~.lcp.pyramid_forces`): returns STATES or LCP, whichever solved
    it, or UNSOLVED (0; a untouched) when neither does."""
    P, nv = B.shape
    W, r, w = np.empty((P, P)), np.empty(P), np.empty(P)
    slot, state = np.empty(nc, dtype=np.int64), np.empty(nc, dtype=np.int64)
    pyramid_rows(B, C, a_eq, nc, mu, gamma_n, gamma_t, W, r, slot)
    guessed_states(basic, r, nc, slot, cone, state)
    path = STATES
    if state_forces(W, r, nc, slot, mu, cone, regularization, BASIS_TOLERANCE, PASSES, state, w):
        state_basis(w, nc, slot, cone, state, basic)
    elif pyramid_forces(W, r, nc, slot, mu, cone, regularization, tolerances, pivots_per_unknown, accepted, basic, w):
        path = LCP
    else:
        return UNSOLVED
    for j in range(nv):
        a[j] = a_eq[j] + dot(C[j], w)
    return path


@njit(cache=True, nogil=True)
def guessed_states(basic, r, nc, slot, cone, state):
    """state (nc,) of each row from an LCP basis ``basic`` (nc, edges + 2) (:func:`~.lcp.pyramid_acceleration`):
    its normal force not basic: separating, or sticking where the motion without forces closes it (r_n < 0); its
    sliding speed basic: sliding on the face of its two basic edges if they are the only ones and adjacent, else
    along its basic edge that most opposes the tangential residual r_t; else sticking."""
    edges = cone.shape[0]
    for i in range(nc):
        t = slot[i]
        state[i] = STICKING
        if not basic[i, 0]:
            state[i] = STICKING if r[i] < 0.0 else SEPARATING
        elif t >= 0 and basic[i, edges + 1]:
            best, count, first = np.inf, 0, -1
            for e in range(edges):
                along = cone[e, 0] * r[t] + cone[e, 1] * r[t + 1]
                if basic[i, 1 + e]:
                    count += 1
                    first = e if first < 0 else first
                    if along < best:
                        best, state[i] = along, e
            if count == 2 and basic[i, 1 + (first + 1) % edges]:
                state[i] = edges + first
            elif count == 2 and first == 0 and basic[i, edges]:
                state[i] = edges + edges - 1


@njit(cache=True, nogil=True)
def state_basis(w, nc, slot, cone, state, basic):
    """The LCP basis ``basic`` (nc, edges + 2) of the states ``state`` (nc,) with forces w (:func:`state_forces`):
    a row's normal force basic unless it separates; a sticking row's two edges around its friction force f
    (:func:`sector`), a sliding row's edge or face's two edges and its sliding speed."""
    edges = cone.shape[0]
    basic[:, :] = False
    for i in range(nc):
        t = slot[i]
        basic[i, 0] = state[i] != SEPARATING
        if t < 0 or state[i] == SEPARATING:
            continue
        if state[i] >= 0:
            k = state[i] % edges
            basic[i, 1 + k], basic[i, edges + 1] = True, True
            if state[i] >= edges:
                basic[i, 1 + (k + 1) % edges] = True
            continue
        k = sector(cone, w[t], w[t + 1])
        basic[i, 1 + k], basic[i, 1 + (k + 1) % edges] = True, True


@njit(cache=True, nogil=True)
def state_forces(W, r, nc, slot, mu, cone, regularization, tolerance, passes, state, w):
    """The forces w (P,) on the rows of W, r (:func:`~.lcp.pyramid_rows`) for the rows' states ``state`` (nc,), in
    place, changed where they fail (the module docstring) at most ``passes`` times; True when every row's
    conditions hold to ``tolerance`` (forces relative to max|force|, residuals to max(1, max|r|)), False when they
    do not after ``passes`` solves or a system is singular.

    Each unknown y_j is a force on up to three of W's rows (column[j, c] with weight[j, c]: a sliding row's λ on its
    normal row and μ λ cone_k on its tangent rows), each equation a combination of up to two rows of W w + r = 0
    (a face's (cone_k − cone_k+1) · u_t = 0)."""
    P, edges = W.shape[0], cone.shape[0]
    # W regularized as the LCP (ε on the normal rows, ε/4 on the tangent rows: the module docstring)
    total, m = 0.0, nc
    for i in range(nc):
        total += abs(W[i, i])
        t = slot[i]
        if t >= 0:
            m += edges
            for e in range(edges):
                total += abs(cone[e, 0] ** 2 * W[t, t] + cone[e, 0] * cone[e, 1] * (W[t, t + 1] + W[t + 1, t])
                             + cone[e, 1] ** 2 * W[t + 1, t + 1])
    epsilon = regularization * max(total / max(m, 1), 1e-300)
    Wr = W.copy()
    for p in range(P):
        Wr[p, p] += epsilon if p < nc else 0.25 * epsilon
    largest_r = 1.0
    for p in range(P):
        largest_r = max(largest_r, abs(r[p]))
    column, weight = np.full((P, 3), -1, dtype=np.int64), np.zeros((P, 3))
    row, row_weight = np.full((P, 2), -1, dtype=np.int64), np.zeros((P, 2))
    first, u, lifted, proposed = (np.empty(nc, dtype=np.int64), np.empty(P), np.zeros(nc, dtype=np.int64),
                                  np.empty(nc, dtype=np.int64))
    fewest, stalled = P + 1, 0
    for _ in range(passes):
        k = 0
        for i in range(nc):
            first[i] = k
            if state[i] != SEPARATING:
                k = unknowns(i, slot[i], mu[i], cone, state[i], k, column, weight, row, row_weight)
        A, y = np.zeros((k, k)), np.zeros(k)
        for e in range(k):
            for a in range(2):
                if row[e, a] >= 0:
                    y[e] -= row_weight[e, a] * r[row[e, a]]
                    for j in range(k):
                        for c in range(3):
                            if column[j, c] >= 0:
                                A[e, j] += row_weight[e, a] * weight[j, c] * Wr[row[e, a], column[j, c]]
        if not _solve_in_place(A, y):
            return False
        # w = the forces, u = Wr w + r the residuals
        w[:] = 0.0
        largest_f = 0.0
        for j in range(k):
            for c in range(3):
                if column[j, c] >= 0:
                    w[column[j, c]] += weight[j, c] * y[j]
            largest_f = max(largest_f, abs(y[j]))
        u[:] = r
        for q in range(P):
            if w[q] != 0.0:
                for p in range(P):
                    u[p] += Wr[p, q] * w[q]
        failing = changed_states(w, u, y, first, nc, slot, mu, cone, tolerance * largest_f, tolerance * largest_r,
                                 stalled >= STALLED, lifted, proposed, state)
        if failing == 0:
            return True
        stalled = 0 if failing < fewest else stalled + 1
        fewest = min(fewest, failing)
    return False


@njit(cache=True, nogil=True)
def unknowns(i, t, mu, cone, state, k, column, weight, row, row_weight):
    """Row i's unknowns and equations from index k (:func:`state_forces`), for its state (not separating) and first
    tangent row t (−1: frictionless); returns the next free index."""
    edges = cone.shape[0]
    column[k], weight[k], row[k], row_weight[k] = -1, 0.0, -1, 0.0
    column[k, 0], weight[k, 0], row[k, 0], row_weight[k, 0] = i, 1.0, i, 1.0
    if t < 0:
        return k + 1
    if state == STICKING:
        for j in range(1, 3):
            column[k + j], weight[k + j], row[k + j], row_weight[k + j] = -1, 0.0, -1, 0.0
            column[k + j, 0], weight[k + j, 0], row[k + j, 0], row_weight[k + j, 0] = t + j - 1, 1.0, t + j - 1, 1.0
        return k + 3
    e = state % edges
    column[k, 1], column[k, 2] = t, t + 1
    if state < edges:  # λ, with μ λ cone_e on the tangent rows
        weight[k, 1], weight[k, 2] = mu * cone[e, 0], mu * cone[e, 1]
        return k + 1
    # a face: β_e and β_e+1, λ = (β_e + β_e+1)/μ; equations: the normal row and (cone_e − cone_e+1) · u_t = 0
    n = (e + 1) % edges
    weight[k, 0], weight[k, 1], weight[k, 2] = 1.0 / mu, cone[e, 0], cone[e, 1]
    column[k + 1, 0], column[k + 1, 1], column[k + 1, 2] = i, t, t + 1
    weight[k + 1, 0], weight[k + 1, 1], weight[k + 1, 2] = 1.0 / mu, cone[n, 0], cone[n, 1]
    row[k + 1, 0], row[k + 1, 1] = t, t + 1
    row_weight[k + 1, 0], row_weight[k + 1, 1] = cone[e, 0] - cone[n, 0], cone[e, 1] - cone[n, 1]
    return k + 2


@njit(cache=True, nogil=True)
def changed_states(w, u, y, first, nc, slot, mu, cone, force_tolerance, residual_tolerance, single, lifted, proposed,
                   state):
    """Each row's conditions (the module docstring) checked on its forces w, unknowns y (its first at first[i]) and
    residuals u = W w + r, and its ``state`` changed where they fail; returns the number of rows that fail. A sliding
    row's move to another edge or face waits while any row separates, closes, sticks or starts to slide (its slip
    follows theirs); ``single``: only the first row that moves does. ``lifted`` (nc,) counts each row's changes to
    separating: a sticking row whose λ < 0 again after one slides instead, on the face its friction leaves the
    pyramid through (sticking, the friction the row needs would pull it into the surface). ``proposed`` (nc,):
    scratch."""
    edges = cone.shape[0]
    failing, primary = 0, 0
    for i in range(nc):
        t, now = slot[i], state[i]
        new = now
        if now == SEPARATING:
            if u[i] < -residual_tolerance:
                new = STICKING
        elif w[i] < -force_tolerance:
            new = SEPARATING
            if t >= 0 and now == STICKING and lifted[i] > 0 and abs(w[t]) + abs(w[t + 1]) > force_tolerance:
                new = edges + sector(cone, w[t], w[t + 1])  # (lifted before: its friction pulls it down, it slides)
        elif t >= 0 and now == STICKING:
            # f inside the pyramid of vertices μ λ cone_e: left of each side,
            # (cone_e+1 − cone_e) × (f − μ λ cone_e) ≥ 0
            # (the side of the sector that holds f's direction: the face f leaves through)
            limit, e = mu[i] * w[i], sector(cone, w[t], w[t + 1])
            n = (e + 1) % edges
            side = ((cone[n, 0] - cone[e, 0]) * (w[t + 1] - limit * cone[e, 1])
                    - (cone[n, 1] - cone[e, 1]) * (w[t] - limit * cone[e, 0]))
            if side < -force_tolerance:
                new = edges + e
        elif t >= 0:
            # sliding along edge k (or face k): the slip u_t opposes cone_k (ζ = −cone_k · u_t ≥ 0), no edge more
            k = now % edges
            along = cone[k, 0] * u[t] + cone[k, 1] * u[t + 1]
            e = nearest_edge(cone, u[t], u[t + 1], -1.0)
            if now >= edges and y[first[i]] < -force_tolerance:
                new = (k + 1) % edges
            elif now >= edges and y[first[i] + 1] < -force_tolerance:
                new = k
            elif along > residual_tolerance:
                new = STICKING
            elif cone[e, 0] * u[t] + cone[e, 1] * u[t + 1] < along - residual_tolerance:
                if now < edges and e == (k + 1) % edges:
                    new = edges + k
                elif now < edges and k == (e + 1) % edges:
                    new = edges + e
                else:
                    new = e
        proposed[i] = new
        failing += new != now
        primary += new != now and (now < 0 or new < 0)
    moved = 0
    for i in range(nc):
        now, new = state[i], proposed[i]
        if new != now and (primary == 0 or now < 0 or new < 0) and not (single and moved > 0):
            lifted[i] += new == SEPARATING
            state[i] = new
            moved += 1
    return failing


@njit(cache=True, nogil=True)
def nearest_edge(cone, x0, x1, sign):
    """The edge e maximizing sign · cone_e · x: the pyramid's vertex nearest the direction of ±x."""
    best, k = -np.inf, 0
    for e in range(cone.shape[0]):
        along = sign * (cone[e, 0] * x0 + cone[e, 1] * x1)
        if along > best:
            best, k = along, e
    return k


@njit(cache=True, nogil=True)
def sector(cone, x0, x1):
    """The edge e whose sector, between edges e and e + 1, holds the direction of x: cone_e × x ≥ 0 > cone_e+1 × x
    (x = 0: edge 0)."""
    edges = cone.shape[0]
    for e in range(edges):
        n = (e + 1) % edges
        if cone[e, 0] * x1 - cone[e, 1] * x0 >= 0.0 > cone[n, 0] * x1 - cone[n, 1] * x0:
            return e
    return 0
