"""Kinematic snapshot of a state (q, v) for constraint rows: poses, velocities, bias accelerations, Jacobians.

A constraint written on points and axes fixed in bodies needs, at one instant, the world position, velocity and
*bias acceleration* (the acceleration with v̇ = 0, i.e. J̇ v) of those points. Outward from the root, in world
axes, with r = p_i − p_λ and the joint's relative motion ω_J = R_i S_ω v_i, u_J = R_i S_v v_i (S in body axes,
constant, so both are fixed in body i when v̇ = 0):

    ω_i = ω_λ + ω_J,                      α_i = α_λ + ω_i × ω_J
    ṗ_i = ṗ_λ + ω_λ × r + u_J,            p̈_i = p̈_λ + α_λ × r + ω_λ × (ω_λ × r + u_J) + ω_i × u_J

(RBDA §2.11 and eqs. 5.7–5.8 in classical form). A point P = p_i + R_i r_P then has
v_P = ṗ_i + ω_i × ρ and a_P = p̈_i + α_i × ρ + ω_i × (ω_i × ρ), ρ = R_i r_P.

The index −1 stands for the world (fixed, zero velocity and acceleration).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dynamics._core import cross as cross3
from ..dynamics._quantities import jacobian_at_poses, point_column
from ..dynamics._inputs import as_state, raise_nonfinite
from ..dynamics._spatial_kernels import (IV, NVJ, PARENT, rotated_to_world, subspace_column_in_world_axes,
                                        subspace_times, world_poses)
from ..errors import ModelError
from ..spatial import cross
from ._faces import _dot, _sub


class Snapshot:
    """World-frame kinematics of every body at one state (q, v), computed in one compiled pass
    (:func:`world_motion`).

    Attributes: ``R0`` (n, 3, 3) body → world rotations, ``p0`` (n, 3) body origins [m]; ``w``, ``dp`` (n, 3)
    angular velocity and origin velocity; ``dw``, ``ddp`` (n, 3) their bias accelerations (v̇ = 0); world axes;
    ``motion_array`` (4, n, 3) the four stacked.
    """

    def __init__(self, model, q, v):
        cm = model._compiled or model.compile()
        if cm.flexible:  # its kernel follows rigid bodies: a beam's tip moves with its elastic coordinates
            raise ModelError(f"model '{model.name}': constraints, contact and impacts are not supported on models "
                             "with flexible beams")
        self.model, self.nv = model, cm.nv
        self.q, self.v = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v")
        n = cm.topology.shape[0]
        self.R0, self.p0, motion = np.empty((n, 3, 3)), np.empty((n, 3)), np.empty((4, n, 3))
        if not world_motion(cm.topology, cm.params, self.q, self.v, self.R0, self.p0, motion):
            raise_nonfinite(model, "the kinematic snapshot", q=self.q, v=self.v)
        self.motion_array = motion  # (4, n, 3): ω, ṗ, α⁰, p̈⁰
        self.w, self.dp, self.dw, self.ddp = motion

    def rotation(self, body):
        """Body axes → world axes (identity for the world, index −1)."""
        return np.eye(3) if body < 0 else self.R0[body]

    def point(self, body, r):
        """World position of the point with body coordinates r."""
        return np.asarray(r, dtype=float) if body < 0 else self.p0[body] + self.R0[body] @ r

    def body_coordinates(self, body, x):
        """Body coordinates of the world point x."""
        return np.asarray(x, dtype=float) if body < 0 else self.R0[body].T @ (x - self.p0[body])

    def motion(self, body, r):
        """(ω, v_P, α⁰, a⁰_P) in world axes for the point P with body coordinates r: angular velocity, point
        velocity, and their bias accelerations (v̇ = 0)."""
        if body < 0:
            z = np.zeros(3)
            return z, z, z, z
        w, dw = self.w[body], self.dw[body]
        rho = self.R0[body] @ r
        return w, self.dp[body] + cross(w, rho), dw, self.ddp[body] + cross(dw, rho) + cross(w, cross(w, rho))

    def motions(self, bodies, x):
        """:meth:`motion` of many points at once: for world points x (k, 3) fixed in ``bodies`` (k,) (−1: the
        world), (r, ω, v_P, α⁰, a⁰_P), each (k, 3): the body coordinates and the motion in world axes (zeros on the
        world)."""
        bodies = np.asarray(bodies, dtype=np.int64)
        out = np.zeros((5, len(bodies), 3))
        point_motions(self.R0, self.p0, self.w, self.dp, self.dw, self.ddp, bodies,
                      np.ascontiguousarray(x, dtype=float), out)
        return out[0], out[1], out[2], out[3], out[4]

    def jacobian(self, body, r):
        """J (6 × nv), world axes, [ω; v_P] = J v for the point with body coordinates r (zeros for the world)."""
        return self.jacobians([body], np.reshape(r, (1, 3)))[0]

    def jacobians(self, bodies, r):
        """:meth:`jacobian` of many points at once: J (k, 6, nv) for the points r (k, 3) (body coordinates) of
        ``bodies`` (k,), in one compiled call at the snapshot's poses."""
        cm = self.model._compiled or self.model.compile()
        bodies = np.asarray(bodies, dtype=np.int64)
        J = np.zeros((len(bodies), 6, self.nv))
        point_jacobians(cm.topology, cm.params, self.R0, self.p0, bodies, np.asarray(r, dtype=float), J)
        return J


