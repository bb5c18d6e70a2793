"""Fixed tendons and actuators: force elements along a linear combination of joint coordinates, the second driven by
controls u (MuJoCo's ``<tendon><fixed>`` and ``<actuator>``, read from MJCF files by :mod:`multibody.io.mjcf`).

A fixed tendon's length is L = Σⱼ cⱼ qⱼ over one-dof joints, so its moment arm ∂L/∂q is the constant row r
(cⱼ at each joint's velocity entry) and a tension f along it gives Q = f r (virtual power: Kane's generalized
active force, Kane (1981), eq. 4). Its spring-damper: f = −k (L − L_hi) above L_hi, −k (L − L_lo) below L_lo,
0 between (a dead band; L_lo = L_hi for a plain spring), minus c L̇.

An actuator acts along a joint coordinate or a tendon through a gear ratio g: length l = g q (or g L), moment
arm g e_j (or g r). Its scalar force is MuJoCo's affine law (MuJoCo documentation, "Actuation model"):

    force = gain · u + b₀ + b₁ l + b₂ l̇,     gain = a₀ + a₁ l + a₂ l̇,

u the control clamped to ``ctrl_range``, force clamped to ``force_range``; Q = force · g · (moment arm). MuJoCo's
shortcuts are this law: a motor (a = (1, 0, 0), b = 0), a position servo kp (u − l) − kv l̇ (a = (kp, 0, 0),
b = (0, −kp, −kv)), a velocity servo kv (u − l̇) (a = (kv, 0, 0), b = (0, 0, −kv)).

Controls u (one per actuator, in the order the model's actuators were added, :func:`actuators`) are given to
:func:`multibody.simulate` as ``ctrl``; without it u = 0 (MuJoCo's default: servos hold l = 0). A tendon's
``limits`` are stops on L (:class:`multibody.TendonLimit`, enforced by :func:`multibody.simulate`).

Both laws are written once, in the compiled :func:`add_actuation`, over the model's tendons and actuators as
"lines" (:func:`actuation_arrays`: a parameter row and the moment arms ∂l/∂q, ∂l/∂v of each) and a control table
in time: the compiled loop's rates call it, and so do the Python forms (:func:`actuator_force`,
:func:`tendon_force`, each element's ``generalized_force``, the Python loop's force elements).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dynamics._spatial_kernels import njit_without_refcounts
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

    def line(self, model: Model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row (LINE_WIDTH,), ∂L/∂q (nq,), ∂L/∂v (nv,)): the tendon as a line of :func:`add_actuation`."""
        row = np.zeros(LINE_WIDTH)
        row[KIND], row[CONTROL], row[STIFFNESS], row[REST_LOW:REST_HIGH + 1], row[DAMPING] = (
            TENDON, -1.0, self.stiffness, self.rest, self.damping)
        return (row, *self.arms(model))

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Q (nv,) = f r, f the spring-damper tension (module docstring; :func:`add_actuation`)."""
        return _line_force(self.line(model), q, v, NO_CONTROLS)

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

    def line(self, model: Model, control: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row (LINE_WIDTH,), ∂l/∂q (nq,), ∂l/∂v (nv,)): the actuator as a line of :func:`add_actuation`, driven
        by the control of index ``control``."""
        row = np.zeros(LINE_WIDTH)
        row[KIND], row[CONTROL] = ACTUATOR, control
        row[GAIN:GAIN + 3], row[BIAS:BIAS + 3] = self.gain, self.bias
        row[U_LOW:U_HIGH + 1] = self.ctrl_range or (-np.inf, np.inf)
        row[F_LOW:F_HIGH + 1] = self.force_range or (-np.inf, np.inf)
        return (row, *self._arms(model))

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray, ctrl: float = 0.0) -> np.ndarray:
        """Q (nv,) = force · (moment arm), at control ``ctrl`` (:func:`add_actuation`)."""
        return _line_force(self.line(model), q, v, (ONE_TIME, np.full((1, 1), float(ctrl))))

    def potential_energy(self, model: Model, q: np.ndarray) -> float:
        """0: an actuator's work is counted as applied, not stored."""
        return 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "name": self.name, "joint": self.joint, "tendon": self.tendon, "gear": self.gear,
                "gain": self.gain.tolist(), "bias": self.bias.tolist(),
                "ctrl_range": None if self.ctrl_range is None else list(self.ctrl_range),
                "force_range": None if self.force_range is None else list(self.force_range)}


