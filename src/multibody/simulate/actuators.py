"""Fixed tendons and actuators: force elements along a linear combination of joint coordinates, the second driven by
controls u (MuJoCo's ``<tendon><fixed>`` and ``<actuator>``, read from MJCF files by :mod:`multibody.io.mjcf`).

A fixed tendon's length is L = Σⱼ cⱼ qⱼ over one-dof joints, so its moment arm ∂L/∂q is the constant row r
(cⱼ at each joint's velocity entry) and a tension f along it gives Q = f r (virtual power: Kane's generalized
active force, Kane (1981), eq. 4). Its spring-damper: f = −k (L − L_hi) above L_hi, −k (L − L_lo) below L_lo, 0 between (a dead band;
L_lo = L_hi for a plain spring), minus c L̇.

An actuator acts along a joint coordinate or a tendon through a gear ratio g: length l = g q (or g L), moment
arm g e_j (or g r). Its scalar force is MuJoCo's affine law (MuJoCo documentation, "Actuation model"):

    force = gain · u + b₀ + b₁ l + b₂ l̇,     gain = a₀ + a₁ l + a₂ l̇,

u the control clamped to ``ctrl_range``, force clamped to ``force_range``; Q = force · g · (moment arm). MuJoCo's
shortcuts are this law: a motor (a = (1, 0, 0), b = 0), a position servo kp (u − l) − kv l̇ (a = (kp, 0, 0),
b = (0, −kp, −kv)), a velocity servo kv (u − l̇) (a = (kv, 0, 0), b = (0, 0, −kv)).

Controls u (one per actuator, in the order the model's actuators were added, :func:`actuators`) are given to
:func:`multibody.simulate` as ``ctrl``; without it u = 0 (MuJoCo's default: servos hold l = 0).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError, checked_number
from ..model.part import ModelPart

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..model import Model


def _three_terms(value: ArrayLike, label: str) -> np.ndarray:
    """(3,) the finite coefficients (c₀, c₁, c₂) of c₀ + c₁ l + c₂ l̇."""
    array = np.array(value, dtype=float, ndmin=1)
    if array.shape != (3,) or not np.all(np.isfinite(array)):
        raise ModelError(f"{label} must be 3 finite numbers, got {value!r}")
    return array


def _range(value, label) -> tuple[float, float]:
    """(low, high) floats from None (unbounded: ±inf) or a pair with low ≤ high."""
    if value is None:
        return (-np.inf, np.inf)
    low, high = (float(x) for x in value)
    if np.isnan(low) or np.isnan(high) or low > high:
        raise ModelError(f"{label}: expected (low, high) with low ≤ high, got {value!r}")
    return (low, high)


class FixedTendon(ModelPart):
    """A fixed tendon L = Σ cⱼ qⱼ over revolute and prismatic joints, with an optional spring-damper along it.

    Parameters
    ----------
    name : the tendon's name (actuators refer to it).
    joints, coefficients : the joints (or child-body names) and their coefficients cⱼ [m/rad, 1 or as the file's].
    stiffness : k ≥ 0 [N/m or N·m/rad per unit of L]; damping : c ≥ 0.
    rest : the spring's rest length L₀, or (L_lo, L_hi) for a dead band in which the spring pulls nothing.
    limits : (lower, upper) bounds of L (MJCF ``range`` when ``limited``), or None: stored with the tendon and
        enforced as unilateral stops by :func:`multibody.simulate` (``joint_limits=True``, the default, as for the
        joints' stored limits; :class:`multibody.TendonLimit`).
    """

    kind = "fixed_tendon"

    def __init__(self, name: str, joints: Sequence[str], coefficients: ArrayLike, stiffness: float = 0.0,
                 rest: float | Sequence[float] = 0.0, damping: float = 0.0,
                 limits: Sequence[float] | None = None) -> None:
        self.name = name
        self.joints = tuple(joints)
        coefficients = np.array(coefficients, dtype=float, ndmin=1)
        if coefficients.shape != (len(self.joints),) or not np.all(np.isfinite(coefficients)):
            raise ModelError(f"tendon {name!r}: expected one finite coefficient per joint ({len(self.joints)}), got "
                             f"{coefficients.tolist()}")
        self.coefficients = coefficients
        self.stiffness = checked_number(stiffness, f"tendon {name!r}: stiffness", nonnegative=True)
        self.damping = checked_number(damping, f"tendon {name!r}: damping", nonnegative=True)
        self.rest = _range((rest, rest) if np.ndim(rest) == 0 else rest, f"tendon {name!r}: rest")
        self.limits = None if limits is None else _range(
            [(-np.inf if i == 0 else np.inf) if x is None else x for i, x in enumerate(limits)],
            f"tendon {name!r}: limits")

    def check(self, model: Model) -> None:
        """Raise ModelError unless every joint is a revolute or prismatic joint of ``model``."""
        for joint in self.joints:
            model.one_dof_joint(joint, f"tendon {self.name!r}")

    def arms(self, model: Model) -> tuple[np.ndarray, np.ndarray]:
        """(∂L/∂q (nq,), ∂L/∂v (nv,)): L = (∂L/∂q) · q and L̇ = (∂L/∂v) · v."""
        dq, dv = np.zeros(model.nq), np.zeros(model.nv)
        for joint, c in zip(self.joints, self.coefficients):
            _, iq, iv = model.one_dof_joint(joint, f"tendon {self.name!r}")
            dq[iq] += c
            dv[iv] += c
        return dq, dv

    def length(self, model: Model, q: np.ndarray) -> float:
        """L = Σ cⱼ qⱼ."""
        return float(self.arms(model)[0] @ q)

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Q (nv,) = f r, f the spring-damper tension (module docstring)."""
        dq, dv = self.arms(model)
        return _tendon_tension(dq @ q, dv @ v, self.stiffness, *self.rest, self.damping) * dv

    def potential_energy(self, model: Model, q: np.ndarray) -> float:
        """½ k d², d the distance of L from the rest length or dead band [J]."""
        length = self.length(model, q)
        return 0.5 * self.stiffness * (length - np.clip(length, *self.rest)) ** 2

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "name": self.name, "joints": list(self.joints),
                "coefficients": self.coefficients.tolist(), "stiffness": self.stiffness, "rest": list(self.rest),
                "damping": self.damping,
                "limits": None if self.limits is None else [float(x) if np.isfinite(x) else None for x in self.limits]}


class Actuator(ModelPart):
    """An actuator on a revolute or prismatic joint, or on a :class:`FixedTendon` of the model (module docstring).

    Parameters
    ----------
    name : label; joint or tendon : what it drives (exactly one); gear : g (length l = g q or g L).
    gain : (a₀, a₁, a₂) of gain = a₀ + a₁ l + a₂ l̇; bias : (b₀, b₁, b₂) of the force's bias b₀ + b₁ l + b₂ l̇.
    ctrl_range : (low, high) to which the control is clamped, or None; force_range : the same for the force.
    """

    kind = "actuator"

    def __init__(self, name: str, joint: str | None = None, tendon: str | None = None, gear: float = 1.0,
                 gain: ArrayLike = (1.0, 0.0, 0.0), bias: ArrayLike = (0.0, 0.0, 0.0),
                 ctrl_range: Sequence[float] | None = None, force_range: Sequence[float] | None = None) -> None:
        if (joint is None) == (tendon is None):
            raise ModelError(f"actuator {name!r}: give a joint or a tendon (one of them), got joint={joint!r}, "
                             f"tendon={tendon!r}")
        self.name, self.joint, self.tendon = name, joint, tendon
        self.gear = checked_number(gear, f"actuator {name!r}: gear")
        self.gain = _three_terms(gain, f"actuator {name!r}: gain")
        self.bias = _three_terms(bias, f"actuator {name!r}: bias")
        self.ctrl_range = None if ctrl_range is None else _range(ctrl_range, f"actuator {name!r}: ctrl_range")
        self.force_range = None if force_range is None else _range(force_range, f"actuator {name!r}: force_range")

    def check(self, model: Model) -> None:
        """Raise ModelError unless the joint is a revolute or prismatic joint of ``model``, or the tendon is one
        of its FixedTendon force elements."""
        self._arms(model)

    def _arms(self, model):
        if self.joint is not None:
            _, iq, iv = model.one_dof_joint(self.joint, f"actuator {self.name!r}")
            dq, dv = np.zeros(model.nq), np.zeros(model.nv)
            dq[iq], dv[iv] = self.gear, self.gear
            return dq, dv
        for element in getattr(model, "forces", ()):
            if isinstance(element, FixedTendon) and element.name == self.tendon:
                dq, dv = element.arms(model)
                return self.gear * dq, self.gear * dv
        raise ModelError(f"actuator {self.name!r}: the model has no fixed tendon {self.tendon!r} (add it before the "
                         "actuator)")

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray, ctrl: float = 0.0) -> np.ndarray:
        """Q (nv,) = force · (moment arm), at control ``ctrl``."""
        dq, dv = self._arms(model)
        low, high = self.ctrl_range or (-np.inf, np.inf)
        f_low, f_high = self.force_range or (-np.inf, np.inf)
        return _actuator_force(dq @ q, dv @ v, np.clip(ctrl, low, high), self.gain, self.bias, f_low, f_high) * dv

    def potential_energy(self, model: Model, q: np.ndarray) -> float:
        """0: an actuator's work is counted as applied, not stored."""
        return 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "name": self.name, "joint": self.joint, "tendon": self.tendon, "gear": self.gear,
                "gain": self.gain.tolist(), "bias": self.bias.tolist(),
                "ctrl_range": None if self.ctrl_range is None else list(self.ctrl_range),
                "force_range": None if self.force_range is None else list(self.force_range)}


