"""The result of every symbolic formulation: one immutable :class:`EquationsOfMotion`.

Whatever the method (Kane, Lagrange, Gauss, the tree recursion), the equations end in the form of source
T. R. Kane, "A new method for formulating equations of motion", eq. 35,

    X(q, t) u̇ = Y(q, u, t),        q̇ = f(q, u, t),

with X the n×n mass matrix and Y the forcing. Kane's equations F_r + F_r* = 0 (eq. 14) are the rows of
Y − X u̇ = 0. Lagrange's equations with multipliers (Mukharlyamov, "Equations of motion of mechanical systems in
matrix form") add B u̇ = c and the term Bᵀλ on the right.

Showing them: their size at a glance, cheap trigonometric simplification, LaTeX. Derivation never simplifies (it
would cost more than the derivation for large systems); what is printed is simplified where that is cheap: each
entry of X, Y and q̇ small enough (``max_ops``) goes through ``trigsimp(expand(·))`` and is kept if it got shorter
(the double pendulum's X₀₀ drops from 22 operations to 4), within a time budget, smallest entries first.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import sympy as sp
from sympy.physics.vector import dynamicsymbols, vlatex

from .numeric import NumericEquations

TIME = dynamicsymbols._t


@dataclass(frozen=True)
class EquationsOfMotion:
    """Equations of motion X u̇ = Y, q̇ = f(q, u) and the quantities of their derivation.

    Attributes
    ----------
    method : str
        "kane", "lagrange", "gauss", "lagrange-dh" or "tree-kane"/... — how the equations were formed.
    q, u : tuple
        Generalized coordinates and speeds (sympy functions of time; for Lagrange's equations u = q̇).
    mass_matrix : sympy.Matrix (n, n)
        X of X u̇ = Y.
    forcing : sympy.Matrix (n, 1)
        Y of X u̇ = Y.
    qdot : sympy.Matrix (len(q), 1)
        The kinematic differential equations solved for q̇ = f(q, u, t).
    generalized_active_forces : sympy.Matrix (n, 1)
        F_r (Kane, eqs. 4, 6, 10).
    generalized_inertia_forces : sympy.Matrix (n, 1)
        F_r* (eqs. 5, 7–9, 11–13), linear in u̇; F_r + F_r* = Y − X u̇.
    partial_velocities : dict
        body name -> (ω_r, v_r): 3×n matrices whose column r is the partial angular velocity of the body and
        the partial velocity of its mass center (table 2 of Kane), in the body's own axes
        (particles: the inertial frame's axes).
    inputs : tuple
        Specified quantities (e.g. joint torques) that :meth:`to_numeric` takes as inputs.
    dependent_speeds : dict
        Nonholonomic systems: each dependent speed -> its value A u_ind + B in q and the independent u. X, Y
        and q̇ keep the dependent speeds as symbols (evaluate them with these values; :meth:`to_numeric` and
        :meth:`linearize` do).
    velocity_constraints : sympy.Matrix (m, 1) or None
        The nonholonomic constraints Ac(q) u_all − b(q) = 0 in all the speeds (q̇ written in u).
    dependent_coordinates, configuration_constraints :
        Holonomic constraints f(q) = 0 solved (for :meth:`linearize`) for the dependent coordinates.
    multipliers, constraint_matrix, constraint_rhs :
        Lagrange's equations with constraints (Mukharlyamov): X u̇ = Y + Bᵀλ, B u̇ = c.
    gauss_function : sympy expression or None
        G(u̇) = ½ u̇ᵀ X u̇ − Yᵀ u̇ (Yao Wenli, "Modelling multi-rigid-body systems by Gauss's principle of least
        constraint in generalized coordinates" (2016), eqs. 5, 7) for the Gauss method.
    auxiliaries : tuple
        Ordered (z_k, definition) pairs, each definition in q, u, the parameters and the earlier z's, when the
        other attributes are written in auxiliary symbols (``equations_of_motion(..., intermediates=True)``);
        :meth:`expanded` substitutes them back. Empty otherwise.
    """

    method: str
    q: tuple
    u: tuple
    mass_matrix: sp.Matrix
    forcing: sp.Matrix
    qdot: sp.Matrix
    generalized_active_forces: sp.Matrix
    generalized_inertia_forces: sp.Matrix
    partial_velocities: dict = field(default_factory=dict)
    inputs: tuple = ()
    dependent_speeds: dict = field(default_factory=dict)
    multipliers: tuple = ()
    constraint_matrix: sp.Matrix | None = None
    constraint_rhs: sp.Matrix | None = None
    gauss_function: sp.Expr | None = None
    velocity_constraints: sp.Matrix | None = None
    dependent_coordinates: tuple = ()
    configuration_constraints: sp.Matrix | None = None
    auxiliaries: tuple = ()

    def __post_init__(self):
        for name in ("mass_matrix", "forcing", "qdot", "generalized_active_forces", "generalized_inertia_forces",
                     "constraint_matrix", "constraint_rhs", "velocity_constraints", "configuration_constraints"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, sp.ImmutableMatrix(value))

    @property
    def t(self) -> sp.Symbol:
        """The time symbol."""
        return TIME

    @property
    def udot(self) -> sp.Matrix:
        """Time derivatives of the generalized speeds, as they appear in X u̇ = Y."""
        return sp.Matrix([ui.diff(TIME) for ui in self.u])

    @property
    def equations(self) -> sp.Matrix:
        """Kane's equations F_r + F_r* = 0 (Kane, eq. 14), as the column Y − X u̇ (each entry = 0)."""
        return sp.Matrix(self.forcing) - sp.Matrix(self.mass_matrix) * self.udot

    @property
    def kinematic_equations(self) -> list[sp.Eq]:
        """The kinematic differential equations as a list of ``Eq(q̇_i, f_i(q, u))``."""
        return [sp.Eq(qi.diff(TIME), fi) for qi, fi in zip(self.q, self.qdot)]

    def minimizer(self, simplify: bool = False) -> sp.Matrix:
        """The u̇ that minimizes the Gauss function (equals the solution of X u̇ = Y): X⁻¹ Y by elimination,
        unsimplified (fast at any size) unless ``simplify``."""
        from .linsolve import lu_solve
        solution = lu_solve(self.mass_matrix, self.forcing, "minimizer (mass matrix)", positive_definite=True)
        return solution.applyfunc(sp.simplify) if simplify else solution

    def statics(self) -> sp.Matrix:
        """The equilibrium equations F_r = 0 (Kane, eq. 14 with F_r* = 0) at rest (u = 0)."""
        rest = {ui: 0 for ui in (*self.u, *self.dependent_speeds)}
        return sp.Matrix(self.generalized_active_forces).xreplace(rest)

    def expanded(self) -> EquationsOfMotion:
        """The same equations with every auxiliary symbol replaced by its definition: the literal X, Y, F_r,
        F_r* and partial velocities in q, u and the parameters (long for large systems: they grow exponentially
        with the depth of a chain). Without auxiliaries, ``self``."""
        if not self.auxiliaries:
            return self
        from .auxiliary import expand
        values = expand(self.auxiliaries)
        literal = lambda M: sp.Matrix(M).xreplace(values)  # noqa: E731
        return replace(self, mass_matrix=literal(self.mass_matrix), forcing=literal(self.forcing),
                       generalized_active_forces=literal(self.generalized_active_forces),
                       generalized_inertia_forces=literal(self.generalized_inertia_forces),
                       partial_velocities={k: tuple(map(literal, p)) for k, p in self.partial_velocities.items()},
                       auxiliaries=())

    @property
    def independent_coordinates(self) -> tuple[sp.Expr, ...]:
        """The coordinates q without the dependent ones (all of q without holonomic constraints)."""
        return tuple(qi for qi in self.q if qi not in self.dependent_coordinates)

    def linearize(self, operating_point: Mapping[sp.Expr, Any], inputs: Sequence[sp.Expr] = (),
                  simplify: bool = False) -> tuple[sp.Matrix, sp.Matrix]:
        """Linearized state equations ẋ ≈ A δx + B δr about ``operating_point``, x = [q_ind; u].

        ``operating_point`` maps every q_i and independent u_i, and parameters if wanted, to values (numbers,
        or expressions in symbols left free, e.g. a forward speed v); the dependent speeds default to their
        values there. Derivatives are taken over the expression graph at the point (:mod:`.jet`), never by
        differentiating the expression trees. ``inputs`` are symbols of :attr:`inputs` (or any parameters) to take as the input vector
        r. Returns (A, B) as sympy Matrices (simplified only if ``simplify``): A = df/dx, B = df/dr with
        f = [q̇_ind; X⁻¹ Y], total derivatives through the constraints:

            δq_dep = −(∂f_h/∂q_dep)⁻¹ ∂f_h/∂q_ind δq_ind          (holonomic f_h(q) = 0)
            δu_dep = −(∂g/∂u_dep)⁻¹ (∂g/∂q δq + ∂g/∂u_ind δu)      (nonholonomic g = Ac u_all − b = 0)
            δ(X⁻¹Y) = X⁻¹ (δY − δX u̇₀)
        """
        from .jet import jacobian_at
        from .linsolve import lu_solve
        if self.multipliers:
            raise ValueError("linearize: equations with Lagrange multipliers are not supported; "
                             "eliminate the constraints (e.g. Kane's method with dependent speeds) first")
        missing = [s for s in (*self.q, *self.u) if s not in operating_point]
        if missing:
            raise ValueError(f"linearize: operating_point lacks values for {missing}")
        point = dict(operating_point)
        for d, value in self.dependent_speeds.items():
            point.setdefault(d, sp.expand(jacobian_at([value], [], point)[0][0]))
        q, q_ind, u, r = list(self.q), list(self.independent_coordinates), list(self.u), list(inputs)
        u_dep = list(self.dependent_speeds)
        nq, nqi, n = len(q), len(q_ind), len(u)
        # derivatives at the point over the expression graph (each shared subexpression once, auxiliaries too)
        jac = lambda M, v: jacobian_at(list(M), v, point, self.auxiliaries)  # noqa: E731
        # dq/dq_ind (nq × nqi): identity rows for q_ind, −(∂f/∂q_dep)⁻¹ ∂f/∂q_ind for q_dep
        dq = sp.zeros(nq, nqi)
        for j, qj in enumerate(q_ind):
            dq[q.index(qj), j] = 1
        if self.dependent_coordinates:
            q_dep = list(self.dependent_coordinates)
            _, F = jac(self.configuration_constraints, q_dep + q_ind)
            slope = lu_solve(F[:, :len(q_dep)], -F[:, len(q_dep):], "linearize: configuration constraints")
            for i, qi in enumerate(q_dep):
                dq[q.index(qi), :] = slope[i, :]
        # d(q, u, u_dep)/d(q_ind, u) ((nq + n + m) × (nqi + n))
        dstate = sp.diag(dq, sp.eye(n))
        if u_dep:
            _, G = jac(self.velocity_constraints, q + u + u_dep)
            slope = lu_solve(G[:, nq + n:], -G[:, :nq + n] * dstate, "linearize: velocity constraints")
            dstate = sp.Matrix.vstack(dstate, slope)
        variables = q + u + u_dep + r
        nx = len(variables) - len(r)
        X0, JX = jac(self.mass_matrix, variables)
        Y0, JY = jac(self.forcing, variables)
        X0 = X0.reshape(n, n)
        udot0 = lu_solve(X0, Y0, "linearize: mass matrix")
        # ∂(X⁻¹Y)/∂x = X⁻¹ (∂Y/∂x − ∂(X u̇)/∂x |u̇ fixed); row i·n + k of JX is ∂X_ik
        JE = JY - sp.Matrix(n, len(variables), lambda i, j: sum(
            (JX[i * n + k, j] * udot0[k] for k in range(n)), sp.Integer(0)))
        _, JQ = jac(self.qdot.extract([q.index(qi) for qi in q_ind], [0]), variables)
        A = sp.Matrix.vstack(JQ[:, :nx] * dstate, lu_solve(X0, JE[:, :nx] * dstate, "linearize: mass matrix"))
        if r:
            B = sp.Matrix.vstack(JQ[:, nx:], lu_solve(X0, JE[:, nx:], "linearize: mass matrix"))
        else:
            B = sp.zeros(nqi + n, 0)
        A, B = A.applyfunc(sp.expand), B.applyfunc(sp.expand)
        if simplify:
            A, B = A.applyfunc(sp.simplify), B.applyfunc(sp.simplify)
        return A, B

    def to_latex(self, simplify: bool = True) -> str:
        """LaTeX of the kinematic equations and of each row of X u̇ = Y (dots for time derivatives), of the
        :meth:`simplified` equations unless ``simplify`` is False."""
        eom = self.simplified() if simplify else self
        lines = [f"{vlatex(eq.lhs)} &= {vlatex(eq.rhs)}" for eq in eom.kinematic_equations]
        udot = eom.udot
        for r in range(len(eom.u)):
            lhs = sum((eom.mass_matrix[r, s] * udot[s] for s in range(len(eom.u))), sp.Integer(0))
            lines.append(f"{vlatex(lhs)} &= {vlatex(eom.forcing[r])}")
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"

    def simplified(self, max_ops: int = 200, seconds: float = 5.0) -> EquationsOfMotion:
        """The same equations with the entries of X, Y and q̇ trig-simplified where that is cheap: each entry of at
        most ``max_ops`` operations, smallest first, until ``seconds`` [s] are spent; an entry is replaced only if
        it gets shorter. Derivation never simplifies; printing does (:meth:`to_latex`, ``multibody eom``)."""
        return simplified(self, max_ops, seconds)

    def __repr__(self) -> str:
        """Sizes, not expressions (those are in :attr:`mass_matrix`, :attr:`forcing`, :meth:`to_latex`)."""
        return summary(self)

    def _repr_latex_(self) -> str:
        """Jupyter: the simplified equations for small systems, the sizes and where to look for large ones."""
        return notebook_latex(self)

    def to_numeric(self, params: Mapping[sp.Expr, float] | None = None,
                   inputs: Callable[[float, Any, Any], Any] | None = None, backend: str = "numba") -> NumericEquations:
        """Compiled callables for X, Y, q̇ and the state derivative; see :class:`NumericEquations`.

        ``params`` maps every parameter symbol (masses, lengths, g, ...) to a number; ``inputs`` is None
        (then every symbol of :attr:`inputs` must be in ``params``) or a callable ``r = inputs(t, q, u)``
        returning the values of :attr:`inputs`. ``backend`` is "numba" (compiled) or "numpy".
        """
        return NumericEquations(self, params or {}, inputs, backend)


LATEX_MAX_OPS = 2000  # larger systems are summarized, not written out, in notebooks
_LATEX_ESCAPES = str.maketrans({c: "\\" + c for c in "{}_&%#$"})


def operations(expressions, memo=None):
    """Arithmetic operations and function calls of ``expressions`` written out as trees (about what
    ``sympy.count_ops`` counts: k − 1 for a sum or product of k terms, 1 for a power or function), in time
    linear in the shared expression graph (3 ms for the six-axis arm, where count_ops takes 60 ms)."""
    memo = {} if memo is None else memo
    return sum(_operations(sp.sympify(e), memo) for e in expressions)


def _operations(expr, memo):
    """Operations of one expression; ``memo`` maps each subexpression already counted to its count."""
    stack = [(expr, False)]
    while stack:  # children before parents, each shared subexpression once, without recursion (deep trees)
        node, ready = stack.pop()
        if node in memo:
            continue
        if ready:
            own = (len(node.args) - 1 if isinstance(node, (sp.Add, sp.Mul)) else 1) if node.args else 0
            memo[node] = own + sum(memo[a] for a in node.args)
        else:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in memo)
    return memo[expr]


def summary(eom: EquationsOfMotion, memo: dict | None = None) -> str:
    """One line of sizes: method, n, q, the shapes and operation counts of X and Y (and the extras present);
    ``memo`` as for :func:`operations`."""
    memo = {} if memo is None else memo
    parts = [f"method={eom.method!r}", f"n={len(eom.u)}", f"q=({_names(eom.q)})",
             f"mass_matrix: {_shape(eom.mass_matrix)}, {operations(eom.mass_matrix, memo):,} ops",
             f"forcing: {_shape(eom.forcing)}, {operations(eom.forcing, memo):,} ops"]
    extras = (("inputs", eom.inputs), ("dependent speeds", eom.dependent_speeds), ("multipliers", eom.multipliers),
              ("dependent coordinates", eom.dependent_coordinates))
    parts += [f"{label}: {len(items)}" for label, items in extras if items]
    return f"EquationsOfMotion({', '.join(parts)})"


def _names(symbols):
    """"q_0, q_1" or "q_0 … q_5" for the functions of time q_k(t)."""
    names = [str(getattr(s, "func", s)) for s in symbols]
    return ", ".join(names) if len(names) <= 3 else f"{names[0]} … {names[-1]}"


def _shape(matrix):
    return "×".join(map(str, matrix.shape))


def simplified(eom: EquationsOfMotion, max_ops: int, seconds: float) -> EquationsOfMotion:
    """``eom`` with X, Y and q̇ trig-simplified entry by entry where cheap (:meth:`.EquationsOfMotion.simplified`)."""
    deadline = time.monotonic() + seconds
    matrices = [eom.mass_matrix, eom.forcing, eom.qdot]
    entries = [(k, i, entry) for k, M in enumerate(matrices) for i, entry in enumerate(M)]
    sizes = {(k, i): _operations(entry, {}) for k, i, entry in entries}
    values = [list(M) for M in matrices]
    for k, i, entry in sorted(entries, key=lambda item: sizes[item[:2]]):
        if sizes[k, i] > max_ops or time.monotonic() > deadline:
            break
        shorter = sp.trigsimp(sp.expand(entry))
        if _operations(shorter, {}) < sizes[k, i]:
            values[k][i] = shorter
    X, Y, qdot = (sp.Matrix(M.rows, M.cols, v) for M, v in zip(matrices, values))
    return replace(eom, mass_matrix=X, forcing=Y, qdot=qdot)


def notebook_latex(eom: EquationsOfMotion) -> str:
    """What a notebook shows: the simplified equations in LaTeX if X and Y have at most LATEX_MAX_OPS operations,
    else the one-line summary saying how to see the entries."""
    memo: dict[sp.Basic, int] = {}
    if operations([*eom.mass_matrix, *eom.forcing], memo) > LATEX_MAX_OPS:
        text = (f"{summary(eom, memo)}: too large to show (over {LATEX_MAX_OPS:,} operations); "
                f"see eom.mass_matrix[i, j], eom.forcing[i]")
        return rf"$\text{{{text.translate(_LATEX_ESCAPES)}}}$"
    return f"$${eom.to_latex()}$$"

