"""Compiled time integration of a tree: the whole step loop in numba, no Python per step.

For the models ``multibody.simulate`` handles without Python callables (a tree under gravity, a constant or tabulated
joint torque, joint springs and friction, springs between body points, gyrostats, fixed tendons and actuators at
constant or tabulated controls, built-in events): the methods (DOPRI5,
DOP853, RK4, semi-implicit Euler) and the equations they integrate are described in
:mod:`multibody.simulate.steppers`, which holds the step loops; this module is their Python side:
:func:`integrate_tree` runs one initial state (DOP853 on two threads: the loop and a helper that computes its dense
output, :mod:`~.handoff`), :func:`integrate_tree_batch` many at once, in parallel over threads (the compiled loop
releases the GIL; no numba parallel region, whose compilation would double the time).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, wait

import numba
import numpy as np

from ..dynamics._batch import aba_batch
from ..dynamics._inputs import as_state
from ..dynamics._threads import in_threads
from ..errors import ModelError, SimulationError, SimulationInterrupted
from ..model.joint_forces import joint_force_rows
from . import lockstep
from .actuators import (LINE_WIDTH, ONE_TIME, actuation_arrays, control_table, per_run_controls,
                        stacked_controls)
from .events import builtin, event_rows
from .forces import COMPILED, body_force_rows
from .handoff import SLOTS, ring
from .adaptive import serve
from .steppers import DOP853, DOPRI5, EULER, METHODS, RK4, run_with_events
from .tree_rates import (EVENT, INTERRUPTED, NFEV, NONFINITE, OK, REJECTED, STATUS, STEPS, STOP, T_REACHED, sample_rates,
                         sample_torques)
from .torques import TorqueTable, initial_state, per_run_tables
from .trajectory import RatesWhenRead


def unsupported(model, torque=None, f_ext=None, events=(), dynamics=None, atol=1.0):
    """Why the compiled loop cannot run this simulation ("" if it can): it takes a rigid tree without constraints, a
    constant or tabulated torque, joint springs and friction, springs between points, gyrostats (constant spin),
    fixed tendons and actuators as the only force elements (not force elements of the user's own classes), only
    built-in events without an action (:mod:`multibody.simulate.events`), no custom dynamics. (The controls of the
    actuators: :func:`~multibody.simulate.actuators.compiled_controls`.)"""
    if getattr(model, "constraints", None):
        return "the model has constraints"
    if model.ne:
        return "the model has flexible beams"
    reason = inputs_unsupported(model, torque, f_ext)
    if reason:
        return reason
    for event in events:
        if not builtin(event):
            name = getattr(event, "name", None) or getattr(event, "__name__", "event")
            return (f"event {name!r} has an action (a state reset)" if getattr(event, "action", None) is not None
                    else f"event {name!r} is a Python callable, not a built-in event")
    if dynamics is not None:
        return "custom dynamics are given"
    if not atol > 0.0:
        return "atol is not positive"
    return ""


def inputs_unsupported(model, torque=None, f_ext=None):
    """Why a compiled loop cannot take the model's force elements or these inputs ("" if it can): force elements
    it does not compile (:func:`not_compiled`), a torque that is a Python callable, body forces ``f_ext``."""
    others = not_compiled(model)
    if others:
        return f"force element {others[0].name!r} ({type(others[0]).__name__}) is not compiled"
    if callable(torque) and not isinstance(torque, TorqueTable):
        return "the torque is a callable"
    if f_ext is not None:
        return "body forces (f_ext) are given"
    return ""


def joint_force_array(model):
    """The model's joint springs and friction as rows (iq, iv, k, q₀, c, F_c, v_s) for :func:`rates`
    (:func:`~multibody.model.joint_forces.joint_force_rows`); ModelError if it has force elements the compiled loop
    does not take (:func:`unsupported`)."""
    others = not_compiled(model)
    if others:
        raise ModelError(f"model '{model.name}': force element {others[0].name!r} ({type(others[0]).__name__}) "
                         "cannot be compiled; use multibody.simulate")
    return joint_force_rows(model)[0]


def not_compiled(model):
    """The model's force elements that the compiled loop does not apply (of the user's own classes)."""
    return [e for e in getattr(model, "forces", ()) if not isinstance(e, COMPILED)]


def force_arrays(model, controls=None):
    """(joint rows, spring rows, rotor rows, actuation, controls): the model's force elements as the compiled loop's
    ``rates`` takes them (:func:`joint_force_array`, :func:`~multibody.simulate.forces.body_force_rows`, the fixed
    tendons' and actuators' lines :func:`~multibody.simulate.actuators.actuation_arrays`) and the control table
    ``controls`` (times (T,), values (T, nu)) (:func:`~multibody.simulate.actuators.control_table`; None: zero
    controls)."""
    bodies, actuation = body_force_rows(model), actuation_arrays(model)[0]
    controls = control_table(model, None) if controls is None else controls
    return (joint_force_array(model),) + bodies + (actuation, controls)  # (the model layer's rows last)


def _prepare(model, q0, v0, t_eval, method, rtol, atol, max_step, first_step, dt, tau, t_start, max_steps,
             batch, events, ctrl, checked=False, kept=None):
    """The arrays of a compiled run. ``checked``: (q0, v0) come checked and with unit quaternions from
    :func:`multibody.simulate.torques.initial_state` (:func:`multibody.simulate`'s entry), the run planned there
    (:func:`multibody.simulate.planning.planned_run`: what the loop refuses, the output times), else they are
    checked here. ``kept``: the dict of the run's kept plan (:class:`~.planning.KeptPlan`), where the event rows and
    the force rows at zero controls are kept for its next runs."""
    if method not in METHODS:
        raise ValueError(f"integrate_tree: unknown method {method!r}; choose one of {', '.join(METHODS)}")
    reason = "" if checked else unsupported(model, torque=tau, events=events,
                                            atol=atol if method in ("DOPRI5", "DOP853") else 1.0)
    if reason:
        raise ValueError(f"integrate_tree: {reason}; use multibody.simulate")
    cm = model._compiled or model.compile()
    if cm.singular:
        raise ModelError(cm.singular)
    nq, nv = cm.nq, cm.nv
    if not checked:
        q0, v0 = initial_state(model, q0, v0, "integrate_tree")
    if batch:
        q0, v0 = np.atleast_2d(q0), np.atleast_2d(v0)
        B = max(q0.shape[0], v0.shape[0])
        q0, v0 = np.broadcast_to(q0, (B, nq)), np.broadcast_to(v0, (B, nv))
    elif q0.ndim != 1 or v0.ndim != 1:
        raise ValueError(f"integrate_tree: q0 and v0 must be single states, got shapes {q0.shape} and {v0.shape}")
    t_eval = np.ascontiguousarray(t_eval, dtype=float)
    t_start = float(t_eval[0]) if t_start is None and t_eval.size else float(t_start if t_start is not None else 0)
    if not checked and (t_eval.ndim != 1 or not t_eval.size or not np.all(np.isfinite(t_eval))
                        or np.any(np.diff(t_eval) < 0) or t_eval[0] < t_start):
        raise ValueError(f"integrate_tree: t_eval must be finite increasing times from t_start = {t_start}, got "
                         f"{np.array2string(t_eval, threshold=8)}")
    if method in ("RK4", "Euler") and not (dt is not None and np.isfinite(dt) and dt > 0):
        raise ValueError(f"integrate_tree: method {method!r} needs a step dt > 0, got {dt!r}")
    if not (rtol >= 0 and max_step > 0):
        raise ValueError(f"integrate_tree: need rtol >= 0 and max_step > 0, got {rtol!r}, {max_step!r}")
    if batch and per_run_tables(tau):  # (times (T,), values (T, nv), or (B, T, nv) for a batch: one table per run)
        if len(tau) != q0.shape[0]:
            raise ValueError(f"integrate_tree_batch: {len(tau)} torque tables for {q0.shape[0]} runs")
        tau = TorqueTable.stacked(tau, nv, "integrate_tree_batch: tau")
    elif isinstance(tau, TorqueTable):
        times, values = (np.array(part) for part in tau.table(nv, "integrate_tree: tau"))  # (writable: see below)
        tau = (times, np.array(np.broadcast_to(values, (q0.shape[0],) + values.shape), order="C") if batch
               else values)
    elif tau is None and kept is not None:  # (the zero torque's table, kept: the loop only reads it)
        tau = kept.get("zero_torque") or kept.setdefault("zero_torque", torque_table(None, nv))
    else:
        tau = np.zeros(nv) if tau is None else as_state(tau, nv, "tau")
        if tau.ndim > (2 if batch else 1) or not np.all(np.isfinite(tau)) or (
                tau.ndim == 2 and tau.shape[0] not in (1, q0.shape[0])):
            raise ValueError(f"integrate_tree: tau must be a finite vector of {nv} entries"
                             + (f" or one per run ({q0.shape[0]}, {nv})" if batch else "")
                             + f" or a TorqueTable, got shape {tau.shape}")
        # (writable C-order copies, never a read-only broadcast view: each layout would compile the loop again)
        tau = ((np.zeros(1), np.array(np.broadcast_to(np.atleast_2d(tau), (q0.shape[0], nv))[:, None], order="C"))
               if batch else torque_table(tau, nv))
    x0 = np.concatenate([q0, v0], axis=-1)
    settings = (METHODS[method], rtol, atol, float(min(max_step, np.finfo(float).max)),
                float(first_step or 0.0), float(dt or 0.0), int(max_steps or np.iinfo(np.int64).max))
    B = q0.shape[0] if batch else 1
    if batch:
        rows = force_arrays(model, stacked_controls(model, per_run_controls(ctrl, B), B))
    elif kept is not None and ctrl is None:
        rows = kept.get("force_arrays") or kept.setdefault("force_arrays", force_arrays(model, None))
    else:
        rows = force_arrays(model, control_table(model, ctrl))
    return cm, x0, t_start, t_eval, tau, rows, settings, _event_rows(events, model, kept)


def _event_rows(events, model, kept=None):
    """:func:`~.events.event_rows` of ``events``, kept in ``kept`` (a kept plan's dict) for the next runs watching
    the same event objects."""
    if kept is None:
        return event_rows(events, model)
    last = kept.get("event_rows")
    if last is None or len(last[0]) != len(events) or any(a is not b for a, b in zip(last[0], events)):
        last = kept["event_rows"] = (tuple(events), event_rows(events, model))
    return last[1]


def _named(log, names):
    """An event log (rows: event index, time [s]) as (name, time) pairs."""
    return [(names[int(k)], float(time)) for k, time in log]


def _info(method, rtol, atol, dt, stats, status):
    return {"method": method, "rtol": rtol, "atol": atol, "dt": dt, "nfev": int(stats[NFEV]),
            "steps": int(stats[STEPS]), "rejected": int(stats[REJECTED]), "status": STATUS[int(status)],
            "t_reached": float(stats[T_REACHED]), "compiled": True}


INLINE_STEPS = 256  # the fixed steps up to which a run stays on the calling thread (Ctrl-C reaches it when the
#   run has returned), which saves a short run the worker's hand-off (~30 µs)


def _fixed_steps(t_start, t_eval, dt):
    """A bound on the fixed steps of at most ``dt`` from ``t_start`` through the output times ``t_eval``: the
    span's steps and one more per output time (each interval between output times is cut into whole steps)."""
    return (t_eval[-1] - t_start) / dt + t_eval.shape[0]


def _inline(run, t_eval, stats):
    """``run()`` (a compiled run: status, samples written, event log) on this thread. Ctrl-C while it runs arrives
    when it has returned: the state, the clock and the samples are whole, its status is INTERRUPTED (its event
    log, not returned, is empty)."""
    try:
        return run()
    except KeyboardInterrupt:
        return INTERRUPTED, int(np.searchsorted(t_eval, stats[T_REACHED], side="right")), np.zeros((0, 2))


_RUNS = ThreadPoolExecutor(thread_name_prefix="multibody-run")  # workers kept for the compiled runs: a new thread
#   per run cost ~0.15 ms (thread start, then its stack and malloc arena touched anew): 1 % of a 10 s run at N = 20


def _interruptible(call, stats, helper=None):
    """``call()`` (a compiled run that releases the GIL) on a worker thread, so that Ctrl-C reaches this thread
    while it waits: it sets ``stats[STOP]``, the run returns at its next step with status INTERRUPTED and the
    samples written so far, and nothing computed is lost. ``helper()``, if given, runs on another worker, submitted
    after the run, so that a helper never holds a worker while its run waits in the queue (the run never waits for
    its helper: :mod:`~.handoff`)."""
    future = _RUNS.submit(call)
    helping = None if helper is None else _RUNS.submit(helper)
    try:
        while not future.done():
            wait((future,), timeout=0.05)  # (Ctrl-C arrives between the waits)
    except KeyboardInterrupt:
        stats[STOP] = 1.0
    if helping is not None:
        helping.result()
    return future.result()  # (or the exception the run raised)


def integrate_tree(model, q0, v0, t_eval, *, method="DOPRI5", rtol=1e-8, atol=1e-10, max_step=np.inf,
                   first_step=None, dt=None, tau=None, t_start=None, max_steps=None, events=(), ctrl=None):
    """Integrate a tree's motion from (q0, v0) at ``t_start`` (default t_eval[0]) in compiled code.

    Parameters
    ----------
    q0 : (nq,) and v0 : (nv,) initial state; t_eval : (T,) increasing output times [s].
    method : "DOPRI5" or "DOP853" (adaptive, error-controlled by rtol, atol, max_step; first_step guessed when
        None),
        "RK4" or "Euler" (semi-implicit; both fixed steps of at most ``dt``, landing on the output times).
    tau : generalized forces, constant (nv,) or a :class:`~multibody.simulate.torques.TorqueTable` τ(t); the
        model's force elements act too.
    ctrl : the controls u of the model's actuators, constant (nu,) or a TorqueTable u(t) (None: zero).
    max_steps : bound on the steps (accepted + rejected) the loop may take.
    events : built-in events (:mod:`multibody.simulate.events`, bare or in :class:`multibody.Event` without an
        action): their crossings are located on each step's dense output (for RK4 and Euler the cubic Hermite
        interpolant) to 4 ulp of the time; a terminal one ends the run, after the output times before it.

    Returns
    -------
    (t (T,), q (T, nq), v (T, nv), info) with info the method, tolerances, ``nfev``, ``steps``, ``rejected``,
    ``status`` ("ok", or "terminal event": then t_reached is its time and fewer samples may be returned),
    ``t_reached``, ``events``: the crossings as (name, time [s]) in time order, and after a terminal event
    ``event_state``, the state [q; v] (nq + nv,) there (to resume from). A non-finite state, a step-size
    underflow or ``max_steps`` raise :class:`~multibody.SimulationError` with ``time`` and the samples computed so
    far as ``trajectory``.
    """
    return _integrate(model, q0, v0, t_eval, method, rtol, atol, max_step, first_step, dt, tau, t_start, max_steps,
                      events, ctrl)[:4]


def tree_run_trajectory(model, q0, v0, t_eval, *, samples=None, method="DOPRI5", rtol=1e-8, atol=1e-10,
                        max_step=np.inf, first_step=None, dt=None, tau=None, t_start=None, max_steps=None, events=(),
                        ctrl=None, checked=False, kept=None):
    """:func:`integrate_tree`'s run as a :class:`~multibody.Trajectory` (:func:`tree_trajectory`) of its first
    ``samples`` samples (all if None). A DOP853 run on more than one of numba's threads computes its dense output,
    and the accelerations and applied forces at the samples, on a second thread while the loop steps on
    (:mod:`multibody.simulate.handoff`; the steps with an event's crossing on the loop's thread). ``checked``: q0
    and v0 come checked, with unit quaternions (:func:`multibody.simulate.torques.initial_state`), the run planned
    by :func:`multibody.simulate`, whose kept plan's dict ``kept`` keeps the loop's arguments for its next runs."""
    t, q, v, info, rates, tau, rows = _integrate(model, q0, v0, t_eval, method, rtol, atol, max_step, first_step, dt,
                                                 tau, t_start, max_steps, events, ctrl, checked, kept)
    count = len(t) if samples is None else min(len(t), samples)
    return tree_trajectory(model, t[:count], q[:count], v[:count], info, tau, rates, rows=rows)


def _integrate(model, q0, v0, t_eval, method, rtol, atol, max_step, first_step, dt, tau, t_start, max_steps, events,
               ctrl=None, checked=False, kept=None):
    """:func:`integrate_tree`, also returning the accelerations and applied forces the helper thread computed
    (:func:`tree_trajectory`'s ``rates``) or None, and the torque table and force rows the run took (its ``tau`` and
    ``rows``)."""
    cm, x0, t_start, t_eval, tau, rows, settings, (watched, names) = _prepare(
        model, q0, v0, t_eval, method, rtol, atol, max_step, first_step, dt, tau, t_start, max_steps, False, events,
        ctrl, checked, kept)
    code, rtol_, atol_, h_max, h_first, dt_, steps = settings
    x_out = np.empty((t_eval.shape[0], x0.shape[0]))
    stats = np.zeros(5)
    arrays = (cm.topology, cm.params, cm.gravity)
    helped = code == DOP853 and numba.get_num_threads() > 1
    pipe = ring(x0.shape[0], cm.nv, t_eval.shape[0] if helped else 0, SLOTS if helped else 0)
    def run():
        return run_with_events(arrays, code, tau, rows, x0, t_start, t_eval, float(rtol_), float(atol_), h_max,
                               h_first, dt_, steps, x_out, stats, watched, pipe)
    if not helped and code in (RK4, EULER) and _fixed_steps(t_start, t_eval, dt_) <= INLINE_STEPS:
        status, count, log = _inline(run, t_eval, stats)
    else:
        status, count, log = _interruptible(run, stats, (lambda: serve(arrays, tau, rows, pipe, t_eval, x_out))
                                            if helped else None)
    # the rates at every sample past those at t_start (from the slots, or computed by the loop at a crossing)
    rates = (pipe[5], pipe[6], int(np.searchsorted(t_eval, t_start, side="right"))) if helped else None
    info = _info(method, rtol, atol, dt, stats, status)
    info["events"] = _named(log, names)
    if status == EVENT:  # the state at the terminal event, to resume from (multibody.simulate.stops)
        info["event_state"] = x0.copy()
    t, q, v = t_eval[:count], x_out[:count, :cm.nq], x_out[:count, cm.nq:]
    if status == INTERRUPTED:
        info["interrupted"] = True
    if status not in (OK, EVENT):  # x0 holds the state the run reached: the partial trajectory's last sample
        t, q, v, reached = _with_reached(t, q, v, float(stats[T_REACHED]), x0, cm.nq)
        partial = tree_trajectory(model, t, q, v, info, tau, None if reached else rates, rows=rows)
    if status == INTERRUPTED:
        raise SimulationInterrupted(f"simulation of '{model.name}' interrupted at t = {stats[T_REACHED]:.6g} s",
                                    time=float(stats[T_REACHED]), trajectory=partial)
    if status not in (OK, EVENT):
        cause = _element_error(model, x0[:cm.nq], x0[cm.nq:]) if status == NONFINITE else ""  # (x0: the last state)
        raise SimulationError(f"integrate_tree: {STATUS[status]} at t = {stats[T_REACHED]:.6g} s{cause}",
                              time=float(stats[T_REACHED]), trajectory=partial)
    return t, q, v, info, rates, tau, rows


def _with_reached(t, q, v, t_reached, x, nq):
    """The samples (t, q, v) of a stopped run followed by the state ``x`` it reached at ``t_reached`` when that is
    finite and later than the last sample (an interrupted run between two distant output times keeps its work),
    and whether it was added."""
    if (len(t) and t_reached <= t[-1]) or not np.all(np.isfinite(x)):
        return t, q, v, False
    return np.append(t, t_reached), np.vstack([q, x[None, :nq]]), np.vstack([v, x[None, nq:]]), True


def _element_error(model, q, v):
    """Why a force element has no value at the state (q, v) where a compiled run stopped non-finite, as its Python
    form says it (e.g. a spring of rest length L₀ > 0 whose two points coincide: it has no direction), or ""."""
    for element in model.forces:
        try:
            element.generalized_force(model, q, v)
        except (ValueError, ZeroDivisionError) as exc:
            return f" ({exc})"
    return ""


def integrate_tree_batch(model, Q0, V0, t_eval, *, method="RK4", rtol=1e-8, atol=1e-10, max_step=np.inf,
                         first_step=None, dt=None, tau=None, t_start=None, max_steps=None, threads=None, events=(),
                         ctrl=None, checked=False):
    """:func:`integrate_tree` for B initial states Q0 (B, nq), V0 (B, nv) (either may be a single state), the
    runs spread over ``threads`` Python threads (default: numba's thread count), which run in parallel since the
    compiled loop releases the GIL. ``model``: one Model for all runs, or a sequence of B Models, one per run, of
    the same structure (:func:`multibody.simulate.lockstep.structure_difference`; ValueError naming the first
    difference otherwise): runs with their own masses, inertias, joint placements, springs and friction. ``tau``:
    as for :func:`integrate_tree`, or (B, nv) constant torques or a sequence of B TorqueTables, one per run; ``ctrl``
    likewise: shared, (B, nu) constant controls, or a sequence of B constants or TorqueTables, one per run.
    ``events``: built-in events watched in every run, as in :func:`integrate_tree`. ``checked``: Q0 and V0 come
    checked, with unit quaternions (:func:`multibody.simulate.torques.initial_state`, :func:`multibody.simulate`).

    Returns (t (T,), Q (B, T, nq), V (B, T, nv), info) with info as in :func:`integrate_tree` plus ``nfev``,
    ``steps`` and ``rejected`` summed over the runs, ``status`` (B,) per run ("ok", "terminal event" or the reason
    it stopped), ``samples`` (B,), the samples each run computed, and ``events``, each run's crossings. Runs that stopped early hold NaN past their last
    sample; no error is raised (check ``info["status"]``).
    """
    models = list(model) if isinstance(model, (list, tuple)) else None
    if models is not None:
        lockstep.check_same_structure(models, "integrate_tree_batch")
        Q0 = np.atleast_2d(np.asarray(Q0, dtype=float))
        if Q0.shape[0] not in (1, len(models)):
            raise ValueError(f"integrate_tree_batch: {len(models)} models for {Q0.shape[0]} initial states")
        Q0 = np.broadcast_to(Q0, (len(models),) + Q0.shape[1:])
        for other in models[1:]:
            reason = unsupported(other, torque=tau, atol=atol if method in ("DOPRI5", "DOP853") else 1.0)
            if reason:
                raise ValueError(f"integrate_tree_batch: model '{other.name}': {reason}; use multibody.simulate")
    cm, X0, t_start, t_eval, tau, rows, settings, (watched, names) = _prepare(
        model if models is None else models[0], Q0, V0, t_eval, method, rtol, atol, max_step, first_step, dt, tau,
        t_start, max_steps, True, events, ctrl, checked)
    code, rtol_, atol_, h_max, h_first, dt_, steps = settings
    B, T = X0.shape[0], t_eval.shape[0]
    X_out = np.full((B, T, X0.shape[1]), np.nan)
    stats, status, count = np.zeros((B, 5)), np.zeros(B, dtype=np.int64), np.zeros(B, dtype=np.int64)
    X0 = np.ascontiguousarray(X0)
    # each run's params (n, NPARAMS), joint springs and friction (m, 7), springs (s, 11) and rotors (g, 5), shared by
    # all runs of one model; springs and rotors take the per-run loop (the lockstep kernel applies no body forces)
    params = cm.params if models is None else np.array([(m._compiled or m.compile()).params for m in models])
    forces = np.broadcast_to(rows[0], (B,) + rows[0].shape) if models is None else np.array(
        [joint_force_array(m) for m in models]).reshape(B, -1, 7)
    springs, rotors = (None, None) if models is None else (
        np.array([body_force_rows(m)[0] for m in models]).reshape(B, -1, 11),
        np.array([body_force_rows(m)[1] for m in models]).reshape(B, -1, 5))
    actuation = [rows[3]] * B if models is None else [actuation_arrays(m)[0] for m in models]
    ctrl_times, ctrl_values = rows[4]
    threads = max(1, min(B, int(threads or numba.config.NUMBA_NUM_THREADS or os.cpu_count() or 1)))
    if (code in (RK4, EULER) and max_steps is None and not rows[1].shape[0] + rows[2].shape[0] + rows[3][0].shape[0]
            and not len(events) and tau[0].shape[0] == 1 and lockstep.applies(model if models is None else models[0])):
        return _lockstep(cm, params, code, tau[1][:, 0], forces, X0, t_start, t_eval, dt_, X_out, threads, method,
                         rtol, atol, dt)

    logs = [np.zeros((0, 2))] * B
    no_ring = ring(X0.shape[1], cm.nv, 0, 0)

    def one(b):  # the compiled loop releases the GIL: the threads run in parallel
        arrays = (cm.topology, params if models is None else params[b], cm.gravity)
        elements = ((rows[0], rows[1], rows[2]) if models is None else (forces[b], springs[b], rotors[b])) + (
            actuation[b], (ctrl_times, ctrl_values[b]))
        status[b], count[b], logs[b] = run_with_events(
            arrays, code, (tau[0], tau[1][b]), elements, X0[b].copy(), t_start, t_eval, float(rtol_), float(atol_),
            h_max, h_first, dt_, steps, X_out[b], stats[b], watched, no_ring)
    in_threads(one, B, threads)
    info = _info(method, rtol, atol, dt, stats.sum(axis=0), OK)
    info.update(status=[STATUS[int(s)] for s in status], samples=count, t_reached=stats[:, T_REACHED],
                events=[_named(log, names) for log in logs])
    return t_eval, X_out[..., :cm.nq], X_out[..., cm.nq:], info


def _lockstep(cm, params, code, tau, rows, X0, t_start, t_eval, dt, X_out, threads, method, rtol, atol, dt_given):
    """:func:`integrate_tree_batch` by :func:`multibody.simulate.lockstep.lockstep` (trees of revolute and
    prismatic joints, fixed steps): LANES runs at a time, one vectorized ABA per stage for all of them."""
    stats, counts = np.zeros(5), np.zeros(X0.shape[0], dtype=np.int64)  # stats[STOP]: Ctrl-C (_interruptible)
    # writable C-contiguous copies (not the broadcast or read-only views): one specialization of the kernels per
    # params layout (shared or per run), whatever the torque and joint force rows came as
    tau, rows = np.array(tau, dtype=float, order="C"), np.array(rows, dtype=float, order="C")
    _interruptible(lambda: lockstep.lockstep(cm.topology, params, cm.gravity, code == EULER, tau, rows, X0,
                                             t_start, t_eval, dt, X_out, stats[STOP:], counts, threads), stats)
    spans = np.diff(np.r_[t_start, t_eval])
    steps_per_run = int(np.sum(np.where(spans > 0, np.ceil(spans / dt * (1.0 - 1e-12)), 0)))
    finite = np.isfinite(X_out).all(axis=2)
    blown = ~finite.all(axis=1)
    counts = np.where(blown, np.argmin(finite, axis=1), counts)  # a run that blew up: its finite samples
    X_out[blown] = np.where(np.arange(len(t_eval))[:, None] < counts[blown, None, None], X_out[blown], np.nan)
    status = np.where(blown, NONFINITE, np.where(counts < len(t_eval), INTERRUPTED, OK))
    totals = np.array([(4 if code == RK4 else 1) * steps_per_run * X0.shape[0], steps_per_run * X0.shape[0], 0.0,
                       float(t_eval[-1]), 0.0])
    info = _info(method, rtol, atol, dt_given, totals, OK)
    info.update(status=[STATUS[int(s)] for s in status], samples=counts,
                t_reached=np.where(counts > 0, t_eval[np.maximum(counts - 1, 0)], t_start),
                events=[[] for _ in range(X0.shape[0])], lockstep=True)
    return t_eval, X_out[..., :cm.nq], X_out[..., cm.nq:], info


def torque_table(tau, nv):
    """(times (T,), values (T, nv)) of a torque for the compiled loop: a TorqueTable's rows, or one row for a
    constant τ (nv,) (zero for None); a table given as such passes through. A TorqueTable's read-only arrays come
    as writable copies: a read-only array is another numba specialization of the kernels, compiled again."""
    if isinstance(tau, tuple):
        return tau
    if isinstance(tau, TorqueTable):
        return tuple(np.array(part) for part in tau.table(nv))
    return np.zeros(1), (np.zeros(nv) if tau is None else np.ascontiguousarray(tau, dtype=float)).reshape(1, nv)


def tree_trajectory(model, t, q, v, info, tau=None, rates=None, ctrl=None, rows=None):
    """The :class:`~multibody.Trajectory` of samples from :func:`integrate_tree`, with the accelerations and the
    applied generalized forces (the torque, constant or tabulated, and the force elements, the actuators at the
    controls ``ctrl``) at each sample, computed when first read (:class:`~.trajectory.RatesWhenRead`,
    :func:`tree_rates`), and the events of ``info`` (moved from it to ``Trajectory.events``). ``rates``: (A (≥ T,
    nv), TAU (≥ T, nv), first), the accelerations and applied forces already computed at the samples from ``first``
    on. ``rows``: the force rows and control table the run took (:func:`force_arrays`), in place of ``ctrl``."""
    info = dict(info)
    rows = force_arrays(model, control_table(model, ctrl)) if rows is None else rows
    cm = model._compiled or model.compile()  # (the model's arrays as it ran, which an edit after the run replaces)
    return RatesWhenRead(model, t, q, v, (tree_rates, ((cm.topology, cm.params, cm.gravity), cm.nv, tau, rows, rates)),
                         events=info.pop("events", ()), info=info)


def sampled_trajectory(model, t, q, v, info):
    """The :class:`~multibody.Trajectory` of samples from :func:`integrate_tree` with the events of ``info`` (moved
    from it to ``Trajectory.events``); :func:`add_rates` fills in its accelerations and applied forces."""
    from .trajectory import Trajectory
    info = dict(info)
    return Trajectory(model, t, q, v, events=info.pop("events", ()), info=info)


def no_force_rows(nq, nv):
    """:func:`force_arrays` of a model without force elements, at zero controls."""
    return (np.zeros((0, 7)), np.zeros((0, 11)), np.zeros((0, 5)),
            (np.zeros((0, LINE_WIDTH)), np.zeros((0, nq)), np.zeros((0, nv))), (ONE_TIME, np.zeros((1, 0))))


def add_rates(trajectory, tau, rows, rates=None):
    """Fill in ``trajectory.a`` and ``trajectory.tau`` (T, nv) of :func:`sampled_trajectory` (:func:`tree_rates`)."""
    cm = trajectory.model._compiled or trajectory.model.compile()
    trajectory.a, trajectory.tau = tree_rates(trajectory, (cm.topology, cm.params, cm.gravity), cm.nv, tau, rows, rates)


def tree_rates(trajectory, arrays, nv, tau, rows, rates=None):
    """(a, tau) (T, nv) at the samples of a compiled tree run: the accelerations and the applied generalized forces
    (the torque ``tau``, constant or tabulated, and the force elements and controls ``rows`` of
    :func:`force_arrays`) of the model's ``arrays`` (topology, params, gravity). ``rates``: (A (≥ T, nv),
    TAU (≥ T, nv), first), those already computed at the samples from ``first`` on."""
    q, v, count = trajectory.q, trajectory.v, len(trajectory)
    a, taus = np.full((count, nv), np.nan), np.zeros((count, nv))
    tau = torque_table(tau, nv)
    first = count if rates is None else min(rates[2], count)
    if rates is not None:
        a[first:], taus[first:] = rates[0][first:count], rates[1][first:count]
    X = np.concatenate([q[:first], v[:first]], axis=1)
    times = np.ascontiguousarray(trajectory.t[:first], dtype=float)
    if rows[1].shape[0] + rows[2].shape[0]:  # springs or rotors: with their Σ Jᵀ f, sample by sample
        sample_rates(arrays, tau, rows, times, X, q.shape[1], a[:first], taus[:first])
    else:  # every sample's accelerations at once, SIMD across samples and on numba's threads (the batched ABA)
        sample_torques(tau, rows, times, X, q.shape[1], taus[:first])
        aba_batch(*arrays, np.ascontiguousarray(q[:first]), np.ascontiguousarray(v[:first]), taus[:first],
                  np.zeros((1, 0, 6)), a[:first], numba.get_num_threads())
    return a, taus
