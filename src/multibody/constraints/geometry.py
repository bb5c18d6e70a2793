"""Contact shapes and the signed distance between pairs of them.

Shapes are described in their own frame (placed in a body by :meth:`Model.add_geometry`):

=========  =============================================================================
Sphere     radius [m], centred at the origin
Box        half_extents (hx, hy, hz) [m], centred at the origin, edges along the axes
Capsule    radius and half_length [m]: the points within ``radius`` of the z-axis segment ±half_length
Plane      the half-space z ≤ 0 of its frame (normal +z); infinite, for the ground and walls
=========  =============================================================================

:func:`collide` returns :class:`ContactPoint` records for a pair of posed shapes (world frame). Supported pairs:
plane with sphere, capsule or box; sphere with sphere, capsule or box; capsule with capsule. Other pairs raise
:class:`~multibody.ModelError`. These functions are pure and are meant for reuse (e.g. by impact solvers).

Shapes and geometries describe themselves with ``to_dict()`` (the ``geometries`` entries of a model file,
docs/files.md; :data:`SHAPE_TYPES` maps a shape's ``type`` key back to its class).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..errors import ModelError, checked_number
from ..spatial import Transform, _as_vector3

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


class Shape:
    """Base of the contact shapes; ``bounding_radius`` is ∞ for a plane."""

    bounding_radius = np.inf
    kind = ""

    def to_dict(self) -> dict[str, Any]:
        """The dictionary form: ``type`` and the constructor's arguments."""
        return {"type": self.kind}


def placement_to_dict(transform):
    """The dictionary form {xyz, rotation} of a :class:`Transform` (model files; every float exact)."""
    return {"xyz": transform.translation.tolist(), "rotation": transform.rotation.tolist()}


class Sphere(Shape):
    """A sphere of ``radius`` [m] centred at the origin of its frame."""

    kind = "sphere"

    def __init__(self, radius: float) -> None:
        self.radius = checked_number(radius, "Sphere radius", positive=True)
        self.bounding_radius = self.radius

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "radius": self.radius}

    def __repr__(self):
        return f"Sphere({self.radius})"


class Box(Shape):
    """A box centred at the origin of its frame, edges along its axes, ``half_extents`` (3,) [m]."""

    kind = "box"

    def __init__(self, half_extents: ArrayLike) -> None:
        h = _as_vector3(half_extents, "Box half_extents")
        self.half_extents = np.array([checked_number(x, "Box half_extents", positive=True) for x in h])
        self.bounding_radius = float(np.linalg.norm(self.half_extents))

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "half_extents": self.half_extents.tolist()}

    def corners(self) -> np.ndarray:
        """The 8 corners (8, 3) in the box frame."""
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
        return signs * self.half_extents

    def __repr__(self):
        return f"Box({self.half_extents.tolist()})"


class Capsule(Shape):
    """A capsule: the points within ``radius`` [m] of the segment from (0, 0, −half_length) to (0, 0, half_length)
    [m] of its frame (a cylinder along z with hemispherical caps)."""

    kind = "capsule"

    def __init__(self, radius: float, half_length: float) -> None:
        self.radius = checked_number(radius, "Capsule radius", positive=True)
        self.half_length = checked_number(half_length, "Capsule half_length", positive=True)
        self.bounding_radius = self.radius + self.half_length

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "radius": self.radius, "half_length": self.half_length}

    def __repr__(self):
        return f"Capsule({self.radius}, {self.half_length})"


class Plane(Shape):
    """The plane z = 0 of its frame, solid below (normal +z): place it with the geometry's placement."""

    kind = "plane"

    def __repr__(self):
        return "Plane()"


SHAPE_TYPES = {cls.kind: cls for cls in (Sphere, Box, Capsule, Plane)}


