"""Kinematics shared by Kane's method and Gauss's principle: speeds, partial velocities, accelerations.

Every body's motion is reduced to a :class:`BodyMotion` record, in the body's own axes:

    ω = W u + ω_t,   α = W u̇ + α_t,   v* = V u + v_t,   a* = V u̇ + a_t,

W and V holding the partial angular velocities and partial velocities of the mass center as columns
(source document 000, eqs. 2–3). The free-form path fills the records from sympy.physics.vector objects;
the tree path (:mod:`.tree`) fills them recursively. :func:`inertia_terms` turns records into X and the
inertia part of Y.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.physics.mechanics import Particle, RigidBody
from sympy.physics.vector import Point, ReferenceFrame, Vector

from ..errors import ModelError
from .eom import TIME


@dataclass(frozen=True)
class BodyMotion:
    """Mass data and motion of one body, components in the body's axes (3×1 and 3×n sympy Matrices)."""

    name: str
    mass: sp.Expr
    inertia: sp.Matrix   # central inertia, body axes
    omega: sp.Matrix     # ω
    W: sp.Matrix         # ∂ω/∂u (partial angular velocities as columns)
    alpha_t: sp.Matrix   # α − W u̇
    V: sp.Matrix         # ∂v*/∂u (partial velocities of the mass center)
    a_t: sp.Matrix       # a* − V u̇


