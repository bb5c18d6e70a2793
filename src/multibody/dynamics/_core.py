"""Compiled numeric core: Featherstone's recursive algorithms on the flat model (numba, ``cache=True``).

See :mod:`multibody.dynamics._spatial_kernels` for the model layout and the building blocks. Each algorithm
takes the model arrays (``topology``, ``params``, ``gravity``), the state, and writes its output array; it
returns True when the output is finite (the NaN guard the public wrappers act on). Per-body work arrays are
separate arrays on each call's stack (:func:`~._spatial_kernels.work`): a heap allocation costs ~40 ns, and a
measured variant that carved them from one reused scratch array ran 5–10 % slower (the compiler can no longer
tell the arrays apart).
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
import numpy as np
from numba import njit, prange

from ._spatial_kernels import (F_ARMATURE, F_COM, F_INERTIA, F_MASS, F_S, IQ, IV, NQJ, NVJ, PARENT, all_finite,
                               body_velocities, cross_force, cross_motion, force_to_parent, inertia_times,
                               inertia_to_parent, inline, local_poses, motion_to_child, rigid_inertia_times,
                               rotated, row6, subspace_times, unpacked, work, world_poses)

# Status of the single-state entry points (rnea_one, aba_one, crba_one).
OK, NONFINITE, WRONG_SIZE = 0, 1, 2


@njit(cache=True)
def rnea(topology, params, gravity, q, v, a, f_ext, tau):
    """Recursive Newton–Euler inverse dynamics, τ = M(q) a + c(q, v) − Σ Jᵀ f_ext (RBDA Table 5.1), M including
    the joint armature (τ_k += armature_k a_k).

    Gravity enters as the fictitious base acceleration a_0 = [0; −g]. f_ext (n × 6, or 0 × 6 for none):
    external spatial force on each body, body axes, about the body origin. Writes tau (nv).
    """
    n = topology.shape[0]
    R = work((n, 3, 3))
    p = work((n, 3))
    local_poses(topology, params, q, R, p)
    V = work((n + 1, 6))  # row −1: the world
    A = work((n + 1, 6))
    F = work((n + 1, 6))  # (row −1 collects the forces on the world, unused)
    V[-1] = 0.0
    A[-1, :3] = 0.0
    A[-1, 3:] = -gravity
    for i in range(n):
        lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
        # v_i = X_i v_λ + S q̇
        vJ = subspace_times(params, i, nvj, v, iv)
        motion_to_child(R, p, i, V, lam, V, i)
        for r in range(6):
            V[i, r] += vJ[r]
        vi = row6(V, i)
        # a_i = X_i a_λ + S q̈ + v_i ×m S q̇
        motion_to_child(R, p, i, A, lam, A, i)
        aJ, c = subspace_times(params, i, nvj, a, iv), cross_motion(vi, vJ)
        for r in range(6):
            A[i, r] += aJ[r] + c[r]
        # f_i = I_i a_i + v_i ×* I_i v_i − f_ext,i
        Ia, b = inertia_times(params, i, row6(A, i)), cross_force(vi, inertia_times(params, i, vi))
        for r in range(6):
            F[i, r] = Ia[r] + b[r]
        if f_ext.shape[0] > 0:
            for r in range(6):
                F[i, r] -= f_ext[i, r]
    for i in range(n - 1, -1, -1):
        # τ_i = S_iᵀ f_i + armature_i q̈_i ;  f_λ += X_iᵀ f_i
        nvj, iv = topology[i, NVJ], topology[i, IV]
        for c in range(nvj):
            acc = params[i, F_ARMATURE + c] * a[iv + c]
            for r in range(6):
                acc += params[i, F_S + 6 * r + c] * F[i, r]
            tau[iv + c] = acc
        force_to_parent(R, p, i, row6(F, i), F, topology[i, PARENT])
    return all_finite(tau)


@inline
def inertia_about_world_origin(params, i, R0, p0, Y, k):
    """Y[k] = (m, h, I): body i's rigid-body inertia about the world origin in world axes, compactly: mass m,
    first moment h = m c (c the mass center), rotational inertia I = R0 Ī R0ᵀ + m [c]×ᵀ[c]× stored as
    (Ixx, Iyy, Izz, Ixy, Ixz, Iyz); Ī = I_O − m [c_b]×ᵀ[c_b]× is the central inertia, from the rotational inertia
    I_O about the body origin and the mass center c_b in body coordinates (parallel axes, RBDA eq. 2.63)."""
    m = params[i, F_MASS]
    cb0, cb1, cb2 = params[i, F_COM], params[i, F_COM + 1], params[i, F_COM + 2]
    # central inertia in body axes: Ī = I_O − m (|c_b|² 1 − c_b c_bᵀ)
    cc = cb0 * cb0 + cb1 * cb1 + cb2 * cb2
    b01 = params[i, F_INERTIA + 1] + m * cb0 * cb1
    b02 = params[i, F_INERTIA + 2] + m * cb0 * cb2
    b12 = params[i, F_INERTIA + 8] + m * cb1 * cb2
    central = (params[i, F_INERTIA] - m * (cc - cb0 * cb0), b01, b02,
               b01, params[i, F_INERTIA + 7] - m * (cc - cb1 * cb1), b12,
               b02, b12, params[i, F_INERTIA + 14] - m * (cc - cb2 * cb2))
    Ri = (R0[i, 0, 0], R0[i, 0, 1], R0[i, 0, 2], R0[i, 1, 0], R0[i, 1, 1], R0[i, 1, 2], R0[i, 2, 0], R0[i, 2, 1],
          R0[i, 2, 2])
    I = rotated(central, Ri)
    # c = p0 + R0 c_b
    c0 = p0[i, 0] + Ri[0] * cb0 + Ri[1] * cb1 + Ri[2] * cb2
    c1 = p0[i, 1] + Ri[3] * cb0 + Ri[4] * cb1 + Ri[5] * cb2
    c2 = p0[i, 2] + Ri[6] * cb0 + Ri[7] * cb1 + Ri[8] * cb2
    cc = c0 * c0 + c1 * c1 + c2 * c2
    Y[k, 0], Y[k, 1], Y[k, 2], Y[k, 3] = m, m * c0, m * c1, m * c2
    Y[k, 4], Y[k, 5], Y[k, 6] = I[0] + m * (cc - c0 * c0), I[4] + m * (cc - c1 * c1), I[8] + m * (cc - c2 * c2)
    Y[k, 7], Y[k, 8], Y[k, 9] = I[1] - m * c0 * c1, I[2] - m * c0 * c2, I[5] - m * c1 * c2


@njit(cache=True)
def crba(topology, params, q, M):
    """Composite-rigid-body algorithm: the joint-space inertia matrix M(q) (nv × nv) (RBDA Table 6.2).

    Worked in world coordinates (as Pinocchio does), so that neither the composite inertias nor the ancestor
    walk need transforms: Y^c_λ += Y^c_i (each kept about the world origin as (m, h, I), see
    :func:`inertia_about_world_origin`), F = Y^c_i s_i, and M_ji = s_jᵀ F for j = i and every ancestor, with s
    the motion-subspace columns in world coordinates.
    """
    n = topology.shape[0]
    R0 = work((n, 3, 3))
    p0 = work((n, 3))
    Y = work((n, 10))              # composite inertias (m, h, I), world axes, about the world origin
    s = work((M.shape[0], 6))      # s[iv + k]: column k of body i's motion subspace, world coordinates
    F = work((6, 6))               # F[k] = Y^c_i s[iv + k]
    world_poses(topology, params, q, R0, p0)
    for i in range(n):
        inertia_about_world_origin(params, i, R0, p0, Y, i)
        # s = [R0 S_ω; R0 S_v + p0 × (R0 S_ω)]
        for c in range(topology[i, NVJ]):
            k = topology[i, IV] + c
            for r in range(3):
                s[k, r] = (R0[i, r, 0] * params[i, F_S + c] + R0[i, r, 1] * params[i, F_S + 6 + c]
                           + R0[i, r, 2] * params[i, F_S + 12 + c])
                s[k, 3 + r] = (R0[i, r, 0] * params[i, F_S + 18 + c] + R0[i, r, 1] * params[i, F_S + 24 + c]
                               + R0[i, r, 2] * params[i, F_S + 30 + c])
            s[k, 3] += p0[i, 1] * s[k, 2] - p0[i, 2] * s[k, 1]
            s[k, 4] += p0[i, 2] * s[k, 0] - p0[i, 0] * s[k, 2]
            s[k, 5] += p0[i, 0] * s[k, 1] - p0[i, 1] * s[k, 0]
    M[:, :] = 0.0
    for i in range(n - 1, -1, -1):
        lam = topology[i, PARENT]
        if lam >= 0:  # Y^c_λ += Y^c_i
            for r in range(10):
                Y[lam, r] += Y[i, r]
        nvi, ivi = topology[i, NVJ], topology[i, IV]
        for k in range(nvi):
            F[k, 0], F[k, 1], F[k, 2], F[k, 3], F[k, 4], F[k, 5] = rigid_inertia_times(
                Y[i, 0], Y[i, 1], Y[i, 2], Y[i, 3], Y[i, 4], Y[i, 5], Y[i, 6], Y[i, 7], Y[i, 8], Y[i, 9],
                s[ivi + k, 0], s[ivi + k, 1], s[ivi + k, 2], s[ivi + k, 3], s[ivi + k, 4], s[ivi + k, 5])
        # M_ji = s_jᵀ F for j = i and every ancestor of i
        j = i
        while j >= 0:
            ivj = topology[j, IV]
            for k in range(nvi):
                for m in range(topology[j, NVJ]):
                    acc = 0.0
                    for r in range(6):
                        acc += s[ivj + m, r] * F[k, r]
                    M[ivj + m, ivi + k] = acc
                    M[ivi + k, ivj + m] = acc
            j = topology[j, PARENT]
        for k in range(nvi):  # M_ii += diag(armature_i)
            M[ivi + k, ivi + k] += params[i, F_ARMATURE + k]
    return all_finite(M)


@njit(cache=True)
def _invert_spd(D, k, Dinv, i):
    """Dinv[i] = D⁻¹ for a small symmetric positive-definite k×k block D (Cholesky; scalar fast path)."""
    if k == 1:
        Dinv[i, 0, 0] = 1.0 / D[0, 0]
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
    y = np.empty(k)
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
def articulate(params, i, nvj, iv, tau, IA, PA, C, U, u, Dinv):
    """Pass 2 of the ABA at body i (RBDA Table 7.1): from its articulated inertia I^A and bias force p^A, the
    quantities of its joint, U = I^A S, D⁻¹ (D = Sᵀ U) and u = τ − Sᵀ p^A, and in place of I^A and p^A what it
    hands to its parent, I^a and p^a."""
    # U = I^A S ;  D = Sᵀ U + diag(armature) ;  u = τ − Sᵀ p^A
    D = np.empty((nvj, nvj))
    for k in range(nvj):
        for r in range(6):
            acc = 0.0
            for c in range(6):
                acc += IA[i, r, c] * params[i, F_S + 6 * c + k]
            U[i, k, r] = acc
    for k in range(nvj):
        acc = tau[iv + k]
        for r in range(6):
            acc -= params[i, F_S + 6 * r + k] * PA[i, r]
        u[iv + k] = acc
        for m in range(nvj):
            acc = 0.0
            for r in range(6):
                acc += params[i, F_S + 6 * r + m] * U[i, k, r]
            D[m, k] = acc
        D[k, k] += params[i, F_ARMATURE + k]
    if nvj > 0:
        _invert_spd(D, nvj, Dinv, i)
    # I^a = I^A − U D⁻¹ Uᵀ ;  p^a = p^A + I^a c + U D⁻¹ u
    for k in range(nvj):
        for m in range(nvj):
            dkm = Dinv[i, k, m]
            for r in range(6):
                urk = U[i, k, r] * dkm
                PA[i, r] += urk * u[iv + m]
                for c in range(6):
                    IA[i, r, c] -= urk * U[i, m, c]
    for r in range(6):
        acc = 0.0
        for c in range(6):
            acc += IA[i, r, c] * C[i, c]
        PA[i, r] += acc


@inline
def matrix_row_times(M, i, r, s):
    """Σ_c M[i, r, c] s[c] for a 6-tuple s."""
    return (M[i, r, 0] * s[0] + M[i, r, 1] * s[1] + M[i, r, 2] * s[2] + M[i, r, 3] * s[3] + M[i, r, 4] * s[4]
            + M[i, r, 5] * s[5])


@inline
def articulate_single_dof(params, i, iv, tau, IA, PA, C, U, u, Dinv):
    """:func:`articulate` for a joint with one degree of freedom (motion subspace a single column s), its steps
    fused with the intermediate values in registers: U = I^A s ;  d = sᵀ U + armature ;  u = τ − sᵀ p^A ;
    I^a = I^A − U Uᵀ / d ;  p^a = p^A + U u / d + I^a c."""
    s = (params[i, F_S], params[i, F_S + 6], params[i, F_S + 12], params[i, F_S + 18], params[i, F_S + 24],
         params[i, F_S + 30])
    Ui = (matrix_row_times(IA, i, 0, s), matrix_row_times(IA, i, 1, s), matrix_row_times(IA, i, 2, s),
          matrix_row_times(IA, i, 3, s), matrix_row_times(IA, i, 4, s), matrix_row_times(IA, i, 5, s))
    dinv = 1.0 / (s[0] * Ui[0] + s[1] * Ui[1] + s[2] * Ui[2] + s[3] * Ui[3] + s[4] * Ui[4] + s[5] * Ui[5]
                  + params[i, F_ARMATURE])
    ui = (tau[iv] - s[0] * PA[i, 0] - s[1] * PA[i, 1] - s[2] * PA[i, 2] - s[3] * PA[i, 3] - s[4] * PA[i, 4]
          - s[5] * PA[i, 5])
    u[iv] = ui
    Dinv[i, 0, 0] = dinv
    for r in range(6):
        U[i, 0, r] = Ui[r]
    for r in range(6):
        urd = Ui[r] * dinv
        acc = 0.0
        for c in range(6):
            ia = IA[i, r, c] - urd * Ui[c]
            IA[i, r, c] = ia
            acc += ia * C[i, c]
        PA[i, r] += urd * ui + acc


@njit(cache=True)
def aba(topology, params, gravity, q, v, tau, f_ext, qdd):
    """Articulated-body algorithm, forward dynamics q̈ = M⁻¹(τ − c + Σ Jᵀ f_ext) in O(n) (RBDA Table 7.1).

    Same gravity and f_ext conventions as :func:`rnea`. Writes qdd (nv).
    """
    n = topology.shape[0]
    R = work((n, 3, 3))
    p = work((n, 3))
    local_poses(topology, params, q, R, p)
    V = work((n + 1, 6))      # body velocities; row −1: the world
    C = work((n, 6))          # velocity-product accelerations c_i = v_i ×m S q̇ (joint bias is zero)
    IA = work((n + 1, 6, 6))  # articulated-body inertias (row −1 collects the world's, unused)
    PA = work((n + 1, 6))     # articulated-body bias forces
    U = work((n, 6, 6))       # U_i = I^A_i S_i, rows U[i, k] = column k
    Dinv = work((n, 6, 6))
    u = work((tau.shape[0],))
    V[-1] = 0.0
    # pass 1: velocities, bias accelerations and bias forces, root to leaves
    for i in range(n):
        vJ = subspace_times(params, i, topology[i, NVJ], v, topology[i, IV])
        motion_to_child(R, p, i, V, topology[i, PARENT], V, i)
        for r in range(6):
            V[i, r] += vJ[r]
        vi = row6(V, i)
        # c_i = v_i ×m S q̇ ;  p^A_i = v_i ×* I_i v_i − f_ext,i
        c, b = cross_motion(vi, vJ), cross_force(vi, inertia_times(params, i, vi))
        for r in range(6):
            C[i, r] = c[r]
            PA[i, r] = b[r]
            for k in range(6):
                IA[i, r, k] = params[i, F_INERTIA + 6 * r + k]
        if f_ext.shape[0] > 0:
            for r in range(6):
                PA[i, r] -= f_ext[i, r]
    # pass 2: articulated inertias, leaves to root (I^a, p^a in place of I^A_i, p^A_i)
    for i in range(n - 1, -1, -1):
        nvj, iv = topology[i, NVJ], topology[i, IV]
        if nvj == 1:
            articulate_single_dof(params, i, iv, tau, IA, PA, C, U, u, Dinv)
        else:
            articulate(params, i, nvj, iv, tau, IA, PA, C, U, u, Dinv)
        # I^A_λ += Xᵀ I^a X ;  p^A_λ += Xᵀ p^a   (λ = −1 lands in the discarded world row)
        lam = topology[i, PARENT]
        inertia_to_parent(R, p, i, IA, i, IA, lam)
        force_to_parent(R, p, i, row6(PA, i), PA, lam)
    # pass 3: accelerations, root to leaves
    A = work((n + 1, 6))
    A[-1, :3] = 0.0
    A[-1, 3:] = -gravity
    for i in range(n):
        nvj, iv = topology[i, NVJ], topology[i, IV]
        # a' = X a_λ + c ;  q̈ = D⁻¹ (u − Uᵀ a') ;  a = a' + S q̈
        motion_to_child(R, p, i, A, topology[i, PARENT], A, i)
        for r in range(6):
            A[i, r] += C[i, r]
        for k in range(nvj):  # u ← u − Uᵀ a'
            acc = u[iv + k]
            for r in range(6):
                acc -= U[i, k, r] * A[i, r]
            u[iv + k] = acc
        for k in range(nvj):
            acc = 0.0
            for m in range(nvj):
                acc += Dinv[i, k, m] * u[iv + m]
            qdd[iv + k] = acc
        aJ = subspace_times(params, i, nvj, qdd, iv)
        for r in range(6):
            A[i, r] += aJ[r]
    return all_finite(qdd)


# Single-state entry points for the public wrappers, the model packed in one array (see _spatial_kernels):
# compiled for C-contiguous float64 vectors only, so that anything else (lists, batches, other dtypes, strided
# or read-only views) raises TypeError at the call and the wrapper takes its general path; no external forces.
# They return OK, NONFINITE (an output entry is not finite) or WRONG_SIZE (an array does not have the model's size).
# They compile on first use (module __getattr__, below), not at import: a signature given to @njit would compile
# at decoration time, ~20 s with a cold cache.
VECTOR, MATRIX = "float64[::1]", "float64[:, ::1]"
_SINGLE_STATE = {}  # public name -> (dispatcher, signature)


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
    stored as a module global, so that later accesses cost a plain attribute lookup."""
    if name not in _SINGLE_STATE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    dispatcher, signature = _SINGLE_STATE[name]
    dispatcher.compile(signature)
    dispatcher.disable_compile()
    globals()[name] = dispatcher
    return dispatcher


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
    return OK if rnea(topology, params, gravity, q, v, a, params[:0], tau) else NONFINITE  # params[:0]: no forces


