"""The adaptive Runge–Kutta methods of the compiled loop (:mod:`multibody.simulate.steppers`), with step-size control
and dense output:

- ``"DOPRI5"``: the Dormand–Prince 5(4) pair (Hairer, Nørsett, Wanner, *Solving ODEs I*, II.5), PI step-size
  control and the 4th-order continuous extension for the output times;
- ``"DOP853"``: the Dormand–Prince 8(5,3) method (Hairer's DOP853, as scipy runs it: same tableau, error norm and
  step rules) with its 7th-order dense output: fewer, costlier steps, the better choice at tight tolerances (it is
  ``multibody.simulate``'s default). Its dense output can be computed on a helper thread (:mod:`.handoff`).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from scipy.integrate._ivp import dop853_coefficients as _dop853  # the DOP853 tableau (scipy's, BSD)

from ..dynamics._spatial_kernels import njit_without_refcounts
from .dense_output import (DOP853, DOPRI5, crossed_any, crossings, dense_outputs, event_values, event_work,
                           normalize_quaternions)
from .handoff import CLAIMED, DONE, FREE, POSTED, SPINS, claim, load_acquire, pause, store_release
from .tree_rates import (GO_ON, INTERRUPTED, MAX_STEPS, NFEV, NONFINITE, OK, REJECTED, STEPS, STOP, T_REACHED,
                         UNDERFLOW, body_force_work, finite, rates, sample_rates, stopped_at_event)

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
# Dormand–Prince 8(5,3) (Hairer's DOP853, the tableau scipy uses): 12 stages + the new-state derivative, error
# weights E5 and E3, 3 extra stages and the matrix D of the 7th-order dense output.
A8, E5_8, E3_8, D8 = (np.ascontiguousarray(x) for x in (_dop853.A, _dop853.E5, _dop853.E3, _dop853.D))
assert np.array_equal(A8[12, :12], _dop853.B)  # the 12th stage is evaluated at the new state
A5 = np.array([[0.0] * 7, [A21] + [0.0] * 6, [A31, A32] + [0.0] * 5, [A41, A42, A43] + [0.0] * 4,
               [A51, A52, A53, A54] + [0.0] * 3, [A61, A62, A63, A64, A65, 0.0, 0.0],
               [A71, 0.0, A73, A74, A75, A76, 0.0]])  # (a single call site of the rates: a smaller, faster compile)
# PI step-size control (dopri5.f defaults): h_new = h / fac, fac = err^0.17 / err_old^0.04 / 0.9 in [0.1, 5].
SAFE, FAC_MIN, FAC_MAX, BETA = 0.9, 0.1, 5.0, 0.04
EXPO = 0.2 - 0.75 * BETA

@njit(cache=True)
def error_norm(x, x_new, err, rtol, atol):
    """RMS of err_i / (atol + rtol max(|x_i|, |x_new,i|)) (the error of a step relative to its tolerance)."""
    total = 0.0
    for i in range(x.shape[0]):
        scale = atol + rtol * max(abs(x[i]), abs(x_new[i]))
        total += (err[i] / scale) ** 2
    return np.sqrt(total / x.shape[0])


@njit(cache=True)
def initial_step(arrays, tau, forces, t, x, f0, nq, rtol, atol, h_max, work, tau_work, body_forces, order):
    """First step size of a method of ``order`` (Hairer's HINIT): h^order × (second-derivative estimate) ≈ 0.01."""
    topology, params, gravity = arrays
    dnf, dny = 0.0, 0.0
    for i in range(x.shape[0]):
        scale = atol + rtol * abs(x[i])
        dnf += (f0[i] / scale) ** 2
        dny += (x[i] / scale) ** 2
    h = 1e-6 if dnf <= 1e-10 or dny <= 1e-10 else 0.01 * np.sqrt(dny / dnf)
    h = min(h, h_max)
    y1, f1 = work[0], work[1]
    for i in range(x.shape[0]):
        y1[i] = x[i] + h * f0[i]
    rates(topology, params, gravity, tau, forces, t + h, y1, nq, tau_work, body_forces, f1)
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


@njit_without_refcounts(cache=True)
def explicit_stages(arrays, tau, forces, A, first, count, t, x, h, K, y, nq, tau_work, body_forces):
    """The stages k_s = f(t + c_s h, x + h Σ_k<s A[s, k] k_k), s = first … count − 1, of an explicit Runge–Kutta
    step from (t, x) with the stages before ``first`` in K, c_s = Σ_k A[s, k] (the tableau's nodes); y is left at
    the last stage's state."""
    topology, params, gravity = arrays
    for st in range(first, count):
        combination(A[st, :st], K, y)
        for i in range(x.shape[0]):
            y[i] = x[i] + h * y[i]
        rates(topology, params, gravity, tau, forces, t + A[st, :st].sum() * h, y, nq, tau_work, body_forces, K[st])


@njit(cache=True)
def adaptive_start(arrays, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, x_out, stats, events,
                   stages, dense_rows, order):
    """The set-up of an adaptive run (:func:`dopri5`, :func:`dop853`): its work arrays — stage derivatives K
    (``stages`` rows), stage state y, the step's dense output (``dense_rows`` rows), two more state-sized rows,
    the rates' torque and body forces, the events' workspace, values and log (:func:`event_work`) —, the samples
    at the start time written to x_out, K[0] = ẋ(t, x), the events' values g at x, and the first step
    (``h_first``, or guessed for a method of ``order``).

    Returns (K, y, dense, work, tau_work, body_forces, event_space, g, g_new, log, count, j, h, status) with j the
    samples written and status GO_ON, or the status that ends the run already (a non-finite ẋ, or every sample
    written)."""
    topology, params, gravity = arrays
    nx, nq = x.shape[0], x.shape[0] - tau[1].shape[1]
    K, y, dense, work = np.empty((stages, nx)), np.empty(nx), np.empty((dense_rows, nx)), np.empty((2, nx))
    tau_work, body_forces = np.empty(tau[1].shape[1]), body_force_work(topology, forces)
    event_space, g, g_new, log, count = event_work(topology, events, nx)
    T, j = t_eval.shape[0], 0
    while j < T and t_eval[j] <= t:
        x_out[j] = x
        j += 1
    rates(topology, params, gravity, tau, forces, t, x, nq, tau_work, body_forces, K[0])
    stats[NFEV] += 1
    h, status = h_first, GO_ON
    if not finite(K[0]):
        h, status = 0.0, NONFINITE
    elif j == T:
        h, status = 0.0, OK
    elif h <= 0.0:
        h = initial_step(arrays, tau, forces, t, x, K[0], nq, rtol, atol, h_max, work, tau_work, body_forces,
                         order)
        stats[NFEV] += 1
    if status == GO_ON:
        event_values(topology, params, events, x, nq, event_space, g)
    return K, y, dense, work, tau_work, body_forces, event_space, g, g_new, log, count, j, h, status


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
def dopri5(arrays, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, max_steps, x_out, stats, events):
    """Integrate ẋ from (t, x) through the times t_eval (increasing, ≥ t) with DOPRI5; x_out[j] = x(t_eval[j]);
    the built-in ``events`` (rows of :func:`multibody.simulate.events.event_rows`) watched after each step.

    Returns (status, number of samples written, event log (rows: event index, time [s])). x is overwritten with the
    last accepted state (the state at a terminal event).
    """
    topology, params, gravity = arrays
    nx, nq = x.shape[0], x.shape[0] - tau[1].shape[1]
    method = np.int64(DOPRI5)  # (a variable, not a literal: the callees compile once for every method)
    # K: stage derivatives k1 … k7 (k7 = ẋ at the new state: the next k1); dense: the continuous extension's d₀ … d₄
    K, y, dense, work, tau_work, body_forces, event_space, g, g_new, log, count, j, h, status = adaptive_start(
        arrays, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, x_out, stats, events, 7, 5, 5.0)
    t_end = t_eval[t_eval.shape[0] - 1]
    err = work[0]
    err_old, rejected_last, nonfinite = 1e-4, False, False
    while status == GO_ON:
        status = stopped(stats, max_steps, h, t, nonfinite)
        if status != GO_ON:
            break
        if t + 1.01 * h >= t_end:
            h = t_end - t
        # stages 2 … 7: k_s = f(x + h Σ_k<s a_sk k_k); the last stage state is the new state y (FSAL)
        explicit_stages(arrays, tau, forces, A5, 1, 7, t, x, h, K, y, nq, tau_work, body_forces)
        stats[NFEV] += 6
        # local error estimate h Σ e_s k_s, measured against the tolerances
        for i in range(nx):
            err[i] = h * (E1 * K[0, i] + E3 * K[2, i] + E4 * K[3, i] + E5 * K[4, i] + E6 * K[5, i] + E7 * K[6, i])
        e = error_norm(x, y, err, rtol, atol)
        if not np.isfinite(e):  # a stage left the finite states: retry with a much smaller step
            nonfinite, rejected_last = True, True
            stats[REJECTED] += 1
            h *= 0.2
            continue
        nonfinite = False
        fac_err = e ** EXPO
        fac = max(FAC_MIN, min(FAC_MAX, fac_err / err_old ** BETA / SAFE))
        if e > 1.0:  # rejected: shrink
            h /= min(FAC_MAX, fac_err / SAFE)
            rejected_last = True
            stats[REJECTED] += 1
            continue
        # accepted: the events' crossings; the dense output on [t, t + h] if they or an output time need it
        t_new = t_end if h == t_end - t else t + h
        crossing = crossed_any(topology, params, events, y, nq, event_space, g, g_new)
        if crossing or holds_output(t_eval, j, t_new):
            for i in range(nx):
                diff = y[i] - x[i]
                spline = h * K[0, i] - diff
                dense[0, i] = x[i]
                dense[1, i] = diff
                dense[2, i] = spline
                dense[3, i] = diff - h * K[6, i] - spline
                dense[4, i] = h * (D1 * K[0, i] + D3 * K[2, i] + D4 * K[3, i] + D5 * K[4, i] + D6 * K[5, i]
                                   + D7 * K[6, i])
        status, j, log, count = after_step(topology, params, events, method, dense, x, y, t, h, t_new, crossing,
                                           t_eval, j, x_out, stats, nq, event_space, g, g_new, log, count)
        K[0] = K[6]
        t = t_new
        err_old = max(e, 1e-4)
        h_new = min(h / fac, h_max)
        h = min(h_new, h) if rejected_last else h_new
        rejected_last = False
    return status, j, log[:count]


@njit(cache=True)
def dop853(arrays, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, max_steps, x_out, stats, events, pipe):
    """:func:`dopri5` with the 8th-order DOP853 pair (error estimate of orders 5 and 3, step factor
    0.9 err^(−1/8) in [0.2, 10], scipy's rules) and its 7th-order dense output (3 more evaluations on each step
    that holds an output time or an event's crossing). With a ring ``pipe`` of slots (:func:`~.handoff.ring`),
    the dense output of a step without crossings goes to its next slot, for a helper thread running :func:`serve`
    to compute while the loop takes the next steps (:mod:`~.handoff`); the samples of a step with a crossing are
    computed here, their accelerations and applied forces too, into the ring's arrays."""
    topology, params, gravity = arrays
    nx, nq = x.shape[0], x.shape[0] - tau[1].shape[1]
    method = np.int64(DOP853)  # (a variable, not a literal: the callees compile once for every method)
    # K: stages 1 … 12, the new state's derivative (row 12), the dense-output stages; dense: F₀ … F₆
    K, y, dense, work, tau_work, body_forces, event_space, g, g_new, log, count, j, h, status = adaptive_start(
        arrays, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, x_out, stats, events, 16, 7, 8.0)
    t_end = t_eval[t_eval.shape[0] - 1]
    e5, e3 = work[0], work[1]
    rejected_last, nonfinite = False, False
    slots, posted = pipe[0].shape[0] - 1, 0
    while status == GO_ON:
        status = stopped(stats, max_steps, h, t, nonfinite)
        if status != GO_ON:
            break
        if t + 1.01 * h >= t_end:
            h = t_end - t
        # stages s = 1 … 12: k_s = f(x + h Σ_k<s a_sk k_k); row 12 of the tableau is b, so the last stage state
        # is the new state y and k_12 = f(y)
        explicit_stages(arrays, tau, forces, A8, 1, 13, t, x, h, K, y, nq, tau_work, body_forces)
        stats[NFEV] += 12
        # error: |h| ‖e5‖² / √((‖e5‖² + 0.01 ‖e3‖²) n), e = Σ E k / scale
        combination(E5_8, K, e5)
        combination(E3_8, K, e3)
        n5, n3 = 0.0, 0.0
        for i in range(nx):
            scale = atol + rtol * max(abs(x[i]), abs(y[i]))
            n5 += (e5[i] / scale) ** 2
            n3 += (e3[i] / scale) ** 2
        e = 0.0 if n5 == 0.0 and n3 == 0.0 else h * n5 / np.sqrt((n5 + 0.01 * n3) * nx)
        if not np.isfinite(e):
            nonfinite, rejected_last = True, True
            stats[REJECTED] += 1
            h *= 0.2
            continue
        nonfinite = False
        if e >= 1.0:
            h *= max(0.2, 0.9 * e ** -0.125)
            rejected_last = True
            stats[REJECTED] += 1
            continue
        # accepted: the events' crossings; the dense output if they or an output time need it
        t_new = t_end if h == t_end - t else t + h
        crossing = crossed_any(topology, params, events, y, nq, event_space, g, g_new)
        if crossing or holds_output(t_eval, j, t_new):
            stats[NFEV] += 3
            if slots > 0 and not crossing:  # the outputs to the ring's next slot, for the helper thread (or this)
                k = posted % slots
                wait_free(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, work[0], tau_work, body_forces)
                pipe[1][k, 0], pipe[1][k, 1], pipe[1][k, 2] = t, h, t_new
                pipe[2][k, 0] = j
                while holds_output(t_eval, j, t_new):
                    j += 1
                pipe[2][k, 1] = j
                pipe[3][k, 0], pipe[3][k, 1], pipe[4][k, :13] = x, y, K[:13]
                store_release(pipe[0], k, POSTED)
                posted += 1
            else:
                dense_853(arrays, tau, forces, t, x, y, h, K, dense, work[0], nq, tau_work, body_forces)
        first = j
        status, j, log, count = after_step(topology, params, events, method, dense, x, y, t, h, t_new, crossing,
                                           t_eval, j, x_out, stats, nq, event_space, g, g_new, log, count)
        if slots > 0 and j > first:  # samples written here (a step with a crossing): their rates as a slot's
            sample_rates(arrays, tau, forces, t_eval[first:j], x_out[first:j], nq, pipe[5][first:j],
                         pipe[6][first:j])
        K[0] = K[12]
        t = t_new
        factor = 10.0 if e == 0.0 else min(10.0, 0.9 * e ** -0.125)
        h = min(h * (min(1.0, factor) if rejected_last else factor), h_max)
        rejected_last = False
    if slots > 0:  # no more posts; the slots still POSTED computed here, those the helper holds waited for
        store_release(pipe[0], slots, DONE)
        for k in range(slots):
            wait_free(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, work[0], tau_work, body_forces)
    return status, j, log[:count]


@njit(cache=True)
def dense_853(arrays, tau, forces, t, x, y, h, K, dense, stage_state, nq, tau_work, body_forces):
    """DOP853's 7th-order dense output of the step from (t, x) over h to y, whose stages are K[:13]: 3 more stages
    (K[13:16], from the state ``stage_state``), then the interpolant's coefficients F0 … F6 in dense."""
    explicit_stages(arrays, tau, forces, A8, 13, 16, t, x, h, K, stage_state, nq, tau_work, body_forces)
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
def slot_outputs(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_state, tau_work, body_forces):
    """The samples x_out[j] of the step in slot k of the ring ``pipe`` (:func:`~.handoff.ring`) at its output
    times — its dense output (:func:`dense_853`), evaluated as :func:`after_step` would — and the accelerations
    and applied forces there (:func:`sample_rates`, into the ring's last two arrays)."""
    t, h, t_new = pipe[1][k, 0], pipe[1][k, 1], pipe[1][k, 2]
    x, y, K = pipe[3][k, 0], pipe[3][k, 1], pipe[4][k]
    first, end = pipe[2][k, 0], pipe[2][k, 1]
    dense_853(arrays, tau, forces, t, x, y, h, K, dense, stage_state, nq, tau_work, body_forces)
    dense_outputs(arrays[0], np.int64(DOP853), dense, x, t, h, t_new, t_eval, first, x_out)
    sample_rates(arrays, tau, forces, t_eval[first:end], x_out[first:end], nq, pipe[5][first:end],
                 pipe[6][first:end])


@njit(cache=True)
def take(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_state, tau_work, body_forces):
    """If slot k of the ring is POSTED: claim it, compute its samples (:func:`slot_outputs`, with this thread's
    work arrays) and free it; returns whether it did."""
    flags = pipe[0]
    if load_acquire(flags, k) != POSTED or not claim(flags, k, POSTED, CLAIMED):
        return False
    slot_outputs(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_state, tau_work, body_forces)
    store_release(flags, k, FREE)
    return True


@njit(cache=True)
def wait_free(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_state, tau_work, body_forces):
    """Return once slot k of the ring is FREE: POSTED, it is taken and computed here (:func:`take`); CLAIMED,
    waited for (the helper is computing it)."""
    while load_acquire(pipe[0], k) != FREE:
        if take(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_state, tau_work, body_forces):
            return
        pause()


@njit(cache=True, nogil=True)
def serve(arrays, tau, forces, pipe, t_eval, x_out):
    """The helper thread of a :func:`dop853` run with a ring: compute the samples of every POSTED slot, until the
    loop has set DONE and none is left (:mod:`~.handoff`), or SPINS looks for work in a row (short pauses between
    them) found none: on a busy machine, where the loop waits for a core, the helper only takes time from it and
    from other processes, so it leaves the rest to the loop."""
    topology = arrays[0]
    flags, slots = pipe[0], pipe[0].shape[0] - 1
    nx = x_out.shape[1]
    nq = nx - tau[1].shape[1]
    dense, stage_state, tau_work = np.empty((7, nx)), np.empty(nx), np.empty(tau[1].shape[1])
    body_forces = body_force_work(topology, forces)
    idle = 0
    while True:
        done = load_acquire(flags, slots) == DONE
        found = False
        for k in range(slots):
            found |= take(arrays, tau, forces, pipe, k, t_eval, x_out, nq, dense, stage_state, tau_work, body_forces)
        if found:
            idle = 0
        elif done or idle == SPINS:
            return
        else:
            idle += 1
            pause()

