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

(a frictionless row: separating or, with its equality, sticking). Given the states, the forces solve one linear
system in contact coordinates, W x = −r on the rows that hold with equality (≤ 3 per sticking row, 1 per sliding
one), W = B K Bᵀ; if every row's inequalities then hold (to :data:`~.lcp.BASIS_TOLERANCE`), x gives a solution of
the same LCP (λ, the edge forces that sum to f, the sliding speed ζ = −cone_k · u) and is taken. Else the rows
that fail change state, all at once (block principal pivoting, Júdice & Pires 1994, in contact coordinates):
separating → sticking where N a − γ_n < 0, sticking or sliding → separating where λ < 0, sticking → sliding along
the edge nearest f where f leaves the pyramid, sliding → sticking where the slip turns (cone_k · u > 0), or onto
the edge that most opposes it; up to :data:`PASSES` solves. Failing that, the LCP itself is solved
(:func:`~.lcp.pyramid_forces`: the last basis, then Lemke's method), so every problem Lemke's method solves is still
solved.

The states are guessed from the last step's LCP basis (whose rows' normal forces, edge forces and sliding speeds
were basic), and returned in it: a sticking row's two edges around f, a sliding row's edge and sliding speed.
The regularization ε (:func:`~.lcp.pyramid_matrix`'s, ε = regularization × the LCP's mean diagonal) is added to
W's diagonal on the normal rows as in the LCP, and as ε/4 on a sticking row's tangent rows (the LCP's with all
its edge forces basic, Σ_e cone_e cone_eᵀ = (edges/2) I for edges ≥ 3): where the rows are redundant, the forces
they leave free are the regularized ones and the accelerations those of the LCP to the regularization's order.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .lcp import BASIS_TOLERANCE, _solve_in_place, dot, pyramid_forces, pyramid_rows

SEPARATING, STICKING = -2, -1  # a row's state; k ≥ 0: sliding with its friction along the pyramid's edge k
PASSES = 8  # linear solves in contact coordinates (each changing the states that fail) before the LCP is solved


@njit(cache=True, nogil=True)
def contact_acceleration(B, C, a_eq, nc, mu, gamma_n, gamma_t, cone, regularization, tolerances, pivots_per_unknown,
                         accepted, basic, a):
    """a = a_eq + C w of :func:`~.lcp.pyramid_acceleration`'s LCP (same arguments, ``basic`` the guess in and the
    solution's basis out), solved first in contact coordinates from the states ``basic`` gives
    (:func:`state_forces`), else by the LCP (:func:`~.lcp.pyramid_forces`); False (a untouched) when neither
    solves it."""
    P, nv = B.shape
    W, r, slot, w, state = np.empty((P, P)), np.empty(P), np.empty(nc, dtype=np.int64), np.empty(P), np.empty(nc, dtype=np.int64)
    pyramid_rows(B, C, a_eq, nc, mu, gamma_n, gamma_t, W, r, slot)
    guessed_states(basic, r, nc, slot, cone, state)
    if state_forces(W, r, nc, slot, mu, cone, regularization, BASIS_TOLERANCE, PASSES, state, w):
        state_basis(w, nc, slot, cone, state, basic)
    elif not pyramid_forces(W, r, nc, slot, mu, cone, regularization, tolerances, pivots_per_unknown, accepted, basic,
                            w):
        return False
    for j in range(nv):
        a[j] = a_eq[j] + dot(C[j], w)
    return True


@njit(cache=True, nogil=True)
def guessed_states(basic, r, nc, slot, cone, state):
    """state (nc,) of each row from an LCP basis ``basic`` (nc, edges + 2) (:func:`~.lcp.pyramid_acceleration`):
    its normal force not basic: separating, or sticking where the motion without forces closes it (r_n < 0); its
    sliding speed basic: sliding along its basic edge that most opposes the tangential residual r_t; else
    sticking."""
    edges = cone.shape[0]
    for i in range(nc):
        t = slot[i]
        state[i] = STICKING
        if not basic[i, 0]:
            state[i] = STICKING if r[i] < 0.0 else SEPARATING
        elif t >= 0 and basic[i, edges + 1]:
            best = np.inf
            for e in range(edges):
                along = cone[e, 0] * r[t] + cone[e, 1] * r[t + 1]
                if basic[i, 1 + e] and along < best:
                    best, state[i] = along, e


@njit(cache=True, nogil=True)
def state_basis(w, nc, slot, cone, state, basic):
    """The LCP basis ``basic`` (nc, edges + 2) of the states ``state`` (nc,) with forces w (:func:`state_forces`):
    a row's normal force basic unless it separates; a sticking row's two edges around its friction force f (the
    sector with cone_e × f ≥ 0 > cone_{e+1} × f; f = 0: edges 0 and 1), a sliding row's edge and sliding speed."""
    edges = cone.shape[0]
    basic[:, :] = False
    for i in range(nc):
        t = slot[i]
        basic[i, 0] = state[i] != SEPARATING
        if t < 0 or state[i] == SEPARATING:
            continue
        if state[i] >= 0:
            basic[i, 1 + state[i]], basic[i, edges + 1] = True, True
            continue
        k = 0
        for e in range(edges):
            n = (e + 1) % edges
            if cone[e, 0] * w[t + 1] - cone[e, 1] * w[t] >= 0.0 > cone[n, 0] * w[t + 1] - cone[n, 1] * w[t]:
                k = e
                break
        basic[i, 1 + k], basic[i, 1 + (k + 1) % edges] = True, True


