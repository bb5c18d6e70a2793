"""Compiled broad and narrow phase: the contacts of every candidate pair of geometries in one call,
:func:`detect_contacts`, callable from another compiled function.

Each pair is tested with the formulas of :mod:`.geometry` (:func:`~.geometry.collide`'s table, line for line, with
the same contacts): spheres, capsules and planes by :func:`~.geometry.sphere_plane`,
:func:`~.geometry.closest_on_segment`, :func:`~.geometry.closest_between_segments` and the two-sphere contact (a
sphere is a capsule of half length zero); a box by :func:`~.geometry.points_plane`, :func:`~.geometry.sphere_box`,
:func:`~.geometry.capsule_box`, :func:`~.geometry.box_box` (:func:`._faces.box_box`); a convex hull by
:func:`~.geometry.hull_plane` and :func:`~.geometry.hull_polytope` (GJK, then EPA where they overlap:
:mod:`.convex`).

The shapes, g geometries (``shapes``, a tuple of arrays made once per model by
:func:`multibody.constraints.contact.shape_arrays`):

=============  ==========  ===================================================================================
kind           (g,) int    HULL, SPHERE, CAPSULE, BOX or PLANE
size           (g, 3)      sphere (radius, 0, 0); capsule (radius, half_length, 0); box half extents; else 0 [m]
body           (g,) int    the body the geometry is on (−1: the world)
R_local        (g, 3, 3)   the geometry's axes in its body's axes (the world's for body −1)
p_local        (g, 3)      the geometry's origin in its body's frame [m]
center         (g, 3)      the centre of its bounding sphere, geometry axes [m]
bound          (g,)        the radius of its bounding sphere [m] (a plane: inf)
vertices       (v, 3)      the convex hulls' vertices, geometry axes, hull after hull [m]
first_vertex   (g,) int    the row of ``vertices`` where a hull's vertices start (0 for other shapes)
vertex_count   (g,) int    its number of vertices (0 for other shapes)
extent         (g, 3)      the half extents of its bounding box about ``center``, geometry axes [m] (a plane: inf)
=============  ==========  ===================================================================================

A contact is one row (14,) of ``out``: point (3), normal from B to A (3), signed gap [m], anchor on A (3), anchor
on B (3) (world axes: the fields of :class:`~.geometry.ContactPoint`), and the index of its pair in ``pairs``
(a float holding an integer); A is the pair's first geometry. Rows come pair after pair, in the order of the pairs.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._faces import _closest_between_segments, box_box
from .convex import MAX_PLANE_CONTACTS, expanded_polytope, gjk_simplex, spread_contacts

HULL, SPHERE, CAPSULE, BOX, PLANE = 0, 1, 2, 3, 4  # the shape codes of ``kind``, in collide's order of A and B
ROW = 14  # the columns of a contact row
MAX_CONTACTS = np.array([  # the most contacts of a pair of kinds [A, B] (A before B in the order of the codes)
    [1, 1, 1, 1, MAX_PLANE_CONTACTS],  # hull with hull, sphere, capsule, box: one; with a plane: the spread
    [1, 1, 1, 1, 1],  # sphere
    [1, 1, 1, 3, 2],  # capsule: with a box, its ends and its deepest point; with a plane, its ends
    [1, 1, 3, 8, 8],  # box: with a box, the clipped face's corners; with a plane, its corners
    [MAX_PLANE_CONTACTS, 1, 2, 8, 0]], dtype=np.int64)


@njit(cache=True)
def geometry_poses(index, R_local, p_local, R0, p0, R, p):
    """World poses R (g, 3, 3), p (g, 3) of the geometries: R = R0_b R_local, p = p0_b + R0_b p_local for a
    geometry on body b = index[k] (the world, −1: its local pose)."""
    for k in range(index.shape[0]):
        b = index[k]
        if b < 0:
            R[k], p[k] = R_local[k], p_local[k]
            continue
        for i in range(3):
            p[k, i] = p0[b, i] + R0[b, i, 0] * p_local[k, 0] + R0[b, i, 1] * p_local[k, 1] + R0[b, i, 2] * p_local[k, 2]
            for j in range(3):
                R[k, i, j] = R0[b, i, 0] * R_local[k, 0, j] + R0[b, i, 1] * R_local[k, 1, j] + R0[b, i, 2] * R_local[k, 2, j]


@njit(cache=True)
def speed_bound(index, origin, radius, dp, w):
    """An upper bound [m/s] on the speed of any point of the geometries on bodies (index ≥ 0): max over them of
    |ṗ_b| + |ω_b| (|origin| + min(radius, 1e3)), the body origin's speed and the rotation's at the geometry's
    reach (``origin`` (g, 3) in body axes, bounding ``radius`` (g,))."""
    fastest = 0.0
    for k in range(index.shape[0]):
        b = index[k]
        if b >= 0:
            reach = np.sqrt(_dot(origin[k], origin[k])) + min(radius[k], 1e3)
            fastest = max(fastest, np.sqrt(_dot(dp[b], dp[b])) + np.sqrt(_dot(w[b], w[b])) * reach)
    return fastest


@njit(cache=True)
def _dot(x, y):
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]


@njit(cache=True)
def _clip(x):
    return min(max(x, 0.0), 1.0)


@njit(cache=True)
def _write(out, row, point, normal, gap, anchor_a, anchor_b, flip):
    """out[row] = the contact, seen from the other shape when ``flip`` (normal −n, anchors swapped)."""
    sign = -1.0 if flip else 1.0
    for c in range(3):
        out[row, c] = point[c]
        out[row, 3 + c] = sign * normal[c]
        out[row, 7 + c] = anchor_b[c] if flip else anchor_a[c]
        out[row, 10 + c] = anchor_a[c] if flip else anchor_b[c]
    out[row, 6] = gap


@njit(cache=True)
def _sphere_plane(center, radius, origin, normal, out, row, flip):
    """Sphere against the plane through ``origin`` with outward unit ``normal``: gap = n·(c − o) − r, the
    witness c − r n, the point midway between the surfaces (:func:`~.geometry.sphere_plane`)."""
    gap = _dot(normal, center - origin) - radius
    witness = center - radius * normal
    _write(out, row, witness - 0.5 * gap * normal, normal, gap, center, witness - gap * normal, flip)
    return gap


@njit(cache=True)
def _round(center_a, radius_a, center_b, radius_b, fallback, out, row, flip):
    """Two spheres (or the closest points of two capsule axes): normal along the centre line, anchors the centres."""
    d = center_a - center_b
    length = np.sqrt(_dot(d, d))
    n = d / length if length > 1e-12 else fallback
    gap = length - radius_a - radius_b
    _write(out, row, 0.5 * ((center_a - radius_a * n) + (center_b + radius_b * n)), n, gap, center_a, center_b, flip)
    return gap


@njit(cache=True)
def _closest_on_segment(x, p0, p1):
    d = p1 - p0
    return p0 + _clip(_dot(x - p0, d) / _dot(d, d)) * d


@njit(cache=True)
def _round_pair(a, b, kind, size, R, p, margin, out, row, flip):
    """Contacts of sphere or capsule a with sphere, capsule or plane b from row ``row`` of ``out``; returns the next
    free row."""
    radius_a, radius_b = size[a, 0], size[b, 0]
    if kind[b] == PLANE:
        normal = R[b, :, 2].copy()
        axis = R[a, :, 2] * size[a, 1]
        ends = 1 if kind[a] == SPHERE else 2
        for end in range(ends):  # a capsule: one sphere at each end of its axis
            center = p[a] if ends == 1 else (p[a] - axis if end == 0 else p[a] + axis)
            if _sphere_plane(center, radius_a, p[b], normal, out, row, flip) <= margin:
                row += 1
        return row
    if kind[a] == SPHERE and kind[b] == SPHERE:
        gap = _round(p[a], radius_a, p[b], radius_b, R[a, :, 2].copy(), out, row, flip)
    elif kind[a] == SPHERE:
        axis = R[b, :, 2] * size[b, 1]
        nearest = _closest_on_segment(p[a], p[b] - axis, p[b] + axis)
        gap = _round(p[a], radius_a, nearest, radius_b, R[b, :, 0].copy(), out, row, flip)
    else:
        axis_a, axis_b = R[a, :, 2] * size[a, 1], R[b, :, 2] * size[b, 1]
        x_a, x_b = _closest_between_segments(p[a] - axis_a, p[a] + axis_a, p[b] - axis_b, p[b] + axis_b)
        gap = _round(x_a, radius_a, x_b, radius_b, R[a, :, 0].copy(), out, row, flip)
    return row + 1 if gap <= margin else row


@njit(cache=True)
def _box_corners(R, p, h):
    """The 8 corners (8, 3) of a box (rotation R, centre p, half extents h), in the order of ``Box.corners``."""
    corners = np.empty((8, 3))
    k = 0
    for sx in (-1.0, 1.0):
        for sy in (-1.0, 1.0):
            for sz in (-1.0, 1.0):
                corners[k] = p + R[:, 0] * (sx * h[0]) + R[:, 1] * (sy * h[1]) + R[:, 2] * (sz * h[2])
                k += 1
    return corners


@njit(cache=True)
def _hull_world(R, p, vertices):
    """Vertices (k, 3) of a hull in its geometry's axes, posed at R, p: p + R v."""
    world = np.empty(vertices.shape)
    for k in range(vertices.shape[0]):  # (in scalars: no array per vertex)
        for c in range(3):
            world[k, c] = p[c] + R[c, 0] * vertices[k, 0] + R[c, 1] * vertices[k, 1] + R[c, 2] * vertices[k, 2]
    return world


