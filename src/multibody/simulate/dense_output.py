"""The dense output of a compiled step and the built-in events located on it (:mod:`multibody.simulate.steppers`).

After each accepted step the loops evaluate the events (:func:`multibody.simulate.events.event_value`) at the new
state; an event whose value crossed zero in the direction it watches is located on the step's continuous
extension by Brent's method to 4 ulp of the time, as scipy's ``solve_ivp`` does, and logged in time order up to
the first terminal one. Quaternions are renormalized in every state evaluated.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dynamics._configuration import normalize_quaternions  # noqa: F401 (re-exported for the steppers)
from .events import DIRECTION, TERMINAL, event_value

DOPRI5, RK4, EULER, DOP853 = 0, 1, 2, 3  # the methods' codes (:data:`multibody.simulate.steppers.METHODS`)
EPS = np.finfo(float).eps


@njit(cache=True)
def dense_state(method, dense, x, s, out):
    """out = the state at the fraction s ∈ [0, 1] of the last step, which started at x: DOPRI5's 4th-order
    continuous extension (dense rows d₀ … d₄, d₀ = x), DOP853's 7th-order one (rows F₀ … F₆, x + Σ F_r in
    alternating powers of s and 1 − s), or for RK4 and Euler the cubic Hermite polynomial through the end states
    and rates (rows x₀, x₁, h ẋ₀, h ẋ₁: the interpolant of :class:`multibody.simulate.fixed_step.Interpolant`)."""
    s1 = 1.0 - s
    for i in range(x.shape[0]):
        if method == DOPRI5:
            out[i] = dense[0, i] + s * (dense[1, i] + s1 * (dense[2, i] + s * (dense[3, i] + s1 * dense[4, i])))
        elif method == DOP853:
            acc = 0.0
            for r in range(6, -1, -1):  # Horner in s and 1 − s, alternating
                acc += dense[r, i]
                acc *= s if r % 2 == 0 else s1
            out[i] = x[i] + acc
        else:
            # p(s) = (2s³ − 3s² + 1) x₀ + (s³ − 2s² + s) h ẋ₀ + (−2s³ + 3s²) x₁ + (s³ − s²) h ẋ₁
            out[i] = (((2.0 * s - 3.0) * s * s + 1.0) * dense[0, i] + ((s - 2.0) * s + 1.0) * s * dense[2, i]
                      + (3.0 - 2.0 * s) * s * s * dense[1, i] + (s - 1.0) * s * s * dense[3, i])


@njit(cache=True)
def dense_outputs(topology, method, dense, x, t, h, t_stop, t_eval, j, x_out):
    """x_out[j] = the dense output of the step from (t, x) over h at the output times t_eval[j] ≤ t_stop, from j on
    (quaternions normalized); returns the next j."""
    while j < t_eval.shape[0] and t_eval[j] <= t_stop:
        dense_state(method, dense, x, (t_eval[j] - t) / h, x_out[j])
        normalize_quaternions(topology, x_out[j])
        j += 1
    return j


@njit(cache=True)
def event_work(topology, events, nx):
    """The workspace of the events: body poses R0 (n, 3, 3), p0 (n, 3), a state (nx,); their values before and
    after a step g, g_new (m,); the log (rows: event index, time [s]), grown as needed, and its rows used (0)."""
    n, m = topology.shape[0], events.shape[0]
    rows_used = np.int64(0)  # (an int64, not the literal 0: the callees taking it compile once)
    return (np.empty((n, 3, 3)), np.empty((n, 3)), np.empty(nx)), np.empty(m), np.empty(m), np.empty((8, 2)), rows_used


@njit(cache=True)
def event_values(topology, params, events, x, nq, work, g):
    """g[k] = the value of built-in event k (rows of :func:`multibody.simulate.events.event_rows`) at x = (q, v);
    work = (R0, p0, state) of :func:`event_work`."""
    for k in range(events.shape[0]):
        g[k] = event_value(topology, params, events[k], x[:nq], x[nq:], work[0], work[1])


@njit(cache=True)
def crossed_any(topology, params, events, y, nq, work, g, g_new):
    """g_new = the events' values at the new state y; whether any crossed zero since g in the direction it
    watches (rising g < 0 ≤ g_new for direction ≥ 0, falling g > 0 ≥ g_new for direction ≤ 0). Quaternions are
    normalized in a copy of y."""
    if events.shape[0] == 0:
        return False
    state = work[2]
    state[:] = y
    normalize_quaternions(topology, state)
    event_values(topology, params, events, state, nq, work, g_new)
    for k in range(events.shape[0]):
        if crossed(events[k, DIRECTION], g[k], g_new[k]):
            return True
    return False


@njit(cache=True)
def crossed(direction, g, g_new):
    """Whether an event watching ``direction`` crossed zero from g to g_new (a value reaching zero counts; one
    leaving zero does not, as on the Python loop)."""
    return (g < 0.0 <= g_new and direction >= 0.0) or (g > 0.0 >= g_new and direction <= 0.0)


@njit(cache=True)
def event_time(topology, params, row, method, dense, x, t, h, nq, work, a, b, ga, gb):
    """The time in [a, b] where the event ``row`` (values ga, gb of opposite signs at a, b, or one zero) is zero
    on the step's dense output, to 4 ulp of the time: Brent's method (Brent 1973, ch. 4: inverse quadratic
    interpolation or secant steps inside the bracket, bisection when they do not shrink it fast enough)."""
    if ga == 0.0:
        return a
    c, gc = a, ga  # the root stays between b (the best estimate) and c
    d = e = b - a  # the last step and the one before
    for _ in range(200):
        if gb == 0.0:
            return b
        if (gb > 0.0) == (gc > 0.0):
            c, gc = a, ga
            d = e = b - a
        if abs(gc) < abs(gb):
            a, b, c = b, c, b
            ga, gb, gc = gb, gc, gb
        tol = 2.0 * EPS * (1.0 + abs(b))  # half of xtol + rtol |b|, both 4 ulp
        m = 0.5 * (c - b)
        if abs(m) <= tol:
            return b
        if abs(e) >= tol and abs(ga) > abs(gb):
            # the step to the root of the secant through (a, b), or of the inverse quadratic through (a, b, c)
            s = gb / ga
            if a == c:
                p, q = 2.0 * m * s, 1.0 - s
            else:
                r, u = ga / gc, gb / gc
                p = s * (2.0 * m * r * (r - u) - (b - a) * (u - 1.0))
                q = (r - 1.0) * (u - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            p = abs(p)
            if 2.0 * p < min(3.0 * m * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, ga = b, gb
        b += d if abs(d) > tol else (tol if m > 0.0 else -tol)
        state = work[2]
        dense_state(method, dense, x, (b - t) / h, state)
        normalize_quaternions(topology, state)
        gb = event_value(topology, params, row, state[:nq], state[nq:], work[0], work[1])
    return b


@njit(cache=True)
def crossings(topology, params, events, method, dense, x, t, h, t_new, nq, work, g, g_new, log, count):
    """The events that crossed zero on the step from (t, x) to t_new, located on its dense output
    (:func:`event_time`) and logged in time order (ties by index) up to the first terminal one.

    Returns (t_stop, terminal, log, count): that terminal event's time (else t_new), whether there was one, and
    the log (rows: event index, time [s]; a larger copy when full) with its ``count`` rows used."""
    roots = np.full(events.shape[0], np.inf)
    t_stop, terminal = t_new, False
    for k in range(events.shape[0]):
        if crossed(events[k, DIRECTION], g[k], g_new[k]):
            roots[k] = event_time(topology, params, events[k], method, dense, x, t, h, nq, work, t, t_new, g[k],
                                  g_new[k])
            if events[k, TERMINAL] != 0.0 and (not terminal or roots[k] < t_stop):
                t_stop, terminal = roots[k], True
    for _ in range(events.shape[0]):  # log the earliest root up to t_stop (the lower index on a tie), and again
        first = -1
        for k in range(events.shape[0]):
            if roots[k] <= t_stop and (first < 0 or roots[k] < roots[first]):
                first = k
        if first < 0:
            break
        if count == log.shape[0]:
            grown = np.empty((2 * count, 2))
            for r in range(count):
                grown[r, 0], grown[r, 1] = log[r, 0], log[r, 1]
            log = grown
        log[count, 0], log[count, 1] = first, roots[first]
        count += 1
        roots[first] = np.inf
    return t_stop, terminal, log, count