class Geometry:
    """A shape attached to a body ("world" for fixed scenery) at ``placement`` in the body frame, with its Coulomb
    ``friction`` coefficient (≥ 0) and Newton ``restitution`` coefficient in [0, 1]. ``exclude``: the names of the
    geometries it never touches (a robot's disabled self-collision pairs, :func:`multibody.io.srdf.disable_collisions`;
    not kept in model files, whose saving says so)."""

    def __init__(self, body: str, shape: Shape, friction: float = 0.5, restitution: float = 0.0,
                 placement: Transform | None = None, name: str | None = None) -> None:
        if not isinstance(shape, Shape):
            raise ModelError(f"geometry on '{body}': shape must be mb.Sphere, mb.Box, mb.Capsule or mb.Plane, "
                             f"got {shape!r}")
        placement = Transform() if placement is None else placement
        if not isinstance(placement, Transform):
            raise ModelError(f"geometry on '{body}': placement must be a multibody.Transform, got {placement!r}")
        friction, restitution = float(friction), float(restitution)
        if not np.isfinite(friction) or friction < 0:
            raise ModelError(f"geometry on '{body}': friction must be finite and ≥ 0, got {friction}")
        if not 0.0 <= restitution <= 1.0:
            raise ModelError(f"geometry on '{body}': restitution must be in [0, 1], got {restitution}")
        self.body, self.shape, self.placement = body, shape, placement
        self.friction, self.restitution, self.name = friction, restitution, name
        self.exclude: set[str] = set()

    def to_dict(self) -> dict[str, Any]:
        """The dictionary form: the arguments of ``Model.add_geometry`` with the shape's own form (``exclude`` is
        left out, with a warning)."""
        if self.exclude:
            warnings.warn(f"geometry {self.name!r}: its disabled contact pairs ({len(self.exclude)}, from an SRDF "
                          "file) are not saved in the model file: read the SRDF again after loading it",
                          stacklevel=2)
        return {"body": self.body, "shape": self.shape.to_dict(), "friction": self.friction,
                "restitution": self.restitution, "placement": placement_to_dict(self.placement), "name": self.name}

    def __repr__(self):
        return f"Geometry({self.name!r}, {self.shape!r} on {self.body!r})"


class ContactPoint(NamedTuple):
    """One contact between shapes A and B, world frame.

    point: (3,) midway between the two surfaces; normal: (3,) unit, from B towards A; distance: signed gap [m]
    (negative when penetrating); anchor_a, anchor_b: (3,) points of A and B on the normal line whose normal
    separation changes like the gap (centres of curvature of round surfaces, the witness points of flat ones).
    """

    point: np.ndarray
    normal: np.ndarray
    distance: float
    anchor_a: np.ndarray
    anchor_b: np.ndarray

    def flipped(self):
        """The same contact seen from the other shape (B ↔ A)."""
        return ContactPoint(self.point, -self.normal, self.distance, self.anchor_b, self.anchor_a)


def _round(center_a, radius_a, center_b, radius_b, fallback_normal):
    """Contact of two spheres (also the closest points of capsule axes): normal along the centre line."""
    d = center_a - center_b
    length = np.linalg.norm(d)
    n = d / length if length > 1e-12 else fallback_normal
    gap = length - radius_a - radius_b
    surface_a, surface_b = center_a - radius_a * n, center_b + radius_b * n
    return ContactPoint(0.5 * (surface_a + surface_b), n, gap, center_a, center_b)


def sphere_plane(center, radius, origin, normal):
    """Sphere (centre, radius) against the plane through ``origin`` with outward unit ``normal``."""
    gap = normal @ (center - origin) - radius
    witness = center - radius * normal
    return ContactPoint(witness - 0.5 * gap * normal, normal, gap, center, witness - gap * normal)


def points_plane(points, origin, normal, margin):
    """Contacts of body points (k, 3) (box corners) with a plane: those within ``margin`` of it."""
    gaps = (points - origin) @ normal
    return [ContactPoint(p - 0.5 * g * normal, normal, g, p, p - g * normal)
            for p, g in zip(points, gaps) if g <= margin]


def _segment(pose, capsule):
    R, p = pose
    return p - capsule.half_length * R[:, 2], p + capsule.half_length * R[:, 2]


def closest_on_segment(x, p0, p1):
    """The point of segment p0–p1 closest to x."""
    d = p1 - p0
    s = np.clip((x - p0) @ d / (d @ d), 0.0, 1.0)
    return p0 + s * d


