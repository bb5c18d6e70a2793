"""Compiled numeric core: Featherstone's recursive algorithms on a flat model (numba, ``cache=True``).

The compiled model is two arrays, one row per body, bodies ordered parent before child:

``topology`` (int64, n × 6): parent index (−1 = world), joint type code, first index in q, first index
in v, joint nq, joint nv.

``params`` (float64, n × 91): joint placement rotation ``R_parent_joint`` (9, row major), placement
translation (3), joint axis in joint axes (3), spatial inertia about the body origin in body axes (36),
motion subspace S in body axes (6 × 6, first nv columns used), mass (1), mass center in body axes (3).

Naming: ``R[i]`` and ``p[i]`` are the rotation (body i axes → parent axes) and the body-i origin in
parent axes; ``R0[i]``, ``p0[i]`` the same relative to the world. Spatial vectors are
``[angular; linear]``, expressed in body axes about the body origin unless the name says otherwise.
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
import numpy as np
from numba import njit, prange

from ..model.joints import CYLINDRICAL, FIXED, FREE, PLANAR, PRISMATIC, REVOLUTE, SPHERICAL

PARENT, JTYPE, IQ, IV, NQJ, NVJ = range(6)
F_RTREE, F_PTREE, F_AXIS, F_INERTIA, F_S, F_MASS, F_COM, NPARAMS = 0, 9, 12, 15, 51, 87, 88, 91


@njit(cache=True)
def all_finite(x):
    """True if every entry of the 1-D or 2-D array x is finite (the core's NaN guard on its outputs)."""
    for value in x.ravel():
        if not np.isfinite(value):
            return False
    return True


# ---------------------------------------------------------------------------------------------
# Small 3-vector and spatial-vector operations
# ---------------------------------------------------------------------------------------------
@njit(cache=True)
def _quat_to_rot(w, x, y, z, R):
    """R (3×3) of the quaternion (w, x, y, z), normalized here so round-off in q does not scale R."""
    s = 1.0 / np.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w * s, x * s, y * s, z * s
    R[0, 0] = 1 - 2 * (y * y + z * z)
    R[0, 1] = 2 * (x * y - w * z)
    R[0, 2] = 2 * (x * z + w * y)
    R[1, 0] = 2 * (x * y + w * z)
    R[1, 1] = 1 - 2 * (x * x + z * z)
    R[1, 2] = 2 * (y * z - w * x)
    R[2, 0] = 2 * (x * z - w * y)
    R[2, 1] = 2 * (y * z + w * x)
    R[2, 2] = 1 - 2 * (x * x + y * y)


@njit(cache=True)
def _axis_angle_to_rot(ax, ay, az, angle, R):
    """Rodrigues: R = I + sin θ [a]× + (1 − cos θ) [a]×² for a unit axis a."""
    s, c = np.sin(angle), np.cos(angle)
    t = 1.0 - c
    R[0, 0] = c + t * ax * ax
    R[0, 1] = t * ax * ay - s * az
    R[0, 2] = t * ax * az + s * ay
    R[1, 0] = t * ax * ay + s * az
    R[1, 1] = c + t * ay * ay
    R[1, 2] = t * ay * az - s * ax
    R[2, 0] = t * ax * az - s * ay
    R[2, 1] = t * ay * az + s * ax
    R[2, 2] = c + t * az * az


@njit(cache=True)
def _motion_to_child(R, p, m, out):
    """out = X m: a motion vector in parent coordinates to child coordinates.

    ω_c = Rᵀ ω, v_c = Rᵀ (v + ω × p)  (RBDA eq. 2.24 with E = Rᵀ, r = p).
    """
    w0, w1, w2 = m[0], m[1], m[2]
    v0 = m[3] + w1 * p[2] - w2 * p[1]
    v1 = m[4] + w2 * p[0] - w0 * p[2]
    v2 = m[5] + w0 * p[1] - w1 * p[0]
    for k in range(3):
        out[k] = R[0, k] * w0 + R[1, k] * w1 + R[2, k] * w2
        out[3 + k] = R[0, k] * v0 + R[1, k] * v1 + R[2, k] * v2


@njit(cache=True)
def _force_to_parent(R, p, f, out):
    """out += Xᵀ f: a force vector in child coordinates added to parent coordinates.

    f_p = R f_c, n_p = R n_c + p × f_p  (RBDA eq. 2.25).
    """
    fx = R[0, 0] * f[3] + R[0, 1] * f[4] + R[0, 2] * f[5]
    fy = R[1, 0] * f[3] + R[1, 1] * f[4] + R[1, 2] * f[5]
    fz = R[2, 0] * f[3] + R[2, 1] * f[4] + R[2, 2] * f[5]
    out[0] += R[0, 0] * f[0] + R[0, 1] * f[1] + R[0, 2] * f[2] + p[1] * fz - p[2] * fy
    out[1] += R[1, 0] * f[0] + R[1, 1] * f[1] + R[1, 2] * f[2] + p[2] * fx - p[0] * fz
    out[2] += R[2, 0] * f[0] + R[2, 1] * f[1] + R[2, 2] * f[2] + p[0] * fy - p[1] * fx
    out[3] += fx
    out[4] += fy
    out[5] += fz


@njit(cache=True)
def _cross_motion(v, m, out):
    """out = v ×m m = [ω × m_ω; ω × m_v + v × m_ω]  (RBDA eq. 2.31)."""
    out[0] = v[1] * m[2] - v[2] * m[1]
    out[1] = v[2] * m[0] - v[0] * m[2]
    out[2] = v[0] * m[1] - v[1] * m[0]
    out[3] = v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1]
    out[4] = v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2]
    out[5] = v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0]


