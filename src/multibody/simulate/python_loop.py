"""The Python loop of :func:`multibody.simulate`: every method stepped by hand through scipy.integrate.OdeSolver (the
fixed-step ones through :class:`.fixed_step.FixedStep`, DOPRI5 ("RK45") and DOP853 through
:class:`.adaptive_solver.AdaptiveSolver` with the compiled loop's steps, the others scipy's), so that a failure keeps
the trajectory computed so far, events can reset the state and restart (impacts, joint stops), and a progress bar can
follow the simulated time.

The state is x = [q; v]: q̇ = configuration_rate(q, v) (quaternion rates for spherical and free joints) and
v̇ = dynamics(t, q, v, τ), by default the articulated-body algorithm (or ``multibody.forward_dynamics`` when the
model has constraints). τ sums the applied joint torques, the body forces mapped to the joints and the model's
force elements (springs, dampers, actuators).
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from math import isfinite
from typing import Any

import numpy as np
from scipy import integrate, optimize

from ..constraints.forward import forward_dynamics
from ..constraints.limit_stops import LimitStops
from ..dynamics import aba, generalized_gravity, rnea
from ..dynamics.kinematics import vector_field
from ..dynamics._inputs import as_state, external_forces
from ..errors import SimulationError, SimulationInterrupted
from ..model.joints import normalized_quaternions, quaternion_slices
from .actuators import control_function
from .adaptive_solver import AdaptiveSolver
from ..event import Event
from .events import BuiltinEvent
from .fixed_step import EVALUATIONS, DriftRecord, FixedStep, scheme
from .forces import elements_force
from .progress import Progress
from .stops import resumed_stops
from .trajectory import Trajectory, constraint_residuals

METHODS = {"RK45": AdaptiveSolver, "RK23": integrate.RK23, "DOP853": AdaptiveSolver,
           "Radau": integrate.Radau, "BDF": integrate.BDF, "LSODA": integrate.LSODA}
FIXED_STEP = ("RK4", "Euler", "contact")  # the fixed-step methods (a step dt)
_FLOAT64 = np.dtype(np.float64)


def as_event(event, model):
    """``event`` (an Event or a callable with optional ``name``, ``terminal``, ``direction``, ``action``) as an
    Event, a built-in event bound to ``model``."""
    if not isinstance(event, Event):
        if not callable(event):
            raise ValueError(f"simulate: events must be callables g(t, q, v) or multibody.Event, got {event!r}")
        event = Event(event, getattr(event, "name", None), bool(getattr(event, "terminal", False)),
                      float(getattr(event, "direction", 0.0)), getattr(event, "action", None))
    if isinstance(event.function, BuiltinEvent):
        event = replace(event, function=event.function.bind(model))
    return event


class UserCodeFailed(Exception):
    """A user callable (torque, f_ext, dynamics, an event or its action) raised ``error`` at time ``t``."""

    def __init__(self, what, t, error):
        super().__init__(what)
        self.what, self.t, self.error = what, float(t), error

    def simulation_error(self):
        return SimulationError(f"{self.what} raised {type(self.error).__name__} at t = {self.t:.6g} s: {self.error}",
                               time=self.t)


def guarded(function, what):
    """``function(t, ...)`` whose exceptions (anything but SimulationError) are wrapped in UserCodeFailed."""
    def call(t, *args):
        try:
            return function(t, *args)
        except (SimulationError, UserCodeFailed):
            raise
        except Exception as exc:
            raise UserCodeFailed(what, t, exc) from exc
    return call


def _applied(model, value, what, shape_check):
    """A function (t, q, v) -> value from a constant, None, or a callable."""
    if value is None:
        return None
    if callable(value):
        value = guarded(value, f"the {what} callable")
        return lambda t, q, v: shape_check(value(t, q, v))
    constant = shape_check(value)
    return lambda t, q, v: constant


def default_dynamics(model, stabilization=None):
    """v̇ = dynamics(t, q, v, τ): the ABA for a tree, ``multibody.forward_dynamics`` with constraints (Baumgarte
    gains ``stabilization`` = (α, β) [1/s] or None)."""
    if getattr(model, "constraints", None):
        return lambda t, q, v, tau: forward_dynamics(model, q, v, tau, stabilization=stabilization)
    return lambda t, q, v, tau: aba(model, q, v, tau)


def generalized_forces(model, torque=None, f_ext=None, ctrl=None):
    """τ(t, q, v) (nv,): applied joint torques + body forces mapped to the joints + force elements (the actuators
    at the controls ``ctrl``, :func:`~multibody.simulate.actuators.control_function`).

    A body force set f (rows [moment; force], body axes, about the body origin) maps to
    Σ Jᵢᵀ fᵢ = g(q) − rnea(q, 0, 0, f): the RNEA with the forces applied, minus gravity alone.
    """
    nv = model.nv
    def torque_vector(x):  # a float64 (nv,) vector as it is, else checked and broadcast (or the error naming it)
        if type(x) is np.ndarray and x.dtype is _FLOAT64 and x.shape == (nv,):
            return x
        return np.broadcast_to(as_state(x, nv, "torque"), (nv,))
    torque = _applied(model, torque, "torque", torque_vector)
    f_ext = _applied(model, f_ext, "f_ext", lambda x: external_forces(model, x))
    ctrl = control_function(model, ctrl)
    ctrl = None if ctrl is None else guarded(ctrl, "the ctrl callable")
    zero = np.zeros(nv)
    zero.flags.writeable = False
    elements = bool(getattr(model, "forces", ()))

    def tau(t, q, v):
        total = elements_force(model, q, v, None if ctrl is None else ctrl(t, q, v)) if elements else zero
        if torque is not None:
            total = total + torque(t, q, v)
        if f_ext is not None:
            total = total + generalized_gravity(model, q) - rnea(model, q, zero, zero, f_ext(t, q, v))
        return total
    return tau


def normalizer(model):
    """q ↦ q with the model's quaternions scaled to unit length (:func:`~multibody.model.joints.normalized_quaternions`)."""
    joints = tuple(model.joints)
    if not quaternion_slices(joints):  # nothing to scale: q itself, as normalized_quaternions returns it
        return lambda q: q
    return lambda q: normalized_quaternions(joints, q)