@njit(cache=True)
def point_motion(R0, p0, w, dp, dw, ddp, b, x):
    """(r, ω, v_P, α⁰, a⁰_P), five 3-tuples, of the world point x fixed in body b (−1: the world, r = x and zero
    motion): r = R0ᵀ (x − p0), ρ = R0 r (x − p0 to round-off, world axes), v_P = ṗ + ω × ρ,
    a⁰_P = p̈⁰ + α⁰ × ρ + ω × (ω × ρ)."""
    zero = (0.0, 0.0, 0.0)
    if b < 0:
        return (x[0], x[1], x[2]), zero, zero, zero, zero
    R = R0[b]
    d = (x[0] - p0[b, 0], x[1] - p0[b, 1], x[2] - p0[b, 2])
    r = (R[0, 0] * d[0] + R[1, 0] * d[1] + R[2, 0] * d[2], R[0, 1] * d[0] + R[1, 1] * d[1] + R[2, 1] * d[2],
         R[0, 2] * d[0] + R[1, 2] * d[1] + R[2, 2] * d[2])
    # ρ = R r: the body point back in world axes, as the motion of a point of body b
    rho = (R[0, 0] * r[0] + R[0, 1] * r[1] + R[0, 2] * r[2], R[1, 0] * r[0] + R[1, 1] * r[1] + R[1, 2] * r[2],
           R[2, 0] * r[0] + R[2, 1] * r[1] + R[2, 2] * r[2])
    wb, dwb = (w[b, 0], w[b, 1], w[b, 2]), (dw[b, 0], dw[b, 1], dw[b, 2])
    wr = cross3(wb, rho)
    dwr, wwr = cross3(dwb, rho), cross3(wb, wr)
    vP = (dp[b, 0] + wr[0], dp[b, 1] + wr[1], dp[b, 2] + wr[2])
    aP = (ddp[b, 0] + dwr[0] + wwr[0], ddp[b, 1] + dwr[1] + wwr[1], ddp[b, 2] + dwr[2] + wwr[2])
    return r, wb, vP, dwb, aP


@njit(cache=True)
def point_motions(R0, p0, w, dp, dw, ddp, bodies, x, out):
    """out = (r, ω, v_P, α⁰, a⁰_P) (5, k, 3) of :meth:`Snapshot.motions` for the world points x (k, 3) fixed in
    ``bodies`` (k,) (:func:`point_motion` of each)."""
    for k in range(bodies.shape[0]):
        motion = point_motion(R0, p0, w, dp, dw, ddp, bodies[k], x[k])
        for m in range(5):
            for c in range(3):
                out[m, k, c] = motion[m][c]


