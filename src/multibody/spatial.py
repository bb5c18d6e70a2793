"""Rigid transforms, rotations and quaternions (NumPy, for model building and user code).

Conventions (see docs/conventions.md):
- A rotation matrix ``R_a_b`` maps coordinates in frame b to coordinates in frame a.
- A ``Transform`` is the pose of a child frame in its parent frame: ``p_parent = R @ p_child + t``.
- Quaternions are ``(w, x, y, z)`` and unit.
- Spatial vectors are ``[angular; linear]`` (Featherstone).
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .errors import ModelError

if TYPE_CHECKING:
    from collections.abc import Sequence


def cross(a, b):
    """a × b for 3-vectors, or column by column for (3, k) arrays (an order of magnitude faster than numpy.cross
    on single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def skew(v):
    """The 3×3 matrix ``[v]×`` with ``[v]× w = v × w``."""
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def real_array(value, field: str) -> np.ndarray:
    """``value`` as a float array; ModelError naming ``field`` for complex numbers (numpy would drop the
    imaginary part with only a warning) and for anything that is not numbers."""
    arr = np.asarray(value)
    if arr.dtype.kind == "c":
        raise ModelError(f"{field} must be real, got complex {_short(value)}")
    if arr.dtype.kind == "b" or _has_boolean(value):  # numpy reads (True, 0, 0) as integers
        raise ModelError(f"{field} must be numbers, got booleans in {_short(value)}")
    try:
        return arr.astype(float)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{field} must be numbers, got {_short(value)}") from exc


def _has_boolean(value) -> bool:
    """Whether a (nested) list or tuple holds a boolean (YAML's yes/no/true/false, Python's True/False)."""
    if isinstance(value, (list, tuple)):
        return any(_has_boolean(x) for x in value)
    return isinstance(value, (bool, np.bool_))


def unit(vector, field: str = "vector") -> np.ndarray:
    """``vector`` scaled to unit length, without overflow or underflow (divided by its largest component first),
    so that (1e308, 1e308, 0) gives (0.7071…, 0.7071…, 0). A vector already of unit length to rounding is kept
    bit for bit: normalizing is idempotent (a saved axis reads back unchanged). ModelError naming ``field`` for
    a zero, non-finite or complex vector."""
    v = real_array(vector, field)
    if not np.all(np.isfinite(v)):
        raise ModelError(f"{field} must be finite, got {v.tolist()}")
    largest = np.abs(v).max() if v.size else 0.0
    if largest == 0.0:
        raise ModelError(f"{field} must be a non-zero vector, got {v.tolist()}")
    with np.errstate(over="ignore"):
        square = v @ v
    if abs(square - 1.0) <= 4 * np.finfo(float).eps:
        return v
    scaled = v / largest
    return scaled / np.sqrt(scaled @ scaled)


def _short(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def rotation_about(axis: ArrayLike, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` [rad] about the unit ``axis`` (Rodrigues' formula). An exact angle (a sympy
    number such as ``sympy.pi / 2``) has its cosine and sine taken exactly, then rounded: cos(π/2) is 0.0."""
    a = unit(axis, "rotation axis")
    K = skew(a)
    c, s = _cos_sin(angle)
    return np.eye(3) + s * K + (1.0 - c) * K @ K


def _cos_sin(angle):
    """(cos, sin) of an angle [rad]: of a sympy number exactly before rounding, of a float with numpy."""
    sympy = sys.modules.get("sympy")  # an exact angle was made by sympy, so sympy is loaded if there is one
    if sympy is not None and isinstance(angle, sympy.Basic):
        return float(sympy.cos(angle)), float(sympy.sin(angle))
    return np.cos(angle), np.sin(angle)


def rotation_z_to(z):
    """The smallest rotation taking (0, 0, 1) to the unit vector ``z`` (MuJoCo's ``zaxis``; the frame of a plane
    with normal z)."""
    axis = np.cross([0.0, 0.0, 1.0], z)
    s, c = np.linalg.norm(axis), z[2]
    if s < 1e-14:
        return np.eye(3) if c > 0 else rotation_about((1.0, 0.0, 0.0), np.pi)
    return rotation_about(axis / s, np.arctan2(s, c))


def quat_to_rotation(quat: ArrayLike) -> np.ndarray:
    """Rotation matrix of the quaternion ``(w, x, y, z)`` (normalized first; ModelError for a zero, complex or
    non-finite one)."""
    quat = real_array(quat, "quaternion")
    if quat.shape != (4,):
        raise ModelError(f"quaternion must be 4 numbers (w, x, y, z), got shape {quat.shape}")
    w, x, y, z = unit(quat, "quaternion")
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def rotation_to_quat(R: ArrayLike) -> np.ndarray:
    """Unit quaternion ``(w, x, y, z)`` with ``w ≥ 0`` of a rotation matrix (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    trace = np.trace(R)
    candidates = np.array([trace, R[0, 0], R[1, 1], R[2, 2]])
    k = int(np.argmax(candidates))
    if k == 0:
        w = 0.5 * np.sqrt(1.0 + trace)
        q = np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w)])
    else:
        i, j, m = {1: (0, 1, 2), 2: (1, 2, 0), 3: (2, 0, 1)}[k]
        s = 2.0 * np.sqrt(1.0 + R[i, i] - R[j, j] - R[m, m])
        v = np.zeros(3)
        v[i] = 0.25 * s
        v[j] = (R[j, i] + R[i, j]) / s
        v[m] = (R[m, i] + R[i, m]) / s
        q = np.array([(R[m, j] - R[j, m]) / s, *v])
    return q if q[0] >= 0 else -q


def is_symbolic(value):
    """True if ``value`` (a number or array-like) holds sympy expressions that are not plain numbers."""
    try:
        if np.asarray(value).dtype.kind in "biufc":  # numbers (complex ones are refused by real_array)
            return False
        np.asarray(value, dtype=float)
        return False
    except (TypeError, ValueError):
        import sympy
        arr = np.asarray(value, dtype=object).ravel()
        return any(isinstance(x, sympy.Basic) and not x.is_number for x in arr)


def _as_vector3(value: ArrayLike, field: str) -> np.ndarray:
    if is_symbolic(value):
        v = np.asarray(value, dtype=object)
        if v.shape != (3,):
            raise ModelError(f"{field} must have shape (3,), got shape {v.shape}: {value!r}")
        return v
    try:
        v = real_array(value, field)
    except ModelError as exc:
        raise ModelError(f"{field} must be 3 real numbers, got {_short(value)}") from exc
    if v.shape != (3,):
        raise ModelError(f"{field} must have shape (3,), got shape {v.shape}: {_short(value)}")
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

    def __init__(self, rotation: ArrayLike | None = None, translation: ArrayLike = (0.0, 0.0, 0.0)) -> None:
        if rotation is None:  # the identity needs no checks (Model.add makes one per body)
            self.rotation = np.eye(3)
            self.translation = _as_vector3(translation, "Transform translation")
            return
        R = real_array(rotation, "Transform rotation")
        if R.shape != (3, 3):
            raise ModelError(f"Transform rotation must have shape (3, 3), got {R.shape}")
        if not np.all(np.isfinite(R)):
            raise ModelError(f"Transform rotation must be finite, got {R.tolist()}")
        if not np.allclose(R.T @ R, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
            raise ModelError(f"Transform rotation must be a proper rotation matrix (RᵀR = I, det R = 1), got {R.tolist()}")
        self.rotation = R
        self.translation = _as_vector3(translation, "Transform translation")

    @classmethod
    def from_matrix(cls, T: ArrayLike) -> Transform:
        """From a 4×4 homogeneous transform."""
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4):
            raise ModelError(f"homogeneous transform must have shape (4, 4), got {T.shape}")
        return cls(T[:3, :3], T[:3, 3])

    @classmethod
    def from_rpy(cls, rpy: Sequence[float] | np.ndarray = (0.0, 0.0, 0.0),
                 translation: ArrayLike = (0.0, 0.0, 0.0)) -> Transform:
        """From roll-pitch-yaw angles (URDF convention: R = Rz(yaw) Ry(pitch) Rx(roll))."""
        r, p, y = rpy
        R = rotation_about((0, 0, 1), y) @ rotation_about((0, 1, 0), p) @ rotation_about((1, 0, 0), r)
        return cls(R, translation)

    def matrix(self) -> np.ndarray:
        """The 4×4 homogeneous transform."""
        T = np.eye(4)
        T[:3, :3] = self.rotation
        T[:3, 3] = self.translation
        return T

    def __matmul__(self, other: Transform) -> Transform:
        """Composition: ``(A @ B)`` is the pose of B's child frame in A's parent frame."""
        return Transform(self.rotation @ other.rotation, self.rotation @ other.translation + self.translation)

    def inverse(self) -> Transform:
        return Transform(self.rotation.T, -self.rotation.T @ self.translation)

    def apply(self, point: ArrayLike) -> np.ndarray:
        """Parent-frame coordinates of a point given in child-frame coordinates."""
        return self.rotation @ np.asarray(point, dtype=float) + self.translation

    def __repr__(self) -> str:
        return f"Transform(rotation={self.rotation.tolist()}, translation={self.translation.tolist()})"
