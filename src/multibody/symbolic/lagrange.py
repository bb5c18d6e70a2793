"""Lagrange's equations, with multipliers for constraints, and Hamilton's canonical equations.

    d/dt ∂T/∂q̇ − ∂T/∂q = Q − ∂V/∂q + Bᵀλ                 (T. R. Kane, "A new method for formulating equations of
    motion", eq. 19; Mukharlyamov, "Equations of motion of mechanical systems in matrix form", eq. 6.1)
    B q̇ + b = 0  (holonomic f(q, t) = 0 enter as ḟ = 0; nonholonomic as given)       (Mukharlyamov)
    p = ∂L/∂q̇,  H = pᵀq̇ − L,  q̇ = ∂H/∂p,  ṗ = −∂H/∂q + Q                            (Mukharlyamov)

With u = q̇ the X u̇ = Y of the result has u̇ = q̈, X = ∂²T/∂q̇², and the constraints at acceleration level
B q̈ = c; other speeds q̇ = N u + n premultiply the rows by Nᵀ (:func:`_in_speeds`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import sympy as sp
from sympy.physics.mechanics import Particle, RigidBody

from ..errors import ModelError
from .eom import TIME, EquationsOfMotion
from .linsolve import solve_linear
from .motion import load_velocity

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sympy.physics.vector import Point, ReferenceFrame, Vector


def lagrange_equations(T, q, rates, Q, rate_of):
    """(X, Y) of d/dt ∂T/∂u − ∂T/∂q = Q with u = ``rates`` standing for q̇ (``rate_of`` maps q̇ -> u)."""
    udot = [r.diff(TIME) for r in rates]
    momenta = [T.diff(r) for r in rates]
    E = sp.Matrix([p.diff(TIME).xreplace(rate_of) - T.diff(qr) for p, qr in zip(momenta, q)]) - Q
    X = E.jacobian(udot)
    Y = -E.xreplace({ud: 0 for ud in udot})
    return X, Y


def kinetic_energy(frame, bodies):
    """T = Σ ½ m v*·v* + ½ ω·I*·ω of RigidBody / Particle objects in ``frame``."""
    T = sp.Integer(0)
    for body in bodies:
        if isinstance(body, RigidBody):
            w = body.frame.ang_vel_in(frame)
            T += (w & (body.central_inertia & w)) / 2
        elif not isinstance(body, Particle):
            raise ModelError(f"bodies must be sympy.physics.mechanics RigidBody or Particle objects, got {body!r}")
        v = body.masscenter.vel(frame)
        T += body.mass * (v & v) / 2
    return T


def generalized_forces(frame, q, loads, potential_energy=None, rates=None):
    """Q_r = Σ ∂v/∂q̇_r · R + ∂ω/∂q̇_r · T − ∂V/∂q_r; ``rates`` writes speeds u in the velocities as u(q, q̇)."""
    qd = [qi.diff(TIME) for qi in q]
    Q = sp.zeros(len(q), 1)
    for load in loads:
        velocity, vector = load_velocity(load, frame)
        velocity = velocity.xreplace(rates or {})
        Q += sp.Matrix([velocity.diff(r, frame) & vector for r in qd])
    if potential_energy is not None:
        Q -= sp.Matrix([sp.sympify(potential_energy).diff(qr) for qr in q])
    return Q


def lagrange(frame: ReferenceFrame, q: Sequence[sp.Expr], bodies: Sequence[RigidBody | Particle], loads: Sequence[tuple[Point | ReferenceFrame, Vector]] = (),
             potential_energy: sp.Expr | None = None, holonomic_constraints: Sequence[sp.Expr] = (),
             nonholonomic_constraints: Sequence[sp.Expr] = (), inputs: Sequence[sp.Expr] = (), simplify: bool = True,
             u: Sequence[sp.Expr] | None = None,
             kinematic_equations: Sequence[sp.Expr | sp.Equality] | None = None) -> EquationsOfMotion:
    """Lagrange's equations of RigidBody / Particle objects, the bodies described as for :func:`.kane`.

    ``holonomic_constraints``: expressions f(q, t) (= 0); ``nonholonomic_constraints``: expressions
    B(q, t) q̇ + b(q, t) (= 0). Each constraint gets a multiplier λ_k (symbols ``lambda_k``).

    ``u``: generalized speeds (dynamicsymbols) in which the result is written, as by :func:`.kane` and
    :func:`.equations_of_motion`; ``kinematic_equations`` define them (u_r = Σ Y_rs q̇_s + Z_r, Kane
    eq. 1; default u = q̇). The bodies' velocities may then be written in u (the description :func:`.kane`
    takes) or in q̇. Lagrange's equations, formed in q̇, are written in u by q̇ = f(q, u) = N u + n and
    premultiplied by Nᵀ (:func:`_in_speeds`; with u = q̇ they are unchanged). Without ``u`` the speeds are the
    q̇ themselves (Derivative objects).

    Returns an EquationsOfMotion with, given constraints, ``multipliers``, ``constraint_matrix`` B and
    ``constraint_rhs`` c: X u̇ = Y + Bᵀλ, B u̇ = c.
    """
    q = tuple(q)
    qd = [qi.diff(TIME) for qi in q]
    if u is not None:
        u = tuple(u)
        kinematic_equations = [ui - r for ui, r in zip(u, qd)] if kinematic_equations is None else kinematic_equations
        # u written in q̇, for the bodies and constraints described in u
        rates = dict(zip(u, solve_linear(kinematic_equations, u, "kinematic_equations")))
    else:
        rates = {}
    T = kinetic_energy(frame, bodies).xreplace(rates)
    Q = generalized_forces(frame, q, loads, potential_energy, rates)
    X, Y = lagrange_equations(T, q, qd, Q, {})
    velocity_constraints = [sp.sympify(f).diff(TIME) for f in holonomic_constraints] + [
        sp.sympify(g).xreplace(rates) for g in nonholonomic_constraints]
    multipliers, B, c = (), None, None
    if velocity_constraints:
        g = sp.Matrix(velocity_constraints)
        nonlinear = g.jacobian(qd).jacobian(qd) != sp.zeros(len(g) * len(q), len(q))
        if nonlinear or any(e.has(*[r.diff(TIME) for r in qd]) for e in g):
            raise ModelError("lagrange: constraints must be holonomic f(q, t) or linear in q̇: B(q, t) q̇ + b(q, t)")
        # B q̈ = c from d/dt (B q̇ + b) = 0
        qdd = [r.diff(TIME) for r in qd]
        accel = g.diff(TIME)
        B = accel.jacobian(qdd)
        c = -accel.xreplace({a: 0 for a in qdd})
        multipliers = sp.symbols(f"lambda_0:{len(g)}")
    qdot = sp.Matrix(qd)
    if u is not None:
        X, Y, Q, B, c, qdot = _in_speeds(q, u, kinematic_equations, X, Y, Q, B, c)
    if simplify:
        X, Y = X.applyfunc(sp.simplify), Y.applyfunc(sp.simplify)
    speeds = tuple(u) if u is not None else tuple(qd)
    udot = sp.Matrix([r.diff(TIME) for r in speeds])
    return EquationsOfMotion(
        method="lagrange", q=q, u=speeds, mass_matrix=X, forcing=Y, qdot=qdot,
        generalized_active_forces=Q, generalized_inertia_forces=Y - Q - X * udot, inputs=tuple(inputs),
        multipliers=tuple(multipliers), constraint_matrix=B, constraint_rhs=c)


def _in_speeds(q, u, kinematic_equations, X, Y, Q, B, c):
    """Lagrange's equations X q̈ = Y + Bᵀλ, B q̈ = c (in q̇) in the speeds u of q̇ = f(q, u) = N u + n: with
    q̈ = N u̇ + ḟ₀ (ḟ₀ = ḟ at u̇ = 0) and the rows premultiplied by Nᵀ (Kane's rows, Kane eq. 10),

        X̃ = Nᵀ X N,  Ỹ = Nᵀ (Y − X ḟ₀),  Q̃ = Nᵀ Q,  B̃ = B N,  c̃ = c − B ḟ₀      (q̇ replaced by f).

    Returns (X̃, Ỹ, Q̃, B̃, c̃, f)."""
    qd = [qi.diff(TIME) for qi in q]
    if len(u) != len(q):
        raise ModelError(f"lagrange: {len(u)} speeds u for {len(q)} coordinates q")
    f = solve_linear(kinematic_equations, qd, "kinematic_equations")
    rates = dict(zip(qd, f))
    N = f.jacobian(u)
    f0 = f.diff(TIME).xreplace({ui.diff(TIME): 0 for ui in u}).xreplace(rates)
    X, Y, Q = (sp.Matrix(M).xreplace(rates) for M in (X, Y, Q))
    if B is not None:
        B, c = B.xreplace(rates), c.xreplace(rates)
        B, c = B * N, c - B * f0
    return N.T * X * N, N.T * (Y - X * f0), N.T * Q, B, c, f


class Hamiltonian(NamedTuple):
    """Hamilton's canonical equations: H(q, p), momenta symbols p, q̇ = ∂H/∂p and ṗ = −∂H/∂q + Q'."""

    H: sp.Expr
    q: tuple
    p: tuple
    qdot: sp.Matrix
    pdot: sp.Matrix


def hamilton(frame: ReferenceFrame, q: Sequence[sp.Expr], bodies: Sequence[RigidBody | Particle], loads: Sequence[tuple[Point | ReferenceFrame, Vector]] = (),
             potential_energy: sp.Expr | None = None, simplify: bool = True) -> Hamiltonian:
    """Hamilton's canonical equations (Mukharlyamov) for T = ½ q̇ᵀ A q̇ + aᵀ q̇ + T₀.

    p = ∂L/∂q̇ = A q̇ + a is inverted for q̇ = A⁻¹ (p − a); the non-potential forces Q' (loads) stay on ṗ.
    """
    q = tuple(q)
    qd = [qi.diff(TIME) for qi in q]
    p = sp.symbols(f"p_0:{len(q)}")
    V = sp.sympify(potential_energy) if potential_energy is not None else sp.Integer(0)
    L = kinetic_energy(frame, bodies) - V
    momenta = sp.Matrix([L.diff(r) for r in qd])
    A = momenta.jacobian(qd)
    a = momenta.xreplace({r: 0 for r in qd})
    velocity = A.LUsolve(sp.Matrix(p) - a)
    if simplify:
        velocity = velocity.applyfunc(sp.simplify)
    in_p = dict(zip(qd, velocity))
    H = ((sp.Matrix(p).T * sp.Matrix(qd))[0] - L).xreplace(in_p)
    if simplify:
        H = sp.simplify(H)
    Q = generalized_forces(frame, q, loads).xreplace(in_p)
    qdot = sp.Matrix([H.diff(pr) for pr in p])
    pdot = sp.Matrix([-H.diff(qr) for qr in q]) + Q
    if simplify:
        qdot, pdot = qdot.applyfunc(sp.simplify), pdot.applyfunc(sp.simplify)
    return Hamiltonian(H, q, tuple(p), qdot, pdot)
