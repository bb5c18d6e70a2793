"""The adaptive Runge–Kutta methods, with step-size control and dense output, written once for the compiled loop
(:mod:`multibody.simulate.steppers`) and the Python loop (:mod:`multibody.simulate.python_loop`):

- ``"DOPRI5"``: the Dormand–Prince 5(4) pair (Hairer, Nørsett, Wanner, *Solving ODEs I*, II.5), PI step-size
  control and the 4th-order continuous extension for the output times;
- ``"DOP853"``: the Dormand–Prince 8(5,3) method (Hairer's DOP853, as scipy runs it: same tableau, error norm and
  step rules) with its 7th-order dense output: fewer, costlier steps, the better choice at tight tolerances (it is
  ``multibody.simulate``'s default). Its dense output can be computed on a helper thread (:mod:`.handoff`).

A method is a *scheme* (:func:`scheme_of`: its code, tableau A, nodes c, stages per step, order); what differs
between the two — error estimate, step-size rule, dense output — are small compiled functions taking the code.
:func:`adaptive_family` builds the step around them once for a target, as
:func:`multibody.dynamics._stepper_family.stepper_family` builds RK4 and Euler: compiled around the rates of a tree
for :func:`dormand_prince`, and as plain Python around a Python vector field for the Python loop
(:class:`.adaptive_solver.AdaptiveSolver`), so that the two loops take the same steps and agree to round-off.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as _dop853  # the DOP853 tableau (scipy's, BSD)

from ..dynamics._spatial_kernels import njit_without_refcounts
from .dense_output import (DOP853, DOPRI5, crossed_any, crossings, dense_outputs, event_values, event_work,
                           normalize_quaternions)
from .handoff import CLAIMED, DONE, FREE, POSTED, SPINS, claim, load_acquire, pause, store_release
from .tree_rates import (GO_ON, INTERRUPTED, MAX_STEPS, NFEV, NONFINITE, OK, REJECTED, STEPS, STOP, T_REACHED,
                         UNDERFLOW, body_force_work, finite, sample_rates, step_rates, stopped_at_event)

# Dormand–Prince 5(4) tableau (Hairer–Nørsett–Wanner, Table II.5.2), 5th-order solution in row 7 (FSAL), error
# coefficients E = b − b̂, and the dense-output coefficients of the 4th-order continuous extension (dopri5.f,
# CONTD5).
A21 = 1.0 / 5.0
A31, A32 = 3.0 / 40.0, 9.0 / 40.0
A41, A42, A43 = 44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0
A51, A52, A53, A54 = 19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0
A61, A62, A63, A64, A65 = 9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0
A71, A73, A74, A75, A76 = 35.0 / 384.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0
E1, E3, E4, E5, E6, E7 = (71.0 / 57600.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0, 22.0 / 525.0,
                          -1.0 / 40.0)
D1, D3, D4, D5, D6, D7 = (-12715105075.0 / 11282082432.0, 87487479700.0 / 32700410799.0,
                          -10690763975.0 / 1880347072.0, 701980252875.0 / 199316789632.0,
                          -1453857185.0 / 822651844.0, 69997945.0 / 29380423.0)
A5 = np.array([[0.0] * 7, [A21] + [0.0] * 6, [A31, A32] + [0.0] * 5, [A41, A42, A43] + [0.0] * 4,
               [A51, A52, A53, A54] + [0.0] * 3, [A61, A62, A63, A64, A65, 0.0, 0.0],
               [A71, 0.0, A73, A74, A75, A76, 0.0]])
# Dormand–Prince 8(5,3) (Hairer's DOP853, the tableau scipy uses): 12 stages + the new-state derivative, error
# weights E5 and E3, 3 extra stages and the matrix D of the 7th-order dense output.
A8, E5_8, E3_8, D8 = (np.ascontiguousarray(x) for x in (_dop853.A, _dop853.E5, _dop853.E3, _dop853.D))
assert np.array_equal(A8[12, :12], _dop853.B)  # the 12th stage is evaluated at the new state
# the nodes c_s = Σ_k<s A[s, k], summed in k order
C5, C8 = (np.array([sum(A[s, :s], 0.0) for s in range(A.shape[0])]) for A in (A5, A8))
for _table in (A5, C5, A8, C8):
    _table.flags.writeable = False  # (as numba types the tableaus it reads as globals: one compile of the callees)
# PI step-size control (dopri5.f defaults): h_new = h / fac, fac = err^0.17 / err_old^0.04 / 0.9 in [0.1, 5].
SAFE, FAC_MIN, FAC_MAX, BETA = 0.9, 0.1, 5.0, 0.04
EXPO = 0.2 - 0.75 * BETA
# A scheme: (code, tableau A (stages of a step and of its dense output), nodes c, stages of a step, order)
SCHEMES = {DOPRI5: (DOPRI5, A5, C5, 7, 5.0), DOP853: (DOP853, A8, C8, 13, 8.0)}


@njit(cache=True)
def scheme_of(method):
    """The scheme of ``method`` (DOPRI5 or DOP853) as :data:`SCHEMES` holds it, inside compiled code."""
    if method == DOP853:
        return np.int64(DOP853), A8, C8, np.int64(13), 8.0
    return np.int64(DOPRI5), A5, C5, np.int64(7), 5.0


@njit(cache=True)
def error_norm(x, x_new, err, rtol, atol):
    """RMS of err_i / (atol + rtol max(|x_i|, |x_new,i|)) (the error of a step relative to its tolerance)."""
    total = 0.0
    for i in range(x.shape[0]):
        scale = atol + rtol * max(abs(x[i]), abs(x_new[i]))
        total += (err[i] / scale) ** 2
    return np.sqrt(total / x.shape[0])


@njit(cache=True)
def error_estimate(method, x, y, h, K, work, rtol, atol):
    """The error of the step from x over h to y (stages K) relative to the tolerances (≤ 1: accepted):
    DOPRI5 the RMS of h Σ e_s k_s (:func:`error_norm`); DOP853 |h| ‖e5‖² / √((‖e5‖² + 0.01 ‖e3‖²) n) with
    e = Σ E k / scale (scipy's). work (2, nx) is scratch."""
    if method == DOPRI5:
        err = work[0]
        for i in range(x.shape[0]):
            err[i] = h * (E1 * K[0, i] + E3 * K[2, i] + E4 * K[3, i] + E5 * K[4, i] + E6 * K[5, i] + E7 * K[6, i])
        return error_norm(x, y, err, rtol, atol)
    e5, e3 = work[0], work[1]
    combination(E5_8, K, e5)
    combination(E3_8, K, e3)
    n5, n3 = 0.0, 0.0
    for i in range(x.shape[0]):
        scale = atol + rtol * max(abs(x[i]), abs(y[i]))
        n5 += (e5[i] / scale) ** 2
        n3 += (e3[i] / scale) ** 2
    return 0.0 if n5 == 0.0 and n3 == 0.0 else h * n5 / np.sqrt((n5 + 0.01 * n3) * x.shape[0])


@njit(cache=True)
def rejects(method, e):
    """Whether a step of finite error e is rejected (DOPRI5: e > 1, DOP853: e ≥ 1)."""
    return e > 1.0 if method == DOPRI5 else e >= 1.0


@njit(cache=True)
def shrunk_step(method, e, h):
    """The next try after a step h rejected with error e: DOPRI5 h / min(5, err^0.17 / 0.9), DOP853
    h max(0.2, 0.9 err^(−1/8))."""
    if method == DOPRI5:
        return h / min(FAC_MAX, e ** EXPO / SAFE)
    return h * max(0.2, 0.9 * e ** -0.125)


@njit(cache=True)
def next_step(method, e, err_old, h, h_max, rejected):
    """(next step, err_old) after a step h accepted with error e, ``rejected`` whether a try before it was:
    DOPRI5's PI rule h / fac (fac of the module's constants, with err_old the error of the previous step; the next
    err_old max(e, 1e-4)), DOP853's h min(10, 0.9 err^(−1/8)); no growth after a rejection, at most h_max."""
    if method == DOPRI5:
        fac = max(FAC_MIN, min(FAC_MAX, e ** EXPO / err_old ** BETA / SAFE))
        h_new = min(h / fac, h_max)
        return (min(h_new, h) if rejected else h_new), max(e, 1e-4)
    factor = 10.0 if e == 0.0 else min(10.0, 0.9 * e ** -0.125)
    return min(h * (min(1.0, factor) if rejected else factor), h_max), err_old


@njit(cache=True)
def dense_coefficients(method, x, y, h, K, dense):
    """The dense output of the step from x over h to y (stages K, DOP853's extra stages included) into dense:
    DOPRI5's d₀ … d₄ of the 4th-order continuous extension (dopri5.f, CONTD5), DOP853's F₀ … F₆
    (:func:`.dense_output.dense_state` evaluates both)."""
    if method == DOPRI5:
        for i in range(x.shape[0]):
            diff = y[i] - x[i]
            spline = h * K[0, i] - diff
            dense[0, i] = x[i]
            dense[1, i] = diff
            dense[2, i] = spline
            dense[3, i] = diff - h * K[6, i] - spline
            dense[4, i] = h * (D1 * K[0, i] + D3 * K[2, i] + D4 * K[3, i] + D5 * K[4, i] + D6 * K[5, i]
                               + D7 * K[6, i])
        return
    for r in range(4):
        combination(D8[r], K, dense[3 + r])
    for i in range(x.shape[0]):
        diff = y[i] - x[i]
        dense[0, i] = diff
        dense[1, i] = h * K[0, i] - diff
        dense[2, i] = 2.0 * diff - h * (K[12, i] + K[0, i])
        for r in range(3, 7):
            dense[r, i] *= h


@njit(cache=True)
def first_guess(x, f0, rtol, atol, h_max, y1):
    """The first part of Hairer's HINIT: (h, ‖f0‖²) with h = 0.01 ‖x‖ / ‖ẋ‖ (tolerance-scaled norms, at most
    h_max), and y1 = x + h f0, where :func:`first_step` wants the rates."""
    dnf, dny = 0.0, 0.0
    for i in range(x.shape[0]):
        scale = atol + rtol * abs(x[i])
        dnf += (f0[i] / scale) ** 2
        dny += (x[i] / scale) ** 2
    h = 1e-6 if dnf <= 1e-10 or dny <= 1e-10 else 0.01 * np.sqrt(dny / dnf)
    h = min(h, h_max)
    for i in range(x.shape[0]):
        y1[i] = x[i] + h * f0[i]
    return h, dnf


@njit(cache=True)
def first_step(x, f0, f1, h, dnf, rtol, atol, h_max, order):
    """The first step of a method of ``order`` (Hairer's HINIT) from :func:`first_guess`'s (h, ‖f0‖²) and the
    rates f1 at x + h f0: h^order × (second-derivative estimate) ≈ 0.01."""
    der2 = 0.0
    for i in range(x.shape[0]):
        der2 += ((f1[i] - f0[i]) / (atol + rtol * abs(x[i]))) ** 2
    der12 = max(np.sqrt(der2) / h, np.sqrt(dnf))
    h1 = max(1e-6, h * 1e-3) if der12 <= 1e-15 else (0.01 / der12) ** (1.0 / order)
    return min(100.0 * h, h1, h_max)


@njit(cache=True)
def stopped(stats, max_steps, h, t, nonfinite):
    """The status that ends an adaptive run before its next step (asked to stop, out of steps, a step size below
    round-off), or GO_ON."""
    if stats[STOP] != 0.0:
        return INTERRUPTED
    if stats[STEPS] + stats[REJECTED] >= max_steps:
        return MAX_STEPS
    if h < 10.0 * 2.220446049250313e-16 * abs(t) or h < 1e-300:
        return NONFINITE if nonfinite else UNDERFLOW
    return GO_ON


@njit_without_refcounts(cache=True, inline="always")
def combination(C, K, out):
    """out = Σ_k C[k] K[k] over the rows k of C (a row of a tableau), summed in k order, its zero terms skipped (a
    quarter of DOP853's tableau); the inner loop runs over the state entries, so that it vectorizes (a loop over k
    inside one over the entries did not: measured a third of the step's own time at N = 20)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    for k in range(C.shape[0]):
        c = C[k]
        if c != 0.0:
            for i in range(out.shape[0]):
                out[i] += c * K[k, i]


@njit_without_refcounts(cache=True, inline="always")
def stage_state(A, s, x, h, K, y):
    """y = x + h Σ_k<s A[s, k] k_k: the state of stage s of an explicit Runge–Kutta step from x over h."""
    combination(A[s, :s], K, y)
    for i in range(x.shape[0]):
        y[i] = x[i] + h * y[i]


class AdaptiveFamily(NamedTuple):
    """The adaptive methods for one target (:func:`adaptive_family`)."""

    initial_step: Any
    step: Any
    dense_output: Any


def adaptive_family(compile: Callable, rates: Callable, inline: Callable | None = None) -> AdaptiveFamily:
    """The step of a scheme (:data:`SCHEMES`) with its step-size control, its first step and its dense output,
    compiled with ``compile`` around the target's ``rates(args, t, x, dx)``: dx = ẋ at time t [s] and state x
    (``args``, the target's model and work arrays, passed through untouched); the loop over a step's stages
    compiled with ``inline`` (default ``compile``: for the tree, inlined into the step and its dense output). The
    per-entry arithmetic is in the compiled functions above, which both targets call."""

    @(inline or compile)
    def stages(args, A, C, first, count, t, x, h, K, y):
        """k_s = f(t + c_s h, x + h Σ_k<s A[s, k] k_k), s = first … count − 1, of the step from (t, x) with the
        stages before ``first`` in K; y is left at the last stage's state."""
        for s in range(first, count):
            stage_state(A, s, x, h, K, y)
            rates(args, t + C[s] * h, y, K[s])

    @compile
    def initial_step(args, t, x, f0, rtol, atol, h_max, work, order):
        """The first step size from (t, x) with ẋ = f0 of a method of ``order`` (Hairer's HINIT; work (2, nx))."""
        h, dnf = first_guess(x, f0, rtol, atol, h_max, work[0])
        rates(args, t + h, work[0], work[1])
        return first_step(x, f0, work[1], h, dnf, rtol, atol, h_max, order)

    @compile
    def step(args, scheme, t, x, h, t_end, h_max, rtol, atol, err_old, K, y, work, stats, max_steps):
        """One accepted step of ``scheme`` from (t, x), K[0] = ẋ(t, x), trying h first: the last step shortened to
        end on t_end, a rejected try (or one that left the finite states) retried shorter, until one is accepted
        or the run must stop (:func:`stopped`). stats counts the evaluations and rejections.

        Returns (status, h, t_new, h_next, err_old): GO_ON with the step h taken to t_new, its new state y and
        stages K, the next step to try and the next err_old; or the status that ends the run."""
        method, A, C, count = scheme[0], scheme[1], scheme[2], scheme[3]
        rejected, nonfinite = False, False
        while True:
            status = stopped(stats, max_steps, h, t, nonfinite)
            if status != GO_ON:
                return status, h, t, h, err_old
            if t + 1.01 * h >= t_end:
                h = t_end - t
            # the stages; the last stage state of a step is its new state y (FSAL)
            stages(args, A, C, 1, count, t, x, h, K, y)
            stats[NFEV] += count - 1
            e = error_estimate(method, x, y, h, K, work, rtol, atol)
            nonfinite = not np.isfinite(e)  # a stage left the finite states: retry with a much smaller step
            if nonfinite or rejects(method, e):
                h = 0.2 * h if nonfinite else shrunk_step(method, e, h)
                rejected = True
                stats[REJECTED] += 1
                continue
            h_next, err_old = next_step(method, e, err_old, h, h_max, rejected)
            return GO_ON, h, (t_end if h == t_end - t else t + h), h_next, err_old

    @compile
    def dense_output(args, scheme, t, x, y, h, K, dense, stage_y):
        """The dense output of the step from (t, x) over h to y with stages K (:func:`dense_coefficients`), after
        the scheme's extra stages (DOP853's 3, from the state ``stage_y``; none for DOPRI5)."""
        stages(args, scheme[1], scheme[2], scheme[3], scheme[1].shape[0], t, x, h, K, stage_y)
        dense_coefficients(scheme[0], x, y, h, K, dense)

    return AdaptiveFamily(initial_step, step, dense_output)


# the adaptive methods on a tree (its rates :func:`.tree_rates.step_rates`) for the compiled loop: the step, first step
# and dense output each their own kernel without reference counting, the stages inlined into them. (Inlined into
# :func:`dormand_prince`, which counts references as it allocates, every stage would count the references of each
# array of the rates' arguments, the model's and its force elements', as it unpacks them: 1.1-1.6x the run time.)
TREE = adaptive_family(njit_without_refcounts(cache=True), step_rates,
                       njit_without_refcounts(cache=True, inline="always"))
tree_step, tree_dense_output, tree_initial_step = TREE.step, TREE.dense_output, TREE.initial_step


@njit(cache=True)
def adaptive_start(arrays, scheme, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, x_out, stats, events):
    """The set-up of an adaptive run (:func:`dormand_prince`) of ``scheme``: its work arrays — stage derivatives
    K, stage state y, the step's dense output, two more state-sized rows, the rates' arguments
    (:func:`.tree_rates.step_rates`), the events' workspace, values and log (:func:`event_work`) —, the samples at
    the start time written to x_out, K[0] = ẋ(t, x), the events' values g at x, and the first step
    (``h_first``, or guessed for the scheme's order).

    Returns (K, y, dense, work, args, event_space, g, g_new, log, count, j, h, status) with j the samples written
    and status GO_ON, or the status that ends the run already (a non-finite ẋ, or every sample written)."""
    topology, params, gravity = arrays
    nx, nq = x.shape[0], x.shape[0] - tau[1].shape[1]
    K, y, work = np.empty((scheme[1].shape[0], nx)), np.empty(nx), np.empty((2, nx))
    dense = np.empty((5 if scheme[0] == DOPRI5 else 7, nx))
    args = (topology, params, gravity, tau, forces, nq, np.empty(tau[1].shape[1]), body_force_work(topology, forces))
    event_space, g, g_new, log, count = event_work(topology, events, nx)
    T, j = t_eval.shape[0], 0
    while j < T and t_eval[j] <= t:
        x_out[j] = x
        j += 1
    step_rates(args, t, x, K[0])
    stats[NFEV] += 1
    h, status = h_first, GO_ON
    if not finite(K[0]):
        h, status = 0.0, NONFINITE
    elif j == T:
        h, status = 0.0, OK
    elif h <= 0.0:
        h = tree_initial_step(args, t, x, K[0], rtol, atol, h_max, work, scheme[4])
        stats[NFEV] += 1
    if status == GO_ON:
        event_values(topology, params, events, x, nq, event_space, g)
    return K, y, dense, work, args, event_space, g, g_new, log, count, j, h, status


@njit(cache=True)
def after_step(topology, params, events, method, dense, x, y, t, h, t_new, crossing, t_eval, j, x_out, stats, nq,
               event_space, g, g_new, log, count):
    """The end of an accepted step of an adaptive run from (t, x) to (t_new, y), its dense output computed if it
    holds an event's crossing or an output time: the crossings located and logged, the outputs up to a terminal
    event written, then x = y (quaternions normalized), or the run's end at that event.

    Returns (status, j, log, count): GO_ON, EVENT (x at the event), or OK when every output is written."""
    t_stop, terminal = t_new, False
    if crossing:
        t_stop, terminal, log, count = crossings(topology, params, events, method, dense, x, t, h, t_new, nq,
                                                 event_space, g, g_new, log, count)
    j = dense_outputs(topology, method, dense, x, t, h, t_stop, t_eval, j, x_out)
    g[:] = g_new
    stats[STEPS] += 1
    if terminal:
        return stopped_at_event(topology, method, dense, x, t, h, t_stop, stats, j, log, count)
    x[:] = y
    normalize_quaternions(topology, x)
    stats[T_REACHED] = t_new
    return (OK if j == t_eval.shape[0] else GO_ON), j, log, count


@njit(cache=True)
def holds_output(t_eval, j, t_new):
    """Whether the step ending at t_new holds the next output time t_eval[j] (j < len(t_eval))."""
    return j < t_eval.shape[0] and t_eval[j] <= t_new


@njit(cache=True)
def dormand_prince(arrays, method, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, max_steps, x_out, stats,
                   events, pipe):
    """Integrate ẋ from (t, x) through the times t_eval (increasing, ≥ t) with ``method`` (DOPRI5 or DOP853);
    x_out[j] = x(t_eval[j]); the built-in ``events`` (rows of :func:`multibody.simulate.events.event_rows`)
    watched after each step, located on the dense output of a step where they cross.

    With a ring ``pipe`` of slots (:func:`~.handoff.ring`; DOP853 only), the dense output of a step without
    crossings goes to its next slot, for a helper thread running :func:`serve` to compute while the loop takes the
    next steps (:mod:`~.handoff`); the samples of a step with a crossing are computed here, their accelerations and
    applied forces too, into the ring's arrays.

    Returns (status, number of samples written, event log (rows: event index, time [s])). x is overwritten with the
    last accepted state (the state at a terminal event).
    """
    topology, params, gravity = arrays
    nq = x.shape[0] - tau[1].shape[1]
    scheme = scheme_of(method)
    count_stages, extra = scheme[3], scheme[1].shape[0] - scheme[3]
    K, y, dense, work, args, event_space, g, g_new, log, count, j, h, status = adaptive_start(
        arrays, scheme, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, x_out, stats, events)
    t_end = t_eval[t_eval.shape[0] - 1]
    err_old = 1e-4
    slots, posted = (pipe[0].shape[0] - 1 if method == DOP853 else 0), 0
    while status == GO_ON:
        status, h, t_new, h_next, err_old = tree_step(args, scheme, t, x, h, t_end, h_max, rtol, atol, err_old, K,
                                                      y, work, stats, max_steps)
        if status != GO_ON:
            break
        # the events' crossings; the dense output on [t, t + h] if they or an output time need it
        crossing = crossed_any(topology, params, events, y, nq, event_space, g, g_new)
        if crossing or holds_output(t_eval, j, t_new):
            stats[NFEV] += extra
            if slots > 0 and not crossing:  # the outputs to the ring's next slot, for the helper thread (or this)
                k = posted % slots
                wait_free(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, work[0], args[6], args[7])
                pipe[1][k, 0], pipe[1][k, 1], pipe[1][k, 2] = t, h, t_new
                pipe[2][k, 0] = j
                while holds_output(t_eval, j, t_new):
                    j += 1
                pipe[2][k, 1] = j
                pipe[3][k, 0], pipe[3][k, 1], pipe[4][k, :13] = x, y, K[:13]
                store_release(pipe[0], k, POSTED)
                posted += 1
            else:
                tree_dense_output(args, scheme, t, x, y, h, K, dense, work[0])
        first = j
        status, j, log, count = after_step(topology, params, events, method, dense, x, y, t, h, t_new, crossing,
                                           t_eval, j, x_out, stats, nq, event_space, g, g_new, log, count)
        if slots > 0 and j > first:  # samples written here (a step with a crossing): their rates as a slot's
            sample_rates(arrays, tau, forces, t_eval[first:j], x_out[first:j], nq, pipe[5][first:j],
                         pipe[6][first:j])
        K[0] = K[count_stages - 1]
        t, h = t_new, h_next
    if slots > 0:  # no more posts; the slots still POSTED computed here, those the helper holds waited for
        store_release(pipe[0], slots, DONE)
        for k in range(slots):
            wait_free(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, work[0], args[6], args[7])
    return status, j, log[:count]


@njit(cache=True)
def slot_outputs(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_y, tau_work, body_forces):
    """The samples x_out[j] of the step in slot k of the ring ``pipe`` (:func:`~.handoff.ring`) at its output
    times — its dense output (DOP853's, :func:`adaptive_family`), evaluated as :func:`after_step` would — and the
    accelerations and applied forces there (:func:`sample_rates`, into the ring's last two arrays)."""
    t, h, t_new = pipe[1][k, 0], pipe[1][k, 1], pipe[1][k, 2]
    x, y, K = pipe[3][k, 0], pipe[3][k, 1], pipe[4][k]
    first, end = pipe[2][k, 0], pipe[2][k, 1]
    args = (arrays[0], arrays[1], arrays[2], tau, forces, nq, tau_work, body_forces)
    tree_dense_output(args, scheme_of(DOP853), t, x, y, h, K, dense, stage_y)
    dense_outputs(arrays[0], np.int64(DOP853), dense, x, t, h, t_new, t_eval, first, x_out)
    sample_rates(arrays, tau, forces, t_eval[first:end], x_out[first:end], nq, pipe[5][first:end],
                 pipe[6][first:end])


@njit(cache=True)
def take(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_y, tau_work, body_forces):
    """If slot k of the ring is POSTED: claim it, compute its samples (:func:`slot_outputs`, with this thread's
    work arrays) and free it; returns whether it did."""
    flags = pipe[0]
    if load_acquire(flags, k) != POSTED or not claim(flags, k, POSTED, CLAIMED):
        return False
    slot_outputs(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_y, tau_work, body_forces)
    store_release(flags, k, FREE)
    return True


@njit(cache=True)
def wait_free(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_y, tau_work, body_forces):
    """Return once slot k of the ring is FREE: POSTED, it is taken and computed here (:func:`take`); CLAIMED,
    waited for (the helper is computing it)."""
    while load_acquire(pipe[0], k) != FREE:
        if take(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_y, tau_work, body_forces):
            return
        pause()


@njit(cache=True, nogil=True)
def serve(arrays, tau, forces, pipe, t_eval, x_out):
    """The helper thread of a DOP853 run of :func:`dormand_prince` with a ring: compute the samples of every POSTED
    slot, until the loop has set DONE and none is left (:mod:`~.handoff`), or SPINS looks for work in a row (short
    pauses between them) found none: on a busy machine, where the loop waits for a core, the helper only takes time
    from it and from other processes, so it leaves the rest to the loop."""
    topology = arrays[0]
    flags, slots = pipe[0], pipe[0].shape[0] - 1
    nx = x_out.shape[1]
    nq = nx - tau[1].shape[1]
    dense, stage_y, tau_work = np.empty((7, nx)), np.empty(nx), np.empty(tau[1].shape[1])
    body_forces = body_force_work(topology, forces)
    idle = 0
    while True:
        done = load_acquire(flags, slots) == DONE
        found = False
        for k in range(slots):
            found |= take(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_y, tau_work, body_forces)
        if found:
            idle = 0
        elif done or idle == SPINS:
            return
        else:
            idle += 1
            pause()

