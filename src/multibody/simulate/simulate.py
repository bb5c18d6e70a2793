"""Time integration of the equations of motion M(q) v̇ + c(q, v) = τ: scipy's adaptive Runge–Kutta and implicit
solvers, fixed-step RK4, semi-implicit Euler and the velocity-level contact stepper, for trees, constrained models,
joint limits and collisions.

The state is x = [q; v]: q̇ = configuration_rate(q, v) (quaternion rates for spherical and free joints) and
v̇ = dynamics(t, q, v, τ), by default the articulated-body algorithm (or ``multibody.forward_dynamics`` when the
model has constraints). τ sums the applied joint torques, the body forces mapped to the joints and the model's
force elements (springs, dampers).

Every method is stepped by hand through scipy.integrate.OdeSolver (the fixed-step ones through
:class:`.fixed_step.FixedStep`) so that a failure keeps the trajectory computed so far, events can reset the state
and restart (impacts), and a progress bar can follow the simulated time.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, optimize

from ..constraints.limits import LimitStops, enforced_limits, joint_limits, limit_sides, stored_limits
from ..constraints.types import equality_constraints
from ..dynamics import aba, generalized_gravity, rnea
from ..dynamics.kinematics import configuration_rate_into
from ..dynamics._inputs import as_state, external_forces
from ..errors import ModelError, SimulationError, SimulationInterrupted, checked_number
from ..model.joints import normalized_quaternions, quaternion_norms
from .events import BuiltinEvent
from .fixed_step import DriftRecord, FixedStep, scheme
from . import gpu as gpu_runs
from .actuators import control_function, per_run_controls
from .forces import elements_force
from .progress import Progress
from .torques import TorqueTable, per_run_tables
from .trajectory import Trajectory, constraint_residuals

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from ..model import Model

METHODS = {"RK45": integrate.RK45, "RK23": integrate.RK23, "DOP853": integrate.DOP853,
           "Radau": integrate.Radau, "BDF": integrate.BDF, "LSODA": integrate.LSODA}
FIXED_STEP = ("RK4", "Euler", "contact")  # the fixed-step methods (a step dt)


@dataclass
class Event:
    """A zero crossing g(t, q, v) = 0 to locate during a simulation.

    ``direction`` > 0 (< 0) catches only rising (falling) crossings, 0 both. ``terminal`` stops the run.
    ``action(t, q, v) -> (q, v)``, if given, replaces the state at the event and the run continues
    (impact laws, mode switches). ``function`` may be a built-in event (:class:`multibody.JointValue`,
    :class:`multibody.PointHeight`), whose name it takes by default; without an action it stays in the compiled
    loop.
    """

    function: Callable
    name: str | None = None
    terminal: bool = False
    direction: float = 0.0
    action: Callable | None = None

    def __post_init__(self):
        builtin = isinstance(self.function, BuiltinEvent)
        self.name = self.name or (self.function.name if builtin else getattr(self.function, "__name__", "event"))


def _as_event(event, model):
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


class _UserCodeFailed(Exception):
    """A user callable (torque, f_ext, dynamics, an event or its action) raised ``error`` at time ``t``."""

    def __init__(self, what, t, error):
        super().__init__(what)
        self.what, self.t, self.error = what, float(t), error

    def simulation_error(self):
        return SimulationError(f"{self.what} raised {type(self.error).__name__} at t = {self.t:.6g} s: {self.error}",
                               time=self.t)


def _guarded(function, what):
    """``function(t, ...)`` whose exceptions (anything but SimulationError) are wrapped in _UserCodeFailed."""
    def call(t, *args):
        try:
            return function(t, *args)
        except (SimulationError, _UserCodeFailed):
            raise
        except Exception as exc:
            raise _UserCodeFailed(what, t, exc) from exc
    return call


def _applied(model, value, what, shape_check):
    """A function (t, q, v) -> value from a constant, None, or a callable."""
    if value is None:
        return None
    if callable(value):
        value = _guarded(value, f"the {what} callable")
        return lambda t, q, v: shape_check(value(t, q, v))
    constant = shape_check(value)
    return lambda t, q, v: constant


def default_dynamics(model, stabilization=None):
    """v̇ = dynamics(t, q, v, τ): the ABA for a tree, ``multibody.forward_dynamics`` with constraints (Baumgarte
    gains ``stabilization`` = (α, β) [1/s] or None)."""
    if getattr(model, "constraints", None):
        import multibody
        forward = getattr(multibody, "forward_dynamics", None)
        if forward is None:
            raise ModelError(f"model '{model.name}': has constraints but multibody.forward_dynamics is not available")
        return lambda t, q, v, tau: forward(model, q, v, tau, stabilization=stabilization)
    return lambda t, q, v, tau: aba(model, q, v, tau)


def generalized_forces(model, torque=None, f_ext=None, ctrl=None):
    """τ(t, q, v) (nv,): applied joint torques + body forces mapped to the joints + force elements (the actuators
    at the controls ``ctrl``, :func:`~multibody.simulate.actuators.control_function`).

    A body force set f (rows [moment; force], body axes, about the body origin) maps to
    Σ Jᵢᵀ fᵢ = g(q) − rnea(q, 0, 0, f): the RNEA with the forces applied, minus gravity alone.
    """
    nv = model.nv
    torque = _applied(model, torque, "torque", lambda x: np.broadcast_to(as_state(x, nv, "torque"), (nv,)))
    f_ext = _applied(model, f_ext, "f_ext", lambda x: external_forces(model, x))
    ctrl = control_function(model, ctrl)
    ctrl = None if ctrl is None else _guarded(ctrl, "the ctrl callable")
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


_COMPILED = {"DOP853": "DOP853", "RK45": "DOPRI5", "RK4": "RK4", "Euler": "Euler"}  # methods with compiled twins


def _normalizer(model):
    """q ↦ q with the model's quaternions scaled to unit length (:func:`~multibody.model.joints.normalized_quaternions`)."""
    joints = tuple(model.joints)
    return lambda q: normalized_quaternions(joints, q)


