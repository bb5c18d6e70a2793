"""MJCF import: MuJoCo's XML models (the dm-control suite, MuJoCo Menagerie) as a :class:`Model`.

How MuJoCo's kinematic tree becomes multibody's (docs/files.md has the table of what is read and what is not):

* A MuJoCo body frame is placed in its parent by ``pos`` and an orientation (``quat``, ``axisangle``, ``euler``,
  ``xyaxes``, ``zaxis``); its joints (``pos`` and ``axis`` in the body frame) move it in file order, each about
  its own anchor: the body's pose is T₀ J₁ ⋯ J_k with J = Tr(p) Rot(axis, q − ref) Tr(−p). Each joint becomes
  a multibody joint whose frame sits at the anchor; a body with k > 1 joints becomes a chain of k − 1 massless
  bodies named ``<body>:<joint>`` ending in the body itself, which keeps the mass. The multibody body frame is
  then the MuJoCo body frame shifted to the last joint's anchor (mass center, frames, geometries and children
  are shifted accordingly); a body without joints is a body on a Fixed joint.
* **q is MuJoCo's qpos** for hinge, slide and ball joints: the joint frame is turned by −ref (hinge) or shifted
  by −ref (slide), so that q = ref puts the body where the file does; ``range``, ``springref`` need no offset.
  Free joints: q = qpos = (x, y, z, qw, qx, qy, qz) too, but **v differs**: MuJoCo's qvel is (linear velocity of
  the body origin in world axes, angular velocity in body axes), multibody's v = [ω; v_origin] in body axes,
  so v = [qvel[3:6]; Rᵀ qvel[0:3]]. Ball joints: v = qvel (ω in body axes).
* Mass properties: ``<inertial>`` (``diaginertia`` in the inertial frame, or ``fullinertia``), or — when the body
  has none (``inertiafromgeom="auto"``, the default) or always (``"true"``) — the sum of its geoms: sphere,
  capsule, cylinder, box, ellipsoid of ``mass`` or ``density`` × volume, with MuJoCo's formulas (a capsule is a
  cylinder and two hemispheres), only geoms whose ``group`` is within ``inertiagrouprange``. A mesh (or height
  field) that would contribute raises ModelError: multibody does not compute mesh volumes. ``settotalmass``,
  ``boundmass`` and ``boundinertia`` are applied as MuJoCo does.
* ``armature`` → the joint's armature; ``damping``, ``stiffness``, ``springref`` of a hinge or slide →
  a :class:`~multibody.JointSpring`; ``range`` (with ``limited`` or ``autolimits``) → :class:`~multibody.JointLimits`.
* ``<equality><connect>`` → :class:`~multibody.Connect`, ``<weld>`` → :class:`~multibody.Weld` (relative pose from
  ``relpose``, or from the reference configuration qpos0 as MuJoCo does); MuJoCo's constraints are soft
  (``solref``/``solimp``), multibody's are exact.
* Geoms of type sphere, box, capsule and plane that collide (``contype`` or ``conaffinity`` non-zero, or named by
  a ``<contact><pair>``) become contact geometries with their sliding ``friction``, ``priority`` and ``condim``
  (4 and 6 act as 3, with a warning: no torsional or rolling friction), their contacts' friction mixed by MuJoCo's
  rule (``model.friction_rule = "max"``), paired as MuJoCo pairs them:
  not when (contype₁ & conaffinity₂) | (contype₂ & conaffinity₁) is zero, nor when ``<contact><exclude>`` names
  their bodies (``Geometry.exclude``), always when a ``<contact><pair>`` names them (``Geometry.include``, with the
  pair's own ``friction`` and ``condim`` in ``model.pair_friction``, as MuJoCo takes them), none
  with ``<flag contact="disable">``; the weld and parent filters are
  :func:`~multibody.constraints.contact.candidate_pairs`' (``model.filter_parent``: ``<flag filterparent>``).
  Named sites become frames (when the name is free).
* ``<option><flag>``: ``gravity``, ``contact``, ``constraint`` (contacts, limits, equalities), ``limit``,
  ``equality``, ``spring``, ``damper`` and ``filterparent`` set to ``disable`` are honoured.
* ``frictionloss``, ``<tendon><fixed>`` (with its ``range`` limits), ``<actuator>`` and ``<equality>``
  ``<joint>``/``<tendon>`` couplings: :mod:`.mjcf_actuators` (the controls of :func:`multibody.simulate`'s
  ``ctrl`` are the actuators', in file order).
* Elements that change the dynamics but have no multibody counterpart (spatial tendons, muscles,
  activation dynamics, springs and dampers on ball and free joints, other equality types, gravity compensation,
  fluid forces, contact geometries of other shapes, ...), and those approximated (frictionloss), are listed in one
  ``warnings.warn`` per file. Pure visuals and
  bookkeeping (lights, cameras, materials, textures, sensors, keyframes, ``<visual>``, ``<statistic>``) are
  ignored silently.
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

from ..errors import ModelError
from ..model import Body, Fixed, Free, JointLimits, Model, Prismatic, Revolute, Spherical
from ..model.body import combined
from ..spatial import Transform, quat_to_rotation, rotation_about, rotation_to_quat, rotation_z_to
from .mjcf_actuators import add_actuation, add_coupling
from .mjcf_contacts import _condim, _contact_filters, _contact_pairs, _contact_shape
from .mjcf_xml import Mjcf, attributes, default_classes, read_xml

_SILENT = {"asset", "visual", "statistic", "size", "sensor", "keyframe", "custom", "extension", "compiler", "option",
           "default", "worldbody", "equality", "contact", "tendon", "actuator", "deformable", "include"}
_ROTATING = ("hinge", "ball")  # joint types whose angles are in the compiler's angle unit
# <option><flag> switches that are read: "constraint" disables contacts, limits and equalities together
_HONOURED_FLAGS = ("gravity", "contact", "constraint", "limit", "equality", "spring", "damper", "filterparent",
                   "actuation", "clampctrl")


# ----------------------------------------------------------------------------------------------
# Mass properties
# ----------------------------------------------------------------------------------------------
def _geom_frame(mjcf, attrs, kind, where):
    """(pose in the body frame, size) of a geom, resolving ``fromto`` (capsule, cylinder, box, ellipsoid)."""
    size = mjcf.numbers(attrs, "size", where, (1, 2, 3), "0 0 0")
    size = np.concatenate([size, np.zeros(3 - len(size))])
    if "fromto" in attrs and kind in ("capsule", "cylinder", "box", "ellipsoid"):
        ends = mjcf.numbers(attrs, "fromto", where, 6)
        axis = ends[3:] - ends[:3]
        length = np.linalg.norm(axis)
        if length < 1e-12:
            mjcf.fail(f"{where} fromto", "the two ends coincide")
        size = size.copy()
        size[1 if kind in ("capsule", "cylinder") else 2] = 0.5 * length
        if kind in ("box", "ellipsoid") and size[1] == 0.0:
            size[1] = size[0]
        return Transform(rotation_z_to(axis / length), 0.5 * (ends[:3] + ends[3:])), size
    return mjcf.pose(attrs, where), size


def _shape_volume_and_inertia(kind, size):
    """Volume and central principal inertia per unit mass (geom axes) of MuJoCo's primitive shapes."""
    r = size[0]
    if kind == "sphere":
        return 4.0 / 3.0 * np.pi * r**3, np.full(3, 0.4 * r * r)
    if kind == "capsule":
        h = 2.0 * size[1]
        volume = np.pi * r * r * (h + 4.0 / 3.0 * r)
        sphere = 4.0 * r / (4.0 * r + 3.0 * h)  # the two hemispheres' share of the mass
        cylinder = 1.0 - sphere
        transverse = (cylinder * (3 * r * r + h * h) / 12 + 0.4 * sphere * r * r
                      + sphere * h * (3 * r + 2 * h) / 8)
        return volume, np.array([transverse, transverse, cylinder * r * r / 2 + 0.4 * sphere * r * r])
    if kind == "cylinder":
        h = 2.0 * size[1]
        return np.pi * r * r * h, np.array([(3 * r * r + h * h) / 12, (3 * r * r + h * h) / 12, r * r / 2])
    a, b, c = size
    if kind == "box":
        return 8.0 * a * b * c, np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 3.0
    if kind == "ellipsoid":
        return 4.0 / 3.0 * np.pi * a * b * c, np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 5.0
    return None


