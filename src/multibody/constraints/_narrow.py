"""Compiled broad and narrow phase of the round shapes: every candidate pair of geometries in one call.

Spheres, capsules and planes (the shapes of the dm_control files and of most robots' feet) are tested here,
pair after pair, with the formulas of :mod:`.geometry` (:func:`~.geometry.sphere_plane`,
:func:`~.geometry.closest_on_segment`, :func:`~.geometry.closest_between_segments` and the two-sphere contact);
a sphere is a capsule of half length zero. Pairs of other shapes whose bounding spheres come within the margin
are handed back for :func:`~.geometry.collide`.

A contact is written as one row (13,) of ``contacts``: point (3), normal from B to A (3), signed gap [m],
anchor on A (3), anchor on B (3), world axes (the fields of :class:`~.geometry.ContactPoint`), A the pair's
first geometry.
"""
from __future__ import annotations

import numpy as np
from numba import njit

SPHERE, CAPSULE, PLANE, OTHER = 0, 1, 2, 3  # the shape codes of ``kind``


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
def _closest_between_segments(p0, p1, q0, q1):
    """Closest points of segments p0–p1 and q0–q1 by alternating clamped projections
    (:func:`~.geometry.closest_between_segments`)."""
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, b, c, f = _dot(d1, d1), _dot(d2, d2), _dot(d1, d2), _dot(d1, r), _dot(d2, r)
    denom = a * e - b * b
    s = _clip((b * f - c * e) / denom) if denom > 1e-12 * a * e else 0.0
    t = _clip((b * s + f) / e)
    s = _clip((b * t - c) / a)
    return p0 + s * d1, q0 + t * d2


@njit(cache=True)
def _round_pair(i, j, kind, radius, half_length, R, p, margin, out, row, flip):
    """Contacts of geometry i (A) with geometry j (B), both spheres or capsules or i round and j a plane, from
    row ``row`` of ``out``; returns the next free row."""
    if kind[j] == PLANE:
        normal = R[j, :, 2].copy()
        axis = R[i, :, 2] * half_length[i]
        ends = 1 if kind[i] == SPHERE else 2
        for end in range(ends):  # a capsule: one sphere at each end of its axis
            center = p[i] if ends == 1 else (p[i] - axis if end == 0 else p[i] + axis)
            if _sphere_plane(center, radius[i], p[j], normal, out, row, flip) <= margin:
                row += 1
        return row
    if kind[i] == SPHERE and kind[j] == SPHERE:
        gap = _round(p[i], radius[i], p[j], radius[j], R[i, :, 2].copy(), out, row, flip)
    elif kind[i] == SPHERE:
        axis = R[j, :, 2] * half_length[j]
        nearest = _closest_on_segment(p[i], p[j] - axis, p[j] + axis)
        gap = _round(p[i], radius[i], nearest, radius[j], R[j, :, 0].copy(), out, row, flip)
    else:
        axis_a, axis_b = R[i, :, 2] * half_length[i], R[j, :, 2] * half_length[j]
        x_a, x_b = _closest_between_segments(p[i] - axis_a, p[i] + axis_a, p[j] - axis_b, p[j] + axis_b)
        gap = _round(x_a, radius[i], x_b, radius[j], R[i, :, 0].copy(), out, row, flip)
    return row + 1 if gap <= margin else row


@njit(cache=True)
def round_contacts(kind, radius, half_length, center, bound, R, p, pairs, margin, out, found, others):
    """Broad and narrow phase over ``pairs`` (m, 2) of geometries posed at R (g, 3, 3), p (g, 3).

    Broad phase: a pair goes on if its bounding spheres (centre R ``center`` + p, radius ``bound``) are within
    ``margin`` [m] of each other, or, for a plane and another shape, the other's bounding sphere is within
    ``margin`` above the plane. Narrow phase: a pair of round shapes (``kind`` SPHERE, CAPSULE with ``radius``
    and ``half_length``, or one of them and a PLANE) writes its contacts with gap ≤ ``margin`` to ``out``
    (2 m, 13) and its pair index to ``found`` (2 m,); any other pair's index goes to ``others`` (m,).
    Returns (number of contacts, number of others)."""
    g = kind.shape[0]
    centers = np.empty((g, 3))
    for k in range(g):
        for c in range(3):
            centers[k, c] = p[k, c] + R[k, c, 0] * center[k, 0] + R[k, c, 1] * center[k, 1] + R[k, c, 2] * center[k, 2]
    count, handed = 0, 0
    for m in range(pairs.shape[0]):
        i, j = pairs[m, 0], pairs[m, 1]
        if kind[i] == PLANE and kind[j] != PLANE:
            apart = _dot(centers[j] - p[i], R[i, :, 2]) - bound[j]
        elif kind[j] == PLANE and kind[i] != PLANE:
            apart = _dot(centers[i] - p[j], R[j, :, 2]) - bound[i]
        else:
            d = centers[i] - centers[j]
            apart = np.sqrt(_dot(d, d)) - bound[i] - bound[j]
        if not apart <= margin:
            continue
        if kind[i] == OTHER or kind[j] == OTHER or (kind[i] == PLANE and kind[j] == PLANE):
            others[handed] = m
            handed += 1
            continue
        # (the order of geometry.collide's table: sphere before capsule before plane; the other order flipped)
        flip = kind[i] > kind[j]
        a, b = (j, i) if flip else (i, j)
        last = _round_pair(a, b, kind, radius, half_length, R, p, margin, out, count, flip)
        for row in range(count, last):
            found[row] = m
        count = last
    return count, handed