@njit(cache=True)
def _cross_force(v, f, out):
    """out = v ×* f = [ω × n + v × f; ω × f]  (RBDA eq. 2.32)."""
    out[0] = v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4]
    out[1] = v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5]
    out[2] = v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3]
    out[3] = v[1] * f[5] - v[2] * f[4]
    out[4] = v[2] * f[3] - v[0] * f[5]
    out[5] = v[0] * f[4] - v[1] * f[3]


@njit(cache=True)
def _rotate_block(R, I, r0, c0, out):
    """out = R I[r0:r0+3, c0:c0+3] Rᵀ."""
    T = np.empty((3, 3))
    for k in range(3):
        for c in range(3):
            T[k, c] = I[r0 + k, c0] * R[c, 0] + I[r0 + k, c0 + 1] * R[c, 1] + I[r0 + k, c0 + 2] * R[c, 2]
    for r in range(3):
        for c in range(3):
            out[r, c] = R[r, 0] * T[0, c] + R[r, 1] * T[1, c] + R[r, 2] * T[2, c]


@njit(cache=True)
def _inertia_to_parent(R, p, I, out):
    """out += Xᵀ I X for a symmetric 6×6 inertia I = [[A, B], [Bᵀ, C]] in child coordinates (RBDA eq. 2.66).

    With the blocks rotated to parent axes (A' = R A Rᵀ, B' = R B Rᵀ, C' = R C Rᵀ), the shift by p gives
    C'' = C',  B'' = B' + [p]× C',  A'' = A' + [p]× B'ᵀ − B'' [p]×.
    """
    A = np.empty((3, 3))
    B = np.empty((3, 3))
    C = np.empty((3, 3))
    _rotate_block(R, I, 0, 0, A)
    _rotate_block(R, I, 0, 3, B)
    _rotate_block(R, I, 3, 3, C)
    # column c of [p]× X is p × X[:, c]
    B2 = np.empty((3, 3))
    for c in range(3):
        B2[0, c] = B[0, c] + p[1] * C[2, c] - p[2] * C[1, c]
        B2[1, c] = B[1, c] + p[2] * C[0, c] - p[0] * C[2, c]
        B2[2, c] = B[2, c] + p[0] * C[1, c] - p[1] * C[0, c]
    # column c of [p]× B'ᵀ is p × B'[c, :];  row r of B''[p]× is B''[r, :] × p
    for c in range(3):
        A[0, c] += p[1] * B[c, 2] - p[2] * B[c, 1]
        A[1, c] += p[2] * B[c, 0] - p[0] * B[c, 2]
        A[2, c] += p[0] * B[c, 1] - p[1] * B[c, 0]
    for r in range(3):
        A[r, 0] -= B2[r, 1] * p[2] - B2[r, 2] * p[1]
        A[r, 1] -= B2[r, 2] * p[0] - B2[r, 0] * p[2]
        A[r, 2] -= B2[r, 0] * p[1] - B2[r, 1] * p[0]
    for r in range(3):
        for c in range(3):
            out[r, c] += A[r, c]
            out[r, 3 + c] += B2[r, c]
            out[3 + c, r] += B2[r, c]
            out[3 + r, 3 + c] += C[r, c]


