"""The rates ẋ = (q̇, v̇) that the compiled loop (:mod:`multibody.simulate.steppers`, :mod:`.adaptive`) integrates:
a tree under a torque table and its force elements; the run's status codes and counters, and the samples'
accelerations and applied forces.

q̇ = configuration_rate(q, v) (quaternion rates for spherical and free joints), v̇ = ABA(q, v, τ(q, v)) with
τ = τ(t) − k (q − q₀) − c q̇ − F_c tanh(q̇ / v_s) on one-dof joints + the fixed tendons' and actuators' forces at
the controls u(t), and the body forces of the springs between points and of the gyrostats' rotors.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dynamics._configuration import configuration_rate
from ..dynamics._core import aba, rnea
from ..dynamics._spatial_kernels import njit_without_refcounts
from .dense_output import dense_state, normalize_quaternions
from .actuators import add_actuation, table_interval
from .forces import add_joint_forces, element_body_forces

# Status of a run: finished, stopped at a non-finite state, step size underflow, step budget spent, Ctrl-C, a
# terminal event.
OK, NONFINITE, UNDERFLOW, MAX_STEPS, INTERRUPTED, EVENT, GO_ON = 0, 1, 2, 3, 4, 5, -1
STATUS = {OK: "ok", NONFINITE: "non-finite state", UNDERFLOW: "step size underflow", MAX_STEPS: "max_steps reached",
          INTERRUPTED: "interrupted", EVENT: "terminal event"}
# stats entries: function evaluations, accepted steps, rejected steps, time reached [s].
NFEV, STEPS, REJECTED, T_REACHED, STOP = range(5)  # stats entries; STOP ≠ 0, set by another thread, ends a run


@njit_without_refcounts(cache=True, inline="always")
def rates(topology, params, gravity, tau, forces, t, x, nq, tau_work, body_forces, dx):
    """dx = ẋ = (q̇, v̇) at time t and x = (q, v): configuration_rate and the ABA with τ = τ(t) (the torque table
    ``tau``, :func:`torque_at`) + joint force elements + fixed tendons and actuators, and the body forces of springs
    and rotors.

    forces: (joint rows (m, 7), spring rows (s, 11), rotor rows (g, 5), actuation, ctrl)
    (:func:`multibody.simulate.compiled.force_arrays`). The joint rows (iq, iv, k, q₀, c, F_c, v_s) are those of
    :func:`joint_force_array`, added to τ by :func:`multibody.simulate.forces.add_joint_forces`; the fixed tendons
    and actuators (lines, arm_q, arm_v) at the control table ctrl = (times, values (T, nu)) by
    :func:`multibody.simulate.actuators.add_actuation`; the springs between body points and the gyrostats' spinning
    rotors act on the bodies (:func:`multibody.simulate.forces.element_body_forces`, into ``body_forces`` (n, 6), or
    (0, 6) when there are none).
    """
    q, v = x[:nq], x[nq:]
    configuration_rate(topology, q, v, dx[:nq])
    torque_at(tau, t, tau_work)
    add_joint_forces(forces[0], q, v, tau_work)
    if forces[3][0].shape[0] > 0:  # (a call, not inlined: made only where there are tendons or actuators)
        add_actuation(forces[3], forces[4], t, q, v, tau_work)
    if body_forces.shape[0] > 0:
        element_body_forces(topology, params, forces[1], forces[2], q, v, body_forces)
    aba(topology, params, gravity, q, v, tau_work, body_forces, dx[nq:])


# compiled once, on its own, and inlined by LLVM into each caller (``forceinline``): the steppers call it at each
# stage (RK4 four times), and numba's own inlining would type and lower the rates once per call (compile time only:
# the same machine code after LLVM's inlining)
@njit_without_refcounts(cache=True, forceinline=True)
def step_rates(args, t, x, dx):
    """dx = ẋ(t, x) of :func:`rates`, its arguments args = (topology, params, gravity, tau, forces, nq, tau_work,
    body_forces): the rates of a tree as the steppers (:mod:`multibody.dynamics._stepper_family`,
    :mod:`.adaptive`) call them."""
    topology, params, gravity, tau, forces, nq, tau_work, body_forces = args
    rates(topology, params, gravity, tau, forces, t, x, nq, tau_work, body_forces, dx)


@njit_without_refcounts(cache=True, inline="always")
def torque_at(tau, t, out):
    """out = τ(t) from the torque table tau = (times (T,), values (T, nv)): linear between its rows, held at the
    first and last outside them; one row is a constant torque (:func:`multibody.simulate.TorqueTable`)."""
    times, values = tau
    low, high, w = table_interval(times, t)
    if low == high:
        for k in range(out.shape[0]):
            out[k] = values[low, k]
        return
    for k in range(out.shape[0]):
        out[k] = values[low, k] + w * (values[high, k] - values[low, k])


@njit(cache=True)
def body_force_work(topology, forces):
    """The rates' body-force array: (n, 6) when there are springs between bodies or rotors, else (0, 6) (none)."""
    return np.zeros((topology.shape[0] if forces[1].shape[0] + forces[2].shape[0] > 0 else 0, 6))


@njit(cache=True)
def finite(x):
    for value in x:
        if not np.isfinite(value):
            return False
    return True


@njit(cache=True)
def stopped_at_event(topology, method, dense, x, t, h, t_stop, stats, j, log, count):
    """The end of a run at a terminal event at t_stop: x = its state on the step's dense output;
    (EVENT, j, log, count)."""
    state = np.empty(x.shape[0])
    dense_state(method, dense, x, (t_stop - t) / h, state)
    normalize_quaternions(topology, state)
    x[:] = state
    stats[T_REACHED] = t_stop
    return EVENT, j, log, count


@njit_without_refcounts(cache=True)
def sample_torques(tau, forces, times, X, nq, TAU):
    """At each time times[j] and state X[j] (T, nx): the generalized forces TAU[j] (T, nv) of the torque, the
    joint force elements, the fixed tendons and the actuators (as :func:`rates` applies them; no springs between
    bodies or rotors)."""
    for j in range(X.shape[0]):
        torque_at(tau, times[j], TAU[j])
        add_joint_forces(forces[0], X[j, :nq], X[j, nq:], TAU[j])
        add_actuation(forces[3], forces[4], times[j], X[j, :nq], X[j, nq:], TAU[j])


@njit(cache=True)
def sample_rates(arrays, tau, forces, times, X, nq, A, TAU):
    """At each time times[j] and state X[j] (T, nx): the accelerations A[j] = v̇ and the generalized forces
    TAU[j] = τ (T, nv)."""
    topology, params, gravity = arrays
    body_forces = body_force_work(topology, forces)
    dx, Q, zero, no_gravity = np.empty(X.shape[1]), np.empty(TAU.shape[1]), np.zeros(TAU.shape[1]), np.zeros(3)
    for j in range(X.shape[0]):
        rates(topology, params, gravity, tau, forces, times[j], X[j], nq, TAU[j], body_forces, dx)
        A[j] = dx[nq:]
        if body_forces.shape[0] > 0:  # the elements' Σ Jᵀ f = −rnea(q, 0, 0, f) without gravity
            rnea(topology, params, no_gravity, X[j, :nq], zero, zero, body_forces, Q)
            TAU[j] -= Q
