"""The Kane–Ryan–Banerjee spin-up of a flexible beam on a rigid hub (:mod:`multibody.flexible.spinup`: the hub
rate Ω(t), the prescribed hub's equations and the published curve) run by :func:`multibody.simulate`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from ..dynamics import crba, nonlinear_effects
from ..event import Event
from ..flexible.spinup import prescribed_hub_accelerations, spin_up_model, spin_up_profile
from .forces import elements_force
from .simulate import simulate
from .trajectory import Trajectory

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..model import Model


def simulate_spin_up(fb, final_rate=6.0, duration=15.0, t_end=20.0, stiffening=True, divergence=None,
                     rtol=1e-7, atol=1e-9, method="Radau", samples=401) -> Trajectory:
    """Drive the hub of ``fb`` (a clamped :class:`~multibody.flexible.beam.DiscretizedBeam`) along
    :func:`~multibody.flexible.spin_up_profile` (Ωs = ``final_rate`` [rad/s], Ts = ``duration`` [s]) from rest and
    integrate the elastic motion with :func:`multibody.simulate` (``method``, ``rtol``, ``atol``; ``samples`` output
    times from 0 to ``t_end`` [s]).

    The model is :func:`~multibody.flexible.spin_up_model`'s, its accelerations those of the prescribed hub
    (:func:`~multibody.flexible.prescribed_hub_accelerations`: Ω̇ of the profile, ë of the floating-frame equations
    with ``stiffening`` or the linear theory); ``trajectory.tau[:, 0]`` is the hub torque that drives it [N·m].
    Returns the :class:`~multibody.Trajectory`: q = (hub angle, e), v = (Ω, ė);
    :func:`~multibody.flexible.tip_displacement` gives the tip. The run stops early, at the event "diverged" in
    ``trajectory.events``, when the tip displacement exceeds ``divergence`` [m] (default: the beam length): the
    linear theory (``stiffening=False``) diverges once Ω passes the first in-plane frequency.
    """
    model = spin_up_model(fb, stiffening)
    limit = fb.beam.length if divergence is None else float(divergence)
    last: dict = {}

    def prescribed(t, q, v):
        """(Ω̇, ë, hub torque) at (t, q, v), the last one kept (the torque and the dynamics ask at the same state)."""
        key = (t, q.tobytes(), v.tobytes())
        if last.get("key") != key:
            _, rate, rate_dot = spin_up_profile(t, final_rate, duration)
            e_ddot, hub_torque = prescribed_hub_accelerations(fb, rate, rate_dot, q[1:], v[1:], stiffening)
            last.update(key=key, value=(rate_dot, e_ddot, hub_torque))
        return last["value"]

    def torque(t, q, v):
        tau = np.zeros(model.nv)
        tau[0] = prescribed(t, q, v)[2]
        return tau

    def dynamics(t, q, v, tau):
        rate_dot, e_ddot, _ = prescribed(t, q, v)
        return np.r_[rate_dot, e_ddot]

    def diverged(t, q, v):
        return limit - np.linalg.norm(fb.tip @ q[1:])

    run = simulate(model, np.zeros(model.nq), np.zeros(model.nv), t_end, method=method, rtol=rtol, atol=atol,
                   t_eval=np.linspace(0.0, t_end, samples), torque=torque, dynamics=dynamics, progress=False,
                   compiled=False, events=[Event(diverged, name="diverged", terminal=True, direction=-1.0)])
    return cast("Trajectory", run)  # one state: one Trajectory


def prescribed_joint_torque(model: Model, joint: str, motion: Callable[[float], tuple[float, float, float]]
                            ) -> Callable[[float, np.ndarray, np.ndarray], np.ndarray]:
    """τ(t, q, v) (nv,) for ``mb.simulate(..., torque=...)`` that gives the one-dof ``joint`` the acceleration
    of ``motion(t)`` → (angle [rad or m], rate, acceleration) and leaves every other coordinate free: the
    computed torque of M v̇ + c = Q + τ with τ zero but on the joint k,

        v̇_r = M_rr⁻¹ (Q_r − c_r − M_rk α),    τ_k = M_kr v̇_r + M_kk α + c_k − Q_k,

    (r: the other coordinates; Q: the model's force elements), :func:`~multibody.flexible.prescribed_hub_accelerations` for any
    model. Started on the motion's angle and rate, the joint follows it to the integrator's tolerance."""
    _, _, k = model.one_dof_joint(joint, "prescribed_joint_torque")
    rest = np.delete(np.arange(model.nv), k)

    def torque(t, q, v):
        alpha = motion(t)[2]
        M, free = crba(model, q), elements_force(model, q, v) - nonlinear_effects(model, q, v)
        a_rest = np.linalg.solve(M[np.ix_(rest, rest)], free[rest] - M[rest, k] * alpha)
        tau = np.zeros(model.nv)
        tau[k] = M[k, rest] @ a_rest + M[k, k] * alpha - free[k]
        return tau
    return torque
