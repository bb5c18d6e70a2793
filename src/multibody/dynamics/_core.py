"""Compiled numeric core: Featherstone's recursive algorithms on the flat model (numba, ``cache=True``).

See :mod:`multibody.dynamics._spatial_kernels` for the model layout and the building blocks. Each algorithm
takes the model arrays (``topology``, ``params``, ``gravity``), the state, and writes its output array; it
returns True when the output is finite (the NaN guard the public wrappers act on). Per-body work arrays are
separate arrays on each call's stack without reference counts (:func:`~._spatial_kernels.work`; rnea, crba and
aba compile with ``_nrt=False``): a heap allocation costs ~40 ns, and a measured variant that carved them from
one reused scratch array ran 5–10 % slower (the compiler can no longer tell the arrays apart).
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
from typing import Any

import numpy as np
from numba import njit, prange

from ..model.joints import REVOLUTE
from ._spatial_kernels import njit_without_refcounts
from ._spatial_kernels import (F_ARMATURE, F_MASS, F_S, F_ZAXES, F_ZCENTRAL, F_ZCOM, F_ZINERTIA, F_ZPTREE, F_ZRTREE,
                               IQ, IV, JTYPE, NQJ, NSYM, NVJ, PARENT, SYM_A, SYM_B, SYM_C, all_finite, cross_force,
                               cross_motion, force_to_parent, inline, joint_pose, motion_to_child,
                               rigid_inertia_times, rotated, rotation_product, row6, subspace_column_in_world_axes,
                               subspace_times, sines_cosines, symmetric_add_shifted, symmetric_subtract,
                               symmetric_times, unpacked, release, work)

# Status of the single-state entry points (rnea_one, aba_one, crba_one).
OK, NONFINITE, WRONG_SIZE, STRIDED = 0, 1, 2, 3


@njit_without_refcounts(cache=True, fastmath={"contract"})  # (no reference counts: see work)
def rnea(topology, params, gravity, q, v, a, f_ext, tau):
    """Recursive Newton–Euler inverse dynamics, τ = M(q) a + c(q, v) − Σ Jᵀ f_ext (RBDA Table 5.1), M including
    the joint armature (τ_k += armature_k a_k).

    Gravity enters as the fictitious base acceleration a_0 = [0; −g]. f_ext (n × 6, or 0 × 6 for none):
    external spatial force on each body, body axes, about the body origin. Writes tau (nv). Worked in the bodies'
    axis frames (:func:`~._spatial_kernels.axis_frames`), where a revolute joint's motion subspace is e_z
    (v_J = q̇ e_z, τ = f_z) and its rotation R_z(θ); products may be fused (FMA, ``contract``).
    Returns True if every entry of tau is finite.
    """
    n = topology.shape[0]
    R = work((n, 3, 3))   # pose of each axis frame in its parent's
    p = work((n, 3))
    V = work((n + 1, 6))  # row −1: the world
    A = work((n + 1, 6))
    F = work((n + 1, 6))  # (row −1 collects the forces on the world, unused)
    SC = work((2, q.shape[0]))  # sin and cos of each entry of q (those of revolute joints are used)
    sines_cosines(q, SC)
    V[-1] = 0.0
    A[-1, :3] = 0.0
    for r in range(3):
        A[-1, 3 + r] = -gravity[r]
    for i in range(n):
        lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
        Ri, pi = axis_frame_placement(topology, params, i, q, SC)
        for r in range(3):
            p[i, r] = pi[r]
            for c in range(3):
                R[i, r, c] = Ri[3 * r + c]
        # S q̇ and S q̈
        if topology[i, JTYPE] == REVOLUTE:
            vJ, aJ = (0.0, 0.0, v[iv], 0.0, 0.0, 0.0), (0.0, 0.0, a[iv], 0.0, 0.0, 0.0)
        else:
            vJ, aJ = subspace_times(params, i, nvj, v, iv), subspace_times(params, i, nvj, a, iv)
        # v_i = X_i v_λ + S q̇
        motion_to_child(R, p, i, V, lam, V, i)
        for r in range(6):
            V[i, r] += vJ[r]
        vi = row6(V, i)
        # a_i = X_i a_λ + S q̈ + v_i ×m S q̇
        motion_to_child(R, p, i, A, lam, A, i)
        c = cross_motion(vi, vJ)
        for r in range(6):
            A[i, r] += aJ[r] + c[r]
        # f_i = I_i a_i + v_i ×* I_i v_i − f_ext,i  (f_ext,i turned from body to axis-frame axes)
        Ia, b = axis_inertia_times(params, i, row6(A, i)), cross_force(vi, axis_inertia_times(params, i, vi))
        for r in range(6):
            F[i, r] = Ia[r] + b[r]
        if f_ext.shape[0] > 0:
            Q = (params[i, F_ZAXES], params[i, F_ZAXES + 1], params[i, F_ZAXES + 2], params[i, F_ZAXES + 3],
                 params[i, F_ZAXES + 4], params[i, F_ZAXES + 5], params[i, F_ZAXES + 6], params[i, F_ZAXES + 7],
                 params[i, F_ZAXES + 8])
            for r in range(3):
                F[i, r] -= Q[r] * f_ext[i, 0] + Q[3 + r] * f_ext[i, 1] + Q[6 + r] * f_ext[i, 2]
                F[i, 3 + r] -= Q[r] * f_ext[i, 3] + Q[3 + r] * f_ext[i, 4] + Q[6 + r] * f_ext[i, 5]
    finite = True
    for i in range(n - 1, -1, -1):
        # τ_i = S_iᵀ f_i + armature_i q̈_i ;  f_λ += X_iᵀ f_i
        nvj, iv = topology[i, NVJ], topology[i, IV]
        for c in range(nvj):
            if topology[i, JTYPE] == REVOLUTE:  # S = e_z
                acc = F[i, 2] + params[i, F_ARMATURE] * a[iv]
            else:
                acc = params[i, F_ARMATURE + c] * a[iv + c]
                for r in range(6):
                    acc += params[i, F_S + 6 * r + c] * F[i, r]
            tau[iv + c] = acc
            finite &= np.abs(acc) < np.inf
        force_to_parent(R, p, i, row6(F, i), F, topology[i, PARENT])
    release((R, p, V, A, F, SC))
    return finite


@inline
def axis_inertia_times(params, i, m):
    """I_i m for body i's spatial inertia (about its origin, axis-frame axes) and a motion vector m (6-tuple)."""
    mass = params[i, F_MASS]
    return rigid_inertia_times(mass, mass * params[i, F_ZCOM], mass * params[i, F_ZCOM + 1],
                               mass * params[i, F_ZCOM + 2], params[i, F_ZINERTIA], params[i, F_ZINERTIA + 1],
                               params[i, F_ZINERTIA + 2], params[i, F_ZINERTIA + 3], params[i, F_ZINERTIA + 4],
                               params[i, F_ZINERTIA + 5], m[0], m[1], m[2], m[3], m[4], m[5])


