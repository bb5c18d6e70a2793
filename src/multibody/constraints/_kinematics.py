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
from ..dynamics._quantities import jacobian_at_poses
from ..dynamics._inputs import as_state, raise_nonfinite
from ..dynamics._spatial_kernels import IV, NVJ, PARENT, rotated_to_world, subspace_times, world_poses
from ..errors import ModelError
from ..spatial import cross


class Snapshot:
    """World-frame kinematics of every body at one state (q, v), computed in one compiled pass
    (:func:`world_motion`).

    Attributes: ``R0`` (n, 3, 3) body → world rotations, ``p0`` (n, 3) body origins [m]; ``w``, ``dp`` (n, 3)
    angular velocity and origin velocity; ``dw``, ``ddp`` (n, 3) their bias accelerations (v̇ = 0); world axes.
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
def point_motions(R0, p0, w, dp, dw, ddp, bodies, x, out):
    """out = (r, ω, v_P, α⁰, a⁰_P) (5, k, 3) of :meth:`Snapshot.motions` for the world points x (k, 3) fixed in
    ``bodies`` (k,): r = R0ᵀ (x − p0), ρ = R0 r (x − p0 to round-off, world axes), v_P = ṗ + ω × ρ,
    a⁰_P = p̈⁰ + α⁰ × ρ + ω × (ω × ρ); on the world (−1) r = x and zero motion. out zeroed beforehand."""
    for k in range(bodies.shape[0]):
        b = bodies[k]
        if b < 0:
            out[0, k] = x[k]
            continue
        R, d = R0[b], x[k] - p0[b]
        r = (R[0, 0] * d[0] + R[1, 0] * d[1] + R[2, 0] * d[2], R[0, 1] * d[0] + R[1, 1] * d[1] + R[2, 1] * d[2],
             R[0, 2] * d[0] + R[1, 2] * d[1] + R[2, 2] * d[2])
        # ρ = R r: the body point back in world axes, as the motion of a point of body b
        rho = (R[0, 0] * r[0] + R[0, 1] * r[1] + R[0, 2] * r[2], R[1, 0] * r[0] + R[1, 1] * r[1] + R[1, 2] * r[2],
               R[2, 0] * r[0] + R[2, 1] * r[1] + R[2, 2] * r[2])
        wb, dwb = (w[b, 0], w[b, 1], w[b, 2]), (dw[b, 0], dw[b, 1], dw[b, 2])
        wr = cross3(wb, rho)
        dwr, wwr = cross3(dwb, rho), cross3(wb, wr)
        for c in range(3):
            out[0, k, c], out[1, k, c], out[3, k, c] = r[c], wb[c], dwb[c]
            out[2, k, c] = dp[b, c] + wr[c]
            out[4, k, c] = ddp[b, c] + dwr[c] + wwr[c]


@njit(cache=True)
def point_jacobians(topology, params, R0, p0, bodies, r, J):
    """J[k] (6 × nv) of the point r[k] (body coordinates) of bodies[k] at the poses R0, p0 (zeros for the world,
    −1); J zeroed beforehand."""
    for k in range(bodies.shape[0]):
        if bodies[k] >= 0:
            jacobian_at_poses(topology, params, R0, p0, bodies[k], r[k], J[k])


@njit(cache=True)
def world_motion(topology, params, q, v, R0, p0, motion):
    """Body poses R0, p0 and motion = (ω, ṗ, α⁰, p̈⁰) (4, n, 3), world axes, by the recursion of the module
    docstring; False if a result is not finite."""
    world_poses(topology, params, q, R0, p0)
    w, dp, dw, ddp = motion[0], motion[1], motion[2], motion[3]
    for i in range(topology.shape[0]):
        lam = topology[i, PARENT]
        S = subspace_times(params, i, topology[i, NVJ], v, topology[i, IV])   # S_i v_i, body axes
        wJ = np.array(rotated_to_world(R0, i, S[0], S[1], S[2]))
        uJ = np.array(rotated_to_world(R0, i, S[3], S[4], S[5]))
        if lam < 0:
            w_l, dp_l, dw_l, ddp_l, r = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3), p0[i].copy()
        else:
            w_l, dp_l, dw_l, ddp_l, r = w[lam], dp[lam], dw[lam], ddp[lam], p0[i] - p0[lam]
        # ω_i = ω_λ + ω_J,  α_i = α_λ + ω_i × ω_J
        w[i] = w_l + wJ
        dw[i] = dw_l + np.cross(w[i], wJ)
        # ṗ_i = ṗ_λ + ω_λ × r + u_J,  p̈_i = p̈_λ + α_λ × r + ω_λ × (ω_λ × r + u_J) + ω_i × u_J
        dp[i] = dp_l + np.cross(w_l, r) + uJ
        ddp[i] = ddp_l + np.cross(dw_l, r) + np.cross(w_l, np.cross(w_l, r) + uJ) + np.cross(w[i], uJ)
    return np.isfinite(motion).all() and np.isfinite(p0).all()
