"""Steps of constrained and contact systems: projection onto the constraint manifold, and a time-stepping scheme
for contact. :func:`multibody.simulate` runs them (``method="RK4"`` or ``"Euler"`` with ``projection``,
``method="contact"``); :func:`run` is the old entry point, an alias of it.

*Projection* (after each RK4 or Euler step of :func:`multibody.simulate` on a model with constraints): q onto
φ(q) = 0 (Newton, :func:`.assembly.assemble_positions`) and v onto J v = b in the kinetic-energy metric
(:func:`.assembly.assemble_velocities`). The drift max|φ| and max|J v − b| found *before* each projection is
recorded in ``Trajectory.drift``.

``"contact"`` (unilateral contact, Stewart & Trinkle 1996; Anitescu & Potra 1997): semi-implicit Euler at the
velocity level, M (v⁺ − v) = h (τ − c) + Jᵀλ (M + h D in place of M for the joint dampers D, implicit as in
MuJoCo's Euler: explicit, a damper on a small inertia blows up once h·c/I > 2), with J v⁺ = b − (erp/h) φ for
equality constraints and, for every
contact within ``margin`` + h · (a bound on the geometries' speed), the LCP of :mod:`.contact` on the velocity targets
n·v⁺ ≥ −gap/h (−erp·gap/h when penetrating; ≥ −e v_n⁻ for approaching contacts faster than
``bounce_velocity``) and zero tangential velocity inside the friction pyramid. Then q⁺ = q ⊕ h v⁺. Impacts come out
inelastic (or with Newton restitution e) as a by-product.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics import aba, crba, integrate, nonlinear_effects
from ..simulate.forces import joint_force_rows
from ._kinematics import Snapshot
from .assembly import assemble_positions, assemble_velocities, constraint_drift
from .contact import contacts_rows, detect, geometry_arrays, solve_contacts
from .gauss import GaussSolver
from .types import stack

if TYPE_CHECKING:
    from ..model import Model
    from ..simulate.trajectory import Trajectory

SCHEMES = {"rk4": "RK4", "contact": "contact"}  # run's schemes and the methods of multibody.simulate they are


def project(model, q, v):
    """(q, v, position drift, velocity drift): the state projected onto the constraint manifold, and the
    max|φ|, max|J v − b| it had before."""
    drift = constraint_drift(model, q, v)
    q = assemble_positions(model, q)
    return q, assemble_velocities(model, q, v), *drift


def _speed_bound(model, s):
    """An upper bound [m/s] on the speed of any point of any geometry (to widen the contact search by h · speed)."""
    index, _, origin, radius, _ = geometry_arrays(model)
    moving = index >= 0
    i = index[moving]
    reach = np.linalg.norm(origin[moving], axis=1) + np.minimum(radius[moving], 1e3)
    speeds = np.linalg.norm(s.dp[i], axis=1) + np.linalg.norm(s.w[i], axis=1) * reach
    return float(speeds.max(initial=0.0))


def _joint_damping(model):
    """The joint dampers' coefficients (nv,) [N·m·s/rad or N·s/m] (``JointSpring.damping``), zero elsewhere: the
    damping column of :func:`~multibody.simulate.forces.joint_force_rows`, summed per joint. Found once per compiled
    model (kept in ``CompiledModel.derived``, which any edit of the model or its force elements drops)."""
    derived = (model._compiled or model.compile()).derived
    if "joint_damping" not in derived:
        rows, _ = joint_force_rows(model)
        damping = np.zeros(model.nv)
        np.add.at(damping, rows[:, 1].astype(np.int64), rows[:, 4])
        derived["joint_damping"] = damping
    return derived["joint_damping"]


def contact_step(model, q, v, dt, tau=None, margin=1e-3, erp=0.2, bounce_velocity=0.1):
    """One velocity-level time step with contacts and constraints (see module docstring); returns (q⁺, v⁺)."""
    h = dt
    s = Snapshot(model, q, v)
    rows, _ = stack(model, s)
    damping = _joint_damping(model)
    if damping.any():  # implicit in the joint dampers, as MuJoCo's Euler: (M + h D)(v⁺ − v) = h (τ − c)
        M = crba(model, q) + h * np.diag(damping)
        a_free = np.linalg.solve(M, tau - nonlinear_effects(model, q, v))
    else:
        M, a_free = crba(model, q), aba(model, q, v, tau)
    solver = GaussSolver(M, rows.J)
    # J (v + h a) = b − (erp/h) φ
    a, _ = solver.solve(a_free, (rows.b - rows.J @ v - erp / h * rows.phi) / h)
    contacts = detect(model, s, margin + h * (_speed_bound(model, s) + h * np.linalg.norm(model.gravity)))
    if contacts:
        c_rows = contacts_rows(s, contacts)
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


def run(model: Model, q0: ArrayLike, v0: ArrayLike, t_end: float, dt: float,
        tau: ArrayLike | Callable[[float, np.ndarray, np.ndarray], Any] | None = None, scheme: str = "rk4",
        stabilization: tuple[float, float] | None = None, projection: bool = True, tol: float = 1e-8) -> Trajectory:
    """Integrate from (q0, v0) at t = 0 to ``t_end`` [s] with fixed step ``dt`` [s], a sample at every step: an
    alias of ``multibody.simulate(model, q0, v0, n·dt, method=..., dt=dt, t_eval=dt·(0, 1, …, n))`` with
    n = round(t_end / dt).

    tau : None, an (nv,) array, or a callable tau(t, q, v) -> (nv,) (simulate's ``torque``).
    scheme : "rk4" (``method="RK4"``; ``stabilization`` = Baumgarte (α, β) [1/s], ``projection`` on/off) or
        "contact" (``method="contact"``, velocity-level time stepping with contacts).
    The initial state must satisfy the constraints to ``tol`` (ValueError otherwise; see :func:`assemble`).
    Returns the :class:`~multibody.Trajectory`, its ``drift`` the constraint residual before each projection.
    """
    from ..simulate.simulate import simulate
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {tuple(SCHEMES)}, got {scheme!r}")
    if not (np.isfinite(dt) and dt > 0 and np.isfinite(t_end) and t_end >= dt / 2):
        raise ValueError(f"need dt > 0 and t_end ≥ dt/2 (finite), got dt={dt!r}, t_end={t_end!r}")
    steps = int(round(t_end / dt))
    return cast("Trajectory", simulate(  # one state: one Trajectory
        model, q0, v0, steps * dt, method=SCHEMES[scheme], dt=dt, t_eval=dt * np.arange(steps + 1), torque=tau,
        stabilization=stabilization, projection=projection, constraint_tolerance=tol))
