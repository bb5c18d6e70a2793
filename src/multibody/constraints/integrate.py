"""Time integration of constrained systems with drift control, and a time-stepping scheme for contact.

Two schemes, both fixed-step:

``"rk4"`` (bilateral constraints): classical Runge–Kutta on (q, v) with q̇ = configuration_rate(q, v) and
v̇ = forward_dynamics(q, v, τ) (Gauss's principle, optional Baumgarte terms γ − 2α (J v − b) − β² φ), quaternions
renormalized, then *projection* after every step: q onto φ(q) = 0 (Newton, :func:`.assembly.assemble_positions`)
and v onto J v = b in the kinetic-energy metric (:func:`.assembly.assemble_velocities`). The drift
max|φ| and max|J v − b| found *before* each projection is recorded.

``"contact"`` (unilateral contact, Stewart & Trinkle 1996; Anitescu & Potra 1997): semi-implicit Euler at the
velocity level, M (v⁺ − v) = h (τ − c) + Jᵀλ, with J v⁺ = b − (erp/h) φ for equality constraints and, for every
contact within ``margin`` + h · (a bound on the geometries' speed), the LCP of :mod:`.contact` on the velocity targets
n·v⁺ ≥ −gap/h (−erp·gap/h when penetrating; ≥ −e v_n⁻ for approaching contacts faster than
``bounce_velocity``) and zero tangential velocity inside the friction pyramid. Then q⁺ = q ⊕ h v⁺. Impacts come out
inelastic (or with Newton restitution e) as a by-product.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dynamics import aba, configuration_rate, crba, energy, integrate, normalize
from ._kinematics import Snapshot
from .assembly import assemble_positions, assemble_velocities, check_consistent, constraint_drift
from .contact import contact_rows, detect, solve_contacts
from .forward import forward_dynamics
from .gauss import GaussSolver
from .types import stack

SCHEMES = ("rk4", "contact")


@dataclass
class ConstrainedTrajectory:
    """t (T,) [s], q (T, nq), v (T, nv), and the constraint drift measured at each step before correction:
    position_drift (T,) = max|φ| [m or rad], velocity_drift (T,) = max|J v − b|."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    position_drift: np.ndarray
    velocity_drift: np.ndarray

    def energy(self, model):
        """Total mechanical energy (T,) [J]."""
        kinetic, potential = energy(model, self.q, self.v)
        return kinetic + potential


def _torque(tau, t, q, v, nv):
    value = np.zeros(nv) if tau is None else tau(t, q, v) if callable(tau) else tau
    return np.asarray(value, dtype=float)


def rk4_step(model, q, v, dt, tau=None, stabilization=None):
    """One classical Runge–Kutta step of (q̇, v̇) = (configuration_rate(q, v), forward_dynamics(q, v, τ))."""
    def f(x):
        qq, vv = normalize(model, x[:model.nq]), x[model.nq:]
        return np.concatenate([configuration_rate(model, qq, vv),
                               forward_dynamics(model, qq, vv, tau, stabilization=stabilization)])
    x = np.concatenate([q, v])
    k1 = f(x)
    k2 = f(x + 0.5 * dt * k1)
    k3 = f(x + 0.5 * dt * k2)
    k4 = f(x + dt * k3)
    x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return normalize(model, x[:model.nq]), x[model.nq:]


def project(model, q, v):
    """(q, v, position drift, velocity drift): the state projected onto the constraint manifold, and the
    max|φ|, max|J v − b| it had before."""
    drift = constraint_drift(model, q, v)
    q = assemble_positions(model, q)
    return q, assemble_velocities(model, q, v), *drift


def _speed_bound(model, s):
    """An upper bound [m/s] on the speed of any point of any geometry (to widen the contact search by h · speed)."""
    speeds = [0.0]
    for g in model.geometries:
        i, origin, _ = (-1, None, None) if g.body == "world" else model.locate(g.body, g.placement.translation)
        if i >= 0:
            reach = np.linalg.norm(origin) + min(g.shape.bounding_radius, 1e3)
            speeds.append(np.linalg.norm(s.dp[i]) + np.linalg.norm(s.w[i]) * reach)
    return max(speeds)


def contact_step(model, q, v, dt, tau=None, margin=1e-3, erp=0.2, bounce_velocity=0.1):
    """One velocity-level time step with contacts and constraints (see module docstring); returns (q⁺, v⁺)."""
    h = dt
    s = Snapshot(model, q, v)
    rows, _ = stack(model, s)
    a_free = aba(model, q, v, tau)
    solver = GaussSolver(crba(model, q), rows.J)
    # J (v + h a) = b − (erp/h) φ
    a, _ = solver.solve(a_free, (rows.b - rows.J @ v - erp / h * rows.phi) / h)
    contacts = detect(model, s, margin + h * (_speed_bound(model, s) + h * np.linalg.norm(model.gravity)))
    if contacts:
        c_rows = [contact_rows(s, c) for c in contacts]
        gaps = np.array([c.geometry.distance for c in contacts])
        vn = np.array([r.vn for r in c_rows])
        target = np.where(gaps >= 0, -gaps / h, -erp * gaps / h)
        restitution = np.array([c.restitution for c in contacts])
        target = np.where(vn < -bounce_velocity, np.maximum(target, -restitution * vn), target)
        gamma_t = np.array([-r.vt / h for r in c_rows])
        a = solve_contacts(solver, a, contacts, c_rows, (target - vn) / h, gamma_t,
                           np.zeros(len(contacts), bool)).a
    v_new = v + h * a
    return integrate(model, q, v_new, h), v_new


def run(model, q0, v0, t_end, dt, tau=None, scheme="rk4", stabilization=None, projection=True, tol=1e-8):
    """Integrate from (q0, v0) to ``t_end`` [s] with fixed step ``dt`` [s]; a :class:`ConstrainedTrajectory`.

    tau : None, an (nv,) array, or a callable tau(t, q, v) -> (nv,).
    scheme : "rk4" (bilateral constraints; ``stabilization`` = Baumgarte (α, β), ``projection`` on/off) or
        "contact" (velocity-level time stepping with contacts).
    The initial state must satisfy the constraints to ``tol`` (ValueError otherwise; see :func:`assemble`).
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    if not (np.isfinite(dt) and dt > 0 and np.isfinite(t_end) and t_end >= 0):
        raise ValueError(f"need dt > 0 and t_end ≥ 0 (finite), got dt={dt!r}, t_end={t_end!r}")
    q, v = np.array(q0, dtype=float), np.array(v0, dtype=float)
    check_consistent(model, q, v, tol)
    steps = int(round(t_end / dt))
    qs, vs, drift = [q], [v], [(0.0, 0.0)]
    for k in range(steps):
        torque = _torque(tau, k * dt, q, v, model.nv)
        if scheme == "contact":
            q, v = contact_step(model, q, v, dt, torque)
            drift.append(constraint_drift(model, q, v))
        else:
            q, v = rk4_step(model, q, v, dt, torque, stabilization)
            if projection:
                q, v, *d = project(model, q, v)
                drift.append(tuple(d))
            else:
                drift.append(constraint_drift(model, q, v))
        qs.append(q)
        vs.append(v)
    drift = np.array(drift)
    return ConstrainedTrajectory(dt * np.arange(steps + 1), np.array(qs), np.array(vs), drift[:, 0], drift[:, 1])