# ---------------------------------------------------------------------------------------------
# Joint model (jcalc) and kinematics
# ---------------------------------------------------------------------------------------------
@njit(cache=True)
def _joint_pose(jtype, axis, q, iq, R, p):
    """Pose of the child body in the joint frame: R (child axes → joint axes) and origin p (RBDA Table 4.1)."""
    for r in range(3):
        p[r] = 0.0
        for c in range(3):
            R[r, c] = 1.0 if r == c else 0.0
    if jtype == REVOLUTE:
        _axis_angle_to_rot(axis[0], axis[1], axis[2], q[iq], R)
    elif jtype == PRISMATIC:
        for r in range(3):
            p[r] = axis[r] * q[iq]
    elif jtype == CYLINDRICAL:
        _axis_angle_to_rot(axis[0], axis[1], axis[2], q[iq], R)
        for r in range(3):
            p[r] = axis[r] * q[iq + 1]
    elif jtype == SPHERICAL:
        _quat_to_rot(q[iq], q[iq + 1], q[iq + 2], q[iq + 3], R)
    elif jtype == FREE:
        _quat_to_rot(q[iq + 3], q[iq + 4], q[iq + 5], q[iq + 6], R)
        for r in range(3):
            p[r] = q[iq + r]
    elif jtype == PLANAR:
        _axis_angle_to_rot(0.0, 0.0, 1.0, q[iq + 2], R)
        p[0] = q[iq]
        p[1] = q[iq + 1]


@njit(cache=True)
def local_poses(topology, params, q, R, p):
    """R[i], p[i]: pose of body i in its parent body (placement ∘ joint), for all bodies."""
    RJ = np.empty((3, 3))
    pJ = np.empty(3)
    for i in range(topology.shape[0]):
        par = params[i]
        _joint_pose(topology[i, JTYPE], par[F_AXIS:F_AXIS + 3], q, topology[i, IQ], RJ, pJ)
        # R = R_tree R_J,  p = p_tree + R_tree p_J
        for r in range(3):
            acc = par[F_PTREE + r]
            for k in range(3):
                acc += par[F_RTREE + 3 * r + k] * pJ[k]
            p[i, r] = acc
            for c in range(3):
                R[i, r, c] = (par[F_RTREE + 3 * r] * RJ[0, c] + par[F_RTREE + 3 * r + 1] * RJ[1, c]
                              + par[F_RTREE + 3 * r + 2] * RJ[2, c])


@njit(cache=True)
def world_poses(topology, R, p, R0, p0):
    """R0[i], p0[i]: pose of body i in the world, from the parent-relative poses."""
    for i in range(topology.shape[0]):
        lam = topology[i, PARENT]
        if lam < 0:
            R0[i] = R[i]
            p0[i] = p[i]
        else:
            for r in range(3):
                p0[i, r] = p0[lam, r] + R0[lam, r, 0] * p[i, 0] + R0[lam, r, 1] * p[i, 1] + R0[lam, r, 2] * p[i, 2]
                for c in range(3):
                    R0[i, r, c] = R0[lam, r, 0] * R[i, 0, c] + R0[lam, r, 1] * R[i, 1, c] + R0[lam, r, 2] * R[i, 2, c]


@njit(cache=True)
def _subspace_times(params_i, nvj, x, iv, out):
    """out = S_i x[iv:iv+nvj] (6-vector in body axes)."""
    for r in range(6):
        acc = 0.0
        for k in range(nvj):
            acc += params_i[F_S + 6 * r + k] * x[iv + k]
        out[r] = acc


@njit(cache=True)
def _inertia_times(params_i, m, out):
    """out = I_i m with the body's spatial inertia (about its origin, body axes)."""
    for r in range(6):
        acc = 0.0
        for c in range(6):
            acc += params_i[F_INERTIA + 6 * r + c] * m[c]
        out[r] = acc


@njit(cache=True)
def body_velocities(topology, params, R, p, v, V):
    """V[i]: spatial velocity of body i in body axes,  v_i = X_i v_λ + S_i q̇_i (RBDA eq. 5.7)."""
    vJ = np.empty(6)
    zero = np.zeros(6)
    for i in range(topology.shape[0]):
        lam = topology[i, PARENT]
        _motion_to_child(R[i], p[i], zero if lam < 0 else V[lam], V[i])
        _subspace_times(params[i], topology[i, NVJ], v, topology[i, IV], vJ)
        for k in range(6):
            V[i, k] += vJ[k]


