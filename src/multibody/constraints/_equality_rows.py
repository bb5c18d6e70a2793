"""Equality constraints in compiled form: their rows at a state from arrays exported once per model
(:func:`multibody.constraints.types.equality_arrays`), and Gauss's principle for them on a free acceleration and a
compliance.

Rows (world axes, as :mod:`.types` writes them; b = 0 for every exported type):

    constant      φ = A q − offset,  J constant        (:class:`~.coupling.LinearCoupling`, :class:`~.types.Mimic`)
    connect       φ = p_A − p_B,  J = J_A,lin − J_B,lin                                 (:class:`~.types.Connect`)
    weld          φ = (θ(R_a E_a (R_b E_b)ᵀ), p_A − p_B),  J = (J_A,ang − J_B,ang; J_A,lin − J_B,lin)
                  (θ the rotation vector, E the frames and the relative pose in body axes)  (:class:`~.types.Weld`)
    align         φ_k = u_k · n,  J_k = (u_k × n) · (J_a,ang − J_b,ang)   (u_1, u_2 ⟂ the axis of a; n the axis
                  of b; world axes)                                                       (:class:`~.types.Align`)
    plane         φ = n · (p − o),  J = n · (J_p,lin − J_o,lin) + (n × (p − o)) · J_o,ang   (n and o fixed in the
                  plane's body)                                                    (:class:`~.types.PointOnPlane`)

Gauss's principle (Udwadia & Kalaba 1992; Yao Wenli 2016, eq. 5): with K = R Rᵀ the compliance (Cholesky; K = M⁻¹
without constraints) the acceleration a + δa that minimizes ½ δaᵀ K⁻¹ δa subject to J (a + δa) = γ is, in
z = R⁻¹ δa, the least-norm solution of B z = γ − J a, B = J R:

    a_c = a + R B⁺ (γ − J a) = a + K Jᵀ (J K Jᵀ)⁺ (γ − J a)
    K_c = R (I − B⁺B) Rᵀ     = K − K Jᵀ (J K Jᵀ)⁺ J K

B⁺ from the singular value decomposition of B (:func:`row_svd`), singular values at or below ``rcond`` · σ_max
dropped (B⁺B = VᵣVᵣᵀ, Vᵣ the kept right singular vectors), so dependent rows (a loop described twice) leave a
unique acceleration.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dynamics._core import cross as cross3
from ..dynamics._quantities import jacobian_at_poses

RCOND = 1e-10  # singular values of B at or below RCOND · σ_max are dropped (the dependent rows)
CONSTANT, CONNECT, WELD, ALIGN, PLANE = range(5)  # the kinds of exported constraint (first column of ``kinds``)
SIZES = (1, 3, 6, 2, 1)  # the rows of each kind
KIND, ROW, BODY_A, BODY_B = range(4)  # the columns of ``kinds``


@njit(cache=True, nogil=True)
def row_svd(B):
    """(U (m, m), s (m,), Vᵀ (m, n)) with B = U diag(s) Vᵀ (m, n), s descending: one-sided Jacobi (Hestenes 1958;
    Demmel & Veselić 1992) on B's rows. Plane rotations G of row pairs, W ← G W and U ← U Gᵀ from W = B, U = I, until
    W's rows are orthogonal to round-off; then s = their norms, Vᵀ = W's rows / s (zero rows where s = 0). Small m:
    a few sweeps of m (m − 1)/2 rotations, without LAPACK's per-call cost."""
    m, n = B.shape
    W, U = B.copy(), np.eye(m)
    for _ in range(60):  # (sweeps: quadratic convergence takes a handful)
        rotated = False
        for i in range(m - 1):
            for j in range(i + 1, m):
                alpha, beta, gamma = 0.0, 0.0, 0.0
                for k in range(n):
                    alpha += W[i, k] * W[i, k]
                    beta += W[j, k] * W[j, k]
                    gamma += W[i, k] * W[j, k]
                if abs(gamma) <= 1e-15 * np.sqrt(alpha * beta):
                    continue
                rotated = True
                # t = tan θ, the smaller root of t² + 2 ζ t − 1 = 0, ζ = (β − α) / (2 γ): rows i, j made orthogonal
                zeta = (beta - alpha) / (2.0 * gamma)
                t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + np.sqrt(1.0 + zeta * zeta))
                c = 1.0 / np.sqrt(1.0 + t * t)
                sn = c * t
                for k in range(n):
                    wi, wj = W[i, k], W[j, k]
                    W[i, k], W[j, k] = c * wi - sn * wj, sn * wi + c * wj
                for k in range(m):
                    ui, uj = U[k, i], U[k, j]
                    U[k, i], U[k, j] = c * ui - sn * uj, sn * ui + c * uj
        if not rotated:
            break
    norms = np.sqrt(np.sum(W * W, axis=1))
    order = np.argsort(-norms)
    s, Vt, U_sorted = norms[order], np.zeros((m, n)), np.empty((m, m))
    for r in range(m):
        U_sorted[:, r] = U[:, order[r]]
        if s[r] > 0.0:
            Vt[r] = W[order[r]] / s[r]
    return U_sorted, s, Vt