@inline
def cross(a, b):
    """a × b for 3-tuples."""
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@inline
def rotation_times(R, x, y, z):
    """R (x, y, z) for a rotation R given as a row-major 9-tuple, as a 3-tuple."""
    return R[0] * x + R[1] * y + R[2] * z, R[3] * x + R[4] * y + R[5] * z, R[6] * x + R[7] * y + R[8] * z


@inline
def axis_frame_placement(topology, params, i, q, SC):
    """Pose of body i's axis frame (:func:`~._spatial_kernels.axis_frames`) in its parent's: R_i = T R_J,
    p_i = t + T p_J, with (T, t) the placement between the two axis frames and (R_J, p_J) the joint pose
    (:func:`joint_pose`), for a revolute joint R_z(θ) and 0, with sin θ and cos θ from SC (sines and cosines of the
    entries of q, :func:`~._spatial_kernels.sines_cosines`). Returns R_i (row-major 9-tuple) and p_i (3-tuple)."""
    jtype, iq = topology[i, JTYPE], topology[i, IQ]
    T = (params[i, F_ZRTREE], params[i, F_ZRTREE + 1], params[i, F_ZRTREE + 2], params[i, F_ZRTREE + 3],
         params[i, F_ZRTREE + 4], params[i, F_ZRTREE + 5], params[i, F_ZRTREE + 6], params[i, F_ZRTREE + 7],
         params[i, F_ZRTREE + 8])
    t = (params[i, F_ZPTREE], params[i, F_ZPTREE + 1], params[i, F_ZPTREE + 2])
    if jtype == REVOLUTE:  # T R_z(θ): columns (c T_x + s T_y, c T_y − s T_x, T_z)
        sn, cs = SC[0, iq], SC[1, iq]
        return (cs * T[0] + sn * T[1], cs * T[1] - sn * T[0], T[2], cs * T[3] + sn * T[4], cs * T[4] - sn * T[3], T[5],
                cs * T[6] + sn * T[7], cs * T[7] - sn * T[6], T[8]), t
    RJ, pJ = joint_pose(jtype, params, i, q, iq)
    TpJ = rotation_times(T, pJ[0], pJ[1], pJ[2])
    return rotation_product(T, RJ), (t[0] + TpJ[0], t[1] + TpJ[1], t[2] + TpJ[2])


@inline
def axis_frame_pose(topology, params, i, q, R0, p0, SC):
    """World pose of body i's axis frame from its parent's (row −1: the world), R0_i = R0_λ R_i and
    p0_i = p0_λ + R0_λ p_i (:func:`axis_frame_placement`), as a row-major 9-tuple and a 3-tuple."""
    lam = topology[i, PARENT]
    P = (R0[lam, 0, 0], R0[lam, 0, 1], R0[lam, 0, 2], R0[lam, 1, 0], R0[lam, 1, 1], R0[lam, 1, 2], R0[lam, 2, 0],
         R0[lam, 2, 1], R0[lam, 2, 2])
    R, p = axis_frame_placement(topology, params, i, q, SC)
    Pp = rotation_times(P, p[0], p[1], p[2])
    return rotation_product(P, R), (p0[lam, 0] + Pp[0], p0[lam, 1] + Pp[1], p0[lam, 2] + Pp[2])


@inline
def world_frame_row(R0, p0):
    """Row −1 of the world poses of :func:`axis_frame_pose`: the world itself, R0 = 1 and p0 = 0."""
    for r in range(3):
        p0[-1, r] = 0.0
        for c in range(3):
            R0[-1, r, c] = 1.0 if r == c else 0.0