@_single_state("aba_one", f"int64({VECTOR}, {VECTOR}, {VECTOR}, {VECTOR}, {VECTOR})")
def _aba_one(packed, q, v, tau, qdd):
    topology, params, gravity = unpacked(packed)
    if not state_fits(topology, q, v, tau, qdd):
        return WRONG_SIZE
    return OK if aba(topology, params, gravity, q, v, tau, params[:0], qdd) else NONFINITE


@_single_state("crba_one", f"int64({VECTOR}, {VECTOR}, {MATRIX})")
def _crba_one(packed, q, M):
    topology, params, _ = unpacked(packed)
    if not (sizes_fit(topology, q.shape[0], M.shape[0]) and M.shape[1] == M.shape[0]):
        return WRONG_SIZE
    return OK if crba(topology, params, q, M) else NONFINITE


@njit(cache=True)
def world_kinematics(topology, params, q, v):
    """World poses R0 (n, 3, 3), p0 (n, 3); body velocities V (n + 1, 6) in body axes (row −1 the world);
    mass centers c0 (n, 3) in world coordinates."""
    n = topology.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    R0 = np.empty((n, 3, 3))
    p0 = np.empty((n, 3))
    local_poses(topology, params, q, R, p)
    world_poses(topology, params, q, R0, p0)
    V = np.empty((n + 1, 6))
    body_velocities(topology, params, R, p, v, V)
    c0 = np.empty((n, 3))
    for i in range(n):
        for r in range(3):
            c0[i, r] = (p0[i, r] + R0[i, r, 0] * params[i, F_COM] + R0[i, r, 1] * params[i, F_COM + 1]
                        + R0[i, r, 2] * params[i, F_COM + 2])
    return R0, p0, V, c0


