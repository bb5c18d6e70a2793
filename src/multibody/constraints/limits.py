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
* **Impacts** (:meth:`LimitStops.impact`): at a falling zero crossing of g the velocity jumps by Gauss's
  principle in impulse form, v⁺ = argmin ½ (v⁺ − v⁻)ᵀ M (v⁺ − v⁻) subject to the equality constraints and
  n v⁺ ≥ −e n v⁻ ⟂ Λ ≥ 0 for every touching bound (Newton's restitution e, the :class:`JointLimit`'s
  ``restitution``; e = 0 below ``rest_velocity`` so that bounces end), the same LCP at the velocity level.
* **Simulation** (:func:`multibody.simulate`, which by default also enforces the limits stored with the joints,
  :func:`stored_limits`): :class:`LimitStops` gives one event per bound and the dynamics;
  after a plastic stop (or a rebound slower than ``rest_velocity``) the bound *rests*: it is held by the LCP,
  with Baumgarte terms, until the joint leaves it by more than ``release_distance``. Bounds that do not rest act
  only through impacts, so a free flight near a bound is the unconstrained motion. This is the event-driven
  scheme of :mod:`multibody.impact.events` for shapes (which also runs these events). The contact time stepper
  (:func:`.integrate.contact_step`) puts the bounds in its LCP instead.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..dynamics import crba
from ._kinematics import Snapshot
from .contact import Contact, ContactRows, solve_contacts
from .gauss import GaussSolver
from .types import stack


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
        contacts.append(Contact(s.limit, s.side, -1, -1, None, 0.0, s.limit.restitution))
        rows.append(ContactRows(N, np.zeros((2, nv)), np.zeros((2, 3)), s.rate, np.zeros(2), 0.0, np.zeros(2)))
    return contacts, rows


def limit_multipliers(model, sides, forces):
    """{id(limit): (2,) array [λ_lower, λ_upper]} of generalized limit forces ≥ 0 [N·m or N] (zero if inactive)."""
    out = {id(c): np.zeros(2) for c in joint_limits(model)}
    for s, f in zip(sides, forces):
        if id(s.limit) in out:  # (the stored limits of a simulation are no constraints of the model)
            out[id(s.limit)][0 if s.side == "lower" else 1] = float(f)
    return out


class LimitStops:
    """The joint-limit events and dynamics of one simulation run (used by :func:`multibody.simulate` when the
    model holds :class:`JointLimit` constraints).

    rest_velocity : [rad/s or m/s] an arrival slower than this is plastic (e = 0) and the bound then rests.
    tolerance : an event fires when g = −tolerance/2 (the offset makes a bound that just bounced start its next
        flight with a positive event value even if one solver step spans the flight).
    release_distance : a resting bound is watched again once g exceeds this; bounds with g ≤ this take part in
        an impact, and resting ones within it are held by the LCP of the dynamics.
    stabilization : Baumgarte gains (α, β) [1/s] of the resting bounds, g̈ ≥ −2α ġ − β² g: a joint coming
        back to a bound it hopped off by less than ``release_distance`` settles onto it (critically damped for
        α = β), and the event offset −tolerance/2 is removed.
    limits : the :class:`JointLimit` s to enforce (default :func:`enforced_limits`: the model's and the joints'
        stored limits).
    """

    def __init__(self, model, rest_velocity=1e-3, tolerance=1e-9, release_distance=1e-6,
                 stabilization=(20.0, 20.0), limits=None):
        self.model, self.stabilization = model, stabilization
        self.rest_velocity, self.tolerance = float(rest_velocity), float(tolerance)
        self.release = float(release_distance)
        self.limits = enforced_limits(model) if limits is None else list(limits)
        self.keys = []
        for limit in self.limits:
            _, iq, _ = model.one_dof_joint(limit.joint, f"{limit!r}")
            for side, bound, sign in (("lower", limit.lower, 1.0), ("upper", limit.upper, -1.0)):
                if bound is not None and np.isfinite(bound):
                    self.keys.append((limit, side, iq, sign, bound))
        self.resting, self.fired = set(), set()
        self.log = []  # (t, joint, side, ġ before, ġ after) per bound taking part in an impact

    def gap(self, q, k):
        """g of bound ``k`` (index into ``keys``)."""
        _, _, iq, sign, bound = self.keys[k]
        return sign * (q[iq] - bound)

    def events(self):
        """One falling-crossing event per finite bound, with :meth:`impact` as its action."""
        def watcher(k):
            def g(t, q, v):
                gap = self.gap(q, k)
                if k in self.resting and gap > self.release:
                    self.resting.discard(k)
                if k in self.fired and gap > 0.0:
                    self.fired.discard(k)
                if k in self.resting:
                    return gap + self.release
                return gap + (self.tolerance if k in self.fired else 0.5 * self.tolerance)
            limit, side = self.keys[k][:2]
            from ..simulate.simulate import Event
            return Event(g, name=f"limit {limit.joint} {side}", direction=-1.0, action=self.impact)
        return [watcher(k) for k in range(len(self.keys))]

    def impact(self, t, q, v):
        """Event action: the velocity jump that stops (or reflects) every touching bound at once; (q, v⁺)."""
        model = self.model
        sides = [s for s in limit_sides(model, q, v, self.limits) if s.gap <= self.release]
        rows, _ = stack(model, Snapshot(model, q, v))
        solver = GaussSolver(crba(model, q), rows.J)
        # v⁺ = v_eq + K N^T Λ, N v⁺ ≥ −e N v⁻ for arrivals faster than rest_velocity, ≥ 0 otherwise
        v_eq = solver.solve(v, rows.b)[0]
        rate = np.array([s.rate for s in sides])
        e = np.array([s.limit.restitution for s in sides])
        target = np.where(rate < -self.rest_velocity, -e * rate, 0.0)
        contacts, c_rows = limit_rows(model.nv, sides)
        v_new = solve_contacts(solver, v_eq, contacts, c_rows, target, np.zeros((len(sides), 2)),
                               np.zeros(len(sides), bool)).a
        for s in sides:
            k = next(i for i, key in enumerate(self.keys) if key[0] is s.limit and key[1] == s.side)
            after = s.sign * v_new[s.index]
            self.fired.add(k)
            if after < self.rest_velocity:
                self.resting.add(k)
            self.log.append((float(t), s.limit.joint, s.side, float(s.rate), float(after)))
        return q, v_new

    def dynamics(self, t, q, v, tau):
        """v̇: :func:`~multibody.constraints.forward.forward_dynamics` with the resting bounds (within
        ``release_distance``, not separating faster than 1e-6) held by the LCP, g̈ ≥ −2α ġ − β² g with (α, β) =
        ``stabilization``; the articulated-body algorithm when nothing else constrains the model and no bound
        rests. A joint hopping off a resting bound flies freely and is caught on its way back without an
        impact: the row then only removes energy (its power λ ġ ≤ 0)."""
        from .forward import forward_dynamics
        resting = [self.keys[k][:2] for k in self.resting]
        return forward_dynamics(self.model, q, v, tau, contact_tolerance=self.release, limits=resting,
                                limit_stabilization=self.stabilization)
