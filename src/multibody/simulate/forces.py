"""Force elements: springs, dampers and joint friction that act in every simulation of the model they are added to.

Each element maps the state to generalized forces by the principle of virtual power (Kane's F_r = Σ v_r · R,
source document 000 eq. 4): a force f applied at a point P gives Q = J_Pᵀ f, with J_P the point's linear
Jacobian (3 × nv, world axes). Elements also report their elastic potential energy, so that
kinetic + gravitational + elastic energy is conserved when there is no damping.

Add them with :meth:`multibody.Model.add_force`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from ..dynamics import body_pose, jacobian
from ..errors import ModelError, checked_number
from ..gyrostat import Gyrostat
from ..model.part import ModelPart
from ..spatial import _as_vector3

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..model import Model


class Spring(ModelPart):
    """A linear spring-damper between point ``point_a`` of body ``a`` and point ``point_b`` of body ``b``.

    Tension T = k (L − L₀) + c L̇ along the line of the points, L = |p_b − p_a|; it pulls the points together
    when positive. Points are given in their body's frame [m]; a body may be "world" (point in world axes).

    Parameters
    ----------
    stiffness : k [N/m]; rest_length : L₀ [m]; damping : c [N·s/m] (a pure damper has k = 0).
    """

    kind = "spring"

    def __init__(self, a: str, point_a: ArrayLike, b: str, point_b: ArrayLike, stiffness: float,
                 rest_length: float = 0.0, damping: float = 0.0, name: str | None = None) -> None:
        self.a, self.b = a, b
        self.point_a = _as_vector3(point_a, "spring point_a")
        self.point_b = _as_vector3(point_b, "spring point_b")
        self.name = name or f"spring {a}-{b}"
        self.stiffness = checked_number(stiffness, f"{self.name}: stiffness", nonnegative=True)
        self.rest_length = checked_number(rest_length, f"{self.name}: rest_length", nonnegative=True)
        self.damping = checked_number(damping, f"{self.name}: damping", nonnegative=True)

    def check(self, model: Model) -> None:
        """Raise ModelError if a body name is unknown to ``model``."""
        for body in (self.a, self.b):
            if body != "world":
                model.body_index(body)

    def _point(self, model, q, body, point):
        """World position (3,) and linear Jacobian (3, nv) of a point fixed in ``body``."""
        if body == "world":
            return point, np.zeros((3, model.nv))
        R, p = body_pose(model, q, body)
        return p + R @ point, jacobian(model, q, body, point)[3:]

    def _geometry(self, model, q):
        pa, Ja = self._point(model, q, self.a, self.point_a)
        pb, Jb = self._point(model, q, self.b, self.point_b)
        return pb - pa, Jb - Ja

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Q (nv,) = −T (J_b − J_a)ᵀ u, u the unit vector from a to b."""
        d, J = self._geometry(model, q)
        length = np.linalg.norm(d)
        if length == 0.0:
            if self.rest_length > 0.0:
                raise ValueError(f"{self.name}: the two points coincide, so the spring direction is undefined")
            return -(self.stiffness * d + self.damping * (J @ v)) @ J
        u = d / length
        tension = self.stiffness * (length - self.rest_length) + self.damping * (u @ (J @ v))
        return -tension * (u @ J)

    def potential_energy(self, model: Model, q: np.ndarray) -> float:
        """½ k (L − L₀)² [J]."""
        d, _ = self._geometry(model, q)
        return 0.5 * self.stiffness * (np.linalg.norm(d) - self.rest_length) ** 2

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "name": self.name, "a": self.a, "point_a": self.point_a.tolist(),
                "b": self.b, "point_b": self.point_b.tolist(), "stiffness": self.stiffness,
                "rest_length": self.rest_length, "damping": self.damping}


class JointSpring(ModelPart):
    """A torsional or linear spring-damper on a revolute or prismatic joint: Q = −k (q − q₀) − c q̇.

    Parameters
    ----------
    joint : joint (or child body) name; stiffness : k [N·m/rad or N/m]; rest : q₀ [rad or m];
    damping : c [N·m·s/rad or N·s/m].
    """

    kind = "joint_spring"

    def __init__(self, joint: str, stiffness: float, rest: float = 0.0, damping: float = 0.0,
                 name: str | None = None) -> None:
        self.joint = joint
        self.name = name or f"joint spring {joint}"
        self.stiffness = checked_number(stiffness, f"{self.name}: stiffness", nonnegative=True)
        self.damping = checked_number(damping, f"{self.name}: damping", nonnegative=True)
        self.rest = checked_number(rest, f"{self.name}: rest")

    def check(self, model: Model) -> None:
        """Raise ModelError unless ``joint`` names a revolute or prismatic joint of ``model``."""
        model.one_dof_joint(self.joint, self.name)

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        Q = np.zeros(model.nv)
        iq, iv = model.q_slice(self.joint).start, model.v_slice(self.joint).start
        Q[iv] = -self.stiffness * (q[iq] - self.rest) - self.damping * v[iv]
        return Q

    def potential_energy(self, model: Model, q: np.ndarray) -> float:
        """½ k (q − q₀)² [J]."""
        return 0.5 * self.stiffness * (q[model.q_slice(self.joint).start] - self.rest) ** 2

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "name": self.name, "joint": self.joint, "stiffness": self.stiffness,
                "rest": self.rest, "damping": self.damping}