def _geom_mass_properties(mjcf, geoms, body_name):
    parts = []
    for attrs, kind, pose, size, where in geoms:
        group = int(mjcf.number(attrs, "group", where, "0"))
        if not mjcf.groups[0] <= group <= mjcf.groups[1] or kind == "plane":
            continue
        shape = _shape_volume_and_inertia(kind, size)
        if shape is None:
            if "mass" in attrs and float(attrs["mass"]) == 0.0 or float(attrs.get("density", 1000.0)) == 0.0:
                continue
            mjcf.fail(where, f"the mass properties of body '{body_name}' would come from a {kind} geom, whose "
                             f"volume multibody does not compute; give the body an <inertial> (or the geom mass=\"0\")")
        volume, unit = shape
        mass = mjcf.number(attrs, "mass", where, None) if "mass" in attrs else (
            mjcf.number(attrs, "density", where, "1000") * volume)
        parts.append((mass, pose.translation, mass * pose.rotation @ np.diag(unit) @ pose.rotation.T))
    return combined(parts)


def _inertial(mjcf, element, where):
    attrs = dict(element.attrib)
    pose = mjcf.pose(attrs, f"{where} <inertial>")
    mass = mjcf.number(attrs, "mass", f"{where} <inertial>", None)
    if "fullinertia" in attrs:
        xx, yy, zz, xy, xz, yz = mjcf.numbers(attrs, "fullinertia", f"{where} <inertial>", 6)
        local = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    else:
        local = np.diag(mjcf.numbers(attrs, "diaginertia", f"{where} <inertial>", 3))
    return mass, pose.translation, pose.rotation @ local @ pose.rotation.T