@njit(cache=True)
def energy(topology, params, gravity, q, v, out):
    """out[0] = kinetic energy ½ Σ v_iᵀ I_i v_i + ½ Σ armature_k q̇_k² [J];  out[1] = potential energy
    −Σ m_i g · c_i [J] (c_i the mass center in world coordinates)."""
    R0, p0, V, c0 = world_kinematics(topology, params, q, v)
    kinetic = 0.0
    potential = 0.0
    for i in range(topology.shape[0]):
        h = inertia_times(params, i, row6(V, i))
        for r in range(6):
            kinetic += 0.5 * V[i, r] * h[r]
        for k in range(topology[i, NVJ]):
            kinetic += 0.5 * params[i, F_ARMATURE + k] * v[topology[i, IV] + k] ** 2
        for r in range(3):
            potential -= params[i, F_MASS] * gravity[r] * c0[i, r]
    out[0] = kinetic
    out[1] = potential


@njit(cache=True)
def momentum(topology, params, q, v, out):
    """out[0:3] angular momentum about the world origin, out[3:6] linear momentum (world axes);
    out[6:9] the system's mass center in world coordinates."""
    R0, p0, V, c0 = world_kinematics(topology, params, q, v)
    total = np.zeros((1, 6))
    out[:] = 0.0
    mass = 0.0
    for i in range(topology.shape[0]):
        # h_i = I_i v_i (body axes, about the body origin), moved to the world origin: X0_iᵀ h_i
        force_to_parent(R0, p0, i, inertia_times(params, i, row6(V, i)), total, 0)
        mass += params[i, F_MASS]
        for r in range(3):
            out[6 + r] += params[i, F_MASS] * c0[i, r]
    for r in range(6):
        out[r] = total[0, r]
    for r in range(3):
        out[6 + r] /= mass


