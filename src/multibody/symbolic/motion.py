"""Kinematics shared by Kane's method and Gauss's principle: speeds, partial velocities, accelerations.

Every body's motion is reduced to a :class:`BodyMotion` record, in the body's own axes:

    ω = W u + ω_t,   α = W u̇ + α_t,   v* = V u + v_t,   a* = V u̇ + a_t,

W and V holding the partial angular velocities and partial velocities of the mass center as columns
(T. R. Kane, "A new method for formulating equations of motion", eqs. 2–3). The free-form path fills the records from
sympy.physics.vector objects;
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
from .linsolve import linear_coefficients, lu_solve, solve_linear


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
    """X and the inertia part of Y from F_r* = −Σ (V_rᵀ m a* + W_rᵀ (I α + ω × I ω)) (Kane, eqs. 5, 7–9).

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


class Speeds:
    """Generalized speeds of a free-form system: q̇ = f(q, u) and, for nonholonomic systems, the constraints.

    Kinematic equations u = Y q̇ + Z (Kane, eq. 1) are solved for q̇ = f(q, u) with all the speeds
    u = (u_ind, u_dep). Velocity constraints (linear in u; written in u, or in q̇, which is then replaced by
    f(q, u)) are solved, by elimination without simplification, for

        u_dep = A u_ind + B,        u̇_dep = A u̇_ind + C                    (Kane & Levinson, ch. 4)

    (C from differentiating the constraints, with q̇ = f(q, u)). The dependent speeds stay symbols in every
    expression; only the constrained partial velocities ṽ_r = v_r + Σ_s v_s A_sr use A (:meth:`constrain`).
    """

    def __init__(self, q, u, kinematic_equations, dependent_speeds=(), velocity_constraints=(), simplify=False):
        self.q, u = tuple(q), tuple(u)
        dependent = tuple(dependent_speeds)
        unknown = [d for d in dependent if d not in u]
        if unknown:
            raise ModelError(f"dependent speeds {unknown} are not among the speeds u = {list(u)}")
        self.u = tuple(ui for ui in u if ui not in dependent)
        self.u_dep = dependent
        self.u_all = self.u + dependent
        self.simplify = simplify
        qd = [qi.diff(TIME) for qi in self.q]
        self.qdot = solve_linear(kinematic_equations, qd, "kinematic_equations", simplify)
        self.replace = dict(zip(qd, self.qdot))
        self.udot = [ui.diff(TIME) for ui in self.u]
        self.udot_all = [ui.diff(TIME) for ui in self.u_all]
        self.constraints = None
        self.dependent = {}
        if not dependent:
            return
        if len(velocity_constraints) != len(dependent):
            raise ModelError(f"velocity_constraints: {len(velocity_constraints)} equations for {len(dependent)} "
                             f"dependent speeds {list(dependent)}")
        # Ac u − b = 0, with q̇ written in u
        g = sp.Matrix([(e.lhs - e.rhs if isinstance(e, sp.Equality) else sp.sympify(e)) for e in velocity_constraints])
        g = g.xreplace(self.replace)
        Ac, b = linear_coefficients(g, self.u_all, "velocity_constraints")
        n = len(self.u)
        self.constraints = Ac * sp.Matrix(self.u_all) - b
        # d/dt (Ac u − b) = Ac u̇ + (Ȧc u − ḃ): the part free of u̇, with q̇ = f(q, u)
        rate = self.constraints.diff(TIME).xreplace(self.replace).xreplace({ud: 0 for ud in self.udot_all})
        rhs = sp.Matrix.hstack(-Ac[:, :n], b, -rate)
        solved = lu_solve(Ac[:, n:], rhs, "velocity_constraints (solved for the dependent speeds)")
        if simplify:
            solved = solved.applyfunc(sp.simplify)
        self.A, B, self.C = solved[:, :n], solved[:, n], solved[:, n + 1]
        self.dependent = dict(zip(dependent, self.A * sp.Matrix(self.u) + B))

    def rate(self, vector, frame):
        """Time derivative of a vector in ``frame`` with q̇ = f(q, u)."""
        return vector.dt(frame).xreplace(self.replace)

    def partials(self, vector, frame):
        """The coefficients of all the speeds (independent, then dependent) in a vector, as a list of Vectors."""
        return [vector.diff(ur, frame) for ur in self.u_all]

    def constrain(self, X, Y):
        """Equations in all the speeds, X u̇_all = Y (rows r: ṽ_r unconstrained), to the independent speeds:

            X̃ = Ãᵀ X Ã,   Ỹ = Ãᵀ (Y − X_dep C),   Ã = [I; A]

        i.e. the rows of the constrained partial velocities ṽ_r = v_r + Σ_s v_s A_sr, with u̇_dep = A u̇_ind + C.
        """
        if not self.u_dep:
            return sp.Matrix(X), sp.Matrix(Y)
        return constrain(X, Y, self.A, self.C)

    def project(self, F):
        """Ãᵀ F: generalized forces on all the speeds to the independent ones, F̃_r = F_r + Σ_s A_sr F_s."""
        return project(F, self.A) if self.u_dep else sp.Matrix(F)

    def project_partials(self, W):
        """Constrained partial (angular) velocities: the columns W_ind + W_dep A."""
        return project_partials(W, self.A) if self.u_dep else W