# The columns of a line, one row of ``lines`` (m, LINE_WIDTH) (:func:`actuation_arrays`): its kind (TENDON or
# ACTUATOR), the index of its control (an actuator's; −1 for a tendon), then a tendon's stiffness k, dead band
# (L_lo, L_hi) and damping c, or an actuator's gain (a₀, a₁, a₂), bias (b₀, b₁, b₂), control bounds and force bounds.
KIND, CONTROL, STIFFNESS, REST_LOW, REST_HIGH, DAMPING = 0, 1, 2, 3, 4, 5
GAIN, BIAS, U_LOW, U_HIGH, F_LOW, F_HIGH = 2, 5, 8, 9, 10, 11
LINE_WIDTH = 12
TENDON, ACTUATOR = 0.0, 1.0
ONE_TIME = np.zeros(1)  # the times of a table of one row: constant controls
NO_CONTROLS = (ONE_TIME, np.zeros((1, 0)))  # a control table of no controls


@njit_without_refcounts(cache=True, inline="always")
def table_interval(times, t):
    """(low, high, w): a table's value at time t is values[low] + w (values[high] − values[low]), linear between
    the rows of its increasing ``times`` (T,), held at the first row before times[0] and at the last after
    times[T − 1] (w = 0 there; a table of one row is a constant)."""
    last = times.shape[0] - 1
    if last == 0 or t <= times[0]:
        return 0, 0, 0.0
    if t >= times[last]:
        return last, last, 0.0
    low, high = 0, last  # times[low] < t < times[high]: bisect to adjacent rows
    while high - low > 1:
        middle = (low + high) // 2
        if times[middle] <= t:
            low = middle
        else:
            high = middle
    return low, high, (t - times[low]) / (times[high] - times[low])


@njit_without_refcounts(cache=True)
def add_actuation(actuation, ctrl, t, q, v, Q):
    """Q (nv,) += the generalized force of fixed tendons and actuators at (q, v) and the controls at time t [s]
    (MuJoCo's tendon part of ``qfrc_passive`` and ``qfrc_actuator``; Kane's generalized active force of a tension
    f along a line of moment arm r = ∂l/∂q̇: Q = f r).

    actuation = (lines (m, LINE_WIDTH), arm_q (m, nq), arm_v (m, nv)) (:func:`actuation_arrays`): line i has
    length l = arm_q[i] · q and rate l̇ = arm_v[i] · v. A tendon's tension is f = −k (l − clip(l, L_lo, L_hi)) − c l̇;
    an actuator's force f = clip((a₀ + a₁ l + a₂ l̇) u + b₀ + b₁ l + b₂ l̇, f_lo, f_hi), u its control clamped to
    its bounds. ctrl = (times (T,), values (T, nu)): the controls u(t), linear between rows, held beyond them
    (:func:`table_interval`; one row: constant controls)."""
    lines, arm_q, arm_v = actuation
    times, values = ctrl
    low, high, w = table_interval(times, t)
    for i in range(lines.shape[0]):
        # l = ∂l/∂q · q, l̇ = ∂l/∂v · v
        length, rate = 0.0, 0.0
        for j in range(q.shape[0]):
            length += arm_q[i, j] * q[j]
        for j in range(v.shape[0]):
            rate += arm_v[i, j] * v[j]
        if lines[i, KIND] == TENDON:  # f = −k (l − clip(l, L_lo, L_hi)) − c l̇
            rest = min(max(length, lines[i, REST_LOW]), lines[i, REST_HIGH])
            force = -lines[i, STIFFNESS] * (length - rest) - lines[i, DAMPING] * rate
        else:  # f = clip(gain(l, l̇) u + bias(l, l̇), f_lo, f_hi), u = clip(u(t), u_lo, u_hi)
            k = int(lines[i, CONTROL])
            u = values[low, k] + w * (values[high, k] - values[low, k])
            u = min(max(u, lines[i, U_LOW]), lines[i, U_HIGH])
            gain = lines[i, GAIN] + lines[i, GAIN + 1] * length + lines[i, GAIN + 2] * rate
            force = gain * u + lines[i, BIAS] + lines[i, BIAS + 1] * length + lines[i, BIAS + 2] * rate
            force = min(max(force, lines[i, F_LOW]), lines[i, F_HIGH])
        # Q += f ∂l/∂v
        for j in range(v.shape[0]):
            Q[j] += force * arm_v[i, j]