@njit(cache=True)
def jacobian(topology, params, q, body, point, J):
    """J (6 × nv): [ω; v_P] = J v in world axes for a point P fixed in ``body`` (body coordinates).

    Column of joint j (an ancestor of body): ω = R0_j S_ω,  v = R0_j S_v + ω × (P − p0_j).
    """
    n = topology.shape[0]
    R0 = np.empty((n, 3, 3))
    p0 = np.empty((n, 3))
    world_poses(topology, params, q, R0, p0)
    P = np.empty(3)
    for r in range(3):
        P[r] = p0[body, r] + R0[body, r, 0] * point[0] + R0[body, r, 1] * point[1] + R0[body, r, 2] * point[2]
    J[:, :] = 0.0
    j = body
    while j >= 0:
        iv = topology[j, IV]
        d0, d1, d2 = P[0] - p0[j, 0], P[1] - p0[j, 1], P[2] - p0[j, 2]
        for k in range(topology[j, NVJ]):
            for r in range(3):
                J[r, iv + k] = (R0[j, r, 0] * params[j, F_S + k] + R0[j, r, 1] * params[j, F_S + 6 + k]
                                + R0[j, r, 2] * params[j, F_S + 12 + k])
                J[3 + r, iv + k] = (R0[j, r, 0] * params[j, F_S + 18 + k] + R0[j, r, 1] * params[j, F_S + 24 + k]
                                    + R0[j, r, 2] * params[j, F_S + 30 + k])
            w0, w1, w2 = J[0, iv + k], J[1, iv + k], J[2, iv + k]
            J[3, iv + k] += w1 * d2 - w2 * d1
            J[4, iv + k] += w2 * d0 - w0 * d2
            J[5, iv + k] += w0 * d1 - w1 * d0
        j = topology[j, PARENT]


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


@njit(cache=True, parallel=True)
def energy_batch(topology, params, gravity, q, v, out):
    for b in prange(q.shape[0]):
        energy(topology, params, gravity, q[b], v[b], out[b])
    return all_finite(out)
