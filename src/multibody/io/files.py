"""Model files: a YAML description of bodies, joints, DH tables, force elements, constraints, contact shapes, the
initial state and simulation settings (format: docs/files.md). Every error names the file, the path to the field and the
problem, e.g. ``arm.yaml: bodies[2].mass: expected a number, got 'heavy'``.

The same dictionary form describes a model inside saved trajectories (:func:`model_to_dict`,
:func:`model_from_dict`); it round-trips every number exactly.
"""
from __future__ import annotations

import difflib
import inspect
import os
import reprlib
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..constraints.geometry import SHAPE_TYPES, placement_to_dict
from ..constraints.types import CONSTRAINT_TYPES
from ..errors import ModelError
from ..model import Body, Cylindrical, Fixed, Free, JointLimits, Model, Planar, Prismatic, Revolute, Spherical
from ..model.exact import parse_number
from ..spatial import Transform, rotation_about
from ..simulate.forces import FORCE_TYPES
from .yaml_safe import join_path, yaml_load

JOINT_TYPES = {"revolute": Revolute, "continuous": Revolute, "prismatic": Prismatic, "cylindrical": Cylindrical,
               "spherical": Spherical, "planar": Planar, "free": Free, "floating": Free, "fixed": Fixed}
_AXIAL = (Revolute, Prismatic, Cylindrical)
TOP_LEVEL = ("name", "gravity", "bodies", "dh", "frames", "forces", "constraints", "geometries", "friction_rule",
             "initial", "simulation")
BODY_KEYS = ("name", "parent", "joint", "placement", "mass", "com", "inertia", "beam")
GEOMETRY_KEYS = ("body", "shape", "friction", "restitution", "placement", "name", "priority", "condim")
SIMULATION_KEYS = {"t_end": float, "t_start": float, "method": str, "rtol": float, "atol": float,
                   "max_step": float, "samples": int, "dt": float}
_REQUIRED = object()
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"  # model files shipped with the package


@dataclass
class ModelFile:
    """A model file's content: the model, the initial state and the simulation settings."""

    model: Model
    q0: np.ndarray
    v0: np.ndarray
    simulation: dict = field(default_factory=dict)
    source: str = "<dict>"


class _FileError(ModelError):
    """A model-file error already located as ``source: path: problem``."""


class _Reader:
    """Typed access to nested YAML data that reports errors as ``source: path: problem``."""

    def __init__(self, source):
        self.source = source

    def fail(self, path, problem):
        raise _FileError(f"{self.source}: {path}: {problem}" if path else f"{self.source}: {problem}")

    @contextmanager
    def at(self, path, errors=(ModelError,)):
        """Report errors of the model-building calls inside the block at ``path``."""
        try:
            yield
        except _FileError:
            raise
        except errors as exc:
            self.fail(path, str(exc))

    def mapping(self, value, path, allowed):
        if not isinstance(value, dict):
            self.fail(path, f"expected a mapping with keys {', '.join(allowed)}, got {_show(value)}")
        for key in value:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else f" (allowed: {', '.join(allowed)})"
                self.fail(join_path(path, key), f"unknown field{hint}")
        return value

    def get(self, data, key, path, kind, default=_REQUIRED):
        if key not in data:
            if default is _REQUIRED:
                self.fail(join_path(path, key), "missing required field")
            return default
        return self.convert(data[key], join_path(path, key), kind)

    def convert(self, value, path, kind):
        if kind == "string":
            if not isinstance(value, str) or not value:
                self.fail(path, f"expected a non-empty string, got {_show(value)}")
            return value
        if kind == "list":
            if not isinstance(value, list):
                self.fail(path, f"expected a list, got {_show(value)}")
            return value
        shapes = {"number": (), "vector3": (3,), "vector": (-1,), "matrix3": (3, 3)}
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                self.fail(path, f"expected a positive integer, got {_show(value)}")
            return value
        value = self.exact(value, path, kind)
        if not _numeric(value):
            self.fail(path, f"expected {_KIND_TEXT[kind]}, got {_show(value)}")
        try:
            array = np.asarray(value, dtype=float)
        except ValueError:
            self.fail(path, f"expected {_KIND_TEXT[kind]}, got {_show(value)}")
        shape = shapes[kind]
        if array.ndim != len(shape) or any(s not in (-1, n) for s, n in zip(shape, array.shape)):
            self.fail(path, f"expected {_KIND_TEXT[kind]}, got {_show(value)}")
        if not np.all(np.isfinite(array)):
            self.fail(path, f"must be finite, got {_show(value)}")
        return float(array) if kind == "number" else array

    def exact(self, value, path, kind="number"):
        """``value`` with its text entries read as exact expressions of π ("pi/2", "-pi/4", "90 deg"; sympy
        numbers, see :mod:`multibody.model.exact`); other entries unchanged."""
        if isinstance(value, list):
            return [self.exact(x, path, kind) for x in value]
        if not isinstance(value, str):
            return value
        try:
            return parse_number(value)
        except ValueError as exc:
            self.fail(path, f"expected {_KIND_TEXT[kind]}, got {_show(value)} (text must be an expression of pi "
                            f"such as pi/2, -3*pi/4 or 90 deg: {exc})")


