"""Event-driven simulation of collisions: the gap between two shapes crossing zero stops the integration, an
impact law jumps the velocity, and the integration continues.

Between impacts the motion is smooth (:func:`multibody.simulate`). For every pair of contact shapes on
different bodies (``Model.add_geometry``) an event function g(q) = signed distance [m] is watched for a falling
zero crossing. At a crossing all pairs within ``contact_tolerance`` of touching are resolved together by
:func:`~multibody.impact.resolve_impact` (Newton or Poisson restitution, Coulomb friction, simultaneous or
sequential), the impact is recorded, and the run restarts from the new velocity.

Resting contact and Zeno behaviour: a ball with e < 1 bounces infinitely often before a finite time
t∞ = t₀ + (2 v₀ / g) e / (1 − e). Two rules stop this: a contact that would rebound slower than
``rest_velocity`` [m/s] (default 1e-3) takes e = 0, and a pair that leaves an impact touching with normal speed below
``rest_velocity`` is flagged *resting*: its event function becomes g + ``release_distance`` (it no longer
triggers on the contact it sits on), and the dynamics switches to the contact-aware forward dynamics
(:func:`multibody.constraints.forward.forward_dynamics`: Gauss's principle with a Signorini/Coulomb LCP)
while any pair rests. A resting pair is released when its gap exceeds ``release_distance``. The ball then
comes to rest less than 2 rest_velocity / (g (1 − e)) before t∞. A pair left at relative rest that nothing presses
together (the balls of Newton's cradle) is *idle*: watched like a resting pair, but the dynamics stays the
articulated-body algorithm; an impact takes in the pairs already in contact within ``release_distance``, so a
pulse runs through a row of touching bodies in one impact.

Pair properties follow the contact module (:func:`~multibody.constraints.geometry.contact_coefficients`): friction
μ = √(μ_A μ_B) (or max(μ_A, μ_B): ``Model.friction_rule``; the higher-priority shape's), restitution
e = max(e_A, e_B).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..constraints.contact import contact_pairs
from ..constraints.forward import forward_dynamics
from ..constraints.limit_stops import LimitStops
from ..constraints.limits import enforced_limits
from ..constraints.geometry import collide, contact_coefficients
from ..constraints.types import equality_constraints
from ..dynamics.algorithms import aba
from ..dynamics.kinematics import body_poses, integrate
from ..errors import ModelError
from ..event import Event, ImpactRecord
from .constraints_impulse import Contact, check_restitution, constraint_rows, contact_basis, resolve_impact

if TYPE_CHECKING:
    from ..model import Model


class Collisions:
    """The collision events of a model and the impact log (one per simulation run).

    Parameters as for :func:`simulate_impacts`; :func:`multibody.simulate` makes one for ``collisions``. ``limits``:
    the joint limits to enforce (default :func:`~multibody.constraints.limits.enforced_limits`, the model's and the
    joints' stored ones).
    """

    def __init__(self, model, law="newton", method="sequential", rest_velocity=1e-3, contact_tolerance=1e-9,
                 release_distance=1e-6, stabilization=(20.0, 20.0), limits=None):
        if not getattr(model, "geometries", None):
            raise ModelError(f"model '{model.name}': has no contact shapes; add them with model.add_geometry()")
        for name, value in (("rest_velocity", rest_velocity), ("contact_tolerance", contact_tolerance),
                            ("release_distance", release_distance)):
            if not (np.isfinite(value) and value >= 0):
                raise ValueError(f"collisions: {name} must be finite and ≥ 0, got {value!r}")
        self.model, self.law, self.method = model, law, method
        self.rest_velocity, self.tolerance = float(rest_velocity), float(contact_tolerance)
        self.release, self.stabilization = float(release_distance), stabilization
        self.pairs = contact_pairs(model)
        if not self.pairs:
            raise ModelError(f"model '{model.name}': no two contact shapes can touch (on different bodies, not a body "
                             "and its parent, of shape types with a contact model)")
        self.resting = set()  # pairs in resting contact: at relative rest and pressed together (contact LCP)
        self.idle = set()  # pairs left touching at relative rest that nothing presses together (Newton's cradle)
        self.tau = None  # the generalized force of the last dynamics evaluation (for the pressing test)
        limits = enforced_limits(model) if limits is None else limits  # joint limits: events and resting bounds
        self.stops = LimitStops(model, limits=limits) if limits else None
        self.fired = set()  # pairs that took part in the last impact and have not separated yet
        self.records = []

    def _posed(self, poses, geometry):
        """(body name or None, R, p): world pose of a geometry's frame."""
        if geometry.body == "world":
            return None, geometry.placement.rotation, geometry.placement.translation
        R0, p0 = poses
        index, origin, rotation = self.model.locate(geometry.body, geometry.placement.translation)
        if index < 0:  # on a frame fixed in the world
            return None, rotation @ geometry.placement.rotation, origin
        return self.model.bodies[index].name, R0[index] @ rotation @ geometry.placement.rotation, p0[index] + R0[index] @ origin

    def _contacts(self, poses, pair, margin):
        """(body A, body B, ContactPoint) of a pair with gap ≤ margin (normals from B to A)."""
        ga, gb = (self.model.geometries[k] for k in pair)
        (na, Ra, pa), (nb, Rb, pb) = self._posed(poses, ga), self._posed(poses, gb)
        return [(na, nb, c) for c in collide(ga.shape, (Ra, pa), gb.shape, (Rb, pb), margin)]

    def gap(self, q, pair):
        """Signed distance [m] of a pair (the smallest over its contact points)."""
        return min(c.distance for _, _, c in self._contacts(body_poses(self.model, q), pair, np.inf))

    def events(self):
        """One :class:`multibody.simulate.Event` per shape pair: falling gap crossings trigger :meth:`impact`."""
        def watcher(pair):
            def g(t, q, v):
                gap = self.gap(q, pair)
                if (pair in self.resting or pair in self.idle) and gap > self.release:
                    self.resting.discard(pair)  # lifted off: watch the contact again
                    self.idle.discard(pair)
                if pair in self.fired and gap > 0.0:
                    self.fired.discard(pair)
                # The root is g = 0, so a pair leaving an impact restarts at g = 0. Its offset then grows from
                # tolerance/2 to tolerance (g > 0 again) until it separates, so its next touchdown is a clean
                # falling crossing even if one solver step spans the whole flight.
                if pair in self.resting or pair in self.idle:
                    return gap + self.release
                return gap + (self.tolerance if pair in self.fired else 0.5 * self.tolerance)
            names = "–".join(self.model.geometries[k].name for k in pair)
            return Event(g, name=f"impact {names}", direction=-1.0, action=self.impact)
        return [watcher(pair) for pair in self.pairs] + (self.stops.events() if self.stops else [])

    def _constraint(self, poses, pair, body_a, body_b, contact):
        """A :class:`Contact` constraint for a touching ContactPoint (points in the bodies' coordinates)."""
        ga, gb = (self.model.geometries[k] for k in pair)
        R0, p0 = poses

        def local(body):
            if body is None:
                return contact.point
            k = self.model.body_index(body)
            return R0[k].T @ (contact.point - p0[k])
        mu, e = contact_coefficients(self.model, ga, gb)
        e = check_restitution(e, f"shapes {ga.name}, {gb.name}")
        if body_a is None:  # a world shape listed first (MJCF floors): the moving body first, the normal towards it
            return Contact(body_b, local(body_b), -np.asarray(contact.normal), None, contact.point, e, mu)
        return Contact(body_a, local(body_a), contact.normal, body_b, local(body_b), e, mu)

    def _in_contact(self, pair):
        return pair in self.resting or pair in self.idle or pair in self.fired

    def impact(self, t, q, v):
        """Event action: resolve every touching pair at once, record the impact, return (q, v⁺).

        Touching: within ``contact_tolerance``, or within ``release_distance`` for a pair already in contact
        (resting, idle or just fired), so that a pulse runs through a row of touching bodies in one impact.
        After it a pair at relative rest (normal speed below ``rest_velocity``) is *resting* if the free motion
        presses it together (its gap's acceleration under the articulated-body algorithm is negative), else
        *idle*: both are watched again only beyond ``release_distance``, and only resting pairs switch the
        dynamics to the contact LCP.
        """
        poses = body_poses(self.model, q)
        touching = [(pair, a, b, c) for pair in self.pairs
                    for a, b, c in self._contacts(poses, pair, self.release if self._in_contact(pair) else self.tolerance)]
        constraints = [self._constraint(poses, pair, a, b, c) for pair, a, b, c in touching]
        rows = [constraint_rows(self.model, q, c)[0] for c in constraints]
        result = resolve_impact(self.model, q, v, constraints, law=self.law, method=self.method,
                                rest_velocity=self.rest_velocity)
        for (pair, *_), G in zip(touching, rows):
            self.fired.add(pair)
            self.resting.discard(pair)
            self.idle.discard(pair)
            if G[0] @ result.v < self.rest_velocity:
                (self.resting if self._pressed(q, result.v, pair) else self.idle).add(pair)
        impulses = [lam @ G_basis for lam, G_basis in zip(result.impulses, (contact_basis(c.normal) for c in constraints))]
        self.records.append(ImpactRecord(
            float(t), [tuple(self.model.geometries[k].name for k in pair) for pair, *_ in touching],
            [(a, b) for _, a, b, _ in touching], [c.point for *_, c in touching], [c.normal for *_, c in touching],
            impulses, [float(G[0] @ v) for G in rows], result.kinetic_energy_before, result.kinetic_energy_after,
            sorted({tuple(self.model.geometries[k].name for k in pair) for pair in self.resting}),
            q.copy(), v.copy(), result.v.copy()))
        return q, result.v

    def _pressed(self, q, v, pair, h=1e-4):
        """Whether the free motion (ABA, the last applied forces) from (q, v) drives the pair's gap together:
        g̈ < −1e-6 |gravity| (at least 1e-6 m/s²), by a central difference of the gap along q ⊕ (±h v + ½ h² v̇)."""
        tau = self.tau if self.tau is not None else np.zeros(self.model.nv)
        a = self._in_flight(q, v, tau)
        gaps = [self.gap(integrate(self.model, q, s * h * v + 0.5 * h * h * a), pair) for s in (-1.0, 1.0)]
        accel = (gaps[0] + gaps[1] - 2.0 * self.gap(q, pair)) / (h * h)
        return accel < -1e-6 * max(1.0, float(np.linalg.norm(self.model.gravity)))

    def _in_flight(self, q, v, tau):
        """v̇ with no contact touching: the articulated-body algorithm, or with the model's loop constraints
        (bilateral), the constrained forward dynamics with every contact and joint-limit bound left out."""
        if not equality_constraints(self.model):
            return aba(self.model, q, v, tau)
        return forward_dynamics(self.model, q, v, tau, stabilization=self.stabilization, contact_tolerance=-np.inf,
                                limits=[])

    def dynamics(self, t, q, v, tau):
        """v̇: the free motion in flight (:meth:`_in_flight`), the contact-aware forward dynamics while a resting
        pair touches or a joint-limit bound rests (:class:`~multibody.constraints.limits.LimitStops`)."""
        self.tau = tau
        limits = [self.stops.keys[k][:2] for k in self.stops.resting] if self.stops else []
        if not limits and not any(self.gap(q, pair) <= self.release for pair in self.resting):
            return self._in_flight(q, v, tau)
        return forward_dynamics(self.model, q, v, tau, stabilization=self.stabilization,
                                contact_tolerance=self.release, slip_velocity=self.rest_velocity,
                                limits=limits, limit_stabilization=self.stops.stabilization if self.stops else None)

    # simulate() adds no limit events of its own (the ignore: mypy types no function attributes)
    dynamics.handles_joint_limits = True  # type: ignore[attr-defined]