def _warn_unit_quaternions(model, q0):
    """Warn (once per joint) when q0 holds a quaternion whose norm is not 1 to 1e-3: it is normalized (the
    rotation it describes kept), which for a value such as (2, 0, 0, 0) is rarely what was meant."""
    for joint, norm in quaternion_norms(model.joints, np.asarray(q0, dtype=np.float64)).items():
        off = np.abs(np.asarray(norm) - 1.0)
        if np.any(off > 1e-3) and np.all(np.asarray(norm) > 0):
            warnings.warn(f"simulate: q0's quaternion of joint '{joint.name}' has norm {np.ravel(norm)[np.argmax(off)]:g}, "
                          "not 1: it is normalized (the rotation it describes is kept)", stacklevel=3)


def simulate(model: Model | Sequence[Model], q0: ArrayLike | None = None, v0: ArrayLike | None = None,
             t_end: float = 1.0, *, t_start: float = 0.0, method: str = "DOP853", dt: float | None = None,
             rtol: float = 1e-8, atol: float = 1e-10, max_step: float = np.inf, t_eval: ArrayLike | None = None,
             samples: int | None = None,
             torque: ArrayLike | Callable[[float, np.ndarray, np.ndarray], Any] | None = None,
             ctrl: ArrayLike | TorqueTable | Callable[[float, np.ndarray, np.ndarray], Any] | None = None,
             f_ext: ArrayLike | Mapping[str, ArrayLike] | Callable[[float, np.ndarray, np.ndarray], Any] | None = None,
             events: Iterable[Event | Callable[[float, np.ndarray, np.ndarray], float]] = (),
             dynamics: Callable[[float, np.ndarray, np.ndarray, np.ndarray], ArrayLike] | None = None,
             collisions: bool | Mapping[str, Any] = False, stabilization: tuple[float, float] | None = None,
             projection: bool = True, constraint_tolerance: float = 1e-8, progress: bool | None = None,
             compiled: bool = True, joint_limits: bool = True,
             device: str | None = None) -> Trajectory | list[Trajectory] | gpu_runs.Rollouts:
    """Integrate the model's motion from (q0, v0) at ``t_start`` to ``t_end`` [s].

    Parameters
    ----------
    q0 : (nq,) initial configuration (default ``model.initial_configuration()``: the pose the model's file gives,
        e.g. an MJCF file's qpos0, else ``model.neutral()``); v0 : (nv,) initial velocity (default 0).
        Several runs at once: q0 (B, nq) and/or v0 (B, nv) (a single state is shared by every run), ``torque``
        (B, nv) or a list of B TorqueTables for a torque per run, and ``model`` a sequence of B models for a
        model per run; the result is then a list of B trajectories. Trees the compiled loop takes run there all
        together (:func:`multibody.simulate.compiled.integrate_tree_batch`: across numba's threads, and for RK4
        and Euler on revolute and prismatic joints 32 runs per vectorized ABA, :mod:`multibody.simulate.lockstep`);
        other models run one after the other.
    model : the model, or a sequence of B models of the same structure, one per run, which differ only in their
        parameters — masses, inertias, joint placements (lengths) and axes, armatures, the constants of their
        force elements — and not in their bodies, tree, joint types, gravity or kinds of force elements and
        constraints (ValueError naming the first model that does and how,
        :func:`multibody.simulate.lockstep.structure_difference`); e.g. a mass sweep,
        ``mb.simulate([chain(mass=m) for m in masses], q0, method="RK4", dt=1e-3)``. q0 defaults to the first
        model's initial configuration.
    method : adaptive, error-controlled by ``rtol``, ``atol`` and ``max_step`` [s] (scipy's solvers): "DOP853"
        (default), "RK45", "RK23", "Radau", "BDF" or "LSODA"; or fixed-step, with the step ``dt`` [s]: "RK4"
        (classical Runge–Kutta), "Euler" (semi-implicit: v⁺ = v + h v̇(q, v), q⁺ = q ⊕ h v⁺) or "contact"
        (the velocity-level time stepper of :func:`multibody.constraints.integrate.contact_step`: contacts between
        the model's shapes with friction, plastic or with restitution, as a linear complementarity problem
        per step, with the joint limits as one-sided rows of the same problem; it computes the accelerations
        itself, so takes no ``dynamics`` or ``collisions``).
    dt : [s] the step of the fixed-step methods, required by them and refused by the adaptive ones. By default
        they output every step (t_start + k dt, the last step shortened to end at t_end). Given output times,
        the steps land on each of them: every interval between consecutive output times (and from an event's
        restart to the next) is cut into equal steps of at most dt, exactly dt for output times on the dt grid.
    t_eval : output times (increasing, within the span); default ``samples`` evenly spaced times
        (default 100 per second of simulated time, at least 101 and at most MAX_DEFAULT_SAMPLES = 1,000,001;
        every step of the fixed-step methods, refused beyond MAX_DEFAULT_SAMPLES).
    torque : (nv,) generalized forces, a :class:`~multibody.TorqueTable` τ(t) (compiled loop), or a callable
        (t, q, v) -> (nv,) (Python loop).
    f_ext : body forces ((nbodies, 6) or {body: [moment; force]}, body axes, about the body origin), or a
        callable (t, q, v) returning them.
    ctrl : the controls u (nu,) of the model's actuators (:class:`multibody.Actuator`, an MJCF file's
        ``<actuator>``, in file order; :mod:`multibody.simulate.actuators`): a constant, a
        :class:`~multibody.TorqueTable` of controls in time (rows (nu,)), or a callable (t, q, v) -> (nu,); for
        several runs, (B, nu) or a list of B tables or callables, one per run. Default: u = 0 (MuJoCo's default;
        position servos then hold their zero). A run with ``ctrl``, or with actuators or tendons that act at u = 0
        (servos, tendon springs), takes the Python loop.
    events : callables g(t, q, v) (attributes ``terminal``, ``direction``, ``action`` honoured) or
        :class:`Event` objects; crossings are recorded in ``Trajectory.events`` as (name, time) (located on the
        fixed-step methods' interpolant between steps: cubic Hermite, linear for "contact"). A terminal event ends
        the trajectory at the last output time before it. The built-in events :class:`multibody.JointValue` (a
        joint coordinate or velocity reaching a value) and :class:`multibody.PointHeight` (a point of a body
        reaching a height, or a coordinate along any world axis) are such callables, bound to the model here;
        when every event is built-in and has no ``action`` the run stays in the compiled loop, which locates the
        crossings on each step's dense output as this Python loop does (a Python callable or an action, a state
        reset, takes the Python loop). The joint limits (``joint_limits``) add one impact event per bound, named
        ``"limit <joint> lower"`` or ``"limit <joint> upper"`` (:mod:`multibody.constraints.limits`), except
        with "contact", whose step holds them.
    dynamics : callable (t, q, v, τ) -> v̇ replacing the default forward dynamics (for generated symbolic
        equations or custom constraint handling).
    collisions : event-driven impacts between the model's contact shapes (:class:`multibody.impact.Collisions`),
        recorded in ``Trajectory.impacts``: True for the default settings, or a dict of them (``law``,
        ``method``, ``rest_velocity``, ``contact_tolerance``, ``release_distance``, ``stabilization``; see
        :func:`multibody.simulate_impacts`, which runs this with tolerances rtol = 1e-10, atol = 1e-12).
    stabilization : Baumgarte gains (α, β) [1/s] of the constraints' forward dynamics,
        J v̇ = γ − 2α (J v − b) − β² φ (default None: none).
    projection : after each "RK4" or "Euler" step of a model with constraints, project (q, v) onto the constraint
        manifold (:func:`multibody.constraints.integrate.project`; default True). The adaptive methods keep the
        drift to their tolerances without projecting.
    constraint_tolerance : the initial state of a model with constraints must satisfy them to this (max|φ| and
        max|J v − b|; ValueError naming the worst constraint otherwise, see :func:`multibody.assemble`).
    progress : show a progress bar (None: only on a terminal, for runs longer than a second).
    compiled : with "DOP853", "RK45", "RK4" or "Euler", run trees without Python callables (no constraints,
        collisions, f_ext, custom dynamics, callable torque or events but built-in ones without an action; the
        built-in force elements allowed) in the compiled loop of :mod:`multibody.simulate.compiled` — the same
        method, step control and output times, 5–20× faster — unless a progress bar is asked for (the compiled loop
        shows none and takes Ctrl-C at its next step). A DOP853 run there computes its dense output
        and the samples' accelerations on a second thread when numba has one (:mod:`multibody.simulate.handoff`;
        the same numbers bit for bit; ``numba.set_num_threads(1)`` keeps it on one).
        ``False``: always the Python loop. ``Trajectory.info["compiled"]`` says which ran.
    device : "cuda" to run on an NVIDIA GPU, one thread per run (:mod:`multibody.simulate.gpu`): "RK4" or "Euler"
        with ``dt``, a constant torque (nv,) or per run (B, nv), a model or a model per run, every joint type; the
        result is the list of trajectories as on the CPU. Initial states (or torques) on a GPU (numba device arrays,
        CuPy, PyTorch) run there without it and return a :class:`multibody.simulate.gpu.Rollouts` of arrays of that
        kind instead (no accelerations computed, nothing copied to the host).

    joint_limits : enforce the limits stored with the joints (``Joint.limits``: a URDF ``<limit>``, an MJCF
        ``range`` with ``limited``/``autolimits``, a model file's ``limits``) as plastic stops, with every method
        (default True); the model's :class:`multibody.JointLimit` constraints are enforced either way. ``False``
        lets the joints pass their stored limits (a warning names those that did). A tree with stored limits runs
        in the compiled loop up to the first stop, which it watches as a terminal event; the impact and the rest
        of the run, the joint resting on its stop, take the Python loop (:mod:`multibody.simulate.stops`; then
        ``Trajectory.info["compiled"]`` is the time [s] of that impact).

    Returns
    -------
    Trajectory (a list of them for several runs) at the output times, with the events, the impacts
    (``collisions``) and the constraint ``drift`` (per sample max|φ| and max|J v − b|: with projection the residual
    the steps since the previous sample had before their projection, else the residual of the sample itself).

    Raises
    ------
    SimulationError
        with ``time`` and the partial ``trajectory`` (the output samples up to the failure) if the solver fails,
        the state becomes non-finite, or user code (torque, f_ext, dynamics, an event function or action) raises
        anything; the original exception is chained (``__cause__``). Also when event actions keep firing
        without time advancing (MAX_STALLED = 100 in a row). An action that returns the state unchanged is
        stepped past: its event, crossing again at the same time, does not fire again.
    SimulationInterrupted
        on Ctrl-C (KeyboardInterrupt): a KeyboardInterrupt subclass with the same ``time`` and partial
        ``trajectory``; ``trajectory.info["interrupted"]`` is True.
    """
    if device is not None or gpu_runs.gpu.on_device(q0, v0, torque):
        return _on_gpu(model, q0, v0, t_end, device, dict(
            t_start=t_start, method=method, dt=dt, torque=torque, ctrl=ctrl, f_ext=f_ext, events=list(events),
            dynamics=dynamics, collisions=collisions, stabilization=stabilization, joint_limits=joint_limits),
                       t_eval, samples)
    models = list(model) if isinstance(model, (list, tuple)) else None
    if models is not None:
        from .lockstep import check_same_structure
        check_same_structure(models)
        model = models[0]
    model = cast("Model", model)  # one Model from here on (of a list, the first)
    nq, nv = model.nq, model.nv
    events = list(events)
    q0 = model.initial_configuration() if q0 is None else as_state(q0, nq, "q0")
    v0 = np.zeros(nv) if v0 is None else as_state(v0, nv, "v0")
    if q0.ndim > 2 or v0.ndim > 2:
        raise ValueError(f"simulate: q0 and v0 must be states or (runs, n) arrays of them, got shapes {q0.shape} "
                         f"and {v0.shape}")
    for name, value in (("t_start", t_start), ("t_end", t_end)):
        checked_number(value, f"simulate: {name}")  # finite: an endless run is a loop with a stop condition
    _warn_unit_quaternions(model, q0)
    if q0.ndim == 2 or v0.ndim == 2 or models is not None:
        return _runs(models or model, q0, v0, t_end, dict(
            t_start=t_start, method=method, dt=dt, rtol=rtol, atol=atol, max_step=max_step, t_eval=t_eval,
            samples=samples, torque=torque, ctrl=ctrl, f_ext=f_ext, events=events, dynamics=dynamics,
            collisions=collisions,
            stabilization=stabilization, projection=projection, constraint_tolerance=constraint_tolerance,
            progress=progress, compiled=compiled, joint_limits=joint_limits))
    if not (np.all(np.isfinite(q0)) and np.all(np.isfinite(v0))):
        raise ValueError("simulate: q0 and v0 must be finite")
    t_start, t_end = float(t_start), float(t_end)
    if not t_end > t_start:
        raise ValueError(f"simulate: t_end ({t_end}) must be greater than t_start ({t_start})")
    impacts = None if collisions is False or collisions is None else _collisions(model, collisions, joint_limits)
    _check_method(model, method, dt, dynamics, impacts is not None)
    t_eval = _output_times(t_start, t_end, t_eval, samples, dt)
    control_function(model, ctrl)  # (ValueError now for a model without actuators or controls of the wrong size)
    if ctrl is not None and compiled and method in _COMPILED and progress is not True:
        _python_loop_notice(model, "controls (ctrl) are given")
    compiled = compiled and ctrl is None  # (the compiled loop applies no controls)
    normalized = _normalizer(model)
    if getattr(model, "constraints", None):
        from ..constraints.assembly import check_consistent
        check_consistent(model, normalized(q0), v0, constraint_tolerance)
    limits = enforced_limits(model, joint_limits)
    if limits and method != "contact":
        _refuse_start_past_limits(model, normalized(q0), limits)

    def compiled_run(watched=()):
        from . import compiled as loop
        applied = torque if torque is None or isinstance(torque, TorqueTable) else as_state(
            cast(ArrayLike, torque), nv, "torque")  # not a callable: the loop refuses those
        return loop.tree_run_trajectory(
            model, q0, v0, _compiled_times(t_eval, t_end, [*watched, *events]), samples=len(t_eval),
            method=_COMPILED[method], rtol=rtol, atol=atol, max_step=max_step, dt=dt, tau=applied, t_start=t_start,
            events=[*watched, *events])

    if limits and impacts is None and not getattr(model, "constraints", None) and _in_compiled_loop(
            model, method, compiled, progress, False, torque, f_ext, events, dynamics, atol, False):
        from .stops import run_to_limits  # the stored limits: compiled up to the first stop, as the Python loop
        return run_to_limits(model, q0, v0, t_end, t_eval, limits, compiled_run, lambda t, q, v, rest: simulate(
            model, q, v, t_end, t_start=t, method=method, dt=dt, rtol=rtol, atol=atol, max_step=max_step,
            t_eval=rest, torque=torque, events=events, progress=progress, compiled=False, joint_limits=joint_limits))
    if _in_compiled_loop(model, method, compiled, progress, impacts is not None, torque, f_ext, events, dynamics, atol,
                         joint_limits):
        return _warn_beyond_limits(model, compiled_run())
    tau = generalized_forces(model, torque, f_ext, ctrl)
    accel = (_guarded(dynamics, "the dynamics callable") if dynamics is not None
             else default_dynamics(model, stabilization))
    events = [_as_event(e, model) for e in events]
    if impacts is not None:
        events, accel = [*impacts.events(), *events], impacts.dynamics
    elif limits and method != "contact" and not getattr(dynamics, "handles_joint_limits", False):
        # joint limits: an impact event per bound, the bounds at rest held by the contact LCP
        from .stops import resumed_stops
        stops = resumed_stops.get() or LimitStops(model, limits=limits)  # (resumed after a compiled part)
        events = [*stops.events(), *events]
        accel = stops.dynamics if dynamics is None else accel

    def rhs(t, x):
        # q̇ = ½ q ⊗ ω on the solver's quaternions (the compiled loop's vector field); forces on unit ones
        q, v = normalized(x[:nq]), x[nq:]
        x_dot = np.empty(nq + nv)
        configuration_rate_into(model, x[:nq], v, x_dot[:nq])
        x_dot[nq:] = accel(t, q, v, tau(t, q, v))
        return x_dot

    record = None
    if method in FIXED_STEP:
        projected = projection and method != "contact" and bool(equality_constraints(model))
        record = DriftRecord() if projected else None
        step = scheme(model, method, tau, normalized, projected, limits)

        def solver_at(t, x):
            return FixedStep(rhs, t, x, t_end, step=step, dt=dt, t_eval=t_eval, smooth=method != "contact",
                             record=record)
        assert dt is not None  # _check_method: the fixed-step methods have a step
        info = {"method": method, "dt": float(dt), "nfev": 0, "steps": 0}
    else:
        def solver_at(t, x):
            return METHODS[method](rhs, t, x, t_end, rtol=rtol, atol=atol, max_step=max_step)
        info = {"method": method, "rtol": rtol, "atol": atol, "nfev": 0, "steps": 0}

    def finish(ts, xs, log, info, partial=False, forces=True):
        xs = np.array(xs).reshape(len(ts), nq + nv)
        q, v = normalized(xs[:, :nq]), xs[:, nq:]
        try:
            if not forces:
                raise _UserCodeFailed("finish", ts[-1] if ts else t_start, None)
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

    ts: list[float] = []
    xs: list[np.ndarray] = []
    log: list[tuple[str, float]] = []
    x = np.concatenate([normalized(q0), v0])
    t = t_start
    clock: list[Any] = [t_start, x]  # the time and state of the last accepted step (failures outside a step; partial runs)
    history = (None, 0)  # ((event to step past or None, time of the last action), actions at that time)
    with Progress(t_end - t_start, f"simulating {model.name}", progress) as bar:
        while True:
            try:
                try:
                    t, x, stop, fired = _run_segment(solver_at(t, x), t_eval, events, ts, xs, log, info, bar, nq,
                                                     normalized, clock, history[0])
                except _UserCodeFailed as exc:
                    raise exc.simulation_error() from exc.error
                except (SimulationError, KeyboardInterrupt):
                    raise
                except Exception as exc:
                    raise SimulationError(f"integration failed at t = {clock[0]:.6g} s: {type(exc).__name__}: {exc}",
                                          time=clock[0]) from exc
                history = _check_progress(events, fired, t, history)
            except SimulationError as exc:
                raise SimulationError(str(exc), time=exc.time, trajectory=finish(
                    *_with_reached(ts, xs, clock), log, info, partial=True)) from (exc.__cause__ or exc)
            except KeyboardInterrupt as exc:
                info["interrupted"] = True
                raise SimulationInterrupted(f"simulation of '{model.name}' interrupted at t = {clock[0]:.6g} s",
                                            time=clock[0], trajectory=finish(*_with_reached(ts, xs, clock), log, info,
                                                                             partial=True)) from exc
            if stop or t >= t_end:
                break
    try:
        return _warn_beyond_limits(model, finish(ts, xs, log, info), stored=joint_limits)
    except KeyboardInterrupt as exc:  # while evaluating τ and v̇ at the samples: the states are all there
        info["interrupted"] = True
        raise SimulationInterrupted(f"simulation of '{model.name}' interrupted after reaching t = {t:.6g} s",
                                    time=t, trajectory=finish(ts, xs, log, info, partial=True, forces=False)) from exc
    except _UserCodeFailed as exc:  # user code failing at a sample it had not been called at: keep the states
        error = exc.simulation_error()
        raise SimulationError(f"{error} (while evaluating the forces at the output samples)", time=exc.t,
                              trajectory=finish(ts, xs, log, info, partial=True, forces=False)) from exc.error


