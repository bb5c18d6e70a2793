"""``simulate(..., method="contact")`` in the compiled loop: the whole contact time step in numba between output
times (:mod:`._contact_kernel`), one run or many at once across threads.

It takes the models and runs the Python step (:func:`multibody.constraints.integrate.contact_step`) would take
without Python callables: equality constraints only of the types with arrays (:class:`~multibody.Connect`,
:class:`~multibody.Weld`, :class:`~multibody.Align`, :class:`~multibody.PointOnPlane`, :class:`~multibody.Mimic`,
:class:`~multibody.LinearCoupling`; joint and tendon limits are fine), every pair of shapes the compiled detection
takes (:func:`~multibody.constraints._narrow.detect_contacts`), a constant torque or a
:class:`~multibody.TorqueTable`, the compiled force elements, no ``f_ext``, no events. Anything else takes the Python loop, said once by :func:`~.planning.python_loop_notice`. The two give the
same trajectories (the same compiled pieces in the same order; a step whose LCP Lemke's method cannot solve is taken
by the Python step, with its Gauss–Seidel fallback). Ctrl-C stops a run at its next step, keeping the samples
(:func:`~.compiled._interruptible`).
"""
from __future__ import annotations

import os

import numpy as np

from ..constraints.contact import detection_arrays, pair_coefficients
from ..constraints.integrate import BOUNCE_VELOCITY, ERP, MARGIN, contact_step, step_settings
from ..constraints.limits import bound_arrays
from ..constraints.types import equality_arrays, uncompiled_equalities
from ..dynamics._threads import in_threads
from ..errors import SimulationError, SimulationInterrupted
from . import _contact_kernel as kernel
from .compiled import (INLINE_STEPS, _interruptible, _with_reached, force_arrays, inputs_unsupported,
                       torque_table)
from .actuators import control_table
from .python_loop import generalized_forces, normalizer
from .trajectory import RatesWhenRead
from .tree_rates import INTERRUPTED, OK, STATUS, STEPS, T_REACHED, sample_rates


def unsupported(model, torque=None, f_ext=None, events=(), dynamics=None):
    """Why the compiled contact loop cannot run this simulation ("" if it can). What the model alone decides (its
    equality constraints without a compiled form, flexible beams, force elements the loop does not compile) is kept
    with its compiled model, when it has one (any edit drops it)."""
    cm = model._compiled
    kept = None if cm is None else cm.derived.get("contact_loop_model")
    if kept is None:
        equalities = uncompiled_equalities(model)
        kept = (f"the model has equality constraints without a compiled form ({type(equalities[0]).__name__} first)"
                if equalities else "the model has flexible beams" if model.ne else "", inputs_unsupported(model))
        if cm is not None:
            cm.derived["contact_loop_model"] = kept
    if kept[0]:
        return kept[0]
    if events:
        return "events are given"
    if dynamics is not None:
        return "custom dynamics are given"
    return inputs_unsupported(model, torque, f_ext) if kept[1] or torque is not None or f_ext is not None else ""


def _arrays(model, dt, limits, ctrls, plan_kept=None):
    """The compiled loop's arguments but the torque, the state and the outputs, one tuple (model, forces, shapes,
    limits, settings, cone, tolerances, equalities) per entry of ``ctrls`` (the actuators' controls of a run:
    None, (nu,) or a TorqueTable); the runs share every array but their forces (the kernel only reads them). The
    tuple at zero controls is kept with the compiled model (:func:`_model_arrays`), and in ``plan_kept`` (the dict a
    kept plan holds for its backend, :class:`~.planning.KeptPlan`, whose key and settings cover what
    :func:`_model_arrays` compares) for the next runs of the plan."""
    kept = None if plan_kept is None else plan_kept.get("contact_arrays")
    if kept is None:
        kept = _model_arrays(model, dt, limits)
        if plan_kept is not None:
            plan_kept["contact_arrays"] = kept
    return [kept if ctrl is None else (kept[0], _forces(model, ctrl), *kept[2:]) for ctrl in ctrls]