@njit(cache=True, nogil=True)
def state_forces(W, r, nc, slot, mu, cone, regularization, tolerance, passes, state, w):
    """The forces w (P,) on the rows of W, r (:func:`~.lcp.pyramid_rows`) for the rows' states ``state`` (nc,), in
    place, changed where they fail (the module docstring) at most ``passes`` times; True when every row's
    conditions hold to ``tolerance`` (forces relative to max|force|, residuals to max(1, max|r|)), False when they
    do not after ``passes`` solves or a system is singular."""
    P, edges = W.shape[0], cone.shape[0]
    # the LCP's regularization: its mean diagonal, a sticking row's edge e giving cone_eᵀ W_tt cone_e
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
    largest_r = 1.0
    for p in range(P):
        largest_r = max(largest_r, abs(r[p]))
    # the unknowns: each one's force on row own[k] (and, sliding, μ cone_k on its tangent rows from slide[k]); its
    # equation: row own[k] of W x + r = 0
    own, slide, c0, c1 = np.empty(P, dtype=np.int64), np.empty(P, dtype=np.int64), np.empty(P), np.empty(P)
    u = np.empty(P)
    for _ in range(passes):
        k = 0
        for i in range(nc):
            if state[i] == SEPARATING:
                continue
            t = slot[i]
            own[k], slide[k] = i, -1
            if t >= 0 and state[i] >= 0:
                slide[k], c0[k], c1[k] = t, mu[i] * cone[state[i], 0], mu[i] * cone[state[i], 1]
            elif t >= 0:
                own[k + 1], own[k + 2], slide[k + 1], slide[k + 2] = t, t + 1, -1, -1
                k += 2
            k += 1
        A, y = np.empty((k, k)), np.empty(k)
        for e in range(k):
            y[e] = -r[own[e]]
            for j in range(k):
                A[e, j] = W[own[e], own[j]]
                if slide[j] >= 0:
                    A[e, j] += c0[j] * W[own[e], slide[j]] + c1[j] * W[own[e], slide[j] + 1]
            A[e, e] += epsilon if own[e] < nc else 0.25 * epsilon
        if not _solve_in_place(A, y):
            return False
        # w = the forces, u = W w + r the residuals
        w[:] = 0.0
        largest_f = 0.0
        for j in range(k):
            w[own[j]] += y[j]
            if slide[j] >= 0:
                w[slide[j]] += c0[j] * y[j]
                w[slide[j] + 1] += c1[j] * y[j]
            largest_f = max(largest_f, abs(y[j]))
        u[:] = r
        for q in range(P):
            if w[q] != 0.0:
                for p in range(P):
                    u[p] += W[p, q] * w[q]
        if not changed_states(w, u, nc, slot, mu, cone, tolerance * largest_f, tolerance * largest_r, state):
            return True
    return False


@njit(cache=True, nogil=True)
def changed_states(w, u, nc, slot, mu, cone, force_tolerance, residual_tolerance, state):
    """Each row's conditions (the module docstring) checked on its forces w and residuals u = W w + r, and its
    ``state`` changed where they fail; True when any changed."""
    edges = cone.shape[0]
    changed = False
    for i in range(nc):
        t, previous = slot[i], state[i]
        if state[i] == SEPARATING:
            if u[i] < -residual_tolerance:
                state[i] = STICKING
        elif w[i] < -force_tolerance:
            state[i] = SEPARATING
        elif t >= 0 and state[i] == STICKING:
            # f inside the pyramid of vertices μ λ cone_e: left of each side, (cone_e+1 − cone_e) × (f − μ λ cone_e) ≥ 0
            limit = mu[i] * w[i]
            for e in range(edges):
                n = (e + 1) % edges
                side = ((cone[n, 0] - cone[e, 0]) * (w[t + 1] - limit * cone[e, 1])
                        - (cone[n, 1] - cone[e, 1]) * (w[t] - limit * cone[e, 0]))
                if side < -force_tolerance:
                    state[i] = nearest_edge(cone, w[t], w[t + 1], 1.0)
                    break
        elif t >= 0:
            # sliding along edge k: the slip u_t opposes cone_k (ζ = −cone_k · u_t ≥ 0), no edge opposing it more
            along = cone[state[i], 0] * u[t] + cone[state[i], 1] * u[t + 1]
            if along > residual_tolerance:
                state[i] = STICKING
            else:
                e = nearest_edge(cone, u[t], u[t + 1], -1.0)
                if cone[e, 0] * u[t] + cone[e, 1] * u[t + 1] < along - residual_tolerance:
                    state[i] = e
        changed = changed or state[i] != previous
    return changed


@njit(cache=True, nogil=True)
def nearest_edge(cone, x0, x1, sign):
    """The edge e maximizing sign · cone_e · x: the pyramid's vertex nearest the direction of ±x."""
    best, k = -np.inf, 0
    for e in range(cone.shape[0]):
        along = sign * (cone[e, 0] * x0 + cone[e, 1] * x1)
        if along > best:
            best, k = along, e
    return k