def _check_method(model, method, dt, dynamics, collisions):
    """ValueError for an unknown method, a missing or refused step dt, or options the method cannot take."""
    if method not in METHODS and method not in FIXED_STEP:
        raise ValueError(f"simulate: unknown method {method!r}; choose one of {', '.join([*METHODS, *FIXED_STEP])}")
    if method in FIXED_STEP and not (dt is not None and np.isfinite(dt) and dt > 0):
        raise ValueError(f"simulate: method {method!r} takes fixed steps: give the step dt > 0 [s], got {dt!r}")
    if method not in FIXED_STEP and dt is not None:
        raise ValueError(f"simulate: dt is the step of the fixed-step methods ({', '.join(FIXED_STEP)}); {method!r} "
                         "chooses its own steps (bound them with max_step)")
    if dynamics is not None and collisions:
        raise ValueError("simulate: collisions bring their own dynamics; give dynamics or collisions, not both")
    if method == "contact":
        given = {"dynamics": dynamics is not None, "collisions": collisions}
        refused = [name for name, value in given.items() if value]
        if refused:
            raise ValueError(f"simulate: the contact scheme computes the contact and constraint forces itself and "
                             f"takes no {' or '.join(refused)}; use another method")
    if method != "contact" and not collisions and dynamics is None:
        _warn_ignored_shapes(model)


