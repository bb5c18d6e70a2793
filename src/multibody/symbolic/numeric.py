"""Code generation: fast numeric callables from an :class:`EquationsOfMotion`.

The expressions of X, Y and q̇ (and, with constraints, B and c) are put through common-subexpression
elimination (``sympy.cse``) into one straight-line kernel, emitted as LLVM IR in a numba function
(:mod:`.llvm_kernel`) or, for the numpy backend, printed as Python. Dependent speeds (nonholonomic systems) are
computed first in the kernel, from their values A u_ind + B; auxiliary symbols (``eom.auxiliaries``) next,
those the outputs need, in order. The state derivative solves X u̇ = Y
numerically: by Cholesky when X is symmetric (positive definite; LU otherwise), by LU on the KKT system with
multipliers.
"""
from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numba
import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.pycode import PythonCodePrinter

from .._notice import notice_if_slow
from ..errors import ModelError
from .auxiliary import needed
from .llvm_kernel import llvm_kernel

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

_OUTPUTS = ("X", "Y", "QD", "B", "C")
_VECTORS = ("Y", "QD", "C")


class NumericEquations:
    """Numeric form of X(q, u, t) u̇ = Y(q, u, t), q̇ = f(q, u, t) for given parameter values, made from an
    :class:`~multibody.symbolic.EquationsOfMotion` (``eom``; :meth:`~multibody.symbolic.EquationsOfMotion.to_numeric`).

    Methods
    -------
    mass_matrix(q, u, t=0.0) -> (n, n) array
    forcing(q, u, t=0.0) -> (n,) array
    qdot(q, u, t=0.0) -> (nq,) array
    udot(q, u, t=0.0) -> (n,) array: X⁻¹ Y (with constraints: the u̇ of the KKT system, Mukharlyamov, "Equations of
    motion of mechanical systems in matrix form")
    rhs(t, x) -> (nq + n,) array: d/dt [q; u] for x = [q; u], the signature of scipy.integrate.solve_ivp.

    Attributes ``nq``, ``nu``, ``q``, ``u`` (the symbols' order), and ``params``.
    """

    def __init__(self, eom: Any, params: Mapping[sp.Expr, float],
                 inputs: Callable[[float, Any, Any], Any] | None = None, backend: str = "numba") -> None:
        with notice_if_slow(f"to_numeric: generating code for X, Y and q̇ of {len(eom.u)} speeds"
                            + ("" if eom.auxiliaries else " (expanded expressions: equations_of_motion(..., "
                               "intermediates=True) gives far shorter code)")):
            self._build(eom, params, inputs, backend)
        self._compiled = {"kernel", "rhs"} if backend != "numba" else set()

    def _build(self, eom, params, inputs, backend):
        self.q, self.u = tuple(eom.q), tuple(eom.u)
        self.nq, self.nu = len(self.q), len(self.u)
        self.params = dict(params)
        self._inputs_fn = inputs
        self._ninputs = len(eom.inputs) if inputs is not None else 0
        qs, us = sp.symbols(f"q_0:{self.nq}"), sp.symbols(f"u_0:{self.nu}")
        ts, rs = sp.Symbol("t_"), sp.symbols(f"r_0:{self._ninputs}")
        replace = {**dict(zip(self.q, qs)), **dict(zip(self.u, us)), eom.t: ts}
        if inputs is not None:
            replace.update(zip(eom.inputs, rs))
        replace.update({sp.sympify(k): sp.sympify(v) for k, v in self.params.items()
                        if not (inputs is not None and k in eom.inputs)})
        dependent = list(eom.dependent_speeds)
        ws = sp.symbols(f"w_0:{len(dependent)}")
        replace.update(zip(dependent, ws))
        prelude = [(w, sp.sympify(eom.dependent_speeds[d]).xreplace(replace)) for w, d in zip(ws, dependent)]
        outputs = {"X": eom.mass_matrix, "Y": eom.forcing, "QD": eom.qdot}
        self._nlambda = len(eom.multipliers)
        if self._nlambda:
            outputs.update(B=eom.constraint_matrix, C=eom.constraint_rhs)
        program, replace = _straight_line(eom.auxiliaries, outputs, replace)
        outputs = {k: sp.Matrix(v).xreplace(replace) for k, v in outputs.items()}
        _check_free_symbols({**outputs, "dependent speeds": sp.Matrix([e for _, e in prelude]),
                             "auxiliaries": sp.Matrix([e for _, e in program])},
                            {*qs, *us, *ws, ts, *rs, *(z for z, _ in program)})
        self._kernel = _compile_kernel(outputs, backend, prelude, program)
        symmetric = outputs["X"] == outputs["X"].T
        self._state_derivative = _state_derivative_factory(self._kernel, self.nq, self.nu, self._nlambda, symmetric,
                                                           backend)

    def _inputs(self, t, q, u):
        if self._inputs_fn is None:
            return _NO_INPUTS
        return np.asarray(self._inputs_fn(t, q, u), dtype=float).reshape(self._ninputs)

    def _evaluate(self, q, u, t):
        q = _as_vector(q, self.nq, "q")
        u = _as_vector(u, self.nu, "u")
        X, Y = np.zeros((self.nu, self.nu)), np.zeros(self.nu)
        QD = np.zeros(self.nq)
        B, C = np.zeros((self._nlambda, self.nu)), np.zeros(self._nlambda)
        with self._first_call("kernel"):
            self._kernel(float(t), q, u, self._inputs(t, q, u), X, Y, QD, B, C)
        return X, Y, QD, B, C

    def _first_call(self, which):
        """The first call of each compiled function compiles it (numba, on first use): said if that is slow."""
        if which in self._compiled:
            return nullcontext()
        self._compiled.add(which)
        return notice_if_slow(f"to_numeric: compiling the generated code of {self.nu} speeds (first call)")

    def mass_matrix(self, q: ArrayLike, u: ArrayLike, t: float = 0.0) -> np.ndarray:
        """X(q, u, t), (n, n)."""
        return self._evaluate(q, u, t)[0]

    def forcing(self, q: ArrayLike, u: ArrayLike, t: float = 0.0) -> np.ndarray:
        """Y(q, u, t), (n,)."""
        return self._evaluate(q, u, t)[1]

    def qdot(self, q: ArrayLike, u: ArrayLike, t: float = 0.0) -> np.ndarray:
        """q̇ = f(q, u, t), (nq,)."""
        return self._evaluate(q, u, t)[2]

    def udot(self, q: ArrayLike, u: ArrayLike, t: float = 0.0) -> np.ndarray:
        """u̇ from X u̇ = Y (and, with multipliers, B u̇ = c)."""
        x = np.concatenate([_as_vector(q, self.nq, "q"), _as_vector(u, self.nu, "u")])
        return self.rhs(t, x)[self.nq:]

    def rhs(self, t: float, x: ArrayLike) -> np.ndarray:
        """d/dt [q; u] at time t [s] for the state x = [q; u] (one compiled call: kernel and linear solve)."""
        x = np.asarray(x, dtype=float)
        if x.shape != (self.nq + self.nu,):
            raise ValueError(f"x: expected shape ({self.nq + self.nu},) = [q; u], got {x.shape}")
        out = np.empty(self.nq + self.nu)
        with self._first_call("rhs"):
            status = self._state_derivative(float(t), x, self._inputs(t, x[:self.nq], x[self.nq:]), out)
        if status == _NONFINITE_STATE:
            bad = np.flatnonzero(~np.isfinite(x))[0]
            raise ValueError(f"rhs: x[{bad}] = {x[bad]} at t = {t} (the state must be finite)")
        if status == _NONFINITE_RATE:
            raise ValueError(f"rhs: non-finite state derivative at t = {t} from a finite state (overflow?)")
        return out


