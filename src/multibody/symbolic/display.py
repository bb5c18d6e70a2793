"""Showing equations of motion: their size at a glance, cheap trigonometric simplification, LaTeX.

Derivation never simplifies (it would cost more than the derivation for large systems); what is printed is
simplified where that is cheap: each entry of X, Y and q̇ small enough (``max_ops``) goes through
``trigsimp(expand(·))`` and is kept if it got shorter (the double pendulum's X₀₀ drops from 22 operations to 4),
within a time budget, smallest entries first.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

import sympy as sp

if TYPE_CHECKING:
    from .eom import EquationsOfMotion

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

