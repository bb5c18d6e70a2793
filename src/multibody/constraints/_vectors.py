"""3-vector helpers of the constraint classes (:mod:`.types`): dot product, unit vectors, the direction to a disk's
lowest rim point and orthonormal completions of a normal. Numbers or sympy expressions where a docstring says so.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..spatial import _as_vector3
from ._kinematics import cross


def _dot(a, b):
    """a · b of 3-vectors (numpy arrays or sympy matrices)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _rim_direction(n, a, sqrt):
    """(u_raw, |u_raw|): the direction from a disk's center to its lowest rim point, u = u_raw / |u_raw| with
    u_raw = −n + (n·a) a, for the plane normal n and the disk's axis a (world axes; numbers or sympy expressions,
    ``sqrt`` to match; |u_raw| = 0 when the disk lies flat)."""
    along = _dot(n, a)
    raw = [-n[i] + along * a[i] for i in range(3)]
    return raw, sqrt(_dot(raw, raw))


def _unit(vector, field):
    """``vector`` scaled to unit length; a vector already of unit length to rounding is kept bit for bit, so a
    saved (normalized) axis reads back unchanged."""
    v = _as_vector3(vector, field)
    norm = np.linalg.norm(v)
    if norm < 1e-12:
        raise ModelError(f"{field} must be a non-zero vector, got {v.tolist()}")
    return v if abs(norm - 1.0) <= 4 * np.finfo(float).eps else v / norm


def _perpendicular_pair(n):
    """Two unit vectors completing n to a right-handed orthonormal basis (t1, t2, n)."""
    t1, t2 = _perpendicular_pairs(np.reshape(n, (1, 3)))
    return t1[0], t2[0]


def _perpendicular_pairs(n):
    """:func:`_perpendicular_pair` of each row of n (k, 3): t1, t2 (k, 3), t1 along e_x × n = (0, −n_z, n_y)
    (e_y × n = (n_z, 0, −n_x) where |n_x| ≥ 0.9)."""
    n = np.asarray(n, dtype=float).T
    zero = np.zeros_like(n[0])
    t1 = np.where(np.abs(n[0]) < 0.9, np.array([zero, -n[2], n[1]]), np.array([n[2], zero, -n[0]]))
    t1 /= np.sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2])
    return t1.T, cross(n, t1).T