_PAST = 1e-9  # [rad or m, relative above 1] a joint this far past a bound is past it, not at it by round-off


def _warn_beyond_limits(model, trajectory, *more, stacklevel=3, stored=False):
    """``trajectory``, with a warning when it (or one of ``more``, the other runs of a batch) takes a joint past
    the limits stored with the joint (``Joint.limits``, a file's <limit> or range) that the run did not enforce
    (``joint_limits=False``, and no :class:`multibody.JointLimit` on the joint)."""
    if stored:
        return trajectory
    enforced = {c.joint for c in joint_limits(model)}
    past = []
    for joint in model.joints:
        limits = joint.limits
        if limits is None or joint.name in enforced:
            continue
        k = model.q_slice(joint.name).start
        low = min(float(run.q[:, k].min(initial=np.inf)) for run in (trajectory, *more))
        high = max(float(run.q[:, k].max(initial=-np.inf)) for run in (trajectory, *more))
        below = low < limits.lower - _PAST * max(1.0, abs(limits.lower))
        above = high > limits.upper + _PAST * max(1.0, abs(limits.upper))
        if below or above:
            past.append(f"'{joint.name}' reached {low if below else high:.4g} "
                        f"(limits [{limits.lower:.4g}, {limits.upper:.4g}])")
    if past:
        warnings.warn(f"simulate: model '{model.name}': {len(past)} joints went past the limits stored with them, "
                      f"which this run does not enforce: {', '.join(past[:5])}{' …' if len(past) > 5 else ''}; "
                      "simulate(..., joint_limits=True), the default, makes them stops",
                      stacklevel=stacklevel)
    return trajectory