@njit(cache=True)
def _points_plane(points, origin, normal, margin, out, row, flip, spread):
    """Contacts of points (k, 3) (a box's corners, a hull's vertices) with the plane through ``origin`` with
    outward ``normal``: those within ``margin``, cut to :data:`MAX_PLANE_CONTACTS` that span them when ``spread``
    (:func:`~.geometry.points_plane`, :func:`~.geometry.hull_plane`)."""
    gaps = np.empty(points.shape[0])
    near = 0
    for k in range(points.shape[0]):
        gaps[k] = ((points[k, 0] - origin[0]) * normal[0] + (points[k, 1] - origin[1]) * normal[1]
                   + (points[k, 2] - origin[2]) * normal[2])
        near += gaps[k] <= margin
    if near == 0:
        return row
    chosen = np.empty(near, dtype=np.int64)
    near = 0
    for k in range(points.shape[0]):
        if gaps[k] <= margin:
            chosen[near] = k
            near += 1
    if spread:
        chosen = chosen[spread_contacts(points[chosen], gaps[chosen], MAX_PLANE_CONTACTS)]
    for k in chosen:
        x, g = points[k], gaps[k]
        _write(out, row, x - 0.5 * g * normal, normal, g, x, x - g * normal, flip)
        row += 1
    return row