@inline
def inertia_about_world_origin(params, i, R, p, Y, k):
    """Y[k] = (m, h, I): body i's rigid-body inertia about the world origin in world axes, compactly: mass m,
    first moment h = m c (c the mass center), rotational inertia I = R Ī Rᵀ + m [c]×ᵀ[c]× stored as
    (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) (parallel axes, RBDA eq. 2.63); R, p the world pose of its axis frame, in which
    Ī (the central inertia) and the mass center are stored (:func:`~._spatial_kernels.axis_frames`)."""
    m = params[i, F_MASS]
    I = rotated((params[i, F_ZCENTRAL], params[i, F_ZCENTRAL + 3], params[i, F_ZCENTRAL + 4],
                 params[i, F_ZCENTRAL + 3], params[i, F_ZCENTRAL + 1], params[i, F_ZCENTRAL + 5],
                 params[i, F_ZCENTRAL + 4], params[i, F_ZCENTRAL + 5], params[i, F_ZCENTRAL + 2]), R)
    # c = p + R c_b
    cb0, cb1, cb2 = params[i, F_ZCOM], params[i, F_ZCOM + 1], params[i, F_ZCOM + 2]
    c0 = p[0] + R[0] * cb0 + R[1] * cb1 + R[2] * cb2
    c1 = p[1] + R[3] * cb0 + R[4] * cb1 + R[5] * cb2
    c2 = p[2] + R[6] * cb0 + R[7] * cb1 + R[8] * cb2
    cc = c0 * c0 + c1 * c1 + c2 * c2
    Y[k, 0], Y[k, 1], Y[k, 2], Y[k, 3] = m, m * c0, m * c1, m * c2
    Y[k, 4], Y[k, 5], Y[k, 6] = I[0] + m * (cc - c0 * c0), I[4] + m * (cc - c1 * c1), I[8] + m * (cc - c2 * c2)
    Y[k, 7], Y[k, 8], Y[k, 9] = I[1] - m * c0 * c1, I[2] - m * c0 * c2, I[5] - m * c1 * c2


@njit_without_refcounts(cache=True, fastmath={"contract"})  # (no reference counts: see work)
def crba(topology, params, q, M):
    """Composite-rigid-body algorithm: the joint-space inertia matrix M(q) (nv × nv) (RBDA Table 6.2).

    Worked in world coordinates (as Pinocchio does), so that neither the composite inertias nor the ancestor
    walk need transforms: Y^c_λ += Y^c_i (each kept about the world origin as (m, h, I), see
    :func:`inertia_about_world_origin`), F = Y^c_i s_i, and M_ji = s_jᵀ F for j = i and every ancestor, with s
    the motion-subspace columns in world coordinates. Body poses are those of the axis frames
    (:func:`axis_frame_pose`: a revolute joint's rotation and world axis cost least there); products may be
    fused (FMA, ``contract``). Returns True if every entry of M is finite (each checked where it is computed).
    """
    n, nv = topology.shape[0], M.shape[0]
    R0 = work((n + 1, 3, 3))       # world rotations of the axis frames; row −1: the world
    p0 = work((n + 1, 3))
    Y = work((n, 10))              # composite inertias (m, h, I), world axes, about the world origin
    s = work((nv, 6))              # s[iv + k]: column k of body i's motion subspace, world coordinates
    SC = work((2, q.shape[0]))     # sin and cos of each entry of q (those of revolute joints are used)
    sines_cosines(q, SC)
    world_frame_row(R0, p0)
    for i in range(n):
        R, p = axis_frame_pose(topology, params, i, q, R0, p0, SC)
        for r in range(3):
            p0[i, r] = p[r]
            for c in range(3):
                R0[i, r, c] = R[3 * r + c]
        inertia_about_world_origin(params, i, R, p, Y, i)
        # s = [ω; p0 × ω + v], with [ω; v] = R0 S (for a revolute joint, ω = R0 e_z and v = 0)
        iv = topology[i, IV]
        if topology[i, JTYPE] == REVOLUTE:
            axis = (R[2], R[5], R[8])
            s[iv, 0], s[iv, 1], s[iv, 2] = axis
            s[iv, 3], s[iv, 4], s[iv, 5] = cross(p, axis)
            continue
        for k in range(topology[i, NVJ]):
            w = rotation_times(R, params[i, F_S + k], params[i, F_S + 6 + k], params[i, F_S + 12 + k])
            v = rotation_times(R, params[i, F_S + 18 + k], params[i, F_S + 24 + k], params[i, F_S + 30 + k])
            pw = cross(p, w)
            s[iv + k, 0], s[iv + k, 1], s[iv + k, 2] = w
            s[iv + k, 3], s[iv + k, 4], s[iv + k, 5] = v[0] + pw[0], v[1] + pw[1], v[2] + pw[2]
    M[:, :] = 0.0
    finite = True
    for i in range(n - 1, -1, -1):
        lam = topology[i, PARENT]
        if lam >= 0:  # Y^c_λ += Y^c_i
            for r in range(10):
                Y[lam, r] += Y[i, r]
        nvi, ivi = topology[i, NVJ], topology[i, IV]
        for k in range(nvi):
            # F = Y^c_i s_i ;  M_ji = s_jᵀ F for j = i and every ancestor of i
            F = rigid_inertia_times(Y[i, 0], Y[i, 1], Y[i, 2], Y[i, 3], Y[i, 4], Y[i, 5], Y[i, 6], Y[i, 7], Y[i, 8],
                                    Y[i, 9], s[ivi + k, 0], s[ivi + k, 1], s[ivi + k, 2], s[ivi + k, 3],
                                    s[ivi + k, 4], s[ivi + k, 5])
            j = i
            while j >= 0:
                ivj = topology[j, IV]
                for m in range(topology[j, NVJ]):
                    Mji = dot6(row6(s, ivj + m), F)
                    M[ivj + m, ivi + k] = Mji
                    M[ivi + k, ivj + m] = Mji
                    finite &= np.abs(Mji) < np.inf
                j = topology[j, PARENT]
            # M_ii += armature_i
            M[ivi + k, ivi + k] += params[i, F_ARMATURE + k]
            finite &= np.abs(M[ivi + k, ivi + k]) < np.inf
    release((R0, p0, Y, s, SC))
    return finite