def _warn_ignored_shapes(model):
    """Warn that a run without contact ignores the model's contact shapes, when two of them could touch
    (:func:`multibody.constraints.contact.contact_pairs`): a model file's floor and feet (MJCF geoms, URDF
    collisions) fall through."""
    from ..constraints.contact import pairs_and_unsupported
    if model.geometries and pairs_and_unsupported(model)[0]:
        warnings.warn(f"simulate: model '{model.name}' has {len(model.geometries)} contact shapes, which this run "
                      "ignores (bodies pass through each other and the floor): pass collisions=True (event-driven "
                      "impacts; CLI --collisions) or method='contact' with a step dt (time stepping; CLI --method "
                      "contact --dt 0.001) to simulate contact",
                      stacklevel=4)


def _collisions(model, settings, stored_limits=True):
    """The :class:`multibody.impact.Collisions` of ``settings`` (True: the defaults, or a dict of them), with the
    joints' stored limits enforced or not."""
    from ..impact.events import Collisions
    settings = {} if settings is True else dict(settings)
    try:
        return Collisions(model, **settings, limits=enforced_limits(model, stored_limits))
    except TypeError as exc:
        raise ValueError(f"simulate: collisions takes law, method, rest_velocity, contact_tolerance, "
                         f"release_distance and stabilization, got {sorted(settings)} ({exc})") from exc


