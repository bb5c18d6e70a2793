"""Contact shapes and the signed distance between pairs of them.

Shapes are described in their own frame (placed in a body by :meth:`Model.add_geometry`):

=========  =============================================================================
Sphere     radius [m], centred at the origin
Box        half_extents (hx, hy, hz) [m], centred at the origin, edges along the axes
Capsule    radius and half_length [m]: the points within ``radius`` of the z-axis segment ±half_length
Plane      the half-space z ≤ 0 of its frame (normal +z); infinite, for the ground and walls
ConvexHull the convex hull of vertices (k, 3) [m] (a collision mesh, :func:`multibody.io.urdf.model_from_urdf`)
=========  =============================================================================

:func:`collide` returns :class:`ContactPoint` records for a pair of posed shapes (world frame). Supported pairs:
plane with sphere, capsule, box or convex hull; sphere with sphere, capsule or box; capsule with capsule or box; box
with box; convex hull with sphere, capsule, box or convex hull (one contact, :func:`hull_polytope`).
Other pairs raise :class:`~multibody.ModelError`. These functions are pure and are meant for reuse (e.g. by impact solvers).

Shapes and geometries describe themselves with ``to_dict()`` (the ``geometries`` entries of a model file,
docs/files.md; :data:`SHAPE_TYPES` maps a shape's ``type`` key back to its class).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..errors import ModelError, checked_number
from ..model.geometry import FRICTION_RULES, Geometry, Shape, placement_to_dict  # noqa: F401  (the shapes' data)
from ..spatial import _as_vector3
from ._faces import clipped_face
from ._narrow import sphere_box as _sphere_box
from .convex import gjk_distance, hull_vertices, penetration, spread_contacts
from ._kinematics import cross

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..model import Model


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


class ConvexHull(Shape):
    """The convex hull of ``vertices`` (n, 3) [m] in its frame: a collision mesh's vertices (only those of the hull
    are kept, :func:`.convex.hull_vertices`). ``source`` names where they came from (a mesh file) in messages."""

    kind = "convex_hull"

    def __init__(self, vertices: ArrayLike, source: str = "") -> None:
        try:
            self.vertices = hull_vertices(np.asarray(vertices, dtype=float), source or "ConvexHull vertices")
        except ValueError as exc:
            raise ModelError(str(exc)) from None
        self.source = source
        self.bounding_center = 0.5 * (self.vertices.min(axis=0) + self.vertices.max(axis=0))
        self.bounding_radius = float(np.linalg.norm(self.vertices - self.bounding_center, axis=1).max())

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "vertices": self.vertices.tolist(), "source": self.source}

    def __repr__(self):
        return f"ConvexHull({len(self.vertices)} vertices{', ' + self.source if self.source else ''})"


SHAPE_TYPES = {cls.kind: cls for cls in (Sphere, Box, Capsule, Plane, ConvexHull)}


def contact_coefficients(model: Model, a: Geometry, b: Geometry) -> tuple[float, float]:
    """(friction μ, restitution e) of a contact between geometries a and b of ``model``. μ: the pair's own
    (``model.pair_friction``, an MJCF ``<contact><pair>``'s) if it has one, else the friction of the shape of
    higher ``priority``, or for equal priorities by ``model.friction_rule``: "geometric" √(μ_a μ_b) or "max"
    max(μ_a, μ_b) (MuJoCo's, which an MJCF file's model takes); 0 when the contact's ``condim`` (the higher-priority
    shape's, or the larger of the two) is 1. e = max(e_a, e_b)."""
    rule, e = model.friction_rule, max(a.restitution, b.restitution)
    pair = model.pair_friction.get(frozenset((a.name, b.name)))  # type: ignore[arg-type]  # an unnamed shape has none
    if pair is not None:
        return pair, e
    if a.priority != b.priority:
        top = a if a.priority > b.priority else b
        mu, condim = top.friction, top.condim
    else:  # (the rule is one of FRICTION_RULES: Model.friction_rule checks it when it is set)
        mu = float(np.sqrt(a.friction * b.friction)) if rule == "geometric" else max(a.friction, b.friction)
        condim = max(a.condim, b.condim)
    return (mu if condim > 1 else 0.0), e


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


def hull_plane(pose, hull, origin, normal, margin):
    """Contacts of a convex hull (pose: R, p) with a plane: its vertices within ``margin`` of it, cut to at most
    :data:`.convex.MAX_PLANE_CONTACTS` that span them (the deepest first, :func:`.convex.spread_contacts`)."""
    R, p = pose
    points = p + hull.vertices @ R.T
    gaps = (points - origin) @ normal
    near = gaps <= margin
    if not near.any():
        return []
    points, gaps = points[near], gaps[near]
    return [ContactPoint(points[k] - 0.5 * gaps[k] * normal, normal, float(gaps[k]), points[k],
                         points[k] - gaps[k] * normal) for k in spread_contacts(points, gaps)]


def hull_polytope(A, B, radius, margin):
    """Contact of a convex hull (world vertices A (n, 3)) with a polytope (world vertices B (m, 3): a box's corners,
    a capsule's axis ends, a sphere's centre) rounded by ``radius`` [m]: one contact, along the shortest line between
    the two polytopes (:func:`.convex.gjk_distance`) or, where they overlap, along the least translation that
    separates them (:func:`.convex.penetration`). Anchors: the two polytopes' points (for a round shape, its
    centre of curvature on its core)."""
    distance, a, b = gjk_distance(A, B)
    if distance - radius > margin:
        return []
    if distance > 1e-9 * (1.0 + np.abs(A).max()):
        n, core_gap = (a - b) / distance, distance
    else:
        depth, u, a, b = penetration(A, B)
        n, core_gap = -u, -depth
    surface_b = b + radius * n
    return [ContactPoint(0.5 * (a + surface_b), n, float(core_gap - radius), a, b)]


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
    centre is inside (compiled: :func:`._narrow.sphere_box`)."""
    R, p = pose
    point, n, gap, witness_b = _sphere_box(np.asarray(center, dtype=float), float(radius),
                                           np.ascontiguousarray(R, dtype=float), np.asarray(p, dtype=float),
                                           box.half_extents)
    return ContactPoint(point, n, float(gap), center, witness_b)


def capsule_box(segment, radius, pose, box, margin):
    """Capsule (axis segment p0–p1, radius) against a box (pose: R, p): a sphere–box contact at each end of the
    axis and at the axis point deepest in (or nearest to) the box, when that point is inside the segment and
    nearer than both ends. The box's signed distance is convex along a line (the signed distance of a convex set is
    a convex function), so that point is found by shrinking a bracket around the best of 17 samples, 8 times
    (to 1e-8 of the length), then, when the axis misses the box, exactly: the axis point nearest to the box's
    point nearest to it."""
    R, p = pose
    p0, p1 = segment
    a, b = R.T @ (p0 - p), R.T @ (p1 - p)
    lo, hi = 0.0, 1.0
    for _ in range(8):
        s = np.linspace(lo, hi, 17)
        best = int(np.argmin(_box_distance(a + s[:, None] * (b - a), box.half_extents)))
        lo, hi = s[max(best - 1, 0)], s[min(best + 1, 16)]
    ends = [sphere_box(x, radius, pose, box) for x in (p0, p1)]
    deepest = sphere_box(p0 + 0.5 * (lo + hi) * (p1 - p0), radius, pose, box)
    if deepest.distance + radius > 0.0:  # the axis misses the box: its point nearest to the box's nearest point
        deepest = sphere_box(closest_on_segment(deepest.anchor_b, p0, p1), radius, pose, box)
    tolerance = 1e-9 + 1e-7 * np.linalg.norm(p1 - p0)
    inner = [deepest] if deepest.distance < min(c.distance for c in ends) - tolerance else []
    return [c for c in ends + inner if c.distance <= margin]


def _box_distance(local, half_extents):
    """Signed distance (k,) of points (k, 3) in a box's frame to the box: negative inside."""
    q = np.abs(local) - half_extents
    return np.linalg.norm(np.maximum(q, 0.0), axis=-1) + np.minimum(q.max(axis=-1), 0.0)


