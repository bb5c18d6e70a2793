"""The result of every symbolic formulation: one immutable :class:`EquationsOfMotion`.

Whatever the method (Kane, Lagrange, Gauss, the tree recursion), the equations end in the form of source
document 000, eq. 35,

    X(q, t) u̇ = Y(q, u, t),        q̇ = f(q, u, t),

with X the n×n mass matrix and Y the forcing. Kane's equations F_r + F_r* = 0 (eq. 14) are the rows of
Y − X u̇ = 0. Lagrange's equations with multipliers (document 004) add B u̇ = c and the term Bᵀλ on the right.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp
from sympy.physics.vector import dynamicsymbols, vlatex

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
        F_r (document 000, eqs. 4, 6, 10).
    generalized_inertia_forces : sympy.Matrix (n, 1)
        F_r* (eqs. 5, 7–9, 11–13), linear in u̇; F_r + F_r* = Y − X u̇.
    partial_velocities : dict
        body name -> (ω_r, v_r): 3×n matrices whose column r is the partial angular velocity of the body and
        the partial velocity of its mass center (table 2 of document 000), in the body's own axes
        (particles: the inertial frame's axes).
    inputs : tuple
        Specified quantities (e.g. joint torques) that :meth:`to_numeric` takes as inputs.
    dependent_speeds : dict
        Nonholonomic systems: each eliminated dependent speed -> its expression in q and the independent u.
    multipliers, constraint_matrix, constraint_rhs :
        Lagrange's equations with constraints (document 004): X u̇ = Y + Bᵀλ, B u̇ = c.
    gauss_function : sympy expression or None
        G(u̇) = ½ u̇ᵀ X u̇ − Yᵀ u̇ (document 003, eqs. 5, 7) for the Gauss method.
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

    def __post_init__(self):
        for name in ("mass_matrix", "forcing", "qdot", "generalized_active_forces", "generalized_inertia_forces",
                     "constraint_matrix", "constraint_rhs"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, sp.ImmutableMatrix(value))

    @property
    def t(self):
        """The time symbol."""
        return TIME

    @property
    def udot(self):
        """Time derivatives of the generalized speeds, as they appear in X u̇ = Y."""
        return sp.Matrix([ui.diff(TIME) for ui in self.u])

    @property
    def equations(self):
        """Kane's equations F_r + F_r* = 0 (document 000, eq. 14), as the column Y − X u̇ (each entry = 0)."""
        return sp.Matrix(self.forcing) - sp.Matrix(self.mass_matrix) * self.udot

    @property
    def kinematic_equations(self):
        """The kinematic differential equations as a list of ``Eq(q̇_i, f_i(q, u))``."""
        return [sp.Eq(qi.diff(TIME), fi) for qi, fi in zip(self.q, self.qdot)]

    def minimizer(self):
        """The u̇ that minimizes the Gauss function (equals the solution of X u̇ = Y): X⁻¹ Y, simplified."""
        return sp.Matrix(self.mass_matrix).LUsolve(sp.Matrix(self.forcing)).applyfunc(sp.simplify)

    def statics(self):
        """The equilibrium equations F_r = 0 (document 000, eq. 14 with F_r* = 0) at rest (u = 0)."""
        rest = {ui: 0 for ui in self.u}
        return sp.Matrix(self.generalized_active_forces).xreplace(rest)

    def linearize(self, operating_point, inputs=()):
        """Linearized state equations ẋ ≈ A δx + B δr about ``operating_point`` for x = [q; u].

        ``operating_point`` maps every q_i, u_i (and parameters if wanted) to values; ``inputs`` are symbols
        of :attr:`inputs` (or any parameters) to take as the input vector r. Returns (A, B) as sympy
        Matrices: A = ∂f/∂x, B = ∂f/∂r with f = [q̇(q, u); X⁻¹ Y].
        """
        if self.multipliers:
            raise ValueError("linearize: equations with Lagrange multipliers are not supported; "
                             "eliminate the constraints (e.g. Kane's method with dependent speeds) first")
        missing = [s for s in (*self.q, *self.u) if s not in operating_point]
        if missing:
            raise ValueError(f"linearize: operating_point lacks values for {missing}")
        x = sp.Matrix([*self.q, *self.u])
        r = sp.Matrix(list(inputs))
        X, Y = sp.Matrix(self.mass_matrix), sp.Matrix(self.forcing)
        point = dict(operating_point)
        X0 = X.xreplace(point)
        udot0 = X0.LUsolve(Y.xreplace(point))
        # ∂(X⁻¹Y)/∂x = X⁻¹ (∂Y/∂x − ∂(X u̇)/∂x |u̇ fixed)
        held = X * udot0
        blocks = []
        for variables in (x, r):
            if len(variables) == 0:
                blocks.append(sp.zeros(len(x), 0))
                continue
            dynamic = X0.LUsolve((Y.jacobian(variables) - held.jacobian(variables)).xreplace(point))
            kinematic = sp.Matrix(self.qdot).jacobian(variables).xreplace(point)
            blocks.append(sp.Matrix.vstack(kinematic, dynamic).applyfunc(sp.simplify))
        return blocks[0], blocks[1]

    def to_latex(self):
        """LaTeX of the kinematic equations and of each row of X u̇ = Y (dots for time derivatives)."""
        lines = [f"{vlatex(eq.lhs)} &= {vlatex(eq.rhs)}" for eq in self.kinematic_equations]
        udot = self.udot
        for r in range(len(self.u)):
            lhs = sum((self.mass_matrix[r, s] * udot[s] for s in range(len(self.u))), sp.Integer(0))
            lines.append(f"{vlatex(lhs)} &= {vlatex(self.forcing[r])}")
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"

    def to_numeric(self, params=None, inputs=None, backend="numba"):
        """Compiled callables for X, Y, q̇ and the state derivative; see :class:`NumericEquations`.

        ``params`` maps every parameter symbol (masses, lengths, g, ...) to a number; ``inputs`` is None
        (then every symbol of :attr:`inputs` must be in ``params``) or a callable ``r = inputs(t, q, u)``
        returning the values of :attr:`inputs`. ``backend`` is "numba" (compiled) or "numpy".
        """
        from .numeric import NumericEquations
        return NumericEquations(self, params or {}, inputs, backend)
