"""The planning of :func:`multibody.simulate`: the checks of its options, what a run meets in the model, the output
times, and which backend runs it — the compiled contact loop (:mod:`.contact_loop`), the compiled loop
(:mod:`.compiled`), the compiled loop up to the first joint stop (:mod:`.stops`), or the Python loop
(:mod:`.python_loop`) — with the notices and warnings that go with the choice. A run is planned once, into a
:class:`RunPlan` (:func:`planned_run`), several runs at once into a :class:`BatchPlan` (:func:`planned_runs`), which
the backends take as checked.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, NamedTuple

import numpy as np

from ..constraints.contact import pairs_and_unsupported, warn_overlapping_shapes
from ..constraints.integrate import joint_force_slope
from ..constraints.limits import bound_arrays, enforced_limits, limit_sides, stored_limits
from ..dynamics import crba
from .actuators import compiled_controls, control_function, per_run_controls
from .python_loop import FIXED_STEP, METHODS
from .stops import watchable
from .torques import TorqueTable, per_run_tables

COMPILED = {"DOP853": "DOP853", "RK45": "DOPRI5", "RK4": "RK4", "Euler": "Euler"}  # methods with compiled twins


def check_method(method, dt, dynamics, collisions):
    """ValueError for an unknown method, a missing or refused step dt, or options the method cannot take (the
    options alone: what the run meets in the model is read after them, :func:`model_reads`)."""
    if method not in METHODS and method not in FIXED_STEP:
        raise ValueError(f"simulate: unknown method {method!r}; choose one of {', '.join([*METHODS, *FIXED_STEP])}")
    if method in FIXED_STEP and not (dt is not None and np.isfinite(dt) and dt > 0):
        raise ValueError(f"simulate: method {method!r} takes fixed steps: give the step dt > 0 [s], got {dt!r}")
    if method not in FIXED_STEP and dt is not None:
        raise ValueError(f"simulate: dt is the step of the fixed-step methods ({', '.join(FIXED_STEP)}); {method!r} "
                         "chooses its own steps (bound them with max_step)")
    if dynamics is not None and collisions:
        raise ValueError("simulate: collisions bring their own dynamics; give dynamics or collisions, not both")
    if method == "contact" and (dynamics is not None or collisions):
        given = {"dynamics": dynamics is not None, "collisions": collisions}
        refused = [name for name, value in given.items() if value]
        raise ValueError(f"simulate: the contact scheme computes the contact and constraint forces itself and "
                         f"takes no {' or '.join(refused)}; use another method")

class RunPlan(NamedTuple):
    """One run of :func:`multibody.simulate`, checked once and planned (:func:`planned_run`), as its backend takes
    it."""

    model: Any
    q0: np.ndarray  # (nq,) checked, quaternions unit
    v0: np.ndarray  # (nv,)
    t_end: float  # [s]
    t_eval: np.ndarray  # the output times [s]
    options: dict  # simulate's options, ``compiled`` False where the controls are a Python callable
    impacts: Any  # the run's multibody.impact.Collisions, or None
    limits: list  # the joint limits the run enforces
    stored: list  # the limits stored with the joints and tendons (warn_beyond_limits)
    projected: bool  # whether the fixed steps are projected onto the equality constraints
    backend: str  # "contact", "stops", "compiled" or "python"
    refusal: str  # why the compiled loops refuse a run they could take ("" if none did), for python_loop_notice
    kept: dict  # what the backend keeps for the next runs of the same model and options (:class:`KeptPlan`)


class KeptPlan(NamedTuple):
    """What a run's plan reads from the model and its options alone, not from its initial state, output times or
    inputs (:func:`planned_run`): kept with the compiled model (which any edit of the model drops) for the next runs
    with the same options (:func:`plan_key`) while the model's settings outside its parts are the same
    (:func:`model_settings`: name, contact pairs' rules, the limits' bounds)."""

    settings: tuple  # model_settings(model) when planned
    refusal: str | None  # compiled_refusal of the options
    impacts: Any  # the run's multibody.impact.Collisions, or None
    limits: list
    stored: list
    projected: bool
    backend: str
    backend_kept: dict  # what the backend keeps from run to run (its compiled loop's arguments)


KEPT_PLANS = 32  # plans kept with a compiled model (one per options of simulate), dropped all at once beyond


def plan_key(options):
    """The options a :class:`KeptPlan` depends on, or None for a run planned afresh each time: event-driven
    collisions, events, body forces ``f_ext``, custom ``dynamics``, a progress bar, or a torque or controls that are
    Python callables (what the plan reads of those is read anew each run)."""
    torque, ctrl = options["torque"], options["ctrl"]
    if (options["events"] or options["f_ext"] is not None or options["dynamics"] is not None
            or options["collisions"] not in (False, None) or options["progress"] is True
            or (callable(torque) and not isinstance(torque, TorqueTable)) or not compiled_controls(ctrl)):
        return None
    key = (options["method"], options["dt"], options["rtol"], options["atol"], options["max_step"],
           options["compiled"], options["progress"], options["joint_limits"], options["projection"])
    try:
        hash(key)
    except TypeError:  # (an option given as an array: planned afresh, its checks as they are)
        return None
    return key


def model_settings(model):
    """What a kept plan depends on that an edit of the model does not drop with its compiled model: its name (in
    the warnings), the contact pairs' rules (``filter_parent``, ``friction_rule``, ``pair_friction``) and the
    targets and bounds of its limit constraints (:class:`~multibody.JointLimit`, :class:`~multibody.TendonLimit`:
    constraints, which can be edited in place; compared as :func:`~multibody.constraints.limits.bound_arrays`
    compares them). The limits stored with the joints and tendons are parts of the model. A snapshot: the pairs'
    friction dict is copied, so that an edit of it in place is seen."""
    constraints = model.constraints
    bounds = tuple((id(c), c.target, c.lower, c.upper, c.restitution) for c in constraints
                   if getattr(c, "unilateral", False)) if constraints else ()
    return model.name, model.filter_parent, model.friction_rule, dict(model.pair_friction), bounds


def kept_plan(model, key):
    """The :class:`KeptPlan` of the options ``key`` (:func:`plan_key`) kept with the compiled model, or None."""
    if key is None:
        return None
    kept = (model._compiled or model.compile()).derived.get("plans", {}).get(key)
    if kept is None or kept.settings != model_settings(model):
        return None
    return kept


def keep_plan(model, key, kept):
    """Keep ``kept`` for the options ``key`` (None: not kept) with the compiled model; returns it."""
    if key is not None:
        plans = (model._compiled or model.compile()).derived.setdefault("plans", {})
        if len(plans) >= KEPT_PLANS:
            plans.clear()
        plans[key] = kept
    return kept


def planned_run(model, q0, v0, t_end, options, stacklevel=4):
    """The :class:`RunPlan` of a single run from (q0, v0) (checked at simulate's entry,
    :func:`~multibody.simulate.torques.initial_inputs`): the options checked first (a span, the method and its
    options, the controls) and what the compiled loops refuse in them (:func:`compiled_refusal`), then what the run
    meets in the model (:func:`model_warnings`, :func:`run_parts` and :func:`check_start`: contact shapes, a
    constrained start on its constraints, a start inside the enforced joint limits), then the backend that runs it:
    the compiled contact loop ("contact"), the compiled loop up to the first joint stop ("stops", :mod:`.stops`),
    the compiled loop from start to end ("compiled") or the Python loop ("python"). Sets ``options["compiled"]``
    False when the controls are a Python callable (the compiled loop takes constant and tabulated controls). What
    depends on the model and options alone is kept for the next runs (:class:`KeptPlan`), the checks of the state,
    output times and inputs made each run. Notices and warnings go ``stacklevel`` frames up from here."""
    method, ctrl, t_start, t_end = options["method"], options["ctrl"], float(options["t_start"]), float(t_end)
    if not t_end > t_start:
        raise ValueError(f"simulate: t_end ({t_end}) must be greater than t_start ({t_start})")
    key = plan_key(options)
    kept = kept_plan(model, key)
    if kept is None:
        check_method(method, options["dt"], options["dynamics"], options["collisions"] not in (False, None))
    t_eval = output_times(t_start, t_end, options["t_eval"], options["samples"], options["dt"],
                          None if kept is None else kept.backend_kept)
    control_function(model, ctrl)  # (ValueError now for a model without actuators or controls of the wrong size)
    refusal = kept.refusal if kept is not None else compiled_refusal(model, controls_checked(model, options,
                                                                                               stacklevel + 1))
    model_warnings(model, q0, options, stacklevel=stacklevel + 1)
    if kept is None:
        kept = keep_plan(model, key, run_parts(model, options, refusal))
    check_start(model, q0, v0, options, kept.limits, kept.backend_kept)
    return RunPlan(model, q0, v0, t_end, t_eval, options, kept.impacts, kept.limits, kept.stored, kept.projected,
                   kept.backend, refusal or "", kept.backend_kept)


def controls_checked(model, options, stacklevel):
    """``options`` with ``compiled`` False when the controls are a Python callable (the compiled loop takes
    constant and tabulated controls), said once (:func:`python_loop_notice`) where a compiled loop was asked for."""
    method = options["method"]
    compilable = compiled_controls(options["ctrl"])  # (None, constant or tabulated controls)
    if options["compiled"] and not compilable and (method in COMPILED or method == "contact") and options[
            "progress"] is not True:
        python_loop_notice(model, "the controls (ctrl) are a Python callable", stacklevel=stacklevel)
    options["compiled"] = options["compiled"] and compilable
    return options


def run_parts(model, options, refusal):
    """The :class:`KeptPlan` of a run: what it meets in the model that its initial state does not change
    (:func:`read_limits`) and the backend that runs it."""
    method = options["method"]
    impacts, limits, stored, projected = read_limits(model, options)
    if refusal is None:
        backend = "python"
    elif method == "contact":
        backend = "python" if refusal else "contact"
    elif refusal or impacts is not None:
        backend = "python"
    elif limits and not getattr(model, "constraints", None) and watchable(limits):
        backend = "stops"
    else:
        backend = "python" if options["joint_limits"] and stored else "compiled"
    return KeptPlan(model_settings(model), refusal, impacts, limits, stored, projected, backend, {})


def compiled_refusal(model, options):
    """Why the compiled loop of the run's method refuses it ("" if it takes it:
    :func:`multibody.simulate.compiled.unsupported`, or for ``method="contact"``
    :func:`multibody.simulate.contact_loop.unsupported`), or None where none is asked for (``compiled`` False, a
    progress bar, collisions, a method without a compiled loop). The options alone: the joint limits and contact
    shapes the run meets are read after (:func:`planned_run`)."""
    method, compiled, progress = options["method"], options["compiled"], options["progress"]
    torque, f_ext, events, dynamics = options["torque"], options["f_ext"], options["events"], options["dynamics"]
    if not compiled or progress is True:
        return None
    if method == "contact":
        from . import contact_loop
        return contact_loop.unsupported(model, torque, f_ext, events, dynamics)
    if method not in COMPILED or options["collisions"] not in (False, None):
        return None  # (collisions: event-driven impacts, only in the Python loop)
    from . import compiled as loop
    return loop.unsupported(model, torque, f_ext, events, dynamics, 1.0 if method in FIXED_STEP else options["atol"])


class BatchPlan(NamedTuple):
    """Several runs of :func:`multibody.simulate` at once, checked once and planned (:func:`planned_runs`), as their
    backend takes them."""

    model: Any  # the first model: every run's structure
    models: list | None  # a model per run, or None: ``model`` for all
    Q0: np.ndarray  # (B, nq) checked, quaternions unit
    V0: np.ndarray  # (B, nv)
    t_end: float  # [s]
    t_eval: np.ndarray | None  # the output times [s] of the runs taken all together, None for one after the other
    options: dict  # simulate's options less the torque and the controls
    torque: Any  # None, a callable, a TorqueTable, one per run, or (B, nv)
    controls: list | None  # the actuators' controls of each run, or None
    stored: list  # the limits stored with the joints and tendons (warn_beyond_limits)
    limits: list  # the joint limits the compiled contact loop enforces
    backend: str  # "contact" (the compiled contact loop), "compiled" (the compiled loop) or "each" (one at a time)


def planned_runs(model, Q0, V0, t_end, options, stacklevel=4):
    """The :class:`BatchPlan` of the runs from the rows of Q0 (B, nq) and V0 (B, nv) (one of them may be a single
    state, checked at simulate's entry), of ``model`` or of model[b] for a list of B models: the counts of runs,
    the controls, the torque tables and the method checked first, then whether the compiled contact loop
    (``method="contact"``, one model) or the compiled loop takes them all together, then what they meet in the model
    (contact shapes, stored limits). Notices and warnings go ``stacklevel`` frames up from here."""
    models = model if isinstance(model, list) else None
    model = model[0] if models else model
    counts = {name: x.shape[0] for name, x in (("q0", Q0), ("v0", V0)) if x.ndim == 2}
    if models:
        counts["models"] = len(models)
    if len(set(counts.values())) > 1:
        raise ValueError(f"simulate: {' and '.join(counts)} give {' and '.join(map(str, counts.values()))} runs")
    B = next(iter(counts.values()))
    Q0, V0 = np.broadcast_to(Q0, (B, model.nq)), np.broadcast_to(V0, (B, model.nv))
    torque = options.pop("torque")
    controls = per_run_controls(options.pop("ctrl"), B)
    for u in controls or ():
        control_function(model, u)  # (ValueError before any run)
    options["compiled"] = options["compiled"] and compiled_controls(controls)  # (not Python callables)
    if per_run_tables(torque) and len(torque) != B:
        raise ValueError(f"simulate: {len(torque)} torque tables for {B} runs")
    method, collisions = options["method"], options["collisions"] not in (False, None)
    check_method(method, options["dt"], options["dynamics"], collisions)
    compiled = in_compiled_loop(model, method, options["compiled"], options["progress"], collisions, torque,
                                options["f_ext"], options["events"], options["dynamics"], options["atol"],
                                stacklevel=stacklevel + 1)  # (False for "contact"; the stored limits: below)
    contact = False
    if method == "contact" and models is None and options["compiled"] and options["progress"] is not True:
        from . import contact_loop
        contact = not contact_loop.unsupported(model, torque, options["f_ext"], options["events"], options["dynamics"])
    # what the runs meet in the model, read from the layers below: contact shapes, stored limits
    warn_ignored_shapes(model, options, stacklevel=stacklevel)
    stored = stored_limits(model)
    limits = enforced_limits(model, options["joint_limits"]) if contact else []
    if torque is not None and not callable(torque) and not per_run_tables(torque):
        torque = np.broadcast_to(torque, (B, model.nv))  # (checked with the states, at simulate's entry)
    backend = "contact" if contact else "each" if not compiled or (options["joint_limits"] and stored) else "compiled"
    t_start, t_eval = float(options["t_start"]), None
    if backend == "contact" and not t_end > options["t_start"]:
        raise ValueError(f"simulate: t_end ({t_end}) must be greater than t_start ({options['t_start']})")
    if backend != "each":
        t_eval = output_times(t_start, float(t_end), options["t_eval"], options["samples"], options["dt"])
    return BatchPlan(model, models, Q0, V0, t_end, t_eval, options, torque, controls, stored, limits, backend)


_PAST = 1e-9  # [rad or m, relative above 1] a joint this far past a bound is past it, not at it by round-off


def warn_beyond_limits(model, stored, trajectory, *more, stacklevel=3, enforced=False):
    """``trajectory``, with a warning when it (or one of ``more``, the other runs of a batch) takes a joint or a
    fixed tendon past the limits stored with it (``stored``: :func:`~multibody.constraints.limits.stored_limits`,
    those no :class:`multibody.JointLimit` or :class:`multibody.TendonLimit` of the model covers; ``Joint.limits``,
    a file's <limit> or range; ``FixedTendon.limits``, an MJCF tendon's range) when the run did not enforce them
    (``enforced``: simulate's ``joint_limits``)."""
    if enforced:
        return trajectory
    past, tendons = [], False
    for limit in stored:
        arm = limit.arms(model)[0]
        low = min(float((run.q @ arm).min(initial=np.inf)) for run in (trajectory, *more))
        high = max(float((run.q @ arm).max(initial=-np.inf)) for run in (trajectory, *more))
        below = low < limit.lower - _PAST * max(1.0, abs(limit.lower))
        above = high > limit.upper + _PAST * max(1.0, abs(limit.upper))
        if below or above:
            tendons |= not hasattr(limit, "joint")
            past.append(f"'{limit.target}' reached {low if below else high:.4g} "
                        f"(limits [{limit.lower:.4g}, {limit.upper:.4g}])")
    if past:
        warnings.warn(f"simulate: model '{model.name}': {len(past)} joints{' or tendons' if tendons else ''} went past "
                      "the limits stored with them, "
                      f"which this run does not enforce: {', '.join(past[:5])}{' …' if len(past) > 5 else ''}; "
                      "simulate(..., joint_limits=True), the default, makes them stops",
                      stacklevel=stacklevel)
    return trajectory


def warn_ignored_shapes(model, options, stacklevel=4):
    """Warn that a run without contact (neither ``method="contact"`` nor ``collisions``, no custom ``dynamics``)
    ignores the model's contact shapes, when two of them could touch
    (:func:`multibody.constraints.contact.contact_pairs`): a model file's floor and feet (MJCF geoms, URDF
    collisions) fall through."""
    if (not model.geometries or options["method"] == "contact" or options["collisions"] not in (False, None)
            or options["dynamics"] is not None):
        return
    if pairs_and_unsupported(model)[0]:
        warnings.warn(f"simulate: model '{model.name}' has {len(model.geometries)} contact shapes, which this run "
                      "ignores (bodies pass through each other and the floor): pass collisions=True (event-driven "
                      "impacts; CLI --collisions) or method='contact' with a step dt (time stepping; CLI --method "
                      "contact --dt 0.001) to simulate contact",
                      stacklevel=stacklevel)


# h D / I beyond which an explicit step's velocity error grows (the real-axis stability limits of semi-implicit
# Euler and classical RK4 on q̈ = −(D/I) q̇)
EXPLICIT_LIMIT = {"Euler": 2.0, "RK4": 2.785}


def warn_stiff_joint_forces(model, q0, method, dt, stacklevel=2):
    """Warn (once per model, method and dt) naming the joints whose dampers' and smoothed friction's slope
    D = c + F_c/v_s (the friction's at rest) makes the explicit fixed step unstable at q0: h D / I above
    :data:`EXPLICIT_LIMIT`, I = 1/(M⁻¹)_ii the joint's effective inertia; a URDF's joint friction on a light link
    does (Go1's calves at 2 ms: h D / I ≈ 100), and its velocities then chatter at the size of v_s.
    ``method="contact"`` takes these slopes implicitly; a smaller dt or an adaptive method also follows them."""
    derived = (model._compiled or model.compile()).derived
    key = ("stiff joint forces", method, dt)
    if key in derived:
        return
    derived[key] = True
    slope = joint_force_slope(model, np.zeros(model.nv))  # (at rest: c + F_c/v_s)
    if not slope.any():
        return
    stiffness = dt * slope * np.diag(np.linalg.inv(crba(model, q0)))
    names = {model.v_slice(j.name).start: j.name for j in model.joints if model.v_slice(j.name).stop > model.v_slice(
        j.name).start}
    stiff = [f"{names[i]} ({stiffness[i]:.3g})" for i in np.flatnonzero(stiffness > EXPLICIT_LIMIT[method])]
    if stiff:
        warnings.warn(f"model '{model.name}': the joint dampers' and friction's slope is too stiff for {method} at "
                      f"dt = {dt:g} s (h D / I above {EXPLICIT_LIMIT[method]:g}; the velocities will chatter): "
                      f"{', '.join(stiff)}. Use method=\"contact\" (implicit in them), a smaller dt or an adaptive "
                      "method", stacklevel=stacklevel)


def model_warnings(model, q0, options, stacklevel=4):
    """The warnings of what one run meets in the model, ``stacklevel`` frames up: joint forces too stiff for its
    explicit fixed step (:func:`warn_stiff_joint_forces`), ignored contact shapes (:func:`warn_ignored_shapes`),
    and for ``method="contact"`` moving bodies' shapes overlapping at q0
    (:func:`~multibody.constraints.contact.warn_overlapping_shapes`)."""
    method = options["method"]
    if method in EXPLICIT_LIMIT:
        warn_stiff_joint_forces(model, q0, method, float(options["dt"]), stacklevel)
    warn_ignored_shapes(model, options, stacklevel)
    if method == "contact" and model.geometries:
        warn_overlapping_shapes(model, q0, stacklevel)


def read_limits(model, options):
    """What one run meets in the model, read from the layers below simulate once its options are checked
    (:func:`check_method`), whatever its initial state: (impacts: the :class:`multibody.impact.Collisions` of
    ``options["collisions"]`` (True: the default settings, or a dict of them) or None, the joint limits the run
    enforces (:func:`~multibody.constraints.limits.enforced_limits`), the limits stored with the joints and tendons
    (:func:`~multibody.constraints.limits.stored_limits`), whether its fixed steps are projected onto the equality
    constraints (``projection``, "RK4" or "Euler", :func:`multibody.constraints.integrate.project`))."""
    method, collisions, joint_limits = options["method"], options["collisions"], options["joint_limits"]
    stored = stored_limits(model)
    limits = [*enforced_limits(model, False), *stored] if joint_limits else enforced_limits(model, False)
    impacts = None
    if collisions is not False and collisions is not None:
        from ..impact.events import Collisions
        settings = {} if collisions is True else dict(collisions)
        try:
            impacts = Collisions(model, **settings, limits=list(limits))
        except TypeError as exc:
            raise ValueError(f"simulate: collisions takes law, method, rest_velocity, contact_tolerance, "
                             f"release_distance and stabilization, got {sorted(settings)} ({exc})") from exc
    projected = False
    if getattr(model, "constraints", None):
        from ..constraints.types import equality_constraints
        projected = bool(options["projection"] and method in ("RK4", "Euler") and equality_constraints(model))
    return impacts, limits, stored, projected


def check_start(model, q0, v0, options, limits, kept=None):
    """ValueError for a start past a bound of ``limits`` the run enforces as a stop (the smooth methods' limit
    events need a start inside the bounds; ``method="contact"`` pushes such a joint back in), and for a
    constrained start off its constraints (:func:`multibody.constraints.assembly.check_consistent`). ``kept``: a
    kept plan's dict, where the bounds' rows are kept."""
    method = options["method"]
    checked = limits and method != "contact" and not _inside(model, q0, limits, {} if kept is None else kept)
    for side in limit_sides(model, q0, np.zeros(model.nv), limits) if checked else ():
        if side.gap < -_START_TOLERANCE:
            limit = side.limit
            what = f"joint {limit.joint!r}" if hasattr(limit, "joint") else f"the length of tendon {limit.tendon!r}"
            raise ValueError(f"simulate: q0 puts {what} of model '{model.name}' at {limit.value(model, q0):.6g}, "
                             f"past its {side.side} limit (range [{limit.lower:.6g}, {limit.upper:.6g}]); start "
                             "inside its limits, pass joint_limits=False to run without the joints' stored limits, or "
                             "use method=\"contact\", which pushes it back")
    if getattr(model, "constraints", None):
        from ..constraints.assembly import check_consistent
        check_consistent(model, q0, v0, options["constraint_tolerance"])


_START_TOLERANCE = 1e-6  # [rad or m] a start this far past an enforced bound is refused


def _inside(model, q0, limits, kept):
    """Whether q0 lies inside every bound of ``limits``, all gaps g = G q0 − offset ≥ 0 at once
    (:func:`~multibody.constraints.limits.bound_arrays`, its rows kept in ``kept``); a start at or past a bound is
    then checked bound by bound."""
    if "bound_rows" not in kept:
        kept["bound_rows"] = bound_arrays(model, limits)[1:3]
    G, offset = kept["bound_rows"]
    return min((G @ q0 - offset).tolist(), default=0.0) >= 0.0  # (q0 finite: checked at simulate's entry)


def in_compiled_loop(model, method, compiled, progress, collisions, torque, f_ext, events, dynamics, atol,
                     stops=(), stacklevel=4):
    """Whether the compiled loop takes this simulation from start to end: asked for (``compiled``, no progress
    bar), a method it has, no collisions, no ``stops`` (the stored joint limits the run enforces, which it watches
    up to the first one, :mod:`.stops`), and nothing it refuses (:func:`multibody.simulate.compiled.unsupported`).
    A run it refuses says why, once per reason (:func:`python_loop_notice`, ``stacklevel`` frames up)."""
    if not (compiled and method in COMPILED and progress is not True and not collisions):
        return False  # (collisions: event-driven impacts, asked for, only in the Python loop)
    from . import compiled as loop
    reason = loop.unsupported(model, torque, f_ext, events, dynamics, 1.0 if method in FIXED_STEP else atol)
    if reason:
        python_loop_notice(model, reason, stacklevel)
        return False
    # stored limits: not all the runs at once; each run is compiled up to its first stop (simulate, .stops)
    return not stops

NOTICED: set[str] = set()  # the reasons already told (once per process)


def python_loop_notice(model, reason, stacklevel=4):
    """Warn, once per ``reason``, that a simulation the compiled loop could run otherwise takes the Python loop
    (some 10× slower) and why; ``compiled=False`` asks for the Python loop and is not told."""
    if reason in NOTICED:
        return
    NOTICED.add(reason)
    warnings.warn(f"simulate: model '{model.name}' runs in the Python loop, not the compiled one (slower), because "
                  f"{reason}; compiled=False chooses the Python loop without this notice", stacklevel=stacklevel)


MAX_DEFAULT_SAMPLES = 1_000_001  # output samples simulate chooses itself (over 10,000 s, or every step dt)


def output_times(t_start, t_end, t_eval, samples, dt=None, kept=None) -> np.ndarray:
    """The output times [s] of a run from ``t_start`` to ``t_end``: ``t_eval`` checked, else ``samples`` evenly
    spaced times, else every fixed step ``dt`` (the last one ending at t_end), else 100 a second. ``kept``: a dict
    that keeps the last times made (not given) for the next run of the same span, handed out as a copy."""
    if t_eval is not None or kept is None:
        return _output_times(t_start, t_end, t_eval, samples, dt)
    span = (t_start, t_end, samples, dt)
    last = kept.get("output_times")
    if last is None or last[0] != span:
        last = kept["output_times"] = (span, _output_times(t_start, t_end, None, samples, dt))
    return last[1].copy()


def _output_times(t_start, t_end, t_eval, samples, dt=None) -> np.ndarray:
    if t_eval is None and samples is None and dt is not None:  # every fixed step, the last one ending at t_end
        span = (t_end - t_start) / dt * (1.0 - 1e-12)  # (steps: its ceiling)
        if not span <= MAX_DEFAULT_SAMPLES:
            raise ValueError(f"simulate: a sample at every step dt = {dt:g} s from {t_start:g} to {t_end:g} s would "
                             f"be {np.ceil(span):.3g} samples: give samples= or t_eval= (CLI: --samples)")
        steps = math.ceil(span)
        times = np.empty(steps + 1)
        times[:-1] = t_start + dt * np.arange(steps)
        times[-1] = t_end
        return times
    if t_eval is None:  # 100 samples a second, at least 101 and at most MAX_DEFAULT_SAMPLES
        count = samples or int(np.clip(np.rint(100.0 * (t_end - t_start)) + 1, 101, MAX_DEFAULT_SAMPLES))
        return np.linspace(t_start, t_end, int(count))
    t_eval = np.asarray(t_eval, dtype=float)
    if (t_eval.ndim != 1 or not t_eval.size or not np.all(np.isfinite(t_eval)) or np.any(np.diff(t_eval) < 0)
            or t_eval[0] < t_start or t_eval[-1] > t_end):
        raise ValueError(f"simulate: t_eval must be finite increasing times within [{t_start}, {t_end}], got "
                         f"{np.array2string(t_eval, threshold=8)}")
    return t_eval


def compiled_times(t_eval, t_end, events):
    """The times the compiled loop runs through: the output times, and with events on to t_end past the last one,
    as the Python loop steps (a crossing after the last output time is found there too)."""
    return np.append(t_eval, float(t_end)) if events and t_eval[-1] < t_end else t_eval


def gathered(runs, failures, kind):
    """``runs``, or, if some failed ({run: (reason, time [s])}), a ``kind`` error carrying them all."""
    error = failure(runs, failures, kind)
    if error is not None:
        raise error
    return runs


def failure(runs, failures, kind):
    """The ``kind`` error that :func:`gathered` raises for the failed ``runs`` ({run: (reason, time [s])}), or None
    if none failed."""
    if not failures:
        return None
    first, (reason, time) = next(iter(failures.items()))
    error = kind(f"simulate: {len(failures)} of {len(runs)} runs failed (run {first}: {reason} at t = {time:.6g} s)",
                 time=time, trajectory=runs[first])
    error.trajectories, error.failures = runs, {b: reason for b, (reason, _) in failures.items()}
    return error
