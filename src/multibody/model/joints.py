"""Joint types: each a small unit with its configuration size nq, velocity size nv and motion subspace.

The joint connects a parent body to a child body. Its frame is placed in the parent body by the
``placement`` given to :meth:`Model.add`; at the joint's zero configuration the child body frame
coincides with the joint frame. The motion subspace ``S`` (6 × nv, ``[angular; linear]``) is
expressed in the child body frame and is constant for every type here, so the joint bias
acceleration ``Ṡ q̇`` is zero (Featherstone, RBDA §4.4).

=============  ===  ===  ==============================================================
type           nq   nv   configuration q / velocity v
=============  ===  ===  ==============================================================
Revolute        1    1   angle [rad] about ``axis`` / angular rate [rad/s]
Prismatic       1    1   displacement [m] along ``axis`` / rate [m/s]
Cylindrical     2    2   (angle about, displacement along ``axis``) / their rates
Spherical       4    3   unit quaternion (w, x, y, z) / angular velocity in child axes
Planar          3    3   (x, y, θ) in the joint's xy plane / (vx, vy, ω) in child axes
Free            7    6   (x, y, z, qw, qx, qy, qz) / [ω; v_origin] in child axes
Fixed           0    0   —
=============  ===  ===  ==============================================================
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ModelError, checked_number
from ..spatial import _as_vector3, unit
from .part import ModelPart

# Joint type codes shared with the compiled core (multibody.dynamics._core).
REVOLUTE, PRISMATIC, SPHERICAL, FREE, PLANAR, FIXED, CYLINDRICAL = range(7)


def _unit_axis(axis, joint_kind):
    """The axis scaled to unit length (:func:`~multibody.spatial.unit`: no overflow, idempotent bit for bit)."""
    a = _as_vector3(axis, f"{joint_kind} joint axis")
    if a.dtype == object:  # symbolic
        return a / np.linalg.norm(a)
    if np.abs(a).max() < 1e-12:
        raise ModelError(f"{joint_kind} joint axis must be a non-zero vector, got {a.tolist()}")
    return unit(a, f"{joint_kind} joint axis")


@dataclass(frozen=True)
class JointLimits:
    """Limits of a one-degree-of-freedom joint, as model files give them (URDF ``<limit>``, MJCF ``range``).

    lower, upper : range of the joint variable [rad or m] (−inf / inf: unbounded); effort : largest joint torque
    or force [N·m or N]; velocity : largest joint rate [rad/s or m/s]. Stored with the joint; the dynamics
    algorithms do not use them (a simulation enforces the range only when asked to).
    """

    lower: float = -np.inf
    upper: float = np.inf
    effort: float = np.inf
    velocity: float = np.inf

    def __post_init__(self) -> None:
        for field in ("lower", "upper", "effort", "velocity"):
            object.__setattr__(self, field, checked_number(getattr(self, field), f"joint limits: {field}", finite=False))
        if self.lower > self.upper:
            raise ModelError(f"joint limits: lower {self.lower:g} exceeds upper {self.upper:g}")
        if self.effort < 0 or self.velocity < 0:
            raise ModelError(f"joint limits: effort and velocity must be non-negative, got {self.effort:g}, "
                             f"{self.velocity:g}")


class Joint(ModelPart):
    """Base of the joint types. ``name`` defaults to ``"<child body>_joint"`` when added to a model.

    ``limits`` (a :class:`JointLimits`, one-dof joints only) is stored with the joint; ``None`` means unbounded.
    ``armature`` [kg·m² or kg]: rotor inertia reflected to the joint (a motor's rotor seen through its gearbox,
    as MuJoCo's and Pinocchio's ``armature``), a non-negative number for every velocity of the joint or one per
    velocity; it adds to the diagonal of the mass matrix, M_kk += armature_k, in every algorithm.
    """

    code: int | None = None
    nq = 0
    nv = 0

    def __init__(self, name: str | None = None, limits: JointLimits | None = None, armature: ArrayLike = 0.0) -> None:
        self.name = name
        self.axis = np.array([0.0, 0.0, 1.0])
        if limits is not None and not isinstance(limits, JointLimits):
            raise ModelError(f"joint {name!r}: limits must be a multibody.JointLimits, got {limits!r}")
        if limits is not None and self.nv != 1:
            raise ModelError(f"joint {name!r}: limits are supported on one-dof joints, not {type(self).__name__}")
        self.limits = limits
        self.armature = armature

    @property
    def armature(self) -> np.ndarray:
        """Reflected rotor inertia per joint velocity, an array of nv non-negative numbers."""
        return self._armature

    @armature.setter
    def armature(self, value: ArrayLike) -> None:
        try:
            values = np.broadcast_to(np.asarray(value, dtype=float), (self.nv,)).copy()
        except (TypeError, ValueError):
            raise ModelError(f"joint {self.name!r}: armature must be a number or {self.nv} numbers (one per joint "
                             f"velocity), got {value!r}") from None
        if not np.all(np.isfinite(values)) or np.any(values < 0.0):
            raise ModelError(f"joint {self.name!r}: armature must be finite and non-negative, got {value!r}")
        self._armature = values

    def neutral(self) -> np.ndarray:
        """The joint's zero configuration (identity quaternion for rotations)."""
        return np.zeros(self.nq)

    def motion_subspace(self) -> np.ndarray:
        """S (6 × nv) in child axes, ``[angular; linear]``."""
        return np.zeros((6, self.nv))

    def __repr__(self) -> str:
        extra = f"axis={self.axis.tolist()}" if self.code in (REVOLUTE, PRISMATIC, CYLINDRICAL) else ""
        name = f"name={self.name!r}" if self.name else ""
        return f"{type(self).__name__}({', '.join(x for x in (extra, name) if x)})"


