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


from ._faces import _add, _at, _axis, _clip, _closest_between_segments, _dot, _sub, _times, box_box, scalar
from .convex import MAX_PLANE_CONTACTS, expanded_polytope, gjk_simplex, spread_contacts

HULL, SPHERE, CAPSULE, BOX, PLANE = 0, 1, 2, 3, 4  # the shape codes of ``kind``, in collide's order of A and B
ROW = 14  # the columns of a contact row
MAX_CONTACTS = np.array([  # the most contacts of a pair of kinds [A, B] (A before B in the order of the codes)
    [1, 1, 1, 1, MAX_PLANE_CONTACTS],  # hull with hull, sphere, capsule, box: one; with a plane: the spread
    [1, 1, 1, 1, 1],  # sphere
    [1, 1, 1, 3, 2],  # capsule: with a box, its ends and its deepest point; with a plane, its ends
    [1, 1, 3, 8, 8],  # box: with a box, the clipped face's corners; with a plane, its corners
    [MAX_PLANE_CONTACTS, 1, 2, 8, 0]], dtype=np.int64)


@scalar
def geometry_poses(index, R_local, p_local, R0, p0, R, p):
    """World poses R (g, 3, 3), p (g, 3) of the geometries: R = R0_b R_local, p = p0_b + R0_b p_local for a
    geometry on body b = index[k] (the world, −1: its local pose)."""
    for k in range(index.shape[0]):
        b = index[k]
        if b < 0:
            for i in range(3):
                p[k, i] = p_local[k, i]
                R[k, i, 0], R[k, i, 1], R[k, i, 2] = R_local[k, i, 0], R_local[k, i, 1], R_local[k, i, 2]
            continue
        x, y, z = p_local[k, 0], p_local[k, 1], p_local[k, 2]  # (in scalars: loaded once, whatever the stores)
        L = (R_local[k, 0, 0], R_local[k, 0, 1], R_local[k, 0, 2], R_local[k, 1, 0], R_local[k, 1, 1],
             R_local[k, 1, 2], R_local[k, 2, 0], R_local[k, 2, 1], R_local[k, 2, 2])
        for i in range(3):
            r0, r1, r2 = R0[b, i, 0], R0[b, i, 1], R0[b, i, 2]
            p[k, i] = p0[b, i] + r0 * x + r1 * y + r2 * z
            R[k, i, 0] = r0 * L[0] + r1 * L[3] + r2 * L[6]
            R[k, i, 1] = r0 * L[1] + r1 * L[4] + r2 * L[7]
            R[k, i, 2] = r0 * L[2] + r1 * L[5] + r2 * L[8]


@scalar
def _bounding_boxes(kind, center, bound, extent, R, p, centers, spans):
    """The centres (g, 3) of the geometries' bounding volumes in the world, c = R ``center`` + p, and their reach
    along each world axis i (g, 3), min(``bound``, Σ_a |R_ia| ``extent``_a) (a plane: inf)."""
    for k in range(kind.shape[0]):
        c0, c1, c2 = center[k, 0], center[k, 1], center[k, 2]
        e0, e1, e2, radius = extent[k, 0], extent[k, 1], extent[k, 2], bound[k]
        for i in range(3):
            r0, r1, r2 = R[k, i, 0], R[k, i, 1], R[k, i, 2]
            centers[k, i] = p[k, i] + r0 * c0 + r1 * c1 + r2 * c2
            spans[k, i] = np.inf if kind[k] == PLANE else min(radius, abs(r0) * e0 + abs(r1) * e1 + abs(r2) * e2)


@njit(cache=True)
def speed_bound(index, origin, radius, dp, w):
    """An upper bound [m/s] on the speed of any point of the geometries on bodies (index ≥ 0): max over them of
    |ṗ_b| + |ω_b| (|origin| + min(radius, 1e3)), the body origin's speed and the rotation's at the geometry's
    reach (``origin`` (g, 3) in body axes, bounding ``radius`` (g,))."""
    fastest = 0.0
    for k in range(index.shape[0]):
        b = index[k]
        if b >= 0:
            reach = np.sqrt(_dot(_at(origin, k), _at(origin, k))) + min(radius[k], 1e3)
            fastest = max(fastest, np.sqrt(_dot(_at(dp, b), _at(dp, b))) + np.sqrt(_dot(_at(w, b), _at(w, b))) * reach)
    return fastest