def _line_force(line, q, v, ctrl):
    """Q (nv,) of one line (row, arm_q, arm_v) at (q, v) and the control table ``ctrl`` (:func:`add_actuation`)."""
    row, arm_q, arm_v = line
    Q = np.zeros(arm_v.shape[0])
    add_actuation((row[None], arm_q[None], arm_v[None]), ctrl, 0.0, np.ascontiguousarray(q, dtype=float),
                  np.ascontiguousarray(v, dtype=float), Q)
    return Q


def actuators(model: Model) -> tuple[Actuator, ...]:
    """The model's actuators in the order of its force elements: the order of the controls u."""
    return tuple(e for e in getattr(model, "forces", ()) if isinstance(e, Actuator))


def actuation_arrays(model: Model) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int]:
    """((lines (m, LINE_WIDTH), arm_q (m, nq), arm_v (m, nv)), number of tendons): the model's fixed tendons, then
    its actuators (actuator k driven by control k), as the lines of :func:`add_actuation`. Found once per compiled
    model (``CompiledModel.derived``, dropped by any edit of the model or its elements)."""
    derived = (model._compiled or model.compile()).derived
    if "actuation" not in derived:
        tendons = [e.line(model) for e in getattr(model, "forces", ()) if isinstance(e, FixedTendon)]
        lines = tendons + [e.line(model, k) for k, e in enumerate(actuators(model))]
        m = len(lines)
        derived["actuation"] = ((np.array([line[0] for line in lines]).reshape(m, LINE_WIDTH),
                                 np.array([line[1] for line in lines]).reshape(m, model.nq),
                                 np.array([line[2] for line in lines]).reshape(m, model.nv)), len(tendons))
    return derived["actuation"]


def control_table(model: Model, ctrl: Any) -> tuple[np.ndarray, np.ndarray]:
    """``simulate``'s ``ctrl`` as the control table (times (T,), values (T, nu)) of :func:`add_actuation`: None
    (zero controls), a constant (nu,) or a :class:`~multibody.TorqueTable` of controls; ValueError naming the
    model for a wrong size (a callable has no table: it takes the Python loop)."""
    from .torques import TorqueTable
    nu = len(actuators(model))
    if ctrl is None:
        return ONE_TIME, np.zeros((1, nu))
    if isinstance(ctrl, TorqueTable):
        times, values = ctrl.table(nu, "ctrl")
        return np.array(times, dtype=float), np.array(values, dtype=float)  # (writable copies: one kernel type)
    return ONE_TIME, np.array(checked_controls(model, ctrl)[None])


