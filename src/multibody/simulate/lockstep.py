"""Batched fixed-step rollouts in lockstep: ``LANES`` runs advance together, and every right-hand side is one
evaluation of the articulated-body algorithm across them, vectorized over the runs
(:func:`multibody.dynamics._batch.aba_chunk`, structure of arrays).

For trees of revolute and prismatic joints, where q̇ = v, so that a stage state is q + c k_q, v + c k_v with
no manifold to stay on. The schemes are those of :func:`multibody.simulate.compiled.fixed_step`, with the same
steps (each interval between output times in equal steps of at most dt), so the two agree to round-off:

    RK4      k₁ … k₄ at x, x + h/2 k₁, x + h/2 k₂, x + h k₃;   x⁺ = x + h/6 (k₁ + 2k₂ + 2k₃ + k₄)
    Euler    v⁺ = v + h v̇(q, v),   q⁺ = q + h v⁺          (semi-implicit, symplectic)

τ = τ_const + the joint springs and friction of :func:`multibody.simulate.compiled.joint_force_array`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dynamics._batch import LANES, aba_chunk, in_threads, thread_workspaces
from ..dynamics._spatial_kernels import JTYPE
from ..model.joints import PRISMATIC, REVOLUTE
from .forces import add_joint_forces

STAGE_OFFSET = (0.0, 0.5, 0.5, 1.0)  # RK4 stage k_s is taken at x + c_s h k_{s−1}
STAGE_WEIGHT = (1.0 / 6.0, 2.0 / 6.0, 2.0 / 6.0, 1.0 / 6.0)


def applies(model) -> bool:
    """True when every joint of the compiled ``model`` is revolute or prismatic (q̇ = v)."""
    cm = model._compiled or model.compile()
    return bool(np.isin(cm.topology[:, JTYPE], (REVOLUTE, PRISMATIC)).all())


@njit(cache=True)
def joint_torques(tau, joint_forces, q, v, b0, nb, out):
    """out[b] = τ_{b0 + b} + Q(q_b, v_b): run b0 + b's torque (tau (B, n)) and the joint springs and friction
    (:func:`multibody.simulate.forces.add_joint_forces`)."""
    for b in range(nb):
        for k in range(tau.shape[1]):
            out[b, k] = tau[b0 + b, k]
        add_joint_forces(joint_forces, q[b], v[b], out[b])


@njit(cache=True)
def advance_chunk(topology, params, gravity, euler, tau, joint_forces, X, b0, nb, t, t_eval, dt, X_out, stop,
                  q, v, qs, vs, taus, qdd, dq, dv, no_forces,
                  R, p, qd, u, out, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A):
    """Runs b0 … b0 + nb − 1 of X (B, 2n) from t through t_eval, writing X_out[b0 + b, j] at each output time.
    q, v (LANES, n): the runs' state; qs, vs: a stage state; dq, dv: the weighted sum of the stages' rates.
    Returns the number of output samples written (fewer when ``stop[0]`` is set by another thread)."""
    n = q.shape[1]
    for b in range(nb):
        for i in range(n):
            q[b, i], v[b, i] = X[b0 + b, i], X[b0 + b, n + i]
    for j in range(t_eval.shape[0]):
        if stop[0] != 0.0:
            return j
        span = t_eval[j] - t
        count = int(np.ceil(span / dt * (1.0 - 1e-12))) if span > 0.0 else 0
        for _ in range(count):
            step = span / count
            if euler:
                joint_torques(tau, joint_forces, q, v, b0, nb, taus)
                aba_chunk(topology, params, gravity, q, v, taus, no_forces, qdd, 0, nb,
                          R, p, qd, u, out, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A)
                for b in range(nb):
                    for i in range(n):
                        v[b, i] += step * qdd[b, i]
                        q[b, i] += step * v[b, i]
                continue
            for s in range(4):
                c = STAGE_OFFSET[s] * step
                for b in range(nb):
                    for i in range(n):  # stage state x + c k_{s−1}: its q̇ is its v (k_q), its v̇ the previous qdd
                        if s == 0:
                            qs[b, i], vs[b, i] = q[b, i], v[b, i]
                        else:
                            qs[b, i], vs[b, i] = q[b, i] + c * vs[b, i], v[b, i] + c * qdd[b, i]
                joint_torques(tau, joint_forces, qs, vs, b0, nb, taus)
                aba_chunk(topology, params, gravity, qs, vs, taus, no_forces, qdd, 0, nb,
                          R, p, qd, u, out, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A)
                w = STAGE_WEIGHT[s] * step
                for b in range(nb):
                    for i in range(n):
                        dq[b, i] = (0.0 if s == 0 else dq[b, i]) + w * vs[b, i]
                        dv[b, i] = (0.0 if s == 0 else dv[b, i]) + w * qdd[b, i]
            for b in range(nb):
                for i in range(n):
                    q[b, i] += dq[b, i]
                    v[b, i] += dv[b, i]
        t = t_eval[j]
        for b in range(nb):
            for i in range(n):
                X_out[b0 + b, j, i], X_out[b0 + b, j, n + i] = q[b, i], v[b, i]
    return t_eval.shape[0]


@njit(cache=True, nogil=True)
def lockstep_share(topology, params, gravity, euler, tau, joint_forces, X, t, t_eval, dt, X_out, stop, counts,
                   first, stride, state, R, p, qd, u, out, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A):
    """The runs of chunks first, first + stride, … of LANES runs (one thread's share, in its own arrays: ``state``
    (8, LANES, n) for q, v, qs, vs, taus, qdd, dq, dv of :func:`advance_chunk` and the ABA's work arrays).
    counts[b]: the samples written for run b. Releases the GIL."""
    B, L = X.shape[0], LANES
    no_forces = np.zeros((1, 0, 6))
    for b0 in range(first * L, B, stride * L):
        nb = min(L, B - b0)
        written = advance_chunk(topology, params, gravity, euler, tau, joint_forces, X, b0, nb, t, t_eval, dt, X_out,
                                stop, state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7],
                                no_forces, R, p, qd, u, out, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A)
        for b in range(nb):
            counts[b0 + b] = written


def lockstep(topology, params, gravity, euler, tau, joint_forces, X, t, t_eval, dt, X_out, stop, counts, threads):
    """Every run of X (B, 2n) by RK4 (or semi-implicit Euler if ``euler``) through t_eval, LANES runs at a time, the
    chunks dealt out round robin to ``threads`` Python threads (as :func:`multibody.dynamics._batch.aba_batch`
    does); counts[b]: the samples written for run b."""
    B, n = X.shape[0], tau.shape[1]
    T = max(1, min(threads, (B + LANES - 1) // LANES))
    work, state = thread_workspaces(T, topology.shape[0], n), np.empty((T, 8, LANES, n))

    in_threads(lambda k: lockstep_share(topology, params, gravity, euler, tau, joint_forces, X, t, t_eval, dt, X_out,
                                        stop, counts, k, T, state[k], *work[k]), T, T)
