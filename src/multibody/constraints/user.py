"""User constraints: holonomic rows φ(q) = 0 and nonholonomic rows A(q) v = b(q), given as callables or as sympy
expressions (the rows of :mod:`.types` otherwise: :class:`~.types.Rows`, world axes)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..dynamics import integrate
from ..errors import ModelError
from .types import Constraint, Rows, SymbolicRows

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..model import Model
    from ._kinematics import Snapshot


def _directional(f, model, q, v, h):
    """Central difference (f(q ⊕ h v) − f(q ⊖ h v)) / 2h along the constant-velocity motion (error O(h²))."""
    return (np.asarray(f(integrate(model, q, v, h))) - np.asarray(f(integrate(model, q, v, -h)))) / (2 * h)


def _call(function, q, shape, label):
    """function(q) as a float array of ``shape`` with finite entries; ModelError naming ``label`` otherwise."""
    value = np.asarray(function(q), dtype=float).reshape(-1) if len(shape) == 1 else \
        np.atleast_2d(np.asarray(function(q), dtype=float))
    if value.shape != shape or not np.all(np.isfinite(value)):
        raise ModelError(f"{label} returned {value!r} (shape {value.shape}): expected shape {shape}, finite values")
    return value


def _is_expression(x):
    """True for a sympy expression or a sequence of them (rows given symbolically)."""
    items = x if isinstance(x, (list, tuple)) else [x]
    return bool(items) and all(hasattr(e, "free_symbols") for e in items) and not callable(x)


class _ExpressionRows:
    """User rows given as sympy expressions in ``coordinates`` (symbols standing for q_0 … q_{nq−1}) and, for
    velocity rows, ``speeds`` (for v_0 … v_{nv−1}), compiled once for the numeric rows (models with q̇ = v, i.e.
    scalar joints): the Jacobians by differentiation and γ = −d(J)/dt v exactly."""

    def __init__(self, rows, coordinates, speeds, label):
        import sympy as sp
        rows = sp.Matrix(list(rows) if isinstance(rows, (list, tuple)) else [rows])
        if coordinates is None:
            raise ModelError(f"{label}: rows given as sympy expressions need coordinates=(symbols for q_0, q_1, …)")
        q = sp.Matrix(list(coordinates))
        v = sp.Matrix(list(speeds)) if speeds is not None else sp.Matrix(sp.symbols(f"v_0:{len(q)}"))
        unknown = rows.free_symbols - set(q) - set(v)
        if unknown:
            raise ModelError(f"{label}: rows depend on {sorted(map(str, unknown))}, neither coordinates nor speeds")
        self.rows, self.q, self.v, self.label = rows, q, v, label
        self.compiled = {}

    def function(self, name, expression, *args):
        """lambdify(args, expression()), formed and compiled on first use."""
        if name not in self.compiled:
            import sympy as sp
            self.compiled[name] = sp.lambdify(args, expression(), "numpy")
        return self.compiled[name]

    def check(self, model):
        if model.nq != model.nv or len(self.q) != model.nq:
            raise ModelError(f"{self.label}: rows given as sympy expressions need a model with q̇ = v (scalar joints) "
                             f"and one coordinate symbol per entry of q ({model.nq}), got {len(self.q)} symbols for "
                             f"nq = {model.nq}, nv = {model.nv}")

    def substituted(self, k):
        """The rows in the symbolic kinematics' q(t) and u(t)."""
        return list(self.rows.xreplace({**dict(zip(self.q, k.q)), **dict(zip(self.v, k.u))}))


