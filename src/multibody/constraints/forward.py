"""Forward dynamics that honours the model's constraints and contacts (public: mb.forward_dynamics,
mb.constraint_forces).

Pipeline at a state (q, v): free acceleration a_free = ABA(q, v, τ) → constraint rows J a = γ (with optional
Baumgarte terms, γ − 2α (J v − b) − β² φ) → Gauss's principle (:mod:`.gauss`) or Udwadia–Kalaba
(:mod:`.udwadia_kalaba`) → touching contacts and joint limits as one LCP around that solution (:mod:`.contact`,
:mod:`.limits`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics import aba, crba
from ..dynamics._inputs import as_state
from ._kinematics import Snapshot
from .contact import contacts_rows, detect, solve_contacts
from .gauss import GaussSolver
from .limits import active_sides, joint_limits, limit_multipliers, limit_rows, limit_sides
from .types import stack
from .udwadia_kalaba import udwadia_kalaba

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..model import Model
    from .bounds import JointLimit

METHODS = ("gauss", "udwadia_kalaba")


@dataclass
class ConstrainedDynamics:
    """Result of :func:`constraint_forces`.

    a : (nv,) accelerations.
    multipliers : one array per model constraint (in ``model.constraints`` order): its rows' multipliers λ
        (for Connect/Weld/rolling: the force [N] and moment [N·m] on body A, world axes; minimum-norm for
        redundant rows; for a JointLimit: [λ_lower, λ_upper] ≥ 0, the generalized forces [N·m or N] of its
        bounds, pushing the joint up from the lower and down from the upper bound).
    generalized_force : (nv,) total constraint and contact force M (a − a_free) [N, N·m].
    contacts : list of dicts with keys a, b (geometry names), point (3,), normal (3,), distance, force (3,) on A
        [N, world], status ("stick", "slip", "separate").
    rank : number of independent equality-constraint rows.
    """

    a: np.ndarray
    multipliers: list
    generalized_force: np.ndarray
    contacts: list = field(default_factory=list)
    rank: int = 0


def _check_stabilization(stabilization):
    alpha, beta = (0.0, 0.0) if stabilization is None else stabilization
    if not (np.isfinite(alpha) and np.isfinite(beta)) or alpha < 0 or beta < 0:
        raise ValueError(f"stabilization must be (alpha, beta) ≥ 0 [1/s], got {stabilization!r}")
    return float(alpha), float(beta)


def _limit_sides(model, q, v, limits, tolerance, speed):
    """The joint-limit bounds that act at (q, v): by the rule of :func:`constraint_forces`, or the listed
    (JointLimit, side) pairs within ``tolerance``."""
    if limits is None:
        return active_sides(model, q, v, tolerance, speed)
    wanted = {(id(limit), side) for limit, side in limits}
    listed = list({id(limit): limit for limit, _ in limits}.values())
    return [s for s in limit_sides(model, q, v, listed)
            if (id(s.limit), s.side) in wanted and s.gap <= tolerance and s.rate <= speed]


def constraint_forces(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike | None = None, f_ext: ArrayLike | Mapping[str, ArrayLike] | None = None,
                      method: str = "gauss", stabilization: tuple[float, float] | None = None,
                      slip_velocity: float = 1e-6, contact_tolerance: float = 1e-6, rcond: float = 1e-10,
                      refine_slip: bool = True, limits: Sequence[tuple[JointLimit, str]] | None = None,
                      limit_stabilization: tuple[float, float] | None = None) -> ConstrainedDynamics:
    """Constrained forward dynamics with the constraint and contact forces (a :class:`ConstrainedDynamics`).

    Parameters
    ----------
    q (nq,), v (nv,), tau (nv,) [N, N·m] (default 0), f_ext as in :func:`multibody.aba`.
    method : "gauss" (default) or "udwadia_kalaba" (equality constraints only).
    stabilization : (α, β) Baumgarte gains [1/s]: J a = γ − 2α (J v − b) − β² φ. Default none.
    slip_velocity : tangential speed [m/s] above which a contact counts as sliding (kinetic friction).
    contact_tolerance : contacts with gap ≤ this [m] and normal speed ≤ ``slip_velocity`` are active; contacts
        that approach faster need an impulse first (they are treated as persistent here). A joint limit's bound
        is active when its gap g ≤ this [rad or m] and |ġ| ≤ ``slip_velocity`` (one that approaches faster needs
        an impulse first and exerts no force until then, one that separates exerts none).
    rcond : relative singular-value cutoff for redundant constraints.
    refine_slip : re-solve contacts that start to slip from rest with kinetic friction along their tangential
        acceleration (removes the pyramid's direction error; default True).
    limits : which joint-limit bounds may act: None (default) the rule above, or a list of (JointLimit, side)
        pairs, side "lower" or "upper", active when their gap ≤ ``contact_tolerance`` and they do not separate
        faster than ``slip_velocity``, approaching ones included (the bounds at rest of an event-driven
        simulation, :class:`~multibody.constraints.limits.LimitStops`).
    limit_stabilization : Baumgarte gains (α, β) [1/s] of the limit rows, g̈ ≥ −2α ġ − β² g (default: those of
        ``stabilization``).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    alpha, beta = _check_stabilization(stabilization)
    l_alpha, l_beta = (alpha, beta) if limit_stabilization is None else _check_stabilization(limit_stabilization)
    cm = model._compiled or model.compile()
    q, v = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v")
    if q.ndim != 1 or v.ndim != 1:
        raise ValueError(f"constraint_forces: expected single states q ({cm.nq},) and v ({cm.nv},), got {q.shape}, "
                         f"{v.shape}")
    tau = np.zeros(cm.nv) if tau is None else as_state(tau, cm.nv, "tau")
    a_free = aba(model, q, v, tau, f_ext)
    unilateral = joint_limits(model)
    sides = _limit_sides(model, q, v, limits, contact_tolerance, slip_velocity) if unilateral or limits else []
    if len(unilateral) == len(model.constraints) and not model.geometries and not sides:
        return ConstrainedDynamics(a_free, [np.zeros(2) for _ in unilateral], np.zeros(cm.nv))
    s = Snapshot(model, q, v)
    rows, slices = stack(model, s)
    gamma = rows.gamma - 2 * alpha * (rows.J @ v - rows.b) - beta**2 * rows.phi
    M = crba(model, q)
    contacts = detect(model, s, contact_tolerance)
    if method == "udwadia_kalaba":
        if contacts or sides:
            raise ValueError("method='udwadia_kalaba' handles equality constraints only; the model has active "
                             "contacts or joint limits (use method='gauss')")
        a, Q = udwadia_kalaba(M, a_free, rows.J, gamma, rcond)
        lam = np.linalg.lstsq(rows.J.T, Q, rcond=rcond)[0]
        multipliers = [np.zeros(2) if getattr(c, "unilateral", False) else lam[sl]
                       for c, sl in zip(model.constraints, slices)]
        return ConstrainedDynamics(a, multipliers, Q, [], int(np.linalg.matrix_rank(rows.J)))
    solver = GaussSolver(M, rows.J, rcond)
    a, lam = solver.solve(a_free, gamma)
    report, limit_forces = [], []
    c_rows = contacts_rows(s, contacts)
    active = [i for i, r in enumerate(c_rows) if r.vn <= slip_velocity]
    if active or sides:
        contacts, c_rows = [contacts[i] for i in active], [c_rows[i] for i in active]
        # joint-limit bounds: frictionless rows g̈ = n a ≥ −2α ġ − β² g, solved in the same LCP as the contacts
        l_contacts, l_rows = limit_rows(cm.nv, sides)
        nc = len(contacts)
        contacts, c_rows = contacts + l_contacts, c_rows + l_rows
        sliding = np.array([np.linalg.norm(r.vt) > slip_velocity for r in c_rows])
        gamma_n = np.array([-r.bias_n for r in c_rows[:nc]] + [-2 * l_alpha * x.rate - l_beta**2 * x.gap for x in sides])
        gamma_t = np.array([-r.bias_t for r in c_rows])
        sol = solve_contacts(solver, a, contacts, c_rows, gamma_n, gamma_t, sliding)
        # contacts that start to slip from rest: one re-solve with kinetic friction opposing the tangential
        # acceleration of the pyramid solution (the exact Coulomb cone along that direction; iterating this
        # fixed point is unstable in the yaw of a multi-contact face, so it is done once)
        starting = np.array([st == "slip" and not sliding[i] for i, st in enumerate(sol.status)])
        if refine_slip and starting.any():
            c_rows = [r._replace(vt=r.T @ sol.a + r.bias_t) if starting[i] else r for i, r in enumerate(c_rows)]
            sol = solve_contacts(solver, a, contacts, c_rows, gamma_n, gamma_t, sliding | starting)
        a = sol.a
        lam = solver.multipliers(a, a_free, sol.Q)
        report = [dict(a=c.a.name, b=c.b.name, point=c.geometry.point, normal=c.geometry.normal,
                       distance=c.geometry.distance, force=f, status=st)
                  for c, f, st in zip(contacts[:nc], sol.forces[:nc], sol.status[:nc])]
        limit_forces = sol.forces[nc:]
    bounds = limit_multipliers(model, sides, limit_forces)
    multipliers = [bounds[id(c)] if getattr(c, "unilateral", False) else lam[sl]
                   for c, sl in zip(model.constraints, slices)]
    return ConstrainedDynamics(a, multipliers, M @ (a - a_free), report, solver.rank)


def forward_dynamics(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike | None = None, f_ext: ArrayLike | Mapping[str, ArrayLike] | None = None,
                     **options: Any) -> np.ndarray:
    """Accelerations (nv,) honouring the model's constraints and contacts (Gauss's principle); without any, the
    articulated-body algorithm. ``options`` as for :func:`constraint_forces`."""
    return constraint_forces(model, q, v, tau, f_ext, **options).a
