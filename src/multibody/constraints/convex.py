"""Convex polytopes for contact: the hull of a point cloud (a robot's collision mesh), the few contact points
that stand for a face or edge resting on a plane, and the signed distance of two polytopes, one of them maybe
rounded (a sphere is a point, a capsule a segment, each with its radius).

Two polytopes A and B (vertex sets) are apart by the distance from the origin to their Minkowski difference
A − B = {a − b}, a polytope whose support point in a direction is A's support point minus B's in the opposite one.
Separated, that distance and the closest points come from the Gilbert–Johnson–Keerthi algorithm (Gilbert, Johnson
& Keerthi 1988, :func:`gjk_distance`); overlapping, the penetration depth is the distance from the origin to the
boundary of A − B (Cameron & Culley 1986: the minimum translation that separates them), the nearest of its facets
(:func:`penetration`; EPA, van den Bergen 2001, finds the same facet incrementally; here the difference's hull is
built at once by qhull, exact and fast for the few hundred vertices of a collision mesh against a primitive).

A mesh touches a plane along a face, an edge or at a vertex; its vertices below the plane all touch, and a
flat face of a finely tessellated mesh puts dozens of them there at once. Those contacts are redundant for the
contact solver (their rows have rank ≤ 3 in the normal direction), so the set is cut to at most
:data:`MAX_PLANE_CONTACTS` points that span it, as MuJoCo keeps a few contacts per convex–plane pair (Todorov,
Erez & Tassa 2012): the deepest vertex, then each time the vertex farthest from those already kept (farthest-point
sampling, Gonzalez 1985, a 2-approximation of the set's spread).
"""
from __future__ import annotations

import numpy as np
from numba import njit
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


@njit(cache=True)
def closest_on_simplex(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, weights): the point x of the simplex conv(points) ((k, 3), k ≤ 4) nearest the origin and its barycentric
    weights (k,) (zero on the points it does not need). Johnson's distance subalgorithm (Gilbert, Johnson & Keerthi
    1988, §4) by enumeration: of the faces of the simplex (the subsets of its points), the one whose affine hull's
    point nearest the origin has nonnegative weights, and is nearest (compiled)."""
    k = points.shape[0]
    best, weights, x_best = np.inf, np.zeros(k), np.zeros(3)
    for mask in range(1, 2 ** k):
        face = np.array([i for i in range(k) if mask >> i & 1])
        lam = np.ones(len(face))
        if len(face) > 1:  # min |p0 + E μ| over μ: the affine hull's point nearest the origin
            edges = np.ascontiguousarray((points[face[1:]] - points[face[0]]).T)
            mu = np.linalg.lstsq(edges, -points[face[0]])[0]
            lam[0] = 1.0 - mu.sum()
            lam[1:] = mu
        x = lam @ points[face]
        if lam.min() >= -1e-12 and x @ x < best:
            best, x_best = x @ x, x
            weights[:] = 0.0
            weights[face] = lam
    return x_best, weights


@njit(cache=True)
def gjk_distance(A: np.ndarray, B: np.ndarray, max_iterations: int = 64) -> tuple[float, np.ndarray, np.ndarray]:
    """(distance, a, b): the distance [m] between the convex hulls of vertex sets A (n, 3) and B (m, 3) and their
    closest points a on A and b on B (Gilbert, Johnson & Keerthi 1988): the simplex of support points
    w = s_A(−x) − s_B(x) of A − B closes on the origin until w brings x no nearer (|x|² − x·w ≤ 1e-12 |x|²).
    Distance 0: the hulls overlap or touch (a and b are then not meaningful: :func:`penetration`). Compiled."""
    simplex, on_a, on_b, weights = np.empty((4, 3)), np.empty((4, 3)), np.empty((4, 3)), np.ones(4)
    simplex[0], on_a[0], on_b[0] = A[0] - B[0], A[0], B[0]
    count, x = 1, A[0] - B[0]
    for _ in range(max_iterations):
        if x @ x < 1e-24:
            break
        a, b = A[np.argmax(A @ -x)], B[np.argmax(B @ x)]
        if x @ x - x @ (a - b) <= 1e-12 * (x @ x):
            break
        simplex[count], on_a[count], on_b[count] = a - b, a, b
        x, lam = closest_on_simplex(simplex[:count + 1].copy())
        count = 0
        for i in range(len(lam)):  # keep the points x needs
            if lam[i] > 0.0:
                simplex[count], on_a[count], on_b[count], weights[count] = simplex[i], on_a[i], on_b[i], lam[i]
                count += 1
        if count == 4:
            x = np.zeros(3)
            break
    return np.sqrt(x @ x), weights[:count] @ on_a[:count], weights[:count] @ on_b[:count]


def penetration(A: np.ndarray, B: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """(depth, u, a, b) of overlapping convex hulls of vertex sets A (n, 3) and B (m, 3): the distance [m] from the
    origin to the boundary of A − B, the outward unit normal u of the facet where it is nearest (Cameron & Culley
    1986: moving A by −depth u separates them), and the points a of A and b of B with a − b = depth u, the origin's
    projection on that facet (A − B's hull by qhull: triangles of vertices a_i − b_j, planes n·x + offset ≤ 0)."""
    difference = (A[:, None, :] - B[None, :, :]).reshape(-1, 3)
    hull = _Qhull(difference)
    offsets = hull.equations[:, 3]
    best, depth, u, weights, corners = -np.inf, 0.0, np.zeros(3), np.zeros(3), hull.simplices[0]
    for facet in np.flatnonzero(offsets >= offsets.max() - 1e-12):  # coplanar triangles: the one holding the foot
        triangle = difference[hull.simplices[facet]]
        foot = -offsets[facet] * hull.equations[facet, :3]
        mu = np.linalg.lstsq((triangle[1:] - triangle[0]).T, foot - triangle[0], rcond=None)[0]
        lam = np.array([1.0 - mu.sum(), *mu])
        if lam.min() > best:
            best, depth, u, weights, corners = lam.min(), -offsets[facet], hull.equations[facet, :3], lam, \
                hull.simplices[facet]
    i, j = np.divmod(corners, len(B))
    return float(depth), u, weights @ A[i], weights @ B[j]