# ---------------------------------------------------------------------------------------------
# Dynamics algorithms
# ---------------------------------------------------------------------------------------------
@njit(cache=True)
def rnea(topology, params, gravity, q, v, a, f_ext, tau):
    """Recursive Newton–Euler inverse dynamics, τ = M(q) a + c(q, v) − Σ Jᵀ f_ext (RBDA Table 5.1).

    Gravity enters as the fictitious base acceleration a_0 = [0; −g]. f_ext (n × 6 or 0 × 6): external
    spatial force on each body, body axes, about the body origin. Writes tau (nv).
    """
    n = topology.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    local_poses(topology, params, q, R, p)
    V = np.empty((n, 6))
    A = np.empty((n, 6))
    F = np.empty((n, 6))
    base_acc = np.zeros(6)
    base_acc[3:] = -gravity
    zero = np.zeros(6)
    vJ = np.empty(6)
    tmp = np.empty(6)
    h = np.empty(6)
    for i in range(n):
        lam = topology[i, PARENT]
        par = params[i]
        nvj, iv = topology[i, NVJ], topology[i, IV]
        # v_i = X_i v_λ + S q̇ ;  a_i = X_i a_λ + S q̈ + v_i ×m (S q̇)
        _motion_to_child(R[i], p[i], zero if lam < 0 else V[lam], V[i])
        _motion_to_child(R[i], p[i], base_acc if lam < 0 else A[lam], A[i])
        _subspace_times(par, nvj, v, iv, vJ)
        for k in range(6):
            V[i, k] += vJ[k]
        _subspace_times(par, nvj, a, iv, tmp)
        for k in range(6):
            A[i, k] += tmp[k]
        _cross_motion(V[i], vJ, tmp)
        for k in range(6):
            A[i, k] += tmp[k]
        # f_i = I_i a_i + v_i ×* I_i v_i − f_ext,i
        _inertia_times(par, A[i], F[i])
        _inertia_times(par, V[i], h)
        _cross_force(V[i], h, tmp)
        for k in range(6):
            F[i, k] += tmp[k]
        if f_ext.shape[0] > 0:
            for k in range(6):
                F[i, k] -= f_ext[i, k]
    for i in range(n - 1, -1, -1):
        # τ_i = S_iᵀ f_i ;  f_λ += X_iᵀ f_i
        nvj, iv = topology[i, NVJ], topology[i, IV]
        for k in range(nvj):
            acc = 0.0
            for r in range(6):
                acc += params[i, F_S + 6 * r + k] * F[i, r]
            tau[iv + k] = acc
        lam = topology[i, PARENT]
        if lam >= 0:
            _force_to_parent(R[i], p[i], F[i], F[lam])
    return all_finite(tau)


@njit(cache=True)
def crba(topology, params, q, M):
    """Composite-rigid-body algorithm: the joint-space inertia matrix M(q) (nv × nv) (RBDA Table 6.2)."""
    n = topology.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    local_poses(topology, params, q, R, p)
    Ic = np.empty((n, 6, 6))
    for i in range(n):
        for r in range(6):
            for c in range(6):
                Ic[i, r, c] = params[i, F_INERTIA + 6 * r + c]
    F = np.empty((6, 6))
    G = np.empty((6, 6))
    M[:, :] = 0.0
    for i in range(n - 1, -1, -1):
        lam = topology[i, PARENT]
        # I^c_λ += X_iᵀ I^c_i X_i
        if lam >= 0:
            _inertia_to_parent(R[i], p[i], Ic[i], Ic[lam])
        nvi, ivi = topology[i, NVJ], topology[i, IV]
        if nvi == 0:
            continue
        # F = I^c_i S_i ;  M_ii = S_iᵀ F
        for k in range(nvi):
            for r in range(6):
                acc = 0.0
                for c in range(6):
                    acc += Ic[i, r, c] * params[i, F_S + 6 * c + k]
                F[r, k] = acc
        for k in range(nvi):
            for m in range(nvi):
                acc = 0.0
                for r in range(6):
                    acc += params[i, F_S + 6 * r + m] * F[r, k]
                M[ivi + m, ivi + k] = acc
        # walk to the root: F = X_jᵀ F ;  M_ij = Fᵀ S_j
        j = i
        while topology[j, PARENT] >= 0:
            for k in range(nvi):
                for r in range(6):
                    G[r, k] = 0.0
                _force_to_parent(R[j], p[j], F[:, k], G[:, k])
            for k in range(nvi):
                for r in range(6):
                    F[r, k] = G[r, k]
            j = topology[j, PARENT]
            nvj, ivj = topology[j, NVJ], topology[j, IV]
            for k in range(nvi):
                for m in range(nvj):
                    acc = 0.0
                    for r in range(6):
                        acc += params[j, F_S + 6 * r + m] * F[r, k]
                    M[ivj + m, ivi + k] = acc
                    M[ivi + k, ivj + m] = acc
    return all_finite(M)


