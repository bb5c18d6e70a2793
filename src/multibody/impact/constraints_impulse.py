"""Impulsive constraints by Gauss's principle in impulse form: a joint suddenly locked, a point suddenly fixed,
contacts that collide, with restitution (Newton's or Poisson's law) and Coulomb friction.

Gauss's principle (Yao Wenli, "Modelling multi-rigid-body systems by Gauss's principle of least constraint in
generalized coordinates" (2016), eq. 5) carried over from accelerations to velocity jumps: among all velocities
v⁺ compatible with the impulsive constraints, the true one minimizes

    Z(v⁺) = ½ (v⁺ − v_free)ᵀ M (v⁺ − v_free),     v_free = v⁻ + M⁻¹ B  (the response to given impulses B),

the kinetic energy of the velocity change the constraints impose. With constraint rows G (k × nv) the
minimizer is v⁺ = v_free + M⁻¹ Gᵀ λ, λ the constraint impulses, and in contact space u = G v⁺ reads

    u = G v_free + W λ,     W = G M⁻¹ Gᵀ   (the Delassus matrix).

Constraints on u, with Newton's coefficient e (velocity law, the default), written on Moreau's weighted
velocity ξ = u⁺ + e u⁻:
- bilateral (LockJoint, FixPoint): ξ = 0, i.e. u⁺ = −e u⁻ (e = 0: the joint or point stops dead);
- contact normal: ξ_n ≥ 0, λ_n ≥ 0, ξ_n λ_n = 0 (u_n⁺ ≥ −e u_n⁻, tight while the contact pushes);
- contact tangent: Coulomb on ξ_t, ‖λ_t‖ ≤ μ λ_n, ξ_t = 0 while sticking, λ_t = −μ λ_n ξ_t/‖ξ_t‖ while sliding.
  The same e in the tangent (a sticking contact reverses its slip by e) is what makes the law never gain
  energy: ΔK = λᵀξ/(1 + e) − (1 − e)/(2(1 + e)) λᵀWλ ≤ 0 (Moreau; Glocker's energetic consistency). With e = 0
  it is the plain velocity-level Coulomb impact.
Poisson's law (``law="poisson"``) splits the impact instead: a compression phase (ξ = u⁺, e = 0) gives λ_c,
restitution adds e λ_c (the whole contact impulse, so again ΔK = (1 + e) λ_cᵀu_c − ½(1 − e²) λ_cᵀWλ_c ≤ 0), and a
last e = 0 pass removes any approach this left between several contacts. For one frictionless contact both laws
give the same result; they differ with friction or several contacts.

Simultaneous contacts (``method="simultaneous"``) are solved together by projected Gauss–Seidel on W (Moreau,
Jean). ``method="sequential"`` resolves them pairwise, always the fastest-approaching one first, each with its
own current approach velocity, until none approaches: this is the propagation model that reproduces Newton's
cradle (the impulse travels through the row of balls), whereas the simultaneous law spreads it.

A model with loop constraints (its bilateral constraints, rows A v = b) keeps them through the impact: the
minimization of Z above is also subject to A Δv = 0, which replaces M⁻¹ by the constrained response
P = M⁻¹ − M⁻¹Aᵀ (A M⁻¹ Aᵀ)⁺ A M⁻¹ in v_free, W and v⁺ (:func:`impulse_response_matrix`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics._inputs import as_state
from ..dynamics.algorithms import crba
from ..dynamics.kinematics import jacobian
from ..constraints.lcp import GaussSeidelBlock, gauss_seidel_sweep
from ..constraints.types import _perpendicular_pair
from ..errors import ModelError, SimulationError, checked_number
from .impulse import as_impulse_list, generalized_impulse, impulse_response_matrix

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..model import Model

LAWS = ("newton", "poisson")
METHODS = ("simultaneous", "sequential")


def check_restitution(e, owner):
    """e as a float in [0, 1]; ModelError naming ``owner`` otherwise."""
    return checked_number(e, f"{owner}: restitution", interval=(0.0, 1.0))


def check_friction(mu, owner):
    """mu as a float ≥ 0; ModelError naming ``owner`` otherwise."""
    return checked_number(mu, f"{owner}: friction coefficient", nonnegative=True)


@dataclass(frozen=True)
class LockJoint:
    """A joint (by joint or child-body name) suddenly locked: its velocities jump to −e times their value."""

    joint: str
    restitution: float = 0.0


@dataclass(frozen=True)
class FixPoint:
    """A point of ``body`` (coordinates in the body or named frame) suddenly fixed in the world, as when a
    falling linkage hits a pin: its velocity jumps to −e times its value."""

    body: str
    point: tuple = (0.0, 0.0, 0.0)
    restitution: float = 0.0


@dataclass(frozen=True)
class Contact:
    """A unilateral point contact between ``body`` and ``other`` (a body, or None for the fixed world).

    ``point`` and ``other_point`` are the contact points in their bodies' (or frames') coordinates [m] (for the
    world, ``other_point`` is in world coordinates and does not matter); ``normal`` (world axes) points from
    ``other`` towards ``body``, so u_n = n · (v_P − v_P') < 0 means approaching.
    """

    body: str
    point: tuple
    normal: tuple
    other: str | None = None
    other_point: tuple = (0.0, 0.0, 0.0)
    restitution: float = 0.0
    friction: float = 0.0


@dataclass(frozen=True)
class ImpactResult:
    """Velocity after an impulsive constraint or collision.

    v : (nv,) velocity after; impulses : list of per-constraint impulse arrays (contact: (λ_n, λ_t1, λ_t2) [N·s]
    along the normal and two world tangents; FixPoint: (3,) world-axes impulse on the point [N·s]; LockJoint:
    (joint nv,) generalized impulse); kinetic_energy_before, kinetic_energy_after [J]; iterations of the solver.
    """

    v: np.ndarray
    impulses: list
    kinetic_energy_before: float
    kinetic_energy_after: float
    iterations: int

    @property
    def kinetic_energy_change(self):
        return self.kinetic_energy_after - self.kinetic_energy_before


def contact_basis(n):
    """Rows (n, t1, t2) (3 × 3): the unit normal and two world tangents of a contact; contact impulses
    (λ_n, λ_t1, λ_t2) map to the world impulse λ @ contact_basis(n)."""
    return np.vstack([n, *_perpendicular_pair(n)])


def _unit_normal(normal, owner):
    n = np.asarray(normal, dtype=np.float64)
    if n.shape != (3,) or not np.all(np.isfinite(n)) or np.linalg.norm(n) < 1e-12:
        raise ModelError(f"{owner}: normal must be a finite non-zero 3-vector, got {normal!r}")
    return n / np.linalg.norm(n)


def constraint_rows(model, q, constraint):
    """(G (k × nv), kind, e, μ) of one constraint at q: kind 'bilateral' or 'contact' (rows n, t1, t2)."""
    label = f"{type(constraint).__name__} {constraint!r}"
    if isinstance(constraint, LockJoint):
        s = model.v_slice(constraint.joint)
        G = np.eye(model.nv)[s]
        return G, "bilateral", check_restitution(constraint.restitution, label), 0.0
    if isinstance(constraint, FixPoint):
        G = jacobian(model, q, constraint.body, constraint.point)[3:]
        return G, "bilateral", check_restitution(constraint.restitution, label), 0.0
    if isinstance(constraint, Contact):
        n = _unit_normal(constraint.normal, label)
        Jrel = jacobian(model, q, constraint.body, constraint.point)[3:]
        if constraint.other not in (None, "world"):
            Jrel = Jrel - jacobian(model, q, constraint.other, constraint.other_point)[3:]
        return (contact_basis(n) @ Jrel, "contact", check_restitution(constraint.restitution, label),
                check_friction(constraint.friction, label))
    raise ModelError(f"impulsive constraint must be a LockJoint, FixPoint or Contact, got {constraint!r}")


class _Problem:
    """The constraint rows stacked: G (k × nv), block slices, kinds, e, μ; and W = G P Gᵀ (P: the response of
    :func:`impulse_response_matrix`, M⁻¹ without loop constraints)."""

    def __init__(self, model, q, constraints, M, rest_velocity=0.0):
        self.rest_velocity = rest_velocity
        rows = [constraint_rows(model, q, c) for c in constraints]
        self.blocks, start = [], 0
        for G, kind, e, mu in rows:
            self.blocks.append((slice(start, start + G.shape[0]), kind, e, mu))
            start += G.shape[0]
        self.G = np.vstack([r[0] for r in rows]) if rows else np.zeros((0, model.nv))
        self.MinvGT = impulse_response_matrix(model, q, M, self.G.T)
        self.W = self.G @ self.MinvGT
        # per block: the pseudo-inverse of its diagonal block (rank-deficient for a FixPoint on a planar mechanism);
        # for a contact the tangential step 1/λ_max(W_tt)·I, so that a saturated λ_t exactly opposes ξ_t
        self.step = [np.linalg.pinv(self.W[s, s], rcond=1e-12) if kind == "bilateral"
                     else np.eye(2) / max(np.linalg.eigvalsh(self.W[s.start + 1:s.stop, s.start + 1:s.stop])[-1], 1e-300)
                     for s, kind, _, _ in self.blocks]


def _gauss_seidel(problem, u0, targets, active, tol, max_iter):
    """Projected Gauss–Seidel (:func:`~multibody.constraints.lcp.gauss_seidel_sweep`) on u = u0 + W λ with
    ξ = u − target: bilateral blocks ξ = 0, contact normals λ_n ≥ 0 ⟂ ξ_n ≥ 0, tangents Coulomb's disk
    ‖λ_t‖ ≤ μ λ_n against ξ_t (a contact whose normal cannot move takes none). Returns (λ, iterations)."""
    W, lam = problem.W, np.zeros(len(u0))
    scale = max(1.0, np.abs(u0).max(initial=0.0), np.abs(targets).max(initial=0.0))
    largest = np.abs(W).max(initial=0.0)
    blocks = []
    for b in active:
        s, kind, _, mu = problem.blocks[b]
        if kind == "contact" and not W[s.start, s.start] > 1e-14 * largest:
            continue  # a contact that cannot move takes no impulse
        blocks.append(GaussSeidelBlock(s, None if kind == "bilateral" else mu, problem.step[b], np.abs(W[s, s]).max()))
    for it in range(1, max_iter + 1):
        change = gauss_seidel_sweep(W, u0, targets, lam, blocks)
        if change <= tol * scale:
            return lam, it
    raise SimulationError(f"impact solver: projected Gauss–Seidel did not converge in {max_iter} iterations "
                          f"(last change {change:.3g}): the constraints may be inconsistent (Newton's law at several dependent "
                          f"contacts can ask for the impossible, as for a jammed body; law='poisson' cannot)")


def _restitution(problem, b, u_n):
    """The block's e, or 0 for a contact that would rebound slower than ``rest_velocity`` (e |u_n⁻| below it):
    it stops instead of bouncing ever smaller."""
    e = problem.blocks[b][2]
    return e if problem.blocks[b][1] == "bilateral" or -e * u_n >= problem.rest_velocity else 0.0


def _targets(problem, u_minus, blocks, law):
    """Targets −e u⁻ (ξ = u − target) of Newton's law for bilateral blocks and approaching contacts (normal and
    tangent); Poisson's compression phase has zero contact targets (bilateral ones keep Newton's)."""
    targets = np.zeros(len(u_minus))
    for b in blocks:
        s, kind, _, _ = problem.blocks[b]
        e = _restitution(problem, b, u_minus[s.start])
        if kind == "bilateral":
            targets[s] = -e * u_minus[s]
        elif law == "newton" and u_minus[s.start] < 0.0:
            targets[s] = -e * u_minus[s]
    return targets


def _solve(problem, u0, u_minus, blocks, law, tol, max_iter):
    """Impulses λ on ``blocks`` from contact-space velocity u0 (before these impulses) by the chosen law."""
    targets = _targets(problem, u_minus, blocks, law)
    lam, its = _gauss_seidel(problem, u0, targets, blocks, tol, max_iter)
    if law == "newton":
        return lam, its
    # Poisson: after compression λ_c, restitution adds e λ_c (the contact's whole impulse); a last pass with
    # zero targets removes any approach this leaves between several contacts.
    for b in blocks:
        s, kind, _, _ = problem.blocks[b]
        if kind == "contact":
            lam[s] *= 1.0 + _restitution(problem, b, u_minus[s.start])
    fix, its_fix = _gauss_seidel(problem, u0 + problem.W @ lam, targets, blocks, tol, max_iter)
    return lam + fix, its + its_fix


def _sequential(problem, u0, u_minus, law, tol, max_iter):
    """Pairwise propagation: the fastest-approaching contact is resolved (with the bilateral constraints, kept at
    their targets) using its current approach velocity, until no contact approaches."""
    bilateral = [b for b, (_, kind, _, _) in enumerate(problem.blocks) if kind == "bilateral"]
    contacts = [b for b, (_, kind, _, _) in enumerate(problem.blocks) if kind == "contact"]
    lam, total = np.zeros(len(u0)), 0
    threshold = tol * max(1.0, np.abs(u0).max(initial=0.0))
    for _ in range(max_iter):
        u = u0 + problem.W @ lam
        approach = [u[problem.blocks[b][0].start] for b in contacts]
        if not contacts or min(approach) >= -threshold:
            if bilateral and total == 0:
                step, its = _solve(problem, u, u_minus, bilateral, law, tol, max_iter)
                lam, total = lam + step, total + its
            return lam, total
        b = contacts[int(np.argmin(approach))]
        current = u_minus.copy()
        s = problem.blocks[b][0]
        current[s] = u[s]
        step, its = _solve(problem, u, current, bilateral + [b], law, tol, max_iter)
        lam, total = lam + step, total + its
    raise SimulationError(f"impact solver: sequential impacts did not settle in {max_iter} pairwise impacts")


def resolve_impact(model: Model, q: ArrayLike, v: ArrayLike, constraints: Sequence[LockJoint | FixPoint | Contact],
                   impulses: Sequence[tuple[str, ArrayLike, ArrayLike]] | None = None, law: str = "newton", method: str = "simultaneous",
                   rest_velocity: float = 0.0, tol: float = 1e-13, max_iter: int = 10000) -> ImpactResult:
    """Velocity just after impulsive constraints (and optional external impulses) by Gauss's principle.

    Parameters
    ----------
    q : (nq,) configuration (frozen); v : (nv,) velocity just before.
    constraints : list of :class:`LockJoint`, :class:`FixPoint`, :class:`Contact`.
    impulses : optional external point impulses, as for :func:`multibody.apply_impulse` (list of triples).
    law : "newton" (velocity restitution, default) or "poisson" (impulse restitution).
    method : "simultaneous" (all constraints at once) or "sequential" (pairwise propagation, see module doc).
    rest_velocity : contacts that would rebound slower than this (e |u_n⁻| < rest_velocity) [m/s] get e = 0:
        they come to rest instead of bouncing ever smaller (the threshold that keeps event-driven simulation out
        of Zeno behaviour).
    tol, max_iter : convergence of the projected Gauss–Seidel solver (relative to the largest velocity).

    Returns
    -------
    ImpactResult
    """
    if law not in LAWS:
        raise ValueError(f"resolve_impact: law must be one of {LAWS}, got {law!r}")
    if method not in METHODS:
        raise ValueError(f"resolve_impact: method must be one of {METHODS}, got {method!r}")
    cm = model._compiled or model.compile()
    q, v = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v")
    if q.ndim != 1 or v.ndim != 1 or not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
        raise ValueError(f"resolve_impact: q and v must be single finite states, got shapes {q.shape}, {v.shape}")
    M = crba(model, q)
    v_free = v.copy()
    if impulses:
        v_free += impulse_response_matrix(model, q, M, generalized_impulse(model, q, as_impulse_list(model, impulses)))
    if not (np.isfinite(rest_velocity) and rest_velocity >= 0):
        raise ValueError(f"resolve_impact: rest_velocity must be finite and ≥ 0 [m/s], got {rest_velocity!r}")
    problem = _Problem(model, q, list(constraints), M, float(rest_velocity))
    u0, u_minus = problem.G @ v_free, problem.G @ v
    if method == "simultaneous":
        lam, its = _solve(problem, u0, u_minus, range(len(problem.blocks)), law, tol, max_iter)
    else:
        lam, its = _sequential(problem, u0, u_minus, law, tol, max_iter)
    v_plus = v_free + problem.MinvGT @ lam
    per = [lam[s] for s, *_ in problem.blocks]
    return ImpactResult(v_plus, per, 0.5 * v @ M @ v, 0.5 * v_plus @ M @ v_plus, its)