@njit(cache=True)
def sphere_box(center, radius, R, p, h):
    """(point, normal, gap, witness on the box) of a sphere (centre, radius) against a box (rotation R, centre p,
    half extents h): normal from the box's closest point, or through the nearest face when the centre is inside
    (:func:`~.geometry.sphere_box`)."""
    local = R.T @ (center - p)
    closest = np.minimum(np.maximum(local, -h), h)
    if np.any(closest != local):
        outward = local - closest
        length = np.sqrt(_dot(outward, outward))
        n_local, gap = outward / length, length - radius
    else:
        depth = h - np.abs(local)
        axis = np.argmin(depth)
        n_local = np.zeros(3)
        n_local[axis] = 1.0 if local[axis] >= 0 else -1.0
        closest = local.copy()
        closest[axis] = n_local[axis] * h[axis]
        gap = -depth[axis] - radius
    n, witness_b = R @ n_local, p + R @ closest
    return 0.5 * ((center - radius * n) + witness_b), n, gap, witness_b


@njit(cache=True)
def _box_distance(local, h):
    """Signed distance of a point in a box's frame to the box (half extents h): negative inside."""
    q = np.abs(local) - h
    outside = np.maximum(q, 0.0)
    return np.sqrt(_dot(outside, outside)) + min(q.max(), 0.0)


