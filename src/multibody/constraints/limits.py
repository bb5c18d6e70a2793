"""Joint and tendon limits (:class:`~multibody.constraints.bounds.JointLimit`,
:class:`~multibody.constraints.bounds.TendonLimit`) as unilateral constraints, solved with the contacts.

A bound is a one-sided linear row with gap g = G q − offset ≥ 0 and normal n (nv,): for a one-dof joint
n = ±e_k on its velocity entry (g = q − lower or upper − q), for a fixed tendon L = Σ cⱼ qⱼ, n = ±(cⱼ on the
joints' velocity entries) (g = L − lower or upper − L); ġ = n v, g̈ = n v̇. It is a frictionless contact in
generalized coordinates, so it goes through the same machinery as the contacts between shapes (MuJoCo and Drake
also solve joint and tendon limits with the contacts):

* **Forward dynamics** (:func:`multibody.constraints.forward.constraint_forces`): a bound that touches
  (g ≤ ``contact_tolerance``) and moves along its normal slower than ``slip_velocity`` (|ġ| ≤ slip_velocity) enters
  the contact LCP of :mod:`.contact` with the Signorini condition g̈ ≥ γ ⟂ λ ≥ 0 (γ = 0, or −2α ġ − β² g with
  Baumgarte gains), around the equality-constrained solution. A bound separating faster exerts no force; one
  approaching faster needs an impulse first and exerts none until then.
* **Impacts** (:meth:`.limit_stops.LimitStops.impact`): at a falling zero crossing of g the velocity jumps by Gauss's
  principle in impulse form, v⁺ = argmin ½ (v⁺ − v⁻)ᵀ M (v⁺ − v⁻) subject to the equality constraints and
  n v⁺ ≥ −e n v⁻ ⟂ Λ ≥ 0 for every touching bound (Newton's restitution e, the :class:`JointLimit`'s
  ``restitution``; e = 0 below ``rest_velocity`` so that bounces end), the same LCP at the velocity level.
* **Simulation** (:func:`multibody.simulate`, which by default also enforces the limits stored with the joints,
  :func:`stored_limits`): :class:`.limit_stops.LimitStops` gives one event per bound and the dynamics;
  after a plastic stop (or a rebound slower than ``rest_velocity``) the bound *rests*: it is held by the LCP,
  with Baumgarte terms, until the joint leaves it by more than ``release_distance``. Bounds that do not rest act
  only through impacts, so a free flight near a bound is the unconstrained motion. This is the event-driven
  scheme of :mod:`multibody.impact.events` for shapes (which also runs these events). The contact time stepper
  (:func:`.integrate.contact_step`) puts the bounds in its LCP instead.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .contact import ContactPair, ContactRows
from .bounds import JointLimit, TendonLimit


class LimitSide(NamedTuple):
    """One finite bound at a state: its limit (:class:`JointLimit` or :class:`TendonLimit`), side
    ("lower"/"upper"), gap g [rad, m or the tendon's unit], normal N (nv,) and gap rate ġ = N v."""

    limit: object
    side: str
    gap: float
    normal: np.ndarray
    rate: float


def joint_limits(model):
    """The model's unilateral constraints (:class:`JointLimit`, :class:`TendonLimit`), in ``model.constraints``
    order."""
    return [c for c in getattr(model, "constraints", ()) if getattr(c, "unilateral", False)]


_UNCOVERED: tuple[frozenset, frozenset] = (frozenset(), frozenset())  # no joints, no tendons


def stored_limits(model):
    """A :class:`JointLimit` (plastic, e = 0) for each joint whose stored ``limits`` (:class:`multibody.JointLimits`:
    a URDF ``<limit>``, an MJCF ``range`` that is ``limited``, a model file's ``limits``) have a finite bound, and a
    :class:`TendonLimit` for each fixed tendon with stored ``limits`` (an MJCF tendon ``range`` that is
    ``limited``), that no limit of ``model.constraints`` already covers. The same objects while the bounds do not
    change (kept in ``CompiledModel.derived``), so that a simulation can follow them by identity."""
    explicit = joint_limits(model)
    covered = (frozenset(c.joint for c in explicit if hasattr(c, "joint")),
               frozenset(c.tendon for c in explicit if hasattr(c, "tendon"))) if explicit else _UNCOVERED
    derived = (model._compiled or model.compile()).derived
    # (the joints' and tendons' stored limits are parts of the model, whose edits drop ``derived``; the model's own
    # limit constraints are not, so the joints and tendons they cover are compared)
    if derived.get("stored_limits", (None,))[0] != covered:
        joints, tendons = covered
        key = tuple(("joint", j.name, j.limits.lower, j.limits.upper) for j in model.joints
                    if j.limits is not None and j.name not in joints
                    and (math.isfinite(j.limits.lower) or math.isfinite(j.limits.upper)))
        key += tuple(("tendon", e.name, *e.limits) for e in getattr(model, "forces", ())
                     if getattr(e, "kind", None) == "fixed_tendon" and e.limits is not None and e.name not in tendons
                     and (math.isfinite(e.limits[0]) or math.isfinite(e.limits[1])))
        limits = [(JointLimit if kind == "joint" else TendonLimit)(name, lower, upper)
                  for kind, name, lower, upper in key]
        for limit in limits:
            limit.check(model)
        derived["stored_limits"] = (covered, limits)
    return derived["stored_limits"][1]


def enforced_limits(model, stored=True):
    """The limits a simulation enforces: the model's :class:`JointLimit` and :class:`TendonLimit` constraints and,
    with ``stored`` (simulate's ``joint_limits=True``, the default), the joints' and fixed tendons' stored limits
    (:func:`stored_limits`)."""
    explicit = joint_limits(model)
    return [*explicit, *stored_limits(model)] if stored else explicit


def limit_sides(model, q, v, limits=None):
    """Every finite bound of ``limits`` (default the model's :class:`JointLimit` and :class:`TendonLimit`
    constraints) at (q, v), a list of :class:`LimitSide`."""
    limits = joint_limits(model) if limits is None else limits
    return [LimitSide(c, *side) for c in limits for side in c.sides(model, q, v)]


def active_sides(model, q, v, tolerance=1e-6, speed=1e-6):
    """Bounds that touch (g ≤ ``tolerance``) and neither approach nor separate faster than ``speed``
    (|ġ| ≤ speed). A separating bound exerts no force; an approaching one needs an impulse first."""
    return [s for s in limit_sides(model, q, v) if s.gap <= tolerance and abs(s.rate) <= speed]


def bound_arrays(model, limits):
    """Every finite bound of ``limits`` (:class:`JointLimit`, :class:`TendonLimit`) as linear rows: (keys
    [(limit, side)], G (nb, nq), offset (nb,), N (nb, nv), restitution (nb,)), so that the gaps are
    g = G q − offset ≥ 0 and their rates ġ = N v for all bounds at once (a joint bound: G = ±e on its q entry,
    N = ±e on its v entry; a tendon bound: ± the tendon's coefficients). Kept in ``CompiledModel.derived`` while the
    same limits with the same bounds are asked for (any edit of the model drops it)."""
    key = tuple((id(c), c.lower, c.upper, c.restitution) for c in limits)
    derived = (model._compiled or model.compile()).derived
    if derived.get("bound_arrays", (None,))[0] != key:
        keys, G, offset, N, restitution = [], [], [], [], []
        for c in limits:
            for side, g_row, g_offset, n_row in c.bound_rows(model):
                keys.append((c, side))
                G.append(g_row)
                offset.append(g_offset)
                N.append(n_row)
                restitution.append(c.restitution)
        nb = len(keys)
        derived["bound_arrays"] = (key, list(limits), keys, np.array(G, dtype=float).reshape(nb, model.nq),
                                   np.array(offset, dtype=float), np.array(N, dtype=float).reshape(nb, model.nv),
                                   np.array(restitution, dtype=float))
    return derived["bound_arrays"][2:]


def limit_rows(nv, sides):
    """(contacts, rows) of bounds in the form of :func:`.contact.solve_contacts`: frictionless rows N (the
    bound's normal; no tangents, no bias: g̈ = N v̇) with ``geometry`` None."""
    contacts, rows = [], []
    for s in sides:
        contacts.append(ContactPair(s.limit, s.side, -1, -1, None, 0.0, s.limit.restitution))
        rows.append(ContactRows(np.array(s.normal, dtype=float), np.zeros((2, nv)), np.zeros((2, 3)), s.rate,
                                np.zeros(2), 0.0, np.zeros(2)))
    return contacts, rows


def limit_multipliers(model, sides, forces):
    """{id(limit): (2,) array [λ_lower, λ_upper]} of generalized limit forces ≥ 0 [N·m or N] (zero if inactive)."""
    out = {id(c): np.zeros(2) for c in joint_limits(model)}
    for s, f in zip(sides, forces):
        if id(s.limit) in out:  # (the stored limits of a simulation are no constraints of the model)
            out[id(s.limit)][0 if s.side == "lower" else 1] = float(f)
    return out
