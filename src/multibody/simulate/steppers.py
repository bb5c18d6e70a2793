"""The compiled loop of :mod:`multibody.simulate.compiled` in numba: one run of a tree by a method, its output samples
and the built-in events' crossings.

For the models ``multibody.simulate`` handles without Python callables — a tree (no constraints) under gravity,
with a torque table and the built-in force elements (:mod:`.tree_rates`) — the state x = (q, v) is integrated by

- ``"DOPRI5"`` and ``"DOP853"``: the adaptive Dormand–Prince methods (:mod:`.adaptive`);
- ``"RK4"``: the classical fixed-step Runge–Kutta method, and ``"Euler"``: fixed-step semi-implicit Euler,
  v⁺ = v + h v̇(q, v), q⁺ = q ⊕ h v⁺ (MuJoCo's "Euler"; first order, symplectic only when the mass matrix is
  constant, so the energy of a chain drifts at O(h)); both the steps of
  :mod:`multibody.dynamics._stepper_family`, which the lanes, the GPU and the Python loop step too.

Quaternions are renormalized after each step (and at each output). A non-finite state or a step-size underflow stops
the loop; the samples computed so far are kept (:class:`~multibody.SimulationError` carries them as a trajectory).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dynamics._configuration import CPU_CONFIGURATION
from ..dynamics._spatial_kernels import inline, njit_without_refcounts
from ..dynamics._stepper_family import on_the_manifold, stepper_family
from .adaptive import dormand_prince
from .dense_output import DOP853, DOPRI5, EULER, RK4, crossed_any, crossings, event_values, event_work
from .tree_rates import (INTERRUPTED, MAX_STEPS, NFEV, NONFINITE, OK, STEPS, STOP, T_REACHED, body_force_work, finite,
                         step_rates, stopped_at_event)

METHODS = {"DOPRI5": DOPRI5, "RK4": RK4, "Euler": EULER, "DOP853": DOP853}


# RK4 and semi-implicit Euler on a tree, each compiled on its own without reference counting and inlined into
# fixed_step by LLVM (``forceinline``): compiled as part of fixed_step (numba's ``inline="always"``), every array
# handed to an inlined function — the state's views, the rates' arguments, each joint's q̇ — is counted in and out
# by atomic operations, which cost a 7-link chain's RK4 step 1.5 µs of 3.7 µs. The same arithmetic, bit for bit.
rk4_step, euler_step = stepper_family(njit_without_refcounts(cache=True, forceinline=True), step_rates,
                                      *on_the_manifold(inline, CPU_CONFIGURATION))


@njit(cache=True)
def fixed_step(arrays, method, tau, forces, x, t, t_eval, dt, max_steps, x_out, stats, events):
    """Integrate ẋ from (t, x) through t_eval with RK4 or semi-implicit Euler (:func:`rk4_step`,
    :func:`euler_step`): each interval between output times (and from t to the first) in equal steps of at most dt,
    so that the steps land on the output times.
    The events' crossings are located on the cubic Hermite interpolant of each step (the rates at its end: one
    more evaluation on a step with a crossing). Returns as :func:`~.adaptive.dormand_prince`."""
    topology, params, gravity = arrays
    nx, nv = x.shape[0], tau[1].shape[1]
    nq = nx - nv
    body_forces = body_force_work(topology, forces)
    tau_work = np.empty(nv)
    K = np.empty((4, nx))
    y = np.empty(nx)
    dense = np.empty((4, nx))  # Hermite data of the last step: x₀, x₁, h ẋ₀, h ẋ₁
    event_space, g, g_new, log, count = event_work(topology, events, nx)
    event_values(topology, params, events, x, nq, event_space, g)
    args = (topology, params, gravity, tau, forces, nq, tau_work, body_forces)  # (step_rates)
    for j in range(t_eval.shape[0]):
        span = t_eval[j] - t
        steps = int(np.ceil(span / dt * (1.0 - 1e-12))) if span > 0.0 else 0
        for step in range(steps):
            if stats[STEPS] >= max_steps or stats[STOP] != 0.0:
                return (INTERRUPTED if stats[STOP] != 0.0 else MAX_STEPS), j, log[:count]
            h = span / steps
            if method == RK4:
                rk4_step(args, t, x, h, nq, K, y)
                stats[NFEV] += 4
            else:
                euler_step(args, t, x, h, nq, K, y)
                stats[NFEV] += 1
            if not finite(y):
                return NONFINITE, j, log[:count]
            stats[STEPS] += 1
            t_new = t_eval[j] if step == steps - 1 else t + h
            if crossed_any(topology, params, events, y, nq, event_space, g, g_new):
                # Hermite data on [t, t_new]: the states and h × their rates (ẋ₁ one more evaluation)
                h_step = t_new - t
                step_rates(args, t_new, y, K[1])
                stats[NFEV] += 1
                for i in range(nx):
                    dense[0, i], dense[1, i] = x[i], y[i]
                    dense[2, i], dense[3, i] = h_step * K[0, i], h_step * K[1, i]
                t_stop, terminal, log, count = crossings(topology, params, events, method, dense, x, t, h_step,
                                                         t_new, nq, event_space, g, g_new, log, count)
                if terminal:
                    if t_stop == t_new and step == steps - 1:
                        x_out[j] = y
                        j += 1
                    status, j, log, count = stopped_at_event(topology, method, dense, x, t, h_step, t_stop,
                                                             stats, j, log, count)
                    return status, j, log[:count]
            g[:] = g_new
            x[:] = y
            t = t_new
            stats[T_REACHED] = t
        t = t_eval[j]
        x_out[j] = x
    return OK, t_eval.shape[0], log[:count]


@njit(cache=True, nogil=True)
def run_with_events(arrays, method, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, dt, max_steps,
                    x_out, stats, events, pipe):
    """One run by ``method`` (DOPRI5, RK4, EULER, DOP853) watching the built-in ``events`` (m, events.ROW):
    (status, samples written, event log (rows: event index, time [s]))."""
    stats[T_REACHED] = t
    if method == DOP853 or method == DOPRI5:
        return dormand_prince(arrays, method, tau, forces, x, t, t_eval, rtol, atol, h_max, h_first, max_steps, x_out,
                              stats, events, pipe)
    return fixed_step(arrays, method, tau, forces, x, t, t_eval, dt, max_steps, x_out, stats, events)