class Revolute(Joint):
    """Rotation about ``axis`` (joint frame, normalized)."""

    code, nq, nv = REVOLUTE, 1, 1

    def __init__(self, axis: ArrayLike = (0.0, 0.0, 1.0), name: str | None = None, limits: JointLimits | None = None,
                 armature: ArrayLike = 0.0) -> None:
        super().__init__(name, limits, armature)
        self.axis = _unit_axis(axis, "Revolute")

    def motion_subspace(self) -> np.ndarray:
        return np.concatenate([self.axis, np.zeros(3)])[:, None]


class Prismatic(Joint):
    """Translation along ``axis`` (joint frame, normalized)."""

    code, nq, nv = PRISMATIC, 1, 1

    def __init__(self, axis: ArrayLike = (0.0, 0.0, 1.0), name: str | None = None, limits: JointLimits | None = None,
                 armature: ArrayLike = 0.0) -> None:
        super().__init__(name, limits, armature)
        self.axis = _unit_axis(axis, "Prismatic")

    def motion_subspace(self) -> np.ndarray:
        return np.concatenate([np.zeros(3), self.axis])[:, None]


class Cylindrical(Joint):
    """Rotation about and translation along the same ``axis``; q = (angle, displacement)."""

    code, nq, nv = CYLINDRICAL, 2, 2

    def __init__(self, axis: ArrayLike = (0.0, 0.0, 1.0), name: str | None = None, armature: ArrayLike = 0.0) -> None:
        super().__init__(name, armature=armature)
        self.axis = _unit_axis(axis, "Cylindrical")

    def motion_subspace(self) -> np.ndarray:
        S = np.zeros((6, 2))
        S[:3, 0] = self.axis
        S[3:, 1] = self.axis
        return S


class Spherical(Joint):
    """Ball joint: q is a unit quaternion (w, x, y, z), v the angular velocity in child axes."""

    code, nq, nv = SPHERICAL, 4, 3

    def neutral(self) -> np.ndarray:
        return np.array([1.0, 0.0, 0.0, 0.0])

    def motion_subspace(self) -> np.ndarray:
        return np.vstack([np.eye(3), np.zeros((3, 3))])


class Planar(Joint):
    """Motion in the joint's xy plane: q = (x, y, θ), v = (vx, vy, ω) with (vx, vy) in child axes."""

    code, nq, nv = PLANAR, 3, 3

    def motion_subspace(self) -> np.ndarray:
        S = np.zeros((6, 3))
        S[3, 0] = S[4, 1] = S[2, 2] = 1.0
        return S


class Free(Joint):
    """Floating base: q = (x, y, z, qw, qx, qy, qz), v = [ω; v_origin] in child axes."""

    code, nq, nv = FREE, 7, 6

    def neutral(self) -> np.ndarray:
        return np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    def motion_subspace(self) -> np.ndarray:
        return np.eye(6)


class Fixed(Joint):
    """Rigid attachment (no degrees of freedom)."""

    code, nq, nv = FIXED, 0, 0
