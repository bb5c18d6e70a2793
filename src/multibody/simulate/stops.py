"""Joint limits in the compiled loop: each finite bound watched as a built-in terminal event.

The Python loop enforces the joint limits (:class:`~multibody.constraints.limit_stops.LimitStops`) with one falling
event per bound, g = ±(q − bound) + tolerance/2, whose action is the impact, after which the bound rests, held by
the contact LCP of the forward dynamics. Until the first impact that run is the plain tree's motion, which the
compiled loop integrates: :func:`run_to_limits` watches every bound there as the same zero crossing
(:class:`~multibody.JointValue` at bound ∓ tolerance/2, terminal), and at the first crossing applies the Python
loop's impact and hands the rest of the run (a bound resting on its stop) to the Python loop with the same
:class:`LimitStops`, so the trajectory is the Python loop's, the crossing located on the compiled dense output.
A run that reaches no bound stays compiled from start to end.
"""
from __future__ import annotations

from contextvars import ContextVar

import numpy as np

from ..constraints.limit_stops import LimitStops
from ..constraints.bounds import JointLimit
from ..event import Event
from .events import JointValue
from .trajectory import Trajectory

resumed_stops: ContextVar[LimitStops | None] = ContextVar("resumed_stops", default=None)
# the LimitStops (with its resting bounds) that the Python loop continues with, set while run_to_limits resumes it


def watchable(limits):
    """Whether the compiled loop can watch every bound of ``limits``: joint limits (a built-in
    :class:`~multibody.JointValue` event each); a tendon's length has no built-in event, so a run with tendon
    limits takes the Python loop."""
    return all(isinstance(limit, JointLimit) for limit in limits)


def limit_events(stops):
    """One terminal built-in event per bound of ``stops`` (joint limits, :func:`watchable`), at the zero of its
    impact event before any impact: g = q − (lower − tolerance/2) falling, or q − (upper + tolerance/2) rising;
    named as the Python loop names them ("limit <joint> lower")."""
    events = []
    for limit, side in stops.keys:
        sign, bound = (1.0, limit.lower) if side == "lower" else (-1.0, limit.upper)
        value = bound - sign * 0.5 * stops.tolerance
        events.append(Event(JointValue(limit.joint, value), name=f"limit {limit.joint} {side}", terminal=True,
                            direction=-sign))
    return events


def run_to_limits(model, q0, v0, t_end, t_eval, limits, compiled_run, python_run, kept=None):
    """The run from (q0, v0) to ``t_end`` with ``limits`` enforced: ``compiled_run(events)`` (the compiled loop's
    Trajectory of the output times ``t_eval``, watching ``events`` first) until a bound is crossed, then the
    impact and ``python_run(t, q, v, t_eval)`` (the Python loop from there, over the output times after t). The
    two parts joined in one Trajectory; ``info["compiled"]`` is True for a run that reached no bound, else the
    time [s] up to which the compiled loop ran. ``kept``: the dict of the run's kept plan
    (:class:`~.planning.KeptPlan`), where the watched events are kept for its next runs."""
    kept = {} if kept is None else kept
    if "limit_events" not in kept:
        kept["limit_events"] = limit_events(LimitStops(model, limits=limits))
    watched = kept["limit_events"]
    first = compiled_run(watched)
    state = first.info.pop("event_state", None)
    names = {event.name for event in watched}
    hit = [name for name, _ in first.events if name in names]
    if state is None or not hit:
        return first
    t_stop = float(first.info["t_reached"])
    nq = model.nq
    stops = LimitStops(model, limits=limits)  # (the run's own: the bounds resting from here on)
    q, v = stops.impact(t_stop, state[:nq], state[nq:])
    rest = t_eval[len(first.t):]
    if not rest.size:
        return first
    token = resumed_stops.set(stops)
    try:
        second = python_run(t_stop, np.asarray(q, float), np.asarray(v, float), rest)
    finally:
        resumed_stops.reset(token)
    info = dict(second.info)
    info.update(compiled=t_stop, nfev=first.info["nfev"] + info.get("nfev", 0),
                steps=first.info["steps"] + info.get("steps", 0))
    return Trajectory(model, np.r_[first.t, second.t], np.r_[first.q, second.q], np.r_[first.v, second.v],
                      np.r_[first.a, second.a], tau=np.r_[first.tau, second.tau],
                      events=[*first.events, *second.events], info=info, impacts=second.impacts,
                      drift=np.r_[first.drift, second.drift])