def python_run(plan):
    """One run of :func:`multibody.simulate` in the Python loop, as planned
    (:class:`~multibody.simulate.planning.RunPlan`): from (q0, v0) at ``options["t_start"]`` through the output times
    ``t_eval`` to ``t_end``, ``options`` simulate's (method, dt, tolerances, torque, ctrl, f_ext, events, dynamics,
    stabilization, projection, progress, joint_limits), ``impacts`` the run's :class:`multibody.impact.Collisions` or
    None, ``limits`` the joint limits it enforces, ``projected`` whether its fixed steps are projected."""
    model, q0, v0, t_end, t_eval, options = plan.model, plan.q0, plan.v0, plan.t_end, plan.t_eval, plan.options
    impacts, limits, method = plan.impacts, plan.limits, options["method"]
    nq, nv, t_start = model.nq, model.nv, float(options["t_start"])
    normalized = normalizer(model)
    tau = generalized_forces(model, options["torque"], options["f_ext"], options["ctrl"])
    events, accel = _events_and_dynamics(model, options, impacts, limits)
    rhs = vector_field(model, accel, tau, normalized)
    solver_at, info, record = _solvers(model, rhs, method, t_end, t_eval, options, tau, normalized, limits,
                                       plan.projected)
    finish = _finisher(model, tau, accel, normalized, record, impacts, t_start)
    ts: list[float] = []
    xs: list[np.ndarray] = []
    log: list[tuple[str, float]] = []
    x = np.concatenate([normalized(q0), v0])
    t = t_start
    clock: list[Any] = [t_start, x]  # the time and state of the last accepted step (failures outside a step; partial runs)
    history = (None, 0)  # ((event to step past or None, time of the last action), actions at that time)
    with Progress(t_end - t_start, f"simulating {model.name}", options["progress"]) as bar:
        while True:
            try:
                try:
                    t, x, stop, fired = run_segment(solver_at(t, x), t_eval, events, ts, xs, log, info, bar, nq,
                                                    normalized, clock, history[0])
                except UserCodeFailed as exc:
                    raise exc.simulation_error() from exc.error
                except (SimulationError, KeyboardInterrupt):
                    raise
                except Exception as exc:
                    raise SimulationError(f"integration failed at t = {clock[0]:.6g} s: {type(exc).__name__}: {exc}",
                                          time=clock[0]) from exc
                history = check_progress(events, fired, t, history)
            except SimulationError as exc:
                raise SimulationError(str(exc), time=exc.time, trajectory=finish(
                    *with_reached(ts, xs, clock), log, info, partial=True)) from (exc.__cause__ or exc)
            except KeyboardInterrupt as exc:
                info["interrupted"] = True
                raise SimulationInterrupted(f"simulation of '{model.name}' interrupted at t = {clock[0]:.6g} s",
                                            time=clock[0], trajectory=finish(*with_reached(ts, xs, clock), log, info,
                                                                             partial=True)) from exc
            if stop or t >= t_end:
                break
    return _finished(model, finish, ts, xs, log, info, t)


