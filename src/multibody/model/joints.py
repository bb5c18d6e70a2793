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

Everything about a type sits with it. Here, on its class: nq, nv, the type ``code`` the compiled model carries,
:meth:`~Joint.neutral` and :meth:`~Joint.random` configurations, the motion subspace, where its unit quaternion
lies in q (``quaternion_at``), whether q̇ = v (``rate_is_velocity``), whether its one motion is a rotation about
its axis (``rotates_about_its_axis``; :data:`JOINT_TYPES` finds the class of a code), the kind of each coordinate
(``coordinate_kinds``, ``velocity_kinds``: angle, length or quaternion entry), how it is drawn (``drawn_as``) and its
symbolic kinematics (:meth:`~Joint.symbolic_kinematics`). Its compiled half — the pose (RBDA Table 4.1), q̇ from v
and q ⊕ v dt on its manifold, the quaternion's normalization — is in :mod:`multibody.dynamics._joint_family`, one
section per type, with the one dispatch on ``code``. Callers ask the joint; they do not branch on its type.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ModelError, checked_number
from ..spatial import _as_vector3, unit
from .part import ModelPart

# Joint type codes, the compiled model's names of the types (multibody.dynamics._joint_family dispatches on them).
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
    quaternion_at: int | None = None  # where the joint's unit quaternion (w, x, y, z) starts in its q, if it has one
    axial = False  # moves about or along its ``axis``
    rotates_about_its_axis = False  # its one motion is a rotation about its axis (its axis frame's z; see the
    # compiled model's axis frames, multibody.dynamics._layout.axis_frames)
    rate_is_velocity = True  # q̇ = v (the configuration is a vector space moved along by v)
    coordinate_kinds = ""  # per entry of q: A (an angle), L (a length) or 1 (a quaternion entry)
    velocity_kinds = ""  # per entry of v: A (an angular rate) or L (a linear one)
    drawn_as = "hinge"  # hinge: the child hangs at the joint's placement; slide: the travel from placement to child
    # origin is drawn; loose: the placement is only a reference (nothing drawn, no attachment point)

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

    def random(self, rng: np.random.Generator) -> np.ndarray:
        """A random configuration drawn from ``rng``: coordinates uniform in [−1, 1] (the types override it)."""
        return rng.uniform(-1.0, 1.0, self.nq)

    def motion_subspace(self) -> np.ndarray:
        """S (6 × nv) in child axes, ``[angular; linear]``."""
        return np.zeros((6, self.nv))

    def symbolic_kinematics(self, q: list, u: list, speeds: str, axis: Any) -> tuple[Any, Any, Any, list]:
        """(R_J, t_J, S, q̇) as sympy expressions of the joint's coordinates q and speeds u: the rotation R_J (3 × 3,
        child axes → joint axes) and translation t_J (3 × 1, joint axes) of the child in the joint frame, the motion
        subspace S (6 × nv, child axes, ``[angular; linear]``, may depend on q) and the kinematic equations
        q̇ = f(q, u). ``speeds``: "qdot" (u = q̇) or "body" (u = the joint velocity v); ``axis``: the joint axis as an
        exact sympy column. ModelError for a type the symbolic path does not know."""
        raise ModelError(f"joint '{self.name}': joint type {type(self).__name__} is not supported by the symbolic "
                         "path")

    def __repr__(self) -> str:
        extra = f"axis={self.axis.tolist()}" if self.axial else ""
        name = f"name={self.name!r}" if self.name else ""
        return f"{type(self).__name__}({', '.join(x for x in (extra, name) if x)})"


def _one_dof_random(joint, rng, bound):
    """Uniform within the joint's limits, within ±``bound`` where a limit is missing."""
    limits = joint.limits
    low = max(limits.lower, -bound) if limits else -bound
    high = min(limits.upper, bound) if limits else bound
    return rng.uniform(low, max(low, high), 1)


