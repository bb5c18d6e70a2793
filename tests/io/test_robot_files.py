"""Every URDF of the example-robot-data package loads, fixed and floating, and its dynamics agree with Pinocchio's
own URDF parser (`buildModelFromUrdf`) to 1e-9, joints matched by name."""
from pathlib import Path
import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.model.joints import FREE, PLANAR, PRISMATIC, REVOLUTE

pin = pytest.importorskip("pinocchio")
ROBOTS = Path(pin.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"
FILES = sorted(ROBOTS.glob("**/*.urdf"))
# romeo_laas_small: link 'body' has principal moments (−0.021, 0.052, 0.099) kg m², not an inertia at all: the
# importer refuses it by default; with check_inertia="none" it loads as Pinocchio reads it.
WRONG_INERTIA = {"romeo_laas_small.urdf"}
# ur3.urdf is an empty <robot/> (a xacro stub): no links, which both parsers refuse.
EMPTY = {"ur3.urdf"}
# The Romeo files move massless finger or gripper links with joints of their own: nothing with mass moves along
# those joints, so M is singular. Inverse dynamics and M agree with Pinocchio; forward dynamics raises, naming them.
MASSLESS_JOINTS = {"romeo.urdf": ("LThumb1", "RFinger33"), "romeo_laas_small.urdf": ("l_gripper_joint", "r_gripper_joint")}


def test_the_package_is_installed_with_its_robots():
    assert len(FILES) >= 68, f"example-robot-data URDFs not found under {ROBOTS}"


class NamedTwin:
    """Maps states of a multibody model to a Pinocchio model of the same file, joint by joint by name."""

    def __init__(self, model, reference):
        self.model, self.reference = model, reference
        self.joints = []
        for jid in range(1, reference.njoints):
            name, joint = reference.names[jid], reference.joints[jid]
            ours = model.joints[model.joint_index(name)]
            self.joints.append((ours.code, model.q_slice(name), model.v_slice(name), joint.idx_q, joint.nq,
                                joint.idx_v, joint.nv))
        assert sum(j[6] for j in self.joints) == model.nv == reference.nv

    def q(self, q):
        out = np.empty(self.reference.nq)
        for code, sq, _, iq, nq, _, _ in self.joints:
            qj = q[sq]
            if code == FREE:  # ours (x, y, z, w, x, y, z); Pinocchio (x, y, z, x, y, z, w)
                qj = np.r_[qj[:3], qj[4:], qj[3]]
            elif code == PLANAR:
                qj = np.r_[qj[:2], np.cos(qj[2]), np.sin(qj[2])]
            elif nq == 2:  # continuous joint: (cos θ, sin θ)
                qj = np.r_[np.cos(qj[0]), np.sin(qj[0])]
            out[iq:iq + nq] = qj
        return out

    def v(self, v):
        out = np.empty(self.reference.nv)
        for code, _, sv, _, _, iv, nv in self.joints:
            vj = v[sv]
            out[iv:iv + nv] = np.r_[vj[3:], vj[:3]] if code == FREE else vj  # ours [ω; v], Pinocchio [v; ω]
        return out

    def M(self, M):
        """Pinocchio's mass matrix in our order of v."""
        perm = np.empty(self.model.nv, dtype=int)
        for code, _, sv, _, _, iv, nv in self.joints:
            idx = np.arange(iv, iv + nv)
            perm[sv] = np.r_[idx[3:], idx[:3]] if code == FREE else idx
        M = np.triu(M) + np.triu(M, 1).T
        return M[np.ix_(perm, perm)]


def _load(path, floating):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unphysical-inertia warnings are checked below
        kwargs = {"check_inertia": "none"} if path.name in WRONG_INERTIA else {}
        return mb.Model.from_urdf(path, floating_base=floating, **kwargs)


def _pinocchio_floating(path):
    """Pinocchio's floating-base model. Where the root link is 'world', Pinocchio floats that link and keeps its
    fixed joint's offset to the robot's base; multibody floats the base itself (q is its pose in the world), which
    is the same mechanism once the offset is dropped."""
    import xml.etree.ElementTree as ET
    robot = ET.parse(path).getroot()
    for joint in robot.findall("joint"):
        if joint.find("parent").get("link") == "world" and joint.find("origin") is not None:
            joint.remove(joint.find("origin"))
    return pin.buildModelFromXML(ET.tostring(robot, encoding="unicode"), pin.JointModelFreeFlyer())


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_robot_dynamics_agree_with_pinocchio(path, floating):
    if path.name in EMPTY:
        with pytest.raises(mb.ModelError, match=f"{path.name}: <robot>: has no <link>"):
            _load(path, floating)
        return
    model = _load(path, floating)
    if path.name in MASSLESS_JOINTS:
        with pytest.raises(mb.ModelError, match="mass matrix is singular") as error:
            mb.aba(model, model.neutral(), np.zeros(model.nv), np.zeros(model.nv))
        assert all(f"'{name}'" in str(error.value) for name in MASSLESS_JOINTS[path.name])
    file_floats = any(type(j) is mb.Free and j.name != "root_joint" for j in model.joints)
    reference = (_pinocchio_floating(path) if floating and not file_floats else pin.buildModelFromUrdf(str(path)))
    assert model.nv == reference.nv and model.nq == reference.nq - sum(j.nq == 2 and j.nv == 1 for j in reference.joints)
    if floating:
        assert type(model.joints[0]) is mb.Free
    twin = NamedTwin(model, reference)
    data = reference.createData()
    rng = np.random.default_rng(len(path.name))
    for _ in range(2):
        q = model.random_configuration(rng)
        v, a = rng.normal(size=(2, model.nv))
        qp, vp, ap = twin.q(q), twin.v(v), twin.v(a)
        tau = mb.rnea(model, q, v, a)
        scale = 1.0 + np.abs(tau).max(initial=0.0)
        np.testing.assert_allclose(twin.v(tau), pin.rnea(reference, data, qp, vp, ap), rtol=0, atol=1e-9 * scale)
        M = mb.crba(model, q)
        np.testing.assert_allclose(M, twin.M(pin.crba(reference, data, qp)), rtol=0,
                                   atol=1e-9 * (1 + np.abs(M).max(initial=0.0)))
        if path.name not in MASSLESS_JOINTS:
            np.testing.assert_allclose(twin.v(mb.aba(model, q, v, tau)), pin.aba(reference, data, qp, vp, twin.v(tau)),
                                       rtol=0, atol=1e-9 * (1 + np.abs(a).max(initial=0.0)) * (np.linalg.cond(M) if model.nv else 1.0))
    # every link is a body or a frame (fused links) except those welded to the fixed world
    pin.forwardKinematics(reference, data, qp)
    pin.updateFramePlacements(reference, data)
    for frame_id, frame in enumerate(reference.frames):
        if frame.type != pin.FrameType.BODY or frame.name == "world" or (frame.parentJoint == 0 and not floating):
            continue
        R, p = mb.body_pose(model, q, frame.name)
        np.testing.assert_allclose(p, data.oMf[frame_id].translation, rtol=0, atol=1e-9)
        np.testing.assert_allclose(R, data.oMf[frame_id].rotation, rtol=0, atol=1e-9)


def test_panda_fingers_are_coupled_by_its_mimic_joint():
    model = _load(ROBOTS / "panda_description/urdf/panda.urdf", False)
    (mimic,) = model.constraints
    assert type(mimic) is mb.Mimic and (mimic.joint, mimic.master) == ("panda_finger_joint2", "panda_finger_joint1")
    finger1, finger2 = model.v_slice("panda_finger_joint1").start, model.v_slice("panda_finger_joint2").start
    q = model.random_configuration(1)
    q[model.q_slice("panda_finger_joint2")] = q[model.q_slice("panda_finger_joint1")]
    v = np.random.default_rng(2).normal(size=model.nv)
    v[finger2] = v[finger1]
    a = mb.forward_dynamics(model, q, v, np.zeros(model.nv))
    assert a[finger2] == pytest.approx(a[finger1], abs=1e-9)
    assert abs(mb.aba(model, q, v, np.zeros(model.nv))[finger2] - mb.aba(model, q, v, np.zeros(model.nv))[finger1]) > 1e-3


def test_unphysical_inertias_of_real_files_warn_once_naming_the_links():
    with pytest.warns(UserWarning, match=r"anymal\.urdf: the inertias of links depth_camera_front_camera.*hatch break "
                                         r"the triangle inequality") as record:
        mb.Model.from_urdf(ROBOTS / "anymal_c_simple_description/urdf/anymal.urdf")
    assert len(record) == 1
    with pytest.raises(mb.ModelError, match=r"romeo_laas_small\.urdf: link 'body' <inertial> <inertia>: .*positive "
                                            r"semi-definite, got principal moments \[-0\.0213"):
        mb.Model.from_urdf(ROBOTS / "romeo_description/urdf/romeo_laas_small.urdf")


def test_joint_limits_of_a_robot_file_can_be_enforced_in_simulation():
    model = mb.Model.from_urdf(ROBOTS / "ur_description/urdf/ur5_joint_limited_robot.urdf", joint_limits=True)
    limited = [c.joint for c in model.constraints if type(c) is mb.JointLimit]
    assert limited == [j.name for j in model.joints]  # every UR5 joint is limited in this file
    elbow = model.joints[model.joint_index("elbow_joint")]
    q0 = np.zeros(model.nv)
    q0[model.q_slice("elbow_joint")] = elbow.limits.upper - 0.05
    traj = mb.simulate(model, q0, np.zeros(model.nv), t_end=0.4)
    assert traj.q[:, model.q_slice("elbow_joint").start].max() <= elbow.limits.upper + 1e-6


@pytest.mark.parametrize("name", ["go1_description/urdf/go1.urdf", "panda_description/urdf/panda_collision.urdf",
                                  "anymal_b_simple_description/robots/anymal.urdf"])
def test_collision_primitives_are_placed_as_pinocchio_places_them(name):
    """collisions=True: every <collision> sphere, box and cylinder is a contact shape named as Pinocchio names it
    ("<link>_k"), of the same size (a cylinder: the capsule of its radius and overall length), at the same world
    pose at random configurations."""
    path = ROBOTS / name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mb.Model.from_urdf(path, floating_base=True, collisions=True)
    reference = _pinocchio_floating(path)
    geometry = pin.buildGeomFromUrdf(reference, str(path), pin.GeometryType.COLLISION)
    ours = {g.name: g for g in model.geometries}
    primitives = [g for g in geometry.geometryObjects if type(g.geometry).__name__ in ("Sphere", "Box", "Cylinder")]
    assert sorted(ours) == sorted(g.name for g in primitives) and ours
    twin, data, gdata = NamedTwin(model, reference), reference.createData(), pin.GeometryData(geometry)
    q = model.random_configuration(np.random.default_rng(3))
    pin.updateGeometryPlacements(reference, data, geometry, gdata, twin.q(q))
    for k, g in enumerate(geometry.geometryObjects):
        if g.name not in ours:
            continue
        shape, mine = g.geometry, ours[g.name]
        R, p = (np.eye(3), np.zeros(3)) if mine.body == "world" else mb.body_pose(model, q, mine.body)
        np.testing.assert_allclose(p + R @ mine.placement.translation, gdata.oMg[k].translation, rtol=0, atol=1e-9)
        np.testing.assert_allclose(R @ mine.placement.rotation, gdata.oMg[k].rotation, rtol=0, atol=1e-9)
        kind = type(shape).__name__
        if kind == "Sphere":
            assert mine.shape.radius == pytest.approx(shape.radius, abs=1e-12)
        elif kind == "Box":
            np.testing.assert_allclose(mine.shape.half_extents, shape.halfSide, rtol=0, atol=1e-12)
        else:
            assert mine.shape.radius == pytest.approx(shape.radius, abs=1e-12)
            length = 2 * (mine.shape.half_length + mine.shape.radius) if isinstance(mine.shape, mb.Capsule) else None
            assert length is None or length == pytest.approx(2 * shape.halfLength, abs=1e-12)
