"""Built-in events: a joint coordinate or velocity, or a world coordinate of a point fixed in a body, reaching a value.

Each is a plain callable g(t, q, v) (so it works wherever :func:`multibody.simulate` takes an event: the scipy and
fixed-step paths, collisions, several runs) whose value is one compiled function, :func:`event_value`, which the
compiled loop (:mod:`multibody.simulate.steppers`) also calls: a simulation whose events are all built-in (and have
no ``action``) stays in the compiled loop. An event names its joint or body; :func:`multibody.simulate` binds it to
the simulated model (:meth:`BuiltinEvent.bind` does it by hand, to call the event directly).

In the compiled loop an event is a row of :func:`event_rows` (ROW entries): its kind, the index it reads (q or v
entry, or body), the target value, the point and the world axis (point events), its direction and terminal flag.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

from ..dynamics._spatial_kernels import world_poses
from ..errors import ModelError, checked_number
from ..event import NamedEvent

if TYPE_CHECKING:
    from ..model import Model

# Row of a built-in event: kind, index (of q, v or the body), target value, point (3, body axes) [m],
# world axis (3, unit), direction, terminal (1.0 or 0.0).
KIND, INDEX, TARGET, POINT, AXIS, DIRECTION, TERMINAL, ROW = 0, 1, 2, 3, 6, 9, 10, 11
COORDINATE, VELOCITY, POINT_COORDINATE = 0, 1, 2
_AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}


@njit(cache=True)
def event_value(topology, params, row, q, v, R0, p0):
    """g(q, v) of the built-in event ``row`` (ROW,): q_i − value, v_i − value, or n · (p0_b + R0_b r) − height
    for the point r (body axes) of body b and the unit world axis n. R0 (n, 3, 3), p0 (n, 3): workspace of the
    body poses."""
    kind, i = int(row[KIND]), int(row[INDEX])
    if kind == COORDINATE:
        return q[i] - row[TARGET]
    if kind == VELOCITY:
        return v[i] - row[TARGET]
    world_poses(topology, params, q, R0, p0)
    # n · (p0_b + R0_b r) − height
    g = -row[TARGET]
    for a in range(3):
        g += row[AXIS + a] * (p0[i, a] + R0[i, a, 0] * row[POINT] + R0[i, a, 1] * row[POINT + 1]
                              + R0[i, a, 2] * row[POINT + 2])
    return g


class BuiltinEvent(NamedEvent):
    """What the built-in events share: ``name``, ``direction`` (> 0 rising crossings only, < 0 falling only,
    0 both), ``terminal`` (stop the run), no ``action``; binding to a model and the value g(t, q, v)."""

    action = None

    def __init__(self, name, direction, terminal):
        self.name = name
        self.direction = checked_number(direction, f"{type(self).__name__}: direction")
        self.terminal = bool(terminal)
        self.row = None  # (ROW,) once bound to a model
        self._model = None

    def _target(self, model):
        """(kind, index, target, point, axis) of this event on ``model``; errors name what is wrong."""
        raise NotImplementedError

    def bind(self, model: Model) -> BuiltinEvent:
        """A copy of this event evaluated on ``model`` (ModelError or ValueError if its joint or body is unknown
        there, or the axis out of range)."""
        kind, index, target, point, axis = self._target(model)
        bound = copy.copy(self)
        bound.row = np.array([kind, index, target, *point, *axis, self.direction, float(self.terminal)])
        bound._model = model
        return bound

    def __call__(self, t: float, q: ArrayLike, v: ArrayLike) -> float:
        """g(t, q, v) on the bound model (q (nq,), v (nv,))."""
        if self.row is None:
            raise ValueError(f"{self!r} is not bound to a model: pass it to multibody.simulate, or call it as "
                             f"event.bind(model)(t, q, v)")
        cm = self._model._compiled or self._model.compile()
        n = cm.topology.shape[0]
        return float(event_value(cm.topology, cm.params, self.row, np.ascontiguousarray(q, dtype=float),
                                 np.ascontiguousarray(v, dtype=float), np.empty((n, 3, 3)), np.empty((n, 3))))


class JointValue(BuiltinEvent):
    """Joint coordinate ``axis`` of ``joint`` reaching ``value`` [rad or m]: g = q_joint[axis] − value; with
    ``velocity``, its velocity: g = v_joint[axis] − value [rad/s or m/s].

    ``joint`` is a joint or child-body name; ``axis`` indexes the joint's own entries of q (or of v with
    ``velocity``): 0 for a revolute or prismatic joint, 0 … nq − 1 (nv − 1) for the others, in the order
    :meth:`multibody.Model.describe_q` (``describe_v``) names them. Default name: "elbow = 0.5",
    "elbow velocity = 0", "base[2] = 0.1".

    >>> import multibody as mb
    >>> model = mb.Model.chain(2)  # released horizontal: link 2 swings down about y
    >>> trajectory = mb.simulate(model, t_end=1.0, events=[mb.JointValue("link2", 1.0, direction=1)])
    >>> trajectory.events
    [('link2 = 1', 0.2054...)]
    """

    def __init__(self, joint: str, value: float = 0.0, *, axis: int = 0, velocity: bool = False,
                 direction: float = 0.0, terminal: bool = False, name: str | None = None) -> None:
        owner = f"JointValue({joint!r})"
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or axis < 0:
            raise ValueError(f"{owner}: axis must be a joint coordinate index >= 0, got {axis!r}")
        self.joint, self.axis, self.velocity = joint, int(axis), bool(velocity)
        self.value = checked_number(value, f"{owner}: value")
        index = "" if axis == 0 else f"[{axis}]"
        super().__init__(name or f"{joint}{index}{' velocity' if velocity else ''} = {self.value:g}", direction,
                         terminal)

    def _target(self, model):
        owner = f"JointValue({self.joint!r})"
        try:
            joint = model.joints[model.joint_index(self.joint)]
        except ModelError:
            try:  # a child body's name
                joint = model.joints[model.body_index(self.joint)]
            except ModelError:
                known = ", ".join(j.name for j in model.joints) or "none"
                raise ModelError(f"{owner}: model '{model.name}' has no joint {self.joint!r} (joints: {known})") \
                    from None
        part = model.v_slice(joint.name) if self.velocity else model.q_slice(joint.name)
        size = part.stop - part.start
        if self.axis >= size:
            what = "velocities" if self.velocity else "coordinates"
            raise ValueError(f"{owner}: axis {self.axis} is out of range: joint '{joint.name}' "
                             f"({type(joint).__name__}) has {size} {what}")
        return (VELOCITY if self.velocity else COORDINATE), part.start + self.axis, self.value, (0.0,) * 3, (0.0,) * 3

    def __repr__(self):
        return (f"JointValue({self.joint!r}, {self.value:g}" + (f", axis={self.axis}" if self.axis else "")
                + (", velocity=True" if self.velocity else "") + ")")


class PointHeight(BuiltinEvent):
    """The point ``point`` [m] (body axes) fixed in ``body`` (a body or frame name) reaching ``height`` [m] along the
    world ``axis`` ("x", "y", "z" or a direction (3,), normalized): g = n · p_world − height. The default, z, is
    the height above the ground z = 0 of the default gravity; ``direction=-1`` catches the point coming down, e.g.
    a foot touching the ground:

    >>> import multibody as mb
    >>> model = mb.Model.chain(2)
    >>> touch = mb.PointHeight("link2", (0.3, 0, 0), height=-0.25, direction=-1, terminal=True)
    >>> trajectory = mb.simulate(model, t_end=1.0, events=[touch])
    >>> trajectory.events, float(trajectory.t[-1])  # the samples end at the last output time before it
    ([('link2 height = -0.25', 0.2037...)], 0.2)

    Default name: "link2 height = -0.25" ("link2 x = …" along x, "link2 along (…) = …" along another direction).
    """

    def __init__(self, body: str, point: ArrayLike = (0.0, 0.0, 0.0), height: float = 0.0, *,
                 axis: str | ArrayLike = "z", direction: float = 0.0, terminal: bool = False,
                 name: str | None = None) -> None:
        owner = f"PointHeight({body!r})"
        point = np.asarray(point, dtype=float) if not isinstance(point, str) else np.array([np.nan])
        if point.shape != (3,) or not np.all(np.isfinite(point)):
            raise ValueError(f"{owner}: point must be 3 finite coordinates [m] in the body's axes, got {point!r}")
        if isinstance(axis, str):
            if axis not in _AXES:
                raise ValueError(f"{owner}: axis must be 'x', 'y', 'z' or a world direction (3,), got {axis!r}")
            label, direction_vector = ("height" if axis == "z" else axis), np.array(_AXES[axis])
        else:
            direction_vector = np.asarray(axis, dtype=float)
            length = np.linalg.norm(direction_vector) if direction_vector.shape == (3,) else np.nan
            if not (np.isfinite(length) and length > 0):
                raise ValueError(f"{owner}: axis must be 'x', 'y', 'z' or a nonzero world direction (3,), "
                                 f"got {axis!r}")
            direction_vector = direction_vector / length
            label = f"along ({', '.join(f'{c:g}' for c in direction_vector)})"
        self.body, self.point, self.height, self.axis = body, point, checked_number(height, f"{owner}: height"), direction_vector
        super().__init__(name or f"{body} {label} = {self.height:g}", direction, terminal)

    def _target(self, model):
        owner = f"PointHeight({self.body!r})"
        if model.ne:
            raise ModelError(f"{owner}: model '{model.name}' has flexible beams; point events take rigid models")
        try:
            index, point, _ = model.locate(self.body, self.point)
        except ModelError as exc:
            raise ModelError(f"{owner}: {exc}") from None
        if index < 0:
            raise ValueError(f"{owner}: frame {self.body!r} is fixed in the world; name a body or a frame on one")
        return POINT_COORDINATE, index, self.height, point, self.axis

    def __repr__(self):
        return f"PointHeight({self.body!r}, {tuple(float(c) for c in self.point)}, {self.height:g})"


def builtin(event) -> bool:
    """Whether ``event`` (a callable or a :class:`multibody.Event`) runs in the compiled loop: a built-in event
    without an action."""
    function = getattr(event, "function", event)
    return isinstance(function, BuiltinEvent) and getattr(event, "action", None) is None


def event_rows(events, model):
    """The rows (m, ROW) of built-in events (bare or wrapped in :class:`multibody.Event`, whose ``direction`` and
    ``terminal`` then count) on ``model``, and their names."""
    rows, names = np.zeros((len(events), ROW)), []
    for k, event in enumerate(events):
        function = getattr(event, "function", event)
        rows[k] = function.bind(model).row
        rows[k, DIRECTION] = float(getattr(event, "direction", 0.0))
        rows[k, TERMINAL] = float(bool(getattr(event, "terminal", False)))
        names.append(getattr(event, "name", None) or function.name)
    return rows, names