def _tendon_tension(length, rate, stiffness, low, high, damping):
    """f = −k (L − clip(L, L_lo, L_hi)) − c L̇ (elementwise)."""
    return -stiffness * (length - np.clip(length, low, high)) - damping * rate


def _actuator_force(length, rate, u, gain, bias, f_low, f_high):
    """clip((a₀ + a₁ l + a₂ l̇) u + b₀ + b₁ l + b₂ l̇, f_low, f_high) (elementwise over the last axis of gain and
    bias (…, 3))."""
    gain = gain[..., 0] + gain[..., 1] * length + gain[..., 2] * rate
    return np.clip(gain * u + bias[..., 0] + bias[..., 1] * length + bias[..., 2] * rate, f_low, f_high)


def idle_without_controls(element: Any) -> bool:
    """Whether ``element`` is a fixed tendon or actuator that applies no force at all when the controls are 0: a
    tendon without stiffness and damping, an actuator without bias whose control and force ranges hold 0 (a
    motor). The compiled loop, which applies no controls, runs models whose actuators are all idle at u = 0."""
    if isinstance(element, FixedTendon):
        return element.stiffness == 0.0 and element.damping == 0.0
    holds_zero = (lambda bounds: bounds is None or bounds[0] <= 0.0 <= bounds[1])
    return (isinstance(element, Actuator) and not np.any(element.bias) and holds_zero(element.ctrl_range)
            and holds_zero(element.force_range))