def closest_between_segments(p0, p1, q0, q1):
    """Closest points (on p0–p1, on q0–q1) of two segments (alternating clamped projections, exact for the
    convex quadratic distance; parallel segments give one of the closest pairs)."""
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, b, c, f = d1 @ d1, d2 @ d2, d1 @ d2, d1 @ r, d2 @ r
    denom = a * e - b * b
    s = np.clip((b * f - c * e) / denom, 0.0, 1.0) if denom > 1e-12 * a * e else 0.0
    t = np.clip((b * s + f) / e, 0.0, 1.0)
    s = np.clip((b * t - c) / a, 0.0, 1.0)
    return p0 + s * d1, q0 + t * d2


def sphere_box(center, radius, pose, box):
    """Sphere against a box (pose: R, p): normal from the box's closest point, or through the nearest face when the
    centre is inside."""
    R, p = pose
    local = R.T @ (center - p)
    h = box.half_extents
    closest = np.clip(local, -h, h)
    if np.any(closest != local):
        outward = local - closest
        n_local = outward / np.linalg.norm(outward)
        gap = np.linalg.norm(outward) - radius
    else:
        depth = h - np.abs(local)
        axis = int(np.argmin(depth))
        n_local = np.zeros(3)
        n_local[axis] = 1.0 if local[axis] >= 0 else -1.0
        closest = local.copy()
        closest[axis] = n_local[axis] * h[axis]
        gap = -depth[axis] - radius
    n, witness_b = R @ n_local, p + R @ closest
    witness_a = center - radius * n
    return ContactPoint(0.5 * (witness_a + witness_b), n, gap, center, witness_b)


def has_contact_model(kind_a: type, kind_b: type) -> bool:
    """Whether :func:`collide` handles shapes of these two types (in either order)."""
    return (kind_a, kind_b) in _PAIRS or (kind_b, kind_a) in _PAIRS


def collide(shape_a, pose_a, shape_b, pose_b, margin=0.0):
    """Contacts (list of :class:`ContactPoint`, normals from B to A) of two shapes posed in the world
    (pose = (R, p): rotation shape → world, origin). Contacts farther apart than ``margin`` are left out."""
    kinds = (type(shape_a), type(shape_b))
    if kinds in _PAIRS:
        contacts = _PAIRS[kinds](shape_a, pose_a, shape_b, pose_b, margin)
    elif kinds[::-1] in _PAIRS:
        contacts = [c.flipped() for c in _PAIRS[kinds[::-1]](shape_b, pose_b, shape_a, pose_a, margin)]
    else:
        supported = ", ".join(f"{a.__name__}–{b.__name__}" for a, b in _PAIRS)
        raise ModelError(f"contact between {shape_a!r} and {shape_b!r} is not supported (supported pairs: "
                         f"{supported})")
    return [c for c in contacts if c.distance <= margin]


def _plane_frame(pose: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    R, p = pose
    return p, R[:, 2]


_PAIRS = {
    (Sphere, Plane): lambda a, pa, b, pb, m: [sphere_plane(pa[1], a.radius, *_plane_frame(pb))],
    (Capsule, Plane): lambda a, pa, b, pb, m: [sphere_plane(e, a.radius, *_plane_frame(pb)) for e in _segment(pa, a)],
    (Box, Plane): lambda a, pa, b, pb, m: points_plane(pa[1] + a.corners() @ pa[0].T, *_plane_frame(pb), m),
    (Sphere, Sphere): lambda a, pa, b, pb, m: [_round(pa[1], a.radius, pb[1], b.radius, pa[0][:, 2])],
    (Sphere, Capsule): lambda a, pa, b, pb, m: [
        _round(pa[1], a.radius, closest_on_segment(pa[1], *_segment(pb, b)), b.radius, pb[0][:, 0])],
    (Capsule, Capsule): lambda a, pa, b, pb, m: [
        _round(*_pair(closest_between_segments(*_segment(pa, a), *_segment(pb, b)), a.radius, b.radius),
               pa[0][:, 0])],
    (Sphere, Box): lambda a, pa, b, pb, m: [sphere_box(pa[1], a.radius, pb, b)],
}


def _pair(points: tuple[np.ndarray, np.ndarray], radius_a: float,
          radius_b: float) -> tuple[np.ndarray, float, np.ndarray, float]:
    return points[0], radius_a, points[1], radius_b
