"""Equations of motion of a tree :class:`multibody.Model`: Kane's, Lagrange's or Gauss's, assembled from the
recursive kinematics of :mod:`.tree`, with the model's force elements (:mod:`.elements`), its constraints
(:mod:`.constrained`) and, for large models, Kane's equations in auxiliary symbols (:mod:`.outboard`).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Sequence

import numpy as np
import sympy as sp
from sympy.physics.vector import dynamicsymbols

from ..errors import ModelError
from .constrained import constraint_rows, dependent_coordinates, minimal, speed_indices
from .elements import body_frames, element_forces
from .eom import TIME, EquationsOfMotion
from .gauss import gauss_function, minimized
from .lagrange import lagrange_equations
from .motion import inertia_terms, project_partials
from .outboard import outboard_kane
from .tree import _recursive_kinematics

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
        frames, rates = body_frames(model, q, u, speeds)
        # the force elements join the joint forces in F_r (Kane, eq. 4)
        tau_all = tau + element_forces(model, frames, q, u, rates)
    if intermediates:
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
        X, Y = minimized(gauss_function(motions, tau, udot), udot)
    else:
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