def actuators(model: Model) -> tuple[Actuator, ...]:
    """The model's actuators in the order of its force elements: the order of the controls u."""
    return tuple(e for e in getattr(model, "forces", ()) if isinstance(e, Actuator))


def actuation_rows(model: Model) -> dict[str, np.ndarray]:
    """The model's fixed tendons and actuators as arrays, found once per compiled model (``CompiledModel.derived``,
    dropped by any edit of the model or its elements): tendons' arms ``tq`` (m, nq), ``tv`` (m, nv), stiffness,
    dead band and damping ``tk``, ``tlo``, ``thi``, ``tc``; actuators' arms ``aq`` (nu, nq), ``av`` (nu, nv),
    ``gain``, ``bias`` (nu, 3), control and force bounds ``ulo``, ``uhi``, ``flo``, ``fhi`` (±inf: none)."""
    derived = (model._compiled or model.compile()).derived
    if "actuation" not in derived:
        tendons = [e for e in getattr(model, "forces", ()) if isinstance(e, FixedTendon)]
        drives = actuators(model)
        tarms = [e.arms(model) for e in tendons]
        aarms = [e._arms(model) for e in drives]
        unbounded = (-np.inf, np.inf)
        rows = {
            "tq": np.array([a[0] for a in tarms]).reshape(len(tendons), model.nq),
            "tv": np.array([a[1] for a in tarms]).reshape(len(tendons), model.nv),
            "tk": np.array([e.stiffness for e in tendons]), "tc": np.array([e.damping for e in tendons]),
            "tlo": np.array([e.rest[0] for e in tendons]), "thi": np.array([e.rest[1] for e in tendons]),
            "aq": np.array([a[0] for a in aarms]).reshape(len(drives), model.nq),
            "av": np.array([a[1] for a in aarms]).reshape(len(drives), model.nv),
            "gain": np.array([e.gain for e in drives]).reshape(len(drives), 3),
            "bias": np.array([e.bias for e in drives]).reshape(len(drives), 3)}
        for key, attribute in (("u", "ctrl_range"), ("f", "force_range")):
            bounds = np.array([getattr(e, attribute) or unbounded for e in drives]).reshape(len(drives), 2)
            rows[key + "lo"], rows[key + "hi"] = bounds[:, 0], bounds[:, 1]
        derived["actuation"] = rows
    return derived["actuation"]


