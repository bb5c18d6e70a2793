"""Convex polytopes for contact: the hull of a point cloud (a robot's collision mesh) and the few contact points
that stand for a face or edge resting on a plane.

A mesh touches a plane along a face, an edge or at a vertex; its vertices below the plane all touch, and a
flat face of a finely tessellated mesh puts dozens of them there at once. Those contacts are redundant for the
contact solver (their rows have rank ≤ 3 in the normal direction), so the set is cut to at most
:data:`MAX_PLANE_CONTACTS` points that span it, as MuJoCo keeps a few contacts per convex–plane pair (Todorov,
Erez & Tassa 2012): the deepest vertex, then each time the vertex farthest from those already kept (farthest-point
sampling, Gonzalez 1985, a 2-approximation of the set's spread).
"""
from __future__ import annotations

import numpy as np
from scipy.spatial import ConvexHull as _Qhull
from scipy.spatial import QhullError

MAX_PLANE_CONTACTS = 4


def hull_vertices(points: np.ndarray, source: str) -> np.ndarray:
    """The vertices (k, 3) of the convex hull of ``points`` (n, 3) [m] (Quickhull, Barber, Dobkin & Huhdanpaa
    1996, by qhull), in the order of ``points``. ``source`` names the points in errors (a mesh file)."""
    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or points.shape[1] != 3 or len(points) < 4 or not np.all(np.isfinite(points)):
        raise ValueError(f"{source}: a convex hull needs at least 4 finite points (n, 3), got shape "
                         f"{points.shape}")
    try:
        hull = _Qhull(points)
    except QhullError as exc:  # flat or degenerate: no volume
        raise ValueError(f"{source}: the points span no volume (flat or degenerate), no convex hull: "
                         f"{str(exc).splitlines()[0]}") from None
    return points[np.sort(hull.vertices)]


def spread_contacts(points: np.ndarray, gaps: np.ndarray, count: int = MAX_PLANE_CONTACTS) -> np.ndarray:
    """Indices of at most ``count`` of ``points`` (k, 3) that span them: the one of smallest gap (the deepest),
    then each time the point farthest from those chosen (farthest-point sampling; ties: the first)."""
    chosen = [int(np.argmin(gaps))]
    nearest = np.linalg.norm(points - points[chosen[0]], axis=1)
    while len(chosen) < min(count, len(points)) and nearest.max() > 0.0:
        far = int(np.argmax(nearest))
        chosen.append(far)
        nearest = np.minimum(nearest, np.linalg.norm(points - points[far], axis=1))
    return np.array(chosen)
