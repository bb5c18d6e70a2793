"""URDF import: links become bodies and joints become joints (revolute, continuous, prismatic, fixed, floating).

Conventions match multibody's: a URDF joint's ``<origin>`` is the pose of the joint frame in the parent link
frame (our ``placement``) and the child link frame coincides with the joint frame at zero. ``<inertial>``
gives the mass, the mass center (``origin xyz``) and the inertia about it in the axes ``origin rpy``, which are
rotated into the link frame: I_link = R I Rᵀ. Links without ``<inertial>``:

* the root: left out, its children attach to the world (a "world" or massless base link);
* attached by a fixed joint: kept as a named frame of its parent body (tool frames, sensors);
* moved by a joint: an error (a massless body has no dynamics).

With ``floating_base=True`` a massive root link gets a free joint to the world instead of a fixed one.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..model import Body, Fixed, Free, Model, Prismatic, Revolute
from ..spatial import Transform

_JOINTS = {"revolute": Revolute, "continuous": Revolute, "prismatic": Prismatic, "fixed": Fixed, "floating": Free}


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

    def numbers(self, element, name, where, count, default=None):
        text = self.attribute(element, name, where, default)
        try:
            values = np.array([float(x) for x in text.split()])
        except ValueError:
            self.fail(f"{where} {name}", f"expected {count} number(s), got {text!r}")
        if values.shape != (count,) or not np.all(np.isfinite(values)):
            self.fail(f"{where} {name}", f"expected {count} finite number(s), got {text!r}")
        return values

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


def _body(urdf, link):
    """Body of a <link> with an <inertial>, or None without one."""
    name = urdf.attribute(link, "name", "<link>")
    inertial = link.find("inertial")
    if inertial is None:
        return None
    where = f"link '{name}' <inertial>"
    pose = urdf.origin(inertial, where)
    mass_element = inertial.find("mass")
    if mass_element is None:
        urdf.fail(where, "missing <mass>")
    mass = urdf.numbers(mass_element, "value", f"{where} <mass>", 1)[0]
    element = inertial.find("inertia")
    if element is None:
        urdf.fail(where, "missing <inertia>")
    i = {key: urdf.numbers(element, key, f"{where} <inertia>", 1, "0" if key[1] != key[2] else None)[0]
         for key in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
    inertia = np.array([[i["ixx"], i["ixy"], i["ixz"]], [i["ixy"], i["iyy"], i["iyz"]], [i["ixz"], i["iyz"], i["izz"]]])
    try:
        return Body(name, mass=mass, com=pose.translation, inertia=pose.rotation @ inertia @ pose.rotation.T)
    except ModelError as exc:
        urdf.fail(where, str(exc))


def model_from_urdf(path_or_xml, gravity=(0.0, 0.0, -9.81), floating_base=False):
    """A :class:`Model` from a URDF file path or an XML string."""
    text = str(path_or_xml)
    if text.lstrip().startswith("<"):
        source, xml = "<urdf string>", text
    else:
        source = text
        if not Path(text).is_file():
            raise ModelError(f"{source}: no such URDF file")
        xml = Path(text).read_text()
    urdf = _Urdf(source)
    try:
        robot = ET.fromstring(xml)
    except ET.ParseError as exc:
        line, column = exc.position
        raise ModelError(f"{source}: malformed XML at line {line}, column {column + 1}: "
                         f"{str(exc).split(':')[0]}") from None
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
    joints, parent_of = {}, {}
    for joint in robot.findall("joint"):
        name = urdf.attribute(joint, "name", "<joint>")
        where = f"joint '{name}'"
        kind = urdf.attribute(joint, "type", where)
        if kind not in _JOINTS:
            urdf.fail(f"{where} type", f"unsupported joint type '{kind}' (supported: {', '.join(_JOINTS)})")
        parent = urdf.attribute(joint.find("parent"), "link", f"{where} <parent>")
        child = urdf.attribute(joint.find("child"), "link", f"{where} <child>")
        for role, link in (("parent", parent), ("child", child)):
            if link not in links:
                urdf.fail(f"{where} <{role}>", f"unknown {role} link '{link}' (links: {', '.join(links)})")
        if child in parent_of:
            urdf.fail(f"{where} <child>", f"link '{child}' already has parent joint '{parent_of[child][0]}'")
        parent_of[child] = (name, parent)
        joints.setdefault(parent, []).append(joint)
    roots = [name for name in links if name not in parent_of]
    if len(roots) != 1:
        urdf.fail("<robot>", f"the links must form one tree; roots found: {', '.join(roots) or 'none (a loop)'}")
    model = Model(robot.get("name", "robot"), gravity=gravity)
    root = _body(urdf, links[roots[0]])
    attached = {roots[0]: ("world", Transform())}  # URDF link -> (model body or "world", pose in it)
    if root is not None:
        model.add(root, parent="world", joint=Free() if floating_base else Fixed())
        attached[roots[0]] = (root.name, Transform())
    queue = [roots[0]]
    while queue:
        parent = queue.pop(0)
        for joint in joints.get(parent, []):
            _add_joint(urdf, model, joint, links, attached)
            queue.append(joint.find("child").get("link"))
    return model


def _add_joint(urdf, model, joint, links, attached):
    name, kind = joint.get("name"), joint.get("type")
    where = f"joint '{name}'"
    child = joint.find("child").get("link")
    body, offset = attached[joint.find("parent").get("link")]
    placement = offset @ urdf.origin(joint, where)
    child_body = _body(urdf, links[child])
    if child_body is None:
        if kind != "fixed":
            urdf.fail(f"link '{child}'", f"has no <inertial> but is moved by {kind} joint '{name}'")
        if body != "world":
            model.add_frame(child, body, placement)
        attached[child] = (body, placement)
        return
    cls = _JOINTS[kind]
    if cls in (Revolute, Prismatic):
        axis = urdf.numbers(joint.find("axis"), "xyz", f"{where} <axis>", 3, "1 0 0")
        try:
            model_joint = cls(axis, name=name)
        except ModelError as exc:
            urdf.fail(f"{where} <axis>", str(exc))
    else:
        model_joint = cls(name=name)
    model.add(child_body, parent=body, joint=model_joint, placement=placement)
    attached[child] = (child_body.name, Transform())
