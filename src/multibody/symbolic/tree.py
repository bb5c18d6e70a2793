"""Kinematics of a tree :class:`multibody.Model` generated recursively in body frames, for its symbolic equations
of motion (:mod:`.equations`).

Each body's angular velocity ω, mass-center velocity and their partial velocities (T. R. Kane, "A new method for
formulating equations of motion",
eqs. 2–3) are carried from parent to child in the child's own axes, one joint rotation at a time:

    ω_i = Rᵀ ω_p + S_ω u_i,                     W_i = Rᵀ W_p + [S_ω]
    v_i = Rᵀ (v_p + ω_p × r) + S_v u_i,         V_i = Rᵀ (V_p − [r]× W_p) + [S_v]
    α_i = Rᵀ α_p + (Rᵀω_p) × ω_rel + Ṡ_ω u_i
    a_i = Rᵀ (a_p + α_p × r + ω_p × (ω_p × r)) + (2 Rᵀω_p + ω_rel) × v_rel + Ṡ_v u_i

(R, r: pose of body i in its parent, ω_rel = S_ω u_i, v_rel = S_v u_i; α, a: the parts not multiplying u̇),
so that no expression is ever rotated into the inertial frame. Each body's record for the assembly is taken
in its parent's axes, one rotation short (see :func:`_recursive_kinematics`); the formulations (Kane,
Lagrange, Gauss) then assemble X u̇ = Y from these records.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from ..errors import ModelError
from .eom import TIME
from .motion import BodyMotion, cross

if TYPE_CHECKING:
    from ..model import Model


def _exact(x):
    """A model number as a sympy number: integers exactly, other floats as Floats, symbols unchanged."""
    if isinstance(x, sp.Basic) and not x.is_Float:
        return x
    value = float(x)
    return sp.Integer(int(value)) if value.is_integer() else sp.Float(value)


def _matrix(array):
    array = np.asarray(array, dtype=object)
    return sp.Matrix(array.shape[0], array.size // array.shape[0], [_exact(x) for x in array.ravel()])


def _joint_kinematics(joint, qj, uj, speeds, body):
    """(R_J, t_J, S, q̇_j) of the joint (:meth:`~multibody.model.joints.Joint.symbolic_kinematics`); ModelError
    naming the body for speeds u = q̇ on a joint with quaternion coordinates, or a type the symbolic path lacks."""
    if joint.quaternion_at is not None and speeds == "qdot":
        raise ModelError(f"body '{body}': joint '{joint.name}' ({type(joint).__name__}) has quaternion coordinates, "
                         "so u = q̇ is not a valid choice of speeds; use speeds='body'")
    try:
        return joint.symbolic_kinematics(qj, uj, speeds, _matrix(joint.axis))
    except ModelError as error:
        raise ModelError(f"body '{body}': {error}") from None


def _joint_step(joint, placement, qj, uj, speeds, body):
    """(R, r, S, Ṡu, q̇_j): the body's rotation R (body axes → parent axes) and origin r (parent axes) in its
    parent, its motion subspace S (6 × nv, body axes) and Ṡ u with q̇ = f(q, u), and the joint's q̇ = f(q, u)."""
    R_J, t_J, S, qdot_j = _joint_kinematics(joint, qj, uj, speeds, body)
    R_pl = _matrix(placement.rotation)
    rates = dict(zip([qk.diff(TIME) for qk in qj], qdot_j))
    Sdot_u = (S.diff(TIME).xreplace(rates) * sp.Matrix(uj)) if uj else sp.zeros(6, 1)
    return R_pl * R_J, _matrix(placement.translation) + R_pl * t_J, S, Sdot_u, qdot_j


def _carry(R, r, S, Sdot_u, uj, w_p, al_p, a_p, name=lambda M: M):
    """ω, α, a of the body origin in body axes from the parent's (parent axes), the recursion of the module
    docstring; and the joint's share (ω_rel, α_rel, a_rel) in body axes with the parent's origin acceleration
    carried to the joint, a_p + α_p × r + ω_p × (ω_p × r) (parent axes). ``name`` names intermediate columns."""
    Rt = R.T
    rel = S * sp.Matrix(uj) if uj else sp.zeros(6, 1)
    w_rel, v_rel = rel[:3, :], rel[3:, :]
    wp = name(Rt * w_p)
    alpha_rel = cross(wp, w_rel) + Sdot_u[:3, :]
    accel_rel = cross(2 * wp + w_rel, v_rel) + Sdot_u[3:, :]
    transport = name(a_p + cross(al_p, r) + cross(w_p, cross(w_p, r)))
    body_axes = (wp + w_rel, Rt * al_p + alpha_rel, Rt * transport + accel_rel)
    return body_axes, (w_rel, alpha_rel, accel_rel, transport)


def _carry_partials(R, r, S, cols, W_p, V_p):
    """The partial angular velocities W and partial velocities V of the body origin (3 × n, body axes) from the
    parent's: W = Rᵀ W_p + [S_ω], V = Rᵀ (V_p − [r]× W_p) + [S_v] (columns ``cols`` are the joint's speeds)."""
    W, V = R.T * W_p, R.T * (V_p - _skew(r) * W_p)
    W[:, cols] += S[:3, :]
    V[:, cols] += S[3:, :]
    return W, V