def _in_compiled_loop(model, method, compiled, progress, collisions, torque, f_ext, events, dynamics, atol,
                      joint_limits=True):
    """Whether the compiled loop takes this simulation from start to end: asked for (``compiled``, no progress
    bar), a method it has, no collisions, no stored joint limits to enforce, and nothing it refuses
    (:func:`multibody.simulate.compiled.unsupported`). A run it refuses says why, once per reason
    (:func:`_python_loop_notice`)."""
    if not (compiled and method in _COMPILED and progress is not True and not collisions):
        return False  # (collisions: event-driven impacts, asked for, only in the Python loop)
    from . import compiled as loop
    reason = loop.unsupported(model, torque, f_ext, events, dynamics, 1.0 if method in FIXED_STEP else atol)
    if reason:
        _python_loop_notice(model, reason)
        return False
    # stored limits: not all the runs at once; each run is compiled up to its first stop (simulate, .stops)
    return not (joint_limits and stored_limits(model))


_NOTICED: set[str] = set()  # the reasons already told (once per process)


def _python_loop_notice(model, reason):
    """Warn, once per ``reason``, that a simulation the compiled loop could run otherwise takes the Python loop
    (some 10× slower) and why; ``compiled=False`` asks for the Python loop and is not told."""
    if reason in _NOTICED:
        return
    _NOTICED.add(reason)
    warnings.warn(f"simulate: model '{model.name}' runs in the Python loop, not the compiled one (slower), because "
                  f"{reason}; compiled=False chooses the Python loop without this notice", stacklevel=4)