@njit(cache=True)
def _invert_spd(D, k, Dinv):
    """Dinv = D⁻¹ for a small symmetric positive-definite k×k block (Cholesky; scalar fast path)."""
    if k == 1:
        Dinv[0, 0] = 1.0 / D[0, 0]
        return
    L = np.zeros((k, k))
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
    # solve L Lᵀ X = I column by column
    for c in range(k):
        y = np.zeros(k)
        for r in range(k):
            s = 1.0 if r == c else 0.0
            for m in range(r):
                s -= L[r, m] * y[m]
            y[r] = s / L[r, r]
        for r in range(k - 1, -1, -1):
            s = y[r]
            for m in range(r + 1, k):
                s -= L[m, r] * Dinv[m, c]
            Dinv[r, c] = s / L[r, r]


@njit(cache=True)
def aba(topology, params, gravity, q, v, tau, f_ext, qdd):
    """Articulated-body algorithm, forward dynamics q̈ = M⁻¹(τ − c) in O(n) (RBDA Table 7.1).

    Same gravity and f_ext conventions as :func:`rnea`. Writes qdd (nv).
    """
    n = topology.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    local_poses(topology, params, q, R, p)
    V = np.empty((n, 6))
    C = np.empty((n, 6))      # velocity-product acceleration c_i = v_i ×m S q̇ (joint bias is zero)
    IA = np.empty((n, 6, 6))  # articulated-body inertia
    PA = np.empty((n, 6))     # articulated-body bias force
    U = np.empty((n, 6, 6))   # U_i = I^A_i S_i (first nvj columns)
    Dinv = np.empty((n, 6, 6))
    u = np.empty(tau.shape[0])
    zero = np.zeros(6)
    vJ = np.empty(6)
    h = np.empty(6)
    # pass 1: velocities, bias accelerations and forces
    for i in range(n):
        lam = topology[i, PARENT]
        par = params[i]
        _motion_to_child(R[i], p[i], zero if lam < 0 else V[lam], V[i])
        _subspace_times(par, topology[i, NVJ], v, topology[i, IV], vJ)
        for k in range(6):
            V[i, k] += vJ[k]
        _cross_motion(V[i], vJ, C[i])
        for r in range(6):
            for c in range(6):
                IA[i, r, c] = par[F_INERTIA + 6 * r + c]
        # p^A_i = v_i ×* I_i v_i − f_ext,i
        _inertia_times(par, V[i], h)
        _cross_force(V[i], h, PA[i])
        if f_ext.shape[0] > 0:
            for k in range(6):
                PA[i, k] -= f_ext[i, k]
    # pass 2: articulated inertias, leaves to root
    Ia = np.empty((6, 6))
    pa = np.empty(6)
    D = np.empty((6, 6))
    for i in range(n - 1, -1, -1):
        nvj, iv = topology[i, NVJ], topology[i, IV]
        par = params[i]
        # U = I^A S ;  D = Sᵀ U ;  u = τ − Sᵀ p^A
        for k in range(nvj):
            for r in range(6):
                acc = 0.0
                for c in range(6):
                    acc += IA[i, r, c] * par[F_S + 6 * c + k]
                U[i, r, k] = acc
        for k in range(nvj):
            acc = tau[iv + k]
            for r in range(6):
                acc -= par[F_S + 6 * r + k] * PA[i, r]
            u[iv + k] = acc
            for m in range(nvj):
                acc = 0.0
                for r in range(6):
                    acc += par[F_S + 6 * r + m] * U[i, r, k]
                D[m, k] = acc
        if nvj > 0:
            _invert_spd(D, nvj, Dinv[i])
        lam = topology[i, PARENT]
        if lam < 0:
            continue
        # I^a = I^A − U D⁻¹ Uᵀ ;  p^a = p^A + I^a c + U D⁻¹ u
        for r in range(6):
            for c in range(6):
                Ia[r, c] = IA[i, r, c]
            pa[r] = PA[i, r]
        for k in range(nvj):
            for m in range(nvj):
                dkm = Dinv[i, k, m]
                for r in range(6):
                    urk = U[i, r, k] * dkm
                    pa[r] += urk * u[iv + m]
                    for c in range(6):
                        Ia[r, c] -= urk * U[i, c, m]
        for r in range(6):
            acc = 0.0
            for c in range(6):
                acc += Ia[r, c] * C[i, c]
            pa[r] += acc
        # I^A_λ += Xᵀ I^a X ;  p^A_λ += Xᵀ p^a
        _inertia_to_parent(R[i], p[i], Ia, IA[lam])
        _force_to_parent(R[i], p[i], pa, PA[lam])
    # pass 3: accelerations, root to leaves
    A = np.empty((n, 6))
    base_acc = np.zeros(6)
    base_acc[3:] = -gravity
    for i in range(n):
        lam = topology[i, PARENT]
        nvj, iv = topology[i, NVJ], topology[i, IV]
        par = params[i]
        # a' = X a_λ + c ;  q̈ = D⁻¹ (u − Uᵀ a') ;  a = a' + S q̈
        _motion_to_child(R[i], p[i], base_acc if lam < 0 else A[lam], A[i])
        for k in range(6):
            A[i, k] += C[i, k]
        for k in range(nvj):
            acc = u[iv + k]
            for r in range(6):
                acc -= U[i, r, k] * A[i, r]
            h[k] = acc
        for k in range(nvj):
            acc = 0.0
            for m in range(nvj):
                acc += Dinv[i, k, m] * h[m]
            qdd[iv + k] = acc
        for r in range(6):
            acc = 0.0
            for k in range(nvj):
                acc += par[F_S + 6 * r + k] * qdd[iv + k]
            A[i, r] += acc
    return all_finite(qdd)