@scalar
def _write(out, row, point, normal, gap, anchor_a, anchor_b, flip):
    """out[row] = the contact, seen from the other shape when ``flip`` (normal −n, anchors swapped)."""
    sign = -1.0 if flip else 1.0
    first, second = (anchor_b, anchor_a) if flip else (anchor_a, anchor_b)
    out[row, 0], out[row, 1], out[row, 2] = point[0], point[1], point[2]
    out[row, 3], out[row, 4], out[row, 5] = sign * normal[0], sign * normal[1], sign * normal[2]
    out[row, 6] = gap
    out[row, 7], out[row, 8], out[row, 9] = first[0], first[1], first[2]
    out[row, 10], out[row, 11], out[row, 12] = second[0], second[1], second[2]


@scalar
def _sphere_plane(center, radius, origin, normal, out, row, flip):
    """Sphere against the plane through ``origin`` with outward unit ``normal``: gap = n·(c − o) − r, the
    witness c − r n, the point midway between the surfaces (:func:`~.geometry.sphere_plane`)."""
    gap = _dot(normal, _sub(center, origin)) - radius
    witness = _sub(center, _times(radius, normal))
    _write(out, row, _sub(witness, _times(0.5 * gap, normal)), normal, gap, center, _sub(witness, _times(gap, normal)),
           flip)
    return gap


@scalar
def _round(center_a, radius_a, center_b, radius_b, fallback, out, row, flip):
    """Two spheres (or the closest points of two capsule axes): normal along the centre line, anchors the centres."""
    d = _sub(center_a, center_b)
    length = np.sqrt(_dot(d, d))
    n = (d[0] / length, d[1] / length, d[2] / length) if length > 1e-12 else fallback
    gap = length - radius_a - radius_b
    _write(out, row, _times(0.5, _add(_sub(center_a, _times(radius_a, n)), _add(center_b, _times(radius_b, n)))), n,
           gap, center_a, center_b, flip)
    return gap


@scalar
def _closest_on_segment(x, p0, p1):
    d = _sub(p1, p0)
    return _add(p0, _times(_clip(_dot(_sub(x, p0), d) / _dot(d, d)), d))


@scalar
def _round_pair(a, b, kind, size, R, p, margin, out, row, flip):
    """Contacts of sphere or capsule a with sphere, capsule or plane b from row ``row`` of ``out``; returns the next
    free row."""
    radius_a, radius_b = size[a, 0], size[b, 0]
    center_a = _at(p, a)
    if kind[b] == PLANE:
        if kind[a] == SPHERE:
            return row + (_sphere_plane(center_a, radius_a, _at(p, b), _axis(R, b, 2), out, row, flip) <= margin)
        axis = _times(size[a, 1], _axis(R, a, 2))
        for end in range(2):  # a capsule: one sphere at each end of its axis
            center = _sub(center_a, axis) if end == 0 else _add(center_a, axis)
            if _sphere_plane(center, radius_a, _at(p, b), _axis(R, b, 2), out, row, flip) <= margin:
                row += 1
        return row
    if kind[a] == SPHERE and kind[b] == SPHERE:
        gap = _round(center_a, radius_a, _at(p, b), radius_b, _axis(R, a, 2), out, row, flip)
    elif kind[a] == SPHERE:
        axis = _times(size[b, 1], _axis(R, b, 2))
        nearest = _closest_on_segment(center_a, _sub(_at(p, b), axis), _add(_at(p, b), axis))
        gap = _round(center_a, radius_a, nearest, radius_b, _axis(R, b, 0), out, row, flip)
    else:
        axis_a, axis_b = _times(size[a, 1], _axis(R, a, 2)), _times(size[b, 1], _axis(R, b, 2))
        x_a, x_b = _closest_between_segments(_sub(center_a, axis_a), _add(center_a, axis_a), _sub(_at(p, b), axis_b),
                                             _add(_at(p, b), axis_b))
        gap = _round(x_a, radius_a, x_b, radius_b, _axis(R, a, 0), out, row, flip)
    return row + 1 if gap <= margin else row