def stacked_controls(model: Model, controls: Sequence[Any] | None, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """The control tables of B = ``runs`` runs, one entry of ``controls`` each (None, a constant (nu,) or a
    TorqueTable; None for all: zero), as one table (times (T,), values (B, T, nu)) on the union of their times (exact: each
    table is the same piecewise-linear u(t), :meth:`~multibody.TorqueTable.stacked`)."""
    from .torques import TorqueTable
    if controls is None:
        return ONE_TIME, np.zeros((runs, 1, len(actuators(model))))
    tables = [u if isinstance(u, TorqueTable) else TorqueTable(ONE_TIME, control_table(model, u)[1])
              for u in controls]
    return TorqueTable.stacked(tables, len(actuators(model)), "ctrl")


def tendon_force(model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Σ Q (nv,) of the model's fixed tendons' spring-dampers (MuJoCo's tendon part of ``qfrc_passive``;
    :func:`add_actuation` on the tendons' lines)."""
    (lines, arm_q, arm_v), tendons = actuation_arrays(model)
    Q = np.zeros(model.nv)
    add_actuation((lines[:tendons], arm_q[:tendons], arm_v[:tendons]), NO_CONTROLS, 0.0,
                  np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float), Q)
    return Q


def actuator_force(model: Model, q: np.ndarray, v: np.ndarray, ctrl: ArrayLike | None = None) -> np.ndarray:
    """Σ Q (nv,) of the model's actuators at controls ``ctrl`` (nu,) (None: all zero), MuJoCo's
    ``qfrc_actuator`` (:func:`add_actuation` on the actuators' lines)."""
    (lines, arm_q, arm_v), tendons = actuation_arrays(model)
    nu = lines.shape[0] - tendons
    u = np.zeros(nu) if ctrl is None else np.asarray(ctrl, dtype=float)
    if u.shape != (nu,):
        raise ValueError(f"ctrl: expected {nu} controls (one per actuator of model '{model.name}'), got shape "
                         f"{u.shape}")
    Q = np.zeros(model.nv)
    add_actuation((lines[tendons:], arm_q[tendons:], arm_v[tendons:]), (ONE_TIME, np.ascontiguousarray(u[None])),
                  0.0, np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float), Q)
    return Q


def actuation_force(model: Model, q: np.ndarray, v: np.ndarray, u: np.ndarray | None = None) -> np.ndarray:
    """Σ Q (nv,) of the model's fixed tendons and actuators at controls u (nu,) (None: zero), in one call of
    :func:`add_actuation` (u as given: checked by :func:`control_function`)."""
    actuation, tendons = actuation_arrays(model)
    nu = actuation[0].shape[0] - tendons
    values = np.zeros((1, nu)) if u is None else np.array(u, dtype=float).reshape(1, nu)
    Q = np.zeros(model.nv)
    add_actuation(actuation, (ONE_TIME, values), 0.0, np.ascontiguousarray(q, dtype=float),
                  np.ascontiguousarray(v, dtype=float), Q)
    return Q


def checked_controls(model: Model, u: Any) -> np.ndarray:
    """u as a float array (nu,); ValueError naming the model and its actuators unless it has nu finite entries."""
    nu = len(actuators(model))
    u = np.asarray(u, dtype=float)
    if u.shape != (nu,) or not np.all(np.isfinite(u)):
        raise ValueError(f"ctrl: expected {nu} finite controls (one per actuator of model '{model.name}': "
                         f"{', '.join(a.name for a in actuators(model))}), got {np.array2string(u, threshold=8)}")
    return u


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
        return checked_controls(model, u)
    if isinstance(ctrl, TorqueTable):
        if ctrl.values.shape[1] != nu:
            raise ValueError(f"ctrl: the TorqueTable's rows have {ctrl.values.shape[1]} entries, model "
                             f"'{model.name}' has {nu} actuators")
        return lambda t, q, v: ctrl(t)
    if callable(ctrl):
        return lambda t, q, v: checked(ctrl(t, q, v))
    constant = checked(ctrl)
    return lambda t, q, v: constant


def compiled_controls(ctrl: Any) -> bool:
    """Whether the compiled loop takes ``simulate``'s ``ctrl``: None, constant controls or TorqueTables (one, or one
    per run), not a Python callable (a callable's controls take the Python loop)."""
    if ctrl is None:
        return True
    from .torques import TorqueTable
    entries = ctrl if isinstance(ctrl, (list, tuple)) else [ctrl]  # (one per run, or a constant as a list)
    return not any(callable(u) and not isinstance(u, TorqueTable) for u in entries)


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
