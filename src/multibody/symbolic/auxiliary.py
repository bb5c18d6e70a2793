"""Auxiliary symbols: the intermediate quantities of a recursive derivation kept as named symbols.

AUTOLEV and MotionGenesis write large equations of motion as a straight-line program: every intermediate
quantity (sin q_k, a rotation entry, an angular velocity, a resultant force) is named z_k once, with its
definition in terms of q, u, the parameters and the earlier z's,

    z_k = e_k(q, u, parameters, z_0, …, z_{k−1}),

and X u̇ = Y are short expressions in the z's. The program grows with the number of recursive steps, where the
expanded expressions swell exponentially with the depth of a chain. :func:`expand` substitutes it back.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef


class Auxiliaries:
    """A growing straight-line program; calling it on an expression returns the expression's symbol z_k.

    Numbers, symbols and functions of time (q_k(t)) stay themselves, −e is named as −(the name of e), and an
    expression met again gets the symbol it got the first time. ``taken``: names the z_k must avoid (the
    model's parameters).
    """

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self.definitions: list[tuple[sp.Symbol, sp.Expr]] = []
        self._symbols: dict[sp.Expr, sp.Symbol] = {}
        self._taken = set(taken)

    def __call__(self, expr: sp.Expr) -> sp.Expr:
        expr = sp.sympify(expr)
        if expr.is_Atom or isinstance(expr, AppliedUndef):
            return expr
        if expr.could_extract_minus_sign():
            return -self(-expr)
        if expr not in self._symbols:
            name = f"z_{len(self.definitions)}"
            while name in self._taken:
                name += "_"
            symbol = sp.Symbol(name)
            self._symbols[expr] = symbol
            self.definitions.append((symbol, expr))
        return self._symbols[expr]

    def matrix(self, M: sp.Matrix) -> sp.Matrix:
        """Every entry of the sympy Matrix ``M`` named."""
        return M.applyfunc(self)


def expand(definitions: Sequence[tuple[sp.Symbol, sp.Expr]]) -> dict[sp.Symbol, sp.Expr]:
    """Map every auxiliary symbol of ``definitions`` ((z_k, e_k) in order) to its expression in q, u and the
    parameters alone (for ``Matrix.xreplace``)."""
    values: dict[sp.Symbol, sp.Expr] = {}
    for z, e in definitions:
        values[z] = e.xreplace(values)
    return values


def needed(definitions: Sequence[tuple[sp.Symbol, sp.Expr]],
           expressions: Iterable[sp.Expr]) -> list[tuple[sp.Symbol, sp.Expr]]:
    """The definitions (in order) that ``expressions`` depend on, directly or through other definitions."""
    if not definitions:
        return []
    wanted = set().union(*(sp.sympify(e).free_symbols for e in expressions))
    kept = []
    for z, e in reversed(definitions):
        if z in wanted:
            kept.append((z, e))
            wanted |= e.free_symbols
    return kept[::-1]