def _bounded(mjcf, mass, inertia):
    """MuJoCo's boundmass / boundinertia: lower bounds on the mass and the principal moments."""
    if mjcf.boundmass > 0.0:
        mass = max(mass, mjcf.boundmass)
    if mjcf.boundinertia > 0.0:
        moments, axes = np.linalg.eigh(inertia)
        inertia = axes @ np.diag(np.maximum(moments, mjcf.boundinertia)) @ axes.T
    return mass, inertia


# ----------------------------------------------------------------------------------------------
# Settings: <compiler>, <option>
# ----------------------------------------------------------------------------------------------
def _settings(mjcf, root):
    """Read every <compiler> and <option> (later ones override earlier ones); returns the gravity vector."""
    for element in root.iter("compiler"):
        attrs, where = element.attrib, "<compiler>"
        if attrs.get("coordinate", "local") != "local":
            mjcf.fail(f"{where} coordinate", f"only 'local' coordinates are supported, got {attrs['coordinate']!r}")
        if "angle" in attrs:
            mjcf.degrees = mjcf.choice(attrs, "angle", where, ("radian", "degree"), "degree") == "degree"
        if "eulerseq" in attrs:
            sequence = attrs["eulerseq"]
            if len(sequence) != 3 or any(axis not in "xyzXYZ" for axis in sequence):
                mjcf.fail(f"{where} eulerseq", f"expected three of x, y, z, X, Y, Z, got {sequence!r}")
            mjcf.eulerseq = sequence
        if "inertiafromgeom" in attrs:
            mjcf.inertiafromgeom = mjcf.choice(attrs, "inertiafromgeom", where, ("true", "false", "auto"), "auto")
        if "autolimits" in attrs:
            mjcf.autolimits = mjcf.choice(attrs, "autolimits", where, ("true", "false"), "true") == "true"
        if "inertiagrouprange" in attrs:
            low, high = mjcf.numbers(attrs, "inertiagrouprange", where, 2)
            mjcf.groups = (int(low), int(high))
        mjcf.boundmass = mjcf.number(attrs, "boundmass", where, str(mjcf.boundmass))
        mjcf.boundinertia = mjcf.number(attrs, "boundinertia", where, str(mjcf.boundinertia))
        mjcf.totalmass = mjcf.number(attrs, "settotalmass", where, str(mjcf.totalmass))
        if attrs.get("balanceinertia") == "true":
            mjcf.ignored["compiler balanceinertia"] += 1
            mjcf.balanceinertia = True
    gravity = np.array([0.0, 0.0, -9.81])
    for element in root.iter("option"):
        if "gravity" in element.attrib:
            gravity = mjcf.numbers(element.attrib, "gravity", "<option>", 3)
        for key in ("density", "viscosity"):
            if mjcf.number(element.attrib, key, "<option>", "0") != 0.0:
                mjcf.ignored[f"fluid forces (option {key})"] += 1
        if np.any(mjcf.numbers(element.attrib, "wind", "<option>", 3, "0 0 0")):
            mjcf.ignored["fluid forces (option wind)"] += 1
        for flag in element.findall("flag"):
            for key in _HONOURED_FLAGS:
                if key in flag.attrib:
                    if mjcf.choice(flag.attrib, key, "<option><flag>", ("enable", "disable"), "enable") == "disable":
                        mjcf.disabled.add(key)
                    else:
                        mjcf.disabled.discard(key)
    if "gravity" in mjcf.disabled:
        gravity = np.zeros(3)
    return gravity