class JointFriction(ModelPart):
    """Coulomb (dry) friction on a revolute or prismatic joint, smoothed for an ODE integrator:

        Q = −F_c tanh(q̇ / v_s)

    The exact law Q = −F_c sign(q̇) (with any |Q| ≤ F_c at rest) is a set-valued, discontinuous force that an
    explicit Runge–Kutta solver cannot follow; the hyperbolic tangent replaces the jump at q̇ = 0 by a slope
    F_c / v_s. Above a few v_s the force is F_c to within 2 e^(−2 q̇/v_s) relative (0.07 % at 4 v_s). It is a
    smooth approximation: the joint is not held exactly at rest. Under a load |τ| < F_c it creeps at the rate
    q̇ = v_s artanh(τ / F_c) (about v_s τ / F_c for small loads) instead of sticking, and the smaller
    ``velocity_scale``, the stiffer the equations (solver steps shrink near q̇ = 0 roughly like v_s / |q̈|).
    For a URDF ``<dynamics friction>`` the default 1e-3 rad/s (or m/s) is a compromise; pick v_s well below the
    speeds that matter to the study. The element stores no energy; the power it dissipates is
    Q q̇ = −F_c q̇ tanh(q̇ / v_s) ≤ 0.

    Parameters
    ----------
    joint : joint (or child body) name.
    friction : F_c ≥ 0 [N·m or N].
    velocity_scale : v_s > 0 [rad/s or m/s] (default 1e-3).
    name : optional label.
    """

    kind = "joint_friction"

    def __init__(self, joint: str, friction: float, velocity_scale: float = 1e-3, name: str | None = None) -> None:
        self.joint = joint
        self.name = name or f"joint friction {joint}"
        self.friction = checked_number(friction, f"{self.name}: friction", nonnegative=True)
        scale = checked_number(velocity_scale, f"{self.name}: velocity_scale", nonnegative=True)
        if scale == 0.0:
            raise ModelError(f"{self.name}: velocity_scale must be positive (the smoothing speed), got "
                             f"{velocity_scale!r}")
        self.velocity_scale = scale

    def check(self, model: Model) -> None:
        """Raise ModelError unless ``joint`` names a revolute or prismatic joint of ``model``."""
        model.one_dof_joint(self.joint, self.name)

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Q (nv,): −F_c tanh(q̇ / v_s) at the joint's velocity entry, zero elsewhere."""
        Q = np.zeros(model.nv)
        iv = model.v_slice(self.joint).start
        Q[iv] = -self.friction * np.tanh(v[iv] / self.velocity_scale)
        return Q

    def potential_energy(self, model: Model, q: np.ndarray) -> float:
        """0: friction stores no energy."""
        return 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "name": self.name, "joint": self.joint, "friction": self.friction,
                "velocity_scale": self.velocity_scale}


@njit(cache=True, _nrt=False)
def add_joint_forces(joint_forces, q, v, tau):
    """tau += Q of the joint springs and friction given as rows (iq, iv, k, q₀, c, F_c, v_s)
    (:func:`joint_force_rows`): Q[iv] = −k (q[iq] − q₀) − c v[iv]
    − F_c tanh(v[iv]/v_s), the compiled twin of :meth:`JointSpring.generalized_force` and
    :meth:`JointFriction.generalized_force`."""
    for e in range(joint_forces.shape[0]):
        iq, iv = int(joint_forces[e, 0]), int(joint_forces[e, 1])
        force = -joint_forces[e, 2] * (q[iq] - joint_forces[e, 3]) - joint_forces[e, 4] * v[iv]
        if joint_forces[e, 5] > 0.0:
            force -= joint_forces[e, 5] * np.tanh(v[iv] / joint_forces[e, 6])
        tau[iv] += force


FORCE_TYPES = {cls.kind: cls for cls in (Spring, JointSpring, JointFriction, Gyrostat)}


def joint_force_rows(model):
    """(rows, others): the model's joint springs and friction as rows (iq, iv, k, q₀, c, F_c, v_s) for
    :func:`add_joint_forces` (m, 7), and its other force elements (a tuple). Found once per compiled model (kept in
    ``CompiledModel.derived``, which any edit of the model or of its force elements drops)."""
    derived = (model._compiled or model.compile()).derived
    if "joint_forces" not in derived:
        rows, others = [], []
        for element in getattr(model, "forces", ()):
            if isinstance(element, (JointSpring, JointFriction)):
                _, iq, iv = model.one_dof_joint(element.joint, element.name)
                rows.append((iq, iv, element.stiffness, element.rest, element.damping, 0.0, 1.0)
                            if isinstance(element, JointSpring) else
                            (iq, iv, 0.0, 0.0, 0.0, element.friction, element.velocity_scale))
            else:
                others.append(element)
        derived["joint_forces"] = (np.array(rows, dtype=float).reshape(len(rows), 7), tuple(others))
    return derived["joint_forces"]


def elements_force(model, q, v):
    """Σ Q of the model's force elements (nv,): the joint springs and friction in one compiled call
    (:func:`add_joint_forces`: a Python call per element was a tenth of a contact step of the dm_control cheetah),
    the others by their ``generalized_force``."""
    rows, others = joint_force_rows(model)
    Q = np.zeros(model.nv)
    if rows.shape[0]:
        add_joint_forces(rows, np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float), Q)
    for element in others:
        Q += element.generalized_force(model, q, v)
    return Q


def elastic_energy(model, q):
    """Σ potential energy of the model's force elements [J]."""
    return float(sum(element.potential_energy(model, q) for element in getattr(model, "forces", ())))
