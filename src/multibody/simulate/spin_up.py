"""The Kane–Ryan–Banerjee spin-up of a flexible beam on a rigid hub (:mod:`multibody.flexible.spinup`: the hub
rate Ω(t), the prescribed hub's equations and the published curve) run by :func:`multibody.simulate`.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..event import Event
from ..flexible.spinup import prescribed_hub_accelerations, spin_up_model, spin_up_profile
from .simulate import simulate
from .trajectory import Trajectory


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