def _finished(model, finish, ts, xs, log, info, t):
    """The Trajectory of the samples (``finish``): a Ctrl-C, or user code failing, while the forces and
    accelerations are evaluated at them keeps the states."""
    try:
        return finish(ts, xs, log, info)
    except KeyboardInterrupt as exc:  # while evaluating τ and v̇ at the samples: the states are all there
        info["interrupted"] = True
        raise SimulationInterrupted(f"simulation of '{model.name}' interrupted after reaching t = {t:.6g} s",
                                    time=t, trajectory=finish(ts, xs, log, info, partial=True, forces=False)) from exc
    except UserCodeFailed as exc:  # user code failing at a sample it had not been called at: keep the states
        error = exc.simulation_error()
        raise SimulationError(f"{error} (while evaluating the forces at the output samples)", time=exc.t,
                              trajectory=finish(ts, xs, log, info, partial=True, forces=False)) from exc.error


def _events_and_dynamics(model, options, impacts, limits):
    """The run's events (as :class:`Event`, built-in ones bound to the model) and v̇ = accel(t, q, v, τ): the given
    ``dynamics`` or the default, with the impact events and dynamics of ``impacts`` or of the joint stops."""
    dynamics = options["dynamics"]
    events = [as_event(e, model) for e in options["events"]]
    accel = (guarded(dynamics, "the dynamics callable") if dynamics is not None
             else default_dynamics(model, options["stabilization"]))
    if impacts is not None:
        return [*impacts.events(), *events], impacts.dynamics
    if limits and options["method"] != "contact" and not getattr(dynamics, "handles_joint_limits", False):
        # joint limits: an impact event per bound, the bounds at rest held by the contact LCP
        stops = resumed_stops.get() or LimitStops(model, limits=limits)  # (resumed after a compiled part)
        return [*stops.events(), *events], stops.dynamics if dynamics is None else accel
    return events, accel


def _solvers(model, rhs, method, t_end, t_eval, options, tau, normalized, limits, projected):
    """(solver_at(t, x), info, record): the OdeSolver of ``method`` from (t, x), the run's info and the
    DriftRecord of ``projected`` fixed steps (or None)."""
    if method in FIXED_STEP:
        dt = options["dt"]
        record = DriftRecord() if projected else None
        step = scheme(model, method, tau, normalized, projected, limits)

        def fixed_at(t, x):
            return FixedStep(rhs, t, x, t_end, step=step, dt=dt, t_eval=t_eval, evaluations=EVALUATIONS[method],
                             smooth=method != "contact", record=record)
        return fixed_at, {"method": method, "dt": float(dt), "nfev": 0, "steps": 0}, record
    rtol, atol, max_step, nq = options["rtol"], options["atol"], options["max_step"], model.nq

    def adaptive_at(t, x):
        if METHODS[method] is AdaptiveSolver:
            return AdaptiveSolver(rhs, t, x, t_end, method=method, rtol=rtol, atol=atol, max_step=max_step,
                                  normalize=lambda y: np.concatenate([normalized(y[:nq]), y[nq:]]))
        return METHODS[method](rhs, t, x, t_end, rtol=rtol, atol=atol, max_step=max_step)
    return adaptive_at, {"method": method, "rtol": rtol, "atol": atol, "nfev": 0, "steps": 0}, None


