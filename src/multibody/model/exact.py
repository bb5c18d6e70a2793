"""Exact numbers in model data: angles written as expressions of π.

Model files and DH tables accept ``"pi/2"``, ``"-3*pi/4"``, ``"0.5*pi"``, ``"90 deg"`` wherever a number goes.
Such a value is read exactly (a sympy number: π/2, not 1.5707963267948966), so that the rotation it gives has
exact zeros and ones (cos(π/2) = 0, not 6.1e-17) and symbolic equations of motion derived from the model
carry no round-off coefficients such as 4.9e-37. The numeric side gets the value rounded once to a float.

The text is parsed, never evaluated as code: numbers, ``pi``, ``+ - * /`` and parentheses, with an optional
``deg`` (or ``°``) suffix; anything else is refused with a ValueError.
"""
from __future__ import annotations

import ast
import math
import operator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sympy

MAX_LENGTH = 100  # characters of an expression (bounds the work of parsing hostile files)
_DEGREE_SUFFIXES = ("deg", "°")
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def parse_number(text: str) -> sympy.Expr:
    """The exact value of ``text``, a number written as an expression of π: ``"pi/2"`` → π/2, ``"90 deg"`` → π/2,
    ``"0.25"`` → 1/4 (decimals are read exactly). Raises ValueError (saying why) for anything else."""
    import sympy as sp
    source, scale = text.strip(), sp.Integer(1)
    for suffix in _DEGREE_SUFFIXES:
        if source.endswith(suffix):
            source, scale = source[:-len(suffix)].strip(), sp.pi / 180
    if len(source) > MAX_LENGTH:
        raise ValueError(f"longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError):
        raise ValueError("not an expression of numbers and pi with + - * / ( )") from None
    value = _evaluate(tree.body) * scale
    try:
        finite = value.is_finite and math.isfinite(float(value))
    except (OverflowError, TypeError):
        finite = False
    if not finite:
        raise ValueError("not a finite number")
    return value


def _evaluate(node):
    """The sympy value of a parsed expression of numbers, ``pi``, + − × ÷ (ValueError for any other node)."""
    import sympy as sp
    if isinstance(node, ast.Constant) and type(node.value) in (int, float) and math.isfinite(node.value):
        return sp.Rational(repr(node.value)) if isinstance(node.value, float) else sp.Integer(node.value)
    if isinstance(node, ast.Name) and node.id == "pi":
        return sp.pi
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    name = node.id if isinstance(node, ast.Name) else type(getattr(node, "op", node)).__name__
    raise ValueError(f"only numbers, pi, + - * / and parentheses are allowed, not {name!r}")