@njit(cache=True, nogil=True)
def least_constraint(R, J, rcond):
    """(B⁺ (nv, m), Vᵣ (rank, nv)) of B = J R (J (m, nv), R (nv, nv)): the Moore–Penrose inverse from the singular
    value decomposition with the singular values at or below rcond · σ_max dropped, and the orthonormal basis of
    B's row space (B⁺B = Vᵣᵀ Vᵣ)."""
    nv, m = R.shape[0], J.shape[0]
    if m == 0:
        return np.zeros((nv, 0)), np.zeros((0, nv))
    U, s, Vt = row_svd(_times(J, R))
    rank = 0
    if s[0] > 0.0:
        for k in range(s.shape[0]):
            if s[k] > rcond * s[0]:
                rank += 1
    V = np.ascontiguousarray(Vt[:rank])
    scaled = np.empty((nv, rank))  # Vᵣᵀ Σᵣ⁻¹
    for i in range(nv):
        for k in range(rank):
            scaled[i, k] = V[k, i] / s[k]
    return _times(scaled, U[:, :rank].T), V


@njit(cache=True, nogil=True)
def constrained_motion(a, K, J, gamma, rcond):
    """a ← a_c and K ← K_c (module docstring): the acceleration (nv,) and compliance (nv, nv) with the rows
    J a = γ (J (m, nv), γ (m,)) held. K symmetric positive definite on entry."""
    if J.shape[0] == 0:
        return
    R = np.linalg.cholesky(K)
    B_pinv, V = least_constraint(R, J, rcond)
    residual = gamma - _times(J, a.reshape(-1, 1))[:, 0]  # γ − J a
    a += _times(R, _times(B_pinv, residual.reshape(-1, 1)))[:, 0]
    W = _times(R, V.T)  # R Vᵣᵀ: K_c = K − W Wᵀ
    K -= _times(W, W.T)


@njit(cache=True, nogil=True)
def _times(X, Y):
    """X Y by loops (the small products here: no BLAS call's fixed cost, any memory layout)."""
    out = np.zeros((X.shape[0], Y.shape[1]))
    for i in range(X.shape[0]):
        for k in range(X.shape[1]):
            x = X[i, k]
            if x != 0.0:
                for j in range(Y.shape[1]):
                    out[i, j] += x * Y[k, j]
    return out


@njit(cache=True, nogil=True)
def rotation_vector(R):
    """The rotation vector θ u (3-tuple) of a rotation matrix: its unit quaternion (Shepperd's method, w ≥ 0, as
    :func:`multibody.spatial.rotation_to_quat`), then θ = 2 atan2(|xyz|, w)."""
    trace = R[0, 0] + R[1, 1] + R[2, 2]
    k, best = 0, trace
    for i in range(3):
        if R[i, i] > best:
            k, best = i + 1, R[i, i]
    xyz = np.zeros(3)
    if k == 0:
        w = 0.5 * np.sqrt(1.0 + trace)
        xyz[0], xyz[1], xyz[2] = ((R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w),
                                  (R[1, 0] - R[0, 1]) / (4 * w))
    else:
        i, j, m = k - 1, k % 3, (k + 1) % 3
        s = 2.0 * np.sqrt(1.0 + R[i, i] - R[j, j] - R[m, m])
        xyz[i], xyz[j], xyz[m] = 0.25 * s, (R[j, i] + R[i, j]) / s, (R[m, i] + R[i, m]) / s
        w = (R[m, j] - R[j, m]) / s
    if w < 0.0:
        w, xyz = -w, -xyz
    norm = np.sqrt(xyz[0] ** 2 + xyz[1] ** 2 + xyz[2] ** 2)
    scale = 2.0 * np.arctan2(norm, w) / norm if norm > 1e-12 else 2.0
    return xyz[0] * scale, xyz[1] * scale, xyz[2] * scale