# ----------------------------------------------------------------------------------------------
# The tree
# ----------------------------------------------------------------------------------------------
_UNSUPPORTED_IN_BODY = ("frame", "composite", "flexcomp", "replicate", "attach")


class _Builder:
    """Walks <worldbody> depth first, collecting the bodies (added once masses are final), then the rest."""

    def __init__(self, mjcf, classes, model):
        self.mjcf, self.classes, self.model = mjcf, classes, model
        self.plans = []       # [body name, parent, joint, placement, mass, com, inertia]
        self.springs = []     # JointSpring arguments
        self.springref = {}   # hinge and slide joint name -> springref (q units): MuJoCo's qpos_spring
        self.frictionloss = []  # (joint name, frictionloss) of hinges and slides
        self.geoms = []       # (body, shape, placement, {friction, priority, condim}, name, MJCF body, contype,
        #                        conaffinity)
        self.sites = []       # (name, body, placement)
        self.offsets = {"world": Transform()}  # MuJoCo body frame in its multibody body frame
        self.mb_body = {"world": "world"}       # MuJoCo body name -> multibody body carrying it
        self.qpos0 = []
        self.count = 0
        self.paired = set()   # names of the geoms of <contact><pair>s, imported even when contype = conaffinity = 0

    def world(self, element):
        for child in element:
            if child.tag == "body":
                self.body(child, "world", Transform(), "main")
            elif child.tag in ("geom", "site"):
                self.attachment(child, "world", "world", Transform(), "main")
            elif child.tag in _UNSUPPORTED_IN_BODY:
                self.mjcf.fail(f"<worldbody> <{child.tag}>", "not supported by the multibody importer")
            elif child.tag in ("plugin",):
                self.mjcf.ignored[f"<{child.tag}>"] += 1

    def body(self, element, parent, parent_offset, childclass):
        mjcf = self.mjcf
        self.count += 1
        name = element.get("name") or f"body{self.count}"
        where = f"body '{name}'"
        if name in self.mb_body:
            mjcf.fail(where, "duplicate body name")
        childclass = element.get("childclass", childclass)
        if childclass not in self.classes:
            mjcf.fail(f"{where} childclass", f"unknown default class {childclass!r}")
        pose = parent_offset @ mjcf.pose(element.attrib, where)
        if float(element.get("gravcomp", "0")) != 0.0:
            mjcf.ignored["body gravcomp"] += 1
        if element.get("mocap") == "true":
            mjcf.ignored["mocap bodies (fixed where the file puts them, so not touching the world's shapes)"] += 1
        joints, geoms, inertial = [], [], None
        for child in element:
            if child.tag == "joint":
                joints.append(attributes(mjcf, self.classes, child, childclass))
            elif child.tag == "freejoint":
                joints.append({"type": "free", **child.attrib})
            elif child.tag == "inertial":
                inertial = child
            elif child.tag in _UNSUPPORTED_IN_BODY:
                mjcf.fail(f"{where} <{child.tag}>", "not supported by the multibody importer")
            elif child.tag == "plugin":
                mjcf.ignored["<plugin>"] += 1
        for child in element.findall("geom"):
            attrs = attributes(mjcf, self.classes, child, childclass)
            kind = mjcf.choice(attrs, "type", f"{where} <geom>", ("plane", "hfield", "sphere", "capsule", "ellipsoid",
                                                                   "cylinder", "box", "mesh", "sdf"), "sphere")
            geom_where = f"{where} <geom name={child.get('name')!r}>" if child.get("name") else f"{where} <geom>"
            geoms.append((attrs, kind, *_geom_frame(mjcf, attrs, kind, geom_where), geom_where))
        mass, com, inertia = self.mass_properties(name, inertial, geoms, where)
        offset = self.joints(name, parent, pose, joints, where)
        last = self.plans[-1]
        last[4:] = [mass, offset.apply(com), offset.rotation @ inertia @ offset.rotation.T]
        self.offsets[name], self.mb_body[name] = offset, name
        for child in element:
            if child.tag in ("geom", "site"):
                self.attachment(child, name, name, offset, childclass)
            elif child.tag == "body":
                self.body(child, name, offset, childclass)

    def mass_properties(self, name, inertial, geoms, where):
        """(mass, mass center, central inertia) in the MuJoCo body frame."""
        mjcf = self.mjcf
        from_geoms = mjcf.inertiafromgeom == "true" or (mjcf.inertiafromgeom == "auto" and inertial is None)
        if from_geoms:
            mass, com, inertia = _geom_mass_properties(mjcf, geoms, name)
        elif inertial is not None:
            mass, com, inertia = _inertial(mjcf, inertial, where)
        else:
            mass, com, inertia = 0.0, np.zeros(3), np.zeros((3, 3))
        mass, inertia = _bounded(mjcf, mass, inertia)
        return mass, com, inertia

    def joints(self, name, parent, pose, joints, where):
        """Add the plans of the body's joints; returns the MuJoCo body frame in the last multibody body frame."""
        mjcf = self.mjcf
        if not joints:
            self.plans.append([name, parent, Fixed(name=f"{name}_fixed"), pose, 0.0, None, None])
            return Transform()
        previous_anchor = None
        for k, attrs in enumerate(joints):
            kind = mjcf.choice(attrs, "type", f"{where} <joint>", ("hinge", "slide", "ball", "free"), "hinge")
            joint_name = attrs.get("name") or (f"{name}_joint{k}" if len(joints) > 1 else f"{name}_joint")
            jwhere = f"{where} joint '{joint_name}'"
            anchor = mjcf.numbers(attrs, "pos", jwhere, 3, "0 0 0")
            body = name if k == len(joints) - 1 else f"{name}:{joint_name}"
            if kind == "free":
                if len(joints) > 1 or parent != "world":
                    mjcf.fail(jwhere, "a free joint must be the only joint of a child of the world body")
                self.plans.append([body, parent, Free(name=joint_name, armature=self.number(attrs, "armature", jwhere)),
                                   Transform(), 0.0, None, None])
                self.qpos0.append(np.concatenate([pose.translation, rotation_to_quat(pose.rotation)]))
                self.passive(attrs, kind, joint_name, jwhere)
                return Transform()
            shift = anchor if k == 0 else anchor - previous_anchor
            placement = pose @ Transform(translation=shift) if k == 0 else Transform(translation=shift)
            armature = self.number(attrs, "armature", jwhere)
            if kind == "ball":
                joint = Spherical(name=joint_name, armature=armature)
                if self.limits(attrs, kind, jwhere) is not None:  # a cone about the joint's rest pose
                    mjcf.ignored["joint range on a ball joint"] += 1
                self.qpos0.append(np.array([1.0, 0.0, 0.0, 0.0]))
            else:
                axis = mjcf.numbers(attrs, "axis", jwhere, 3, "0 0 1")
                if np.linalg.norm(axis) < 1e-12:
                    mjcf.fail(f"{jwhere} axis", f"must be a non-zero vector, got {attrs.get('axis')!r}")
                axis = axis / np.linalg.norm(axis)
                ref = self.value(attrs, "ref", kind, jwhere)
                limits = self.limits(attrs, kind, jwhere)
                if kind == "hinge":
                    joint = Revolute(axis, name=joint_name, limits=limits, armature=armature)
                    placement = placement @ Transform(rotation_about(axis, -ref))  # the file's pose at q = ref
                else:
                    joint = Prismatic(axis, name=joint_name, limits=limits, armature=armature)
                    placement = placement @ Transform(translation=-ref * axis)
                self.qpos0.append(np.array([ref]))
            self.passive(attrs, kind, joint_name, jwhere)
            self.plans.append([body, parent, joint, placement, 0.0, np.zeros(3), np.zeros((3, 3))])
            parent, previous_anchor = body, anchor
        return Transform(translation=-previous_anchor)

    def number(self, attrs, key, where, default="0"):
        value = self.mjcf.number(attrs, key, where, default)
        if value < 0.0:
            self.mjcf.fail(f"{where} {key}", f"must be non-negative, got {attrs[key]!r}")
        return value

    def value(self, attrs, key, kind, where):
        """A joint position attribute (ref, springref) in q's units: radians for hinges."""
        value = self.mjcf.number(attrs, key, where, "0")
        return self.mjcf.angle(value) if kind in _ROTATING else value

    def limits(self, attrs, kind, where):
        limited = self.mjcf.choice(attrs, "limited", where, ("true", "false", "auto"), "auto")
        off = limited == "false" or self.mjcf.disabled & {"limit", "constraint"}
        if off or (limited == "auto" and not (self.mjcf.autolimits and "range" in attrs)):
            return None
        low, high = self.mjcf.numbers(attrs, "range", where, 2, "0 0")
        if low > high:
            self.mjcf.fail(f"{where} range", f"lower bound exceeds upper bound, got {attrs.get('range')!r}")
        if kind == "hinge":
            low, high = self.mjcf.angle(low), self.mjcf.angle(high)
        return JointLimits(low, high)

    def passive(self, attrs, kind, joint_name, where):
        """Springs and dampers (JointSpring on hinges and slides), the springref of hinges and slides (MuJoCo's
        qpos_spring, for fixed tendons) and their frictionloss (:mod:`.mjcf_actuators`); multi-dof springs and
        frictionloss are ignored."""
        stiffness = 0.0 if "spring" in self.mjcf.disabled else self.number(attrs, "stiffness", where)
        damping = 0.0 if "damper" in self.mjcf.disabled else self.number(attrs, "damping", where)
        friction = self.number(attrs, "frictionloss", where)
        if kind in ("hinge", "slide"):
            self.springref[joint_name] = self.value(attrs, "springref", kind, where)
            if friction > 0.0:
                self.frictionloss.append((joint_name, friction))
        elif friction > 0.0:
            self.mjcf.ignored[f"frictionloss of {kind} joints"] += 1
        if kind in ("ball", "free"):
            if stiffness > 0.0 or damping > 0.0:
                self.mjcf.ignored[f"stiffness and damping of {kind} joints"] += 1
            return
        if stiffness > 0.0 or damping > 0.0:
            self.springs.append((joint_name, stiffness, self.value(attrs, "springref", kind, where), damping))

    def attachment(self, element, mj_body, body, offset, childclass):
        """A geom (contact shape) or site (frame) of a body, posed in its multibody body frame."""
        mjcf = self.mjcf
        attrs = attributes(mjcf, self.classes, element, childclass)
        label = element.get("name")
        where = f"body '{mj_body}' <{element.tag}{f' name={label!r}' if label else ''}>"
        if element.tag == "site":
            if label and body != "world":
                self.sites.append((label, body, offset @ mjcf.pose(attrs, where)))
            return
        kind = attrs.get("type", "sphere")
        contype, conaffinity = (int(mjcf.numbers(attrs, key, where, (1,), "1")[0])
                                for key in ("contype", "conaffinity"))
        if contype == conaffinity == 0 and label not in self.paired:
            return
        pose, size = _geom_frame(mjcf, attrs, kind, where)
        shape = _contact_shape(kind, size)
        if shape is None:
            mjcf.ignored[f"contact geoms of type {kind}"] += 1
            return
        # the arguments of add_geometry that decide a contact's friction (contact_coefficients, MuJoCo's rule)
        contact = {"friction": mjcf.numbers(attrs, "friction", where, (1, 2, 3), "1 0.005 0.0001")[0],
                   "priority": mjcf.integer(attrs, "priority", where, 0), "condim": _condim(mjcf, attrs, where, "geom")}
        self.geoms.append((body, shape, offset @ pose, contact, label, mj_body, contype, conaffinity))


