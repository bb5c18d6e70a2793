"""Batched fixed-step rollouts in lockstep: ``LANES`` runs advance together, and every right-hand side is one
evaluation of the articulated-body algorithm across them, vectorized over the runs
(:func:`multibody.dynamics._batch.aba_lanes`, structure of arrays: the runs' states are kept lanes last
throughout).

For trees of revolute and prismatic joints, where q̇ = v, so that a stage state is q + c k_q, v + c k_v with
no manifold to stay on. The schemes, RK4 and semi-implicit Euler, are those of
:mod:`multibody.dynamics._stepper_family`, which :func:`multibody.simulate.steppers.fixed_step` steps too, with the
same steps (each interval between output times in equal steps of at most dt), so the two agree to round-off.

τ = τ_const + the joint springs and friction of :func:`multibody.simulate.compiled.joint_force_array`.
"""
from __future__ import annotations

import numpy as np
from numba.extending import overload

from ..dynamics._batch import LANES, aba_lanes, thread_workspaces
from ..dynamics._threads import in_threads
from ..dynamics._spatial_kernels import PARENT, wide_vectors, work
from ..dynamics._spatial_kernels import inline, njit_without_refcounts
from ..dynamics._stepper_family import stepper_family
from .forces import add_joint_forces


def structure_difference(model, other) -> str:
    """How the structure of ``other`` differs from that of ``model`` ("" if it does not). Runs of one batch may
    differ in their parameters only — masses, inertias, joint placements and axes, armatures, the constants of
    their force elements — not in their structure: the same bodies in the same tree, joined by joints of the
    same types, under the same gravity, with force elements of the same kinds on the same joints or bodies and
    constraints of the same kinds."""
    a, b = (m._compiled or m.compile() for m in (model, other))
    if a.topology.shape != b.topology.shape or (a.nq, a.nv) != (b.nq, b.nv):
        return (f"{a.topology.shape[0]} bodies, nq = {a.nq}, nv = {a.nv} against {b.topology.shape[0]} bodies, "
                f"nq = {b.nq}, nv = {b.nv}")
    for i, (joint, twin) in enumerate(zip(model.joints, other.joints)):
        if a.topology[i, PARENT] != b.topology[i, PARENT] or type(joint) is not type(twin):
            return (f"body {i} ({model.bodies[i].name}) hangs by a {type(joint).__name__} joint from body "
                    f"{a.topology[i, PARENT]} against a {type(twin).__name__} joint from body {b.topology[i, PARENT]}")
    if not np.array_equal(a.gravity, b.gravity):
        return f"gravity {a.gravity.tolist()} against {b.gravity.tolist()} m/s²"
    for what, items in (("force elements", lambda m: m.forces), ("constraints", lambda m: m.constraints)):
        kinds = [[(type(e).__name__, getattr(e, "joint", None), getattr(e, "a", None), getattr(e, "b", None))
                  for e in items(m)] for m in (model, other)]
        if kinds[0] != kinds[1]:
            return f"{what} {kinds[0]} against {kinds[1]} (kind, joint, bodies)"
    return ""


def check_same_structure(models, what="simulate"):
    """ValueError naming the first of ``models`` (a sequence of Models, one per run) whose structure differs from
    that of models[0] (:func:`structure_difference`), and how."""
    if not models:
        raise ValueError(f"{what}: no models given")
    for k, model in enumerate(models[1:], 1):
        difference = structure_difference(models[0], model)
        if difference:
            raise ValueError(f"{what}: the runs' models must differ only in parameters, but models[{k}] "
                             f"('{model.name}') differs in structure from models[0] ('{models[0].name}'): "
                             f"{difference}")


def applies(model) -> bool:
    """True when every joint of ``model`` has one degree of freedom (revolute or prismatic: q̇ = v)."""
    return all((joint.nq, joint.nv) == (1, 1) for joint in model.joints)