def _forces(model, ctrl):
    """The force rows and control table of the controls ``ctrl`` (:func:`~.compiled.force_arrays`)."""
    controls = tuple(np.array(part, dtype=float) for part in control_table(model, ctrl))
    return force_arrays(model, controls)


def _model_arrays(model, dt, limits):
    """:func:`_arrays`' tuple at zero controls, kept in the compiled model's ``derived`` (which any edit of the model
    drops) while the step ``dt``, the contact pairs, their coefficients
    (:func:`~multibody.constraints.contact.pair_coefficients`) and the limits' bound rows (:func:`bound_arrays`, found
    by identity) are the same."""
    cm = model._compiled or model.compile()
    geometries, pairs, capacity = detection_arrays(model)  # (contact_pairs' warning, once, when found)
    coefficients = pair_coefficients(model, pairs)
    bounds = bound_arrays(model, limits)[1:]
    kept = cm.derived.get("contact_loop_arrays")
    if (kept is not None and kept[0] == dt and kept[1] is pairs and kept[2] is coefficients
            and kept[3] is bounds[0]):
        return kept[4]
    shapes = (geometries, pairs, capacity, *coefficients)
    settings, cone, tolerances = step_settings(MARGIN, ERP, BOUNCE_VELOCITY)
    g = np.asarray(model.gravity, dtype=float)
    settings = np.concatenate([settings, [float(dt), float(np.sqrt(g @ g))]])
    equalities = equality_arrays(model)  # (the constraints layer's arrays first, then the force elements' rows)
    arrays = ((cm.topology, cm.params, cm.gravity), _forces(model, None), shapes, bounds, settings, cone, tolerances,
              equalities)
    cm.derived["contact_loop_arrays"] = (float(dt), pairs, coefficients, bounds[0], arrays)
    return arrays


def _torque(model, torque):
    """The torque table (times (T,), values (T, nv)) of ``torque`` (:func:`~.compiled.torque_table`) as writable
    arrays, one compiled signature for all (the loop only reads them); the zero torque's kept with the compiled
    model."""
    if torque is not None:
        return tuple(np.array(part, dtype=float) for part in torque_table(torque, model.nv))
    derived = (model._compiled or model.compile()).derived
    zero = derived.get("contact_loop_no_torque")
    if zero is None:
        zero = derived["contact_loop_no_torque"] = torque_table(None, model.nv)
    return zero


def _stepper(model, arrays, tau, torque, ctrl, limits):
    """run(x, clock, t_eval, x_out, stats) -> status: the compiled loop (``tau``: :func:`_torque`'s table of the
    torque ``torque``), with the Python step taking the steps
    whose LCP Lemke's method cannot solve, from the clock's time through t_eval (its normalizer and forces made at
    the first such step: most runs have none). The last step's LCP basis, the guess of the next step's, is kept
    from call to call."""
    nq = model.nq
    python_step = []  # (normalized, forces) of the Python step, once it is needed
    given = np.empty(model.nq + model.nv)
    shapes, bounds, cone = arrays[2], arrays[3], arrays[5]
    rows = shapes[2] + bounds[1].shape[0]
    basis = (np.zeros(rows, dtype=np.int64), np.zeros((rows, cone.shape[0] + 2), dtype=bool), np.zeros(1, dtype=np.int64))

    def run(x, clock, t_eval, x_out, stats):
        t_eval = np.ascontiguousarray(t_eval, dtype=float)
        while True:
            status = kernel.contact_run(arrays[0], tau, *arrays[1:], x, clock, given, t_eval, x_out, stats, basis)
            if status != kernel.UNSOLVED:
                return status
            if not python_step:
                python_step.extend((normalizer(model), generalized_forces(model, torque, None, ctrl)))
            normalized, forces = python_step
            t, h = clock[kernel.TIME], clock[kernel.STEP]
            q, v = normalized(x[:nq]), x[nq:]
            q, v = contact_step(model, q, v, h, forces(t, q, v), limits=limits)
            given[:nq], given[nq:] = normalized(q), v
            clock[kernel.GIVEN] = 1.0
    return run


