"""Several runs of :func:`multibody.simulate` at once — from the rows of (B, nq) and (B, nv) initial states, or of B
models of one structure — all together in the compiled loop where it takes them, else one after the other; and the
runs on a GPU (:mod:`.gpu`).
"""
from __future__ import annotations

import numpy as np

from ..constraints.limits import enforced_limits, stored_limits
from ..errors import SimulationError, SimulationInterrupted
from . import gpu as gpu_runs
from .actuators import compiled_controls, control_function, per_run_controls
from .lockstep import check_same_structure
from .planning import (COMPILED, check_method, compiled_times, gathered, in_compiled_loop, output_times,
                       warn_beyond_limits, warn_ignored_shapes)
from .torques import TorqueTable, per_run_tables


def runs(model, Q0, V0, t_end, options, simulate_one):
    """The trajectories of the runs from the rows of Q0 (B, nq) and V0 (B, nv) (one of them may be a single state),
    of ``model`` or of model[b] for a list of B models of the same structure, and, optionally, a torque per run
    (B, nv): all together in the compiled loop when it takes the models and the options, else one after the other.
    Failed runs raise one SimulationError after all ran, with ``trajectories``: every run's trajectory (partial
    for the failed ones), and ``failures``: {run: reason}; Ctrl-C, SimulationInterrupted with the same.
    Q0, V0 and a constant torque come checked (:func:`multibody.simulate.torques.initial_inputs`, at simulate's entry);
    ``simulate_one(model, q0, v0, t_end, options)``: one run of simulate from a checked state, which runs them one
    after the other."""
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
    if per_run_tables(torque):
        if len(torque) != B:
            raise ValueError(f"simulate: {len(torque)} torque tables for {B} runs")
    method, collisions = options["method"], options["collisions"] not in (False, None)
    check_method(method, options["dt"], options["dynamics"], collisions)
    compiled = in_compiled_loop(model, method, options["compiled"], options["progress"], collisions, torque,
                                options["f_ext"], options["events"], options["dynamics"], options["atol"],
                                stacklevel=5)  # (False for "contact"; the stored limits: below)
    contact = False
    if method == "contact" and models is None and options["compiled"] and options["progress"] is not True:
        from . import contact_loop
        contact = not contact_loop.unsupported(model, torque, options["f_ext"], options["events"], options["dynamics"])
    # what the runs meet in the model, read from the layers below: contact shapes, stored limits, the torque's size
    warn_ignored_shapes(model, options, stacklevel=4)  # (to simulate's caller)
    stored = stored_limits(model)
    limits = enforced_limits(model, options["joint_limits"]) if contact else []
    if torque is not None and not callable(torque) and not per_run_tables(torque):
        torque = np.broadcast_to(torque, (B, model.nv))  # (checked with the states, at simulate's entry)
    if contact:
        return _contact_runs(model, stored, limits, Q0, V0, t_end, torque, controls, options)
    if not compiled or (options["joint_limits"] and stored):
        runs, failures = [], {}
        for b in range(B):
            try:
                runs.append(simulate_one(models[b] if models else model, Q0[b], V0[b], t_end, {
                    **options, "torque": torque if torque is None or callable(torque) else torque[b],
                    "ctrl": None if controls is None else controls[b]}))
            except SimulationError as exc:
                runs.append(exc.trajectory)
                failures[b] = (str(exc), exc.time)
        return gathered(runs, failures, SimulationError)
    return _compiled_runs(models, model, stored, B, Q0, V0, t_end, torque, controls, options)


def _contact_runs(model, stored, limits, Q0, V0, t_end, torque, controls, options):
    """:func:`runs` of ``method="contact"`` all together in the compiled contact loop, across threads
    (:func:`multibody.simulate.contact_loop.contact_runs`), enforcing ``limits`` (the enforced joint limits);
    ``stored``: the limits stored with the joints (:func:`warn_beyond_limits`)."""
    from . import contact_loop
    if not t_end > options["t_start"]:
        raise ValueError(f"simulate: t_end ({t_end}) must be greater than t_start ({options['t_start']})")
    t_eval = output_times(float(options["t_start"]), float(t_end), options["t_eval"], options["samples"],
                          options["dt"])
    trajectories, failures = contact_loop.contact_runs(model, np.ascontiguousarray(Q0), np.ascontiguousarray(V0),
                                                       t_eval, {**options, "torque": torque},
                                                       limits, controls)
    warn_beyond_limits(model, stored, *trajectories, stacklevel=5, enforced=options["joint_limits"])
    interrupted = any(reason == "interrupted" for reason, _ in failures.values())
    return gathered(trajectories, failures, SimulationInterrupted if interrupted else SimulationError)


def _compiled_runs(models, model, stored, B, Q0, V0, t_end, torque, controls, options):
    """:func:`runs` all together in the compiled loop (:func:`multibody.simulate.compiled.integrate_tree_batch`)."""
    from . import compiled as loop
    t_eval = output_times(float(options["t_start"]), float(t_end), options["t_eval"], options["samples"],
                          options["dt"])
    events, method = options["events"], options["method"]
    t, Q, V, info = loop.integrate_tree_batch(
        models or model, Q0, V0, compiled_times(t_eval, t_end, events), method=COMPILED[method],
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
    warn_beyond_limits(model, stored, *runs, stacklevel=5)  # from here, through runs and simulate, to its caller
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
