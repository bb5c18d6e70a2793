"""Kane's method with user-chosen generalized speeds (source document 000).

    F_r + F_r* = 0,  r = 1..n                                    (eq. 14)
    F_r  = Σ v_r · R + ω_r · T                                    (eqs. 4, 6, 10)
    F_r* = Σ v_r · (−m a*) + ω_r · (−I α − ω × I ω)               (eqs. 5, 7–9)
         + gyrostat terms                                         (eqs. 11–13)

Nonholonomic systems: the dependent speeds are eliminated before the accelerations are formed, so the
partial velocities are those of the constrained system and no multipliers appear.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.physics.mechanics import RigidBody
from sympy.physics.vector import Vector

from ..errors import ModelError
from .eom import TIME, EquationsOfMotion
from .motion import Speeds, active_forces, body_motion, cross, inertia_terms


@dataclass(frozen=True)
class Gyrostat:
    """An axisymmetric rotor D spinning inside a carrier C (document 000, eqs. 11–13).

    ``carrier`` is a RigidBody whose mass and inertia are those of the whole gyrostat (carrier plus rotor,
    the rotor taken as not spinning); ``axis`` is the rotor's unit axis c3 (a Vector fixed in the carrier);
    ``polar_moment`` J is the rotor's moment of inertia about c3 [kg·m²]; ``spin`` Ω is the rotor's spin
    rate relative to C [rad/s]: an expression in t for a prescribed spin (eq. 12), or one of the generalized
    speeds for a free rotor (eq. 13).
    """

    carrier: RigidBody
    axis: Vector
    polar_moment: sp.Expr
    spin: sp.Expr


def kane(frame, q, u, kinematic_equations, bodies, loads=(), potential_energy=None, dependent_speeds=(),
         velocity_constraints=(), gyrostats=(), inputs=(), simplify=True):
    """Kane's equations of a system of rigid bodies and particles moving in the inertial ``frame``.

    Parameters
    ----------
    frame : ReferenceFrame
        The inertial frame A.
    q, u : sequences of dynamicsymbols
        Generalized coordinates and generalized speeds.
    kinematic_equations : sequence of expressions (= 0) or Eq
        The definitions u_r = Σ Y_rs q̇_s + Z_r (document 000, eq. 1), solvable for q̇.
    bodies : sequence of RigidBody / Particle
        Their velocities must be defined in ``frame`` (set_vel, v2pt_theory, ...).
    loads : sequence of (Point, force Vector) or (ReferenceFrame, torque Vector)
    potential_energy : expression, optional
        W(q): contributes F_r = −Σ_s ∂W/∂q_s ∂q̇_s/∂u_r (eq. 10).
    dependent_speeds, velocity_constraints :
        Nonholonomic constraints, linear in u (= 0), solved for the dependent speeds, which are eliminated.
    gyrostats : sequence of :class:`Gyrostat`
    inputs : symbols of specified quantities (torques, ...) kept as inputs for :meth:`EquationsOfMotion.to_numeric`.
    simplify : bool
        Simplify q̇, the dependent speeds and the final X, Y (fine for small systems).

    Returns
    -------
    EquationsOfMotion
    """
    speeds = Speeds(q, u, kinematic_equations, dependent_speeds, velocity_constraints, simplify)
    n = len(speeds.u)
    motions = [body_motion(body, frame, speeds) for body in bodies]
    X, Ystar = inertia_terms(motions, n)
    for gyrostat in gyrostats:
        dX, dY = _gyrostat_terms(gyrostat, frame, speeds)
        X, Ystar = X + dX, Ystar + dY
    F = active_forces(loads, frame, speeds, potential_energy)
    Y = F + Ystar
    if simplify:
        X, Y = X.applyfunc(sp.simplify), Y.applyfunc(sp.simplify)
    udot = sp.Matrix(speeds.udot)
    return EquationsOfMotion(
        method="kane", q=speeds.q, u=speeds.u, mass_matrix=X, forcing=Y, qdot=speeds.qdot,
        generalized_active_forces=F, generalized_inertia_forces=Ystar - X * udot,
        partial_velocities={m.name: (m.W, m.V) for m in motions}, inputs=tuple(inputs),
        dependent_speeds=speeds.dependent)


def _gyrostat_terms(gyrostat, frame, speeds):
    """Rotor-spin part (F_r*)_I of a gyrostat's generalized inertia forces (document 000, eqs. 12–13):

        (F_r*)_I = ω_r · J [Ω c3 × ω − Ω̇ c3] − (∂Ω/∂u_r) J (c3 · α + Ω̇),

    the second term present only for a free rotor whose spin Ω is a generalized speed. Returns (ΔX, ΔY*).
    """
    if not isinstance(gyrostat, Gyrostat):
        raise ModelError(f"gyrostats: expected multibody.symbolic.Gyrostat, got {gyrostat!r}")
    C = gyrostat.carrier.frame
    c3 = gyrostat.axis.to_matrix(C)
    if sp.simplify((c3.T * c3)[0] - 1) != 0 or any(c.has(TIME) for c in c3):
        raise ModelError(f"gyrostat on '{gyrostat.carrier.name}': axis must be a unit vector fixed in the carrier, "
                         f"got {gyrostat.axis}")
    omega = C.ang_vel_in(frame).xreplace(speeds.replace)
    w = omega.to_matrix(C)
    alpha = speeds.rate(omega, frame).to_matrix(C)
    J, spin = gyrostat.polar_moment, sp.sympify(gyrostat.spin).xreplace(speeds.replace)
    spin_rate = spin.diff(TIME).xreplace(speeds.replace)
    torque = J * (spin * cross(c3, w) - spin_rate * c3)                              # eq. 12: T_I
    axial = -J * ((c3.T * alpha)[0] + spin_rate)                                     # eq. 13: rotor's own axis
    Fstar = w.jacobian(speeds.u).T * torque + sp.Matrix([spin.diff(ur) for ur in speeds.u]) * axial
    udot = sp.Matrix(speeds.udot)
    return -Fstar.jacobian(udot), Fstar.xreplace({ud: 0 for ud in udot})