@njit_without_refcounts(cache=True)
def _invert_spd(D, k, Dinv, i):
    """Dinv[i] = D⁻¹ for a small symmetric positive-definite k×k block D (Cholesky; scalar fast path)."""
    if k == 1:
        Dinv[i, 0, 0] = 1.0 / D[0, 0]
        return
    L = work((k, k))  # (the lower triangle, each entry written before it is read)
    for j in range(k):
        s = D[j, j]
        for m in range(j):
            s -= L[j, m] * L[j, m]
        L[j, j] = np.sqrt(s)
        for r in range(j + 1, k):
            s = D[r, j]
            for m in range(j):
                s -= L[r, m] * L[j, m]
            L[r, j] = s / L[j, j]
    y = work((k,))
    for c in range(k):  # solve L Lᵀ x = e_c
        for r in range(k):
            s = 1.0 if r == c else 0.0
            for m in range(r):
                s -= L[r, m] * y[m]
            y[r] = s / L[r, r]
        for r in range(k - 1, -1, -1):
            s = y[r]
            for m in range(r + 1, k):
                s -= L[m, r] * Dinv[i, m, c]
            Dinv[i, r, c] = s / L[r, r]


@inline
def dot6(x, y):
    """xᵀ y for 6-tuples (a force on a motion: power)."""
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5]


@inline
def translated(m, dx, dy, dz):
    """X_d m = [ω; v + ω × d]: the motion m = [ω; v] (6-tuple) with its reference point moved by d, axes unchanged
    (RBDA eq. 2.24 with E = 1)."""
    return m[0], m[1], m[2], m[3] + m[1] * dz - m[2] * dy, m[4] + m[2] * dx - m[0] * dz, m[5] + m[0] * dy - m[1] * dx


@inline
def articulate(params, i, nvj, iv, tau, s, IA, PA, C, U, u, D, Dinv):
    """Pass 2 of the ABA at body i (RBDA Table 7.1), in world axes (:func:`aba`): from its articulated
    inertia I^A and bias force p^A, the quantities of its joint, U = I^A s, D⁻¹ (D = sᵀ U) and u = τ − sᵀ p^A, and
    in place of I^A and p^A what it hands to its parent, I^a and p^a. D: a (6, 6) work array."""
    # U = I^A s ;  D = sᵀ U + diag(armature) ;  u = τ − sᵀ p^A
    for k in range(nvj):
        Uk = symmetric_times(IA, i, row6(s, iv + k))
        for r in range(6):
            U[iv + k, r] = Uk[r]
        u[iv + k] = tau[iv + k] - dot6(row6(s, iv + k), row6(PA, i))
        for m in range(nvj):
            D[m, k] = dot6(row6(s, iv + m), Uk)
        D[k, k] += params[i, F_ARMATURE + k]
    _invert_spd(D, nvj, Dinv, i)
    # p^a = p^A + I^a c + U D⁻¹ u = p^A + I^A c + U D⁻¹ (u − Uᵀ c) ;  I^a = I^A − U D⁻¹ Uᵀ
    Ic = symmetric_times(IA, i, row6(C, i))
    for k in range(nvj):
        w = 0.0
        y0 = y1 = y2 = y3 = y4 = y5 = 0.0
        for m in range(nvj):
            dkm = Dinv[i, k, m]
            w += dkm * (u[iv + m] - dot6(row6(U, iv + m), row6(C, i)))
            y0, y1, y2 = y0 + dkm * U[iv + m, 0], y1 + dkm * U[iv + m, 1], y2 + dkm * U[iv + m, 2]
            y3, y4, y5 = y3 + dkm * U[iv + m, 3], y4 + dkm * U[iv + m, 4], y5 + dkm * U[iv + m, 5]
        symmetric_subtract(IA, i, row6(U, iv + k), (y0, y1, y2, y3, y4, y5))
        for r in range(6):
            PA[i, r] += U[iv + k, r] * w
    for r in range(6):
        PA[i, r] += Ic[r]