@njit(cache=True)
def contact_rows(topology, params, R0, p0, motion, body_a, body_b, point, normal, anchor_a, anchor_b, N, T,
                 tangents, out):
    """The rows of k contacts between bodies body_a and body_b (k,) (−1: the world) at the world points
    ``point`` (k, 3), normal n (k, 3) from B to A, anchors (k, 3), at the snapshot R0, p0, motion = (ω, ṗ, α⁰, p̈⁰)
    (:func:`world_motion`):

        N = n · J_P,  T = (t1; t2) · J_P,   J_P = J_A(P) − J_B(P) (linear part)        N (k, nv), T (k, 2, nv)
        v_n = n · (v_A(P) − v_B(P)),  v_t = t · (v_A(P) − v_B(P)),  b_t = t · (a⁰_A(P) − a⁰_B(P))
        b_n = n · (a⁰_A − a⁰_B) + 2 ṅ · (v_A − v_B) + n̈ · (r_A − r_B)   at the anchors, ṅ = ω_B × n,
              n̈ = α_B × n + ω_B × ṅ (n fixed in B: exact for planes and box faces)

    with the tangents (t1, t2) (k, 2, 3) completing n to a right-handed basis, t1 along e_x × n (e_y × n where
    |n_x| ≥ 0.9). out (k, 6) = (v_n, v_t (2), b_n, b_t (2)), or out (k, 3) = (v_n, v_t (2)) alone: the rows of a
    velocity-level step, without the bias accelerations (α⁰, p̈⁰ of ``motion`` then not read)."""
    w, dp, dw, ddp = motion[0], motion[1], motion[2], motion[3]
    nv = N.shape[1]
    biases = out.shape[1] > 3
    for k in range(body_a.shape[0]):
        n = (normal[k, 0], normal[k, 1], normal[k, 2])
        # t1 ∥ e_x × n = (0, −n_z, n_y), or e_y × n = (n_z, 0, −n_x) near ±e_x; t2 = n × t1
        t1 = (0.0, -n[2], n[1]) if abs(n[0]) < 0.9 else (n[2], 0.0, -n[0])
        length = np.sqrt(_dot(t1, t1))
        t1 = (t1[0] / length, t1[1] / length, t1[2] / length)
        t2 = cross3(n, t1)
        for c in range(3):
            tangents[k, 0, c], tangents[k, 1, c] = t1[c], t2[c]
        if biases:  # the anchors: the normal bias
            _, _, va_n, _, aa_n = point_motion(R0, p0, w, dp, dw, ddp, body_a[k], anchor_a[k])
            _, wb, vb_n, dwb, ab_n = point_motion(R0, p0, w, dp, dw, ddp, body_b[k], anchor_b[k])
            dn = cross3(wb, n)
            dwn, wdn = cross3(dwb, n), cross3(wb, dn)
            ddn = (dwn[0] + wdn[0], dwn[1] + wdn[1], dwn[2] + wdn[2])
            out[k, 3] = (_dot(n, _sub(aa_n, ab_n)) + 2 * _dot(dn, _sub(va_n, vb_n))
                         + _dot(ddn, _sub(anchor_a[k], anchor_b[k])))
        # the contact point on A and on B: velocities, bias accelerations, Jacobians
        ra, _, va, _, aa = point_motion(R0, p0, w, dp, dw, ddp, body_a[k], point[k])
        rb, _, vb, _, ab = point_motion(R0, p0, w, dp, dw, ddp, body_b[k], point[k])
        v_rel = _sub(va, vb)
        out[k, 0], out[k, 1], out[k, 2] = _dot(n, v_rel), _dot(t1, v_rel), _dot(t2, v_rel)
        if biases:
            a_rel = _sub(aa, ab)
            out[k, 4], out[k, 5] = _dot(t1, a_rel), _dot(t2, a_rel)
        # J_P = J_A(P) − J_B(P), linear part, on the two bodies' chains alone (zero elsewhere), held in the rows'
        # own storage (x, y, z in T[k, 0], T[k, 1], N[k]) until it is projected on (n, t1, t2)
        Jx, Jy, Jz = T[k, 0], T[k, 1], N[k]
        Jx[:], Jy[:], Jz[:] = 0.0, 0.0, 0.0
        if body_a[k] >= 0:
            _add_point_columns(topology, params, R0, p0, body_a[k], ra, 1.0, Jx, Jy, Jz)
        if body_b[k] >= 0:
            _add_point_columns(topology, params, R0, p0, body_b[k], rb, -1.0, Jx, Jy, Jz)
        for j in range(nv):
            J_P = (Jx[j], Jy[j], Jz[j])
            N[k, j], T[k, 0, j], T[k, 1, j] = _dot(n, J_P), _dot(t1, J_P), _dot(t2, J_P)