_NO_INPUTS = np.zeros(0)
_NONFINITE_STATE, _NONFINITE_RATE = 1, 2


@numba.njit(cache=True, fastmath={"reassoc", "contract"})
def _solve_spd(X, Y, out):
    """out = X⁻¹ Y for a symmetric positive-definite X (lower triangle read): Cholesky X = L Lᵀ (Golub & Van Loan,
    Matrix Computations, alg. 4.2.1), then L z = Y and Lᵀ out = z. False if a pivot is not positive."""
    n = Y.shape[0]
    L, inverse = np.empty((n, n)), np.empty(n)  # L below its diagonal; 1 / L_jj
    for j in range(n):
        # L_jj² = X_jj − Σ_k L_jk², L_ij = (X_ij − Σ_k L_ik L_jk) / L_jj
        d = X[j, j]
        for k in range(j):
            d -= L[j, k] * L[j, k]
        if not d > 0.0:
            return False
        inverse[j] = 1.0 / np.sqrt(d)
        for i in range(j + 1, n):
            s = X[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s * inverse[j]
    for i in range(n):
        s = Y[i]
        for k in range(i):
            s -= L[i, k] * out[k]
        out[i] = s * inverse[i]
    for i in range(n - 1, -1, -1):
        s = out[i]
        for k in range(i + 1, n):
            s -= L[k, i] * out[k]
        out[i] = s * inverse[i]
    return True


@numba.njit(cache=True)
def _solve_kkt(X, Y, B, C):
    """u̇ from [X  −Bᵀ; B  0] [u̇; λ] = [Y; c] (Mukharlyamov); just X u̇ = Y when B is empty."""
    nu, nlambda = Y.shape[0], C.shape[0]
    K = np.zeros((nu + nlambda, nu + nlambda))
    K[:nu, :nu] = X
    K[:nu, nu:] = -B.T
    K[nu:, :nu] = B
    return np.linalg.solve(K, np.concatenate((Y, C)))[:nu]


def _state_derivative_factory(kernel, nq, nu, nlambda, symmetric, backend):
    """f(t, x, r, out) -> status: out = [q̇; u̇], the generated kernel then the linear solve, in one compiled call;
    status 0, or _NONFINITE_STATE / _NONFINITE_RATE."""
    cholesky = symmetric and nlambda == 0

    def state_derivative(t, x, r, out):
        if not np.all(np.isfinite(x)):
            return _NONFINITE_STATE
        X, Y, QD = np.zeros((nu, nu)), np.zeros(nu), np.zeros(nq)
        B, C = np.zeros((nlambda, nu)), np.zeros(nlambda)
        kernel(t, x[:nq], x[nq:], r, X, Y, QD, B, C)
        out[:nq] = QD
        if not (cholesky and _solve_spd(X, Y, out[nq:])):
            out[nq:] = _solve_kkt(X, Y, B, C)
        return 0 if np.all(np.isfinite(out)) else _NONFINITE_RATE

    return numba.njit(cache=False)(state_derivative) if backend == "numba" else state_derivative


def _as_vector(x, size, name):
    arr = np.asarray(x, dtype=float)
    if arr.shape != (size,):
        raise ValueError(f"{name}: expected shape ({size},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: must be finite, got {arr.tolist()}")
    return arr


def _check_free_symbols(outputs, allowed):
    free = set().union(*(m.free_symbols for m in outputs.values())) - allowed
    undefined = set().union(*(m.atoms(AppliedUndef, sp.Derivative) for m in outputs.values()))
    missing = sorted(map(str, free | undefined))
    if missing:
        raise ModelError(f"to_numeric: no value given for {', '.join(missing)} (pass them in params)")


class _Printer(PythonCodePrinter):
    """Prints math.* calls; numba compiles them."""

    def _print_Float(self, expr):
        return repr(float(expr))


def _straight_line(auxiliaries, outputs, replace):
    """The auxiliaries that the outputs need, in order, with ``replace`` (state symbols, parameter values)
    applied; those that become numbers or (±) symbols are substituted into the later ones and the outputs
    instead (constant and copy propagation). Returns (definitions, the substitution for the outputs)."""
    replace, program = dict(replace), []
    for z, e in needed(auxiliaries, [e for M in outputs.values() for e in M]):
        e = e.xreplace(replace)
        if e.is_Atom or (-e).is_Atom:
            replace[z] = e
        else:
            program.append((z, e))
    return program, replace


def _compile_kernel(outputs, backend, prelude=(), program=()):
    """One kernel(t_, q, u, r, X, Y, QD, B, C) that fills the output arrays (straight-line code, see
    :func:`_straight_line_code`): for numba, emitted as LLVM IR (:mod:`.llvm_kernel`; numba compiles the Python
    source if an expression has no LLVM form there); for numpy, Python source."""
    if backend not in ("numba", "numpy"):
        raise ValueError(f"to_numeric: backend must be 'numba' or 'numpy', got {backend!r}")
    code = _straight_line_code(outputs, prelude, program)
    if backend == "numba":
        try:
            return llvm_kernel(code, columns=outputs["X"].shape[1])
        except NotImplementedError:
            return numba.njit(cache=False)(_python_kernel(code))
    return _python_kernel(code)


def _straight_line_code(outputs, prelude, program):
    """The kernel as (target, expression) pairs in order: the states read (q_k = q[k], ...), the ``prelude``
    (the dependent speeds, CSE'd), the ``program`` (the auxiliaries) as it is, then the CSE'd outputs written
    (X[i, j] = ...)."""
    entries = [(name, index, expr) for name in _OUTPUTS if name in outputs
               for index, expr in _indexed(name, outputs[name])]
    first, first_reduced = sp.cse([e for _, e in prelude], symbols=sp.numbered_symbols("d_"))
    replacements, reduced = sp.cse([e for _, _, e in entries])
    expressions = [e for _, _, e in entries] + [e for _, e in (*prelude, *program)]
    symbols = set().union(*(e.free_symbols for e in expressions))
    reads = [(s, sp.IndexedBase(str(s)[0])[int(str(s)[2:])]) for s in sorted(symbols, key=str)
             if str(s).startswith(("q_", "u_", "r_"))]
    writes = [(sp.IndexedBase(name)[index], expr) for (name, index, _), expr in zip(entries, reduced)]
    return [*reads, *first, *zip((w for w, _ in prelude), first_reduced), *program, *replacements, *writes]


def _python_kernel(code):
    """The kernel as a Python function, from its source."""
    printer = _Printer({"fully_qualified_modules": True})
    lines = ["def kernel(t_, q, u, r, X, Y, QD, B, C):"]
    lines += [f"    {printer.doprint(target)} = {printer.doprint(expr)}" for target, expr in code] or ["    pass"]
    namespace = {"math": __import__("math")}
    exec(compile("\n".join(lines), "<multibody.symbolic generated kernel>", "exec"), namespace)
    return namespace["kernel"]


def _indexed(name, matrix):
    """(index, expression) for the non-zero entries of an output (1-D for Y, QD, C; else 2-D)."""
    rows, cols = matrix.shape
    for i in range(rows):
        for j in range(cols):
            if matrix[i, j] != 0:
                yield ((i,) if name in _VECTORS else (i, j)), matrix[i, j]