def constrain(X, Y, A, C):
    """X̃ = Ãᵀ X Ã, Ỹ = Ãᵀ (Y − X_dep C), Ã = [I; A], of X u̇_all = Y with u_all = (u_ind, u_dep) and
    u̇_dep = A u̇_ind + C (Kane & Levinson, ch. 6): the equations of the independent speeds."""
    n = A.cols
    X, Y = sp.Matrix(X), sp.Matrix(Y)
    Y = Y - X[:, n:] * C
    XA = X[:, :n] + X[:, n:] * A
    return project(XA, A), project(Y, A)


def project(F, A):
    """Ãᵀ F = F_ind + Aᵀ F_dep: rows r of all the speeds onto the independent ones (n = A.cols of them)."""
    n = A.cols
    F = sp.Matrix(F)
    return F[:n, :] + A.T * F[n:, :]


def project_partials(W, A):
    """W Ã = W_ind + W_dep A: constrained partial (angular) velocities, columns of the independent speeds."""
    n = A.cols
    return W[:, :n] + W[:, n:] * A


def _velocity(point, frame, name):
    try:
        return point.vel(frame)
    except ValueError as exc:
        raise ModelError(f"{name}: velocity of point {point.name} in frame {frame} is not defined "
                         f"(set it with set_vel, v2pt_theory or a velocity-defined parent)") from exc


def _body_axes(body):
    """(axes, central inertia matrix in them): the body's frame, or, when the body's frame has no orientation
    relative to the frame its inertia is given in (e.g. a wheel defined by its angular velocity alone, its
    inertia given in the fork's axes), that frame — Euler's T* = −I·α − ω × I·ω holds in any axes."""
    try:
        return body.frame, body.central_inertia.to_matrix(body.frame)
    except ValueError as exc:
        args = body.central_inertia.args
        if not args:
            return body.frame, sp.zeros(3, 3)
        axes = args[0][1].args[0][1]
        try:
            return axes, body.central_inertia.to_matrix(axes)
        except ValueError:
            raise ModelError(f"{body.name}: its inertia is given in several frames without an orientation "
                             f"relating them to the body's frame {body.frame}") from exc


def body_motion(body, frame, speeds):
    """The :class:`BodyMotion` of a sympy RigidBody or Particle moving in the inertial ``frame``, in all the
    speeds u_all = (u_ind, u_dep)."""
    if isinstance(body, RigidBody):
        axes, inertia = _body_axes(body)
        point = body.masscenter
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
    at_rest = {ud: 0 for ud in speeds.udot_all}
    W, V = omega_c.jacobian(speeds.u_all), v_c.jacobian(speeds.u_all)
    if speeds.simplify:
        W, V = W.applyfunc(sp.trigsimp), V.applyfunc(sp.trigsimp)
    return BodyMotion(body.name, body.mass, inertia, omega_c, W, alpha_c.xreplace(at_rest), V, a_c.xreplace(at_rest))


def active_forces(loads, frame, speeds, potential_energy=None):
    """F_r = Σ v_r · R + Σ ω_r · T (Kane, eqs. 4, 6), minus Σ_s ∂W/∂q_s ∂q̇_s/∂u_r for a potential W
    (eq. 10 when u = q̇)."""
    n = len(speeds.u_all)
    F = sp.zeros(n, 1)
    for load in loads:
        velocity, vector = load_velocity(load, frame)
        velocity, vector = velocity.xreplace(speeds.replace), vector.xreplace(speeds.replace)
        F += sp.Matrix([partial & vector for partial in speeds.partials(velocity, frame)])
    if potential_energy is not None:
        W = sp.sympify(potential_energy).xreplace(speeds.replace)
        F -= speeds.qdot.jacobian(speeds.u_all).T * sp.Matrix([W.diff(qs) for qs in speeds.q])
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