def _finisher(model, tau, accel, normalized, record, impacts, t_start):
    """finish(ts, xs, log, info, partial=False, forces=True): the Trajectory of the samples (times ts, states xs),
    with τ and v̇ evaluated at them (NaN for a ``partial`` run whose user code fails there again, or without
    ``forces``) and the constraint drift (the residuals before projection where steps were projected)."""
    nq, nv = model.nq, model.nv

    def finish(ts, xs, log, info, partial=False, forces=True):
        xs = np.array(xs).reshape(len(ts), nq + nv)
        q, v = normalized(xs[:, :nq]), xs[:, nq:]
        try:
            if not forces:
                raise UserCodeFailed("finish", ts[-1] if ts else t_start, None)
            taus = np.array([tau(t, qi, vi) for t, qi, vi in zip(ts, q, v)]).reshape(len(ts), nv)
            a = np.array([accel(t, qi, vi, ti) for t, qi, vi, ti in zip(ts, q, v, taus)]).reshape(len(ts), nv)
            drift = constraint_residuals(model, q, v)
        except (Exception, KeyboardInterrupt):
            if not partial:
                raise
            # the user code that failed may fail on the samples too, and a second Ctrl-C must not lose the states
            taus = a = np.full((len(ts), nv), np.nan)
            drift = np.full((len(ts), constraint_residuals(model, q[:0], v[:0]).shape[1]), np.nan)
        for k, t in enumerate(ts if record is not None else ()):  # the residuals before projection
            if t in record.at:
                drift[k] = record.at[t]
        return Trajectory(model, np.array(ts, dtype=float), q, v, a, tau=taus, events=log, info=info,
                          impacts=impacts.records if impacts is not None else (), drift=drift)
    return finish


def check_progress(events, fired, t, history):
    """After an action at time t: the crossing to step past in the next segment, and the stall count.

    ``fired`` is None or (event index, whether its action left the state unchanged); ``history`` is
    (skip, stalled) of the previous segment. An action that left the state unchanged is stepped past: the same
    event crossing again at the same time (its root within 1e-9 relative of t) is ignored in the next segment,
    where it would otherwise fire forever. More than MAX_STALLED actions without time advancing raise
    SimulationError naming the event.
    """
    if fired is None:
        return None, 0
    k, unchanged = fired
    (previous, stalled) = history
    same_time = previous is not None and abs(t - previous[1]) <= _SAME_TIME * max(1.0, abs(t))
    stalled = stalled + 1 if same_time else 1
    if stalled > MAX_STALLED:
        raise SimulationError(f"event '{events[k].name}': {MAX_STALLED} event actions at t = {t:.9g} s without "
                              f"time advancing (the action does not move the state away from the event)", time=t)
    return (k if unchanged else None, t), stalled


MAX_STALLED = 100  # event actions in a row at the same time before simulate gives up
_SAME_TIME = 1e-9  # relative time window of "the same time" for event roots


def with_reached(ts: list[float], xs: list[np.ndarray],
                  clock: list[Any]) -> tuple[list[float], list[np.ndarray]]:
    """The samples (times ``ts``, states ``xs``) of a stopped run followed by the state it reached (``clock``: the
    time and state of its last accepted step) when that is finite and later than the last sample."""
    t, x = clock
    if (ts and t <= ts[-1]) or not np.all(np.isfinite(x)):
        return ts, xs
    return [*ts, t], [*xs, np.array(x, dtype=float)]


