"""MJCF import of what drives and loads the joints beyond the tree: joint ``frictionloss``, fixed tendons
(``<tendon><fixed>``) and actuators (``<actuator>``), as force elements of :mod:`multibody.simulate.actuators`
and :mod:`multibody.simulate.forces`.

* ``frictionloss`` of a hinge or slide → :class:`~multibody.JointFriction` (F tanh(q̇ / v_s), v_s = 1e-3):
  MuJoCo makes it a constraint row (exact stiction); multibody's is a smooth approximation, and the file's
  warning says so.
* ``<fixed>`` → :class:`~multibody.FixedTendon`: its joints' ``coef``, ``stiffness``, ``damping`` and
  ``springlength`` (one value, or two for a dead band; −1, the default, is the length at MuJoCo's qpos_spring,
  the joints' ``springref``), and its ``range`` when ``limited`` (or ``auto`` with ``autolimits``) as the tendon's
  ``limits``, which :func:`multibody.simulate` enforces as stops (:class:`~multibody.TendonLimit`). Tendon
  ``frictionloss`` and ``armature`` are named in the warning.
* ``<motor>``, ``<position>`` (``kp``, ``kv`` or ``dampratio``, ``inheritrange`` on joints), ``<velocity>`` (``kv``), ``<damper>`` (``kv``) and ``<general>``
  (``gaintype`` fixed or affine, ``biastype`` none or affine, ``gainprm``, ``biasprm``) on a ``joint`` (or
  ``jointinparent``) that is a hinge or slide, or on a fixed ``tendon`` → :class:`~multibody.Actuator` with the
  ``gear``'s first entry, ``ctrlrange`` (with ``ctrllimited``, or ``autolimits`` when a range is given) and
  ``forcerange`` (``forcelimited``). Activation dynamics (``dyntype`` other than none) are not simulated: the
  force takes the control as the activation (the limit of a fast filter), and the warning names them. Other
  actuators (muscles, cylinders, ``intvelocity``, adhesion, site or body transmissions) are named in the warning
  and left out, so the controls are those of the actuators read, in file order.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..simulate.actuators import Actuator, FixedTendon
from ..simulate.forces import JointFriction

_AFFINE = ("motor", "position", "velocity", "damper", "general")
_ACTUATOR_TAGS = (*_AFFINE, "intvelocity", "cylinder", "muscle", "adhesion", "plugin")


def add_actuation(mjcf, root, classes, builder, model):
    """Add the joints' frictionloss, the fixed tendons and the actuators of the file to ``model``; count what is
    not read in ``mjcf.ignored`` (the file's one warning)."""
    for joint, friction in builder.frictionloss:
        model.add_force(JointFriction(joint, friction, name=f"frictionloss {joint}"))
    if builder.frictionloss:
        mjcf.ignored["joint frictionloss (simulated as smooth friction F tanh(q̇ / 1e-3), not MuJoCo's "
                     "constraint)"] += len(builder.frictionloss)
    tendons = set()
    for element in root.findall("tendon"):
        for child in element:
            if child.tag == "fixed":
                tendons.add(_fixed_tendon(mjcf, classes, builder, model, child))
            else:
                mjcf.ignored[f"tendon {child.tag}"] += 1
    for element in root.findall("actuator"):
        for child in element if "actuation" not in mjcf.disabled else ():  # <flag actuation="disable">: no force
            if child.tag in _AFFINE:
                _actuator(mjcf, classes, builder, model, child, tendons)
            else:
                mjcf.ignored[f"actuator {child.tag}"] += 1
    for element in root.iter():
        for key in ("actuatorfrcrange", "actuatorgravcomp"):
            if key in element.attrib and element.tag in ("joint", "body"):
                mjcf.ignored[f"{element.tag} {key}"] += 1


def _attributes(mjcf, classes, element, tags):
    """The element's attributes over those its default class gives to any of ``tags`` (MuJoCo's actuator defaults
    are shared by all actuator kinds)."""
    label = element.get("class", "main")
    if label not in classes:
        mjcf.fail(f"<{element.tag} name={element.get('name')!r}>", f"unknown default class {label!r}")
    merged = {}
    for tag in tags:
        merged.update(classes[label].get(tag, {}))
    return {**merged, **element.attrib}


def _limited(mjcf, attrs, key, where):
    """The (low, high) of ``<key>range`` when ``<key>limited`` (or ``auto`` with ``autolimits`` and a range), else
    None."""
    limited = mjcf.choice(attrs, f"{key}limited", where, ("true", "false", "auto"), "auto")
    if limited == "false" or (limited == "auto" and not (mjcf.autolimits and f"{key}range" in attrs)):
        return None
    low, high = mjcf.numbers(attrs, f"{key}range", where, 2, "0 0")
    if low > high:
        mjcf.fail(f"{where} {key}range", f"lower bound exceeds upper bound, got {attrs.get(f'{key}range')!r}")
    return (low, high)


def _fixed_tendon(mjcf, classes, builder, model, element):
    attrs = _attributes(mjcf, classes, element, ("tendon",))
    name = element.get("name") or f"tendon{len([e for e in model.forces if isinstance(e, FixedTendon)])}"
    where = f"<tendon> <fixed name={name!r}>"
    joints, coefficients = [], []
    for child in element.findall("joint"):
        joint = child.get("joint")
        if joint not in builder.springref:
            mjcf.fail(f"{where} <joint joint={joint!r}>", "not a hinge or slide joint of the model")
        joints.append(joint)
        coefficients.append(mjcf.number(child.attrib, "coef", where, "1"))
    stiffness = 0.0 if "spring" in mjcf.disabled else builder.number(attrs, "stiffness", where)
    damping = 0.0 if "damper" in mjcf.disabled else builder.number(attrs, "damping", where)
    rest = mjcf.numbers(attrs, "springlength", where, (1, 2), "-1 -1")
    if rest[0] == -1.0 and (len(rest) == 1 or rest[1] == -1.0):  # the length at qpos_spring
        rest = np.full(2, sum(c * builder.springref[j] for j, c in zip(joints, coefficients)))
    elif len(rest) == 1:
        rest = np.full(2, rest[0])
    limits = None if mjcf.disabled & {"limit", "constraint"} else _limited(mjcf, attrs, "", where)
    for key in ("frictionloss", "armature"):
        if builder.number(attrs, key, where) > 0.0:
            mjcf.ignored[f"tendon {key}"] += 1
    model.add_force(FixedTendon(name, joints, coefficients, stiffness=stiffness, rest=tuple(rest), damping=damping,
                                limits=limits))
    return name


def _actuator(mjcf, classes, builder, model, element, tendons):
    attrs = _attributes(mjcf, classes, element, _ACTUATOR_TAGS)
    tag = element.tag
    count = len([e for e in model.forces if isinstance(e, Actuator)])
    name = element.get("name") or f"actuator{count}"
    where = f"<actuator> <{tag} name={name!r}>"
    joint, tendon = attrs.get("joint", attrs.get("jointinparent")), attrs.get("tendon")
    if joint is None and tendon is None:
        transmission = next((k for k in ("site", "body", "cranksite") if k in attrs), "no")
        mjcf.ignored[f"actuators with a {transmission} transmission"] += 1
        return
    if (joint is not None and joint not in builder.springref) or (tendon is not None and tendon not in tendons):
        mjcf.ignored[f"actuators on {'ball or free joints' if joint is not None else 'spatial tendons'}"] += 1
        return
    gain, bias = np.zeros(3), np.zeros(3)
    if tag == "motor":
        gain[0] = 1.0
    elif tag == "position":
        kp, kv = mjcf.number(attrs, "kp", where, "1"), mjcf.number(attrs, "kv", where, "0")
        gain[0], bias[1], bias[2] = kp, -kp, -kv
        if mjcf.number(attrs, "timeconst", where, "0") != 0.0:
            mjcf.ignored["position actuator timeconst (activation dynamics)"] += 1
    elif tag == "velocity":
        kv = mjcf.number(attrs, "kv", where, "1")
        gain[0], bias[2] = kv, -kv
    elif tag == "damper":
        gain[2] = -mjcf.number(attrs, "kv", where, "1")
    else:
        gaintype = mjcf.choice(attrs, "gaintype", where, ("fixed", "affine", "muscle", "user"), "fixed")
        biastype = mjcf.choice(attrs, "biastype", where, ("none", "affine", "muscle", "user"), "none")
        if gaintype not in ("fixed", "affine") or biastype not in ("none", "affine"):
            mjcf.ignored[f"general actuators of gaintype {gaintype}, biastype {biastype}"] += 1
            return
        gainprm = mjcf.numbers(attrs, "gainprm", where, tuple(range(1, 11)), "1")
        biasprm = mjcf.numbers(attrs, "biasprm", where, tuple(range(1, 11)), "0")
        gainprm, biasprm = (np.concatenate([p, np.zeros(10 - len(p))]) for p in (gainprm, biasprm))
        gain[:] = gainprm[:3] if gaintype == "affine" else (gainprm[0], 0.0, 0.0)
        bias[:] = biasprm[:3] if biastype == "affine" else 0.0
        dyntype = mjcf.choice(attrs, "dyntype", where, ("none", "integrator", "filter", "filterexact", "muscle",
                                                         "user"), "none")
        if dyntype != "none":
            mjcf.ignored[f"activation dynamics (dyntype {dyntype}) of actuators: the force takes the control as "
                         "the activation"] += 1
    gear = mjcf.numbers(attrs, "gear", where, tuple(range(1, 7)), "1")[0]
    ctrl_range = None if "clampctrl" in mjcf.disabled else _limited(mjcf, attrs, "ctrl", where)
    actuator = Actuator(name, joint=joint, tendon=tendon, gear=gear, gain=gain, bias=bias, ctrl_range=ctrl_range,
                        force_range=_limited(mjcf, attrs, "force", where))
    if tag == "position":
        _servo_settings(mjcf, model, np.concatenate(builder.qpos0), actuator, attrs, where)
    model.add_force(actuator)


def _servo_settings(mjcf, model, q0, actuator, attrs, where):
    """A position servo's ``inheritrange`` ρ > 0: the control range is the joint's range scaled by ρ about its
    middle; ``dampratio`` ζ > 0: kv = 2 ζ √(kp m), m = 1 / (r M(qpos0)⁻¹ rᵀ) the inertia reflected to the servo's
    length (r its moment arm, M with the armature), as MuJoCo's compiler sets them."""
    inherit = mjcf.number(attrs, "inheritrange", where, "0")
    if inherit > 0.0:
        limits = None if actuator.joint is None else model.joints[model.joint_index(actuator.joint)].limits
        if limits is None:
            mjcf.ignored["position actuator inheritrange on a tendon or a joint without limits"] += 1
        else:
            middle, half = 0.5 * (limits.lower + limits.upper), 0.5 * (limits.upper - limits.lower)
            actuator.ctrl_range = (middle - inherit * half, middle + inherit * half)
    ratio = mjcf.number(attrs, "dampratio", where, "0")
    if ratio > 0.0:
        from ..dynamics import crba
        arm = actuator._arms(model)[1]
        mass = 1.0 / (arm @ np.linalg.solve(crba(model, q0), arm))
        kp = actuator.gain[0]
        actuator.bias = np.array([0.0, -kp, -2.0 * ratio * np.sqrt(kp * mass)])


def add_coupling(mjcf, model, tag, attrs, where, q0):
    """``<equality><joint>`` or ``<tendon>``: y − y₀ = a₀ + a₁ (x − x₀) (``polycoef``; x the second joint or tendon,
    absent: x = x₀), y₀ and x₀ the coordinates (tendon lengths) at qpos0, as a :class:`~multibody.LinearCoupling`
    y − a₁ x = y₀ + a₀ − a₁ x₀; a polynomial of higher degree (a₂, a₃, a₄ ≠ 0) is named in the warning."""
    from ..constraints.coupling import LinearCoupling
    polycoef = mjcf.numbers(attrs, "polycoef", where, 5, "0 1 0 0 0")
    if np.any(polycoef[2:]):
        mjcf.ignored[f"equality {tag} with a nonlinear polycoef"] += 1
        return
    names = [attrs.get(f"{tag}1"), attrs.get(f"{tag}2")]
    if names[0] is None:
        mjcf.fail(where, f"missing attribute '{tag}1'")
    terms = [_linear_terms(mjcf, model, tag, name, where) for name in names if name is not None]
    if any(term is None for term in terms):
        mjcf.ignored[f"equality {tag} on {'ball or free joints' if tag == 'joint' else 'spatial tendons'}"] += 1
        return
    scales = [1.0, -polycoef[1]][:len(terms)]
    joints = [joint for term in terms for joint in term]
    coefficients = [scale * c for scale, term in zip(scales, terms) for c in term.values()]
    offset = polycoef[0]
    for scale, term in zip(scales, terms):
        offset += scale * sum(c * q0[model.one_dof_joint(joint, where)[1]] for joint, c in term.items())
    model.add_constraint(LinearCoupling(joints, coefficients, offset=offset, name=attrs.get("name")))


def _linear_terms(mjcf, model, tag, name, where):
    """{joint: coefficient} of a hinge or slide joint (itself, 1) or a fixed tendon (its joints); None for other
    joints and tendons; ModelError for unknown names."""
    if tag == "joint":
        try:
            joint = model.joints[model.joint_index(name)]
        except ModelError:
            mjcf.fail(where, f"unknown joint {name!r}")
        return {name: 1.0} if joint.nv == 1 else None
    for element in model.forces:
        if isinstance(element, FixedTendon) and element.name == name:
            terms = {}
            for joint, c in zip(element.joints, element.coefficients):
                terms[joint] = terms.get(joint, 0.0) + c
            return terms
    return None  # a spatial tendon (not read)