@njit(cache=True, inline="always")
def _add_point_columns(topology, params, R0, p0, body, r, sign, Jx, Jy, Jz):
    """J += sign · J_v, the linear rows J_v (3 × nv, world axes) of the Jacobian of the point with body coordinates
    r of ``body`` (:func:`~..dynamics._quantities.jacobian_at_poses`, in the same arithmetic): the column of joint j
    (an ancestor of the body) is R0_j S_v + (R0_j S_ω) × (P − p0_j), P = p0 + R0 r; sign 1 sets it (J zero
    there), −1 subtracts it."""
    P = (p0[body, 0] + R0[body, 0, 0] * r[0] + R0[body, 0, 1] * r[1] + R0[body, 0, 2] * r[2],
         p0[body, 1] + R0[body, 1, 0] * r[0] + R0[body, 1, 1] * r[1] + R0[body, 1, 2] * r[2],
         p0[body, 2] + R0[body, 2, 0] * r[0] + R0[body, 2, 1] * r[1] + R0[body, 2, 2] * r[2])
    j = body
    while j >= 0:
        iv = topology[j, IV]
        d0, d1, d2 = P[0] - p0[j, 0], P[1] - p0[j, 1], P[2] - p0[j, 2]
        for k in range(topology[j, NVJ]):
            _, x, y, z = point_column(params, R0, j, k, d0, d1, d2)
            if sign > 0:
                Jx[iv + k], Jy[iv + k], Jz[iv + k] = x, y, z
            else:
                Jx[iv + k], Jy[iv + k], Jz[iv + k] = Jx[iv + k] - x, Jy[iv + k] - y, Jz[iv + k] - z
        j = topology[j, PARENT]


@njit(cache=True)
def point_jacobians(topology, params, R0, p0, bodies, r, J):
    """J[k] (6 × nv) of the point r[k] (body coordinates) of bodies[k] at the poses R0, p0 (zeros for the world,
    −1); J zeroed beforehand."""
    for k in range(bodies.shape[0]):
        if bodies[k] >= 0:
            jacobian_at_poses(topology, params, R0, p0, bodies[k], r[k], J[k])


@njit(cache=True, nogil=True)
def world_motion(topology, params, q, v, R0, p0, motion, accelerations=True):
    """Body poses R0, p0 and motion = (ω, ṗ, α⁰, p̈⁰) (4, n, 3), world axes, by the recursion of the module
    docstring; False if a result is not finite. ``accelerations`` False: the velocities ω, ṗ alone (α⁰, p̈⁰ left
    as they were), for a velocity-level step."""
    world_poses(topology, params, q, R0, p0)
    zero = (0.0, 0.0, 0.0)
    finite = True
    for i in range(topology.shape[0]):
        lam = topology[i, PARENT]
        S = subspace_times(params, i, topology[i, NVJ], v, topology[i, IV])   # S_i v_i, body axes
        wJ, uJ = rotated_to_world(R0, i, S[0], S[1], S[2]), rotated_to_world(R0, i, S[3], S[4], S[5])
        if lam < 0:
            w_l, dp_l, r = zero, zero, (p0[i, 0], p0[i, 1], p0[i, 2])
        else:
            w_l, dp_l = _row(motion[0], lam), _row(motion[1], lam)
            r = (p0[i, 0] - p0[lam, 0], p0[i, 1] - p0[lam, 1], p0[i, 2] - p0[lam, 2])
        # ω_i = ω_λ + ω_J,  ṗ_i = ṗ_λ + ω_λ × r + u_J
        w_i = _sum(w_l, wJ)
        w_r = cross3(w_l, r)
        dp_i = _sum(_sum(dp_l, w_r), uJ)
        for c in range(3):
            motion[0, i, c], motion[1, i, c] = w_i[c], dp_i[c]
            finite = finite and np.isfinite(w_i[c] + dp_i[c] + p0[i, c])
        if accelerations:
            dw_l, ddp_l = (zero, zero) if lam < 0 else (_row(motion[2], lam), _row(motion[3], lam))
            # α_i = α_λ + ω_i × ω_J,  p̈_i = p̈_λ + α_λ × r + ω_λ × (ω_λ × r + u_J) + ω_i × u_J
            dw_i = _sum(dw_l, cross3(w_i, wJ))
            ddp_i = _sum(_sum(_sum(ddp_l, cross3(dw_l, r)), cross3(w_l, _sum(w_r, uJ))), cross3(w_i, uJ))
            for c in range(3):
                motion[2, i, c], motion[3, i, c] = dw_i[c], ddp_i[c]
                finite = finite and np.isfinite(dw_i[c] + ddp_i[c])
    return finite


@njit(cache=True, inline="always")
def _row(x, i):
    """x[i] of an (n, 3) array as a 3-tuple."""
    return x[i, 0], x[i, 1], x[i, 2]


@njit(cache=True, inline="always")
def _sum(x, y):
    return x[0] + y[0], x[1] + y[1], x[2] + y[2]