def _quaternion_random(joint, rng):
    """Other coordinates uniform in [−1, 1] before a quaternion uniform on the unit sphere."""
    quaternion = rng.normal(size=4)
    return np.concatenate([rng.uniform(-1.0, 1.0, joint.nq - 4), quaternion / np.linalg.norm(quaternion)])


class Revolute(Joint):
    """Rotation about ``axis`` (joint frame, normalized)."""

    code, nq, nv = REVOLUTE, 1, 1
    rotates_about_its_axis = True
    axial, coordinate_kinds, velocity_kinds = True, "A", "A"

    def __init__(self, axis: ArrayLike = (0.0, 0.0, 1.0), name: str | None = None, limits: JointLimits | None = None,
                 armature: ArrayLike = 0.0) -> None:
        super().__init__(name, limits, armature)
        self.axis = _unit_axis(axis, "Revolute")

    def random(self, rng: np.random.Generator) -> np.ndarray:
        """Uniform within the limits (within ±π where one is missing)."""
        return _one_dof_random(self, rng, np.pi)

    def motion_subspace(self) -> np.ndarray:
        return np.concatenate([self.axis, np.zeros(3)])[:, None]

    def symbolic_kinematics(self, q: list, u: list, speeds: str, axis: Any) -> tuple[Any, Any, Any, list]:
        """R_J = exp([a]× θ), t_J = 0, S = [a; 0], θ̇ = u."""
        sp = _sympy()
        return _symbolic_rodrigues(axis, q[0]), sp.zeros(3, 1), sp.Matrix.vstack(axis, sp.zeros(3, 1)), list(u)


class Prismatic(Joint):
    """Translation along ``axis`` (joint frame, normalized)."""

    code, nq, nv = PRISMATIC, 1, 1
    axial, coordinate_kinds, velocity_kinds, drawn_as = True, "L", "L", "slide"

    def __init__(self, axis: ArrayLike = (0.0, 0.0, 1.0), name: str | None = None, limits: JointLimits | None = None,
                 armature: ArrayLike = 0.0) -> None:
        super().__init__(name, limits, armature)
        self.axis = _unit_axis(axis, "Prismatic")

    def random(self, rng: np.random.Generator) -> np.ndarray:
        """Uniform within the limits (within ±1 m where one is missing)."""
        return _one_dof_random(self, rng, 1.0)

    def motion_subspace(self) -> np.ndarray:
        return np.concatenate([np.zeros(3), self.axis])[:, None]

    def symbolic_kinematics(self, q: list, u: list, speeds: str, axis: Any) -> tuple[Any, Any, Any, list]:
        """R_J = 1, t_J = a d, S = [0; a], ḋ = u."""
        sp = _sympy()
        return sp.eye(3), axis * q[0], sp.Matrix.vstack(sp.zeros(3, 1), axis), list(u)


class Cylindrical(Joint):
    """Rotation about and translation along the same ``axis``; q = (angle, displacement)."""

    code, nq, nv = CYLINDRICAL, 2, 2
    axial, coordinate_kinds, velocity_kinds, drawn_as = True, "AL", "AL", "slide"

    def __init__(self, axis: ArrayLike = (0.0, 0.0, 1.0), name: str | None = None, armature: ArrayLike = 0.0) -> None:
        super().__init__(name, armature=armature)
        self.axis = _unit_axis(axis, "Cylindrical")

    def motion_subspace(self) -> np.ndarray:
        S = np.zeros((6, 2))
        S[:3, 0] = self.axis
        S[3:, 1] = self.axis
        return S

    def symbolic_kinematics(self, q: list, u: list, speeds: str, axis: Any) -> tuple[Any, Any, Any, list]:
        """R_J = exp([a]× θ), t_J = a d, S = [[a, 0]; [0, a]], (θ̇, ḋ) = u."""
        sp = _sympy()
        Z3 = sp.zeros(3, 1)
        S = sp.Matrix.vstack(sp.Matrix.hstack(axis, Z3), sp.Matrix.hstack(Z3, axis))
        return _symbolic_rodrigues(axis, q[0]), axis * q[1], S, list(u)


