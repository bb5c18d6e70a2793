"""The joint and tendon stops of a simulation: the limits' impact events, their impacts and the dynamics with the
resting bounds held (:mod:`.limits` describes the scheme), as :func:`multibody.simulate` and the collisions of
:mod:`multibody.impact.events` run them.
"""
from __future__ import annotations

import numpy as np

from ..dynamics import crba
from ..event import Event
from ._kinematics import Snapshot
from .contact import solve_contacts
from .forward import forward_dynamics
from .gauss import GaussSolver
from .limits import bound_arrays, enforced_limits, limit_rows, limit_sides
from .types import stack


class LimitStops:
    """The limit events and dynamics of one simulation run (used by :func:`multibody.simulate` when the model
    holds :class:`JointLimit` or :class:`TendonLimit` constraints, or joints and tendons with stored limits).

    rest_velocity : [rad/s or m/s] an arrival slower than this is plastic (e = 0) and the bound then rests.
    tolerance : an event fires when g = −tolerance/2 (the offset makes a bound that just bounced start its next
        flight with a positive event value even if one solver step spans the flight).
    release_distance : a resting bound is watched again once g exceeds this; bounds with g ≤ this take part in
        an impact, and resting ones within it are held by the LCP of the dynamics.
    stabilization : Baumgarte gains (α, β) [1/s] of the resting bounds, g̈ ≥ −2α ġ − β² g: a joint coming
        back to a bound it hopped off by less than ``release_distance`` settles onto it (critically damped for
        α = β), and the event offset −tolerance/2 is removed.
    limits : the :class:`JointLimit` s and :class:`TendonLimit` s to enforce (default :func:`enforced_limits`: the
        model's and the joints' and tendons' stored limits).

    ``keys`` lists the bounds as (limit, side) in the order of their events; ``G``, ``offset`` their rows
    g = G q − offset (:func:`~.limits.bound_arrays`).
    """

    def __init__(self, model, rest_velocity=1e-3, tolerance=1e-9, release_distance=1e-6,
                 stabilization=(20.0, 20.0), limits=None):
        self.model, self.stabilization = model, stabilization
        self.rest_velocity, self.tolerance = float(rest_velocity), float(tolerance)
        self.release = float(release_distance)
        self.limits = enforced_limits(model) if limits is None else list(limits)
        self.keys, self.G, self.offset, _, _ = bound_arrays(model, self.limits)
        self.resting, self.fired = set(), set()
        self.log = []  # (t, joint or "tendon <name>", side, ġ before, ġ after) per bound taking part in an impact

    def gap(self, q, k):
        """g = G q − offset of bound ``k`` (index into ``keys``)."""
        return float(self.G[k] @ q - self.offset[k])

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
            limit, side = self.keys[k]
            return Event(g, name=f"limit {limit.target} {side}", direction=-1.0, action=self.impact)
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
            after = float(s.normal @ v_new)
            self.fired.add(k)
            if after < self.rest_velocity:
                self.resting.add(k)
            self.log.append((float(t), s.limit.target, s.side, float(s.rate), after))
        return q, v_new

    def dynamics(self, t, q, v, tau):
        """v̇: :func:`~multibody.constraints.forward.forward_dynamics` with the resting bounds (within
        ``release_distance``, not separating faster than 1e-6) held by the LCP, g̈ ≥ −2α ġ − β² g with (α, β) =
        ``stabilization``; the articulated-body algorithm when nothing else constrains the model and no bound
        rests. A joint hopping off a resting bound flies freely and is caught on its way back without an
        impact: the row then only removes energy (its power λ ġ ≤ 0)."""
        resting = [self.keys[k] for k in self.resting]
        return forward_dynamics(self.model, q, v, tau, contact_tolerance=self.release, limits=resting,
                                limit_stabilization=self.stabilization)