@njit(cache=True)
def _capsule_box(p0, p1, radius, R, p, h, margin, out, row, flip):
    """Contacts of a capsule (axis p0–p1, radius) with a box: a sphere–box contact at each end of the axis and at
    the axis point deepest in (or nearest to) the box, bracketed by 8 rounds of 17 samples
    (:func:`~.geometry.capsule_box`)."""
    a, b = R.T @ (p0 - p), R.T @ (p1 - p)
    lo, hi = 0.0, 1.0
    s = np.empty(17)
    for _ in range(8):
        step = (hi - lo) / 16.0
        for k in range(17):  # (numpy's linspace)
            s[k] = k * step + lo
        s[16] = hi
        best, nearest = 0, np.inf
        for k in range(17):
            distance = _box_distance(a + s[k] * (b - a), h)
            if distance < nearest:
                best, nearest = k, distance
        lo, hi = s[max(best - 1, 0)], s[min(best + 1, 16)]
    gap_ends = np.inf
    for end in range(2):
        x = p0 if end == 0 else p1
        point, n, gap, witness = sphere_box(x, radius, R, p, h)
        gap_ends = min(gap_ends, gap)
        if gap <= margin:
            _write(out, row, point, n, gap, x, witness, flip)
            row += 1
    x = p0 + 0.5 * (lo + hi) * (p1 - p0)
    point, n, gap, witness = sphere_box(x, radius, R, p, h)
    if gap + radius > 0.0:  # the axis misses the box: its point nearest to the box's nearest point
        x = _closest_on_segment(witness, p0, p1)
        point, n, gap, witness = sphere_box(x, radius, R, p, h)
    d = p1 - p0
    if gap < gap_ends - (1e-9 + 1e-7 * np.sqrt(_dot(d, d))) and gap <= margin:
        _write(out, row, point, n, gap, x, witness, flip)
        row += 1
    return row


@njit(cache=True)
def _hull_polytope(A, B, radius, margin, out, row, flip):
    """The contact of a hull (world vertices A) with a polytope B rounded by ``radius``: along the shortest line
    between them (GJK) or, where they overlap, the least translation that separates them (EPA)
    (:func:`~.geometry.hull_polytope`)."""
    simplex, on_a, on_b, weights = np.empty((4, 3)), np.empty((4, 3)), np.empty((4, 3)), np.ones(4)
    count, x = gjk_simplex(A, B, simplex, on_a, on_b, weights, 64)
    distance = np.sqrt(_dot(x, x))
    if distance - radius > margin:
        return row
    if distance > 1e-9 * (1.0 + np.abs(A).max()):
        a, b = weights[:count] @ on_a[:count], weights[:count] @ on_b[:count]
        n, core_gap = (a - b) / distance, distance
    else:
        depth, u, a, b = expanded_polytope(A, B, simplex, on_a, on_b, count)
        n, core_gap = -u, -depth
    if core_gap - radius > margin:
        return row
    _write(out, row, 0.5 * (a + (b + radius * n)), n, core_gap - radius, a, b, flip)
    return row + 1


