"""Fixed-step time integration in the Python loop: the RK4 and semi-implicit Euler steps, and an adapter that gives a
fixed-step scheme scipy's solver interface.

:func:`multibody.simulate` drives every method through ``scipy.integrate.OdeSolver`` (``step``, ``dense_output``),
so the fixed-step schemes share its events, output samples, failures, Ctrl-C and progress bar with the adaptive
ones. The steps land on the output times: each interval between consecutive output times (and from a restart after
an event to the next output time) is cut into equal steps of at most ``dt`` — the rule of the compiled loop
(:func:`multibody.simulate.steppers.fixed_step`), so the two agree to round-off. Between two steps the state is
the cubic Hermite interpolant of the end states and their rates (linear for the contact scheme, which has no rates).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import DenseOutput, OdeSolver

from ..constraints.integrate import contact_step, project
from ..dynamics import integrate
from ..dynamics._stepper_family import stepper_family


def _rates(args, t, x, dx):
    """dx = f(t, x), args = (f, model, nq, state): the Python loop's rates for the stepper family, the whole state in
    one entry (:class:`Entries`)."""
    dx[0] = args[0](t, x[0])


def _accelerations(args, t, x, dx):
    """dx[1] = v̇ of f(t, x), args = (f, model, nq, state): the q and v of ``state`` are the two entries of ``x``
    here (:class:`Entries`; semi-implicit Euler takes the rates at the step's start alone)."""
    dx[1] = args[0](t, args[3])[args[2]:]


def _integrate(args, q, v, h, out):
    """out = q ⊕ h v (:func:`multibody.integrate` on args[1], the model), q, v and out entries of :class:`Entries`."""
    out[0] = integrate(args[1], q[0], v[0], h)


def _normalize(args, x):
    """Nothing: :func:`scheme` normalizes the quaternions after every step."""


# RK4 and semi-implicit Euler (:mod:`multibody.dynamics._stepper_family`) as plain Python on NumPy vectors
_STEPS = stepper_family(lambda function: function, _rates, _integrate, _normalize, _accelerations)


class Entries:
    """The state, its stage rates and the new state as the Python loop's stepper family takes them: object arrays
    whose entries are whole NumPy vectors, so that each of the family's lines on an entry is one NumPy operation, and
    ``y[i] = …`` binds the new vector rather than copying it. RK4 steps the state as one entry, semi-implicit Euler
    as two, q and v. Made once per run and filled per step (a step's result is a new vector: nothing it returns is
    overwritten by the next)."""

    def __init__(self, count):
        self.x, self.y, self.K = (np.empty(count, dtype=object), np.empty(count, dtype=object),
                                  np.empty((4, count), dtype=object))


def rk4_step(f, t, x, h, entries=None):
    """x(t + h) by the classical Runge–Kutta method (:mod:`multibody.dynamics._stepper_family`) with the rates
    f(t, x). t, h [s]. The state is one entry (``entries``: :class:`Entries` (1), default new ones): each of the
    family's lines is one NumPy operation on the whole state."""
    entries = Entries(1) if entries is None else entries
    entries.x[0] = x
    _STEPS.rk4_step((f, None, None, None), t, entries.x, h, 1, entries.K, entries.y)
    return entries.y[0]


def euler_step(model, f, t, x, h, entries=None, nq=None):
    """(q⁺, v⁺) = x(t + h) by semi-implicit (symplectic) Euler (:mod:`multibody.dynamics._stepper_family`) on
    x = (q, v) with f = (q̇, v̇): v⁺ = v + h v̇(q, v), q⁺ = q ⊕ h v⁺ (:func:`multibody.integrate`). t, h [s]. The
    state is two entries, q and v (``entries``: :class:`Entries` (2), default new ones); nq: the model's."""
    entries, nq = Entries(2) if entries is None else entries, model.nq if nq is None else nq
    entries.x[0], entries.x[1] = x[:nq], x[nq:]
    _STEPS.euler_step((f, model, nq, x), t, entries.x, h, 1, entries.K, entries.y)
    return entries.y[0], entries.y[1]


def scheme(model, method, tau, normalized, projection, limits=None):
    """The step (f, t, x, h) -> (x⁺, residual) of the fixed-step ``method`` on x = (q, v), for :class:`FixedStep`.

    "RK4" (:func:`rk4_step`) and "Euler" (:func:`euler_step`) with the rates f; "contact" the velocity-level
    contact stepper (:func:`multibody.constraints.integrate.contact_step`) with the generalized forces
    ``tau(t, q, v)`` and the joint limits ``limits`` (default: the model's and the joints' stored ones).
    Quaternions are renormalized after the step (``normalized``: q itself where there are none); with
    ``projection`` the state is projected onto the constraint manifold
    (:func:`multibody.constraints.integrate.project`) and ``residual`` is the (max|φ|, max|J v − b|) it had before,
    else None.
    """
    nq = model.nq
    entries = Entries(1 if method == "RK4" else 2)

    def step(f, t, x, h):
        if method == "Euler":
            q, v = euler_step(model, f, t, x, h, entries, nq)
        else:
            if method == "RK4":
                x = rk4_step(f, t, x, h, entries)
            else:
                q, v = normalized(x[:nq]), x[nq:]
                x = np.concatenate(contact_step(model, q, v, h, tau(t, q, v), limits=limits))
            q, v = x[:nq], x[nq:]
        unit = normalized(q)
        if method == "Euler" or unit is not q:  # (where q⁺ has no quaternions, the step's own new vector x⁺ is kept)
            x = np.concatenate([unit, v])
        if not projection or not np.all(np.isfinite(x)):
            return x, None
        q, v, *residual = project(model, unit, v)
        return np.concatenate([q, v]), np.array(residual)
    return step


class DriftRecord:
    """The constraint residual (max|φ| [m or rad], max|J v − b|) that projected steps had before their projection:
    ``at[t]`` (2,) is the largest over the steps since the previous output time, at each output time t."""

    def __init__(self):
        self.at, self.worst = {}, np.zeros(2)

    def add(self, t, residual, sample):
        self.worst = np.maximum(self.worst, residual)
        if sample:
            self.at[t], self.worst = self.worst, np.zeros(2)


class Interpolant(DenseOutput):
    """The state between the steps (t_old, x_old) and (t, x): the cubic Hermite polynomial through the end states
    with the end rates ``rates(t, x)`` (evaluated when first needed), or the straight line if ``rates`` is None."""

    def __init__(self, t_old, t, x_old, x, rates):
        super().__init__(t_old, t)
        self.x_old, self.x, self.rates, self.slopes = x_old, x, rates, None

    def _call_impl(self, t):
        h = self.t - self.t_old
        s = (t - self.t_old) / h
        if self.rates is None or s == 0.0 or s == 1.0:
            return (1.0 - s) * self.x_old + s * self.x
        if self.slopes is None:
            self.slopes = (h * self.rates(self.t_old, self.x_old), h * self.rates(self.t, self.x))
        # p(s) = (2s³ − 3s² + 1) x₀ + (s³ − 2s² + s) h ẋ₀ + (−2s³ + 3s²) x₁ + (s³ − s²) h ẋ₁
        return ((2 * s - 3) * s * s + 1) * self.x_old + ((s - 2) * s + 1) * s * self.slopes[0] \
            + (3 - 2 * s) * s * s * self.x + (s - 1) * s * s * self.slopes[1]


EVALUATIONS = {"RK4": 4, "Euler": 1, "contact": 0}  # the rates evaluations of a step of each scheme


class FixedStep(OdeSolver):
    """A fixed-step scheme behind scipy's ``OdeSolver`` interface.

    ``step(f, t, x, h) -> (x⁺, residual)`` advances the state by h [s] with the rates f(t, x) = ``fun`` (a float64
    (n,) array, called as it is), ``evaluations`` times (counted in ``nfev``); ``residual`` is None or the (2,)
    constraint residual a projection removed, kept in ``record`` (a :class:`DriftRecord`). Steps are at most
    ``dt`` [s] and land on every time of ``t_eval`` after t0 and on ``t_bound``. ``smooth``: interpolate with the
    rates (cubic Hermite), else linearly.
    """

    def __init__(self, fun, t0, y0, t_bound, *, step, dt, t_eval, evaluations, smooth=True, record=None):
        super().__init__(fun, t0, y0, t_bound, vectorized=False)
        self.advance, self.dt, self.smooth, self.record = step, float(dt), smooth, record
        self.rates, self.evaluations = fun, evaluations
        self.landings = np.append(t_eval[t_eval > t0], t_bound)
        self.y_old, self.h, self.left, self.t_next = None, 0.0, 0, t0

    def _step_impl(self):
        t = self.t
        if self.left == 0:  # the next output time, in equal steps of at most dt
            self.t_next = self.landings[np.searchsorted(self.landings, t, side="right")]
            self.left = max(1, int(np.ceil((self.t_next - t) / self.dt * (1.0 - 1e-12))))
            self.h = (self.t_next - t) / self.left
        y, residual = self.advance(self.rates, t, self.y, self.h)
        self.nfev += self.evaluations
        self.left -= 1
        if residual is not None:
            self.record.add(self.t_next if self.left == 0 else t + self.h, residual, self.left == 0)
        self.y_old, self.y, self.t = self.y, y, self.t_next if self.left == 0 else t + self.h
        return True, None

    def _dense_output_impl(self):
        return Interpolant(self.t_old, self.t, self.y_old, self.y, self.fun if self.smooth else None)