@inline
def symmetric_times_angular(S, i, w0, w1, w2):
    """S[i] [ω; 0] = [A ω; Bᵀ ω] for a symmetric 6×6 matrix S[i] = [[A, B], [Bᵀ, C]] in 21-entry storage
    (:func:`symmetric_times`) and a motion with no linear part, as a 6-tuple."""
    return (S[i, 0] * w0 + S[i, 3] * w1 + S[i, 4] * w2, S[i, 3] * w0 + S[i, 1] * w1 + S[i, 5] * w2,
            S[i, 4] * w0 + S[i, 5] * w1 + S[i, 2] * w2, S[i, 6] * w0 + S[i, 9] * w1 + S[i, 12] * w2,
            S[i, 7] * w0 + S[i, 10] * w1 + S[i, 13] * w2, S[i, 8] * w0 + S[i, 11] * w1 + S[i, 14] * w2)


@inline
def articulate_single_dof(params, i, iv, revolute, tau, s, IA, PA, C):
    """:func:`articulate` for a joint with one degree of freedom (motion subspace a single column s), its steps
    fused with the intermediate values in registers: U = I^A s ;  d = sᵀ U + armature ;  u = τ − sᵀ p^A ;
    p^a = p^A + I^A c + U (u − Uᵀ c) / d ;  I^a = I^A − U Uᵀ / d. A ``revolute`` joint's s = [ω; 0] (world axes at
    the body origin, which lies on the axis) takes the products with its angular half alone. Returns (U, d⁻¹,
    (u − Uᵀ c) / d) for pass 3."""
    si, ci = row6(s, iv), row6(C, i)
    if revolute:  # U = [A ω; Bᵀ ω] ;  sᵀ x = ω · x_ω
        Ui = symmetric_times_angular(IA, i, si[0], si[1], si[2])
        sU = si[0] * Ui[0] + si[1] * Ui[1] + si[2] * Ui[2]
        sp = si[0] * PA[i, 0] + si[1] * PA[i, 1] + si[2] * PA[i, 2]
    else:
        Ui = symmetric_times(IA, i, si)
        sU, sp = dot6(si, Ui), dot6(si, row6(PA, i))
    Ic = symmetric_times(IA, i, ci)
    dinv = 1.0 / (sU + params[i, F_ARMATURE])
    w = (tau[iv] - sp - dot6(Ui, ci)) * dinv
    for r in range(6):
        PA[i, r] += Ic[r] + Ui[r] * w
    symmetric_subtract(IA, i, Ui, (Ui[0] * dinv, Ui[1] * dinv, Ui[2] * dinv, Ui[3] * dinv, Ui[4] * dinv,
                                   Ui[5] * dinv))
    return Ui, dinv, w


@inline
def rigid_inertia_in_world_axes(params, i, R, IA, k):
    """IA[k] = body i's spatial inertia about its origin in world axes, in 21-entry storage (:func:`symmetric_times`):
    [[R I_O Rᵀ, [h]×], [[h]×ᵀ, m 1]] with R the world rotation of its axis frame (row-major 9-tuple), I_O the
    rotational inertia about the body origin and c the mass center in axis-frame axes
    (:func:`~._spatial_kernels.axis_frames`), h = m R c the first moment (RBDA eqs. 2.63, 2.66 with p = 0).
    Returns the same inertia compactly, (m, h, I) as :func:`rigid_inertia_times` takes it."""
    m = params[i, F_MASS]
    I = rotated((params[i, F_ZINERTIA], params[i, F_ZINERTIA + 3], params[i, F_ZINERTIA + 4],
                 params[i, F_ZINERTIA + 3], params[i, F_ZINERTIA + 1], params[i, F_ZINERTIA + 5],
                 params[i, F_ZINERTIA + 4], params[i, F_ZINERTIA + 5], params[i, F_ZINERTIA + 2]), R)
    hx, hy, hz = rotation_times(R, m * params[i, F_ZCOM], m * params[i, F_ZCOM + 1], m * params[i, F_ZCOM + 2])
    IA[k, SYM_A], IA[k, SYM_A + 1], IA[k, SYM_A + 2] = I[0], I[4], I[8]
    IA[k, SYM_A + 3], IA[k, SYM_A + 4], IA[k, SYM_A + 5] = I[1], I[2], I[5]
    IA[k, SYM_B], IA[k, SYM_B + 1], IA[k, SYM_B + 2] = 0.0, -hz, hy
    IA[k, SYM_B + 3], IA[k, SYM_B + 4], IA[k, SYM_B + 5] = hz, 0.0, -hx
    IA[k, SYM_B + 6], IA[k, SYM_B + 7], IA[k, SYM_B + 8] = -hy, hx, 0.0
    IA[k, SYM_C], IA[k, SYM_C + 1], IA[k, SYM_C + 2] = m, m, m
    IA[k, SYM_C + 3], IA[k, SYM_C + 4], IA[k, SYM_C + 5] = 0.0, 0.0, 0.0
    return m, hx, hy, hz, I[0], I[4], I[8], I[1], I[2], I[5]


