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

import numpy as np

from ..errors import ModelError
from ..spatial import _as_vector3

# Joint type codes shared with the compiled core (multibody.dynamics._core).
REVOLUTE, PRISMATIC, SPHERICAL, FREE, PLANAR, FIXED, CYLINDRICAL = range(7)


def _unit_axis(axis, joint_kind):
    a = _as_vector3(axis, f"{joint_kind} joint axis")
    norm = np.linalg.norm(a)
    if norm < 1e-12:
        raise ModelError(f"{joint_kind} joint axis must be a non-zero vector, got {a.tolist()}")
    return a / norm


class Joint:
    """Base of the joint types. ``name`` defaults to ``"<child body>_joint"`` when added to a model."""

    code = None
    nq = 0
    nv = 0

    def __init__(self, name=None):
        self.name = name
        self.axis = np.array([0.0, 0.0, 1.0])

    def neutral(self):
        """The joint's zero configuration (identity quaternion for rotations)."""
        return np.zeros(self.nq)

    def motion_subspace(self):
        """S (6 × nv) in child axes, ``[angular; linear]``."""
        return np.zeros((6, self.nv))

    def __repr__(self):
        extra = f"axis={self.axis.tolist()}" if self.code in (REVOLUTE, PRISMATIC, CYLINDRICAL) else ""
        name = f"name={self.name!r}" if self.name else ""
        return f"{type(self).__name__}({', '.join(x for x in (extra, name) if x)})"


class Revolute(Joint):
    """Rotation about ``axis`` (joint frame, normalized)."""

    code, nq, nv = REVOLUTE, 1, 1

    def __init__(self, axis=(0.0, 0.0, 1.0), name=None):
        super().__init__(name)
        self.axis = _unit_axis(axis, "Revolute")

    def motion_subspace(self):
        return np.concatenate([self.axis, np.zeros(3)])[:, None]


class Prismatic(Joint):
    """Translation along ``axis`` (joint frame, normalized)."""

    code, nq, nv = PRISMATIC, 1, 1

    def __init__(self, axis=(0.0, 0.0, 1.0), name=None):
        super().__init__(name)
        self.axis = _unit_axis(axis, "Prismatic")

    def motion_subspace(self):
        return np.concatenate([np.zeros(3), self.axis])[:, None]


class Cylindrical(Joint):
    """Rotation about and translation along the same ``axis``; q = (angle, displacement)."""

    code, nq, nv = CYLINDRICAL, 2, 2

    def __init__(self, axis=(0.0, 0.0, 1.0), name=None):
        super().__init__(name)
        self.axis = _unit_axis(axis, "Cylindrical")

    def motion_subspace(self):
        S = np.zeros((6, 2))
        S[:3, 0] = self.axis
        S[3:, 1] = self.axis
        return S


class Spherical(Joint):
    """Ball joint: q is a unit quaternion (w, x, y, z), v the angular velocity in child axes."""

    code, nq, nv = SPHERICAL, 4, 3

    def neutral(self):
        return np.array([1.0, 0.0, 0.0, 0.0])

    def motion_subspace(self):
        return np.vstack([np.eye(3), np.zeros((3, 3))])


class Planar(Joint):
    """Motion in the joint's xy plane: q = (x, y, θ), v = (vx, vy, ω) with (vx, vy) in child axes."""

    code, nq, nv = PLANAR, 3, 3

    def motion_subspace(self):
        S = np.zeros((6, 3))
        S[3, 0] = S[4, 1] = S[2, 2] = 1.0
        return S


class Free(Joint):
    """Floating base: q = (x, y, z, qw, qx, qy, qz), v = [ω; v_origin] in child axes."""

    code, nq, nv = FREE, 7, 6

    def neutral(self):
        return np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    def motion_subspace(self):
        return np.eye(6)


class Fixed(Joint):
    """Rigid attachment (no degrees of freedom)."""

    code, nq, nv = FIXED, 0, 0