_KIND_TEXT = {"number": "a number", "vector3": "a list of 3 numbers", "vector": "a list of numbers",
              "matrix3": "a 3×3 list of lists of numbers"}


def _numeric(value):
    """True for a number (exact ones too) or (nested) list of numbers; booleans and strings are not numbers."""
    if isinstance(value, list):
        return all(_numeric(x) for x in value)
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or hasattr(value, "free_symbols")


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict, _REPR.maxstring, _REPR.maxother = 3, 6, 6, 50, 50


def _show(value):
    """A short repr of a file's value: bounded in length and in the work it takes (values may be huge, or
    share sub-lists through YAML aliases)."""
    text = _REPR.repr(value)
    return text if len(text) < 60 else text[:57] + "..."


# ----------------------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------------------
def _placement(reader, data, path):
    """A Transform from {xyz, rpy | rotation | quaternion | axis_angle}."""
    if data is None:
        return Transform()
    reader.mapping(data, path, ("xyz", "rpy", "rotation", "quaternion", "axis_angle"))
    orientation = [key for key in ("rpy", "rotation", "quaternion", "axis_angle") if key in data]
    if len(orientation) > 1:
        reader.fail(path, f"give one orientation, not {' and '.join(orientation)}")
    xyz = reader.get(data, "xyz", path, "vector3", np.zeros(3))
    with reader.at(path):
        if "rpy" in data:
            reader.get(data, "rpy", path, "vector3")
            return Transform.from_rpy(reader.exact(data["rpy"], join_path(path, "rpy")), xyz)  # pi/2 exactly
        if "rotation" in data:
            return Transform(reader.get(data, "rotation", path, "matrix3"), xyz)
        if "quaternion" in data:
            from ..spatial import quat_to_rotation
            quat = reader.get(data, "quaternion", path, "vector")
            if quat.shape != (4,) or not np.any(quat):
                reader.fail(join_path(path, "quaternion"), f"expected 4 numbers (w, x, y, z), not all zero, got {quat.tolist()}")
            return Transform(quat_to_rotation(quat), xyz)  # normalizes, without overflow
        if "axis_angle" in data:
            aa = reader.get(data, "axis_angle", path, "vector")
            if aa.shape != (4,):
                reader.fail(join_path(path, "axis_angle"), f"expected 4 numbers (axis x, y, z, angle [rad]), got {aa.tolist()}")
            return Transform(rotation_about(aa[:3], reader.exact(data["axis_angle"][3], path)), xyz)
    return Transform(translation=xyz)


