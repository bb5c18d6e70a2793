"""What the animation draws of each body, in the body's own frame [m].

Solid: the body's contact shapes (``Model.add_geometry``: spheres, boxes, capsules, convex hulls; a plane in the
world is drawn as the ground) if it has any, else its equivalent inertia box, the uniform box with the body's mass
and central inertia,

    side along principal axis i:  a_i = √(6 (I_j + I_k − I_i) / m),

centred at the mass centre along the principal axes (a uniform rod of length l is drawn as a rod of length l).
Anchors: the ends of the sticks drawn from the body's origin (its joint): the joints of its children, its named
frames, the points where constraints attach (so a closed loop is drawn closed) and its tip, the farthest point of
its solid beyond the mass centre along origin → mass centre (the free end of a rod).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.spatial import ConvexHull as _Qhull

from ..constraints.geometry import Box, Capsule, ConvexHull, Plane, Sphere
from ..constraints.types import Connect

if TYPE_CHECKING:
    from ..model import Model

THINNEST = 0.08  # the thinnest side drawn of an inertia box, as a fraction of its longest (rods and plates show)
_BOX_FACES = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                       [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)


@dataclass(frozen=True)
class Outline:
    """One body as drawn. vertices (m, 3) and triangles (f, 3) of its solid, anchors (k, 3): stick ends; all in
    the body frame [m]."""

    vertices: np.ndarray
    triangles: np.ndarray
    anchors: np.ndarray


def box_mesh(half_extents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (8, 3) [m] and triangles (12, 3) of the box with ``half_extents`` (3,) [m] about the origin."""
    return _SIGNS * half_extents, _BOX_FACES


def capsule_mesh(radius: float, half_length: float = 0.0, rings: int = 6, sectors: int = 12):
    """Vertices [m] and triangles of the points within ``radius`` [m] of the z segment ±``half_length`` [m]
    (a sphere when 0): a latitude-longitude sphere whose upper half is moved up and lower half down."""
    polar = np.pi * (np.arange(1, rings) / rings)
    polar = polar[np.abs(polar - np.pi / 2) > 1e-9]  # no ring on the equator: the band across it is the cylinder
    azimuth = 2 * np.pi * np.arange(sectors) / sectors
    ring = np.stack([np.outer(np.sin(polar), np.cos(azimuth)), np.outer(np.sin(polar), np.sin(azimuth)),
                     np.outer(np.cos(polar), np.ones(sectors))], axis=-1).reshape(-1, 3) * radius
    ring[:, 2] += np.sign(ring[:, 2]) * half_length
    poles = np.array([[0, 0, radius + half_length], [0, 0, -radius - half_length]])
    vertices = np.vstack([ring, poles])
    top, bottom, count = len(ring), len(ring) + 1, len(polar)
    j = np.arange(sectors)
    k = (j + 1) % sectors
    triangles = [np.stack([np.full(sectors, top), j, k], axis=1),
                 np.stack([np.full(sectors, bottom), (count - 1) * sectors + k, (count - 1) * sectors + j], axis=1)]
    for r in range(count - 1):
        a, b = r * sectors + j, (r + 1) * sectors + j
        c, d = r * sectors + k, (r + 1) * sectors + k
        triangles += [np.stack([a, b, d], axis=1), np.stack([a, d, c], axis=1)]
    return vertices, np.vstack(triangles)


def hull_mesh(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (k, 3) [m] and triangles (f, 3) of the convex hull of ``vertices`` (k, 3) [m]: qhull's facets
    (Barber, Dobkin & Huhdanpaa 1996), each wound counter-clockwise seen from outside (its normal
    (b − a) × (c − a) along the facet's outward normal)."""
    hull = _Qhull(vertices)
    triangles = hull.simplices.copy()
    a, b, c = (vertices[triangles[:, n]] for n in range(3))
    inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), hull.equations[:, :3]) < 0
    triangles[inward] = triangles[inward][:, ::-1]
    return vertices, triangles