def _runs(model, Q0, V0, t_end, options):
    """The trajectories of the runs from the rows of Q0 (B, nq) and V0 (B, nv) (one of them may be a single state),
    of ``model`` or of model[b] for a list of B models of the same structure, and, optionally, a torque per run
    (B, nv): all together in the compiled loop when it takes the models and the options, else one after the other.
    Failed runs raise one SimulationError after all ran, with ``trajectories``: every run's trajectory (partial
    for the failed ones), and ``failures``: {run: reason}; Ctrl-C, SimulationInterrupted with the same."""
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
    options["compiled"] = options["compiled"] and controls is None  # (the compiled loop applies no controls)
    if per_run_tables(torque):
        if len(torque) != B:
            raise ValueError(f"simulate: {len(torque)} torque tables for {B} runs")
    elif torque is not None and not callable(torque):
        torque = np.broadcast_to(as_state(torque, model.nv, "torque"), (B, model.nv))
    method, collisions = options["method"], options["collisions"] not in (False, None)
    _check_method(model, method, options["dt"], options["dynamics"], collisions)
    if not _in_compiled_loop(model, method, options["compiled"], options["progress"], collisions, torque,
                             options["f_ext"], options["events"], options["dynamics"], options["atol"],
                             options["joint_limits"]):
        runs, failures = [], {}
        for b in range(B):
            try:
                runs.append(simulate(models[b] if models else model, Q0[b], V0[b], t_end, **options,
                                     torque=torque if torque is None or callable(torque) else torque[b],
                                     ctrl=None if controls is None else controls[b]))
            except SimulationError as exc:
                runs.append(exc.trajectory)
                failures[b] = (str(exc), exc.time)
        return _gathered(runs, failures, SimulationError)
    from . import compiled as loop
    t_eval = _output_times(float(options["t_start"]), float(t_end), options["t_eval"], options["samples"],
                           options["dt"])
    events = options["events"]
    t, Q, V, info = loop.integrate_tree_batch(
        models or model, Q0, V0, _compiled_times(t_eval, t_end, events), method=_COMPILED[method],
        rtol=options["rtol"], atol=options["atol"], max_step=options["max_step"], dt=options["dt"], tau=torque,
        t_start=options["t_start"], events=events)
    tau = np.zeros((B, model.nv)) if torque is None else [torque] * B if isinstance(torque, TorqueTable) else torque
    counts = np.minimum(info["samples"], len(t_eval))
    runs = [loop.tree_trajectory(models[b] if models else model, t[:counts[b]], Q[b, :counts[b]], V[b, :counts[b]],
                                 {**info, "status": info["status"][b], "samples": int(counts[b]),
                                  "t_reached": float(info["t_reached"][b]), "events": info["events"][b]}, tau[b])
            for b in range(B)]
    failures = {b: (info["status"][b], float(info["t_reached"][b])) for b in range(B)
                if info["status"][b] not in ("ok", "terminal event")}
    _warn_beyond_limits(model, *runs, stacklevel=4)  # from _runs, through simulate, to its caller
    interrupted = any(reason == "interrupted" for reason, _ in failures.values())
    return _gathered(runs, failures, SimulationInterrupted if interrupted else SimulationError)


def _on_gpu(model, q0, v0, t_end, device, options, t_eval, samples):
    """:func:`simulate` on the GPU (:func:`multibody.simulate.gpu.simulate`): Rollouts for initial states on a GPU,
    else the trajectories (one SimulationError naming the failed runs, as on the CPU)."""
    t_start, t_end = float(options["t_start"]), float(t_end)
    if not t_end > t_start:
        raise ValueError(f"simulate: t_end ({t_end}) must be greater than t_start ({t_start})")
    if isinstance(model, (list, tuple)):
        from .lockstep import check_same_structure
        check_same_structure(list(model))
    times = _output_times(t_start, t_end, t_eval, samples, options["dt"])
    result = gpu_runs.simulate(model, q0, v0, t_end, times, options, device)
    return result if isinstance(result, gpu_runs.Rollouts) else _gathered(*result, SimulationError)


def _compiled_times(t_eval, t_end, events):
    """The times the compiled loop runs through: the output times, and with events on to t_end past the last one,
    as the Python loop steps (a crossing after the last output time is found there too)."""
    return np.append(t_eval, float(t_end)) if events and t_eval[-1] < t_end else t_eval


def _gathered(runs, failures, kind):
    """``runs``, or, if some failed ({run: (reason, time [s])}), a ``kind`` error carrying them all."""
    if not failures:
        return runs
    first, (reason, time) = next(iter(failures.items()))
    error = kind(f"simulate: {len(failures)} of {len(runs)} runs failed (run {first}: {reason} at t = {time:.6g} s)",
                 time=time, trajectory=runs[first])
    error.trajectories, error.failures = runs, {b: reason for b, (reason, _) in failures.items()}
    raise error


def _check_progress(events, fired, t, history):
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


MAX_DEFAULT_SAMPLES = 1_000_001  # output samples simulate chooses itself (over 10,000 s, or every step dt)


def _output_times(t_start, t_end, t_eval, samples, dt=None) -> np.ndarray:
    if t_eval is None and samples is None and dt is not None:  # every fixed step, the last one ending at t_end
        steps = np.ceil((t_end - t_start) / dt * (1.0 - 1e-12))
        if not steps <= MAX_DEFAULT_SAMPLES:
            raise ValueError(f"simulate: a sample at every step dt = {dt:g} s from {t_start:g} to {t_end:g} s would "
                             f"be {steps:.3g} samples: give samples= or t_eval= (CLI: --samples)")
        return np.append(t_start + dt * np.arange(int(steps)), t_end)
    if t_eval is None:  # 100 samples a second, at least 101 and at most MAX_DEFAULT_SAMPLES
        count = samples or int(np.clip(np.rint(100.0 * (t_end - t_start)) + 1, 101, MAX_DEFAULT_SAMPLES))
        return np.linspace(t_start, t_end, int(count))
    t_eval = np.asarray(t_eval, dtype=float)
    if (t_eval.ndim != 1 or not t_eval.size or not np.all(np.isfinite(t_eval)) or np.any(np.diff(t_eval) < 0)
            or t_eval[0] < t_start or t_eval[-1] > t_end):
        raise ValueError(f"simulate: t_eval must be finite increasing times within [{t_start}, {t_end}], got "
                         f"{np.array2string(t_eval, threshold=8)}")
    return t_eval


