"""Compiled face clipping for the box–box contact test (:func:`multibody.constraints.geometry.box_box`): the
incident face of one box clipped to the sides of the other's reference face (Sutherland–Hodgman), the heavy part of
that test in Python (a polygon of up to 8 corners clipped four times)."""
from __future__ import annotations

import numpy as np
from numba import njit


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