@njit_without_refcounts(cache=True)
def joint_torques(tau, joint_forces, q, v, b0, nb, out):
    """out[:, b] = τ_{b0 + b} + Q(q[:, b], v[:, b]): run b0 + b's torque (tau (B, n)) and joint springs and
    friction (joint_forces[b0 + b], :func:`multibody.simulate.forces.add_joint_forces`), lanes last."""
    for k in range(tau.shape[1]):
        for b in range(nb):
            out[k, b] = tau[b0 + b, k]
    if joint_forces.shape[1] > 0:
        for b in range(nb):
            add_joint_forces(joint_forces[b0 + b], q[:, b], v[:, b], out[:, b])


def chunk_params(params, b0, nb, lanes):
    """The params of runs b0 … b0 + nb − 1 for :func:`multibody.dynamics._batch.aba_lanes`: ``params`` itself when
    the runs share them (n, NPARAMS), else run b0 + b's params (params (B, n, NPARAMS)) copied to lanes[:, :, b]
    (lanes (n, NPARAMS, LANES)), which is returned."""
    if params.ndim == 2:
        return params
    for b in range(nb):
        lanes[:, :, b] = params[b0 + b]
    return lanes


@overload(chunk_params)
def _chunk_params(params, b0, nb, lanes):
    if params.ndim == 2:
        return lambda params, b0, nb, lanes: params

    def per_run(params, b0, nb, lanes):
        for i in range(params.shape[1]):
            for k in range(params.shape[2]):
                for b in range(nb):
                    lanes[i, k, b] = params[b0 + b, i, k]
        return lanes
    return per_run


@inline
def lane_accelerations(args, t, x, dx):
    """dx[m:] = v̇ = ABA(q, v, τ + Q(q, v)) across the lanes of the lanes' state x = (q, v) (the runs' q (n, LANES)
    then v (n, LANES), flat; m = n LANES) (:func:`joint_torques`, :func:`multibody.dynamics._batch.aba_lanes`).
    args = (topology, params, gravity, tau, joint_forces, b0, nb, taus, no_forces, the ABA's work arrays)."""
    topology, params, gravity, tau, joint_forces, b0, nb, taus, no_forces, aba_work = args
    R0, d, S, V, C, IA, PA, U, D, Dinv, A = aba_work
    n, lanes = taus.shape[0], taus.shape[1]
    m = n * lanes
    q, v = x[:m].reshape((n, lanes)), x[m:].reshape((n, lanes))
    joint_torques(tau, joint_forces, q, v, b0, nb, taus)
    aba_lanes(topology, params, gravity, q, v, taus, no_forces, np.int64(0), nb, dx[m:].reshape((n, lanes)),
              R0, d, S, V, C, IA, PA, U, D, Dinv, A)


@inline
def lane_rates(args, t, x, dx):
    """dx = ẋ = (q̇, v̇) of the lanes' state x = (q, v): q̇ = v, v̇ of :func:`lane_accelerations`."""
    m = x.shape[0] // 2
    for i in range(m):
        dx[i] = x[m + i]
    lane_accelerations(args, t, x, dx)


@inline
def lane_integrate(args, q, v, h, out):
    """out = q + h v (revolute and prismatic joints: q̇ = v)."""
    for i in range(q.shape[0]):
        out[i] = q[i] + h * v[i]


@inline
def lane_normalize(args, x):
    """Nothing to normalize: the lanes hold no quaternions."""
    return


# RK4 and semi-implicit Euler on the lanes' flat state, inlined into advance_chunk (Euler takes v̇ alone)
rk4_step, euler_step = stepper_family(inline, lane_rates, lane_integrate, lane_normalize, lane_accelerations)


