"""Gauss's principle of least constraint in generalized coordinates (Yao Wenli, "Modelling multi-rigid-body systems by
Gauss's principle of least constraint in generalized coordinates" (2016)).

Among all accelerations compatible with the constraints the true one minimizes Z = ½ Σ mᵢ (r̈ᵢ − Fᵢ/mᵢ)²
(eq. 1). For rigid bodies, dropping the terms free of u̇, this is the Gauss function

    G(u̇) = Σ [½ m a*·a* + ½ α·I α + α·(ω × I ω)] − Σ_r F_r u̇_r  =  ½ u̇ᵀ X u̇ − Yᵀ u̇ + const   (eqs. 5, 7)

whose minimizer satisfies X u̇ = Y. Between coordinate systems only the Jacobian is needed (eqs. 10–11):
M' = Jᵀ M J, g' = Jᵀ (M J̇ q̇' + H), Q' = Jᵀ Q with J = ∂X/∂q'.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sympy as sp

from .eom import TIME, EquationsOfMotion
from .motion import Speeds, active_forces, body_motion, cross

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sympy.physics.mechanics import Particle, RigidBody
    from sympy.physics.vector import Point, ReferenceFrame, Vector


def gauss_function(motions, F, udot):
    """G(u̇) of the bodies' :class:`~.motion.BodyMotion` records and generalized active forces F (eq. 7)."""
    G = -(F.T * udot)[0]
    for b in motions:
        a = b.V * udot + b.a_t
        alpha = b.W * udot + b.alpha_t
        G += b.mass * (a.T * a)[0] / 2 + (alpha.T * b.inertia * alpha)[0] / 2
        G += (alpha.T * cross(b.omega, b.inertia * b.omega))[0]
    return G


def minimized(G, udot):
    """(X, Y) of the stationarity condition ∂G/∂u̇ = X u̇ − Y = 0 of a quadratic Gauss function."""
    gradient = sp.Matrix([G.diff(ud) for ud in udot])
    X = gradient.jacobian(udot)
    Y = -gradient.xreplace({ud: 0 for ud in udot})
    return X, Y


def gauss(frame: ReferenceFrame, q: Sequence[sp.Expr], u: Sequence[sp.Expr], kinematic_equations: Sequence[sp.Expr | sp.Equality],
          bodies: Sequence[RigidBody | Particle], loads: Sequence[tuple[Point | ReferenceFrame, Vector]] = (),
          potential_energy: sp.Expr | None = None, dependent_speeds: Sequence[sp.Expr] = (), velocity_constraints: Sequence[sp.Expr] = (),
          inputs: Sequence[sp.Expr] = (), simplify: bool = True) -> EquationsOfMotion:
    """Equations of motion as the minimizer of the Gauss function; same arguments as :func:`.kane`.

    Returns an EquationsOfMotion with ``gauss_function`` G(u̇) = ½u̇ᵀXu̇ − Yᵀu̇ (expanded only if ``simplify``)
    and X, Y from ∂G/∂u̇ = 0; ``eom.minimizer()`` gives u̇* = X⁻¹Y. With dependent speeds, G is minimized over
    the accelerations compatible with the constraints, u̇_dep = A u̇_ind + C: ∂G/∂u̇_ind = Ãᵀ ∂G/∂u̇_all.
    """
    speeds = Speeds(q, u, kinematic_equations, dependent_speeds, velocity_constraints, simplify)
    udot_all = sp.Matrix(speeds.udot_all)
    motions = [body_motion(body, frame, speeds) for body in bodies]
    F_all = active_forces(loads, frame, speeds, potential_energy)
    G = gauss_function(motions, F_all, udot_all)
    X, Y = speeds.constrain(*minimized(G, udot_all))
    F = speeds.project(F_all)
    if simplify:
        X, Y = X.applyfunc(sp.simplify), Y.applyfunc(sp.simplify)
    udot = sp.Matrix(speeds.udot)
    quadratic = (udot.T * X * udot)[0] / 2 - (Y.T * udot)[0]
    if simplify:
        quadratic = sp.expand(quadratic)
    return EquationsOfMotion(
        method="gauss", q=speeds.q, u=speeds.u, mass_matrix=X, forcing=Y, qdot=speeds.qdot,
        generalized_active_forces=F, generalized_inertia_forces=Y - F - X * udot,
        partial_velocities={m.name: (speeds.project_partials(m.W), speeds.project_partials(m.V)) for m in motions},
        inputs=tuple(inputs), dependent_speeds=speeds.dependent, velocity_constraints=speeds.constraints,
        gauss_function=quadratic)


def transfer(mass_matrix: sp.MatrixBase | Sequence[Any], bias: sp.MatrixBase | Sequence[Any],
             forces: sp.MatrixBase | Sequence[Any], positions: Sequence[sp.Expr], q: Sequence[sp.Expr],
             simplify: bool = True) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix]:
    """Move Gauss's function to new coordinates q' through the Jacobian alone (Yao 2016, eqs. 10–11).

    Parameters
    ----------
    mass_matrix, bias, forces : M (N×N), H (N), Q (N) of M Ẍ + H = Q in the old coordinates X (e.g. the
        Cartesian coordinates of each body: mass center and rotation angle), written in q'.
    positions : the old coordinates as functions X(q', t) (N expressions in the dynamicsymbols q').
    q : the new coordinates q'.

    Returns
    -------
    (M', g', Q') with M' = Jᵀ M J, g' = Jᵀ (M J̇ q̇' + H), Q' = Jᵀ Q, J = ∂X/∂q':
    the Gauss function in q' is G = ½ q̈'ᵀ M' q̈' + (g' − Q')ᵀ q̈'. Simplified only if ``simplify``.
    """
    Xq = sp.Matrix(positions)
    J = Xq.jacobian(list(q))
    M = sp.Matrix(mass_matrix)
    qd = sp.Matrix([qi.diff(TIME) for qi in q])
    Jdot_qd = J.diff(TIME) * qd
    Mp, gp, Qp = J.T * M * J, J.T * (M * Jdot_qd + sp.Matrix(bias)), J.T * sp.Matrix(forces)
    if simplify:
        Mp, gp, Qp = (m.applyfunc(sp.simplify) for m in (Mp, gp, Qp))
    return Mp, gp, Qp
