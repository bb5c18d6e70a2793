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
γ_t = −v_t/h, v⁺ = v + h a⁺.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .lcp import pyramid_acceleration


@njit(cache=True, nogil=True)
def closing_velocity(K, a, v, h, N, T, vt, vn, mu, restitution, gaps, erp, bounce_velocity, cone, regularization,
                     tolerances, pivots_per_unknown, accepted, chosen, basic, v_new, target, gamma_n, gamma_t):
    """v_new (nv,) = v⁺ of the module docstring for n rows N (n, nv), tangent rows T (n, 2, nv), tangential and
    normal velocities vt (n, 2), vn (n,), friction μ (n,) (0: frictionless, a joint bound), restitution e (n,),
    gaps (n,) [m or rad], around the acceleration ``a`` (nv,) with the compliance K (nv, nv), step h [s].
    ``chosen`` (n,) bool: rows that take part from the start (in) and the rows that took part (out); ``basic``
    (n, edges + 2) bool: each row's LCP variables guessed basic (in: the previous step's, or all False) and the
    solution's (out) (:func:`~.lcp.pyramid_acceleration`); ``target``
    (n,), ``gamma_n`` (n,), ``gamma_t`` (n, 2): every row's target normal velocity and right-hand sides (out).
    False when Lemke's method finds no solution for the rows ``chosen`` (v_new then holds the last solved v⁺)."""
    n, nv = N.shape
    v_new[:] = v + h * a
    for i in range(n):
        target[i] = -gaps[i] / h if gaps[i] >= 0 else -erp * gaps[i] / h
        # Newton's restitution on arrival, for rows reaching their surface in this step
        goal = target[i]
        if restitution[i] > 0 and vn[i] < -bounce_velocity:
            goal = max(goal, -restitution[i] * vn[i])
        gamma_n[i] = (goal - vn[i]) / h
        gamma_t[i, 0], gamma_t[i, 1] = -vt[i, 0] / h, -vt[i, 1] / h
        chosen[i] = chosen[i] or gaps[i] <= 0 or _dot(N[i], v_new) < target[i]
    while True:
        rows = np.flatnonzero(chosen)
        m = rows.shape[0]
        if m == 0:
            return True
        N_k, T_k, mu_k, gn_k, gt_k = np.empty((m, nv)), np.empty((m, 2, nv)), np.empty(m), np.empty(m), np.empty((m, 2))
        basic_k = np.empty((m, basic.shape[1]), dtype=np.bool_)
        for r in range(m):
            i = rows[r]
            N_k[r], T_k[r], mu_k[r], gn_k[r], gt_k[r], basic_k[r] = N[i], T[i], mu[i], gamma_n[i], gamma_t[i], basic[i]
        a_new = np.empty(nv)
        if not pyramid_acceleration(K, a, N_k, T_k, mu_k, gn_k, gt_k, cone, regularization, tolerances,
                                    pivots_per_unknown, accepted, basic_k, a_new):
            return False
        for r in range(m):
            basic[rows[r]] = basic_k[r]
        v_new[:] = v + h * a_new
        late = False
        for i in range(n):  # rows the impulses close (an impact on a foot swinging a knee onto its stop)
            if not chosen[i] and _dot(N[i], v_new) < target[i] - 1e-12 * max(1.0, abs(target[i])):
                chosen[i], late = True, True
        if not late:
            return True


@njit(cache=True, nogil=True)
def _dot(x, y):
    total = 0.0
    for k in range(x.shape[0]):
        total += x[k] * y[k]
    return total