@scalar
def _box_corner(R, p, h, k, corner):
    """Corner ``corner`` (0–7, in the order of ``Box.corners``: signs of x, y, z as the bits 4, 2, 1 of it) of box
    k (rotation R[k], centre p[k], half extents h[k])."""
    sx = 1.0 if corner & 4 else -1.0
    sy = 1.0 if corner & 2 else -1.0
    sz = 1.0 if corner & 1 else -1.0
    return _add(_add(_add(_at(p, k), _times(sx * h[k, 0], _axis(R, k, 0))), _times(sy * h[k, 1], _axis(R, k, 1))),
                _times(sz * h[k, 2], _axis(R, k, 2)))


@njit(cache=True)
def _box_corners(R, p, h, k):
    """The 8 corners (8, 3) of box k, in the order of ``Box.corners`` (:func:`_box_corner`)."""
    corners = np.empty((8, 3))
    for corner in range(8):
        corners[corner, 0], corners[corner, 1], corners[corner, 2] = _box_corner(R, p, h, k, corner)
    return corners


@scalar
def _box_plane(a, b, size, R, p, margin, out, row, flip):
    """Contacts of box a's corners with plane b: those within ``margin`` (:func:`~.geometry.points_plane`)."""
    origin, normal = _at(p, b), _axis(R, b, 2)
    for corner in range(8):
        x = _box_corner(R, p, size, a, corner)
        g = (x[0] - origin[0]) * normal[0] + (x[1] - origin[1]) * normal[1] + (x[2] - origin[2]) * normal[2]
        if g <= margin:
            _write(out, row, _sub(x, _times(0.5 * g, normal)), normal, g, x, _sub(x, _times(g, normal)), flip)
            row += 1
    return row


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
    """Contacts of points (k, 3) (a hull's vertices) with the plane through ``origin`` with outward ``normal``:
    those within ``margin``, cut to :data:`MAX_PLANE_CONTACTS` that span them when ``spread``
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
        x, g = _at(points, k), gaps[k]
        _write(out, row, _sub(x, _times(0.5 * g, normal)), normal, g, x, _sub(x, _times(g, normal)), flip)
        row += 1
    return row


@scalar
def _sphere_box(center, radius, R, p, h, k):
    """(point, normal, gap, witness on the box) of a sphere (centre, radius) against box k (rotation R[k], centre
    p[k], half extents h[k]): normal from the box's closest point, or through the nearest face when the centre is
    inside (:func:`~.geometry.sphere_box`)."""
    d = _sub(center, _at(p, k))
    local = (_dot(_axis(R, k, 0), d), _dot(_axis(R, k, 1), d), _dot(_axis(R, k, 2), d))
    closest = (min(max(local[0], -h[k, 0]), h[k, 0]), min(max(local[1], -h[k, 1]), h[k, 1]),
               min(max(local[2], -h[k, 2]), h[k, 2]))
    if closest[0] != local[0] or closest[1] != local[1] or closest[2] != local[2]:
        outward = _sub(local, closest)
        length = np.sqrt(_dot(outward, outward))
        n_local, gap = (outward[0] / length, outward[1] / length, outward[2] / length), length - radius
    else:  # inside: out through the nearest face (the first of equals)
        depth = (h[k, 0] - abs(local[0]), h[k, 1] - abs(local[1]), h[k, 2] - abs(local[2]))
        axis = 0 if depth[0] <= depth[1] and depth[0] <= depth[2] else 1 if depth[1] <= depth[2] else 2
        sign = 1.0 if local[axis] >= 0 else -1.0
        n_local = (sign if axis == 0 else 0.0, sign if axis == 1 else 0.0, sign if axis == 2 else 0.0)
        closest = (sign * h[k, 0] if axis == 0 else local[0], sign * h[k, 1] if axis == 1 else local[1],
                   sign * h[k, 2] if axis == 2 else local[2])
        gap = -depth[axis] - radius
    n = _to_world(R, k, n_local)
    witness = _add(_at(p, k), _to_world(R, k, closest))
    return _times(0.5, _add(_sub(center, _times(radius, n)), witness)), n, gap, witness


@scalar
def _to_world(R, k, x):
    """R[k] x."""
    return (R[k, 0, 0] * x[0] + R[k, 0, 1] * x[1] + R[k, 0, 2] * x[2], R[k, 1, 0] * x[0] + R[k, 1, 1] * x[1]
            + R[k, 1, 2] * x[2], R[k, 2, 0] * x[0] + R[k, 2, 1] * x[1] + R[k, 2, 2] * x[2])


@njit(cache=True)
def sphere_box(center, radius, R, p, h):
    """(point, normal, gap, witness on the box) (arrays (3,), a float) of a sphere (centre (3,), radius) against a
    box (rotation R (3, 3), centre p (3,), half extents h (3,)): :func:`_sphere_box` for one box."""
    point, n, gap, witness = _sphere_box(_at(center.reshape(1, 3), 0), radius, R.reshape(1, 3, 3), p.reshape(1, 3),
                                         h.reshape(1, 3), 0)
    return np.array(point), np.array(n), gap, np.array(witness)


@scalar
def _box_distance(local, h, k):
    """Signed distance of a point in the frame of box k (half extents h[k]) to the box: negative inside."""
    q = (abs(local[0]) - h[k, 0], abs(local[1]) - h[k, 1], abs(local[2]) - h[k, 2])
    outside = (max(q[0], 0.0), max(q[1], 0.0), max(q[2], 0.0))
    return np.sqrt(_dot(outside, outside)) + min(max(q[0], q[1], q[2]), 0.0)


@scalar
def _capsule_box(p0, p1, radius, R, p, h, k, margin, out, row, flip):
    """Contacts of a capsule (axis p0–p1, radius) with box k: a sphere–box contact at each end of the axis and at
    the axis point deepest in (or nearest to) the box, bracketed by 8 rounds of 17 samples
    (:func:`~.geometry.capsule_box`)."""
    d0, d1 = _sub(p0, _at(p, k)), _sub(p1, _at(p, k))
    ex, ey, ez = _axis(R, k, 0), _axis(R, k, 1), _axis(R, k, 2)
    a, b = (_dot(ex, d0), _dot(ey, d0), _dot(ez, d0)), (_dot(ex, d1), _dot(ey, d1), _dot(ez, d1))
    ab = _sub(b, a)
    lo, hi = 0.0, 1.0
    for _ in range(8):
        step = (hi - lo) / 16.0
        best, nearest = 0, np.inf
        for m in range(17):  # the samples of numpy's linspace(lo, hi, 17)
            s = m * step + lo if m < 16 else hi
            distance = _box_distance(_add(a, _times(s, ab)), h, k)
            if distance < nearest:
                best, nearest = m, distance
        below, above = max(best - 1, 0), min(best + 1, 16)
        lo, hi = below * step + lo, (above * step + lo if above < 16 else hi)
    gap_ends = np.inf
    for end in range(2):
        x = p0 if end == 0 else p1
        point, n, gap, witness = _sphere_box(x, radius, R, p, h, k)
        gap_ends = min(gap_ends, gap)
        if gap <= margin:
            _write(out, row, point, n, gap, x, witness, flip)
            row += 1
    x = _add(p0, _times(0.5 * (lo + hi), _sub(p1, p0)))
    point, n, gap, witness = _sphere_box(x, radius, R, p, h, k)
    if gap + radius > 0.0:  # the axis misses the box: its point nearest to the box's nearest point
        x = _closest_on_segment(witness, p0, p1)
        point, n, gap, witness = _sphere_box(x, radius, R, p, h, k)
    d = _sub(p1, p0)
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
        return _box_corners(R, p, size, k)
    return _hull_world(R[k], p[k], vertices[first_vertex[k]:first_vertex[k] + vertex_count[k]])


@njit(cache=True)
def pair_contacts(a, b, kind, size, R, p, vertices, first_vertex, vertex_count, margin, out, row, flip):
    """Contacts with gap ≤ ``margin`` of geometry a (shape A) with geometry b (B), kind[a] ≤ kind[b] (the order of
    :func:`~.geometry.collide`'s table), posed at R (g, 3, 3), p (g, 3), written from row ``row`` of ``out``, seen
    from B when ``flip``; returns the next free row."""
    if kind[a] == HULL:
        return _hull_pair(a, b, kind, size, R, p, vertices, first_vertex, vertex_count, margin, out, row, flip)
    if kind[a] == BOX and kind[b] == BOX:
        return _box_pair(a, b, size, R, p, margin, out, row, flip)
    return _primitive_pair(a, b, kind, size, R, p, margin, out, row, flip)


@scalar
def _primitive_pair(a, b, kind, size, R, p, margin, out, row, flip):
    """:func:`pair_contacts` of a sphere, capsule or box a with a sphere, capsule, box or plane b, but two boxes."""
    ka, kb = kind[a], kind[b]
    if ka == BOX:
        return _box_plane(a, b, size, R, p, margin, out, row, flip)
    if kb == BOX:
        if ka == SPHERE:
            point, n, gap, witness = _sphere_box(_at(p, a), size[a, 0], R, p, size, b)
            if gap > margin:
                return row
            _write(out, row, point, n, gap, _at(p, a), witness, flip)
            return row + 1
        axis = _times(size[a, 1], _axis(R, a, 2))
        return _capsule_box(_sub(_at(p, a), axis), _add(_at(p, a), axis), size[a, 0], R, p, size, b, margin, out, row,
                            flip)
    return _round_pair(a, b, kind, size, R, p, margin, out, row, flip)


@njit(cache=True)
def _hull_pair(a, b, kind, size, R, p, vertices, first_vertex, vertex_count, margin, out, row, flip):
    """:func:`pair_contacts` of hull a with a plane (its vertices below it, spread) or another shape (one contact)."""
    if kind[b] == PLANE:
        return _hull_plane(a, b, R, p, vertices[first_vertex[a]:first_vertex[a] + vertex_count[a]], margin, out, row,
                           flip)
    A = _core(a, kind, size, R, p, vertices, first_vertex, vertex_count)
    B = _core(b, kind, size, R, p, vertices, first_vertex, vertex_count)
    return _hull_polytope(A, B, size[b, 0] if kind[b] == SPHERE or kind[b] == CAPSULE else 0.0, margin, out, row, flip)


@njit(cache=True)
def _hull_plane(a, b, R, p, local, margin, out, row, flip):
    """:func:`_points_plane` of hull a's vertices ``local`` (k, 3) (its axes) with plane b, posed only for the
    vertices that may be within ``margin``: first each vertex's height above the plane in the hull's axes,
    n·(p_a − o) + (R_aᵀ n)·v, kept to 1e-9 m more than the margin; then those few posed, p_a + R_a v, and tested."""
    normal = _axis(R, b, 2)
    lift = _dot(normal, _sub(_at(p, a), _at(p, b)))
    down = (_dot(_axis(R, a, 0), normal), _dot(_axis(R, a, 1), normal), _dot(_axis(R, a, 2), normal))
    near = 0
    for k in range(local.shape[0]):
        near += lift + _dot(down, _at(local, k)) <= margin + 1e-9
    if near == 0:
        return row
    points = np.empty((near, 3))
    near = 0
    for k in range(local.shape[0]):
        if lift + _dot(down, _at(local, k)) <= margin + 1e-9:
            for c in range(3):
                points[near, c] = (p[a, c] + R[a, c, 0] * local[k, 0] + R[a, c, 1] * local[k, 1]
                                   + R[a, c, 2] * local[k, 2])
            near += 1
    return _points_plane(points, _at(p, b), normal, margin, out, row, flip, True)


@njit(cache=True)
def _box_pair(a, b, size, R, p, margin, out, row, flip):
    """:func:`pair_contacts` of boxes a and b (:func:`._faces.box_box`)."""
    rows = np.empty((8, 13))
    for k in range(box_box(R[a], p[a], size[a], R[b], p[b], size[b], margin, rows)):
        _write(out, row, _at(rows, k), (rows[k, 3], rows[k, 4], rows[k, 5]), rows[k, 6],
               (rows[k, 7], rows[k, 8], rows[k, 9]), (rows[k, 10], rows[k, 11], rows[k, 12]), flip)
        row += 1
    return row


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
    layout of the module docstring) and returns their number. Broad phase: :func:`near_pairs`; narrow phase, on
    the pairs it keeps: :func:`pair_contacts`. (:func:`detect_contacts_in` with its work arrays made here.)"""
    return detect_contacts_in(shapes, pairs, R0, p0, margin, out, detection_work(shapes[0], pairs))


@njit(cache=True)
def detection_work(kind, pairs):
    """The work arrays of :func:`detect_contacts_in` for the geometries of codes ``kind`` (g,) and the candidate
    ``pairs`` (m, 2): the geometries' world rotations (g, 3, 3), their positions, bounding-box centres and reaches
    (3, g, 3), the indices of the pairs the broad phase keeps (m,)."""
    return np.empty((kind.shape[0], 3, 3)), np.empty((3, kind.shape[0], 3)), np.empty(pairs.shape[0], dtype=np.int64)


@njit(cache=True)
def detect_contacts_in(shapes, pairs, R0, p0, margin, out, work):
    """:func:`detect_contacts` in the work arrays ``work`` (:func:`detection_work`): for a loop that detects at
    every step without making them anew."""
    kind, size, body, R_local, p_local, center, bound, vertices, first_vertex, vertex_count, extent = shapes
    R, frames, near = work
    p, centers, spans = frames[0], frames[1], frames[2]
    count = np.int64(0)  # (not the literal 0: one compilation of the pair tests, not two)
    for n in range(near_pairs(shapes, pairs, R0, p0, margin, R, p, centers, spans, near)):
        m = near[n]
        flip = kind[pairs[m, 0]] > kind[pairs[m, 1]]
        a, b = (pairs[m, 1], pairs[m, 0]) if flip else (pairs[m, 0], pairs[m, 1])
        if kind[a] == HULL or kind[a] == BOX and kind[b] == BOX:  # (the pairs that need arrays of their own)
            last = pair_contacts(a, b, kind, size, R, p, vertices, first_vertex, vertex_count, margin, out, count, flip)
        else:
            last = _primitive_pair(a, b, kind, size, R, p, margin, out, count, flip)
        for row in range(count, last):
            out[row, 13] = m
        count = last
    return count


@scalar
def near_pairs(shapes, pairs, R0, p0, margin, R, p, centers, spans, near):
    """The broad phase of :func:`detect_contacts`: writes the indices (in ``pairs``, ascending) of the pairs that
    may be within ``margin`` [m] to ``near`` (m,) and returns their number, with the geometries' world poses R
    (g, 3, 3), p (g, 3) (:func:`geometry_poses`) and bounding boxes ``centers``, ``spans`` (g, 3)
    (:func:`_bounding_boxes`).

    Each geometry's bounding volume is posed once a call: its centre c = R ``center`` + p and its reach along each
    world axis, min(``bound``, Σ_a |R_ia| ``extent``_a) (the world-axis box around its bounding box, cut by its
    bounding sphere). A pair goes on if those world-axis boxes are within ``margin`` of each other along all three
    axes, its bounding spheres are, and no face normal of its bounding boxes separates them by more than
    ``margin``, tested in that order; for a plane and another shape, if the other's bounding sphere and box both
    reach within ``margin`` above the plane. A pair far apart costs a few comparisons: the call's cost grows with
    the pairs whose shapes come near, not with the candidate pairs."""
    kind, size, body, R_local, p_local, center, bound, vertices, first_vertex, vertex_count, extent = shapes
    geometry_poses(body, R_local, p_local, R0, p0, R, p)
    _bounding_boxes(kind, center, bound, extent, R, p, centers, spans)
    count = 0
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
            if ((abs(dx) - spans[i, 0] - spans[j, 0] > margin) | (abs(dy) - spans[i, 1] - spans[j, 1] > margin)
                    | (abs(dz) - spans[i, 2] - spans[j, 2] > margin)):  # (one branch, not three)
                continue
            if not np.sqrt(dx * dx + dy * dy + dz * dz) - bound[i] - bound[j] <= margin or _boxes_apart(
                    R, centers, extent, i, j, margin):
                continue
        near[count] = m
        count += 1
    return count


@scalar
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