class Spherical(Joint):
    """Ball joint: q is a unit quaternion (w, x, y, z), v the angular velocity in child axes."""

    code, nq, nv = SPHERICAL, 4, 3
    quaternion_at, rate_is_velocity, coordinate_kinds, velocity_kinds = 0, False, "1111", "AAA"

    def neutral(self) -> np.ndarray:
        return np.array([1.0, 0.0, 0.0, 0.0])

    def random(self, rng: np.random.Generator) -> np.ndarray:
        """A quaternion uniform on the unit sphere."""
        return _quaternion_random(self, rng)

    def motion_subspace(self) -> np.ndarray:
        return np.vstack([np.eye(3), np.zeros((3, 3))])

    def symbolic_kinematics(self, q: list, u: list, speeds: str, axis: Any) -> tuple[Any, Any, Any, list]:
        """R_J = R(q), t_J = 0, S = [1; 0], q̇ = ½ q ⊗ (0, ω) (speeds "body": u = ω)."""
        sp = _sympy()
        return (_symbolic_quaternion_rotation(*q), sp.zeros(3, 1), sp.Matrix.vstack(sp.eye(3), sp.zeros(3, 3)),
                _symbolic_quaternion_rate(q, sp.Matrix(u)))


class Planar(Joint):
    """Motion in the joint's xy plane: q = (x, y, θ), v = (vx, vy, ω) with (vx, vy) in child axes."""

    code, nq, nv = PLANAR, 3, 3
    rate_is_velocity, coordinate_kinds, velocity_kinds, drawn_as = False, "LLA", "LLA", "loose"

    def motion_subspace(self) -> np.ndarray:
        S = np.zeros((6, 3))
        S[3, 0] = S[4, 1] = S[2, 2] = 1.0
        return S

    def symbolic_kinematics(self, q: list, u: list, speeds: str, axis: Any) -> tuple[Any, Any, Any, list]:
        """R_J = R_z(θ), t_J = (x, y, 0); speeds "body": S = (e_x, e_y, e_z) as above and (ẋ, ẏ) = R_z(θ)(vx, vy);
        speeds "qdot": S = [[0, 0, e_z]; R_z(θ)ᵀ diag(1, 1, 0)] and q̇ = u."""
        sp = _sympy()
        x, y, theta = q
        R = _symbolic_rodrigues(sp.Matrix([0, 0, 1]), theta)
        if speeds == "body":
            S = sp.zeros(6, 3)
            S[3, 0] = S[4, 1] = S[2, 2] = 1
            xy = R[:2, :2] * sp.Matrix(u[:2])
            return R, sp.Matrix([x, y, 0]), S, [xy[0], xy[1], u[2]]
        S = sp.Matrix.vstack(sp.Matrix([[0, 0, 0], [0, 0, 0], [0, 0, 1]]), R.T * sp.diag(1, 1, 0))
        return R, sp.Matrix([x, y, 0]), S, list(u)


class Free(Joint):
    """Floating base: q = (x, y, z, qw, qx, qy, qz), v = [ω; v_origin] in child axes."""

    code, nq, nv = FREE, 7, 6
    quaternion_at, rate_is_velocity, coordinate_kinds, velocity_kinds = 3, False, "LLL1111", "AAALLL"
    drawn_as = "loose"

    def neutral(self) -> np.ndarray:
        return np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    def random(self, rng: np.random.Generator) -> np.ndarray:
        """The position uniform in [−1, 1]³, the quaternion uniform on the unit sphere."""
        return _quaternion_random(self, rng)

    def motion_subspace(self) -> np.ndarray:
        return np.eye(6)

    def symbolic_kinematics(self, q: list, u: list, speeds: str, axis: Any) -> tuple[Any, Any, Any, list]:
        """R_J = R(q_rot), t_J = position, S = 1, position rate R v_origin, q̇_rot = ½ q_rot ⊗ (0, ω)."""
        sp = _sympy()
        R = _symbolic_quaternion_rotation(*q[3:])
        omega, v = sp.Matrix(u[:3]), sp.Matrix(u[3:])
        return R, sp.Matrix(q[:3]), sp.eye(6), [*list(R * v), *_symbolic_quaternion_rate(q[3:], omega)]