@njit(cache=True)
def _core(k, kind, size, R, p, vertices, first_vertex, vertex_count):
    """The polytope (its world vertices) whose rounding by size[k, 0] is geometry k: a sphere's centre, a capsule's
    axis ends, a box's corners, a hull's vertices."""
    if kind[k] == SPHERE:
        return p[k:k + 1].copy()
    if kind[k] == CAPSULE:
        ends = np.empty((2, 3))
        ends[0], ends[1] = p[k] - size[k, 1] * R[k, :, 2], p[k] + size[k, 1] * R[k, :, 2]
        return ends
    if kind[k] == BOX:
        return _box_corners(R[k], p[k], size[k])
    return _hull_world(R[k], p[k], vertices[first_vertex[k]:first_vertex[k] + vertex_count[k]])


@njit(cache=True)
def pair_contacts(a, b, kind, size, R, p, vertices, first_vertex, vertex_count, margin, out, row, flip):
    """Contacts with gap ≤ ``margin`` of geometry a (shape A) with geometry b (B), kind[a] ≤ kind[b] (the order of
    :func:`~.geometry.collide`'s table), posed at R (g, 3, 3), p (g, 3), written from row ``row`` of ``out``, seen
    from B when ``flip``; returns the next free row."""
    ka, kb = kind[a], kind[b]
    if ka == HULL and kb == PLANE:
        points = _core(a, kind, size, R, p, vertices, first_vertex, vertex_count)
        return _points_plane(points, p[b], R[b, :, 2].copy(), margin, out, row, flip, True)
    if ka == HULL:
        A = _core(a, kind, size, R, p, vertices, first_vertex, vertex_count)
        B = _core(b, kind, size, R, p, vertices, first_vertex, vertex_count)
        return _hull_polytope(A, B, size[b, 0] if kb == SPHERE or kb == CAPSULE else 0.0, margin, out, row, flip)
    if ka == BOX and kb == PLANE:
        corners = _box_corners(R[a], p[a], size[a])
        return _points_plane(corners, p[b], R[b, :, 2].copy(), margin, out, row, flip, False)
    if ka == BOX:
        rows = np.empty((8, 13))
        for k in range(box_box(R[a], p[a], size[a], R[b], p[b], size[b], margin, rows)):
            _write(out, row, rows[k, :3], rows[k, 3:6], rows[k, 6], rows[k, 7:10], rows[k, 10:13], flip)
            row += 1
        return row
    if kb == BOX:
        if ka == SPHERE:
            point, n, gap, witness = sphere_box(p[a], size[a, 0], R[b], p[b], size[b])
            if gap > margin:
                return row
            _write(out, row, point, n, gap, p[a], witness, flip)
            return row + 1
        ends = _core(a, kind, size, R, p, vertices, first_vertex, vertex_count)
        return _capsule_box(ends[0], ends[1], size[a, 0], R[b], p[b], size[b], margin, out, row, flip)
    return _round_pair(a, b, kind, size, R, p, margin, out, row, flip)


@njit(cache=True)
def contact_capacity(kind, pairs):
    """The most contact rows ``pairs`` (m, 2) can give at once: the size ``out`` needs in :func:`detect_contacts`."""
    rows = 0
    for m in range(pairs.shape[0]):
        i, j = pairs[m, 0], pairs[m, 1]
        rows += MAX_CONTACTS[min(kind[i], kind[j]), max(kind[i], kind[j])]
    return rows


