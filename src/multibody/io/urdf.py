"""URDF import: the robot files people have (ROS descriptions, example-robot-data) as a :class:`Model`.

Conventions match multibody's: a URDF joint's ``<origin>`` is the pose of the joint frame in the parent link
frame (our ``placement``) and the child link frame coincides with the joint frame at zero. ``<inertial>``
gives the mass, the mass center (``origin xyz``) and the inertia about it in the axes ``origin rpy``, which are
rotated into the link frame: I_link = R I Rᵀ.

How links become bodies (docs/files.md has the table of what is read and what is not):

* Links are visited depth first, children in the order of their joints in the file: that is the order of q.
* A link attached by a fixed joint is welded into its parent body (``fuse_fixed=True``, the default): its mass
  and inertia add to the parent's and its name becomes a frame of the parent body, usable wherever a body name
  is (``body_pose``, ``jacobian``, constraints). With ``fuse_fixed=False`` it stays a body on a Fixed joint.
* A link without ``<inertial>``, or with zero mass and zero inertia, is massless. Moved by a joint, it is a
  massless body (the virtual links of multi-axis joints); ``Model.compile`` checks that the mass matrix stays
  positive definite and names the joints otherwise.
* Fixed base: the root link and the links welded to it are frames of the world (nothing moves them, so their
  mass plays no part); with ``fuse_fixed=False`` a massive root link is a body on a Fixed joint instead.
* ``floating_base=True``: the root gets a Free joint named ``root_joint`` (q: the root link's pose in the world);
  when the root link is ``world`` with one fixed child, that child floats instead. A file whose root cannot
  float raises; the flag is never ignored.
* Inertias must be positive semi-definite to a relative 1e-6 (:data:`~multibody.model.body.INERTIA_TOLERANCE`);
  ones that break the triangle inequality (no mass distribution has them, yet real robot files do) are accepted
  with one warning per file. ``check_inertia`` ("physical", "semidefinite", "none") makes this stricter or looser.
* ``<limit>`` becomes the joint's :class:`~multibody.JointLimits`; ``<dynamics damping>`` a
  :class:`~multibody.JointSpring` of zero stiffness, ``<dynamics friction>`` a :class:`~multibody.JointFriction`;
  ``<mimic>`` a :class:`~multibody.Mimic` constraint (honoured by ``forward_dynamics`` and ``simulate``; rnea,
  crba and aba treat the mimic joint as an independent degree of freedom, as Pinocchio's parser does).
"""
from __future__ import annotations

import os
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..constraints.geometry import Box, Capsule, ConvexHull, Sphere
from ..errors import ModelError
from ..model import Body, Fixed, Free, JointLimits, Model, Planar, Prismatic, Revolute
from ..model.body import INERTIA_CHECKS, _check_inertia, welded
from ..spatial import Transform, rotation_z_to, unit
from .robot_xml import read_robot_xml
from .srdf import disable_collisions

_JOINTS = {"revolute": Revolute, "continuous": Revolute, "prismatic": Prismatic, "fixed": Fixed, "floating": Free,
           "planar": Planar}
ROOT_JOINT = "root_joint"  # the floating base's joint (Pinocchio's name)


class _Urdf:
    """Parse helpers that report ``source: where: problem``."""

    def __init__(self, source):
        self.source = source

    def fail(self, where, problem):
        raise ModelError(f"{self.source}: {where}: {problem}")

    def attribute(self, element, name, where, default=None):
        value = element.get(name) if element is not None else None
        if value is None:
            if default is None:
                self.fail(where, f"missing attribute '{name}'")
            return default
        return value

    def numbers(self, element, name, where, count, default=None, infinite=False):
        text = self.attribute(element, name, where, default)
        try:
            values = np.array([float(x) for x in text.split()])
        except ValueError:
            self.fail(f"{where} {name}", f"expected {count} number(s), got {text!r}")
        if values.shape != (count,) or not np.all(np.isfinite(values) | (infinite & np.isinf(values))):
            self.fail(f"{where} {name}", f"expected {count} {'' if infinite else 'finite '}number(s), got {text!r}")
        return values

    def number(self, element, name, where, default, infinite=False):
        return self.numbers(element, name, where, 1, default, infinite)[0]

    def origin(self, parent, where):
        element = parent.find("origin")
        if element is None:
            return Transform()
        try:
            return Transform.from_rpy(self.numbers(element, "rpy", f"{where} <origin>", 3, "0 0 0"),
                                      self.numbers(element, "xyz", f"{where} <origin>", 3, "0 0 0"))
        except ModelError as exc:
            if str(exc).startswith(self.source):
                raise
            self.fail(f"{where} <origin>", str(exc))