@njit_without_refcounts(cache=True, fastmath={"contract"})  # (no reference counts: see work)
def aba(topology, params, gravity, q, v, tau, f_ext, qdd):
    """Articulated-body algorithm, forward dynamics q̈ = M⁻¹(τ − c + Σ Jᵀ f_ext) in O(n) (RBDA Table 7.1).

    Worked in world axes about each body's own origin (Pinocchio's "local world-aligned" frames): the transform
    X_i from parent to body coordinates is then the translation by d_i = p0_i − p0_λ alone, which makes the
    articulated-inertia congruence X_iᵀ I^a X_i, the costliest step in body axes, a third as much work; each body's
    rigid inertia and motion subspace are rotated to world axes once per call instead. (Working about the world
    origin would drop the translation too, as fast, but loses digits: a body's own inertia is then the small
    difference of terms ~ m |p0|². On the 5000 rad/s spinning last link of a 2 m chain its accelerations were 2e-7
    off the body-axes ABA's, these 3e-9, and Pinocchio's 3e-11.) Body rotations are those of the axis frames
    (:func:`axis_frame_pose`), where a revolute joint's rotation is R_z(θ) and its world axis s the third column
    of the frame's world rotation. The velocity-product acceleration keeps its form c_i = v_i ×m s_i q̇_i.
    Articulated inertias are symmetric and stored as 21 entries (:func:`symmetric_times`). Products may be fused
    (FMA, ``contract``).

    Same gravity and f_ext conventions as :func:`rnea`. Writes qdd (nv).
    """
    n, nv = topology.shape[0], qdd.shape[0]
    R0 = work((n + 1, 3, 3))   # world rotations of the axis frames; row −1: the world
    p0 = work((n + 1, 3))      # body origins in world coordinates; row −1: the world origin
    s = work((nv, 6))          # s[iv + k]: column k of body i's motion subspace
    V = work((n + 1, 6))       # body velocities; row −1: the world
    C = work((n, 6))           # velocity-product accelerations c_i = v_i ×m s_i q̇_i
    IA = work((n + 1, NSYM))   # articulated-body inertias (row −1 collects the world's, unused)
    PA = work((n + 1, 6))      # articulated-body bias forces
    U = work((nv, 6))          # U[iv + k] = I^A_i s[iv + k] (joints of several degrees of freedom)
    G = work((n, 7))           # one-dof joints: d⁻¹ X_iᵀ U and d⁻¹ (u − Uᵀ c) (pass 2, for pass 3)
    Dinv = work((n, 6, 6))
    D = work((6, 6))
    u = work((nv,))
    SC = work((2, q.shape[0]))  # sin and cos of each entry of q (those of revolute joints are used)
    sines_cosines(q, SC)
    world_frame_row(R0, p0)
    V[-1] = 0.0
    # pass 1: poses, velocities, bias accelerations and bias forces, root to leaves
    for i in range(n):
        lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
        R, p = axis_frame_pose(topology, params, i, q, R0, p0, SC)
        for r in range(3):
            p0[i, r] = p[r]
            for c in range(3):
                R0[i, r, c] = R[3 * r + c]
        # v_i = X_i v_λ + s_i q̇_i  (X_i: the translation by d_i = p0_i − p0_λ; a revolute joint's s = [R e_z; 0])
        if topology[i, JTYPE] == REVOLUTE:
            qd = v[iv]
            vJ = (R[2] * qd, R[5] * qd, R[8] * qd, 0.0, 0.0, 0.0)
            s[iv, 0], s[iv, 1], s[iv, 2], s[iv, 3], s[iv, 4], s[iv, 5] = R[2], R[5], R[8], 0.0, 0.0, 0.0
        else:
            vJ = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
            for k in range(nvj):
                sk = subspace_column_in_world_axes(params, i, k, R0)
                qd = v[iv + k]
                vJ = (vJ[0] + sk[0] * qd, vJ[1] + sk[1] * qd, vJ[2] + sk[2] * qd, vJ[3] + sk[3] * qd,
                      vJ[4] + sk[4] * qd, vJ[5] + sk[5] * qd)
                for r in range(6):
                    s[iv + k, r] = sk[r]
        vi = translated(row6(V, lam), p[0] - p0[lam, 0], p[1] - p0[lam, 1], p[2] - p0[lam, 2])
        vi = (vi[0] + vJ[0], vi[1] + vJ[1], vi[2] + vJ[2], vi[3] + vJ[3], vi[4] + vJ[4], vi[5] + vJ[5])
        # c_i = v_i ×m s_i q̇_i ;  I^A_i = I_i ;  p^A_i = v_i ×* I_i v_i − f_ext,i
        Y = rigid_inertia_in_world_axes(params, i, R, IA, i)
        c = cross_motion(vi, vJ)
        b = cross_force(vi, rigid_inertia_times(Y[0], Y[1], Y[2], Y[3], Y[4], Y[5], Y[6], Y[7], Y[8], Y[9],
                                                vi[0], vi[1], vi[2], vi[3], vi[4], vi[5]))
        for r in range(6):
            V[i, r] = vi[r]
            C[i, r] = c[r]
            PA[i, r] = b[r]
        if f_ext.shape[0] > 0:  # f_ext,i from body-i axes to world axes: R Qᵀ f (Q the axis frame's axes)
            Q = (params[i, F_ZAXES], params[i, F_ZAXES + 1], params[i, F_ZAXES + 2], params[i, F_ZAXES + 3],
                 params[i, F_ZAXES + 4], params[i, F_ZAXES + 5], params[i, F_ZAXES + 6], params[i, F_ZAXES + 7],
                 params[i, F_ZAXES + 8])
            for o in (0, 3):
                f = rotation_times(R, Q[0] * f_ext[i, o] + Q[3] * f_ext[i, o + 1] + Q[6] * f_ext[i, o + 2],
                                   Q[1] * f_ext[i, o] + Q[4] * f_ext[i, o + 1] + Q[7] * f_ext[i, o + 2],
                                   Q[2] * f_ext[i, o] + Q[5] * f_ext[i, o + 1] + Q[8] * f_ext[i, o + 2])
                for r in range(3):
                    PA[i, o + r] -= f[r]
    # pass 2: articulated inertias, leaves to root (I^a, p^a in place of I^A_i, p^A_i)
    for i in range(n - 1, -1, -1):
        nvj, iv, lam = topology[i, NVJ], topology[i, IV], topology[i, PARENT]
        dx, dy, dz = p0[i, 0] - p0[lam, 0], p0[i, 1] - p0[lam, 1], p0[i, 2] - p0[lam, 2]
        if nvj == 1:
            revolute = topology[i, JTYPE] == REVOLUTE
            Ui, dinv, w = articulate_single_dof(params, i, iv, revolute, tau, s, IA, PA, C)
            # for pass 3: G = d⁻¹ X_iᵀ U (U as a force moved to the parent's origin), w = d⁻¹ (u − Uᵀ c)
            G[i, 0] = dinv * (Ui[0] + dy * Ui[5] - dz * Ui[4])
            G[i, 1] = dinv * (Ui[1] + dz * Ui[3] - dx * Ui[5])
            G[i, 2] = dinv * (Ui[2] + dx * Ui[4] - dy * Ui[3])
            G[i, 3], G[i, 4], G[i, 5], G[i, 6] = dinv * Ui[3], dinv * Ui[4], dinv * Ui[5], w
        elif nvj > 1:
            articulate(params, i, nvj, iv, tau, s, IA, PA, C, U, u, D, Dinv)
        # I^A_λ += X_iᵀ I^a_i X_i ;  p^A_λ += X_iᵀ p^a_i   (λ = −1 lands in the discarded world row)
        symmetric_add_shifted(IA, i, dx, dy, dz, IA, lam)
        PA[lam, 0] += PA[i, 0] + dy * PA[i, 5] - dz * PA[i, 4]
        PA[lam, 1] += PA[i, 1] + dz * PA[i, 3] - dx * PA[i, 5]
        PA[lam, 2] += PA[i, 2] + dx * PA[i, 4] - dy * PA[i, 3]
        for r in range(3, 6):
            PA[lam, r] += PA[i, r]
    # pass 3: accelerations, root to leaves
    A = work((n + 1, 6))
    A[-1, :3] = 0.0
    for r in range(3):
        A[-1, 3 + r] = -gravity[r]
    a_last = row6(A, -1)  # a of the body before
    for i in range(n):
        nvj, iv, lam = topology[i, NVJ], topology[i, IV], topology[i, PARENT]
        # a' = X_i a_λ + c ;  q̈ = D⁻¹ (u − Uᵀ a') ;  a = a' + s q̈   (a_λ from registers along a chain: a store and
        # reload less on the path from body to body, 7 % of the ABA at N = 20)
        al = a_last if lam == i - 1 else row6(A, lam)
        a = translated(al, p0[i, 0] - p0[lam, 0], p0[i, 1] - p0[lam, 1], p0[i, 2] - p0[lam, 2])
        if nvj == 1:  # one degree of freedom: q̈ = w − Gᵀ a_λ (pass 2), a short dependency chain from a_λ to q̈
            qddi = G[i, 6] - ((G[i, 0] * al[0] + G[i, 1] * al[1]) + (G[i, 2] * al[2] + G[i, 3] * al[3])
                              + (G[i, 4] * al[4] + G[i, 5] * al[5]))
            qdd[iv] = qddi
            a_last = (a[0] + C[i, 0] + s[iv, 0] * qddi, a[1] + C[i, 1] + s[iv, 1] * qddi,
                      a[2] + C[i, 2] + s[iv, 2] * qddi, a[3] + C[i, 3] + s[iv, 3] * qddi,
                      a[4] + C[i, 4] + s[iv, 4] * qddi, a[5] + C[i, 5] + s[iv, 5] * qddi)
            for r in range(6):
                A[i, r] = a_last[r]
            continue
        for r in range(6):
            A[i, r] = a[r] + C[i, r]
        for k in range(nvj):  # u ← u − Uᵀ a'
            u[iv + k] -= dot6(row6(U, iv + k), row6(A, i))
        for k in range(nvj):
            acc = 0.0
            for m in range(nvj):
                acc += Dinv[i, k, m] * u[iv + m]
            qdd[iv + k] = acc
        for k in range(nvj):
            for r in range(6):
                A[i, r] += s[iv + k, r] * qdd[iv + k]
        a_last = row6(A, i)
    release((R0, p0, s, V, C, IA, PA, U, G, Dinv, D, u, A, SC))
    return all_finite(qdd)