@njit(cache=True)
def detect_contacts(shapes, pairs, R0, p0, margin, out):
    """Broad and narrow phase over the candidate ``pairs`` (m, 2) of geometries (``shapes``: the tuple of arrays of
    the module docstring) on bodies posed at R0 (nb, 3, 3), p0 (nb, 3) (body axes → world, origins [m]): writes
    the contacts with gap ≤ ``margin`` [m] to ``out`` (≥ :func:`contact_capacity` rows, 14 columns: the row
    layout of the module docstring) and returns their number.

    Broad phase: a pair goes on if its bounding spheres (centre R ``center`` + p, radius ``bound``) are within
    ``margin`` of each other and no face normal of their bounding boxes (``extent`` about the same centres)
    separates them by more than ``margin``, or, for a plane and another shape, if the other's bounding sphere and
    box both reach within ``margin`` above the plane. The test is scalar, a few ns per pair: the call's cost
    grows with the pairs whose shapes come near, not with the candidate pairs. Narrow phase: :func:`pair_contacts`."""
    kind, size, body, R_local, p_local, center, bound, vertices, first_vertex, vertex_count, extent = shapes
    g = kind.shape[0]
    R, p, centers = np.empty((g, 3, 3)), np.empty((g, 3)), np.empty((g, 3))
    geometry_poses(body, R_local, p_local, R0, p0, R, p)
    for k in range(g):
        for c in range(3):
            centers[k, c] = p[k, c] + R[k, c, 0] * center[k, 0] + R[k, c, 1] * center[k, 1] + R[k, c, 2] * center[k, 2]
    count = np.int64(0)  # (not the literal 0: one compilation of the pair tests, not two)
    for m in range(pairs.shape[0]):
        i, j = pairs[m, 0], pairs[m, 1]
        if kind[i] == PLANE or kind[j] == PLANE:  # the other's bounding sphere and box above the plane
            plane, other = (i, j) if kind[i] == PLANE else (j, i)
            height = ((centers[other, 0] - p[plane, 0]) * R[plane, 0, 2] + (centers[other, 1] - p[plane, 1])
                      * R[plane, 1, 2] + (centers[other, 2] - p[plane, 2]) * R[plane, 2, 2])
            reach = 0.0
            for a in range(3):
                reach += abs(R[plane, 0, 2] * R[other, 0, a] + R[plane, 1, 2] * R[other, 1, a]
                             + R[plane, 2, 2] * R[other, 2, a]) * extent[other, a]
            if not height - min(bound[other], reach) <= margin:
                continue
        else:
            dx, dy, dz = centers[i, 0] - centers[j, 0], centers[i, 1] - centers[j, 1], centers[i, 2] - centers[j, 2]
            if not np.sqrt(dx * dx + dy * dy + dz * dz) - bound[i] - bound[j] <= margin or _boxes_apart(
                    R, centers, extent, i, j, margin):
                continue
        flip = kind[i] > kind[j]
        a, b = (j, i) if flip else (i, j)
        last = pair_contacts(a, b, kind, size, R, p, vertices, first_vertex, vertex_count, margin, out, count, flip)
        for row in range(count, last):
            out[row, 13] = m
        count = last
    return count


@njit(cache=True)
def _boxes_apart(R, centers, extent, i, j, margin):
    """Whether one of the 6 face normals u of the bounding boxes of geometries i and j (centres ``centers``, half
    extents ``extent`` along the geometries' axes R) separates them by more than ``margin``:
    |u·(c_i − c_j)| − Σ_m |u·R_i,m| e_i,m − Σ_m |u·R_j,m| e_j,m > margin (the separating-axis test, face axes)."""
    for k in (i, j):
        for a in range(3):
            u0, u1, u2 = R[k, 0, a], R[k, 1, a], R[k, 2, a]
            apart = abs(u0 * (centers[i, 0] - centers[j, 0]) + u1 * (centers[i, 1] - centers[j, 1])
                        + u2 * (centers[i, 2] - centers[j, 2]))
            for m in range(3):
                apart -= (abs(u0 * R[i, 0, m] + u1 * R[i, 1, m] + u2 * R[i, 2, m]) * extent[i, m]
                          + abs(u0 * R[j, 0, m] + u1 * R[j, 1, m] + u2 * R[j, 2, m]) * extent[j, m])
            if apart > margin:
                return True
    return False