@dataclass
class _Plan:
    """A body to be: its parent body (or "world"), joint, placement, and the links welded into it with their
    poses in its frame."""

    name: str
    parent: str
    joint: object
    placement: Transform
    links: list = field(default_factory=list)  # [(link name, pose of the link frame in this body's frame)]


def _inertial(urdf, link):
    """(mass, pose of the inertial frame in the link frame, inertia in that frame) of a link, or None for a
    massless one (no ``<inertial>``, or zero mass and zero inertia)."""
    name = link.get("name")
    inertial = link.find("inertial")
    if inertial is None:
        return None
    where = f"link '{name}' <inertial>"
    pose = urdf.origin(inertial, where)
    mass_element = inertial.find("mass")
    if mass_element is None:
        urdf.fail(where, "missing <mass>")
    mass = urdf.number(mass_element, "value", f"{where} <mass>", None)
    if mass < 0:
        urdf.fail(f"{where} <mass>", f"mass must be non-negative, got {mass:g}")
    element = inertial.find("inertia")
    if element is None:
        urdf.fail(where, "missing <inertia>")
    i = {key: urdf.number(element, key, f"{where} <inertia>", "0" if key[1] != key[2] else None)
         for key in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
    inertia = np.array([[i["ixx"], i["ixy"], i["ixz"]], [i["ixy"], i["iyy"], i["iyz"]], [i["ixz"], i["iyz"], i["izz"]]])
    return None if mass == 0 and not inertia.any() else (mass, pose, inertia)


def _bodies(urdf, raw, check):
    """{link: Body in the link frame, or None} from the raw inertials, each inertia checked (``check``) to a
    relative 1e-6 of the largest principal moment in the file, so that the round-off junk of a dummy link's
    1e-8 kg m² does not fail a robot of 1 kg m²; a warning lists the links that break the triangle inequality."""
    scale = max((np.abs(np.linalg.eigvalsh(r[2])).max() for r in raw.values() if r is not None), default=0.0)
    bodies, unphysical = {}, []
    for name, entry in raw.items():
        if entry is None:
            bodies[name] = None
            continue
        mass, pose, inertia = entry
        try:
            inertia = _check_inertia(name, inertia, check, scale)
        except ModelError as exc:
            urdf.fail(f"link '{name}' <inertial> <inertia>", f"{exc} [kg m²]")
        if check == "semidefinite":
            try:
                _check_inertia(name, inertia, "physical", scale)
            except ModelError:
                unphysical.append(name)
        bodies[name] = Body(name, mass=mass, com=pose.translation, inertia=pose.rotation @ inertia @ pose.rotation.T,
                            check_inertia="none")
    if unphysical:
        warnings.warn(f"{urdf.source}: the inertias of links {', '.join(unphysical)} break the triangle inequality "
                      f"(no mass distribution has them); used as given", stacklevel=4)
    return bodies


def model_from_urdf(path_or_xml, gravity=(0.0, 0.0, -9.81), floating_base=False, fuse_fixed=True,
                    check_inertia="semidefinite", collisions=False, srdf=None) -> Model:
    """A :class:`Model` from a URDF file path or an XML string (see the module docstring for the reading);
    ``collisions=True`` also reads the links' ``<collision>`` primitives as contact shapes
    (:func:`_collision_shapes`), and ``srdf`` (an SRDF file path or XML string, with ``collisions=True``) the
    link pairs whose shapes never touch (:func:`multibody.io.srdf.disable_collisions`)."""
    if srdf is not None and not collisions:
        raise ModelError(f"{path_or_xml if len(str(path_or_xml)) < 200 else '<urdf string>'}: srdf= disables "
                         "collision pairs: it needs collisions=True")
    source, robot = read_robot_xml(path_or_xml)
    urdf = _Urdf(source)
    if check_inertia not in INERTIA_CHECKS:
        raise ModelError(f"{source}: check_inertia must be one of {', '.join(INERTIA_CHECKS)}, got {check_inertia!r}")
    if robot.tag != "robot":
        urdf.fail(f"<{robot.tag}>", "the root element must be <robot>")
    links = {}
    for link in robot.findall("link"):
        name = urdf.attribute(link, "name", "<link>")
        if name in links:
            urdf.fail(f"link '{name}'", "defined twice")
        links[name] = link
    if not links:
        urdf.fail("<robot>", "has no <link>")
    children: dict[str, list[ET.Element]] = {}
    parent_of: dict[str, str] = {}
    joint_names: set[str] = set()
    for joint in robot.findall("joint"):
        name = urdf.attribute(joint, "name", "<joint>")
        where = f"joint '{name}'"
        if name in joint_names:
            urdf.fail(where, "defined twice")
        joint_names.add(name)
        kind = urdf.attribute(joint, "type", where)
        if kind not in _JOINTS:
            urdf.fail(f"{where} type", f"unsupported joint type '{kind}' (supported: {', '.join(_JOINTS)})")
        parent = urdf.attribute(joint.find("parent"), "link", f"{where} <parent>")
        child = urdf.attribute(joint.find("child"), "link", f"{where} <child>")
        for role, link in (("parent", parent), ("child", child)):
            if link not in links:
                urdf.fail(f"{where} <{role}>", f"unknown {role} link '{link}' (links: {', '.join(links)})")
        if child in parent_of:
            urdf.fail(f"{where} <child>", f"link '{child}' already has parent joint '{parent_of[child]}'")
        parent_of[child] = name
        children.setdefault(parent, []).append(joint)
    roots = [name for name in links if name not in parent_of]
    if len(roots) != 1:
        urdf.fail("<robot>", f"the links must form one tree; roots found: {', '.join(roots) or 'none (a loop)'}")
    inertials = _bodies(urdf, {name: _inertial(urdf, link) for name, link in links.items()}, check_inertia)
    plans, attached = _plan(urdf, roots[0], children, inertials, floating_base, fuse_fixed, joint_names)
    unreached = [name for name in links if name not in attached]
    if unreached:
        urdf.fail("<robot>", f"links not connected to the root '{roots[0]}' (a joint loop?): {', '.join(unreached)}")
    model = _build(urdf, robot, plans, attached, inertials, gravity, children)
    if collisions:
        _collision_shapes(urdf, links, attached, model)
    if srdf is not None:
        disable_collisions(model, srdf)
    return model


def _collision_shapes(urdf, links, attached, model):
    """Each ``<collision>`` sphere, box, cylinder or mesh of a link as a contact shape of the body the link is
    welded into (or of the world), placed by the link's pose in that body and the element's ``<origin>``. A cylinder
    becomes the capsule of its radius and overall length (rounded ends; a disk shorter than its diameter, a sphere of
    its radius); a mesh (STL, OBJ, DAE, … as trimesh reads them) the convex hull of its vertices times its ``scale``
    (:func:`_mesh_hull`), as MuJoCo collides meshes. Both are said once per file (``warnings.warn``), and so are
    the meshes that cannot be read (each named with its file and why; the link has no shape there). The k-th
    collision element of a link is named "<link>_k", as Pinocchio's ``buildGeomFromUrdf`` names it."""
    rounded, hulls, meshes = [], [], []
    elements = [(name, k, c) for name, node in links.items() for k, c in enumerate(node.findall("collision"))]
    for link, k, element in elements:
        where = f"link '{link}' <collision>"
        geometry = element.find("geometry")
        shape_element = geometry[0] if geometry is not None and len(geometry) else None
        if shape_element is None:
            urdf.fail(where, "has no <geometry> shape")
        kind = shape_element.tag
        if kind == "sphere":
            shape = Sphere(urdf.number(shape_element, "radius", f"{where} <sphere>", None))
        elif kind == "box":
            shape = Box(0.5 * np.asarray(urdf.numbers(shape_element, "size", f"{where} <box>", 3)))
        elif kind == "cylinder":
            radius = urdf.number(shape_element, "radius", f"{where} <cylinder>", None)
            half = 0.5 * urdf.number(shape_element, "length", f"{where} <cylinder>", None) - radius
            shape = Capsule(radius, half) if half > 0 else Sphere(radius)
            rounded.append(link)
        elif kind == "mesh":
            shape = _mesh_hull(urdf, shape_element, f"{where} <mesh>", meshes)
            if shape is None:
                continue
            hulls.append(link)
        else:
            meshes.append(f"{link}: <{kind}> is not a URDF shape")
            continue
        body, pose = attached[link]
        model.add_geometry(body, shape, placement=pose @ urdf.origin(element, where),
                           name=f"{link}_{k}")  # Pinocchio's name for it
    if rounded:
        warnings.warn(f"{urdf.source}: <collision> cylinders read as capsules (rounded ends) on {', '.join(rounded)}",
                      stacklevel=3)
    if hulls:
        warnings.warn(f"{urdf.source}: <collision> meshes read as their convex hulls on {', '.join(hulls)}",
                      stacklevel=3)
    if meshes:
        warnings.warn(f"{urdf.source}: <collision> shapes that could not be read skipped (no contact shape): "
                      f"{'; '.join(meshes)}", stacklevel=3)


def _mesh_hull(urdf, element, where, unread):
    """The :class:`ConvexHull` of a ``<mesh filename=… scale=…>``'s vertices times its scale, or None (with the
    reason added to ``unread``) when the file is not found or trimesh cannot read it."""
    filename = urdf.attribute(element, "filename", where)
    scale = np.asarray(urdf.numbers(element, "scale", where, 3, default="1 1 1"))
    path = _mesh_path(urdf.source, filename)
    if path is None:
        unread.append(f"{where}: mesh file '{filename}' not found")
        return None
    try:
        import trimesh
        mesh = trimesh.load(str(path), force="mesh")
        return ConvexHull(np.asarray(mesh.vertices, dtype=float) * scale, source=str(path))
    except Exception as exc:  # any reader failure (format, missing plugin such as pycollada, empty mesh) is said
        unread.append(f"{where}: mesh file '{path}' could not be read ({type(exc).__name__}: {exc})")
        return None


def _mesh_path(source, filename):
    """The file a mesh ``filename`` names: ``file://`` and plain paths relative to the URDF's folder (the working
    folder for a URDF string); ``package://<package>/<rest>``, as ROS finds packages, in the folders above the
    URDF (one named <package>, or holding it) and those of ``ROS_PACKAGE_PATH``. None if there is no such file."""
    base = Path(source).resolve().parent if Path(source).is_file() else Path.cwd()
    if filename.startswith("package://"):
        package, _, rest = filename[len("package://"):].partition("/")
        ros = [Path(d) for d in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if d]
        roots = [base, *base.parents, *ros]
        candidates = [(root / rest if root.name == package else root / package / rest) for root in roots]
    else:
        candidates = [base / filename.removeprefix("file://")]
    return next((c for c in candidates if c.is_file()), None)


def _plan(urdf, root, children, inertials, floating_base, fuse_fixed, joint_names):
    """Bodies in depth-first file order ([_Plan]) and where each link ended up: {link: (body or "world", pose)}."""
    attached = {}
    if floating_base and root == "world":
        joints = children.get(root, [])
        if len(joints) != 1 or joints[0].get("type") not in ("fixed", "floating"):
            urdf.fail("<robot>", "floating_base=True, but the root link 'world' is the fixed world and does not have "
                      "exactly one fixed or floating child joint to float instead")
        # the base floats: the world link's child, q its pose in the world (the file's own floating joint, if it
        # has one, is that already)
        floating_base = joints[0].get("type") == "fixed"
        if floating_base:
            attached[root] = ("world", Transform())
            root = joints[0].find("child").get("link")
    if floating_base:
        name = ROOT_JOINT
        while name in joint_names:
            name += "_"
        plans = [_Plan(root, "world", Free(name=name), Transform(), [(root, Transform())])]
    elif root != "world" and not fuse_fixed and inertials[root] is not None:
        plans = [_Plan(root, "world", Fixed(name=f"{root}_joint"), Transform(), [(root, Transform())])]
    else:  # welded to the world: the root link and its welded links are frames of the world
        plans = []
    attached[root] = (root, Transform()) if plans else ("world", Transform())
    bodies = {plan.name: plan for plan in plans}
    stack = list(reversed(children.get(root, [])))  # joints still to visit, the next one last
    while stack:
        child = _attach(urdf, stack.pop(), attached, bodies, plans, inertials, fuse_fixed)
        stack += reversed(children.get(child, []))
    return plans, attached


def _attach(urdf, joint, attached, bodies, plans, inertials, fuse_fixed):
    """Place the child link of ``joint``: welded into its parent's body, or a new body (planned). Returns it."""
    name, kind = joint.get("name"), joint.get("type")
    where = f"joint '{name}'"
    child = joint.find("child").get("link")
    body, offset = attached[joint.find("parent").get("link")]
    placement = offset @ urdf.origin(joint, where)
    if kind == "fixed" and (fuse_fixed or inertials[child] is None):
        attached[child] = (body, placement)
        if body != "world":
            bodies[body].links.append((child, placement))
        return child
    name, link_in_body = child, Transform()
    if kind == "planar":
        # our Planar moves in its joint frame's xy plane: turn that frame so that its z is the URDF axis (the
        # plane's normal); the body, named '<link>_plane', then carries the link as a frame
        normal = urdf.numbers(joint.find("axis"), "xyz", f"{where} <axis>", 3, "1 0 0")
        if not normal.any():
            urdf.fail(f"{where} <axis>", f"the plane normal must be a non-zero vector, got {normal.tolist()}")
        turn = Transform(rotation=rotation_z_to(unit(normal)))
        if np.any(turn.rotation != np.eye(3)):
            name, placement, link_in_body = f"{child}_plane", placement @ turn, turn.inverse()
    plan = _Plan(name, body, _joint(urdf, joint, kind), placement, [(child, link_in_body)])
    plans.append(plan)
    bodies[name] = plan
    attached[child] = (name, link_in_body)
    return child


def _joint(urdf, joint, kind):
    """The multibody joint of a moving URDF joint, with its limits."""
    name = joint.get("name")
    where = f"joint '{name}'"
    cls = _JOINTS[kind]
    if cls not in (Revolute, Prismatic):
        return cls(name=name)
    axis = urdf.numbers(joint.find("axis"), "xyz", f"{where} <axis>", 3, "1 0 0")
    limit = joint.find("limit")
    limits = None
    if limit is not None:
        bounded = kind != "continuous"
        values = {key: urdf.number(limit, key, f"{where} <limit>", default, infinite=True)
                  for key, default in (("lower", "0" if bounded else "-inf"), ("upper", "0" if bounded else "inf"),
                                       ("effort", "inf"), ("velocity", "inf"))}
        if not bounded:
            values.update(lower=-np.inf, upper=np.inf)
        try:
            limits = JointLimits(**values)
        except ModelError as exc:
            urdf.fail(f"{where} <limit>", str(exc))
    try:
        return cls(axis, name=name, limits=limits)
    except ModelError as exc:
        urdf.fail(f"{where} <axis>", str(exc))


def _build(urdf, robot, plans, attached, inertials, gravity, children):
    """The Model of the plan: bodies with their welded links' inertia, frames for the welded links, force
    elements of ``<dynamics>``, constraints of ``<mimic>``."""
    model = Model(robot.get("name", "robot"), gravity=gravity)
    massless = Body("massless", mass=0.0, inertia=np.zeros((3, 3)))
    for plan in plans:
        parts = [(inertials[link], pose) for link, pose in plan.links if inertials[link] is not None]
        body = welded(plan.name, parts or [(massless, Transform())])
        model.add(body, parent=plan.parent, joint=plan.joint, placement=plan.placement)
    for link, (body, pose) in attached.items():
        if link not in (body, "world"):
            model.add_frame(link, body, pose)
    moving = {plan.joint.name for plan in plans if plan.joint.nv}
    broken = []
    for joint in (j for js in children.values() for j in js):
        name = joint.get("name")
        if name not in moving:
            continue
        where = f"joint '{name}'"
        dynamics = joint.find("dynamics")
        if dynamics is not None:
            damping = urdf.number(dynamics, "damping", f"{where} <dynamics>", "0")
            friction = urdf.number(dynamics, "friction", f"{where} <dynamics>", "0")
            try:
                from .. import JointFriction, JointSpring
                if damping:
                    model.add_force(JointSpring(name, 0.0, damping=damping, name=f"{name} damping"))
                if friction:
                    model.add_force(JointFriction(name, friction, name=f"{name} friction"))
            except ModelError as exc:
                urdf.fail(f"{where} <dynamics>", str(exc))
        mimic = joint.find("mimic")
        if mimic is not None:
            master = urdf.attribute(mimic, "joint", f"{where} <mimic>")
            if master not in moving:
                broken.append(f"{name} (mimics '{master}')")
                continue
            try:
                from .. import Mimic
                model.add_constraint(Mimic(name, master, multiplier=urdf.number(mimic, "multiplier", where, "1"),
                                           offset=urdf.number(mimic, "offset", where, "0")))
            except ModelError as exc:
                urdf.fail(f"{where} <mimic>", str(exc))
    if broken:
        warnings.warn(f"{urdf.source}: <mimic> of joints that are not moving joints of the robot ignored: "
                      f"{', '.join(broken)}", stacklevel=4)
    return model