class Fixed(Joint):
    """Rigid attachment (no degrees of freedom)."""

    code, nq, nv = FIXED, 0, 0

    def symbolic_kinematics(self, q: list, u: list, speeds: str, axis: Any) -> tuple[Any, Any, Any, list]:
        sp = _sympy()
        return sp.eye(3), sp.zeros(3, 1), sp.zeros(6, 0), []


# The joint types by code: the compiled model carries the code, and the Python code that reads it asks the class.
JOINT_TYPES: dict[int, type[Joint]] = {t.code: t for t in (Revolute, Prismatic, Cylindrical, Spherical, Planar, Free,
                                                             Fixed)}


def quaternion_slices(joints: Sequence[Joint]) -> list[slice]:
    """The slices of q holding the unit quaternions of ``joints`` (a model's joints, in order)."""
    slices, start = [], 0
    for joint in joints:
        if joint.quaternion_at is not None:
            slices.append(slice(start + joint.quaternion_at, start + joint.quaternion_at + 4))
        start += joint.nq
    return slices


def quaternion_norms(joints: Sequence[Joint], q: np.ndarray) -> dict[Joint, np.ndarray]:
    """{joint: norms (q.shape[:-1])} of the quaternions in q (q (..., nq) of ``joints``), computed without
    overflow or underflow (scaled by the largest component first)."""
    norms = {}
    for joint, s in zip((j for j in joints if j.quaternion_at is not None), quaternion_slices(joints)):
        quat = np.abs(q[..., s])
        largest = quat.max(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            scaled = np.sqrt(np.sum((quat / np.asarray(largest)[..., None]) ** 2, axis=-1))
        norms[joint] = np.where(largest == 0, 0.0, largest * scaled)
    return norms


def normalized_quaternions(joints: Sequence[Joint], q: np.ndarray) -> np.ndarray:
    """A copy of q (..., nq) with every quaternion of ``joints`` scaled to unit length (by :func:`quaternion_norms`);
    q itself when there are none."""
    slices = quaternion_slices(joints)
    if not slices:
        return q
    q = np.array(q, dtype=np.float64)
    for s, norm in zip(slices, quaternion_norms(joints, q).values()):
        q[..., s] /= norm[..., None]
    return q


# Symbolic joint kinematics, in sympy (imported when first asked for: the numeric paths never need it).


def _sympy():
    import sympy
    return sympy


def _symbolic_rodrigues(axis, angle):
    """Rotation by ``angle`` about the unit ``axis`` (a sympy column): I + sin θ [a]× + (1 − cos θ)[a]×²."""
    sp = _sympy()
    K = sp.Matrix([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return sp.eye(3) + sp.sin(angle) * K + (1 - sp.cos(angle)) * K * K


def _symbolic_quaternion_rotation(w, x, y, z):
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    sp = _sympy()
    return sp.Matrix([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _symbolic_quaternion_rate(quat, omega):
    """q̇ = ½ q ⊗ (0, ω) for ω in body axes."""
    sp = _sympy()
    w, v = quat[0], sp.Matrix(quat[1:])
    cross = sp.Matrix([v[1] * omega[2] - v[2] * omega[1], v[2] * omega[0] - v[0] * omega[2],
                       v[0] * omega[1] - v[1] * omega[0]])
    return [-(v.T * omega)[0] / 2, *list((w * omega + cross) / 2)]