def run_segment(solver, t_eval, events, ts, xs, log, info, bar, nq, normalized, clock, skip=None):
    """Step ``solver`` to its end or to the first terminal/action event; append outputs and events.

    Returns (time, state, stopped, fired): the state after an event's action when the run should restart;
    ``fired`` is None or (index of the event whose action ran, whether the action left the state unchanged).
    ``clock`` follows the time and state of the last accepted step. ``skip`` = (event index or None, time): a crossing
    of that event at that time was handled by an action that left the state unchanged and is not fired again.
    """
    def g(event, t, x):
        try:
            return float(event.function(t, normalized(x[:nq]), x[nq:]))
        except (SimulationError, UserCodeFailed):
            raise
        except Exception as exc:
            raise UserCodeFailed(f"event '{event.name}'", t, exc) from exc

    for _ in t_eval[t_eval == solver.t] if not ts else ():  # the samples at the start time (repeated ones too)
        ts.append(solver.t)
        xs.append(solver.y.copy())
    values = [g(e, solver.t, solver.y) for e in events]
    nfev = 0
    times, t_first = t_eval.tolist(), t_eval[0]  # (the output times as floats: compared per step)
    while solver.status == "running":
        t_old = solver.t
        try:
            message = solver.step()
        except (ValueError, FloatingPointError, ArithmeticError) as exc:
            raise SimulationError(f"integration failed at t = {t_old:.6g} s: {exc}", time=t_old) from exc
        t, y = solver.t, solver.y
        clock[:] = t, y
        info["steps"] += 1
        info["nfev"] += solver.nfev - nfev
        nfev = solver.nfev
        if solver.status == "failed":
            raise SimulationError(f"integration failed at t = {t_old:.6g} s: {message}", time=t_old)
        if not isfinite(y @ y) and not np.all(np.isfinite(y)):  # (y·y finite: every entry is)
            raise SimulationError(f"state became non-finite at t = {t:.6g} s", time=t_old)
        dense = solver.dense_output() if events else None  # (else made where an output time needs it)
        crossings = []
        for k, event in enumerate(events):
            new = g(event, t, y)
            rising, falling = values[k] < 0 <= new, values[k] > 0 >= new
            if (rising and event.direction >= 0) or (falling and event.direction <= 0):
                root = optimize.brentq(lambda s: g(event, s, dense(s)), t_old, t, xtol=1e-12, rtol=1e-15)
                if not (skip is not None and skip[0] == k and root - skip[1] <= _SAME_TIME * max(1.0, abs(root))):
                    crossings.append((root, k))
            values[k] = new
        if crossings:
            crossings.sort()
            stopping = [(tc, k) for tc, k in crossings if events[k].terminal or events[k].action is not None]
            t_stop = stopping[0][0] if stopping else t
            log.extend((events[k].name, tc) for tc, k in crossings if tc <= t_stop)
        else:
            stopping, t_stop = None, t
        j = bisect_right(times, t_old)  # the output times in (t_old, t_stop]
        if j < len(times) and times[j] <= t_stop:
            dense = dense or solver.dense_output()
            while j < len(times) and times[j] <= t_stop:
                ts.append(times[j])
                xs.append(dense(times[j]))
                j += 1
        info["nfev"] += solver.nfev - nfev  # (its dense output's, where it was evaluated)
        nfev = solver.nfev
        bar.update(t_stop - t_first)
        if stopping:
            k = stopping[0][1]
            event, x = events[k], dense(t_stop)
            clock[:] = t_stop, x
            if event.action is None:
                return t_stop, x, True, None
            q, v = guarded(event.action, f"the action of event '{event.name}'")(t_stop, normalized(x[:nq]), x[nq:])
            after = np.concatenate([normalized(np.asarray(q, float)), np.asarray(v, float)])
            unchanged = after.shape == x.shape and np.array_equal(after, np.concatenate([normalized(x[:nq]), x[nq:]]))
            return t_stop, after, event.terminal, (k, unchanged)
    return solver.t, solver.y, False, None
