"""DOPRI5 and DOP853 in the Python loop: the compiled loop's step, step-size control and dense output
(:func:`multibody.simulate.adaptive.adaptive_family`, here as plain Python around the same compiled arithmetic) behind
scipy's ``OdeSolver`` interface, so that :mod:`multibody.simulate.python_loop` drives them as it drives every method
(events, actions and restarts, failures, Ctrl-C, progress) and the two loops take the same steps.

As in the compiled loop, the quaternions of the state are renormalized after each accepted step, the step that would
end within 1 % of the end time is stretched to it, and DOP853's dense output (3 more evaluations) is computed only
on the steps where it is evaluated (an output time or an event's crossing).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.integrate import DenseOutput, OdeSolver

from .adaptive import SCHEMES, adaptive_family
from .dense_output import DOP853, DOPRI5, dense_state
from .tree_rates import GO_ON, NONFINITE, STATUS


def _rates(fun, t, x, dx):
    """dx = fun(t, x): the Python loop's vector field as the rates of :func:`~.adaptive.adaptive_family`."""
    dx[:] = fun(t, x)


# the step, first step and dense output of :mod:`.adaptive` as plain Python
PYTHON = adaptive_family(lambda function: function, _rates)
NAMES = {"RK45": DOPRI5, "DOPRI5": DOPRI5, "DOP853": DOP853}  # simulate's names of the schemes
NO_STEP_LIMIT = 2 ** 62  # (the Python loop has no step budget)


class AdaptiveSolver(OdeSolver):
    """DOPRI5 (``method="RK45"``) or DOP853 from (t0, y0) towards t_bound [s], error-controlled by ``rtol``,
    ``atol`` and steps of at most ``max_step`` [s]. ``normalize(x)`` returns the state x with its quaternions of
    unit length (applied after each step). ``nfev`` counts the evaluations of ``fun`` (those of the dense output
    included, when evaluated)."""

    def __init__(self, fun: Callable, t0: float, y0: np.ndarray, t_bound: float, *, method: str, rtol: float,
                 atol: float, max_step: float = np.inf, normalize: Callable = lambda x: x):
        super().__init__(fun, t0, np.asarray(y0, dtype=float), t_bound, vectorized=False)
        self.scheme = SCHEMES[NAMES[method]]
        self.rtol, self.atol, self.h_max = float(rtol), float(atol), float(min(max_step, np.finfo(float).max))
        self.normalize = normalize
        self.K, self.work, self.stats = np.empty((self.scheme[1].shape[0], self.n)), np.empty((2, self.n)), np.zeros(5)
        self.K[0] = self.fun(self.t, self.y)
        self.h = PYTHON.initial_step(self.fun, self.t, self.y, self.K[0], self.rtol, self.atol, self.h_max,
                                     self.work, self.scheme[4]) if np.all(np.isfinite(self.K[0])) else np.nan
        self.err_old, self.started = 1e-4, False
        self.x_old = self.y_new = None
        self.h_step = 0.0

    def _step_impl(self):
        if not np.isfinite(self.h):
            return False, "the rates at the start are not finite"
        if self.started:  # FSAL: the last stage of the step before is ẋ at its new state
            self.K[0] = self.K[self.scheme[3] - 1]
        x, y = self.y, np.empty(self.n)
        status, h, t_new, h_next, err_old = PYTHON.step(self.fun, self.scheme, self.t, x, self.h, self.t_bound,
                                                        self.h_max, self.rtol, self.atol, self.err_old, self.K, y,
                                                        self.work, self.stats, NO_STEP_LIMIT)
        if status != GO_ON:
            return False, (f"{STATUS[status]}: the step size fell to {h:.3g} s" if status != NONFINITE
                           else f"{STATUS[status]}: no step size below {h:.3g} s keeps the state finite")
        self.started = True
        self.x_old, self.y_new, self.h_step = x, y, h
        self.t, self.h, self.err_old = t_new, h_next, err_old
        self.y = self.normalize(y.copy())
        return True, None

    def _dense_output_impl(self):
        return Interpolant(self.t_old, self.t, self.fun, self.scheme, self.x_old, self.y_new, self.h_step,
                           self.K.copy())


class Interpolant(DenseOutput):
    """The state on the last step, from (t_old, x) over h to y with stages K: the scheme's continuous extension
    (:func:`~.dense_output.dense_state`), its coefficients computed when first evaluated (DOP853's with 3 more
    evaluations of ``fun``)."""

    def __init__(self, t_old, t, fun, scheme, x, y, h, K):
        super().__init__(t_old, t)
        self.fun, self.scheme, self.x, self.y, self.h_step, self.K = fun, scheme, x, y, h, K
        self.coefficients = None

    def _call_impl(self, t):
        if self.coefficients is None:
            self.coefficients = np.empty((5 if self.scheme[0] == DOPRI5 else 7, self.x.shape[0]))
            PYTHON.dense_output(self.fun, self.scheme, self.t_old, self.x, self.y, self.h_step, self.K,
                                self.coefficients, np.empty(self.x.shape[0]))
        times = np.atleast_1d(np.asarray(t, dtype=float))
        out = np.empty((times.shape[0], self.x.shape[0]))
        for k, time in enumerate(times):
            dense_state(self.scheme[0], self.coefficients, self.x, (time - self.t_old) / self.h_step, out[k])
        return out[0] if np.ndim(t) == 0 else out.T