# ---------------------------------------------------------------------------------------------
# Energy, momentum, Jacobians
# ---------------------------------------------------------------------------------------------
@njit(cache=True)
def energy(topology, params, gravity, q, v, out):
    """out[0] = kinetic energy ½ Σ v_iᵀ I_i v_i [J];  out[1] = potential energy −Σ m_i g · c_i [J]
    (c_i the mass center in world coordinates; zero at the world origin)."""
    n = topology.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    R0 = np.empty((n, 3, 3))
    p0 = np.empty((n, 3))
    local_poses(topology, params, q, R, p)
    world_poses(topology, R, p, R0, p0)
    V = np.empty((n, 6))
    body_velocities(topology, params, R, p, v, V)
    h = np.empty(6)
    kinetic = 0.0
    potential = 0.0
    for i in range(n):
        _inertia_times(params[i], V[i], h)
        for k in range(6):
            kinetic += 0.5 * V[i, k] * h[k]
        m = params[i, F_MASS]
        for r in range(3):
            c_world = p0[i, r]
            for k in range(3):
                c_world += R0[i, r, k] * params[i, F_COM + k]
            potential -= m * gravity[r] * c_world
    out[0] = kinetic
    out[1] = potential


@njit(cache=True)
def momentum(topology, params, q, v, out):
    """out[0:3] angular momentum about the world origin, out[3:6] linear momentum, world axes;
    out[6:9] mass center of the whole system in world coordinates."""
    n = topology.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    R0 = np.empty((n, 3, 3))
    p0 = np.empty((n, 3))
    local_poses(topology, params, q, R, p)
    world_poses(topology, R, p, R0, p0)
    V = np.empty((n, 6))
    body_velocities(topology, params, R, p, v, V)
    h = np.empty(6)
    total = np.zeros(6)
    out[:] = 0.0
    mass = 0.0
    for i in range(n):
        # h_i = I_i v_i in body axes about the body origin, moved to the world origin: Xᵀ h
        _inertia_times(params[i], V[i], h)
        _force_to_parent(R0[i], p0[i], h, total)
        m = params[i, F_MASS]
        mass += m
        for r in range(3):
            c_world = p0[i, r]
            for k in range(3):
                c_world += R0[i, r, k] * params[i, F_COM + k]
            out[6 + r] += m * c_world
    for k in range(6):
        out[k] = total[k]
    for r in range(3):
        out[6 + r] /= mass