def _run(run, x, clock, t_eval, x_out, stats, dt):
    """run's status through t_eval: the output times within INLINE_STEPS steps of dt on this thread, the rest on a
    worker that Ctrl-C stops at its next step (:func:`~.compiled._interruptible`)."""
    inline = clock[kernel.TIME] + INLINE_STEPS * dt
    first = len(t_eval) if t_eval[-1] <= inline else int(np.searchsorted(t_eval, inline, side="right"))
    status = OK
    if first > clock[kernel.NEXT]:
        try:
            status = run(x, clock, t_eval if first == len(t_eval) else t_eval[:first], x_out, stats)
        except KeyboardInterrupt:  # (raised when the call has returned: x, the clock and the samples are whole)
            status = INTERRUPTED
    if status == OK and clock[kernel.NEXT] < len(t_eval):
        status = _interruptible(lambda: run(x, clock, t_eval, x_out, stats), stats)
    return status


def _start(q0, v0, t_start, t_eval):
    """(x, clock, x_out): the initial state (as simulate's entry checked it, quaternions normalized:
    :func:`~multibody.simulate.torques.initial_state`), the clock at t_start, and the outputs with the samples at
    t_start written (the rows past them are written by the loop as it reaches them; only those are read)."""
    x = np.concatenate((q0, v0))
    first = int(t_eval.searchsorted(t_start, side="right"))  # (the samples at t_start: one, mostly)
    x_out = np.empty((len(t_eval), x.shape[0]))
    x_out[:first] = x
    return x, np.array([t_start, 0.0, 0.0, first, 0.0]), x_out


def _info(dt, stats, status):
    return {"method": "contact", "dt": float(dt), "nfev": 0, "steps": int(stats[STEPS]), "status": STATUS[status],
            "t_reached": float(stats[T_REACHED]), "compiled": True}


def _trajectory(model, t_eval, x, clock, x_out, stats, status, dt, tau, rows):
    """The run's Trajectory, or (its partial Trajectory, error) when it stopped early; ``tau`` and ``rows``: the
    torque table and the force rows with the controls the run took (:func:`_sampled`)."""
    count = int(clock[kernel.NEXT])
    info = _info(dt, stats, status)
    t, X = t_eval[:count], x_out[:count]
    if status == OK:
        return _sampled(model, t, X, info, tau, rows), None
    if status == INTERRUPTED:
        info["interrupted"] = True
    nq = model.nq
    t, q, v, _ = _with_reached(t, X[:, :nq], X[:, nq:], float(stats[T_REACHED]), x, nq)
    X = np.concatenate([q, v], axis=1)
    finite = np.all(np.isfinite(X), axis=1)
    partial = _sampled(model, t[finite], X[finite], info, tau, rows)
    time = float(stats[T_REACHED])
    if status == INTERRUPTED:
        return partial, SimulationInterrupted(f"simulation of '{model.name}' interrupted at t = {time:.6g} s",
                                              time=time, trajectory=partial)
    return partial, SimulationError(f"state became non-finite at t = {time:.6g} s", time=time, trajectory=partial)


def _sampled(model, t, X, info, tau, rows):
    """The :class:`ContactTrajectory` of the samples at times t (T,), states X (T, nq + nv)."""
    return ContactTrajectory(model, np.ascontiguousarray(t, dtype=float), np.ascontiguousarray(X), info, tau, rows)


class ContactTrajectory(RatesWhenRead):
    """The :class:`~multibody.Trajectory` of a run of the compiled contact loop, whose applied generalized forces
    ``tau`` and accelerations ``a`` at the samples are computed when first read, all at once in one compiled call
    (:func:`~.tree_rates.sample_rates`, :class:`~.trajectory.RatesWhenRead`): a run that does not read them does not
    pay for them (some 1 µs a sample).

    ``tau``: the torque (a table) and the force elements and controls the run took
    (:func:`~.compiled.force_arrays`); ``a``: the free acceleration of each sample, the forward dynamics (ABA) of
    its state under ``tau``, without the contact and limit impulses of the steps, as the Python step's samples
    have it. (A velocity-stepped run has no acceleration of its own at an instant: its velocity jumps at each
    step. The mean acceleration over the steps between two samples, their impulses included, is the difference
    quotient of the velocities, ``np.diff(trajectory.v, axis=0) / np.diff(trajectory.t)[:, None]``.)"""

    def __init__(self, model, t, X, info, torque, rows):
        cm = model._compiled or model.compile()
        # (the model's arrays as it ran, which an edit of the model after the run replaces)
        super().__init__(model, t, X[:, :cm.nq], X[:, cm.nq:], (_contact_rates, (
            (cm.topology, cm.params, cm.gravity), cm.nq, X, torque, rows)), info=info)


