"""Constraints of a tree :class:`multibody.Model` in its symbolic equations: holonomic and nonholonomic rows.

Each constraint type gives its rows symbolically (``Constraint.symbolic``, next to its numeric rows in
:mod:`multibody.constraints.types`) on the world-frame kinematics of :class:`Kinematics`: holonomic rows φ(q) = 0
and nonholonomic rows g = A(q) u − b(q) = 0. Their velocity form (source document 004, B(q) q̇ + b = 0) is

    B u + b = 0,     B = [∂φ/∂q ∂q̇/∂u ; ∂g/∂u],   b = [0 ; g(q, 0)]

and, differentiated along q̇ = f(q, u), the acceleration rows B u̇ = c with c = −∂(B u + b)/∂q q̇. Rows that depend
on the others at a generic configuration (a planar loop's out-of-plane row, a wheel's height on a lean joint
through its contact point) are dropped. Kane's and Gauss's equations are then written in the independent speeds
(:func:`minimal`, Kane & Levinson ch. 6), Lagrange's with multipliers.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import sympy as sp

from ..constraints.types import equality_constraints
from ..errors import ModelError
from .linsolve import lu_solve, random_values
from .motion import constrain, cross, project
from .tree import _exact, _matrix


class Kinematics:
    """World positions, axes and velocities of points fixed in the bodies of a Model, symbolically.

    ``frames`` per body (R, p, ω): rotation body → world, origin (world axes), angular velocity (body axes), as
    :func:`.elements.body_frames` gives them; q̇ = f(q, u) in ``qdot``. Body names may be bodies, named frames or
    "world"; points and axes are given in the coordinates of that body or frame."""

    sqrt = staticmethod(sp.sqrt)
    cross = staticmethod(cross)
    number = staticmethod(_exact)

    def __init__(self, model, frames, q, u, qdot):
        self.model, self.frames, self.q, self.u, self.qdot = model, frames, q, u, qdot

    @staticmethod
    def matrix(x):
        """A column of numbers (3-vector) or a 3 × 3 array as a sympy Matrix (exact where the numbers are)."""
        x = np.asarray(x, dtype=object)
        return _matrix(x.reshape(3, -1)) if x.ndim == 1 else _matrix(x)

    def _located(self, body, point=(0.0, 0.0, 0.0)):
        """(index, point in body coordinates, rotation frame → body) of a point given in a body, frame or world."""
        if body == "world":
            return -1, np.asarray(point, dtype=float), np.eye(3)
        return self.model.locate(body, point)

    def rotation(self, body):
        """Axes of ``body`` (or frame) → world axes."""
        index, _, rotation = self._located(body)
        return (sp.eye(3) if index < 0 else self.frames[index][0]) * self.matrix(rotation)

    def point(self, body, r):
        """World position of the point r (coordinates of ``body``)."""
        index, r, _ = self._located(body, r)
        if index < 0:
            return self.matrix(r)
        R, p, _ = self.frames[index]
        return p + R * self.matrix(r)

    def axis(self, body, a):
        """The direction a (coordinates of ``body``) in world axes."""
        return self.rotation(body) * self.matrix(a)

    def omega(self, body):
        """Angular velocity of ``body`` in world axes (zero for the world)."""
        index = self._located(body)[0]
        if index < 0:
            return sp.zeros(3, 1)
        R, _, w = self.frames[index]
        return R * w

    def velocity(self, body, r):
        """Velocity of the material point r of ``body`` (world axes): ṗ + ω × (R r), ṗ = ∂p/∂q q̇."""
        index, r, _ = self._located(body, r)
        if index < 0:
            return sp.zeros(3, 1)
        R, p, _ = self.frames[index]
        return p.jacobian(self.q) * self.qdot + cross(self.omega(body), R * self.matrix(r))

    def coordinate(self, joint):
        """The coordinate of a one-dof joint (joint or child-body name)."""
        return self.q[self.model.one_dof_joint(joint, f"joint {joint!r}")[1]]


class ConstraintRows:
    """The model's constraint rows, independent ones only: holonomic φ(q) (first ``len(phi)`` rows of B) and all
    rows B u + b = 0, B u̇ = c."""

    def __init__(self, phi, B, b, c):
        self.phi, self.B, self.b, self.c = phi, B, b, c


def constraint_rows(model, frames, q, u, qdot):
    """:class:`ConstraintRows` of the model's equality constraints; ModelError naming a constraint without a
    symbolic form (a JointLimit, a Holonomic given by callables)."""
    for constraint in getattr(model, "constraints", ()):
        if getattr(constraint, "unilateral", False):
            raise ModelError(f"constraint {constraint!r}: JointLimit is an inequality; the symbolic equations take "
                             "equality constraints only")
    k = Kinematics(model, frames, q, u, qdot)
    position, velocity = [], []
    for constraint in equality_constraints(model):
        rows = constraint.symbolic(k)
        position += [sp.sympify(x) for x in rows.position]
        velocity += [sp.sympify(x) for x in rows.velocity]
    phi, g = sp.Matrix(len(position), 1, position), sp.Matrix(len(velocity), 1, velocity)
    N = qdot.jacobian(u)
    B = sp.Matrix.vstack(phi.jacobian(q) * N, g.jacobian(u))
    b = sp.Matrix.vstack(sp.zeros(phi.rows, 1), g.xreplace({ui: 0 for ui in u}))
    rows = independent_rows(B)
    holonomic = [i for i in rows if i < phi.rows]
    phi, B, b = phi.extract(holonomic, [0]), B.extract(rows, list(range(len(u)))), b.extract(rows, [0])
    # c = −d(B u + b)/dt at u̇ = 0, q̇ = f(q, u)
    c = -(B * sp.Matrix(u) + b).jacobian(q) * qdot
    return ConstraintRows(phi, B, b, c)


def _shadow(M, seed=20070):
    """M evaluated at a generic point (random values of every symbol and coordinate)."""
    values = random_values(list(M), seed)
    return np.array(M.xreplace(values).evalf(), dtype=float).reshape(M.shape)


def _pivots(M, order=None):
    """Indices of a maximal set of independent columns of the float matrix M, by QR with column pivoting; with
    ``order``, greedily in that order of preference instead."""
    if M.size == 0:
        return []
    scale = max(np.abs(M).max(), 1.0)
    if order is not None:
        chosen = []
        for j in order:
            if np.linalg.matrix_rank(M[:, chosen + [j]], tol=1e-9 * scale) == len(chosen) + 1:
                chosen.append(j)
        return sorted(chosen)
    _, R, columns = scipy.linalg.qr(M, pivoting=True, mode="economic")
    diagonal = np.abs(np.diag(R))
    rank = int(np.sum(diagonal > 1e-9 * max(diagonal.max(), 1.0)))
    return sorted(columns[:rank].tolist())


def independent_rows(B):
    """The rows of B independent at a generic configuration (the others are combinations of them there)."""
    return _pivots(_shadow(B).T)


def speed_indices(model, names, what):
    """Indices into the speeds of ``names``: ints, or joint / child-body names (all of the joint's speeds)."""
    indices = []
    for name in names:
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            if not 0 <= name < model.nv:
                raise ModelError(f"{what}: speed index {name} outside 0..{model.nv - 1}")
            indices.append(int(name))
        else:
            try:
                indices += list(range(model.nv)[model.v_slice(name)])
            except (ModelError, KeyError, TypeError):
                raise ModelError(f"{what}: {name!r} is neither a speed index nor a joint of model "
                                 f"'{model.name}'") from None
    return sorted(set(indices))


def dependent_speeds(B, independent=None):
    """Indices of the speeds to solve the rows B u = 0 for: the columns of B that complement ``independent`` (user
    choice), else the best-conditioned columns at a generic configuration (pivoted QR, like choosing u_dependent for
    sympy's KanesMethod)."""
    shadow = _shadow(B)
    if independent is None:
        return _pivots(shadow)
    dep = [j for j in range(B.cols) if j not in independent]
    if len(dep) != B.rows or np.linalg.matrix_rank(shadow[:, dep]) < B.rows:
        raise ModelError(f"independent_speeds {list(independent)}: the other speeds {dep} cannot be solved for from "
                         f"the {B.rows} independent constraint rows (need {B.cols - B.rows} independent speeds whose "
                         "complement the constraints determine)")
    return dep


def dependent_coordinates(phi, q, preferred):
    """Indices of coordinates to solve the holonomic rows φ(q) = 0 for (pivoted at a generic configuration),
    preferring ``preferred`` (the dependent speeds' coordinates when u = q̇)."""
    if not phi.rows:
        return []
    shadow = _shadow(phi.jacobian(q))
    order = list(preferred) + [j for j in np.argsort(-np.abs(shadow).max(axis=0)) if j not in preferred]
    chosen = _pivots(shadow, order)
    if len(chosen) < phi.rows:
        raise ModelError("holonomic constraints: their rows are dependent at a generic configuration")
    return chosen


def minimal(X, Y, F, rows, u, independent=None):
    """Equations in the independent speeds (Kane & Levinson, ch. 6): B u + b = 0 solved for u_dep = A u_ind + β
    and B u̇ = c for u̇_dep = A u̇_ind + C, then X̃ = Ãᵀ X Ã, Ỹ = Ãᵀ (Y − X_dep C), F̃ = Ãᵀ F.

    Returns (order, A, β, X̃, Ỹ, F̃) with ``order`` the speed indices, independent then dependent."""
    B = rows.B
    dep = dependent_speeds(B, independent)
    order = [i for i in range(len(u)) if i not in dep] + dep
    n = len(u) - len(dep)
    B = B.extract(list(range(B.rows)), order)
    solved = lu_solve(B[:, n:], sp.Matrix.hstack(-B[:, :n], rows.c, -rows.b),
                      "constraints (solved for the dependent speeds)")
    A, C, beta = solved[:, :n], solved[:, n], solved[:, n + 1]
    X, Y = constrain(X.extract(order, order), Y.extract(order, [0]), A, C)
    return order, A, beta, X, Y, project(F.extract(order, [0]), A)