def _inertia(reader, value, path):
    if isinstance(value, dict):
        reader.mapping(value, path, ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"))
        i = {k: reader.get(value, k, path, "number", 0.0 if k in ("ixy", "ixz", "iyz") else _REQUIRED)
             for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        return np.array([[i["ixx"], i["ixy"], i["ixz"]], [i["ixy"], i["iyy"], i["iyz"]], [i["ixz"], i["iyz"], i["izz"]]])
    if isinstance(value, list) and len(value) == 3 and not any(isinstance(x, list) for x in value):
        return np.diag(reader.convert(value, path, "vector3"))
    return reader.convert(value, path, "matrix3")


def _joint(reader, value, path):
    if isinstance(value, str):
        value = {"type": value}
    reader.mapping(value, path, ("type", "axis", "name", "armature", "limits"))
    kind = reader.get(value, "type", path, "string")
    if kind not in JOINT_TYPES:
        reader.fail(join_path(path, "type"), f"unknown joint type '{kind}' (known: {', '.join(JOINT_TYPES)})")
    cls = JOINT_TYPES[kind]
    name = reader.get(value, "name", path, "string", None)
    if cls in _AXIAL:
        with reader.at(join_path(path, "axis")):
            joint = cls(reader.get(value, "axis", path, "vector3", (0.0, 0.0, 1.0)), name=name)
    elif "axis" in value:
        reader.fail(join_path(path, "axis"), f"a {kind} joint has no axis")
    else:
        joint = cls(name=name)
    if "armature" in value:
        kind = "vector" if isinstance(value["armature"], list) else "number"
        armature = reader.get(value, "armature", path, kind)
        with reader.at(join_path(path, "armature")):
            joint.armature = armature
    if "limits" in value:
        joint.limits = _joint_limits(reader, joint, value["limits"], join_path(path, "limits"))
    return joint


LIMIT_KEYS = (("lower", -np.inf), ("upper", np.inf), ("effort", np.inf), ("velocity", np.inf))


def _joint_limits(reader, joint, value, path):
    """A joint's stored limits (``Joint.limits``) from {lower, upper, effort, velocity} (null or left out: open)."""
    reader.mapping(value, path, [key for key, _ in LIMIT_KEYS])
    if joint.nv != 1:
        reader.fail(path, f"limits are supported on one-dof joints, not {type(joint).__name__}")
    bounds = {key: default if value.get(key) is None else reader.get(value, key, path, "number")
              for key, default in LIMIT_KEYS}
    with reader.at(path):
        return JointLimits(**bounds)


def _limits_to_dict(limits):
    return {key: float(getattr(limits, key)) for key, _ in LIMIT_KEYS if np.isfinite(getattr(limits, key))}


def _add_body(reader, model, data, path):
    reader.mapping(data, path, BODY_KEYS)
    name = reader.get(data, "name", path, "string")
    parent = reader.get(data, "parent", path, "string", "world")
    joint = _joint(reader, data["joint"], join_path(path, "joint")) if "joint" in data else reader.get(data, "joint", path, "string")
    placement = _placement(reader, data.get("placement"), join_path(path, "placement"))
    if "beam" in data:
        body = _beam(reader, name, data, path)
    else:
        mass = reader.get(data, "mass", path, "number")
        com = reader.get(data, "com", path, "vector3", np.zeros(3))
        inertia = (_inertia(reader, data["inertia"], join_path(path, "inertia")) if "inertia" in data
                   else reader.get(data, "inertia", path, "matrix3"))
        with reader.at(path):
            body = Body(name, mass=mass, com=com, inertia=inertia)
    with reader.at(join_path(path, "parent") if parent not in model._index and parent != "world" else path):
        model.add(body, parent=parent, joint=joint, placement=placement)


def _beam(reader, name, data, path):
    """A :class:`~multibody.FlexibleBeam` from a body entry's ``beam`` mapping (its keyword arguments); the beam
    brings its own mass, so the entry has no mass, com or inertia."""
    from ..flexible import FlexibleBeam
    rigid = [key for key in ("mass", "com", "inertia") if key in data]
    if rigid:
        reader.fail(join_path(path, rigid[0]), "a beam's mass comes from its mass_per_length: give no mass, com or inertia")
    beam_path = join_path(path, "beam")
    if not isinstance(data["beam"], dict):
        reader.fail(beam_path, f"expected a mapping of the beam's data (length, mass_per_length, EA, EIv, ...), "
                               f"got {_show(data['beam'])}")
    beam = {**data["beam"], "name": name}
    for key in ("length", "mass_per_length", "EA", "EIv", "EIw", "root", "polar_inertia"):
        if key in beam:
            beam[key] = reader.get(beam, key, beam_path, "number")
    return _construct(reader, FlexibleBeam, beam, beam_path, skip=())


def _construct(reader, cls, data, path, skip=("type",)):
    """cls(**data) with unknown and missing keyword arguments reported by field path."""
    parameters = inspect.signature(cls).parameters
    reader.mapping(data, path, tuple(skip) + tuple(parameters))
    missing = [name for name, p in parameters.items() if p.default is inspect.Parameter.empty and name not in data]
    if missing:
        reader.fail(join_path(path, missing[0]), "missing required field")
    with reader.at(path, (ModelError, ValueError, TypeError)):
        return cls(**{key: value for key, value in data.items() if key not in skip})


def _typed(reader, data, path, types, what):
    """The class named by ``data["type"]`` in ``types`` (a registry of model-file types)."""
    if not isinstance(data, dict):
        reader.fail(path, f"expected a mapping with a type, got {_show(data)}")
    kind = reader.get(data, "type", path, "string")
    if kind not in types:
        reader.fail(join_path(path, "type"), f"unknown {what} '{kind}' (known: {', '.join(types)})")
    return types[kind]


def _constraint(reader, data, path):
    """A constraint from its entry; a Weld's ``relative`` pose is a placement."""
    cls = _typed(reader, data, path, CONSTRAINT_TYPES, "constraint type")
    if "relative" in data:
        data = {**data, "relative": _placement(reader, data["relative"], join_path(path, "relative"))}
    return _construct(reader, cls, data, path)


def _add_geometry(reader, model, data, path):
    """``model.add_geometry`` from an entry {body, shape, friction, restitution, placement, name}."""
    reader.mapping(data, path, GEOMETRY_KEYS)
    body = reader.get(data, "body", path, "string")
    if "shape" not in data:
        reader.fail(join_path(path, "shape"), "missing required field")
    shape_data = {"type": data["shape"]} if isinstance(data["shape"], str) else data["shape"]
    shape_path = join_path(path, "shape")
    shape = _construct(reader, _typed(reader, shape_data, shape_path, SHAPE_TYPES, "shape"), shape_data, shape_path)
    options = {key: reader.get(data, key, path, "number") for key in ("friction", "restitution") if key in data}
    options.update({key: reader.get(data, key, path, "int") for key in ("priority", "condim") if key in data})
    name = reader.get(data, "name", path, "string", None)
    placement = _placement(reader, data.get("placement"), join_path(path, "placement"))
    with reader.at(path):
        model.add_geometry(body, shape, placement=placement, name=name, **options)


def model_from_dict(data, source="<dict>"):
    """Build a :class:`Model` from the dictionary form of a model file (initial state and settings ignored)."""
    reader = _Reader(source)
    reader.mapping(data, "", TOP_LEVEL)
    name = reader.get(data, "name", "", "string", Path(source).stem if source != "<dict>" else "model")
    gravity = reader.get(data, "gravity", "", "vector3", (0.0, 0.0, -9.81))
    if "bodies" not in data and "dh" not in data:
        reader.fail("bodies", "missing required field (give bodies, a dh table, or both)")
    if "dh" in data:
        rows = reader.get(data, "dh", "", "list")
        with reader.at("dh"):
            model = Model.from_dh(rows, gravity=gravity, name=name)
    else:
        model = Model(name, gravity=gravity)
    for i, body in enumerate(reader.get(data, "bodies", "", "list", [])):
        _add_body(reader, model, body, f"bodies[{i}]")
    for i, frame in enumerate(reader.get(data, "frames", "", "list", [])):
        path = f"frames[{i}]"
        reader.mapping(frame, path, ("name", "body", "placement"))
        with reader.at(path):
            model.add_frame(reader.get(frame, "name", path, "string"), reader.get(frame, "body", path, "string"),
                            _placement(reader, frame.get("placement"), join_path(path, "placement")))
    for i, element in enumerate(reader.get(data, "forces", "", "list", [])):
        path = f"forces[{i}]"
        cls = _typed(reader, element, path, FORCE_TYPES, "force element")
        with reader.at(path):
            model.add_force(_construct(reader, cls, element, path))
    for i, item in enumerate(reader.get(data, "constraints", "", "list", [])):
        path = f"constraints[{i}]"
        with reader.at(path):
            model.add_constraint(_constraint(reader, item, path))
    for i, item in enumerate(reader.get(data, "geometries", "", "list", [])):
        _add_geometry(reader, model, item, f"geometries[{i}]")
    if "friction_rule" in data:
        with reader.at("friction_rule"):
            model.friction_rule = reader.get(data, "friction_rule", "", "string")
    return model


def _state(reader, model, value, path, default, sizes):
    """An initial q or v: a full list, or {joint name: value or list} on top of ``default``."""
    size, slicer = sizes
    if value is None:
        return default
    if isinstance(value, dict):
        state = default.copy()
        for joint, entry in value.items():
            try:
                s = slicer(joint)
            except ModelError:
                reader.fail(join_path(path, joint), f"unknown joint (joints: {', '.join(j.name for j in model.joints)})")
            x = np.atleast_1d(reader.convert(entry, join_path(path, joint), "vector" if isinstance(entry, list) else "number"))
            if x.shape != (s.stop - s.start,):
                reader.fail(join_path(path, joint), f"expected {s.stop - s.start} number(s), got {_show(entry)}")
            state[s] = x
        return state
    x = reader.convert(value, path, "vector")
    if x.shape != (size,):
        reader.fail(path, f"expected {size} numbers, got {x.shape[0]}")
    return x


def file_from_dict(data, source="<dict>"):
    """A :class:`ModelFile` from the dictionary form (model, initial state, simulation settings)."""
    reader = _Reader(source)
    model = model_from_dict(data, source)
    initial = data.get("initial") or {}
    reader.mapping(initial, "initial", ("q", "v"))
    q0 = _state(reader, model, initial.get("q"), "initial.q", model.neutral(), (model.nq, model.q_slice))
    v0 = _state(reader, model, initial.get("v"), "initial.v", np.zeros(model.nv), (model.nv, model.v_slice))
    settings = data.get("simulation") or {}
    reader.mapping(settings, "simulation", tuple(SIMULATION_KEYS))
    simulation = {}
    for key, kind in SIMULATION_KEYS.items():
        if key in settings:
            text = {float: "number", int: "int", str: "string"}[kind]
            simulation[key] = reader.get(settings, key, "simulation", text)
    return ModelFile(model, q0, v0, simulation, source)


def read_model_file(path: str | os.PathLike, *, floating_base: bool = False, collisions: bool = False) -> ModelFile:
    """Read a YAML model file, a URDF file (by its .urdf suffix, or .xml with a <robot> root) or an MJCF file
    (.xml with a <mujoco> root; its initial state is MuJoCo's qpos0) into a :class:`ModelFile`. A bare name that is
    no file, such as ``"double_pendulum"``, is the bundled example of that name (:func:`example_path`).

    ``floating_base`` (a free joint under the root link) and ``collisions`` (the ``<collision>`` primitives as
    contact shapes) are the options of :func:`multibody.io.urdf.model_from_urdf` for a URDF file; MJCF and YAML
    files declare their free joints and contact shapes themselves (``floating_base=True`` is refused for them).

    Every error is a one-line ModelError naming the file (errors of other types while reading are wrapped)."""
    path = Path(path)
    if not path.exists() and path.name == str(path):
        path = example_path(str(path))
    try:
        return _read_model_file(path, floating_base, collisions)
    except ModelError as exc:
        if str(path) in str(exc) or path.name in str(exc):
            raise
        raise ModelError(f"{path}: {exc}") from exc
    except Exception as exc:  # RecursionError, OverflowError, TypeError, XML parser errors, ...: still the file's
        raise ModelError(f"{path}: {type(exc).__name__}: {exc}") from exc


def _read_model_file(path, floating_base=False, collisions=False):
    if not path.is_file():
        raise ModelError(f"{path}: {'not a regular file' if path.exists() else 'no such model file'}")
    root = _xml_root_tag(path) if path.suffix.lower() == ".xml" else None
    if path.suffix.lower() == ".urdf" or root == "robot":
        from .urdf import model_from_urdf
        model = model_from_urdf(path, floating_base=floating_base, collisions=collisions)
        return ModelFile(model, model.neutral(), np.zeros(model.nv), {}, str(path))
    if floating_base:
        raise ModelError(f"{path}: a floating base is an option of URDF files; an MJCF or YAML file gives its "
                         "root body a free joint itself")
    if root == "mujoco":
        from .mjcf import model_from_mjcf
        model = model_from_mjcf(path)
        return ModelFile(model, model.reference_configuration, np.zeros(model.nv), {}, str(path))
    if path.suffix.lower() == ".xml":
        raise ModelError(f"{path}: an XML model file must have a <mujoco> (MJCF) or <robot> (URDF) root element, "
                         f"got {f'<{root}>' if root else 'no XML'}")
    data = yaml_load(path)
    if data is None:
        raise ModelError(f"{path}: the file is empty")
    return file_from_dict(data, str(path))


def _xml_root_tag(path):
    """The tag of an XML file's root element, or None if the file is not XML."""
    import xml.etree.ElementTree as ET
    try:
        for _, element in ET.iterparse(path, events=("start",)):
            return element.tag
    except (ET.ParseError, ValueError, RecursionError):
        return None
    return None


def example_path(name: str) -> Path:
    """Path of a bundled example model file by name ("double_pendulum", "humanoid", ...)."""
    for suffix in ("", ".yaml", ".urdf"):
        path = EXAMPLES / f"{name}{suffix}"
        if path.is_file():
            return path
    known = sorted(p.stem for p in EXAMPLES.glob("*") if p.suffix in (".yaml", ".urdf"))
    raise ModelError(f"{name}: no such model file or bundled example (examples: {', '.join(known)})")


def load(path: str | os.PathLike) -> Model:
    """The :class:`Model` described by a YAML model file (or a URDF or MJCF file), or by a bundled example's name
    (``mb.load("double_pendulum")``; ``multibody info --list`` lists them). Its initial state and simulation
    settings are available through :func:`read_model_file`."""
    return read_model_file(path).model


# ----------------------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------------------
def _joint_type(joint):
    return next(name for name, cls in JOINT_TYPES.items() if type(joint) is cls)


def model_to_dict(model):
    """The dictionary form of ``model`` (YAML-ready; floats written exactly, rotations as matrices).

    Raises ModelError naming a constraint that cannot be written (user callables: Holonomic, Nonholonomic)."""
    bodies = []
    for body, joint, parent, placement in zip(model.bodies, model.joints, model.parents, model.placements):
        joint_data = {"type": _joint_type(joint), "name": joint.name}
        if isinstance(joint, _AXIAL):
            joint_data["axis"] = joint.axis.tolist()
        if np.any(joint.armature):
            joint_data["armature"] = joint.armature.tolist()
        if joint.limits is not None:
            joint_data["limits"] = _limits_to_dict(joint.limits)
        entry = {"name": body.name, "parent": "world" if parent < 0 else model.bodies[parent].name,
                 "joint": joint_data, "placement": placement_to_dict(placement)}
        if body.ne:
            entry["beam"] = body.to_dict()
        else:
            entry.update(mass=float(body.mass), com=body.com.tolist(), inertia=body.inertia.tolist())
        bodies.append(entry)
    data = {"name": model.name, "gravity": np.asarray(model.gravity, dtype=float).tolist(), "bodies": bodies}
    if model.frames:
        data["frames"] = [{"name": name, "body": "world" if index < 0 else model.bodies[index].name,
                           "placement": placement_to_dict(pl)}
                          for name, (index, pl) in model.frames.items()]
    if model.forces:
        data["forces"] = [element.to_dict() for element in model.forces]
    if model.constraints:
        data["constraints"] = [c.to_dict() for c in model.constraints]
    if model.geometries:
        data["geometries"] = [g.to_dict() for g in model.geometries]
        if model.friction_rule != "geometric":
            data["friction_rule"] = model.friction_rule
        if model.pair_friction:
            warnings.warn(f"model '{model.name}': the friction of {len(model.pair_friction)} explicit contact pairs "
                          "(model.pair_friction, from an MJCF file's <contact><pair>) is not saved in the model file: "
                          "read that file again after loading it", stacklevel=2)
        if not model.filter_parent:
            warnings.warn(f"model '{model.name}': filter_parent = False (a link's shapes touch its parent's) is not "
                          "saved in the model file: set it again after loading it", stacklevel=2)
    return data
