"""Joint limits (:class:`~multibody.constraints.types.JointLimit`) as unilateral constraints, solved with the contacts.

A bound of a one-dof joint is a one-sided row with gap g ≥ 0 and normal n = ±e_k on the joint's velocity entry
(g = q − lower or upper − q; ġ = n v, g̈ = n v̇). It is a frictionless contact in generalized coordinates, so it
goes through the same machinery as the contacts between shapes (MuJoCo and Drake also solve joint limits with
the contacts):

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

from typing import NamedTuple

import numpy as np

from .contact import ContactPair, ContactRows


class LimitSide(NamedTuple):
    """One finite bound at a state: its :class:`JointLimit`, side ("lower"/"upper"), gap g [rad or m], normal sign
    (+1 lower, −1 upper), velocity index and gap rate ġ."""

    limit: object
    side: str
    gap: float
    sign: float
    index: int  # type: ignore[assignment]  # a field may shadow tuple.index (typeshed's tuple has the method)
    rate: float


def joint_limits(model):
    """The model's unilateral constraints (:class:`JointLimit`), in ``model.constraints`` order."""
    return [c for c in getattr(model, "constraints", ()) if getattr(c, "unilateral", False)]


def stored_limits(model):
    """A :class:`JointLimit` (plastic, e = 0) for each joint whose stored ``limits`` (:class:`multibody.JointLimits`:
    a URDF ``<limit>``, an MJCF ``range`` that is ``limited``, a model file's ``limits``) have a finite bound and
    that no :class:`JointLimit` of ``model.constraints`` already covers. The same objects while the bounds do not
    change (kept in ``CompiledModel.derived``), so that a simulation can follow them by identity."""
    covered = {c.joint for c in joint_limits(model)}
    key = tuple((j.name, j.limits.lower, j.limits.upper) for j in model.joints
                if j.limits is not None and j.name not in covered
                and (np.isfinite(j.limits.lower) or np.isfinite(j.limits.upper)))
    derived = (model._compiled or model.compile()).derived
    if derived.get("stored_limits", (None,))[0] != key:
        from .types import JointLimit
        limits = [JointLimit(name, lower, upper) for name, lower, upper in key]
        for limit in limits:
            limit.check(model)
        derived["stored_limits"] = (key, limits)
    return derived["stored_limits"][1]


def enforced_limits(model, stored=True):
    """The joint limits a simulation enforces: the model's :class:`JointLimit` constraints and, with ``stored``
    (simulate's ``joint_limits=True``, the default), the joints' stored limits (:func:`stored_limits`)."""
    explicit = joint_limits(model)
    return [*explicit, *stored_limits(model)] if stored else explicit


def limit_sides(model, q, v, limits=None):
    """Every finite bound of ``limits`` (default the model's :class:`JointLimit` constraints) at (q, v), a list of
    :class:`LimitSide`."""
    limits = joint_limits(model) if limits is None else limits
    return [LimitSide(c, *side) for c in limits for side in c.sides(model, q, v)]


def active_sides(model, q, v, tolerance=1e-6, speed=1e-6):
    """Bounds that touch (g ≤ ``tolerance``) and neither approach nor separate faster than ``speed``
    (|ġ| ≤ speed). A separating bound exerts no force; an approaching one needs an impulse first."""
    return [s for s in limit_sides(model, q, v) if s.gap <= tolerance and abs(s.rate) <= speed]


def bound_arrays(model, limits):
    """Every finite bound of ``limits`` as arrays: (keys [(JointLimit, side)], q index, v index, bound [rad or m],
    normal sign (+1 lower, −1 upper)), so that g = sign (q[iq] − bound) and ġ = sign v[iv] for all bounds at once.
    Kept in ``CompiledModel.derived`` while the same limits with the same bounds are asked for."""
    key = tuple((id(c), c.lower, c.upper) for c in limits)
    derived = (model._compiled or model.compile()).derived
    if derived.get("bound_arrays", (None,))[0] != key:
        keys, iq, iv, bound, sign = [], [], [], [], []
        for c in limits:
            _, i, k = model.one_dof_joint(c.joint, f"{c!r}")
            for side, value, s in (("lower", c.lower, 1.0), ("upper", c.upper, -1.0)):
                if value is not None and np.isfinite(value):
                    keys.append((c, side))
                    iq.append(i)
                    iv.append(k)
                    bound.append(value)
                    sign.append(s)
        derived["bound_arrays"] = (key, list(limits), keys, np.array(iq, dtype=np.int64),
                                   np.array(iv, dtype=np.int64), np.array(bound, dtype=float), np.array(sign))
    return derived["bound_arrays"][2:]


def limit_rows(nv, sides):
    """(contacts, rows) of bounds in the form of :func:`.contact.solve_contacts`: frictionless rows N = n
    (no tangents, no bias: g̈ = n v̇) with ``geometry`` None."""
    contacts, rows = [], []
    for s in sides:
        N = np.zeros(nv)
        N[s.index] = s.sign
        contacts.append(ContactPair(s.limit, s.side, -1, -1, None, 0.0, s.limit.restitution))
        rows.append(ContactRows(N, np.zeros((2, nv)), np.zeros((2, 3)), s.rate, np.zeros(2), 0.0, np.zeros(2)))
    return contacts, rows


def limit_multipliers(model, sides, forces):
    """{id(limit): (2,) array [λ_lower, λ_upper]} of generalized limit forces ≥ 0 [N·m or N] (zero if inactive)."""
    out = {id(c): np.zeros(2) for c in joint_limits(model)}
    for s, f in zip(sides, forces):
        if id(s.limit) in out:  # (the stored limits of a simulation are no constraints of the model)
            out[id(s.limit)][0 if s.side == "lower" else 1] = float(f)
    return out
