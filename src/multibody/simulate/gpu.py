"""Batched fixed-step rollouts on an NVIDIA GPU: :func:`multibody.simulate` with ``device="cuda"`` or initial
states on a GPU, one CUDA thread per run (:func:`multibody.dynamics._gpu_kernels.kernels`' ``rollout``).

Each thread runs RK4 or semi-implicit Euler with the steps of the CPU's compiled loop
(:func:`multibody.simulate.steppers.fixed_step`: each interval between output times in equal steps of at most dt)
and the same device functions as the CPU core, so the two agree to round-off; every joint type runs (quaternions
renormalized after each RK4 step, the Euler step exact on each joint's manifold). A torque per run, constant
(B, nv), and a model per run (of the same structure) are taken; callables, tables, controls, body forces, force
elements (actuators too), constraints, joint limits, events and contact are not (NotImplementedError naming them:
the CPU runs them).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..dynamics import gpu
from ..dynamics._layout import NPARAMS
from ..errors import SimulationError
from .planning import failure

METHODS = ("RK4", "Euler")


@dataclass
class Rollouts:
    """Runs computed on a GPU from initial states on a GPU: t (T,) output times [s] (NumPy), and q (B, T, nq), v
    (B, T, nv) at them, arrays of the initial states' kind (numba device arrays, CuPy, PyTorch). Runs whose state
    became non-finite hold NaN from then on and are listed in ``info["failed"]``."""

    t: np.ndarray
    q: Any
    v: Any
    info: dict = field(default_factory=dict)


def unsupported(model, options) -> str:
    """Why the GPU rollouts cannot take these options (those of :func:`multibody.simulate`), or ""."""
    if options["method"] not in METHODS:
        return f"method {options['method']!r} (the GPU runs {' and '.join(METHODS)})"
    if options["dt"] is None:
        return f"no dt (the {options['method']} steps on the GPU need one)"
    for name in ("f_ext", "dynamics", "stabilization", "ctrl"):
        if options[name] is not None:
            return name
    if options["events"]:
        return "events"
    if options["collisions"] not in (False, None):
        return "collisions"
    torque = options["torque"]
    if torque is not None and (callable(torque) or isinstance(torque, (list, tuple)) and not np.ndim(torque[0])):
        return "a torque that is not a constant array"
    for m in model if isinstance(model, (list, tuple)) else (model,):
        if m.forces:
            return f"force elements ({type(m.forces[0]).__name__} of model '{m.name}')"
        if getattr(m, "constraints", None):
            return f"constraints (model '{m.name}')"
        if options["joint_limits"] and any(j.limits is not None and (  # the stored limits it would enforce
                np.isfinite(j.limits.lower) or np.isfinite(j.limits.upper)) for j in m.joints):
            return f"joint limits (model '{m.name}'; joint_limits=False lets the joints pass the stored ones)"
        if (m._compiled or m.compile()).flexible:
            return f"flexible beams (model '{m.name}')"
    return ""


def simulate(model, q0, v0, t_end, t_eval, options, device):
    """The GPU's runs of :func:`multibody.simulate` (see the module). ``t_eval``: the output times."""
    models = list(model) if isinstance(model, (list, tuple)) else None
    reason = unsupported(model, options)
    if reason:
        raise NotImplementedError(f"simulate on the GPU does not take {reason}: run it on the CPU (without "
                                  "device=... and with CPU arrays)")
    first = models[0] if models else model
    cm = first._compiled or first.compile()
    nq, nv = cm.nq, cm.nv
    q0 = first.initial_configuration() if q0 is None else q0
    v0 = np.zeros(nv) if v0 is None else v0
    torque = np.zeros(nv) if options["torque"] is None else options["torque"]
    call = gpu._Call("simulate", first, [(q0, nq, "q0"), (v0, nv, "v0"), (torque, nv, "torque")], device,
                     broadcast=True)
    Qd, Vd, Td = call.inputs
    B = call.B if models is None else len(models)
    if models is not None and call.B not in (1, B):
        raise ValueError(f"simulate: {B} models for {call.B} initial states")
    call.B = B
    params = call.params if models is None else call.cuda.to_device(
        np.array([(m._compiled or m.compile()).params for m in models]).reshape(B, -1, NPARAMS))
    t_eval = np.asarray(t_eval, dtype=np.float64)
    X = call.cuda.device_array((B, t_eval.shape[0], nq + nv))
    call.kernels["rollout"][call.grid](call.topology, params, call.gravity, options["method"] == "Euler", Td,
                                       call.no_forces, Qd, Vd, float(options["t_start"]), call.cuda.to_device(t_eval),
                                       float(options["dt"]), X, call.status)
    info = {"method": options["method"], "dt": float(options["dt"]), "device": "cuda", "compiled": True}
    if call.like is None:  # NumPy in: the Trajectory list of the CPU's batched runs
        return _trajectories(models or [first] * B, t_eval, X.copy_to_host(), nq, Td.copy_to_host(), info)
    failed = bool(call.status.copy_to_host()[0])
    if failed:
        info["failed"] = np.flatnonzero(~np.isfinite(X.copy_to_host()[:, -1, 0])).tolist()
    call.single = False
    return Rollouts(t_eval, call.give_back(X[:, :, :nq]), call.give_back(X[:, :, nq:]), info)


def _trajectories(models, t, X, nq, tau, info):
    """The runs as the CPU's batched runs return them, a list of Trajectory objects; SimulationError naming the
    failed runs, as on the CPU (:func:`multibody.simulate.planning.gathered`)."""
    from . import compiled as loop  # (loaded on first use, as simulate does: its kernels are many)
    runs, failures = [], {}
    for b, model in enumerate(models):
        finite = np.isfinite(X[b]).all(axis=1)
        count = int(np.argmin(finite)) if not finite.all() else len(t)
        status = "ok" if count == len(t) else "non-finite state"
        runs.append(loop.sampled_trajectory(model, t[:count], X[b, :count, :nq], X[b, :count, nq:],
                                            {**info, "status": status, "samples": count}))
        if status != "ok":
            failures[b] = (status, float(t[max(count - 1, 0)]))
    error = failure(runs, failures, SimulationError)
    for b, run in enumerate(runs):  # the accelerations at the torque (the GPU takes no force elements nor controls)
        loop.add_rates(run, tau[min(b, len(tau) - 1)], loop.no_force_rows(run.model.nq, run.model.nv))
    if error is not None:
        raise error
    return runs