def box_box(pose_a, box_a, pose_b, box_b, margin):
    """Contacts of two boxes by the separating-axis test (Gottschalk, Lin & Manocha 1996; Ericson, *Real-Time
    Collision Detection*, 2005, §4.4.1): of the 15 candidate axes — the face normals of each box and the 9 cross
    products of their edges — the one along which the boxes overlap least (or are farthest apart) gives the
    normal. A face normal: the face of the other box most opposed to it (the incident face) is clipped to the
    reference face's sides (Sutherland–Hodgman), and each clipped corner within ``margin`` of the reference face
    is a contact (up to 8). An edge–edge axis: one contact at the closest points of the two edges. Face axes win
    ties within 1e-6 of the smaller box's size, so that resting boxes get their face contacts."""
    (Ra, pa), (Rb, pb) = pose_a, pose_b
    ha, hb = box_a.half_extents, box_b.half_extents
    d = pa - pb
    # the 15 axes, all at once: A's face normals, B's, then A's edge i × B's edge j at 6 + 3 i + j
    axes = np.concatenate([Ra.T, Rb.T, cross(Ra[:, :, None], Rb[:, None, :]).reshape(3, 9).T])
    length = np.sqrt(np.einsum("ki,ki->k", axes, axes))
    usable = length >= 1e-9  # parallel edges: their cross product is no axis (a face axis covers them)
    u = axes / np.where(usable, length, 1.0)[:, None]
    along = u @ d
    separations = np.where(usable, np.abs(along) - np.abs(u @ Ra) @ ha - np.abs(u @ Rb) @ hb, -np.inf)
    face, edge = int(np.argmax(separations[:6])), 6 + int(np.argmax(separations[6:]))  # (the first of equals)
    tie = 1e-6 * min(ha.max(), hb.max())
    best = edge if separations[edge] > separations[face] + tie else face
    separation, n = separations[best], (u[best] if along[best] >= 0 else -u[best])  # n from B towards A
    kind, axis = ("a", best) if best < 3 else ("b", best - 3) if best < 6 else ("edge", divmod(best - 6, 3))
    if separation > margin:
        return []
    if kind == "edge":
        i, j = axis
        edge_a = pa - Ra @ (np.sign(Ra.T @ n) * ha * (np.arange(3) != i))
        edge_b = pb + Rb @ (np.sign(Rb.T @ n) * hb * (np.arange(3) != j))
        x_a, x_b = closest_between_segments(edge_a - ha[i] * Ra[:, i], edge_a + ha[i] * Ra[:, i],
                                            edge_b - hb[j] * Rb[:, j], edge_b + hb[j] * Rb[:, j])
        return [ContactPoint(0.5 * (x_a + x_b), n, float(n @ (x_a - x_b)), x_a, x_b)]
    if kind == "b":  # B's face towards A, A's incident face
        return [ContactPoint(x - 0.5 * g * n, n, g, x, x - g * n)
                for x, g in _clipped_face(pb, Rb, hb, axis, n, pa, Ra, ha) if g <= margin]
    return [ContactPoint(y + 0.5 * g * n, n, g, y + g * n, y)  # A's face towards B, B's incident face
            for y, g in _clipped_face(pa, Ra, ha, axis, -n, pb, Rb, hb) if g <= margin]


