"""Rigid transforms, rotations and quaternions (NumPy, for model building and user code).

Conventions (see docs/conventions.md):
- A rotation matrix ``R_a_b`` maps coordinates in frame b to coordinates in frame a.
- A ``Transform`` is the pose of a child frame in its parent frame: ``p_parent = R @ p_child + t``.
- Quaternions are ``(w, x, y, z)`` and unit.
- Spatial vectors are ``[angular; linear]`` (Featherstone).
"""
from __future__ import annotations

import numpy as np

from .errors import ModelError


def skew(v):
    """The 3×3 matrix ``[v]×`` with ``[v]× w = v × w``."""
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def rotation_about(axis, angle):
    """Rotation matrix of ``angle`` [rad] about the unit ``axis`` (Rodrigues' formula)."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    K = skew(a)
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * K @ K


def quat_to_rotation(quat):
    """Rotation matrix of the quaternion ``(w, x, y, z)`` (normalized first)."""
    w, x, y, z = np.asarray(quat, dtype=float) / np.linalg.norm(quat)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def rotation_to_quat(R):
    """Unit quaternion ``(w, x, y, z)`` with ``w ≥ 0`` of a rotation matrix (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    trace = np.trace(R)
    candidates = np.array([trace, R[0, 0], R[1, 1], R[2, 2]])
    k = int(np.argmax(candidates))
    if k == 0:
        w = 0.5 * np.sqrt(1.0 + trace)
        q = [w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w)]
    else:
        i, j, m = {1: (0, 1, 2), 2: (1, 2, 0), 3: (2, 0, 1)}[k]
        s = 2.0 * np.sqrt(1.0 + R[i, i] - R[j, j] - R[m, m])
        v = np.zeros(3)
        v[i] = 0.25 * s
        v[j] = (R[j, i] + R[i, j]) / s
        v[m] = (R[m, i] + R[i, m]) / s
        q = [(R[m, j] - R[j, m]) / s, *v]
    q = np.asarray(q)
    return q if q[0] >= 0 else -q


def is_symbolic(value):
    """True if ``value`` (a number or array-like) holds sympy expressions that are not plain numbers."""
    try:
        np.asarray(value, dtype=float)
        return False
    except (TypeError, ValueError):
        import sympy
        arr = np.asarray(value, dtype=object).ravel()
        return any(isinstance(x, sympy.Basic) and not x.is_number for x in arr)


def _as_vector3(value, field):
    if is_symbolic(value):
        v = np.asarray(value, dtype=object)
        if v.shape != (3,):
            raise ModelError(f"{field} must have shape (3,), got shape {v.shape}: {value!r}")
        return v
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{field} must be 3 numbers, got {value!r}") from exc
    if v.shape != (3,):
        raise ModelError(f"{field} must have shape (3,), got shape {v.shape}: {value!r}")
    if not np.all(np.isfinite(v)):
        raise ModelError(f"{field} must be finite, got {v.tolist()}")
    return v


class Transform:
    """Pose of a frame in its parent frame: ``p_parent = rotation @ p_child + translation``.

    Parameters
    ----------
    rotation : (3, 3) array_like, optional
        Proper orthonormal matrix mapping child-frame coordinates to parent-frame coordinates.
    translation : (3,) array_like, optional
        Origin of the child frame in parent coordinates [m].
    """

    __slots__ = ("rotation", "translation")

    def __init__(self, rotation=None, translation=(0.0, 0.0, 0.0)):
        R = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
        if R.shape != (3, 3):
            raise ModelError(f"Transform rotation must have shape (3, 3), got {R.shape}")
        if not np.all(np.isfinite(R)):
            raise ModelError(f"Transform rotation must be finite, got {R.tolist()}")
        if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
            raise ModelError(f"Transform rotation must be a proper rotation matrix (RᵀR = I, det R = 1), got {R.tolist()}")
        self.rotation = R
        self.translation = _as_vector3(translation, "Transform translation")

    @classmethod
    def from_matrix(cls, T):
        """From a 4×4 homogeneous transform."""
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4):
            raise ModelError(f"homogeneous transform must have shape (4, 4), got {T.shape}")
        return cls(T[:3, :3], T[:3, 3])

    @classmethod
    def from_rpy(cls, rpy=(0.0, 0.0, 0.0), translation=(0.0, 0.0, 0.0)):
        """From roll-pitch-yaw angles (URDF convention: R = Rz(yaw) Ry(pitch) Rx(roll))."""
        r, p, y = rpy
        R = rotation_about((0, 0, 1), y) @ rotation_about((0, 1, 0), p) @ rotation_about((1, 0, 0), r)
        return cls(R, translation)

    def matrix(self):
        """The 4×4 homogeneous transform."""
        T = np.eye(4)
        T[:3, :3] = self.rotation
        T[:3, 3] = self.translation
        return T

    def __matmul__(self, other):
        """Composition: ``(A @ B)`` is the pose of B's child frame in A's parent frame."""
        return Transform(self.rotation @ other.rotation, self.rotation @ other.translation + self.translation)

    def inverse(self):
        return Transform(self.rotation.T, -self.rotation.T @ self.translation)

    def apply(self, point):
        """Parent-frame coordinates of a point given in child-frame coordinates."""
        return self.rotation @ np.asarray(point, dtype=float) + self.translation

    def __repr__(self):
        return f"Transform(rotation={self.rotation.tolist()}, translation={self.translation.tolist()})"
