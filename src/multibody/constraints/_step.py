"""The velocity update of the contact time step, compiled: which rows take an impulse, and the LCP they make.

Shared by the Python step (:func:`multibody.constraints.integrate.contact_step`) and the compiled loop
(:mod:`multibody.simulate._contact_kernel`), so that both choose the same rows and solve the same problem.

With the free velocity v + h a (a the equality-constrained acceleration) and, per row i (a contact's normal or a
joint bound's), its gap g_i, normal velocity v_n,i and normal N_i (n·v = N v), the target of the normal velocity
at the step's end is

    v_n,i⁺ ≥ −g_i / h  (g_i ≥ 0: at most to the surface; plastic),    v_n,i⁺ ≥ −erp g_i / h  (g_i < 0: out of it)

Rows take part that the free motion closes (N_i (v + h a) < target_i) or that touch (g_i ≤ 0), then any that the
impulses of the others close (N_i v⁺ below its target), re-solved until none is left out. A row reaching its
surface faster than ``bounce_velocity`` gets Newton's restitution, v_n,i⁺ ≥ −e_i v_n,i. The chosen rows make the
Stewart–Trinkle LCP of :func:`~.lcp.pyramid_acceleration` at the velocity level: γ_n = (goal − v_n)/h,
γ_t = −v_t/h, v⁺ = v + h a⁺, solved first in contact coordinates from the rows' last states
(:func:`~._contact_states.contact_acceleration`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dynamics._tree_factor import tree_factor, tree_solve
from ._contact_states import contact_acceleration
from .lcp import dot, product


@njit(cache=True, nogil=True)
def closing_velocity(K, lam, a, v, h, N, T, vt, vn, mu, restitution, gaps, erp, bounce_velocity, cone, regularization,
                     tolerances, pivots_per_unknown, accepted, chosen, basic, v_new, target, gamma_n, gamma_t):
    """v_new (nv,) = v⁺ of the module docstring for n rows N (n, nv), tangent rows T (n, 2, nv), tangential and
    normal velocities vt (n, 2), vn (n,), friction μ (n,) (0: frictionless, a joint bound), restitution e (n,),
    gaps (n,) [m or rad], around the acceleration ``a`` (nv,) with the compliance K (nv, nv), step h [s]; with
    ``lam`` (nv,) the tree's velocity parents (:func:`~..dynamics._tree_factor.dof_parents`), K holds instead the
    sparse factorization Lᵀ L of the compliance's inverse (:func:`~..dynamics._tree_factor.tree_factor`;
    ``lam`` empty: K dense) (:func:`compliance_columns`).
    ``chosen`` (n,) bool: rows that take part from the start (in) and the rows that took part (out); ``basic``
    (n, edges + 2) bool: each row's LCP variables guessed basic (in: the previous step's, or all False) and the
    solution's (out) (:func:`~._contact_states.contact_acceleration`); ``target``
    (n,), ``gamma_n`` (n,), ``gamma_t`` (n, 2): every row's target normal velocity and right-hand sides (out).
    False when Lemke's method finds no solution for the rows ``chosen`` (v_new then holds the last solved v⁺)."""
    n, nv = N.shape
    for j in range(nv):
        v_new[j] = v[j] + h * a[j]
    for i in range(n):
        target[i] = -gaps[i] / h if gaps[i] >= 0 else -erp * gaps[i] / h
        # Newton's restitution on arrival, for rows reaching their surface in this step
        goal = target[i]
        if restitution[i] > 0 and vn[i] < -bounce_velocity:
            goal = max(goal, -restitution[i] * vn[i])
        gamma_n[i] = (goal - vn[i]) / h
        gamma_t[i, 0], gamma_t[i, 1] = -vt[i, 0] / h, -vt[i, 1] / h
        chosen[i] = chosen[i] or gaps[i] <= 0 or dot(N[i], v_new) < target[i]
    if not chosen.any():  # (before the arrays below: most steps of a robot in flight)
        return True
    # the chosen rows' LCP data: B (P, nv) their normal rows, then the two tangent rows of each with μ > 0
    rows, B, C, a_new = np.empty(n, dtype=np.int64), np.empty((3 * n, nv)), np.empty((nv, 3 * n)), np.empty(nv)
    mu_k, gn_k, gt_k = np.empty(n), np.empty(n), np.empty((n, 2))
    basic_k = np.empty((n, basic.shape[1]), dtype=np.bool_)
    while True:
        m = 0
        for i in range(n):
            if chosen[i]:
                rows[m] = i
                m += 1
        if m == 0:
            return True
        P = m
        for r in range(m):
            i = rows[r]
            B[r], mu_k[r], gn_k[r], basic_k[r] = N[i], mu[i], gamma_n[i], basic[i]
            gt_k[r, 0], gt_k[r, 1] = gamma_t[i, 0], gamma_t[i, 1]
            if mu[i] > 0:
                B[P], B[P + 1] = T[i, 0], T[i, 1]
                P += 2
        compliance_columns(K, lam, B[:P], C[:, :P])
        if not contact_acceleration(B[:P], C[:, :P], a, m, mu_k[:m], gn_k[:m], gt_k[:m], cone, regularization,
                                    tolerances, pivots_per_unknown, accepted, basic_k[:m], a_new):
            return False
        for r in range(m):
            basic[rows[r]] = basic_k[r]
        for j in range(nv):
            v_new[j] = v[j] + h * a_new[j]
        late = False
        for i in range(n):  # rows the impulses close (an impact on a foot swinging a knee onto its stop)
            if not chosen[i] and dot(N[i], v_new) < target[i] - 1e-12 * max(1.0, abs(target[i])):
                chosen[i], late = True, True
        if not late:
            return True


@njit(cache=True, nogil=True)
def compliance_columns(K, lam, B, C):
    """C (nv, P) = K Bᵀ for the rows B (P, nv): with K dense (``lam`` empty) the product; with K = (Lᵀ L)⁻¹ held as
    its sparse factor L (``lam`` (nv,) the velocity parents: M + h D = Lᵀ L,
    :func:`~..dynamics._tree_factor.tree_factor`) the two sparse triangular solves of RBDA Table 6.4 on Bᵀ
    (:func:`~..dynamics._tree_factor.tree_solve`), O(nv d P) for a tree of depth d instead of K's O(nv² d) and the
    product's O(nv² P)."""
    P, nv = B.shape
    if lam.shape[0] == 0:
        product(K, B.T, C)
        return
    for j in range(nv):
        for p in range(P):
            C[j, p] = B[p, j]
    tree_solve(K, lam, np.full(nv, P - 1.0), C, 1.0)  # (Bᵀ dense: every column of every row)


@njit(cache=True, nogil=True)
def free_acceleration(M, lam, b, a):
    """a (nv,) = M⁻¹ b (nv,) by the sparse factorization M = Lᵀ L (:func:`~..dynamics._tree_factor.tree_factor`,
    RBDA Table 6.3; ``lam`` the velocity parents), M overwritten by its factor, and the two triangular solves of
    :func:`compliance_columns`: the free motion of the contact step with its joint dampers, (M + h D) a = τ − c, in the
    same arithmetic in the Python step and the compiled loop. False if M is not positive definite."""
    nv = b.shape[0]
    if not tree_factor(M, lam):
        return False
    compliance_columns(M, lam, b.reshape((1, nv)), a.reshape((nv, 1)))
    return True