def _clipped_face(p_ref, R_ref, h_ref, axis, normal, p_inc, R_inc, h_inc):
    """[(corner, gap)]: the incident box's face most opposed to the reference box's face with outward ``normal``
    (along its ``axis``), clipped to that face's sides, each corner with its height above the reference face
    (compiled: :func:`._faces.clipped_face`)."""
    out = np.empty((8, 4))
    count = clipped_face(np.ascontiguousarray(p_ref, dtype=float), np.ascontiguousarray(R_ref, dtype=float),
                         np.ascontiguousarray(h_ref, dtype=float), axis, np.ascontiguousarray(normal, dtype=float),
                         np.ascontiguousarray(p_inc, dtype=float), np.ascontiguousarray(R_inc, dtype=float),
                         np.ascontiguousarray(h_inc, dtype=float), out)
    return [(out[c, :3], float(out[c, 3])) for c in range(count)]


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
    (ConvexHull, Plane): lambda a, pa, b, pb, m: hull_plane(pa, a, *_plane_frame(pb), m),
    (ConvexHull, Sphere): lambda a, pa, b, pb, m: hull_polytope(_world(pa, a.vertices), pb[1][None], b.radius, m),
    (ConvexHull, Capsule): lambda a, pa, b, pb, m: hull_polytope(_world(pa, a.vertices), np.array(_segment(pb, b)),
                                                                 b.radius, m),
    (ConvexHull, Box): lambda a, pa, b, pb, m: hull_polytope(_world(pa, a.vertices), _world(pb, b.corners()), 0.0, m),
    (ConvexHull, ConvexHull): lambda a, pa, b, pb, m: hull_polytope(_world(pa, a.vertices), _world(pb, b.vertices),
                                                                    0.0, m),
    (Sphere, Sphere): lambda a, pa, b, pb, m: [_round(pa[1], a.radius, pb[1], b.radius, pa[0][:, 2])],
    (Sphere, Capsule): lambda a, pa, b, pb, m: [
        _round(pa[1], a.radius, closest_on_segment(pa[1], *_segment(pb, b)), b.radius, pb[0][:, 0])],
    (Capsule, Capsule): lambda a, pa, b, pb, m: [
        _round(*_pair(closest_between_segments(*_segment(pa, a), *_segment(pb, b)), a.radius, b.radius),
               pa[0][:, 0])],
    (Sphere, Box): lambda a, pa, b, pb, m: [sphere_box(pa[1], a.radius, pb, b)],
    (Capsule, Box): lambda a, pa, b, pb, m: capsule_box(_segment(pa, a), a.radius, pb, b, m),
    (Box, Box): lambda a, pa, b, pb, m: box_box(pa, a, pb, b, m),
}


def _world(pose: tuple[np.ndarray, np.ndarray], points: np.ndarray) -> np.ndarray:
    return pose[1] + points @ pose[0].T


def _pair(points: tuple[np.ndarray, np.ndarray], radius_a: float,
          radius_b: float) -> tuple[np.ndarray, float, np.ndarray, float]:
    return points[0], radius_a, points[1], radius_b


def lowest_height(shape: Shape, rotation: np.ndarray, origin: np.ndarray) -> float:
    """The lowest world z [m] of ``shape`` placed with ``rotation`` (shape axes → world) at ``origin`` (−∞ for a
    plane): its support point along −z."""
    if isinstance(shape, Sphere):
        return float(origin[2] - shape.radius)
    if isinstance(shape, Capsule):
        return float(origin[2] - abs(rotation[2, 2]) * shape.half_length - shape.radius)
    if isinstance(shape, Box):
        return float(origin[2] - np.abs(rotation[2]) @ shape.half_extents)
    return -np.inf
