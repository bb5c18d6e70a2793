"""The compiled box–box contact test (:func:`multibody.constraints.geometry.box_box`, line for line): the
separating-axis test over the 15 candidate axes, then the incident face of one box clipped to the sides of the
other's reference face (Sutherland–Hodgman: a polygon of up to 8 corners clipped four times), or the closest points
of two edges. Also the 3-vector helpers of the compiled narrow phase (:mod:`._narrow`): 3-vectors as tuples (x, y, z),
values in registers, no array per pair and no reference count."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..dynamics._spatial_kernels import njit_without_refcounts

# the functions that only read and write arrays they are given (no array of their own): compiled without reference
# counting, which numba would otherwise do on every array handed to them (an atomic update each)
scalar = njit_without_refcounts(cache=True)


@scalar
def _at(x, k):
    """Row k of an (n, 3) array."""
    return x[k, 0], x[k, 1], x[k, 2]


@scalar
def _axis(R, k, c):
    """Column c of R[k] (geometry k's axis c in world axes)."""
    return R[k, 0, c], R[k, 1, c], R[k, 2, c]


@scalar
def _dot(x, y):
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]


@scalar
def _add(x, y):
    return x[0] + y[0], x[1] + y[1], x[2] + y[2]


@scalar
def _sub(x, y):
    return x[0] - y[0], x[1] - y[1], x[2] - y[2]


@scalar
def _times(s, x):
    return s * x[0], s * x[1], s * x[2]


@scalar
def _clip(x):
    return min(max(x, 0.0), 1.0)


@njit(cache=True)
def clipped_face(p_ref, R_ref, h_ref, axis, normal, p_inc, R_inc, h_inc, out):
    """The incident box's face most opposed to the reference box's face with outward ``normal`` (along its
    ``axis``: R_ref[:, axis] up to sign), clipped to that face's four sides. Writes each corner and its height above
    the reference face to out[k] = (x, y, z, gap) (out: (8, 4)); returns the number of corners. Boxes: centre p,
    rotation R (columns: the box axes in world axes), half extents h."""
    face = p_ref + h_ref[axis] * normal
    # the incident face: the face of the incident box whose normal is most opposed to ``normal``
    k, best = 0, -1.0
    for m in range(3):
        along = abs(R_inc[0, m] * normal[0] + R_inc[1, m] * normal[1] + R_inc[2, m] * normal[2])
        if along > best:
            k, best = m, along
    towards = R_inc[0, k] * normal[0] + R_inc[1, k] * normal[1] + R_inc[2, k] * normal[2]
    center = p_inc - np.sign(towards) * h_inc[k] * R_inc[:, k]
    first, second = (1, 2) if k == 0 else (0, 2) if k == 1 else (0, 1)
    e1, e2 = R_inc[:, first] * h_inc[first], R_inc[:, second] * h_inc[second]
    polygon, clipped = np.empty((8, 3)), np.empty((8, 3))
    polygon[0], polygon[1] = center + e1 + e2, center - e1 + e2
    polygon[2], polygon[3] = center - e1 - e2, center + e1 - e2
    count = 4
    for m in range(3):
        if m == axis:
            continue
        for side in (1.0, -1.0):  # keep side · R_ref[:, m] · (x − p_ref) ≤ h_ref[m]
            n = side * R_ref[:, m]
            offset = h_ref[m] + (n[0] * p_ref[0] + n[1] * p_ref[1] + n[2] * p_ref[2])
            kept = 0
            for c in range(count):
                x, y = polygon[c], polygon[(c + 1) % count]
                fx = (n[0] * x[0] + n[1] * x[1] + n[2] * x[2]) - offset
                fy = (n[0] * y[0] + n[1] * y[1] + n[2] * y[2]) - offset
                if fx <= 0.0:
                    clipped[kept] = x
                    kept += 1
                if fx * fy < 0.0:
                    clipped[kept] = x + fx / (fx - fy) * (y - x)
                    kept += 1
            polygon, clipped, count = clipped, polygon, kept
    for c in range(count):
        out[c, :3] = polygon[c]
        out[c, 3] = (normal[0] * (polygon[c, 0] - face[0]) + normal[1] * (polygon[c, 1] - face[1])
                     + normal[2] * (polygon[c, 2] - face[2]))
    return count


@scalar
def _closest_between_segments(p0, p1, q0, q1):
    """Closest points of segments p0–p1 and q0–q1, 3-tuples (:func:`~.geometry.closest_between_segments`)."""
    d1, d2, r = _sub(p1, p0), _sub(q1, q0), _sub(p0, q0)
    a, e, b, c, f = _dot(d1, d1), _dot(d2, d2), _dot(d1, d2), _dot(d1, r), _dot(d2, r)
    denom = a * e - b * b
    s = _clip((b * f - c * e) / denom) if denom > 1e-12 * a * e else 0.0
    t = _clip((b * s + f) / e)
    s = _clip((b * t - c) / a)
    return _add(p0, _times(s, d1)), _add(q0, _times(t, d2))