def _refuse_start_past_limits(model, q0, limits, tolerance=1e-6):
    """ValueError when ``q0`` puts a joint past a bound that the run enforces as a stop: the smooth methods' limit
    events need a start inside the bounds (``method="contact"`` pushes such a joint back in)."""
    for side in limit_sides(model, q0, np.zeros(model.nv), limits):
        if side.gap < -tolerance:
            limit = side.limit
            value = q0[model.q_slice(limit.joint).start]
            raise ValueError(f"simulate: q0 puts joint {limit.joint!r} of model '{model.name}' at {value:.6g}, past "
                             f"its {side.side} limit (range [{limit.lower:.6g}, {limit.upper:.6g}]); start inside its "
                             "limits, pass joint_limits=False to run without the joints' stored limits, or use "
                             "method=\"contact\", which pushes it back")


def _with_reached(ts: list[float], xs: list[np.ndarray],
                  clock: list[Any]) -> tuple[list[float], list[np.ndarray]]:
    """The samples (times ``ts``, states ``xs``) of a stopped run followed by the state it reached (``clock``: the
    time and state of its last accepted step) when that is finite and later than the last sample."""
    t, x = clock
    if (ts and t <= ts[-1]) or not np.all(np.isfinite(x)):
        return ts, xs
    return [*ts, t], [*xs, np.array(x, dtype=float)]


def _run_segment(solver, t_eval, events, ts, xs, log, info, bar, nq, normalized, clock, skip=None):
    """Step ``solver`` to its end or to the first terminal/action event; append outputs and events.

    Returns (time, state, stopped, fired): the state after an event's action when the run should restart;
    ``fired`` is None or (index of the event whose action ran, whether the action left the state unchanged).
    ``clock`` follows the time and state of the last accepted step. ``skip`` = (event index or None, time): a crossing
    of that event at that time was handled by an action that left the state unchanged and is not fired again.
    """
    def g(event, t, x):
        try:
            return float(event.function(t, normalized(x[:nq]), x[nq:]))
        except (SimulationError, _UserCodeFailed):
            raise
        except Exception as exc:
            raise _UserCodeFailed(f"event '{event.name}'", t, exc) from exc

    for _ in t_eval[t_eval == solver.t] if not ts else ():  # the samples at the start time (repeated ones too)
        ts.append(solver.t)
        xs.append(solver.y.copy())
    values = [g(e, solver.t, solver.y) for e in events]
    nfev = 0
    while solver.status == "running":
        t_old = solver.t
        try:
            message = solver.step()
        except (ValueError, FloatingPointError, ArithmeticError) as exc:
            raise SimulationError(f"integration failed at t = {t_old:.6g} s: {exc}", time=t_old) from exc
        clock[:] = solver.t, solver.y
        info["steps"] += 1
        info["nfev"] += solver.nfev - nfev
        nfev = solver.nfev
        if solver.status == "failed":
            raise SimulationError(f"integration failed at t = {t_old:.6g} s: {message}", time=t_old)
        if not np.all(np.isfinite(solver.y)):
            raise SimulationError(f"state became non-finite at t = {solver.t:.6g} s", time=t_old)
        dense = solver.dense_output()
        crossings = []
        for k, event in enumerate(events):
            new = g(event, solver.t, solver.y)
            rising, falling = values[k] < 0 <= new, values[k] > 0 >= new
            if (rising and event.direction >= 0) or (falling and event.direction <= 0):
                root = optimize.brentq(lambda s: g(event, s, dense(s)), t_old, solver.t, xtol=1e-12, rtol=1e-15)
                if not (skip is not None and skip[0] == k and root - skip[1] <= _SAME_TIME * max(1.0, abs(root))):
                    crossings.append((root, k))
            values[k] = new
        crossings.sort()
        stopping = [(tc, k) for tc, k in crossings if events[k].terminal or events[k].action is not None]
        t_stop = stopping[0][0] if stopping else solver.t
        log.extend((events[k].name, tc) for tc, k in crossings if tc <= t_stop)
        for t_out in t_eval[(t_eval > t_old) & (t_eval <= t_stop)]:
            ts.append(float(t_out))
            xs.append(dense(t_out))
        bar.update(t_stop - t_eval[0])
        if stopping:
            k = stopping[0][1]
            event, x = events[k], dense(t_stop)
            clock[:] = t_stop, x
            if event.action is None:
                return t_stop, x, True, None
            q, v = _guarded(event.action, f"the action of event '{event.name}'")(t_stop, normalized(x[:nq]), x[nq:])
            after = np.concatenate([normalized(np.asarray(q, float)), np.asarray(v, float)])
            unchanged = after.shape == x.shape and np.array_equal(after, np.concatenate([normalized(x[:nq]), x[nq:]]))
            return t_stop, after, event.terminal, (k, unchanged)
    return solver.t, solver.y, False, None
