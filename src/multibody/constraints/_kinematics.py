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

from ..dynamics import body_poses, jacobian


def cross(a, b):
    """a × b for 3-vectors (an order of magnitude faster than numpy.cross on single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


class Snapshot:
    """World-frame kinematics of every body at one state (q, v).

    Attributes: ``R0`` (n, 3, 3) body → world rotations, ``p0`` (n, 3) body origins [m]; ``w``, ``dp`` (n, 3)
    angular velocity and origin velocity; ``dw``, ``ddp`` (n, 3) their bias accelerations (v̇ = 0); world axes.
    """

    def __init__(self, model, q, v):
        self.model, self.nv = model, model.nv
        self.q = np.asarray(q, dtype=np.float64)
        self.v = np.asarray(v, dtype=np.float64)
        self.R0, self.p0 = body_poses(model, self.q)
        n = model.nbodies
        self.w, self.dp, self.dw, self.ddp = (np.zeros((n, 3)) for _ in range(4))
        zero = np.zeros(3)
        for i, (joint, parent) in enumerate(zip(model.joints, model.parents)):
            S = joint.motion_subspace() @ self.v[model.v_slice(joint.name)]
            wJ, uJ = self.R0[i] @ S[:3], self.R0[i] @ S[3:]
            if parent < 0:
                w_l, dp_l, dw_l, ddp_l, r = zero, zero, zero, zero, self.p0[i]
            else:
                w_l, dp_l, dw_l, ddp_l = self.w[parent], self.dp[parent], self.dw[parent], self.ddp[parent]
                r = self.p0[i] - self.p0[parent]
            self.w[i] = w_l + wJ
            self.dw[i] = dw_l + cross(self.w[i], wJ)
            self.dp[i] = dp_l + cross(w_l, r) + uJ
            self.ddp[i] = (ddp_l + cross(dw_l, r) + cross(w_l, cross(w_l, r) + uJ)
                           + cross(self.w[i], uJ))

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

    def jacobian(self, body, r):
        """J (6 × nv), world axes, [ω; v_P] = J v for the point with body coordinates r (zeros for the world)."""
        if body < 0:
            return np.zeros((6, self.nv))
        return jacobian(self.model, self.q, self.model.bodies[body].name, r)
