"""Time integration of the equations of motion M(q) v̇ + c(q, v) = τ: scipy's adaptive Runge–Kutta and implicit
solvers, fixed-step RK4, semi-implicit Euler and the velocity-level contact stepper, for trees, constrained models,
joint limits and collisions.

:func:`simulate` checks its options and plans the run (:mod:`.planning`), then hands it to a backend: the compiled
loop (:mod:`.compiled`), the compiled loop up to the first joint stop (:mod:`.stops`), the Python loop
(:mod:`.python_loop`), several runs at once (:mod:`.batch`) or the GPU (:mod:`.gpu`).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np
from numpy.typing import ArrayLike

from ..errors import checked_number
from . import contact_loop
from . import gpu as gpu_runs
from .batch import on_gpu, runs
from ..event import Event
from .lockstep import check_same_structure
from .planning import (COMPILED, FIXED_STEP, MAX_DEFAULT_SAMPLES, compiled_times, planned_run, python_loop_notice,
                       warn_beyond_limits)
from .python_loop import python_run
from .stops import run_to_limits
from .torques import TorqueTable, initial_inputs
from .trajectory import Trajectory

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from ..model import Model

__all__ = ["simulate", "simulate_impacts", "run", "Event", "FIXED_STEP", "MAX_DEFAULT_SAMPLES"]


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
        position servos then hold their zero). Constant and tabulated controls run in the compiled loop, with the
        actuators and fixed tendons as compiled force elements; a callable takes the Python loop.
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

    Repeated calls with one model and the same options (a control loop's short calls) plan the run once: what it
    reads from the model and the options alone is kept with the compiled model
    (:class:`~multibody.simulate.planning.KeptPlan`; any edit of the model drops it), and each call checks only its
    own state, span, output times, torque and controls.

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
    events = list(events)
    options = dict(t_start=t_start, method=method, dt=dt, rtol=rtol, atol=atol, max_step=max_step, t_eval=t_eval,
                   samples=samples, torque=torque, ctrl=ctrl, f_ext=f_ext, events=events, dynamics=dynamics,
                   collisions=collisions, stabilization=stabilization, projection=projection,
                   constraint_tolerance=constraint_tolerance, progress=progress, compiled=compiled,
                   joint_limits=joint_limits)
    if device is not None or ((q0 is not None or v0 is not None or torque is not None)
                              and gpu_runs.gpu.on_device(q0, v0, torque)):
        return on_gpu(model, q0, v0, t_end, device, options, t_eval, samples)
    models: list[Model] | None = None
    if isinstance(model, Sequence):  # a model per run
        models = list(model)
        check_same_structure(models)
        one = models[0]  # the first model checks the states and plans the runs
    else:
        one = model
    q0, v0, options["torque"] = initial_inputs(one, one.initial_configuration() if q0 is None else q0,
                                               np.zeros(one.nv) if v0 is None else v0, torque, "simulate")  # once
    for name, value in (("t_start", t_start), ("t_end", t_end)):
        checked_number(value, f"simulate: {name}")  # finite: an endless run is a loop with a stop condition
    if q0.ndim == 2 or v0.ndim == 2 or models is not None:
        return runs(models or one, q0, v0, t_end, options, _one_run)
    return _one_run(one, q0, v0, t_end, options)


def _one_run(model, q0, v0, t_end, options):
    """One run of :func:`simulate` from (q0, v0), as simulate's entry checked them with a constant torque
    (:func:`~multibody.simulate.torques.initial_inputs`): planned once
    (:func:`~multibody.simulate.planning.planned_run`: every check, what the run meets in the model, the backend),
    then run by the compiled contact loop, the compiled loop up to the first joint stop, the compiled loop, or the
    Python loop, and its trajectory checked against the joint limits the run did not enforce. (The warnings'
    stacklevels count the frames from the warning function through this and simulate to simulate's caller.)"""
    plan = planned_run(model, q0, v0, t_end, options, stacklevel=5)
    if plan.backend == "stops":
        rest = {**options, "samples": None, "compiled": False}  # the Python loop after the first stop
        return run_to_limits(model, q0, v0, plan.t_end, plan.t_eval, plan.limits, _compiled_run(plan),
                             lambda t, q, v, times: _one_run(model, q, v, plan.t_end, {**rest, "t_start": t,
                                                                                        "t_eval": times}), plan.kept)
    if plan.backend == "contact":
        trajectory = contact_loop.contact_run(model, q0, v0, plan.t_eval, options, plan.limits, plan.kept)
    elif plan.backend == "compiled":
        trajectory = _compiled_run(plan)()
    else:
        if plan.refusal:
            python_loop_notice(model, plan.refusal, stacklevel=4)
        trajectory = python_run(plan)
    return warn_beyond_limits(model, plan.stored, trajectory, stacklevel=4, enforced=options["joint_limits"])


def _compiled_run(plan):
    """run(watched=()): the compiled loop's Trajectory of the planned run
    (:func:`multibody.simulate.compiled.tree_run_trajectory`), watching the built-in events ``watched`` first."""
    options, t_end, t_eval = plan.options, plan.t_end, plan.t_eval

    def run(watched=()):
        from . import compiled as loop
        events = [*watched, *options["events"]]
        return loop.tree_run_trajectory(
            plan.model, plan.q0, plan.v0, compiled_times(t_eval, t_end, events), samples=len(t_eval),
            method=COMPILED[options["method"]], rtol=options["rtol"], atol=options["atol"],
            max_step=options["max_step"], dt=options["dt"], tau=options["torque"], t_start=options["t_start"],
            events=events, ctrl=options["ctrl"], checked=True, kept=plan.kept)
    return run


def simulate_impacts(model: Model, q0: ArrayLike | None = None, v0: ArrayLike | None = None, t_end: float = 1.0, *,
                     law: str = "newton", method: str = "sequential", rest_velocity: float = 1e-3,
                     contact_tolerance: float = 1e-9, release_distance: float = 1e-6,
                     stabilization: tuple[float, float] = (20.0, 20.0), rtol: float = 1e-10, atol: float = 1e-12,
                     **options: Any) -> Trajectory:
    """Simulate with collisions between the model's contact shapes (event-driven, impulsive impacts): an alias of
    ``multibody.simulate(model, q0, v0, t_end, collisions={law, method, ...}, rtol=1e-10, atol=1e-12)``.

    Parameters
    ----------
    q0, v0, t_end : as for :func:`multibody.simulate`; ``options`` (its integration ``method`` excepted: max_step,
        t_eval, samples, torque, f_ext, events, progress) are passed on to it.
    law : "newton" or "poisson" restitution; method : "sequential" (default: pairwise propagation, Newton's
        cradle) or "simultaneous" (see :func:`~multibody.impact.resolve_impact`).
    rest_velocity : [m/s] approach speed below which an impact is plastic and a touching pair rests.
    contact_tolerance : [m] pairs this close at an impact take part in it (simultaneous impacts).
    release_distance : [m] a resting pair is watched again once its gap exceeds this.
    stabilization : Baumgarte gains (α, β) [1/s] for resting contacts.

    Returns
    -------
    Trajectory, with ``trajectory.impacts`` the list of :class:`ImpactRecord` (saved with the trajectory, tabled
    by ``trajectory.impacts_dataframe()``) and the impact events in ``trajectory.events``. A failed integration's
    SimulationError (or Ctrl-C's SimulationInterrupted) carries the partial trajectory with the impacts so far.
    """
    collisions = dict(law=law, method=method, rest_velocity=rest_velocity, contact_tolerance=contact_tolerance,
                      release_distance=release_distance, stabilization=stabilization)
    return cast("Trajectory", simulate(model, q0, v0, t_end, rtol=rtol, atol=atol, collisions=collisions, **options))


SCHEMES = {"rk4": "RK4", "contact": "contact"}  # run's schemes and the methods of simulate they are


def run(model: Model, q0: ArrayLike, v0: ArrayLike, t_end: float, dt: float,
        tau: ArrayLike | Callable[[float, np.ndarray, np.ndarray], Any] | None = None, scheme: str = "rk4",
        stabilization: tuple[float, float] | None = None, projection: bool = True, tol: float = 1e-8) -> Trajectory:
    """Integrate from (q0, v0) at t = 0 to ``t_end`` [s] with fixed step ``dt`` [s], a sample at every step: an
    alias of ``multibody.simulate(model, q0, v0, n·dt, method=..., dt=dt, t_eval=dt·(0, 1, …, n))`` with
    n = round(t_end / dt).

    tau : None, an (nv,) array, or a callable tau(t, q, v) -> (nv,) (simulate's ``torque``).
    scheme : "rk4" (``method="RK4"``; ``stabilization`` = Baumgarte (α, β) [1/s], ``projection`` on/off) or
        "contact" (``method="contact"``, velocity-level time stepping with contacts).
    The initial state must satisfy the constraints to ``tol`` (ValueError otherwise; see :func:`assemble`).
    Returns the :class:`~multibody.Trajectory`, its ``drift`` the constraint residual before each projection.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {tuple(SCHEMES)}, got {scheme!r}")
    if not (np.isfinite(dt) and dt > 0 and np.isfinite(t_end) and t_end >= dt / 2):
        raise ValueError(f"need dt > 0 and t_end ≥ dt/2 (finite), got dt={dt!r}, t_end={t_end!r}")
    steps = int(round(t_end / dt))
    return cast("Trajectory", simulate(  # one state: one Trajectory
        model, q0, v0, steps * dt, method=SCHEMES[scheme], dt=dt, t_eval=dt * np.arange(steps + 1), torque=tau,
        stabilization=stabilization, projection=projection, constraint_tolerance=tol))
