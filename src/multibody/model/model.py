"""The multibody model: a tree of bodies joined by joints, plus gravity (and, later, constraints and forces).

A :class:`Model` is plain data that validates on construction; it imports nothing above it. :meth:`Model.compile`
asks the numeric layer for the arrays the compiled core works on (:mod:`multibody.dynamics.compiled_model`); the
model keeps that compiled form until it changes. Reading files, drawing and joint-limit constraints are lent to it
the same way (:mod:`multibody._lent`).
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike

from .._lent import lent
from ..errors import ModelError
from ..spatial import Transform, _as_vector3, is_symbolic
from .body import Body
from .dh import model_from_dh
from .geometry import FRICTION_RULES, Geometry, Shape
from .joints import Joint, Revolute
from .part import PartList, part_list

_Element = TypeVar("_Element")


def _read_only(array):
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class CompiledModel:
    """Flat, constant arrays of a numeric model (the 'model' of the model/data split).

    topology : (n, 6) int64 — parent, joint type, q index, v index, joint nq, joint nv.
    params : (n, NPARAMS) float64 — the bodies' joint placements, axes, inertias, motion subspaces and armature
        (the fields of ``multibody.dynamics._layout.FIELDS``).
    gravity : (3,) float64 — gravitational acceleration in world axes [m/s²].
    packed : float64 — the three above in one buffer (they are views of it), for the single-state entry points
        of the core: each array argument of a compiled call costs ~0.1 µs to pass.
    """

    packed: np.ndarray
    topology: np.ndarray
    params: np.ndarray
    gravity: np.ndarray
    nq: int
    nv: int
    singular: str = ""  # why M(q) is singular (massless bodies moved by joints), or "": forward dynamics raises it
    flexible: Any = None  # a model with flexible beams: multibody.dynamics.flexible_tree.FlexibleTree (the Python path)
    derived: dict = field(default_factory=dict, compare=False, repr=False)  # data derived from the model once, on
    # first use (e.g. its contact pairs), dropped with the compiled model whenever the model changes


class Model:
    """A tree of rigid bodies under gravity.

    The model compiles itself on first use and keeps the compiled form until it changes. Every change drops it: the
    ``add_*`` methods, assigning ``gravity``, an attribute of a body, joint, force element or contact shape, and any
    edit of the lists ``forces``, ``constraints`` and ``geometries`` (appending, removing, replacing items or the
    list). Arrays held by the parts are read-only, so they cannot be edited in place unseen.

    Parameters
    ----------
    name : str
        A label for reports and files.
    gravity : (3,) array_like
        Gravitational acceleration in world axes [m/s²].

    Examples
    --------
    >>> import numpy as np, multibody as mb
    >>> model = mb.Model("pendulum", gravity=(0, 0, -9.81))
    >>> _ = model.add(mb.Body("rod", mass=1.0, com=(0, 0, -0.5), inertia=np.diag([0.1, 0.1, 1e-3])),
    ...               parent="world", joint=mb.Revolute(axis=(1, 0, 0)))
    >>> model.nq, model.nv
    (1, 1)
    """

    def __init__(self, name: str = "model", gravity: ArrayLike = (0.0, 0.0, -9.81)) -> None:
        self.name = str(name)
        self._gravity = _read_only(_as_vector3(gravity, f"model '{name}': gravity"))
        self.bodies: list[Body] = []
        self.joints: list[Joint] = []
        self.parents: list[int] = []  # index of each body's parent, −1 for the world
        self.placements: list[Transform] = []
        self._index: dict[str, int] = {}
        self._joint_index: dict[str, int] = {}
        self.frames: dict[str, tuple[int, Transform]] = {}  # name -> (body index, −1: world; pose in it)
        # force elements (springs, dampers: multibody.simulate.forces), loop closures, rolling and user constraints
        # (multibody.constraints.types), contact shapes (multibody.constraints.geometry.Geometry): lists whose edits
        # clear the compiled model (PartList)
        self._forces, self._constraints, self._geometries = PartList(self), PartList(self), PartList(self)
        self.filter_parent = True  # contact pairs leave out a link's shapes against its parent's (MJCF filterparent)
        self.friction_rule = "geometric"  # a contact's friction from its two shapes' (contact_coefficients)
        self.pair_friction: dict[frozenset[str], float] = {}  # {geometry names}: the friction of their contacts
        # the pose a model file starts from (MJCF's qpos0), where simulations start by default: initial_configuration
        self.reference_configuration: np.ndarray | None = None
        self._compiled: CompiledModel | None = None

    def __setstate__(self, state: dict) -> None:
        """A copied or unpickled model: its parts record it again (:class:`~multibody.model.part.ModelPart`), and
        its lists of parts are its own."""
        self.__dict__.update(state)
        for name in ("_forces", "_constraints", "_geometries"):  # its own lists (a shallow copy shared them)
            setattr(self, name, PartList(self, state[name]))
        for part in (*self.bodies, *self.joints):
            part._added_to(self)

    forces = part_list("forces", "The force elements (:meth:`add_force`); editing the list or an element recompiles "
                       "the model.")
    constraints = part_list("constraints", "The constraints (:meth:`add_constraint`); editing the list recompiles "
                            "the model.")
    geometries = part_list("geometries", "The contact shapes (:meth:`add_geometry`); editing the list or a shape "
                           "recompiles the model.")

    @property
    def gravity(self) -> np.ndarray:
        """Gravitational acceleration in world axes (3,) [m/s²], read-only: assigning a new vector recompiles the
        model (an edit in place would leave the compiled model stale, so it is refused)."""
        return self._gravity

    @gravity.setter
    def gravity(self, value: ArrayLike) -> None:
        self._gravity = _read_only(_as_vector3(value, f"model '{self.name}': gravity"))
        self._compiled = None

    # ----------------------------------------------------------------------------------------
    # Building
    # ----------------------------------------------------------------------------------------
    def add(self, body: Body, parent: str | Body | None = "world", joint: Joint | None = None,
            placement: Transform | None = None) -> Body:
        """Attach ``body`` to ``parent`` (a body name or "world") through ``joint``.

        ``placement`` (a :class:`Transform`, default identity) is the pose of the joint frame in the parent
        body frame; at the joint's zero configuration the body frame coincides with the joint frame.
        Returns the body.
        """
        if not isinstance(body, Body):
            raise ModelError(f"model '{self.name}': add() expects a multibody.Body, got {body!r}")
        if body.name in self._index:
            raise ModelError(f"model '{self.name}': duplicate body name '{body.name}'")
        if not isinstance(joint, Joint):
            raise ModelError(
                f"body '{body.name}': joint must be a multibody joint (Revolute, Prismatic, Spherical, Free, "
                f"Planar, Cylindrical, Fixed), got {joint!r}")
        parent_index = self._parent_index(parent, body.name)
        if body.ne and (self.constraints or self.geometries):
            raise ModelError(f"beam '{body.name}': constraints and contact shapes are not supported on models with "
                             "flexible beams")
        if placement is None:
            placement = Transform()
        if not isinstance(placement, Transform):
            raise ModelError(f"body '{body.name}': placement must be a multibody.Transform, got {placement!r}")
        joint_name = joint.name or f"{body.name}_joint"
        if joint_name in self._joint_index:
            raise ModelError(f"body '{body.name}': duplicate joint name '{joint_name}'")
        if self in joint.__dict__.get("_models", ()):  # O(1): the models a part was added to (ModelPart)
            raise ModelError(f"body '{body.name}': this joint object is already used by another body; create a new one")
        joint.name = joint_name
        body._added_to(self)
        joint._added_to(self)
        self._index[body.name] = len(self.bodies)
        self._joint_index[joint_name] = len(self.bodies)
        self.bodies.append(body)
        self.joints.append(joint)
        self.parents.append(parent_index)
        self.placements.append(placement)
        self._compiled = None
        return body

    def add_frame(self, name: str, body: str | int | Body, placement: Transform | None = None) -> None:
        """Name a frame fixed in ``body`` (or in the world: ``"world"``) at ``placement`` (its pose in the body
        frame). Frames can be used wherever a body name is taken (poses, Jacobians, impulses, constraints)."""
        if not isinstance(name, str) or not name:
            raise ModelError(f"model '{self.name}': frame name must be a non-empty string, got {name!r}")
        if name in self.frames or name in self._index or name == "world":
            raise ModelError(f"model '{self.name}': frame name '{name}' is already used")
        placement = Transform() if placement is None else placement
        if not isinstance(placement, Transform):
            raise ModelError(f"frame '{name}': placement must be a multibody.Transform, got {placement!r}")
        self.frames[name] = (-1 if body == "world" else self.body_index(body), placement)

    def add_constraint(self, constraint: _Element) -> _Element:
        """Add a constraint (``mb.Connect``, ``mb.Weld``, ``mb.Align``, ``mb.PointOnPlane``, ``mb.RollingDisk``,
        ``mb.RollingSphere``, ``mb.KnifeEdge``, ``mb.Holonomic``, ``mb.Nonholonomic``: a
        :class:`multibody.constraints.Constraint`); its body names must exist. Returns the constraint."""
        if not (hasattr(constraint, "evaluate") and hasattr(constraint, "check")):
            raise ModelError(f"model '{self.name}': add_constraint() expects a multibody constraint (mb.Connect, "
                             f"mb.Weld, ...), got {constraint!r}")
        if self.ne:
            raise ModelError(f"model '{self.name}': constraints are not supported on models with flexible beams")
        constraint.check(self)
        self.constraints.append(constraint)
        return constraint

    def enforce_joint_limits(self, joints: Iterable[str] | None = None) -> list[Any]:
        """Add a unilateral :class:`~multibody.JointLimit` for each joint with a finite bound in its ``limits``
        (or for the joints named in ``joints``), so that ``forward_dynamics`` and ``constraint_forces`` keep the
        joints in range too (``simulate`` does by default) and ``simulate(..., joint_limits=False)`` still does.
        Returns the constraints added."""
        JointLimit = lent("joint_limit")  # multibody.JointLimit
        names = joints if joints is not None else [  # a model's joints are named (add_body)
            cast(str, j.name) for j in self.joints
            if j.limits is not None and np.isfinite([j.limits.lower, j.limits.upper]).any()]
        return [self.add_constraint(JointLimit(name)) for name in names]

    @property
    def friction_rule(self) -> str:
        """How a contact's Coulomb friction comes from its two shapes' of equal priority: "geometric" √(μ_a μ_b)
        (the default) or "max" max(μ_a, μ_b), MuJoCo's, which models read from MJCF files take
        (:func:`~multibody.constraints.geometry.contact_coefficients`)."""
        return self._friction_rule

    @friction_rule.setter
    def friction_rule(self, rule: str) -> None:
        if rule not in FRICTION_RULES:
            raise ModelError(f"model '{self.name}': friction_rule must be one of {', '.join(FRICTION_RULES)}, got "
                             f"{rule!r}")
        self._friction_rule = rule

    def add_geometry(self, body: str, shape: Shape, friction: float = 0.5, restitution: float = 0.0,
                     placement: Transform | None = None, name: str | None = None, priority: int = 0,
                     condim: int = 3) -> Geometry:
        """Attach a contact shape (``mb.Sphere``, ``mb.Box``, ``mb.Capsule``, ``mb.Plane``) to ``body`` (or
        "world") at ``placement`` (its pose in the body frame), with Coulomb ``friction`` coefficient and
        ``restitution`` in [0, 1]; ``priority`` and ``condim`` as MuJoCo's geoms have them (1: frictionless, 3:
        sliding friction; :class:`~multibody.model.geometry.Geometry`). Returns the Geometry."""
        if self.ne:
            raise ModelError(f"model '{self.name}': contact shapes are not supported on models with flexible beams")
        if body != "world":
            self.body_index(body)
        geometry = Geometry(body, shape, friction=friction, restitution=restitution, placement=placement,
                            name=name or f"{body}_geom{len(self.geometries)}", priority=priority, condim=condim)
        self.geometries.append(geometry)
        return geometry

    def add_force(self, element: _Element) -> _Element:
        """Add a force element (:class:`multibody.Spring`, :class:`multibody.JointSpring`); it acts in every
        simulation and its elastic energy counts in the trajectory's energy. Returns the element."""
        if not (hasattr(element, "generalized_force") and hasattr(element, "check")):
            raise ModelError(f"model '{self.name}': add_force() expects a force element such as multibody.Spring, "
                             f"got {element!r}")
        element.check(self)
        self.forces.append(element)
        return element

    def add_rotor(self, gyrostat: Any, name: str, mass: float, transverse_inertia: float,
                  position: ArrayLike = (0.0, 0.0, 0.0)) -> Body:
        """Add the rotor of ``gyrostat`` (a :class:`multibody.Gyrostat` on a body of this model) as a body ``name``
        on a revolute joint about its axis (free spin, T. R. Kane, "A new method for formulating equations of
        motion", eq. 13): mass [kg], transverse moment of inertia about its centre [kg·m²] (≥ J/2), centre at
        ``position`` in carrier coordinates [m]. The carrier body must then hold the carrier's inertia only.
        Returns the body."""
        c = np.asarray(gyrostat.axis)
        # the rotor's central inertia: J along its axis c, the transverse moment across it
        inertia = gyrostat.polar_inertia * np.outer(c, c) + transverse_inertia * (np.eye(3) - np.outer(c, c))
        rotor = Body(name, mass=mass, com=(0.0, 0.0, 0.0), inertia=inertia)
        return self.add(rotor, parent=gyrostat.carrier, joint=Revolute(axis=c), placement=Transform(translation=position))

    def locate(self, name: str | int | Body, point: ArrayLike = (0.0, 0.0, 0.0)) -> tuple[int, np.ndarray, np.ndarray]:
        """Resolve a body or frame name and a point in that frame to (body index, point in body frame,
        rotation frame → body); the index is −1 for a frame fixed in the world (point and rotation in world axes)."""
        point = _as_vector3(point, f"point on '{name}'")
        if isinstance(name, str) and name in self.frames:
            index, placement = self.frames[name]
            return index, placement.apply(point), placement.rotation
        return self.body_index(name), point, np.eye(3)

    def _parent_index(self, parent, child):
        if isinstance(parent, Body):
            parent = parent.name
        if parent is None or parent == "world":
            return -1
        if parent not in self._index:
            known = ", ".join(["world", *self._index]) or "world"
            raise ModelError(
                f"body '{child}': unknown parent '{parent}' (add parents before their children; known: {known})")
        return self._index[parent]

    # ----------------------------------------------------------------------------------------
    # Sizes and lookups
    # ----------------------------------------------------------------------------------------
    @property
    def nbodies(self) -> int:
        return len(self.bodies)

    @property
    def nq(self) -> int:
        """Size of the configuration vector q: the joint coordinates, then the elastic coordinates of the beams."""
        if self._compiled is not None:  # (read on every right-hand side of a simulation: the sum cost ~10 µs at N = 20)
            return self._compiled.nq
        return sum(j.nq for j in self.joints) + self.ne

    @property
    def nv(self) -> int:
        """Size of the velocity vector v (number of degrees of freedom): joint velocities, then elastic rates."""
        if self._compiled is not None:
            return self._compiled.nv
        return sum(j.nv for j in self.joints) + self.ne

    @property
    def ne(self) -> int:
        """Number of elastic coordinates (of the :class:`~multibody.FlexibleBeam` bodies), last in q and in v."""
        return sum(b.ne for b in self.bodies)

    @property
    def symbolic(self) -> bool:
        """True if any body parameter or placement is a sympy expression."""
        return any(b.symbolic for b in self.bodies) or any(is_symbolic(pl.translation) for pl in self.placements)

    def neutral(self) -> np.ndarray:
        """The zero configuration: zero joint variables, identity quaternions, undeformed beams."""
        return np.concatenate([j.neutral() for j in self.joints] + [np.zeros(self.ne)])

    def initial_configuration(self) -> np.ndarray:
        """Where :func:`multibody.simulate` starts by default: ``reference_configuration``, the pose a model file
        gives (an MJCF file's qpos0: joints at their ``ref``, free bodies where the file puts them), or
        :meth:`neutral` when there is none — or when it no longer fits because joints were added (with a warning)."""
        q = self.reference_configuration
        if q is not None and len(q) != self.nq:
            warnings.warn(f"model '{self.name}': its reference configuration has {len(q)} coordinates, the model "
                          f"{self.nq} since joints were added: starting from neutral() instead", stacklevel=2)
        return self.neutral() if q is None or len(q) != self.nq else np.array(q, dtype=float)

    def random_configuration(self, seed: int | np.random.Generator | None = None) -> np.ndarray:
        """A random configuration: one-dof joints uniform within their limits (within ±π or ±1 m where a limit is
        missing), other coordinates uniform in [−1, 1], quaternions uniform on the unit sphere, elastic coordinates
        uniform in [−0.1, 0.1]. ``seed`` as for ``numpy.random.default_rng``."""
        rng = np.random.default_rng(seed)
        return np.concatenate([joint.random(rng) for joint in self.joints] + [rng.uniform(-0.1, 0.1, self.ne)])

    def body_index(self, name: str | int | Body) -> int:
        """Index of a body by name (or pass-through for an int index)."""
        if isinstance(name, (int, np.integer)) and 0 <= name < len(self.bodies):
            return int(name)
        if isinstance(name, Body):
            name = name.name
        try:
            return self._index[cast(str, name)]  # an int out of range, or another type, raises: caught below
        except (KeyError, TypeError):
            names = [*self._index, *self.frames]
            raise ModelError(
                f"model '{self.name}': unknown body or frame {name!r} (known: {', '.join(names) or 'none'})") from None

    def body(self, name: str | int | Body) -> Body:
        return self.bodies[self.body_index(name)]

    def joint_index(self, name: str) -> int:
        """Index (equal to its child body's index) of a joint by name."""
        try:
            return self._joint_index[name]
        except KeyError:
            raise ModelError(
                f"model '{self.name}': unknown joint {name!r} (joints: {', '.join(self._joint_index) or 'none'})"
            ) from None

    def one_dof_joint(self, name: str | int | Body, owner: str) -> tuple[Joint, int, int]:
        """(joint, q index, v index) of the revolute or prismatic joint ``name`` (joint or child-body name), for
        the elements that act on one joint coordinate (joint springs, friction, mimic, limits); ModelError naming
        ``owner``, the joint and the problem otherwise."""
        index = self._joint_index.get(name, None) if isinstance(name, str) else None
        if index is None:
            try:
                index = self.body_index(name)
            except ModelError:
                raise ModelError(f"{owner}: unknown joint {name!r} (joints: {', '.join(self._joint_index) or 'none'})") \
                    from None
        joint = self.joints[index]
        if (joint.nq, joint.nv) != (1, 1):
            raise ModelError(f"{owner}: joint '{joint.name}' is {type(joint).__name__} ({joint.nv} velocities); only "
                             "one-dof (revolute or prismatic) joints are allowed")
        return joint, sum(j.nq for j in self.joints[:index]), sum(j.nv for j in self.joints[:index])

    def q_slice(self, name: str) -> slice:
        """Slice of q belonging to a joint (by joint or child-body name)."""
        i = self._joint_index.get(name, None)
        i = self.body_index(name) if i is None else i
        start = sum(j.nq for j in self.joints[:i])
        return slice(start, start + self.joints[i].nq)

    def v_slice(self, name: str) -> slice:
        """Slice of v belonging to a joint (by joint or child-body name)."""
        i = self._joint_index.get(name, None)
        i = self.body_index(name) if i is None else i
        start = sum(j.nv for j in self.joints[:i])
        return slice(start, start + self.joints[i].nv)

    def total_mass(self) -> float:
        return float(sum(b.mass for b in self.bodies))

    def describe_q(self, index: int) -> str:
        """Human-readable name of entry ``index`` of q, e.g. "q[3] (joint 'elbow', body 'forearm')"."""
        return self._describe(index, "q", lambda j: j.nq)

    def describe_v(self, index: int) -> str:
        return self._describe(index, "v", lambda j: j.nv)

    def _describe(self, index, vector, size):
        start = 0
        for body, joint in zip(self.bodies, self.joints):
            if index < start + size(joint):
                return f"{vector}[{index}] (joint '{joint.name}', body '{body.name}')"
            start += size(joint)
        for body in self.bodies:
            if start <= index < start + body.ne:
                return f"{vector}[{index}] (elastic coordinate {index - start} of beam '{body.name}')"
            start += body.ne
        return f"{vector}[{index}]"

    # ----------------------------------------------------------------------------------------
    # Compilation to flat arrays
    # ----------------------------------------------------------------------------------------
    def compile(self) -> CompiledModel:
        """The flat numeric form used by the compiled core (:func:`multibody.dynamics.compiled_model.compile_model`),
        kept until the model changes."""
        if self._compiled is not None:
            return self._compiled
        return cast(CompiledModel, lent("compile")(self))

    def __repr__(self) -> str:
        return f"Model({self.name!r}, bodies={self.nbodies}, nq={self.nq}, nv={self.nv})"

    def _repr_html_(self) -> str:
        """Jupyter: a table of the bodies and their joints (:func:`multibody.viz.notebook.model_html`)."""
        return cast(str, lent("model_html")(self))

    # ----------------------------------------------------------------------------------------
    # Builders
    # ----------------------------------------------------------------------------------------
    @classmethod
    def chain(cls, n: int, axes: str = "xyz", length: float = 0.3, mass: float = 1.0,
              gravity: ArrayLike = (0.0, 0.0, -9.81), name: str | None = None) -> Model:
        """An n-link serial chain of revolute joints, joint k about ``axes[k % len(axes)]``.

        Each link is a uniform rod of ``length`` [m] and ``mass`` [kg] along its x axis; the next joint sits at
        its tip. With ``axes="xyz"`` the chain moves in 3D (the benchmark model).
        """
        unit = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ModelError(f"chain: number of links must be a positive integer, got {n!r}")
        if not axes or any(a not in unit for a in axes):
            raise ModelError(f"chain: axes must be a string of 'x', 'y', 'z', got {axes!r}")
        model = cls(name or f"chain{n}", gravity=gravity)
        rod_inertia = np.diag([1e-4 * mass, mass * length**2 / 12, mass * length**2 / 12])
        parent = "world"
        for k in range(n):
            body = Body(f"link{k + 1}", mass=mass, com=(length / 2, 0.0, 0.0), inertia=rod_inertia)
            placement = Transform(translation=(0.0, 0.0, 0.0) if k == 0 else (length, 0.0, 0.0))
            model.add(body, parent=parent, joint=Revolute(unit[axes[k % len(axes)]]), placement=placement)
            parent = body.name
        return model

    @classmethod
    def from_dh(cls, rows: Sequence[Mapping[str, Any]], gravity: ArrayLike = (0.0, 0.0, -9.81),
                name: str = "dh_chain") -> Model:
        """A serial chain from standard Denavit–Hartenberg rows (Zhang Dingguo, "Lagrange equations of
        multi-rigid-body systems under external impact", eq. 3.3).

        See :func:`multibody.model.dh.model_from_dh`.
        """
        return model_from_dh(cls(name, gravity=gravity), rows)

    @classmethod
    def from_urdf(cls, path_or_xml: str | os.PathLike, gravity: ArrayLike = (0.0, 0.0, -9.81),
                  floating_base: bool = False, fuse_fixed: bool = True, check_inertia: str = "semidefinite",
                  joint_limits: bool = False, collisions: bool = False) -> Model:
        """A tree from a URDF file path or XML string: links visited depth first in file order (the order of q),
        fixed joints welded into their parent body (their links become frames) unless ``fuse_fixed=False``,
        massless links as frames or massless bodies, a Free root joint with ``floating_base=True``, joint
        limits (stops in every simulation unless ``simulate(..., joint_limits=False)``; ``joint_limits=True`` here
        also adds them as constraints, which ``forward_dynamics`` sees, :meth:`enforce_joint_limits`), damping,
        friction and mimic joints read; with ``collisions=True`` the ``<collision>`` spheres, boxes and cylinders
        (as capsules) as contact shapes. See :mod:`multibody.io.urdf`."""
        model = lent("read_urdf")(path_or_xml, gravity=gravity, floating_base=floating_base, fuse_fixed=fuse_fixed,
                                check_inertia=check_inertia, collisions=collisions)
        if joint_limits:
            model.enforce_joint_limits()
        return model

    @classmethod
    def from_mjcf(cls, path_or_xml: str | os.PathLike, name: str | None = None, joint_limits: bool = False) -> Model:
        """A tree from an MJCF (MuJoCo XML) file path or XML string: bodies, joints (q is MuJoCo's qpos), inertials,
        armature, springs and dampers, gravity, connect and weld equalities, contact geoms; joint ranges are
        stored (stops in every simulation unless ``simulate(..., joint_limits=False)``) and, with
        ``joint_limits=True``, also added as constraints, which ``forward_dynamics`` sees
        (:meth:`enforce_joint_limits`). See
        :mod:`multibody.io.mjcf`."""
        model = lent("read_mjcf")(path_or_xml, name=name)
        if joint_limits:
            model.enforce_joint_limits()
        return model