@njit(cache=True)
def jacobian(topology, params, q, body, point, J):
    """J (6 × nv): [ω; v_point] = J v, world axes, for a point fixed in ``body`` (body coordinates).

    Column of joint j: ω = R0_j S_ω,  v = R0_j S_v + ω × (P − p0_j)  (only ancestors of body contribute).
    """
    n = topology.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    R0 = np.empty((n, 3, 3))
    p0 = np.empty((n, 3))
    local_poses(topology, params, q, R, p)
    world_poses(topology, R, p, R0, p0)
    P = np.empty(3)
    for r in range(3):
        P[r] = p0[body, r] + R0[body, r, 0] * point[0] + R0[body, r, 1] * point[1] + R0[body, r, 2] * point[2]
    J[:, :] = 0.0
    j = body
    while j >= 0:
        iv = topology[j, IV]
        for k in range(topology[j, NVJ]):
            w = np.empty(3)
            for r in range(3):
                w[r] = (R0[j, r, 0] * params[j, F_S + 6 * 0 + k] + R0[j, r, 1] * params[j, F_S + 6 * 1 + k]
                        + R0[j, r, 2] * params[j, F_S + 6 * 2 + k])
            d0, d1, d2 = P[0] - p0[j, 0], P[1] - p0[j, 1], P[2] - p0[j, 2]
            for r in range(3):
                J[r, iv + k] = w[r]
                J[3 + r, iv + k] = (R0[j, r, 0] * params[j, F_S + 6 * 3 + k] + R0[j, r, 1] * params[j, F_S + 6 * 4 + k]
                                    + R0[j, r, 2] * params[j, F_S + 6 * 5 + k])
            J[3, iv + k] += w[1] * d2 - w[2] * d1
            J[4, iv + k] += w[2] * d0 - w[0] * d2
            J[5, iv + k] += w[0] * d1 - w[1] * d0
        j = topology[j, PARENT]


# ---------------------------------------------------------------------------------------------
# Configuration space: q̇ from v, and integration on the joint manifolds
# ---------------------------------------------------------------------------------------------
@njit(cache=True)
def _quat_product(a0, a1, a2, a3, b0, b1, b2, b3, out, off):
    """out[off:off+4] = a ⊗ b (Hamilton product, (w, x, y, z))."""
    out[off] = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
    out[off + 1] = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
    out[off + 2] = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
    out[off + 3] = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0


@njit(cache=True)
def configuration_rate(topology, q, v, qdot):
    """q̇ from v joint by joint: q̇ = v for scalar joints; quaternion rate ½ q ⊗ (0, ω) with ω in child axes;
    free-joint position rate R(q) v_origin; planar (ẋ, ẏ) = Rz(θ)(vx, vy)."""
    for i in range(topology.shape[0]):
        jt, iq, iv = topology[i, JTYPE], topology[i, IQ], topology[i, IV]
        if jt == REVOLUTE or jt == PRISMATIC or jt == CYLINDRICAL:
            for k in range(topology[i, NQJ]):
                qdot[iq + k] = v[iv + k]
        elif jt == SPHERICAL or jt == FREE:
            o = iq + 3 if jt == FREE else iq
            _quat_product(q[o], q[o + 1], q[o + 2], q[o + 3], 0.0, v[iv], v[iv + 1], v[iv + 2], qdot, o)
            for k in range(4):
                qdot[o + k] *= 0.5
            if jt == FREE:
                Rq = np.empty((3, 3))
                _quat_to_rot(q[o], q[o + 1], q[o + 2], q[o + 3], Rq)
                for r in range(3):
                    qdot[iq + r] = Rq[r, 0] * v[iv + 3] + Rq[r, 1] * v[iv + 4] + Rq[r, 2] * v[iv + 5]
        elif jt == PLANAR:
            c, s = np.cos(q[iq + 2]), np.sin(q[iq + 2])
            qdot[iq] = c * v[iv] - s * v[iv + 1]
            qdot[iq + 1] = s * v[iv] + c * v[iv + 1]
            qdot[iq + 2] = v[iv + 2]


@njit(cache=True)
def _so3_exp_quat(wx, wy, wz, out, off):
    """Quaternion of the rotation vector φ = (wx, wy, wz): (cos |φ|/2, sin(|φ|/2) φ/|φ|)."""
    theta = np.sqrt(wx * wx + wy * wy + wz * wz)
    half = 0.5 * theta
    k = 0.5 - theta * theta / 48.0 if theta < 1e-6 else np.sin(half) / theta
    out[off] = np.cos(half)
    out[off + 1] = k * wx
    out[off + 2] = k * wy
    out[off + 3] = k * wz


