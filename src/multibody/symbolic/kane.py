"""Kane's method with user-chosen generalized speeds (T. R. Kane, "A new method for formulating equations of motion").

    F_r + F_r* = 0,  r = 1..n                                    (eq. 14)
    F_r  = Σ v_r · R + ω_r · T                                    (eqs. 4, 6, 10)
    F_r* = Σ v_r · (−m a*) + ω_r · (−I α − ω × I ω)               (eqs. 5, 7–9)
         + gyrostat terms                                         (eqs. 11–13)

Nonholonomic systems (Kane & Levinson, Dynamics: Theory and Applications, ch. 4 and 6): with the constraints
solved as u_dep = A u_ind + B, the equations are F̃_r + F̃_r* = 0 for the independent speeds only, formed with
the constrained partial velocities ṽ_r = v_r + Σ_s v_s A_sr; the dependent speeds are never substituted into
the velocities (they stay symbols in X, Y and q̇, and :attr:`EquationsOfMotion.dependent_speeds` gives their
values), and u̇_dep = A u̇_ind + C from the differentiated constraints. No multipliers appear.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp
from sympy.physics.mechanics import RigidBody
from sympy.physics.vector import Vector

from ..errors import ModelError
from ..gyrostat import Gyrostat
from .eom import TIME, EquationsOfMotion
from .linsolve import random_values
from .motion import Speeds, active_forces, body_motion, cross, inertia_terms

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sympy.physics.mechanics import Particle
    from sympy.physics.vector import Point, ReferenceFrame


def kane(frame: ReferenceFrame, q: Sequence[sp.Expr], u: Sequence[sp.Expr], kinematic_equations: Sequence[sp.Expr | sp.Equality],
         bodies: Sequence[RigidBody | Particle], loads: Sequence[tuple[Point | ReferenceFrame, Vector]] = (),
         potential_energy: sp.Expr | None = None, dependent_speeds: Sequence[sp.Expr] = (), velocity_constraints: Sequence[sp.Expr] = (),
         gyrostats: Sequence[Gyrostat] = (), inputs: Sequence[sp.Expr] = (), simplify: bool = True,
         dependent_coordinates: Sequence[sp.Expr] = (), configuration_constraints: Sequence[sp.Expr] = ()) -> EquationsOfMotion:
    """Kane's equations of a system of rigid bodies and particles moving in the inertial ``frame``.

    Parameters
    ----------
    frame : ReferenceFrame
        The inertial frame A.
    q, u : sequences of dynamicsymbols
        Generalized coordinates and generalized speeds.
    kinematic_equations : sequence of expressions (= 0) or Eq
        The definitions u_r = Σ Y_rs q̇_s + Z_r (Kane, eq. 1), solvable for q̇.
    bodies : sequence of RigidBody / Particle
        Their velocities must be defined in ``frame`` (set_vel, v2pt_theory, ...).
    loads : sequence of (Point, force Vector) or (ReferenceFrame, torque Vector)
    potential_energy : expression, optional
        W(q): contributes F_r = −Σ_s ∂W/∂q_s ∂q̇_s/∂u_r (eq. 10).
    dependent_speeds, velocity_constraints :
        Nonholonomic constraints (= 0), linear in u — written in u, or in q̇ (replaced by q̇ = f(q, u)) — as
        many as dependent speeds; solved by elimination for u_dep = A u_ind + B. X, Y and q̇ keep u_dep as
        symbols; ``eom.dependent_speeds`` maps them to A u_ind + B.
    gyrostats : sequence of :class:`Gyrostat`
    inputs : symbols of specified quantities (torques, ...) kept as inputs for :meth:`EquationsOfMotion.to_numeric`.
    simplify : bool
        Simplify q̇, the dependent speeds and the final X, Y (fine for small systems). With False nothing is
        simplified anywhere (large systems: the Whipple bicycle).
    dependent_coordinates, configuration_constraints :
        Holonomic constraints f(q) = 0 (as many as dependent coordinates). Their rates ḟ = ∂f/∂q q̇ = 0 join the
        velocity constraints (solved for the dependent speeds like the nonholonomic ones) unless
        ``velocity_constraints`` already has one row per dependent speed (it then includes ḟ, as for the
        Whipple bicycle's contact). :meth:`linearize` uses f to return the state matrices of the independent
        coordinates.

    Returns
    -------
    EquationsOfMotion
    """
    holonomic = _holonomic(tuple(q), dependent_coordinates, configuration_constraints)
    velocity_constraints = _velocity_rows(velocity_constraints, dependent_speeds, holonomic)
    speeds = Speeds(q, u, kinematic_equations, dependent_speeds, velocity_constraints, simplify)
    motions = [body_motion(body, frame, speeds) for body in bodies]
    # all speeds first: X_all u̇_all = F_all + Y*_all, rows r for the unconstrained partial velocities
    X, Ystar = inertia_terms(motions, len(speeds.u_all))
    for gyrostat in gyrostats:
        dX, dY = _gyrostat_terms(gyrostat, frame, speeds)
        X, Ystar = X + dX, Ystar + dY
    F_all = active_forces(loads, frame, speeds, potential_energy)
    # constrained partial velocities ṽ_r = v_r + Σ_s v_s A_sr, u̇_dep = A u̇_ind + C
    X, Y = speeds.constrain(X, F_all + Ystar)
    F = speeds.project(F_all)
    if simplify:
        X, Y = X.applyfunc(sp.simplify), Y.applyfunc(sp.simplify)
    udot = sp.Matrix(speeds.udot)
    return EquationsOfMotion(
        method="kane", q=speeds.q, u=speeds.u, mass_matrix=X, forcing=Y, qdot=speeds.qdot,
        generalized_active_forces=F, generalized_inertia_forces=Y - F - X * udot,
        partial_velocities={m.name: (speeds.project_partials(m.W), speeds.project_partials(m.V)) for m in motions},
        inputs=tuple(inputs), dependent_speeds=speeds.dependent, velocity_constraints=speeds.constraints,
        **holonomic)


def _holonomic(q, dependent_coordinates, configuration_constraints):
    """The holonomic constraints f(q) = 0 and their dependent coordinates, checked, for the result."""
    dependent = tuple(dependent_coordinates)
    constraints = [e.lhs - e.rhs if isinstance(e, sp.Equality) else sp.sympify(e) for e in configuration_constraints]
    if [d for d in dependent if d not in q] or len(constraints) != len(dependent):
        raise ModelError(f"configuration_constraints: need one equation per dependent coordinate, and the dependent "
                         f"coordinates among q = {list(q)}; got {len(constraints)} for {list(dependent)}")
    if not dependent:
        return {}
    return dict(dependent_coordinates=dependent, configuration_constraints=sp.Matrix(constraints))


def _velocity_rows(velocity_constraints, dependent_speeds, holonomic):
    """The velocity constraints, with the rates ḟ = ∂f/∂q q̇ of the configuration constraints f(q) = 0 added
    unless the given ones already number as many as the dependent speeds (they then include ḟ)."""
    rows = list(velocity_constraints)
    if holonomic and len(rows) < len(dependent_speeds):
        rows += [f.diff(TIME) for f in holonomic["configuration_constraints"]]
    if holonomic and not dependent_speeds:
        raise ModelError(f"configuration_constraints: give dependent_speeds (one per constraint) for the rates of "
                         f"{list(holonomic['configuration_constraints'])} = 0 to be solved for")
    return rows


def _gyrostat_terms(gyrostat, frame, speeds):
    """Rotor-spin part (F_r*)_I of a gyrostat's generalized inertia forces (Kane, eqs. 12–13):

        (F_r*)_I = ω_r · J [Ω c3 × ω − Ω̇ c3] − (∂Ω/∂u_r) J (c3 · α + Ω̇),

    the second term present only for a free rotor whose spin Ω is a generalized speed. Returns (ΔX, ΔY*).
    """
    if not isinstance(gyrostat, Gyrostat):
        raise ModelError(f"gyrostats: expected multibody.Gyrostat, got {gyrostat!r}")
    if isinstance(gyrostat.carrier, str) or gyrostat.spin is None:
        raise ModelError(f"{gyrostat!r}: sym.kane needs the carrier RigidBody and the spin (an expression in t "
                         "or a generalized speed)")
    C = gyrostat.carrier.frame
    c3 = gyrostat.axis.to_matrix(C)
    if _not_unit(c3) or any(c.has(TIME) for c in c3):
        raise ModelError(f"gyrostat on '{gyrostat.carrier.name}': axis must be a unit vector fixed in the carrier, "
                         f"got {gyrostat.axis}")
    omega = C.ang_vel_in(frame).xreplace(speeds.replace)
    w = omega.to_matrix(C)
    alpha = speeds.rate(omega, frame).to_matrix(C)
    J, spin = gyrostat.polar_inertia, sp.sympify(gyrostat.spin).xreplace(speeds.replace)
    spin_rate = spin.diff(TIME).xreplace(speeds.replace)
    torque = J * (spin * cross(c3, w) - spin_rate * c3)                              # eq. 12: T_I
    axial = -J * ((c3.T * alpha)[0] + spin_rate)                                     # eq. 13: rotor's own axis
    Fstar = w.jacobian(speeds.u_all).T * torque + sp.Matrix([spin.diff(ur) for ur in speeds.u_all]) * axial
    udot = sp.Matrix(speeds.udot_all)
    return -Fstar.jacobian(udot), Fstar.xreplace({ud: 0 for ud in udot})


def _not_unit(c):
    """True unless |c| = 1 at two generic points (no simplification of the expression)."""
    norm = (c.T * c)[0] - 1
    return any(abs(complex(norm.xreplace(random_values([norm], seed)).evalf())) > 1e-12 for seed in (1, 2))
