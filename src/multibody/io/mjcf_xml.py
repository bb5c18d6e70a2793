"""MJCF's XML as the importer reads it: the file with its ``<include>``s expanded, the ``<default>`` classes,
each element's attributes over its class's, and :class:`Mjcf`, the parse helpers that name the file and the element
in every error (numbers, angles in the compiler's unit, orientations, poses) and hold the file-wide settings."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..spatial import Transform, quat_to_rotation, rotation_about, rotation_z_to

ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")


class Mjcf:
    """Parse helpers that report ``source: where: problem``, and the file-wide settings."""

    def __init__(self, source):
        self.source = source
        self.ignored = Counter()  # what was ignored that changes the dynamics -> count
        self.degrees = True
        self.eulerseq = "xyz"
        self.inertiafromgeom = "auto"
        self.autolimits = True
        self.groups = (0, 5)
        self.boundmass = self.boundinertia = 0.0
        self.totalmass = -1.0
        self.disabled = set()  # <option><flag ...="disable"> of the honoured flags (_HONOURED_FLAGS)
        self.balanceinertia = False

    def fail(self, where, problem):
        raise ModelError(f"{self.source}: {where}: {problem}")

    def numbers(self, attrs, name, where, count, default=None):
        """The attribute ``name`` of the (defaults-merged) attribute dict as ``count`` finite floats (count may be a
        tuple of allowed counts)."""
        text = attrs.get(name, default)
        if text is None:
            self.fail(where, f"missing attribute '{name}'")
        counts = count if isinstance(count, tuple) else (count,)
        try:
            values = np.array([float(x) for x in str(text).split()])
        except ValueError:
            values = None
        if values is None or len(values) not in counts or not np.all(np.isfinite(values)):
            self.fail(f"{where} {name}", f"expected {' or '.join(map(str, counts))} finite number(s), got {text!r}")
        return values

    def number(self, attrs, name, where, default):
        return float(self.numbers(attrs, name, where, 1, default)[0])

    def integer(self, attrs, name, where, default):
        value = self.number(attrs, name, where, str(default))
        if value != int(value):
            self.fail(f"{where} {name}", f"expected an integer, got {attrs.get(name)!r}")
        return int(value)

    def choice(self, attrs, name, where, allowed, default):
        value = attrs.get(name, default)
        if value not in allowed:
            self.fail(f"{where} {name}", f"expected one of {', '.join(allowed)}, got {value!r}")
        return value

    def angle(self, value):
        return np.deg2rad(value) if self.degrees else value

    def rotation(self, attrs, where):
        """The rotation of the element's orientation attribute (at most one of quat, axisangle, euler, xyaxes,
        zaxis)."""
        given = [key for key in ORIENTATIONS if key in attrs]
        if len(given) > 1:
            self.fail(where, f"more than one orientation given ({', '.join(given)})")
        if not given:
            return np.eye(3)
        key = given[0]
        if key == "quat":
            q = self.numbers(attrs, key, where, 4)
            if np.linalg.norm(q) < 1e-12:
                self.fail(f"{where} quat", f"must be non-zero, got {attrs[key]!r}")
            return quat_to_rotation(q)  # normalizes, without overflow
        if key == "axisangle":
            values = self.numbers(attrs, key, where, 4)
            return rotation_about(self._unit(values[:3], f"{where} axisangle"), self.angle(values[3]))
        if key == "euler":
            angles = self.angle(self.numbers(attrs, key, where, 3))
            R = np.eye(3)
            for axis, angle in zip(self.eulerseq, angles):
                step = rotation_about(np.eye(3)["xyz".index(axis.lower())], angle)
                R = R @ step if axis.islower() else step @ R  # lower case: rotating axes; upper case: fixed axes
            return R
        if key == "xyaxes":
            values = self.numbers(attrs, key, where, 6)
            x = self._unit(values[:3], f"{where} xyaxes")
            y = self._unit(values[3:] - x * (x @ values[3:]), f"{where} xyaxes")
            return np.column_stack([x, y, np.cross(x, y)])
        return rotation_z_to(self._unit(self.numbers(attrs, key, where, 3), f"{where} zaxis"))

    def _unit(self, vector, where):
        norm = np.linalg.norm(vector)
        if norm < 1e-12:
            self.fail(where, f"must be a non-zero vector, got {vector.tolist()}")
        return vector / norm

    def pose(self, attrs, where):
        return Transform(self.rotation(attrs, where), self.numbers(attrs, "pos", where, 3, "0 0 0"))


# ----------------------------------------------------------------------------------------------
# Reading the file: includes, defaults
# ----------------------------------------------------------------------------------------------
def read_xml(path_or_xml):
    """(root element, source name, directory for includes)."""
    text = str(path_or_xml)
    if isinstance(path_or_xml, str) and text.lstrip().startswith("<"):
        source, directory = "<mjcf string>", Path.cwd()
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            raise ModelError(f"{source}: invalid XML: {exc}") from None
    else:
        path = Path(path_or_xml)
        if not path.is_file():
            raise ModelError(f"{path}: {'not a regular file' if path.exists() else 'no such MJCF file'}")
        source, directory = str(path), path.parent
        root = parse_file(path, source)
    if root.tag != "mujoco":
        raise ModelError(f"{source}: the root element is <{root.tag}>, not <mujoco>")
    expand_includes(root, directory, source, depth=0)
    return root, source, directory


def parse_file(path, source):
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ModelError(f"{source}: invalid XML: {exc}") from None


def expand_includes(element, directory, source, depth):
    """Replace each <include file=...> by the children of the included file's root (paths relative to the main
    file, as MuJoCo resolves them)."""
    if depth > 20:
        raise ModelError(f"{source}: <include> nested more than 20 deep (a cycle?)")
    for index, child in enumerate(list(element)):
        if child.tag == "include":
            name = child.get("file")
            if not name:
                raise ModelError(f"{source}: <include>: missing attribute 'file'")
            path = directory / name
            if not path.is_file():
                what = "not a regular file" if path.exists() else "no such file"
                raise ModelError(f"{source}: <include file={name!r}>: {what} ({path})")
            included = parse_file(path, str(path))
            expand_includes(included, directory, str(path), depth + 1)
            position = list(element).index(child)
            element.remove(child)
            for offset, grandchild in enumerate(list(included)):
                element.insert(position + offset, grandchild)
        else:
            expand_includes(child, directory, source, depth)


def default_classes(root):
    """{class name: {tag: attribute dict}} with nested classes inheriting from their parents ("main" is the top)."""
    classes = {"main": {}}

    def visit(element, inherited):
        name = element.get("class", "main")
        own = {tag: dict(attrs) for tag, attrs in inherited.items()}
        for child in element:
            if child.tag != "default":
                own[child.tag] = {**own.get(child.tag, {}), **child.attrib}
        classes[name] = own
        for child in element:
            if child.tag == "default":
                visit(child, own)

    for element in root.findall("default"):
        visit(element, classes.get("main", {}))
    return classes


def attributes(mjcf, classes, element, childclass):
    """The element's attributes over those of its default class (its ``class``, or the enclosing childclass)."""
    name = element.get("class", childclass)
    if name not in classes:
        mjcf.fail(f"<{element.tag} name={element.get('name')!r}>", f"unknown default class {name!r}")
    base = dict(classes[name].get(element.tag, {}))
    if any(key in element.attrib for key in ORIENTATIONS):  # the element's own orientation wins over a default's
        for key in ORIENTATIONS:
            base.pop(key, None)
    return {**base, **element.attrib}