@njit(cache=True)
def box_box(Ra, pa, ha, Rb, pb, hb, margin, rows):
    """Contacts of box A (rotation Ra, centre pa, half extents ha) with box B, normals from B to A, written to
    ``rows`` (8, 13) as (point, normal, gap, anchor_a, anchor_b); returns their number. The separating axis of
    least overlap among A's face normals, B's, and the 9 edge cross products (A's edge i × B's edge j at 6 + 3 i + j,
    those of parallel edges left out); face axes win ties within 1e-6 of the smaller box's size. A face axis: the
    clipped incident face's corners within ``margin``; an edge axis: the closest points of the two edges."""
    d, tie = pa - pb, 1e-6 * min(ha.max(), hb.max())
    u, separations, along = np.zeros((15, 3)), np.full(15, -np.inf), np.zeros(15)
    for k in range(15):  # (an axis that separates by more than the margin ends the test)
        if k < 3:
            u[k] = Ra[:, k]
        elif k < 6:
            u[k] = Rb[:, k - 3]
        else:
            x, y = Ra[:, (k - 6) // 3], Rb[:, (k - 6) % 3]
            u[k, 0], u[k, 1], u[k, 2] = x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]
        length = np.sqrt(u[k, 0] * u[k, 0] + u[k, 1] * u[k, 1] + u[k, 2] * u[k, 2])
        if length < 1e-9:  # parallel edges: their cross product is no axis (a face axis covers them)
            continue
        u[k] /= length
        along[k] = u[k, 0] * d[0] + u[k, 1] * d[1] + u[k, 2] * d[2]
        separations[k] = abs(along[k])
        for m in range(3):
            separations[k] -= abs(u[k, 0] * Ra[0, m] + u[k, 1] * Ra[1, m] + u[k, 2] * Ra[2, m]) * ha[m]
        for m in range(3):
            separations[k] -= abs(u[k, 0] * Rb[0, m] + u[k, 1] * Rb[1, m] + u[k, 2] * Rb[2, m]) * hb[m]
        if separations[k] > margin and (k < 6 or separations[k] > separations[:6].max() + tie):
            return 0  # (the axis of least overlap will be this one or one separating more)
    face, edge = np.argmax(separations[:6]), 6 + np.argmax(separations[6:])
    best = edge if separations[edge] > separations[face] + tie else face
    n = u[best] if along[best] >= 0 else -u[best]  # from B towards A
    if separations[best] > margin:
        return 0
    if best >= 6:
        i, j = (best - 6) // 3, (best - 6) % 3
        edge_a, edge_b = pa.copy(), pb.copy()
        for m in range(3):
            if m != i:
                edge_a -= Ra[:, m] * (np.sign(Ra[0, m] * n[0] + Ra[1, m] * n[1] + Ra[2, m] * n[2]) * ha[m])
            if m != j:
                edge_b += Rb[:, m] * (np.sign(Rb[0, m] * n[0] + Rb[1, m] * n[1] + Rb[2, m] * n[2]) * hb[m])
        ends_a, ends_b = (edge_a - ha[i] * Ra[:, i], edge_a + ha[i] * Ra[:, i]), (edge_b - hb[j] * Rb[:, j],
                                                                                     edge_b + hb[j] * Rb[:, j])
        x_a, x_b = _closest_between_segments(_at(ends_a[0].reshape(1, 3), 0), _at(ends_a[1].reshape(1, 3), 0),
                                             _at(ends_b[0].reshape(1, 3), 0), _at(ends_b[1].reshape(1, 3), 0))
        x_a, x_b = np.array(x_a), np.array(x_b)
        gap = n @ (x_a - x_b)
        if gap > margin:
            return 0
        _row(rows, 0, 0.5 * (x_a + x_b), n, gap, x_a, x_b)
        return 1
    corners = np.empty((8, 4))
    if best >= 3:  # B's face towards A, A's incident face
        count = clipped_face(pb, Rb, hb, best - 3, n, pa, Ra, ha, corners)
    else:  # A's face towards B, B's incident face
        count = clipped_face(pa, Ra, ha, best, -n, pb, Rb, hb, corners)
    kept = 0
    for c in range(count):
        x, g = corners[c, :3], corners[c, 3]
        if g > margin:
            continue
        if best >= 3:
            _row(rows, kept, x - 0.5 * g * n, n, g, x, x - g * n)
        else:
            _row(rows, kept, x + 0.5 * g * n, n, g, x + g * n, x)
        kept += 1
    return kept


@njit(cache=True)
def _row(rows, k, point, normal, gap, anchor_a, anchor_b):
    rows[k, 0:3], rows[k, 3:6], rows[k, 6], rows[k, 7:10], rows[k, 10:13] = point, normal, gap, anchor_a, anchor_b
