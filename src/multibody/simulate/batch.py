"""Several runs of :func:`multibody.simulate` at once — from the rows of (B, nq) and (B, nv) initial states, or of B
models of one structure — all together in the compiled loop where it takes them, else one after the other; and the
runs on a GPU (:mod:`.gpu`).
"""
from __future__ import annotations

import numpy as np

from ..errors import SimulationError, SimulationInterrupted
from . import gpu as gpu_runs
from .lockstep import check_same_structure
from .planning import COMPILED, compiled_times, gathered, output_times, planned_runs, warn_beyond_limits
from .torques import TorqueTable


def runs(model, Q0, V0, t_end, options, simulate_one):
    """The trajectories of the runs from the rows of Q0 (B, nq) and V0 (B, nv) (one of them may be a single state),
    of ``model`` or of model[b] for a list of B models of the same structure, and, optionally, a torque per run
    (B, nv): planned once (:func:`~multibody.simulate.planning.planned_runs`), then all together in the compiled
    contact loop or the compiled loop when it takes the models and the options, else one after the other.
    Failed runs raise one SimulationError after all ran, with ``trajectories``: every run's trajectory (partial
    for the failed ones), and ``failures``: {run: reason}; Ctrl-C, SimulationInterrupted with the same.
    Q0, V0 and a constant torque come checked (:func:`multibody.simulate.torques.initial_inputs`, at simulate's entry);
    ``simulate_one(model, q0, v0, t_end, options)``: one run of simulate from a checked state, which runs them one
    after the other."""
    plan = planned_runs(model, Q0, V0, t_end, options, stacklevel=5)
    if plan.backend == "contact":
        return _contact_runs(plan)
    if plan.backend == "compiled":
        return _compiled_runs(plan)
    runs, failures = [], {}
    torque, controls = plan.torque, plan.controls
    for b in range(plan.Q0.shape[0]):
        try:
            runs.append(simulate_one(plan.models[b] if plan.models else plan.model, plan.Q0[b], plan.V0[b], t_end, {
                **plan.options, "torque": torque if torque is None or callable(torque) else torque[b],
                "ctrl": None if controls is None else controls[b]}))
        except SimulationError as exc:
            runs.append(exc.trajectory)
            failures[b] = (str(exc), exc.time)
    return gathered(runs, failures, SimulationError)


def _contact_runs(plan):
    """:func:`runs` of ``method="contact"`` all together in the compiled contact loop, across threads
    (:func:`multibody.simulate.contact_loop.contact_runs`), enforcing the planned joint limits; the trajectories
    checked against the limits stored with the joints (:func:`warn_beyond_limits`)."""
    from . import contact_loop
    model, options = plan.model, plan.options
    trajectories, failures = contact_loop.contact_runs(model, np.ascontiguousarray(plan.Q0),
                                                       np.ascontiguousarray(plan.V0), plan.t_eval,
                                                       {**options, "torque": plan.torque}, plan.limits, plan.controls)
    warn_beyond_limits(model, plan.stored, *trajectories, stacklevel=5, enforced=options["joint_limits"])
    interrupted = any(reason == "interrupted" for reason, _ in failures.values())
    return gathered(trajectories, failures, SimulationInterrupted if interrupted else SimulationError)


def _compiled_runs(plan):
    """:func:`runs` all together in the compiled loop (:func:`multibody.simulate.compiled.integrate_tree_batch`)."""
    from . import compiled as loop
    model, models, options, torque, controls, t_eval = (plan.model, plan.models, plan.options, plan.torque,
                                                        plan.controls, plan.t_eval)
    B, events, method = plan.Q0.shape[0], options["events"], options["method"]
    times = compiled_times(t_eval, plan.t_end, events)
    t, Q, V, info = loop.integrate_tree_batch(
        models or model, plan.Q0, plan.V0, times, method=COMPILED[method],
        rtol=options["rtol"], atol=options["atol"], max_step=options["max_step"], dt=options["dt"], tau=torque,
        t_start=options["t_start"], events=events, ctrl=controls, checked=True)
    tau = np.zeros((B, model.nv)) if torque is None else [torque] * B if isinstance(torque, TorqueTable) else torque
    counts = np.minimum(info["samples"], len(t_eval))
    runs = [loop.tree_trajectory(models[b] if models else model, t[:counts[b]], Q[b, :counts[b]], V[b, :counts[b]],
                                 {**info, "status": info["status"][b], "samples": int(counts[b]),
                                  "t_reached": float(info["t_reached"][b]), "events": info["events"][b]}, tau[b],
                                 ctrl=None if controls is None else controls[b])
            for b in range(B)]
    failures = {b: (info["status"][b], float(info["t_reached"][b])) for b in range(B)
                if info["status"][b] not in ("ok", "terminal event")}
    warn_beyond_limits(model, plan.stored, *runs, stacklevel=5)  # from here, through runs and simulate, to its caller
    interrupted = any(reason == "interrupted" for reason, _ in failures.values())
    return gathered(runs, failures, SimulationInterrupted if interrupted else SimulationError)


def on_gpu(model, q0, v0, t_end, device, options, t_eval, samples):
    """:func:`simulate` on the GPU (:func:`multibody.simulate.gpu.simulate`): Rollouts for initial states on a GPU,
    else the trajectories (one SimulationError naming the failed runs, as on the CPU)."""
    t_start, t_end = float(options["t_start"]), float(t_end)
    if not t_end > t_start:
        raise ValueError(f"simulate: t_end ({t_end}) must be greater than t_start ({t_start})")
    if isinstance(model, (list, tuple)):
        check_same_structure(list(model))
    times = output_times(t_start, t_end, t_eval, samples, options["dt"])
    return gpu_runs.simulate(model, q0, v0, t_end, times, options, device)