@njit_without_refcounts(cache=True)
def advance_chunk(topology, params, gravity, euler, tau, joint_forces, X, b0, nb, t, t_eval, dt, X_out, stop,
                  x, y, K, taus, no_forces, R0, d, S, V, C, IA, PA, U, D, Dinv, A):
    """Runs b0 … b0 + nb − 1 of X (B, 2n) from t through t_eval, writing X_out[b0 + b, j] at each output time.
    x, y (2 n LANES): the runs' state before and after a step (they trade places after each), flat (q (n, LANES) then v (n, LANES), lanes last as
    :func:`multibody.dynamics._batch.aba_lanes` takes it); K (4, 2 n LANES): the stages' rates; taus (n, LANES).
    ``params``: shared (n, NPARAMS) or the lanes' (n, NPARAMS, LANES). Returns the number of output samples
    written (fewer when ``stop[0]`` is set by another thread)."""
    wide_vectors()
    n, lanes = taus.shape[0], taus.shape[1]
    m = n * lanes
    args = (topology, params, gravity, tau, joint_forces, b0, nb, taus, no_forces, (R0, d, S, V, C, IA, PA, U, D,
                                                                                     Dinv, A))
    for k in range(2 * m):
        x[k] = 0.0  # (the lanes past nb: finite, unused)
    for i in range(n):
        for b in range(nb):
            x[i * lanes + b], x[m + i * lanes + b] = X[b0 + b, i], X[b0 + b, n + i]
    for j in range(t_eval.shape[0]):
        if stop[0] != 0.0:
            return j
        span = t_eval[j] - t
        count = int(np.ceil(span / dt * (1.0 - 1e-12))) if span > 0.0 else 0
        for _ in range(count):
            step = span / count
            if euler:
                euler_step(args, t, x, step, m, K, y)
            else:
                rk4_step(args, t, x, step, m, K, y)
            x, y = y, x  # the new state is the next step's start (no copy)
            t += step
        t = t_eval[j]
        for i in range(n):
            for b in range(nb):
                X_out[b0 + b, j, i], X_out[b0 + b, j, n + i] = x[i * lanes + b], x[m + i * lanes + b]
    return t_eval.shape[0]


@njit_without_refcounts(cache=True, nogil=True)
def lockstep_share(topology, params, gravity, euler, tau, joint_forces, X, t, t_eval, dt, X_out, stop, counts,
                   first, stride, x, y, K, taus, lanes, R0, d, S, V, C, IA, PA, U, D, Dinv, A):
    """The runs of chunks first, first + stride, … of LANES runs (a task's share, in its thread's own arrays: x, y, K
    and taus of :func:`advance_chunk`, ``lanes`` for the per-run params of a chunk (:func:`chunk_params`) and the
    ABA's work arrays). counts[b]: the samples written for run b. Releases the GIL."""
    B, L = X.shape[0], LANES
    no_forces = work((1, 0, 6))  # (no body forces)
    for b0 in range(first * L, B, stride * L):
        nb = min(L, B - b0)
        written = advance_chunk(topology, chunk_params(params, b0, nb, lanes), gravity, euler, tau, joint_forces, X,
                                b0, nb, t, t_eval, dt, X_out, stop, x, y, K, taus, no_forces,
                                R0, d, S, V, C, IA, PA, U, D, Dinv, A)
        for b in range(nb):
            counts[b0 + b] = written


def lockstep(topology, params, gravity, euler, tau, joint_forces, X, t, t_eval, dt, X_out, stop, counts, threads):
    """Every run of X (B, 2n) by RK4 (or semi-implicit Euler if ``euler``) through t_eval, LANES runs at a time, each
    chunk a task for the first of ``threads`` Python threads to be free, in that thread's own arrays (dealt out
    as the threads come free rather than round robin: a thread slowed by another process on its core then takes
    fewer chunks instead of holding up the end); counts[b]: the samples written for run b. ``params``: the runs'
    shared params (n, NPARAMS), or each run's (B, n, NPARAMS); joint_forces (B, m, 7): each run's joint springs
    and friction."""
    B, n = X.shape[0], tau.shape[1]
    chunks = (B + LANES - 1) // LANES

    def chunk(k):
        work = thread_workspaces(1, topology.shape[0], n, n)[0]
        x, y, K, taus = np.empty(2 * n * LANES), np.empty(2 * n * LANES), np.empty((4, 2 * n * LANES)), np.empty(
            (n, LANES))
        lanes = np.empty((params.shape[1:] if params.ndim == 3 else (0, 0)) + (LANES,))
        lockstep_share(topology, params, gravity, euler, tau, joint_forces, X, t, t_eval, dt, X_out, stop, counts, k,
                       chunks, x, y, K, taus, lanes, *work[4:])

    in_threads(chunk, chunks, max(1, min(threads, chunks)))