def _contact_rates(trajectory, arrays, nq, X, torque, rows):
    """(a, tau) at the samples of a :class:`ContactTrajectory` (T, nv) each, in one compiled call."""
    a, applied = np.empty((len(trajectory), X.shape[1] - nq)), np.empty((len(trajectory), X.shape[1] - nq))
    sample_rates(arrays, torque, rows, trajectory.t, X, nq, a, applied)
    return a, applied


def contact_run(model, q0, v0, t_eval, options, limits, kept=None):
    """The Trajectory of ``simulate(model, q0, v0, method="contact", ...)`` (``options``: simulate's) in the
    compiled loop, through the output times ``t_eval``; SimulationError (non-finite state) or
    SimulationInterrupted (Ctrl-C) carry the samples computed. ``kept``: the dict of the run's kept plan
    (:class:`~.planning.KeptPlan`), where the loop's arguments are kept for its next runs."""
    torque, ctrl, dt = options["torque"], options["ctrl"], options["dt"]
    arrays = _arrays(model, dt, limits, [ctrl], kept)[0]
    tau = _torque(model, torque)
    x, clock, x_out = _start(q0, v0, float(options["t_start"]), t_eval)
    stats = np.zeros(5)
    run = _stepper(model, arrays, tau, torque, ctrl, limits)
    status = _run(run, x, clock, t_eval, x_out, stats, dt)
    trajectory, error = _trajectory(model, t_eval, x, clock, x_out, stats, status, dt, tau, arrays[1])
    if error is not None:
        raise error
    return trajectory


def contact_runs(model, Q0, V0, t_eval, options, limits, controls=None, threads=None):
    """(trajectories, failures {run: (reason, time [s])}) of the runs from the rows of Q0 (B, nq), V0 (B, nv) in the
    compiled loop, across threads (each run's loop releases the GIL), with ``options["torque"]`` None, (nv,),
    (B, nv), a TorqueTable or a list of B of them, and the controls ``controls`` (None, or one entry per run:
    None, (nu,) or a TorqueTable); each run equal to its single run. Ctrl-C stops every run at its next step (their
    status "interrupted")."""
    torque, dt, B = options["torque"], options["dt"], Q0.shape[0]
    per_run = isinstance(torque, (list, tuple)) or (isinstance(torque, np.ndarray) and torque.ndim == 2)
    torques = [torque[b] for b in range(B)] if per_run else [torque] * B
    ctrls = [None] * B if controls is None else list(controls)
    arrays = _arrays(model, dt, limits, ctrls)
    starts = [_start(Q0[b], V0[b], float(options["t_start"]), t_eval) for b in range(B)]
    stats, status = np.zeros((B, 5)), np.full(B, OK)
    taus = [_torque(model, torques[b]) for b in range(B)]
    runners = [_stepper(model, arrays[b], taus[b], torques[b], ctrls[b], limits) for b in range(B)]

    def one(b):
        x, clock, x_out = starts[b]
        status[b] = runners[b](x, clock, t_eval, x_out, stats[b])
    threads = max(1, min(B, int(threads or os.cpu_count() or 1)))
    stop = stats.T  # (stop[STOP] = 1 stops every run)
    _interruptible(lambda: in_threads(one, B, threads), stop)
    trajectories, failures = [], {}
    for b in range(B):
        trajectory, error = _trajectory(model, t_eval, *starts[b][:2], starts[b][2], stats[b], int(status[b]), dt,
                                        taus[b], arrays[b][1])
        trajectories.append(trajectory)
        if error is not None:
            failures[b] = (STATUS[int(status[b])], error.time)
    return trajectories, failures