# ----------------------------------------------------------------------------------------------
# The model
# ----------------------------------------------------------------------------------------------
def model_from_mjcf(path_or_xml, name=None):
    """A :class:`Model` from an MJCF (MuJoCo XML) file path or XML string; see the module docstring for the
    conventions (q is MuJoCo's qpos; a free joint's v is [ω; v_origin] in body axes) and what is read.

    Raises ModelError naming the file, element, attribute and value of anything it cannot read; warns once,
    listing them, about elements that change the dynamics and that it ignores or approximates.
    The returned model's ``reference_configuration`` is MuJoCo's qpos0 (joints at ``ref``, free bodies where the
    file puts them), where :func:`multibody.simulate` starts by default.
    """
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, MAX_BODY_DEPTH * 4 + 1000))  # nested <body> elements are read recursively
    try:
        return _model_from_mjcf(path_or_xml, name)
    finally:
        sys.setrecursionlimit(limit)


# Deepest nesting of <body> elements read (a chain of that many bodies; the recursion limit is raised to match)
MAX_BODY_DEPTH = 5000


def _model_from_mjcf(path_or_xml, name):
    root, source, _ = read_xml(path_or_xml)
    mjcf = Mjcf(source)
    gravity = _settings(mjcf, root)
    classes = default_classes(root)
    model = Model(name or root.get("model", "mjcf"), gravity=gravity)
    builder = _Builder(mjcf, classes, model)
    builder.paired = {child.get(key) for element in root.findall("contact") for child in element.findall("pair")
                      for key in ("geom1", "geom2")}
    for worldbody in root.findall("worldbody"):
        builder.world(worldbody)
    _add_bodies(mjcf, builder, model)
    q0 = np.concatenate(builder.qpos0) if builder.qpos0 else np.zeros(0)
    for joint_name, stiffness, rest, damping in builder.springs:
        from ..simulate.forces import JointSpring
        model.add_force(JointSpring(joint_name, stiffness, rest=rest, damping=damping))
    add_actuation(mjcf, root, classes, builder, model)
    geometries = [model.add_geometry(body, shape, placement=placement, name=label, **contact)
                  for body, shape, placement, contact, label, *_ in builder.geoms]
    _contact_filters(mjcf, root, builder, geometries)
    _contact_pairs(mjcf, root, classes, model, geometries)
    model.filter_parent = "filterparent" not in mjcf.disabled
    model.friction_rule = "max"  # MuJoCo's: of two geoms of equal priority, the larger friction
    for label, body, placement in builder.sites:
        if label not in model.frames and label not in model._index and label != "world":
            model.add_frame(label, body, placement)
    for equality in root.findall("equality") if not mjcf.disabled & {"equality", "constraint"} else ():
        _equalities(mjcf, classes, builder, model, equality, q0)
    _count_ignored(mjcf, root)
    if mjcf.ignored:
        listing = ", ".join(f"{what} ({count})" if count > 1 else what for what, count in sorted(mjcf.ignored.items()))
        warnings.warn(f"{source}: ignored or approximated, though it changes the dynamics: {listing}",
                      stacklevel=3)
    model.reference_configuration = q0
    return model