def cross(a, b):
    """a × b for 3×1 component columns."""
    return sp.Matrix([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def inertia_terms(motions, n):
    """X and the inertia part of Y from F_r* = −Σ (V_rᵀ m a* + W_rᵀ (I α + ω × I ω)) (document 000, eqs. 5, 7–9).

    Returns (X, Y*) with F_r* = Y* − X u̇, X = Σ (m VᵀV + WᵀIW), Y* = −Σ (Vᵀ m a_t + Wᵀ (I α_t + ω × I ω)).
    """
    X, Y = sp.zeros(n, n), sp.zeros(n, 1)
    for b in motions:
        if b.mass != 0:
            X += b.mass * (b.V.T * b.V)
            Y -= b.mass * (b.V.T * b.a_t)
        if not b.inertia.is_zero_matrix:
            X += b.W.T * b.inertia * b.W
            Y -= b.W.T * (b.inertia * b.alpha_t + gyroscopic(b.inertia, b.omega))
    return X, Y


def gyroscopic(I, w):
    """ω × I ω; for principal axes written (I₃ − I₂) ω₂ ω₃, ... (Euler's equations) to keep it short."""
    if I.is_diagonal():
        return sp.Matrix([(I[2, 2] - I[1, 1]) * w[1] * w[2], (I[0, 0] - I[2, 2]) * w[2] * w[0],
                          (I[1, 1] - I[0, 0]) * w[0] * w[1]])
    return cross(w, I * w)


def solve_linear(equations, unknowns, what, simplify):
    """Solve equations (expressions = 0) that are linear in ``unknowns``; ModelError if they are not solvable."""
    equations = [e.lhs - e.rhs if isinstance(e, sp.Equality) else sp.sympify(e) for e in equations]
    if len(equations) != len(unknowns):
        raise ModelError(f"{what}: {len(equations)} equations for {len(unknowns)} unknowns {list(unknowns)}")
    try:
        A, b = sp.linear_eq_to_matrix(equations, list(unknowns))
    except sp.solvers.solveset.NonlinearError as exc:
        raise ModelError(f"{what}: must be linear in {list(unknowns)}") from exc
    if sp.simplify(A.det()) == 0:
        raise ModelError(f"{what}: cannot be solved for {list(unknowns)} (singular coefficient matrix)")
    solution = A.LUsolve(b)
    return solution.applyfunc(sp.simplify) if simplify else solution


class Speeds:
    """The map from coordinate rates and dependent speeds to (q, independent u) for a free-form system.

    Kinematic equations u = Y q̇ + Z (document 000, eq. 1) are solved for q̇ = f(q, u); velocity constraints
    (nonholonomic, linear in u) are solved for the dependent speeds, which are then eliminated everywhere.
    """

    def __init__(self, q, u, kinematic_equations, dependent_speeds=(), velocity_constraints=(), simplify=True):
        self.q, self.u_all = tuple(q), tuple(u)
        dependent = tuple(dependent_speeds)
        unknown = [d for d in dependent if d not in self.u_all]
        if unknown:
            raise ModelError(f"dependent speeds {unknown} are not among the speeds u = {list(self.u_all)}")
        self.u = tuple(ui for ui in self.u_all if ui not in dependent)
        qd = [qi.diff(TIME) for qi in self.q]
        qdot = solve_linear(kinematic_equations, qd, "kinematic_equations", simplify)
        self.dependent = {}
        if dependent:
            solved = solve_linear(velocity_constraints, dependent, "velocity_constraints", simplify)
            self.dependent = dict(zip(dependent, solved))
        self.qdot = qdot.xreplace(self.dependent)
        self.replace = {**dict(zip(qd, self.qdot)), **self.dependent}
        self.udot = [ui.diff(TIME) for ui in self.u]
        self.simplify = simplify

    def rate(self, vector, frame):
        """Time derivative of a vector in ``frame`` with q̇ and dependent speeds eliminated."""
        return vector.dt(frame).xreplace(self.replace)

    def partials(self, vector, frame):
        """The coefficients of u in a vector (its partial velocities), as a list of Vectors."""
        return [vector.diff(ur, frame) for ur in self.u]


def _velocity(point, frame, name):
    try:
        return point.vel(frame)
    except ValueError as exc:
        raise ModelError(f"{name}: velocity of point {point.name} in frame {frame} is not defined "
                         f"(set it with set_vel, v2pt_theory or a velocity-defined parent)") from exc


def body_motion(body, frame, speeds):
    """The :class:`BodyMotion` of a sympy RigidBody or Particle moving in the inertial ``frame``."""
    if isinstance(body, RigidBody):
        axes, point = body.frame, body.masscenter
        inertia = body.central_inertia.to_matrix(axes)
        omega = body.frame.ang_vel_in(frame).xreplace(speeds.replace)
    elif isinstance(body, Particle):
        axes, point = frame, body.masscenter
        inertia = sp.zeros(3, 3)
        omega = Vector(0)
    else:
        raise ModelError(f"bodies must be sympy.physics.mechanics RigidBody or Particle objects, got {body!r}")
    velocity = _velocity(point, frame, body.name).xreplace(speeds.replace)
    omega_c, v_c = omega.to_matrix(axes), velocity.to_matrix(axes)
    alpha_c = speeds.rate(omega, frame).to_matrix(axes)
    a_c = speeds.rate(velocity, frame).to_matrix(axes)
    at_rest = {ud: 0 for ud in speeds.udot}
    W, V = omega_c.jacobian(speeds.u), v_c.jacobian(speeds.u)
    if speeds.simplify:
        W, V = W.applyfunc(sp.trigsimp), V.applyfunc(sp.trigsimp)
    return BodyMotion(body.name, body.mass, inertia, omega_c, W, alpha_c.xreplace(at_rest), V, a_c.xreplace(at_rest))


def active_forces(loads, frame, speeds, potential_energy=None):
    """F_r = Σ v_r · R + Σ ω_r · T (document 000, eqs. 4, 6), minus Σ_s ∂W/∂q_s ∂q̇_s/∂u_r for a potential W
    (eq. 10 when u = q̇)."""
    n = len(speeds.u)
    F = sp.zeros(n, 1)
    for load in loads:
        velocity, vector = load_velocity(load, frame)
        velocity, vector = velocity.xreplace(speeds.replace), vector.xreplace(speeds.replace)
        F += sp.Matrix([partial & vector for partial in speeds.partials(velocity, frame)])
    if potential_energy is not None:
        W = sp.sympify(potential_energy).xreplace(speeds.replace)
        F -= speeds.qdot.jacobian(speeds.u).T * sp.Matrix([W.diff(qs) for qs in speeds.q])
    return F


def load_velocity(load, frame):
    """(velocity of the load's point, or angular velocity of its frame, in ``frame``; the force or torque)."""
    if not (isinstance(load, tuple) and len(load) == 2 and isinstance(load[1], Vector)):
        raise ModelError(f"loads: each load must be (Point, force Vector) or (ReferenceFrame, torque Vector), "
                         f"got {load!r}")
    where, vector = load
    if isinstance(where, Point):
        return _velocity(where, frame, "load"), vector
    if isinstance(where, ReferenceFrame):
        return where.ang_vel_in(frame), vector
    raise ModelError(f"loads: a load must act at a Point or on a ReferenceFrame, got {where!r}")
