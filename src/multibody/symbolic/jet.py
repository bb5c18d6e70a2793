"""First derivatives of large expressions at a point, by forward differentiation over the expression graph.

``sympy``'s ``diff`` walks an expression as a tree: a subexpression shared a thousand times (the solved
constraint coefficients inside the equations of a nonholonomic system) is differentiated a thousand times, and
the result is a new, larger tree. Here each distinct subexpression is visited once, and carries its value at the
point and its gradient with respect to the chosen variables (a "jet"): the cost is linear in the size of the
expression graph. Values are Python floats where the point makes them numbers, sympy expressions where symbols
are left free (e.g. the forward speed v of a linearization), kept expanded as polynomials.
"""
from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef

from .auxiliary import needed


_X = sp.Dummy("x", real=True)


def _value(x):
    """A sympy value as a float when it is a real number, else expanded (small polynomials stay small)."""
    if isinstance(x, float):
        return x
    x = sp.sympify(x)
    if x.is_Number:
        return float(x) if x.is_real is not False else complex(x)
    if x.free_symbols:
        return sp.expand(x)
    c = complex(x.evalf())
    return c.real if c.imag == 0 else c


def _as_sympy(x):
    return sp.Float(x) if isinstance(x, float) else x


def jacobian_at(expressions, variables, point, auxiliaries=()):
    """The values of ``expressions`` and their Jacobian with respect to ``variables`` at ``point``.

    ``point`` maps symbols / functions of t to values (numbers or expressions); symbols not in it stay free.
    ``auxiliaries``: ordered (z_k, definition) pairs that the expressions may contain, differentiated through.
    Returns (values, jacobian) as sympy Matrices (len(expressions) × 1 and × len(variables)).
    """
    index = {v: j for j, v in enumerate(variables)}
    memo = {}

    def leaf(e):
        if e in index:
            return _value(point[e]) if e in point else e, {index[e]: 1.0}
        if e in point:
            return _value(point[e]), {}
        if e.is_Number:
            return _value(e), {}
        if e.is_Symbol or isinstance(e, (AppliedUndef, sp.Derivative)) or not e.args:
            return _value(e), {}
        return None

    def combine(e, args):
        vals = [a[0] for a in args]
        grads = [a[1] for a in args]
        if e.is_Add:
            value = vals[0]
            for v in vals[1:]:
                value = value + v
            grad = {}
            for g in grads:
                for j, d in g.items():
                    grad[j] = grad.get(j, 0.0) + d
            return _value(value), {j: _value(d) for j, d in grad.items()}
        if e.is_Mul:
            n = len(vals)
            prefix = [1.0] * (n + 1)
            for i in range(n):
                prefix[i + 1] = prefix[i] * vals[i]
            suffix = [1.0] * (n + 1)
            for i in reversed(range(n)):
                suffix[i] = suffix[i + 1] * vals[i]
            grad = {}
            for i, g in enumerate(grads):
                if not g:
                    continue
                others = prefix[i] * suffix[i + 1]
                for j, d in g.items():
                    grad[j] = grad.get(j, 0.0) + others * d
            return _value(prefix[n]), {j: _value(d) for j, d in grad.items()}
        if e.is_Pow:
            (b, gb), (x, gx) = args
            bs, xs = _as_sympy(b), (e.exp if e.exp.is_Number else _as_sympy(x))
            value = _value(bs ** xs)
            grad = {}
            if gb:
                factor = _value(xs * bs ** (xs - 1))
                for j, d in gb.items():
                    grad[j] = factor * d
            if gx:
                factor = _value(_as_sympy(value) * sp.log(bs))
                for j, d in gx.items():
                    grad[j] = grad.get(j, 0.0) + factor * d
            return value, {j: _value(d) for j, d in grad.items()}
        if isinstance(e, sp.Function) and len(args) == 1:
            at = e.func(_as_sympy(vals[0]))
            value = _value(at)
            if not grads[0]:
                return value, {}
            slope = _value(e.func(_X).diff(_X).xreplace({_X: _as_sympy(vals[0])}))
            return value, {j: _value(slope * d) for j, d in grads[0].items()}
        # anything else: sympy's derivative of this node, then the point
        variables_here = [v for v in variables if e.has(v)]
        value = _value(e.xreplace(point))
        return value, {index[v]: _value(e.diff(v).xreplace(point)) for v in variables_here}

    def evaluate(root):
        stack = [(root, False)]
        while stack:
            e, expanded = stack.pop()
            if e in memo:
                continue
            found = leaf(e)
            if found is not None:
                memo[e] = found
                continue
            simple = e.is_Add or e.is_Mul or e.is_Pow or (isinstance(e, sp.Function) and len(e.args) == 1)
            if not simple:
                memo[e] = combine(e, None)
                continue
            if expanded:
                memo[e] = combine(e, [memo[a] for a in e.args])
            else:
                stack.append((e, True))
                stack.extend((a, False) for a in e.args if a not in memo)
        return memo[root]

    expressions = [sp.sympify(x) for x in expressions]
    for z, definition in needed(auxiliaries, expressions):
        memo[z] = evaluate(definition)
    values, rows = [], []
    for x in expressions:
        value, grad = evaluate(x)
        values.append(_as_sympy(value))
        rows.append([_as_sympy(grad.get(j, 0.0)) for j in range(len(variables))])
    return sp.Matrix(values), sp.Matrix(len(expressions), len(variables), [d for row in rows for d in row])

