"""Constraints of a tree :class:`multibody.Model` in its symbolic equations: holonomic and nonholonomic rows.

Each constraint type gives its rows symbolically (``Constraint.symbolic``, next to its numeric rows in
:mod:`multibody.constraints.types`) on the world-frame kinematics of :class:`Kinematics`: holonomic rows φ(q) = 0
and nonholonomic rows g = A(q) u − b(q) = 0. Their velocity form (Mukharlyamov n.d., B(q) q̇ + b = 0) is

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
from sympy.core.function import AppliedUndef

from ..constraints.types import equality_constraints
from ..errors import ModelError
from .jet import jacobian_at
from .linsolve import lu_solve, random_values
from .motion import constrain, cross, project
from .tree import _exact, _joint_step, _matrix, _skew


class Kinematics:
    """World positions, axes and velocities of points fixed in the bodies of a Model, in placeholder symbols.

    Each body i has symbols for its rotation R_i (body → world axes), origin p_i, angular velocity ω_i and origin
    velocity v_i (world axes), with the rates Ṙ_i = [ω_i]× R_i, ṗ_i = v_i, ω̇_i = α⁰_i, v̇_i = a⁰_i (the bias
    accelerations, u̇ = 0; Mukharlyamov's Ḃ u): a constraint's rows stay short expressions in them, and
    their time derivatives (:meth:`rate`) are taken on those short expressions, not on the long ones in q. The
    definitions of the symbols in q and u (:attr:`definitions`) come from the world-axes recursion

        R_i = R_λ R_J,   p_i = p_λ + R_λ r,   ω_i = ω_λ + ω_J,   v_i = v_λ + ω_λ × (p_i − p_λ) + v_J,
        α⁰_i = α⁰_λ + ω_i × ω_J,   a⁰_i = a⁰_λ + α⁰_λ × r + ω_λ × (ω_λ × r + v_J) + ω_i × v_J

    (ω_J = R_i S_ω u_i, v_J = R_i S_v u_i, plus Ṡ u for subspaces that depend on q; RBDA §2.11), with the partial
    velocities W_i = ∂ω_i/∂u, V_i = ∂v_i/∂u (3 × n, world axes) carried alongside. Body names may be bodies,
    named frames or "world"; points and axes are given in the coordinates of that body or frame."""

    sqrt = staticmethod(sp.sqrt)
    cross = staticmethod(cross)
    number = staticmethod(_exact)

    def __init__(self, model, q, u, speeds):
        self.model, self.q, self.u = model, list(q), list(u)
        zero, zero_n = sp.zeros(3, 1), sp.zeros(3, len(u))
        self.bodies, self.definitions, self.rates, qdot = [], {}, {}, []
        values = []     # per body: (R, p, ω, v, α⁰, a⁰, W, V) in q and u
        iq = iv = 0
        for body, joint, parent, placement in zip(model.bodies, model.joints, model.parents, model.placements):
            qj, uj = self.q[iq:iq + joint.nq], self.u[iv:iv + joint.nv]
            R, r, S, Sdot_u, qdot_j = _joint_step(joint, placement, qj, uj, speeds, body.name)
            R_l, p_l, w_l, v_l, al_l, a_l, W_l, V_l = values[parent] if parent >= 0 else \
                (sp.eye(3), zero, zero, zero, zero, zero, zero_n, zero_n)
            R_i, r_w = R_l * R, R_l * r
            uj = sp.Matrix(len(uj), 1, uj)
            w_J, v_J = R_i * (S[:3, :] * uj), R_i * (S[3:, :] * uj)
            w_i = w_l + w_J
            W, V = W_l.copy(), V_l - _skew(r_w) * W_l
            W[:, iv:iv + joint.nv] += R_i * S[:3, :]
            V[:, iv:iv + joint.nv] += R_i * S[3:, :]
            values.append((R_i, p_l + r_w, w_i, v_l + cross(w_l, r_w) + v_J,
                           al_l + cross(w_i, w_J) + R_i * Sdot_u[:3, :],
                           a_l + cross(al_l, r_w) + cross(w_l, cross(w_l, r_w) + v_J) + cross(w_i, v_J)
                           + R_i * Sdot_u[3:, :], W, V))
            qdot.extend(qdot_j)
            iq, iv = iq + joint.nq, iv + joint.nv
        self.qdot = sp.Matrix(qdot)
        for i, (R, p, w, v, al, a, W, V) in enumerate(values):
            symbols = [sp.Matrix(3, 3, sp.symbols(f"R{i}_0:9", cls=sp.Dummy))] + \
                [sp.Matrix(sp.symbols(f"{name}{i}_0:3", cls=sp.Dummy)) for name in ("p", "w", "v", "al", "a")]
            Rs, ps, ws, vs, als, as_ = symbols
            self.bodies.append((Rs, ps, ws, vs, W, V))
            for placeholder, value in zip(symbols, (R, p, w, v, al, a)):
                self.definitions.update(zip(placeholder, value))
            self.rates.update(zip(Rs, _skew(ws) * Rs))
            self.rates.update({**dict(zip(ps, vs)), **dict(zip(ws, als)), **dict(zip(vs, as_))})
        self.rates.update(zip(self.q, self.qdot))
        self.rates.update({ui: sp.Integer(0) for ui in self.u})

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
        return (sp.eye(3) if index < 0 else self.bodies[index][0]) * self.matrix(rotation)

    def point(self, body, r):
        """World position of the point r (coordinates of ``body``)."""
        index, r, _ = self._located(body, r)
        if index < 0:
            return self.matrix(r)
        R, p = self.bodies[index][:2]
        return p + R * self.matrix(r)

    def axis(self, body, a):
        """The direction a (coordinates of ``body``) in world axes."""
        return self.rotation(body) * self.matrix(a)

    def omega(self, body):
        """Angular velocity of ``body`` in world axes (zero for the world)."""
        index = self._located(body)[0]
        return sp.zeros(3, 1) if index < 0 else self.bodies[index][2]

    def velocity(self, body, r):
        """Velocity of the material point r of ``body`` (world axes): v + ω × (R r)."""
        index, r, _ = self._located(body, r)
        if index < 0:
            return sp.zeros(3, 1)
        R, _, w, v = self.bodies[index][:4]
        return v + cross(w, R * self.matrix(r))

    def coordinate(self, joint):
        """The coordinate of a one-dof joint (joint or child-body name)."""
        return self.q[self.model.one_dof_joint(joint, f"joint {joint!r}")[1]]

    def rate(self, e):
        """d e/dt at u̇ = 0 for an expression e in the placeholders, q and u (chain rule over its symbols)."""
        e = sp.sympify(e)
        symbols = (e.free_symbols | e.atoms(AppliedUndef)) & self.rates.keys()
        return sp.Add(*[e.diff(s) * self.rates[s] for s in symbols])

    def speed_jacobian(self, rows):
        """∂rows/∂u for rows linear in the speeds: through ω_i = W_i u and v_i = V_i u, and u itself."""
        rows = sp.Matrix(rows)
        J = rows.jacobian(self.u)
        for _, _, w, v, W, V in self.bodies:
            if rows.free_symbols & (set(w) | set(v)):
                J += rows.jacobian(w) * W + rows.jacobian(v) * V
        return J

    def at_rest(self, rows):
        """rows with every speed zero (ω_i = v_i = 0, u = 0): the part b(q) of rows A u − b."""
        zero = {ui: 0 for ui in self.u}
        for _, _, w, v, _, _ in self.bodies:
            zero.update({x: 0 for x in (*w, *v)})
        return sp.Matrix(rows).xreplace(zero)


class ConstraintRows:
    """The model's constraint rows, independent ones only: holonomic φ(q) = 0 (the first ``len(phi)`` rows) and all
    rows B u + b = 0, B u̇ = c, in q and u; ``generic`` maps q to a generic configuration on the constraint manifold
    (empty when none was found) at which ranks and pivots are decided."""

    def __init__(self, phi, B, b, c, generic):
        self.phi, self.B, self.b, self.c, self.generic = phi, B, b, c, generic


def generic_configuration(model, q, seed=20070):
    """{q_i: value} at a random configuration assembled onto the holonomic constraints (mb.assemble), so that the
    ranks of the constraint rows and the choice of pivots are those of the manifold, where a configuration off it
    can differ (an Align's null direction); empty for symbolic parameters or when assembly fails (then a random
    point off the manifold decides, as for any symbolic matrix)."""
    from ..constraints.assembly import assemble_positions
    try:
        values = assemble_positions(model, model.random_configuration(seed))
    except (ModelError, TypeError, ValueError, np.linalg.LinAlgError):
        return {}
    return {qi: sp.Float(x) for qi, x in zip(q, values)}


def constraint_rows(model, q, u, speeds):
    """:class:`ConstraintRows` of the model's equality constraints; ModelError naming a constraint without a
    symbolic form (a JointLimit, a Holonomic given by callables)."""
    for constraint in getattr(model, "constraints", ()):
        if getattr(constraint, "unilateral", False):
            raise ModelError(f"constraint {constraint!r}: JointLimit is an inequality; the symbolic equations take "
                             "equality constraints only")
    k = Kinematics(model, q, u, speeds)
    position, velocity = [], []
    for constraint in equality_constraints(model):
        rows = constraint.symbolic(k)
        position += [sp.sympify(x) for x in rows.position]
        velocity += [sp.sympify(x) for x in rows.velocity]
    # velocity rows: φ̇ of the holonomic ones, then the nonholonomic ones; B = ∂/∂u, b at rest, c = −d/dt|u̇=0
    rows = sp.Matrix(len(position) + len(velocity), 1, [k.rate(f) for f in position] + velocity)
    B, b = k.speed_jacobian(rows), k.at_rest(rows)
    c = -sp.Matrix([k.rate(g) for g in rows])
    # in q and u
    B, b, c = (M.xreplace(k.definitions) for M in (B, b, c))
    phi = sp.Matrix(len(position), 1, position).xreplace(k.definitions)
    generic = generic_configuration(model, q)
    independent = independent_rows(B, generic)
    holonomic = [i for i in independent if i < phi.rows]
    return ConstraintRows(phi.extract(holonomic, [0]), B.extract(independent, list(range(len(u)))),
                          b.extract(independent, [0]), c.extract(independent, [0]), generic)


def _shadow(M, generic=None, seed=20070, variables=()):
    """M evaluated at a generic point (random values of every symbol and coordinate; the coordinates' from
    ``generic`` where given) over its expression graph, and with ``variables`` its Jacobian there."""
    values = {**random_values(list(M), seed), **(generic or {})}
    at, jacobian = jacobian_at(list(M), list(variables), values)
    if variables:
        return np.array(jacobian, dtype=float)
    return np.array(at, dtype=float).reshape(M.shape)


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


def independent_rows(B, generic=None):
    """The rows of B independent at a generic configuration (the others are combinations of them there)."""
    return _pivots(_shadow(B, generic).T)


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


def dependent_speeds(B, independent=None, generic=None):
    """Indices of the speeds to solve the rows B u = 0 for: the columns of B that complement ``independent`` (user
    choice), else the best-conditioned columns at a generic configuration (pivoted QR, like choosing u_dependent for
    sympy's KanesMethod)."""
    shadow = _shadow(B, generic)
    if independent is None:
        return _pivots(shadow)
    dep = [j for j in range(B.cols) if j not in independent]
    if len(dep) != B.rows or np.linalg.matrix_rank(shadow[:, dep]) < B.rows:
        raise ModelError(f"independent_speeds {list(independent)}: the other speeds {dep} cannot be solved for from "
                         f"the {B.rows} independent constraint rows (need {B.cols - B.rows} independent speeds whose "
                         "complement the constraints determine)")
    return dep


def dependent_coordinates(phi, q, preferred, generic=None):
    """Indices of coordinates to solve the holonomic rows φ(q) = 0 for (pivoted at a generic configuration),
    preferring ``preferred`` (the dependent speeds' coordinates when u = q̇)."""
    if not phi.rows:
        return []
    shadow = _shadow(phi, generic, variables=q)
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
    dep = dependent_speeds(B, independent, rows.generic)
    order = [i for i in range(len(u)) if i not in dep] + dep
    n = len(u) - len(dep)
    B = B.extract(list(range(B.rows)), order)
    solved = solve_constraints(B[:, n:], sp.Matrix.hstack(-B[:, :n], rows.c, -rows.b))
    A, C, beta = solved[:, :n], solved[:, n], solved[:, n + 1]
    X, Y = constrain(X.extract(order, order), Y.extract(order, [0]), A, C)
    return order, A, beta, X, Y, project(F.extract(order, [0]), A)


def solve_constraints(M, R):
    """X with M X = R for the constraint rows solved for the dependent speeds: first eliminating with the pivots
    that are nonzero numbers (a contact point's velocity row has coefficient 1 on its own translation speed), then
    the rest by :func:`.linsolve.lu_solve` (Cramer's rule up to 3 × 3). Pivots are never expressions that vanish
    at special configurations when a constant one is at hand (upright, straight ahead)."""
    M, R = sp.Matrix(M), sp.Matrix(R)
    m = M.rows
    rows, cols, pivots = list(range(m)), list(range(m)), []
    while True:
        found = [(abs(float(M[i, j])) != 1.0, i, j) for i in rows for j in cols if M[i, j].is_Number and M[i, j] != 0]
        if not found:
            break
        _, i, j = min(found)
        for r in range(m):
            if r != i and M[r, j] != 0:
                factor = M[r, j] / M[i, j]
                M[r, :], R[r, :] = M[r, :] - factor * M[i, :], R[r, :] - factor * R[i, :]
        pivots.append((i, j))
        rows.remove(i)
        cols.remove(j)
    X = sp.zeros(m, R.cols)
    if rows:
        rest = lu_solve(M.extract(rows, cols), R.extract(rows, list(range(R.cols))),
                        "constraints (solved for the dependent speeds)")
        for k, j in enumerate(cols):
            X[j, :] = rest[k, :]
    for i, j in pivots:   # row i: M_ij x_j + Σ_(k in the rest) M_ik x_k = R_i (the other pivot columns eliminated)
        X[j, :] = (R[i, :] - sum((M[i, k] * X[k, :] for k in cols), sp.zeros(1, R.cols))) / M[i, j]
    return X