def _add_bodies(mjcf, builder, model):
    """Add the planned bodies, their masses scaled to ``settotalmass`` when given."""
    total = sum(plan[4] for plan in builder.plans)
    scale = mjcf.totalmass / total if mjcf.totalmass > 0.0 and total > 0.0 else 1.0
    check = "semidefinite" if mjcf.balanceinertia else "physical"  # as MuJoCo: refused unless it may balance it
    for name, parent, joint, placement, mass, com, inertia in builder.plans:
        try:
            body = Body(name, mass=scale * mass, com=com, inertia=scale * inertia, check_inertia=check)
        except ModelError as exc:
            problem = str(exc).split(" (check_inertia=")[0]
            if "triangle" in problem:
                problem += "; MuJoCo refuses it too (<compiler balanceinertia=\"true\"/> lets MuJoCo change it)"
            mjcf.fail(f"<body name={name!r}> <inertial>", problem)
        model.add(body, parent=parent, joint=joint, placement=placement)


def _equalities(mjcf, classes, builder, model, element, q0):
    """<connect> and <weld> between bodies become Connect and Weld, <joint> and <tendon> LinearCoupling
    (:func:`~.mjcf_actuators.add_coupling`); anything else is reported as ignored."""
    from ..constraints.types import Connect, Weld
    from ..dynamics.kinematics import body_pose
    for child in element:
        label = child.get("name")
        where = f"<equality> <{child.tag}{f' name={label!r}' if label else ''}>"
        name = child.get("class", "main")
        if name not in classes:
            mjcf.fail(where, f"unknown default class {name!r}")
        attrs = {**classes[name].get("equality", {}), **child.attrib}
        if child.tag in ("joint", "tendon") and attrs.get("active", "true") != "false":
            add_coupling(mjcf, model, child.tag, attrs, where, q0)
            continue
        if child.tag not in ("connect", "weld") or "body1" not in attrs:
            mjcf.ignored[f"equality {child.tag}" + ("" if child.tag not in ("connect", "weld") else " by sites")] += 1
            continue
        if attrs.get("active", "true") == "false":
            mjcf.ignored[f"inactive equality {child.tag}"] += 1
            continue
        bodies = [attrs["body1"], attrs.get("body2", "world")]
        for key, body in zip(("body1", "body2"), bodies):
            if body not in builder.mb_body:
                mjcf.fail(f"{where} {key}", f"unknown body {body!r}")

        def world_pose(body):
            if body == "world":
                return Transform()
            R, p = body_pose(model, q0, body)
            return Transform(R, p)

        a, b = bodies
        if child.tag == "connect":
            anchor = mjcf.numbers(attrs, "anchor", where, 3)
            point_a = builder.offsets[a].apply(anchor)
            point_b = world_pose(b).inverse().apply(world_pose(a).apply(point_a))
            model.add_constraint(Connect(a, point_a, b, point_b, name=label))
            continue
        relpose = mjcf.numbers(attrs, "relpose", where, 7, "0 1 0 0 0 0 0")
        if np.any(relpose[3:]):
            relative = builder.offsets[a] @ Transform(quat_to_rotation(relpose[3:]),
                                                      relpose[:3]) @ builder.offsets[b].inverse()
        else:  # the relative pose at the reference configuration qpos0
            relative = world_pose(a).inverse() @ world_pose(b)
        if a == "world":
            a, b, relative = b, a, relative.inverse()
        model.add_constraint(Weld(a, b, relative=relative, name=label))


def _count_ignored(mjcf, root):
    """Top-level elements with an effect on the dynamics that the importer does not read."""
    for element in root.findall("contact"):
        for child in element:
            if child.tag not in ("exclude", "pair"):
                mjcf.ignored[f"<contact><{child.tag}>"] += 1
    for tag in ("deformable", "flex"):
        if root.find(tag) is not None:
            mjcf.ignored[f"<{tag}>"] += 1