# Single-state entry points for the public wrappers, the model packed in one array (see _spatial_kernels):
# compiled for C-contiguous float64 vectors only, so that anything else (lists, batches, other dtypes, strided
# or read-only views) raises TypeError at the call and the wrapper takes its general path; no external forces.
# They return OK, NONFINITE (an output entry is not finite), WRONG_SIZE (an array does not have the model's size)
# or STRIDED (a vector is not contiguous: see ``<name>_entry`` below).
# They compile on first use (module __getattr__, below), not at import: a signature given to @njit would compile
# at decoration time, ~20 s with a cold cache.
VECTOR, MATRIX = "float64[::1]", "float64[:, ::1]"
_SINGLE_STATE: dict[str, tuple[Any, str]] = {}  # public name -> (dispatcher, signature)


def _single_state(name, signature):
    """Register a single-state entry point compiled lazily for ``signature`` only (see __getattr__). The
    dispatcher is made here, at import, so that its cache entries carry the stamp of the source it compiles."""
    def register(func):
        _SINGLE_STATE[name] = (njit(cache=True)(func), signature)
        return func
    return register


def __getattr__(name):
    """``_core.rnea_one`` and friends: compiled (or loaded from numba's cache) on first access for their one
    signature, then compilation is disabled so that other argument types raise TypeError; the dispatcher is
    stored as a module global, so that later accesses cost a plain attribute lookup.

    ``_core.crba_one_entry`` (and so on): the compiled function's own entry point, called without numba's type
    dispatch (0.12 µs less for three arguments, 0.2 µs for five). It converts its arguments without checking their
    types: given an int64 array it reads the bits as float64, given a 2-d array it reads it as a vector. Its
    callers must pass float64 arrays (``x.dtype is FLOAT64``) of the signature's dimensions; the compiled function
    checks the strides itself (STRIDED: the caller takes its general path)."""
    base = name.removesuffix("_entry")
    if base not in _SINGLE_STATE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if base != name:
        dispatcher = globals().get(base) or __getattr__(base)
        globals()[name] = dispatcher.overloads[dispatcher.signatures[0]].entry_point
        return globals()[name]
    dispatcher, signature = _SINGLE_STATE[name]
    dispatcher.compile(signature)
    dispatcher.disable_compile()
    globals()[name] = dispatcher
    return dispatcher