def _recursive_kinematics(model, q, u, speeds):
    """Per body, parent before child: the BodyMotion record (mass center) in the axes of the body's parent
    (world axes for a root body), the partial velocities (ω_r, v*_r) in the body's own axes, and gravity in
    the parent's axes; and q̇ = f(q, u).

    The recursion itself runs in body axes; each body's record is taken one rotation earlier, in its parent's
    axes, where the inherited ω_p, α_p, a_p are not yet rotated (only the body's own inertia and mass center
    are turned into parent axes), which keeps the expressions of X and Y about half as long.
    """
    n = model.nv
    gravity = _matrix(model.gravity)
    frames = []  # per body: (ω, W, α_t, V_origin, a_t origin, g) in body axes
    motions, partials, gravity_terms, qdot = [], [], [], []
    iq = iv = 0
    for body, joint, parent, placement in zip(model.bodies, model.joints, model.parents, model.placements):
        qj, uj = q[iq:iq + joint.nq], u[iv:iv + joint.nv]
        R, r, S, Sdot_u, qdot_j = _joint_step(joint, placement, qj, uj, speeds, body.name)
        if parent < 0:
            # the base accelerates at −g: gravity enters every a* as the inertial field (RBDA §5.3)
            w_p, al_p, W_p, V_p = sp.zeros(3, 1), sp.zeros(3, 1), sp.zeros(3, n), sp.zeros(3, n)
            a_p, g = -gravity, gravity
        else:
            w_p, W_p, al_p, V_p, a_p, g = frames[parent]
        cols = slice(iv, iv + joint.nv)
        (omega, alpha, accel), (w_rel, alpha_rel, accel_rel, transport) = _carry(R, r, S, Sdot_u, uj, w_p, al_p, a_p)
        # parent axes: ω = ω_p + R ω_rel, W = W_p + [R S_ω], V = V_p − [r]× W_p + [R S_v]
        W_par, V_par = W_p.copy(), V_p - _skew(r) * W_p
        W_par[:, cols] += R * S[:3, :]
        V_par[:, cols] += R * S[3:, :]
        omega_par = w_p + R * w_rel
        alpha_par = al_p + R * alpha_rel
        accel_par = transport + R * accel_rel
        # body axes, for the children: the same quantities rotated by Rᵀ, built from the parent's (no R Rᵀ products)
        W, V = _carry_partials(R, r, S, cols, W_p, V_p)
        frames.append((omega, W, alpha, V, accel, R.T * g))
        # mass center at d = R c from the body origin: v* = v + ω × d, a* = a + α × d + ω × (ω × d)
        c = _matrix(body.com)
        d = R * c
        Vc = V_par - _skew(d) * W_par
        ac = accel_par + cross(alpha_par, d) + cross(omega_par, cross(omega_par, d))
        # translation of the mass center in parent axes, rotation about it in body axes (both frame-invariant)
        zero3, zero3n = sp.zeros(3, 1), sp.zeros(3, n)
        motions.append(BodyMotion(body.name, _exact(body.mass), sp.zeros(3, 3), omega_par, W_par, alpha_par, Vc, ac))
        motions.append(BodyMotion(body.name, sp.Integer(0), _matrix(body.inertia), omega, W, alpha, zero3n, zero3))
        partials.append((W, V - _skew(c) * W))
        gravity_terms.append(g)
        qdot.extend(qdot_j)
        iq, iv = iq + joint.nq, iv + joint.nv
    return motions, partials, sp.Matrix(qdot), gravity_terms


def _skew(v):
    return sp.Matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def symbolic_chain(n: int, axes: str = "xyz") -> tuple[Model, dict[str, tuple[sp.Symbol, ...]]]:
    """The n-link 3D pendulum of :meth:`multibody.Model.chain` with symbolic parameters.

    Link k (k = 0..n−1) is a rod along its x axis with mass ``m_k``, length ``l_k``, mass center at l_k/2 and
    principal central moments ``Ixx_k, Iyy_k, Izz_k``; joint k is revolute about ``axes[k % len(axes)]``;
    gravity is (0, 0, −g). Returns (model, symbols) with symbols a dict name -> tuple of sympy Symbols.
    """
    from ..model import Body, Model, Revolute
    from ..spatial import Transform
    unit = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}
    symbols = {name: sp.symbols(f"{name}_0:{n}", positive=True) for name in ("m", "l", "Ixx", "Iyy", "Izz")}
    g = sp.Symbol("g", positive=True)
    symbols["g"] = (g,)
    model = Model(f"chain{n}", gravity=(0, 0, -g))
    parent = "world"
    for k in range(n):
        m, l = symbols["m"][k], symbols["l"][k]
        inertia = sp.diag(symbols["Ixx"][k], symbols["Iyy"][k], symbols["Izz"][k])
        body = Body(f"link{k + 1}", mass=m, com=(l / 2, 0, 0), inertia=inertia)
        offset = (0, 0, 0) if k == 0 else (symbols["l"][k - 1], 0, 0)
        model.add(body, parent=parent, joint=Revolute(unit[axes[k % len(axes)]]),
                  placement=Transform(translation=offset))
        parent = body.name
    return model, symbols