def inertia_box(mass: float, com: np.ndarray, inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (8, 3) and triangles of the uniform box with this ``mass`` [kg] and central ``inertia`` (3, 3)
    [kg·m²], centred at ``com`` (3,) [m]; sides a_i = √(6 (I_j + I_k − I_i) / m) along the principal axes."""
    moments, axes = np.linalg.eigh(inertia)
    sides = np.sqrt(np.clip(6 * (moments.sum() - 2 * moments) / mass, 0.0, None))
    half = 0.5 * np.maximum(sides, THINNEST * sides.max())
    vertices, triangles = box_mesh(half)
    return com + vertices @ axes.T, triangles


def shape_mesh(shape, placement) -> tuple[np.ndarray, np.ndarray]:
    """Vertices [m] in the body frame and triangles of a contact shape at ``placement`` (a Transform)."""
    if isinstance(shape, Box):
        vertices, triangles = box_mesh(shape.half_extents)
    elif isinstance(shape, Capsule):
        vertices, triangles = capsule_mesh(shape.radius, shape.half_length)
    elif isinstance(shape, Sphere):
        vertices, triangles = capsule_mesh(shape.radius)
    elif isinstance(shape, ConvexHull):
        vertices, triangles = hull_mesh(shape.vertices)
    else:
        if not isinstance(shape, Plane):
            warnings.warn(f"the animation does not draw {shape!r}: not a sphere, box, capsule or convex hull",
                          stacklevel=2)
        return np.zeros((0, 3)), np.zeros((0, 3), int)
    return placement.translation + vertices @ placement.rotation.T, triangles


def outlines(model: Model) -> list[Outline]:
    """The :class:`Outline` of every body of ``model`` (massless bodies without contact shapes: no solid)."""
    anchors = attachments(model)
    return [_outline(model, i, anchors[i]) for i in range(model.nbodies)]


def _outline(model, i, anchors):
    body = model.bodies[i]
    if body.ne:  # a flexible beam: a stick to its root, the animation draws its deformed axis (beam_segments)
        return Outline(np.zeros((0, 3)), np.zeros((0, 3), int), np.array([[body.beam.root, 0.0, 0.0]]))
    shapes = [shape_mesh(g.shape, g.placement) for g in model.geometries if g.body == body.name]
    if not shapes and body.mass > 0:
        shapes = [inertia_box(body.mass, body.com, body.inertia)]
    vertices = np.vstack([v for v, _ in shapes]) if shapes else np.zeros((0, 3))
    offsets = np.cumsum([0] + [len(v) for v, _ in shapes])
    triangles = np.vstack([t + o for (_, t), o in zip(shapes, offsets)]) if shapes else np.zeros((0, 3), int)
    tip = _tip(body.com, vertices)
    ends = np.vstack([anchors, tip]) if tip is not None else anchors
    return Outline(vertices, triangles, np.unique(ends, axis=0))


def _tip(com, vertices):
    """The point of the solid farthest beyond the mass centre along origin → mass centre, or None."""
    distance = np.linalg.norm(com)
    if len(vertices) == 0 or distance < 1e-9:
        return None
    u = com / distance
    return com + u * np.max((vertices - com) @ u)


def attachments(model: Model) -> list[np.ndarray]:
    """Per body (and, last, the world), the points (k, 3) in its frame [m] where others attach: its children's
    joints (not free or planar ones, whose placement is only a reference), its named frames and constraint points;
    the origin itself left out."""
    points: list[list[np.ndarray]] = [[] for _ in range(model.nbodies + 1)]  # index −1: the world
    for child, (parent, joint) in enumerate(zip(model.parents, model.joints)):
        if joint.drawn_as != "loose":
            points[parent].append(model.placements[child].translation)
    for index, placement in model.frames.values():
        points[index].append(placement.translation)
    for body, point in _constraint_points(model):
        index, local, _ = model.locate(body, point) if body != "world" else (-1, point, None)
        points[index].append(local)
    return [np.array([p for p in group if np.linalg.norm(p) > 1e-12]).reshape(-1, 3) for group in points]


def _constraint_points(model):
    """(body or frame name, point in it) where the model's constraints attach."""
    for constraint in model.constraints:
        if isinstance(constraint, Connect):
            yield constraint.bodies[0], constraint.point_a
            yield constraint.bodies[1], constraint.point_b
        elif hasattr(constraint, "point"):
            yield constraint.bodies[0], constraint.point