@njit(cache=True)
def integrate(topology, q, v, dt, q_out):
    """q_out = q ⊕ v dt: the configuration reached moving at constant velocity v for dt [s].

    Exact on each joint manifold: R⁺ = R exp([ω dt]) for rotations (quaternions renormalized), and for the
    free and planar joints the body-frame twist is integrated on SE(3) / SE(2):
    p⁺ = p + R V(ω dt) v dt with V(φ) = I + (1 − cos θ)/θ² [φ]× + (θ − sin θ)/θ³ [φ]×².
    """
    dq = np.empty(4)
    for i in range(topology.shape[0]):
        jt, iq, iv = topology[i, JTYPE], topology[i, IQ], topology[i, IV]
        if jt == REVOLUTE or jt == PRISMATIC or jt == CYLINDRICAL:
            for k in range(topology[i, NQJ]):
                q_out[iq + k] = q[iq + k] + v[iv + k] * dt
        elif jt == SPHERICAL or jt == FREE:
            o = iq + 3 if jt == FREE else iq
            w = iv  # ω comes first in v for both (FREE: v = [ω; v_origin])
            phx, phy, phz = v[w] * dt, v[w + 1] * dt, v[w + 2] * dt
            if jt == FREE:
                Rq = np.empty((3, 3))
                _quat_to_rot(q[o], q[o + 1], q[o + 2], q[o + 3], Rq)
                theta2 = phx * phx + phy * phy + phz * phz
                theta = np.sqrt(theta2)
                if theta < 1e-6:
                    a_coef, b_coef = 0.5 - theta2 / 24.0, 1.0 / 6.0 - theta2 / 120.0
                else:
                    a_coef = (1.0 - np.cos(theta)) / theta2
                    b_coef = (theta - np.sin(theta)) / (theta2 * theta)
                lx, ly, lz = v[iv + 3] * dt, v[iv + 4] * dt, v[iv + 5] * dt
                # c1 = φ × l, c2 = φ × c1
                c1x, c1y, c1z = phy * lz - phz * ly, phz * lx - phx * lz, phx * ly - phy * lx
                c2x, c2y, c2z = phy * c1z - phz * c1y, phz * c1x - phx * c1z, phx * c1y - phy * c1x
                dx = lx + a_coef * c1x + b_coef * c2x
                dy = ly + a_coef * c1y + b_coef * c2y
                dz = lz + a_coef * c1z + b_coef * c2z
                for r in range(3):
                    q_out[iq + r] = q[iq + r] + Rq[r, 0] * dx + Rq[r, 1] * dy + Rq[r, 2] * dz
            _so3_exp_quat(phx, phy, phz, dq, 0)
            _quat_product(q[o], q[o + 1], q[o + 2], q[o + 3], dq[0], dq[1], dq[2], dq[3], q_out, o)
            norm = np.sqrt(q_out[o] ** 2 + q_out[o + 1] ** 2 + q_out[o + 2] ** 2 + q_out[o + 3] ** 2)
            for k in range(4):
                q_out[o + k] /= norm
        elif jt == PLANAR:
            th = v[iv + 2] * dt
            lx, ly = v[iv] * dt, v[iv + 1] * dt
            if abs(th) < 1e-6:
                s_coef, c_coef = 1.0 - th * th / 6.0, th / 2.0
            else:
                s_coef, c_coef = np.sin(th) / th, (1.0 - np.cos(th)) / th
            dx = s_coef * lx - c_coef * ly
            dy = c_coef * lx + s_coef * ly
            c, s = np.cos(q[iq + 2]), np.sin(q[iq + 2])
            q_out[iq] = q[iq] + c * dx - s * dy
            q_out[iq + 1] = q[iq + 1] + s * dx + c * dy
            q_out[iq + 2] = q[iq + 2] + th


# ---------------------------------------------------------------------------------------------
# Batched entry points: the loop over states runs in compiled code, in parallel
# ---------------------------------------------------------------------------------------------
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


@njit(cache=True, parallel=True)
def energy_batch(topology, params, gravity, q, v, out):
    for b in prange(q.shape[0]):
        energy(topology, params, gravity, q[b], v[b], out[b])
    return all_finite(out)