class Holonomic(Constraint):
    """User holonomic constraint φ(q) = 0 given by a callable ``phi(q) -> (size,)``, or as sympy expressions.

    J (size × nv) is ``jacobian(q)`` if given, else the central difference of φ along q ⊕ ±h e_k (h = ``step``,
    error O(h²)). γ = −J̇ v is the central difference of J v along q ⊕ ±h v when ``jacobian`` is given (error
    ~1e-10), else the second difference −(φ(q ⊕ h v) − 2φ(q) + φ(q ⊖ h v))/h² with h = √step / 10 (error ~1e-8,
    relative). Autonomous constraints only.

    ``phi`` may instead be a sympy expression or a list of them in the symbols ``coordinates`` (one per entry of
    q, models with scalar joints): J = ∂φ/∂q and γ = −∂(J v)/∂q v are then exact, and the symbolic equations
    (:func:`multibody.symbolic.equations_of_motion`) take the rows as they are; ``size`` may be omitted.
    """

    def __init__(self, phi: Callable[[np.ndarray], ArrayLike] | Any, size: int | None = None,
                 jacobian: Callable[[np.ndarray], ArrayLike] | None = None, step: float = 1e-6,
                 name: str | None = None, coordinates: Any = None) -> None:
        super().__init__((), name or getattr(phi, "__name__", "phi"))
        self.expressions = None
        if _is_expression(phi):
            self.expressions = _ExpressionRows(phi, coordinates, None, f"Holonomic '{self.name}'")
            rows, q = self.expressions.rows, self.expressions.q
            phi = self.expressions.function("phi", lambda: list(rows), list(q))
            jacobian = self.expressions.function("J", lambda: rows.jacobian(q), list(q))
            size = rows.rows
        if not callable(phi) or (jacobian is not None and not callable(jacobian)):
            raise ModelError(f"Holonomic '{self.name}': phi and jacobian must be callables, got {phi!r}, {jacobian!r}")
        if size is None:
            raise ModelError(f"Holonomic '{self.name}': give size, the number of rows of phi(q)")
        self.phi, self._jacobian, self.size, self.step = phi, jacobian, int(size), float(step)

    def check(self, model: Model) -> None:
        if self.expressions is not None:
            self.expressions.check(model)

    def value(self, q: np.ndarray) -> np.ndarray:
        return _call(self.phi, q, (self.size,), f"Holonomic '{self.name}': phi")

    def jacobian(self, model: Model, q: np.ndarray) -> np.ndarray:
        if self._jacobian is not None:
            return _call(self._jacobian, q, (self.size, model.nv), f"Holonomic '{self.name}': jacobian")
        return np.column_stack([_directional(self.value, model, q, e, self.step) for e in np.eye(model.nv)])

    def evaluate(self, s: Snapshot) -> Rows:
        m, q, v = s.model, s.q, s.v
        phi = self.value(q)
        if self.expressions is not None:
            x = self.expressions
            rate = x.function("gamma", lambda: -(x.rows.jacobian(x.q) * x.v).jacobian(x.q) * x.v, list(x.q),
                              list(x.v))
            gamma = np.asarray(rate(q, v), dtype=float).reshape(-1)
        elif not np.any(v):
            gamma = np.zeros(self.size)
        elif self._jacobian is not None:
            gamma = -_directional(lambda x: self.jacobian(m, x) @ v, m, q, v, self.step)
        else:
            # γ = −d²/dh² φ(q ⊕ h v) at h = 0, second central difference with h = √step / 10
            h = 0.1 * np.sqrt(self.step)
            gamma = -(self.value(integrate(m, q, v, h)) - 2 * phi + self.value(integrate(m, q, v, -h))) / h**2
        return Rows(phi, self.jacobian(m, q), np.zeros(self.size), gamma, np.ones(self.size, bool))

    def symbolic(self, k: Any) -> SymbolicRows:
        """φ(q) as given (sympy rows only)."""
        if self.expressions is None:
            return super().symbolic(k)
        return SymbolicRows(self.expressions.substituted(k), [])


class Nonholonomic(Constraint):
    """User nonholonomic constraint A(q) v = b(q) given by callables ``A(q) -> (size, nv)`` and optional
    ``b(q) -> (size,)`` (default 0). γ = ḃ − Ȧ v by central differences along q ⊕ ±h v (error O(h²)).

    ``A`` may instead be sympy rows A(q) v − b(q) (= 0, linear in v) in the symbols ``coordinates`` (for q) and
    ``speeds`` (for v), models with scalar joints: A, b and γ = ∂(b − A v)/∂q v are then exact, and the symbolic
    equations take the rows as they are; ``size`` may be omitted.
    """

    def __init__(self, A: Callable[[np.ndarray], ArrayLike] | Any, size: int | None = None,
                 b: Callable[[np.ndarray], ArrayLike] | None = None, step: float = 1e-6,
                 name: str | None = None, coordinates: Any = None, speeds: Any = None) -> None:
        super().__init__((), name or getattr(A, "__name__", "A"))
        self.expressions = None
        if _is_expression(A):
            label = f"Nonholonomic '{self.name}'"
            if speeds is None:
                raise ModelError(f"{label}: rows given as sympy expressions need speeds=(symbols for v_0, v_1, …)")
            x = self.expressions = _ExpressionRows(A, coordinates, speeds, label)
            matrix, at_rest = x.rows.jacobian(x.v), -x.rows.xreplace({vi: 0 for vi in x.v})
            A, b = x.function("A", lambda: matrix, list(x.q)), x.function("b", lambda: list(at_rest), list(x.q))
            size = x.rows.rows
        if not callable(A) or (b is not None and not callable(b)):
            raise ModelError(f"Nonholonomic '{self.name}': A and b must be callables, got {A!r}, {b!r}")
        if size is None:
            raise ModelError(f"Nonholonomic '{self.name}': give size, the number of rows of A(q)")
        self.A, self.b, self.size, self.step = A, b, int(size), float(step)

    def check(self, model: Model) -> None:
        if self.expressions is not None:
            self.expressions.check(model)

    def matrix(self, model: Model, q: np.ndarray) -> np.ndarray:
        return _call(self.A, q, (self.size, model.nv), f"Nonholonomic '{self.name}': A")

    def rhs(self, q: np.ndarray) -> np.ndarray:
        if self.b is None:
            return np.zeros(self.size)
        return _call(self.b, q, (self.size,), f"Nonholonomic '{self.name}': b")

    def evaluate(self, s: Snapshot) -> Rows:
        m, q, v = s.model, s.q, s.v
        if self.expressions is not None:
            x = self.expressions
            # γ = d(b − A v)/dt at v̇ = 0 = −∂(A v − b)/∂q q̇, q̇ = v
            rate = x.function("gamma", lambda: -x.rows.jacobian(x.q) * x.v, list(x.q), list(x.v))
            gamma = np.asarray(rate(q, v), dtype=float).reshape(-1)
        else:
            rate = (lambda x: self.rhs(x) - self.matrix(m, x) @ v)
            gamma = _directional(rate, m, q, v, self.step) if np.any(v) else np.zeros(self.size)
        return Rows(np.zeros(self.size), self.matrix(m, q), self.rhs(q), gamma, np.zeros(self.size, bool))

    def symbolic(self, k: Any) -> SymbolicRows:
        """A(q) u − b(q) as given (sympy rows only)."""
        if self.expressions is None:
            return super().symbolic(k)
        return SymbolicRows([], self.expressions.substituted(k))