FLOAT64 = np.dtype(np.float64)  # the native float64 dtype, the one the entry points' callers test for (by identity)


@inline
def contiguous(x):
    """True if the vector x has unit stride (the entry points' own check: their signature says contiguous, but
    called past the dispatcher they would read a strided view as if it were not)."""
    return x.strides[0] == 8


@inline
def sizes_fit(topology, nq, nv):
    """True if the model has nq coordinates and nv velocities."""
    last = topology.shape[0] - 1
    return topology[last, IQ] + topology[last, NQJ] == nq and topology[last, IV] + topology[last, NVJ] == nv


@inline
def state_fits(topology, q, v, x, out):
    """True if q has the model's nq entries and v, x (a or τ) and out its nv."""
    nv = out.shape[0]
    return sizes_fit(topology, q.shape[0], nv) and v.shape[0] == nv and x.shape[0] == nv


@_single_state("rnea_one", f"int64({VECTOR}, {VECTOR}, {VECTOR}, {VECTOR}, {VECTOR})")
def _rnea_one(packed, q, v, a, tau):
    topology, params, gravity = unpacked(packed)
    if not state_fits(topology, q, v, a, tau):
        return WRONG_SIZE
    if not (contiguous(q) and contiguous(v) and contiguous(a)):
        return STRIDED
    return OK if rnea(topology, params, gravity, q, v, a, params[:0], tau) else NONFINITE  # params[:0]: no forces


@_single_state("aba_one", f"int64({VECTOR}, {VECTOR}, {VECTOR}, {VECTOR}, {VECTOR})")
def _aba_one(packed, q, v, tau, qdd):
    topology, params, gravity = unpacked(packed)
    if not state_fits(topology, q, v, tau, qdd):
        return WRONG_SIZE
    if not (contiguous(q) and contiguous(v) and contiguous(tau)):
        return STRIDED
    return OK if aba(topology, params, gravity, q, v, tau, params[:0], qdd) else NONFINITE


@_single_state("crba_one", f"int64({VECTOR}, {VECTOR}, {MATRIX})")
def _crba_one(packed, q, M):
    topology, params, _ = unpacked(packed)
    if not (sizes_fit(topology, q.shape[0], M.shape[0]) and M.shape[1] == M.shape[0]):
        return WRONG_SIZE
    if not contiguous(q):
        return STRIDED
    return OK if crba(topology, params, q, M) else NONFINITE


# Batched entry points: the loop over states runs in compiled code, in parallel.
@njit(cache=True, parallel=True)
def rnea_batch(topology, params, gravity, q, v, a, f_ext, tau):
    ok = np.empty(q.shape[0], dtype=np.bool_)
    for b in prange(q.shape[0]):
        ok[b] = rnea(topology, params, gravity, q[b], v[b], a[b], f_ext[b], tau[b])
    return ok.all()


@njit(cache=True, parallel=True)
def aba_batch(topology, params, gravity, q, v, tau, f_ext, qdd):
    ok = np.empty(q.shape[0], dtype=np.bool_)
    for b in prange(q.shape[0]):
        ok[b] = aba(topology, params, gravity, q[b], v[b], tau[b], f_ext[b], qdd[b])
    return ok.all()


@njit(cache=True, parallel=True)
def crba_batch(topology, params, q, M):
    ok = np.empty(q.shape[0], dtype=np.bool_)
    for b in prange(q.shape[0]):
        ok[b] = crba(topology, params, q[b], M[b])
    return ok.all()
