"""Equations of motion of a tree :class:`multibody.Model`, kinematics generated recursively in body frames.

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

import warnings
from typing import TYPE_CHECKING, Sequence

import numpy as np
import sympy as sp
from sympy.physics.vector import dynamicsymbols

from ..errors import ModelError
from .eom import TIME, EquationsOfMotion
from .motion import BodyMotion, cross, inertia_terms

if TYPE_CHECKING:
    from ..model import Model

METHODS = ("kane", "lagrange", "gauss")


AUXILIARY_ABOVE = 6  # bodies: Kane's equations of larger models are written in auxiliary symbols by default


def equations_of_motion(model: Model, method: str = "kane", speeds: str | None = None,
                        torques: bool = False, intermediates: bool | None = None,
                        independent_speeds: Sequence[int | str] | None = None) -> EquationsOfMotion:
    """X u̇ = Y of a tree ``model`` whose parameters may be sympy symbols.

    The model's force elements (JointSpring, JointFriction, Spring, a Gyrostat with a constant spin) add to
    F_r. Its equality constraints — Connect, Weld, Align, PointOnPlane, RollingDisk, RollingSphere, KnifeEdge,
    Mimic, and Holonomic/Nonholonomic rows given as sympy expressions — give X u̇ = Y + Bᵀλ, B u̇ = c with
    multipliers (method "lagrange", Mukharlyamov n.d.), or the equations of the independent speeds, the dependent
    ones u_dep = A u_ind + β in ``eom.dependent_speeds`` (methods "kane" and "gauss"), and with holonomic rows
    (u = q̇) the dependent coordinates of φ(q) = 0 for :meth:`~.EquationsOfMotion.linearize`; see
    :mod:`.constrained`. Other elements and constraint types (JointLimit, callables) raise ModelError.

    Parameters
    ----------
    model : multibody.Model
    method : "kane" (default), "lagrange" or "gauss" — all three give the same X and Y.
    speeds : "qdot" (u = q̇; X = crba(q), Y = −rnea(q, u, 0) + τ) or "body" (u = the model's joint velocity v,
        e.g. body-axis angular velocity for Spherical/Free joints). Default: "body" for a model with quaternion
        (Spherical, Free) joints, else "qdot".
    torques : bool
        Add joint generalized forces τ_0..τ_{n−1} (symbols ``tau_k``, conjugate to u_k) as inputs.
    intermediates : bool or None
        None (default): True for method="kane" on a model of more than AUXILIARY_ABOVE = 6 bodies, said in a
        one-line warning (expanded, the equations of a 16-link chain take minutes to turn into code, against
        seconds), else False. True: Kane's equations summed over outboard bodies with every recursive intermediate
        quantity (sin q, rotation
        entries, ω, α, a, partial velocities, resultants, composite bodies) an auxiliary symbol z_k
        (:mod:`.outboard`): X, Y, F_r, F_r* and the partial velocities are short expressions in the z_k, whose
        definitions are ``eom.auxiliaries``; ``eom.expanded()`` substitutes them back (the same values as
        ``intermediates=False``, grouped differently). Derivation and generated code grow as n² for an n-link
        chain instead of exponentially. Only with method="kane".
    independent_speeds : sequence of speed indices or joint names, optional
        With constraints, Kane and Gauss: the speeds to keep (as many as the degrees of freedom); the others are
        solved for. Default: chosen by pivoting on the constraint matrix at a generic configuration (the chosen
        ones are ``eom.u``, the others the keys of ``eom.dependent_speeds``).

    Returns
    -------
    EquationsOfMotion, with q = q_0(t).., u = u_0(t).. (the independent ones with loop constraints and Kane or
    Gauss); partial velocities in body axes; X in the model's units (SI: kg, kg m²), Y and F_r in N, N m.
    """
    if method not in METHODS:
        raise ValueError(f"equations_of_motion: method must be one of {METHODS}, got {method!r}")
    if speeds is None:
        speeds = "body" if any(j.quaternion_at is not None for j in model.joints) else "qdot"
    if speeds not in ("qdot", "body"):
        raise ValueError(f"equations_of_motion: speeds must be 'qdot' or 'body', got {speeds!r}")
    if intermediates is None:
        intermediates = method == "kane" and model.nbodies > AUXILIARY_ABOVE
        if intermediates:
            warnings.warn(f"equations_of_motion: model '{model.name}' has {model.nbodies} bodies (more than "
                          f"{AUXILIARY_ABOVE}): X and Y are written in auxiliary symbols (eom.auxiliaries; "
                          "eom.expanded() substitutes them; intermediates=False keeps them expanded, far slower)",
                          stacklevel=2)
    if intermediates and method != "kane":
        raise ValueError(f"equations_of_motion: intermediates=True is Kane's method, got method={method!r}")
    if not model.bodies:
        raise ModelError(f"model '{model.name}': has no bodies")
    beams = [b.name for b in model.bodies if b.ne]
    if beams:
        raise ModelError(f"equations_of_motion: model '{model.name}' has flexible beams ({', '.join(beams)}); their "
                         "symbolic equations are not supported (the numeric algorithms take them)")
    q, u = dynamicsymbols(f"q_0:{model.nq}"), dynamicsymbols(f"u_0:{model.nv}")
    q, u = list(np.atleast_1d(q)), list(np.atleast_1d(u))
    tau = sp.Matrix(sp.symbols(f"tau_0:{model.nv}")) if torques else sp.zeros(model.nv, 1)
    udot = sp.Matrix([ui.diff(TIME) for ui in u])
    tau_all = tau
    if model.forces:
        from .elements import body_frames, element_forces
        frames, rates = body_frames(model, q, u, speeds)
        # the force elements join the joint forces in F_r (Kane, eq. 4)
        tau_all = tau + element_forces(model, frames, q, u, rates)
    if intermediates:
        from .outboard import outboard_kane
        X, Y, F, partials, qdot, auxiliaries = outboard_kane(model, q, u, speeds, tau_all)
    else:
        X, Y, F, partials, qdot = _expanded_equations(model, method, q, u, speeds, tau_all, udot)
        auxiliaries = ()
    fields = dict(method=method, q=tuple(q), u=tuple(u), mass_matrix=X, forcing=Y, qdot=qdot,
                  generalized_active_forces=F, partial_velocities={b.name: p for b, p in zip(model.bodies, partials)},
                  inputs=tuple(tau) if torques else (), auxiliaries=tuple(auxiliaries))
    if model.constraints:
        fields.update(_constrained(model, method, speeds, q, u, fields, independent_speeds))
    X, Y, F = fields["mass_matrix"], fields["forcing"], fields["generalized_active_forces"]
    udot = sp.Matrix([ui.diff(TIME) for ui in fields["u"]])
    return EquationsOfMotion(**fields, generalized_inertia_forces=Y - F - X * udot)


def _constrained(model, method, speeds, q, u, fields, independent_speeds):
    """The fields that the model's constraints change: for Lagrange, multipliers λ with the constraint matrix B
    and B u̇ = c (X u̇ = Y + Bᵀλ, Mukharlyamov n.d.); for Kane and Gauss, the equations of the independent speeds, the
    dependent ones u_dep = A u_ind + β kept as symbols (:func:`.constrained.minimal`). With u = q̇ the holonomic
    rows φ(q) = 0 name their dependent coordinates (among the dependent speeds' where they can)."""
    from .constrained import constraint_rows, dependent_coordinates, minimal, speed_indices
    from .motion import project_partials
    qdot = fields["qdot"]
    rows = constraint_rows(model, q, u, speeds)
    if method == "lagrange":
        return dict(multipliers=sp.symbols(f"lambda_0:{rows.B.rows}"), constraint_matrix=rows.B,
                    constraint_rhs=rows.c)
    independent = None if independent_speeds is None else speed_indices(model, independent_speeds,
                                                                          "independent_speeds")
    order, A, beta, X, Y, F = minimal(fields["mass_matrix"], fields["forcing"], fields["generalized_active_forces"],
                                      rows, u, independent)
    n = A.cols
    u_ind, dep = [u[i] for i in order[:n]], order[n:]
    holonomic = {}
    if rows.phi.rows and qdot == sp.Matrix(u):
        coordinates = dependent_coordinates(rows.phi, q, dep, rows.generic)
        holonomic = dict(dependent_coordinates=tuple(q[i] for i in coordinates), configuration_constraints=rows.phi)
    partials = {name: tuple(project_partials(P.extract(list(range(P.rows)), order), A) for P in pair)
                for name, pair in fields["partial_velocities"].items()}
    return dict(u=tuple(u_ind), mass_matrix=X, forcing=Y, generalized_active_forces=F, partial_velocities=partials,
                dependent_speeds=dict(zip([u[i] for i in dep], A * sp.Matrix(u_ind) + beta)),
                velocity_constraints=rows.B * sp.Matrix(u) + rows.b, **holonomic)


def _expanded_equations(model, method, q, u, speeds, tau, udot):
    """(X, Y, F_r, partial velocities, q̇) by ``method`` on the records of :func:`_recursive_kinematics`."""
    motions, partials, qdot, gravity_terms = _recursive_kinematics(model, q, u, speeds)
    # F_r: gravity m g on every mass center (Kane, eq. 6) and the joint forces
    F = sum((b.V.T * (b.mass * g) for b, g in zip(motions[::2], gravity_terms)), sp.zeros(model.nv, 1)) + tau
    # the records' a* include −g, so the inertia terms already carry gravity: Y = τ + Y*(with gravity)
    if method == "kane":
        X, Y = inertia_terms(motions, model.nv)
        Y += tau
    elif method == "gauss":
        from .gauss import gauss_function, minimized
        X, Y = minimized(gauss_function(motions, tau, udot), udot)
    else:
        from .lagrange import lagrange_equations
        if qdot != sp.Matrix(u):
            raise ModelError("equations_of_motion: method='lagrange' needs u = q̇ "
                             "(speeds='qdot', no quaternion joints)")
        T = sum((_kinetic_energy(b, u) for b in motions), sp.Integer(0))
        X, Y = lagrange_equations(T, q, u, F, dict(zip([qi.diff(TIME) for qi in q], u)))
    return X, Y, F, partials, qdot


def _kinetic_energy(b, u):
    """½ m v*·v* + ½ ω·I ω for a scleronomic tree (v* = V u)."""
    v = b.V * sp.Matrix(u)
    return (b.mass * (v.T * v)[0] + (b.omega.T * b.inertia * b.omega)[0]) / 2


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
