"""Linear systems with symbolic coefficients, solved without simplification.

Gaussian elimination on expression trees: sums and products are built, never expanded or simplified, so the
cost grows with the number of operations of elimination (n³), not with the size of the expressions. Pivots are
chosen by the magnitude of the entries evaluated at a random point (partial pivoting on a numeric shadow), which
also decides, with probability one, whether the matrix is singular — without ever forming or simplifying a
determinant.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import ModelError

_TINY = 1e-9


def random_values(expressions, seed=20070):
    """A map from every symbol, undefined function of t (q(t), u(t)) and derivative in ``expressions`` to a
    random number in (0.3, 1.3): a generic point at which to test for singularity."""
    atoms = set()
    for e in expressions:
        e = sp.sympify(e)
        atoms |= e.atoms(sp.Derivative) | e.atoms(AppliedUndef) | e.free_symbols
    rng = np.random.default_rng(seed)
    ordered = sorted(atoms, key=sp.default_sort_key)
    return {a: sp.Float(x) for a, x in zip(ordered, rng.uniform(0.3, 1.3, size=len(ordered)))}


def _number(expr, values):
    return 0.0 if expr == 0 else complex(sp.sympify(expr).xreplace(values).evalf())


def _det(A):
    """Determinant by cofactor expansion along the first row (small matrices), unsimplified."""
    n = A.rows
    if n == 1:
        return A[0, 0]
    return sp.Add(*[(-1) ** j * A[0, j] * _det(A.minor_submatrix(0, j)) for j in range(n) if A[0, j] != 0])


def lu_solve(A, B, what="linear system", positive_definite=False):
    """X with A X = B (A square), unsimplified; ModelError if A is singular (at a generic point).

    Symbolic systems up to 3×3 (constraint matrices) by Cramer's rule, X = adj(A) B / det(A), valid wherever
    det A ≠ 0 (elimination could divide by a pivot that vanishes at special configurations, e.g. upright).
    Larger ones by Gaussian elimination: in order for a ``positive_definite`` A (a mass matrix: every pivot is
    a Schur complement's diagonal, positive), else with partial pivoting on A evaluated at a random point.
    """
    A, B = sp.Matrix(A), sp.Matrix(B)
    n = A.rows
    if A.cols != n or B.rows != n:
        raise ModelError(f"{what}: expected a square system, got {A.shape} and {B.shape}")
    values = random_values(list(A))
    shadow = np.array([[_number(A[i, j], values) for j in range(n)] for i in range(n)], dtype=complex)
    scale = max(1.0, np.abs(shadow).max()) if n else 1.0
    symbolic = any(not x.is_Number for x in A)
    if symbolic and n <= 3:
        if abs(np.linalg.det(shadow)) < _TINY * scale ** n:
            raise ModelError(f"{what}: singular coefficient matrix (at a generic point)")
        det = _det(A)
        adjugate = sp.Matrix(n, n, lambda i, j: (-1) ** (i + j) * _det(A.minor_submatrix(j, i)) if n > 1 else 1)
        return (adjugate * B) / det
    U, R = A.copy(), B.copy()
    for k in range(n):
        # partial pivoting on the numeric shadow; the symbolic rows follow
        if positive_definite and abs(shadow[k, k]) >= _TINY * scale:
            p = k
        else:
            p = k + int(np.argmax(np.abs(shadow[k:, k])))
        if abs(shadow[p, k]) < _TINY * scale:
            raise ModelError(f"{what}: singular coefficient matrix (no pivot in column {k + 1} at a generic point)")
        if p != k:
            U.row_swap(p, k)
            R.row_swap(p, k)
            shadow[[p, k]] = shadow[[k, p]]
        for i in range(k + 1, n):
            if U[i, k] == 0:
                continue
            factor = U[i, k] / U[k, k]
            shadow[i, k:] -= shadow[i, k] / shadow[k, k] * shadow[k, k:]
            for j in range(k + 1, n):
                if U[k, j] != 0:
                    U[i, j] = U[i, j] - factor * U[k, j]
            for j in range(R.cols):
                if R[k, j] != 0:
                    R[i, j] = R[i, j] - factor * R[k, j]
            U[i, k] = 0
    X = sp.zeros(n, R.cols)
    for i in reversed(range(n)):
        for j in range(R.cols):
            rest = sp.Add(*[U[i, s] * X[s, j] for s in range(i + 1, n) if U[i, s] != 0 and X[s, j] != 0])
            X[i, j] = (R[i, j] - rest) / U[i, i]
    return X


def solve_linear(equations, unknowns, what, simplify=False):
    """Solve equations (expressions = 0, or Eq) linear in ``unknowns``; ModelError if they are not solvable."""
    equations = [e.lhs - e.rhs if isinstance(e, sp.Equality) else sp.sympify(e) for e in equations]
    if len(equations) != len(unknowns):
        raise ModelError(f"{what}: {len(equations)} equations for {len(unknowns)} unknowns {list(unknowns)}")
    A, b = linear_coefficients(equations, unknowns, what)
    solution = lu_solve(A, b, what)
    return solution.applyfunc(sp.simplify) if simplify else solution


def linear_coefficients(equations, unknowns, what):
    """(A, b) with equations = A x − b, for expressions linear in the unknowns x (ModelError if not)."""
    try:
        return sp.linear_eq_to_matrix(list(equations), list(unknowns))
    except sp.solvers.solveset.NonlinearError as exc:
        raise ModelError(f"{what}: must be linear in {list(unknowns)}") from exc