def tendon_force(model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Σ Q (nv,) of the model's fixed tendons' spring-dampers (MuJoCo's tendon part of ``qfrc_passive``)."""
    r = actuation_rows(model)
    return r["tv"].T @ _tendon_tension(r["tq"] @ q, r["tv"] @ v, r["tk"], r["tlo"], r["thi"], r["tc"])


def actuator_force(model: Model, q: np.ndarray, v: np.ndarray, ctrl: ArrayLike | None = None) -> np.ndarray:
    """Σ Q (nv,) of the model's actuators at controls ``ctrl`` (nu,) (None: all zero), MuJoCo's
    ``qfrc_actuator``."""
    r = actuation_rows(model)
    nu = r["av"].shape[0]
    u = np.zeros(nu) if ctrl is None else np.asarray(ctrl, dtype=float)
    if u.shape != (nu,):
        raise ValueError(f"ctrl: expected {nu} controls (one per actuator of model '{model.name}'), got shape "
                         f"{u.shape}")
    force = _actuator_force(r["aq"] @ q, r["av"] @ v, np.clip(u, r["ulo"], r["uhi"]), r["gain"], r["bias"],
                            r["flo"], r["fhi"])
    return r["av"].T @ force


def control_function(model: Model, ctrl: Any) -> Any:
    """``simulate``'s ``ctrl`` as a function (t, q, v) -> u (nu,): from a constant (nu,), a
    :class:`~multibody.TorqueTable` of controls (rows (nu,), linear in t) or a callable (t, q, v) -> (nu,); None for
    None. ValueError naming the model when the model has no actuators or the size is not nu."""
    if ctrl is None:
        return None
    from .torques import TorqueTable
    nu = len(actuators(model))
    if not nu:
        raise ValueError(f"simulate: ctrl given, but model '{model.name}' has no actuators (multibody.Actuator, an "
                         "MJCF <actuator>)")

    def checked(u):
        u = np.asarray(u, dtype=float)
        if u.shape != (nu,) or not np.all(np.isfinite(u)):
            raise ValueError(f"ctrl: expected {nu} finite controls (one per actuator of model '{model.name}': "
                             f"{', '.join(a.name for a in actuators(model))}), got {np.array2string(u, threshold=8)}")
        return u
    if isinstance(ctrl, TorqueTable):
        if ctrl.values.shape[1] != nu:
            raise ValueError(f"ctrl: the TorqueTable's rows have {ctrl.values.shape[1]} entries, model "
                             f"'{model.name}' has {nu} actuators")
        return lambda t, q, v: ctrl(t)
    if callable(ctrl):
        return lambda t, q, v: checked(ctrl(t, q, v))
    constant = checked(ctrl)
    return lambda t, q, v: constant


def per_run_controls(ctrl: Any, runs: int) -> list[Any] | None:
    """``simulate``'s ``ctrl`` for a batch of ``runs`` as one entry per run: a (B, nu) array or a sequence of B
    tables or callables is one per run; anything else (None, a constant (nu,), one table or callable) is shared."""
    if ctrl is None:
        return None
    sequence = isinstance(ctrl, (list, tuple)) and bool(ctrl)
    if not ((sequence and all(callable(u) for u in ctrl)) or (not callable(ctrl) and np.ndim(ctrl) == 2)):
        return [ctrl] * runs
    if len(ctrl) != runs:
        raise ValueError(f"simulate: ctrl gives {len(ctrl)} runs' controls for {runs} runs")
    return list(ctrl)
