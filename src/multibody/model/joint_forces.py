"""Force elements on one joint: a spring-damper and Coulomb friction on a revolute or prismatic joint, and the rows
(iq, iv, k, q₀, c, F_c, v_s) in which the compiled loops and the contact stepper apply them. The other force elements
(springs between bodies, tendons, actuators) are in :mod:`multibody.simulate.forces`; add any of them with
:meth:`multibody.Model.add_force`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError, checked_number
from .part import ModelPart

if TYPE_CHECKING:
    from .model import Model


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


def joint_force_rows(model):
    """(rows, others): the model's joint springs and friction as rows (iq, iv, k, q₀, c, F_c, v_s) for
    :func:`multibody.simulate.forces.add_joint_forces` (m, 7), and its other force elements (a tuple). Found once per compiled model (kept in
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