@njit(cache=True, nogil=True)
def _frame(R0, p0, body, r, E):
    """(world point of r (3,), world axes of the frame E (3, 3)) on ``body`` (−1: the world)."""
    if body < 0:
        return r.copy(), E.copy()
    return p0[body] + R0[body] @ r, R0[body] @ E


@njit(cache=True, nogil=True)
def equality_rows(topology, params, R0, p0, q, equalities, J, phi):
    """J (ne, nv) and φ (ne,) of the exported equality constraints at q (body poses R0, p0 at q);
    ``equalities`` = (kinds (k, 4) int: kind, first row, body a, body b; points (k, 2, 3) and frames (k, 2, 3, 3) in
    body axes (align: u_1, u_2 the first columns of frame a, n the first of frame b; plane: n the first column of
    frame b); J_constant (ne, nv); A (ne, nq); offset (ne,)), :func:`multibody.constraints.types.equality_arrays`."""
    kinds, points, frames, J_constant, A, offset = equalities
    nv = J.shape[1]
    J[:, :] = J_constant
    phi[:] = A @ q - offset
    J_a, J_b = np.zeros((6, nv)), np.zeros((6, nv))
    for k in range(kinds.shape[0]):
        kind, row, ia, ib = kinds[k, KIND], kinds[k, ROW], kinds[k, BODY_A], kinds[k, BODY_B]
        if kind == CONSTANT:
            continue
        p_a, E_a = _frame(R0, p0, ia, points[k, 0], frames[k, 0])
        p_b, E_b = _frame(R0, p0, ib, points[k, 1], frames[k, 1])
        J_a[:, :], J_b[:, :] = 0.0, 0.0
        if ia >= 0:
            jacobian_at_poses(topology, params, R0, p0, ia, points[k, 0], J_a)
        if ib >= 0:
            jacobian_at_poses(topology, params, R0, p0, ib, points[k, 1], J_b)
        if kind == ALIGN:
            n = (E_b[0, 0], E_b[1, 0], E_b[2, 0])
            for r in range(2):
                u = (E_a[0, r], E_a[1, r], E_a[2, r])
                c = cross3(u, n)
                phi[row + r] = u[0] * n[0] + u[1] * n[1] + u[2] * n[2]
                for j in range(nv):
                    J[row + r, j] = (c[0] * (J_a[0, j] - J_b[0, j]) + c[1] * (J_a[1, j] - J_b[1, j])
                                     + c[2] * (J_a[2, j] - J_b[2, j]))
            continue
        if kind == PLANE:
            n, d = (E_b[0, 0], E_b[1, 0], E_b[2, 0]), (p_a[0] - p_b[0], p_a[1] - p_b[1], p_a[2] - p_b[2])
            c = cross3(n, d)
            phi[row] = n[0] * d[0] + n[1] * d[1] + n[2] * d[2]
            for j in range(nv):
                J[row, j] = (n[0] * (J_a[3, j] - J_b[3, j]) + n[1] * (J_a[4, j] - J_b[4, j])
                             + n[2] * (J_a[5, j] - J_b[5, j]) + c[0] * J_b[0, j] + c[1] * J_b[1, j] + c[2] * J_b[2, j])
            continue
        first = 3 if kind == CONNECT else 0  # the (angular; linear) rows of J_A − J_B that the constraint takes
        if kind == WELD:
            theta = rotation_vector(E_a @ E_b.T)
            for c in range(3):
                phi[row + c] = theta[c]
        for c in range(3):
            phi[row + 3 - first + c] = p_a[c] - p_b[c]
        for r in range(6 - first):
            for j in range(nv):
                J[row + r, j] = J_a[first + r, j] - J_b[first + r, j]


@njit(cache=True, nogil=True)
def equality_motion(topology, params, R0, p0, q, v, h, erp, equalities, a, K):
    """a ← the equality-constrained acceleration and K ← the compliance that keeps the equality rows (the step's
    J (v + h a) = −(erp/h) φ, i.e. J a = γ = −(J v + (erp/h) φ)/h, :func:`constrained_motion`); nothing without
    exported rows."""
    ne = equalities[3].shape[0]
    if ne == 0:
        return
    J, phi = np.empty((ne, a.shape[0])), np.empty(ne)
    equality_rows(topology, params, R0, p0, q, equalities, J, phi)
    constrained_motion(a, K, J, -(J @ v + erp / h * phi) / h, RCOND)
