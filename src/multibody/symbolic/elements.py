"""Force elements and loop constraints of a tree :class:`multibody.Model`, symbolically.

Both need where bodies are, not only how they move, so the tree's joint steps are composed once more into world
poses (R_i: body → world axes, p_i: origin in world axes) and body-axis angular velocities:

    R_i = R_p R,   p_i = p_p + R_p r,   ω_i = Rᵀ ω_p + S_ω u_i                    (R, r: pose in the parent)

A point P fixed in body i is at p_i + R_i r_P; its partial velocities are ∂p_P/∂q ∂q̇/∂u (q̇ = f(q, u)).

Force elements enter the generalized active forces (T. R. Kane, "A new method for formulating equations of motion",
eq. 4: F_r = Σ v_r · R + ω_r · T):

    JointSpring      F_j = −k (q_j − q₀) − c u_j
    JointFriction    F_j = −F_c tanh(u_j / v_s)
    Spring           F = −T (∂L/∂u)ᵀ, L = |p_b − p_a|, T = k (L − L₀) + c L̇
    Gyrostat         F = W_Cᵀ n, n = −J Ω ω × c (carrier axes, eq. 12 with Ω̇ = 0)

Constraints (loops, rolling, knife edges, ...) are in :mod:`.constrained`.
"""
from __future__ import annotations

import sympy as sp

from ..errors import ModelError
from .eom import TIME
from .motion import cross
from .tree import _exact, _joint_step, _matrix


def body_frames(model, q, u, speeds):
    """Per body (R, p, ω): rotation body → world, origin (world axes), angular velocity (body axes); and
    q̇ = f(q, u)."""
    frames, qdot = [], []
    iq = iv = 0
    for body, joint, parent, placement in zip(model.bodies, model.joints, model.parents, model.placements):
        qj, uj = q[iq:iq + joint.nq], u[iv:iv + joint.nv]
        R, r, S, _, qdot_j = _joint_step(joint, placement, qj, uj, speeds, body.name)
        R_p, p_p, w_p = frames[parent] if parent >= 0 else (sp.eye(3), sp.zeros(3, 1), sp.zeros(3, 1))
        frames.append((R_p * R, p_p + R_p * r, R.T * w_p + S[:3, :] * sp.Matrix(len(uj), 1, uj)))
        qdot.extend(qdot_j)
        iq, iv = iq + joint.nq, iv + joint.nv
    return frames, sp.Matrix(qdot)


def _point(frames, index, r):
    """World position of the point r (body coordinates) of body ``index`` (−1: r is in world axes)."""
    if index < 0:
        return _matrix(r)
    R, p, _ = frames[index]
    return p + R * _matrix(r)


def element_forces(model, frames, q, u, qdot):
    """Σ F_r of the model's force elements (nv × 1); ModelError for an element without a symbolic form."""
    N = qdot.jacobian(u)
    F = sp.zeros(len(u), 1)
    for element in model.forces:
        form = _FORMS.get(getattr(element, "kind", None))
        if form is None:
            raise ModelError(f"force element {getattr(element, 'name', element)!r} ({type(element).__name__}): "
                             f"the symbolic equations support {', '.join(_FORMS)}")
        F += form(element, model, frames, q, u, N)
    return F


def _joint_spring(spring, model, frames, q, u, N):
    """F_j = −k (q_j − q₀) − c u_j at the joint's speed."""
    F = sp.zeros(len(u), 1)
    iq, iv = model.q_slice(spring.joint).start, model.v_slice(spring.joint).start
    F[iv] = -_exact(spring.stiffness) * (q[iq] - _exact(spring.rest)) - _exact(spring.damping) * u[iv]
    return F


def _joint_friction(friction, model, frames, q, u, N):
    """F_j = −F_c tanh(u_j / v_s) at the joint's speed."""
    F = sp.zeros(len(u), 1)
    iv = model.v_slice(friction.joint).start
    F[iv] = -_exact(friction.friction) * sp.tanh(u[iv] / _exact(friction.velocity_scale))
    return F


def _spring(spring, model, frames, q, u, N):
    """F = −T (∂L̇/∂u)ᵀ: tension T = k (L − L₀) + c L̇ along the line from a to b, L̇ = eᵀ ḋ, e = d / L."""
    ends = [_point(frames, model.body_index(b) if b != "world" else -1, r)
            for b, r in ((spring.a, spring.point_a), (spring.b, spring.point_b))]
    d = ends[1] - ends[0]
    length = sp.sqrt((d.T * d)[0])
    # ∂ḋ/∂u = ∂d/∂q ∂q̇/∂u (3 × n): the partial velocities of b relative to a
    partials = d.jacobian(q) * N
    rate = (d.T * partials * sp.Matrix(u))[0] / length
    tension = _exact(spring.stiffness) * (length - _exact(spring.rest_length)) + _exact(spring.damping) * rate
    return -tension * (partials.T * d) / length


def _gyrostat(gyrostat, model, frames, q, u, N):
    """F = W_Cᵀ n with n = −J Ω ω × c, ω and W_C = ∂ω/∂u of the carrier in its axes (Kane, eq. 12)."""
    omega = frames[model.body_index(gyrostat.carrier)][2]
    c = _matrix(gyrostat.axis)
    moment = -_exact(gyrostat.polar_inertia) * _exact(gyrostat.spin) * cross(omega, c)
    return omega.jacobian(u).T * moment


_FORMS = {"joint_spring": _joint_spring, "joint_friction": _joint_friction, "spring": _spring,
          "gyrostat": _gyrostat}
