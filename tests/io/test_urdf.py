"""URDF import: against Pinocchio's own URDF parser, the bundled humanoid, and clear errors."""
import numpy as np
import pytest

import multibody as mb
from multibody.io.files import example_path

ARM = """<?xml version="1.0"?>
<robot name="arm">
  <link name="base"><inertial><origin xyz="0 0 0.05"/><mass value="3"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l1"><inertial><origin xyz="0.1 0.02 0.15" rpy="0.3 -0.2 0.5"/><mass value="2"/>
    <inertia ixx="0.03" iyy="0.025" izz="0.012" ixy="0.001" ixz="-0.002" iyz="0.0015"/></inertial></link>
  <link name="l2"><inertial><origin xyz="0.2 0 0" rpy="0 0.4 0"/><mass value="1.5"/>
    <inertia ixx="0.004" iyy="0.02" izz="0.021" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="slider"><inertial><origin xyz="0 0 -0.05"/><mass value="0.7"/>
    <inertia ixx="0.002" iyy="0.002" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"/>
  <link name="wheel"><inertial><origin xyz="0 0 0"/><mass value="0.3"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.0015" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1" rpy="0 0 0.3"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.1 0 0.3" rpy="1.5707963 0 0"/><axis xyz="0 0.6 0.8"/></joint>
  <joint name="j3" type="prismatic"><parent link="l2"/><child link="slider"/>
    <origin xyz="0.4 0 0" rpy="0.1 0.2 0.3"/><axis xyz="1 0 0"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  <joint name="tool_mount" type="fixed"><parent link="slider"/><child link="tool"/><origin xyz="0 0 -0.1"/></joint>
  <joint name="j4" type="revolute"><parent link="tool"/><child link="wheel"/>
    <origin xyz="0.05 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""


def test_arm_matches_pinocchio_mass_matrix_and_inverse_dynamics():
    pin = pytest.importorskip("pinocchio")
    model = mb.Model.from_urdf(ARM)
    assert [j.name for j in model.joints] == ["j1", "j2", "j3", "j4"] and model.nv == 4 and model.frames["base"][0] == -1
    assert "tool" in model.frames
    # Pinocchio gives continuous joints (cos, sin) coordinates: compare with the same joint as revolute
    reference = pin.buildModelFromXML(ARM.replace('type="continuous"', 'type="revolute"').replace(
        '<axis xyz="0 0.6 0.8"/>', '<axis xyz="0 0.6 0.8"/><limit lower="-3" upper="3" effort="1" velocity="1"/>'))
    reference.gravity.linear[:] = model.gravity
    data = reference.createData()
    rng = np.random.default_rng(0)
    for _ in range(3):
        q, v, a = rng.normal(size=(3, 4))
        np.testing.assert_allclose(mb.crba(model, q), pin.crba(reference, data, q), atol=1e-12)
        np.testing.assert_allclose(mb.rnea(model, q, v, a), pin.rnea(reference, data, q, v, a), atol=1e-11)
        pin.forwardKinematics(reference, data, q)
        pin.updateFramePlacements(reference, data)
        tool = data.oMf[reference.getFrameId("tool")]
        np.testing.assert_allclose(mb.body_pose(model, q, "tool")[1], tool.translation, atol=1e-12)


def test_humanoid_example_has_a_floating_pelvis_and_a_camera_frame():
    model = mb.load(example_path("humanoid"))
    assert model.nbodies == 13 and model.nq == 19 and model.nv == 18
    assert type(model.joints[0]) is mb.Free and model.bodies[0].name == "pelvis"
    assert "camera" in model.frames and model.total_mass() == pytest.approx(60.0)
    fixed = mb.Model.from_urdf(ARM, floating_base=True)
    assert type(fixed.joints[0]) is mb.Free


@pytest.mark.parametrize("edit, message", [
    (lambda x: x.replace("</robot>", ""), "<urdf string>: malformed XML at line"),
    (lambda x: x.replace('<parent link="l2"/>', '<parent link="l9"/>'), "joint 'j3' <parent>: unknown parent link 'l9'"),
    (lambda x: x.replace('<mass value="2"/>', '<mass value="two"/>'), "link 'l1' <inertial> <mass> value: expected 1 number"),
    (lambda x: x.replace('<mass value="2"/>', ''), "link 'l1' <inertial>: missing <mass>"),
    (lambda x: x.replace('ixx="0.03"', ''), "link 'l1' <inertial> <inertia>: missing attribute 'ixx'"),
    (lambda x: x.replace('type="prismatic"', 'type="screw"'), "joint 'j3' type: unsupported joint type 'screw'"),
    (lambda x: x.replace('<axis xyz="1 0 0"/>', '<axis xyz="1 0"/>'), "joint 'j3' <axis> xyz: expected 3"),
    (lambda x: x.replace('<link name="l2">', '<link name="l2x">'), "joint 'j2' <child>: unknown child link 'l2'"),
    (lambda x: x.replace('<mass value="0.7"/>', '<mass value="-0.7"/>'), "link 'slider' <inertial> <mass>: mass must be non-negative"),
    (lambda x: x.replace('ixx="0.002" iyy="0.002" izz="0.001"', 'ixx="0.002" iyy="-0.002" izz="0.001"'),
     "link 'slider' <inertial> <inertia>: body 'slider': inertia must be positive semi-definite, got principal moments"),
    (lambda x: x.replace('<limit lower="0" upper="1"', '<limit lower="1" upper="0"'), "joint 'j3' <limit>: joint limits: lower 1 exceeds upper 0"),
    (lambda x: x.replace('name="j4"', 'name="j1"'), "joint 'j1': defined twice"),
])
def test_errors_are_one_clear_line(edit, message):
    with pytest.raises(mb.ModelError) as info:
        mb.Model.from_urdf(edit(ARM))
    text = str(info.value)
    assert message in text and "\n" not in text, text


def test_file_errors_name_the_file(tmp_path):
    path = tmp_path / "robot.urdf"
    path.write_text("<robot><link name='a'>")
    with pytest.raises(mb.ModelError, match=r"robot\.urdf: malformed XML at line 1"):
        mb.load(path)
    with pytest.raises(mb.ModelError, match="no such URDF file"):
        mb.Model.from_urdf(tmp_path / "missing.urdf")


TREE = """<robot name="tree">
  <link name="base"><inertial><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.02"/></inertial></link>
  <link name="a1"><inertial><origin xyz="0.1 0 0"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial></link>
  <link name="a2"><inertial><origin xyz="0.1 0 0"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial></link>
  <link name="b1"><inertial><origin xyz="0 0.1 0"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial></link>
  <link name="sensor"><inertial><origin xyz="0 0 0.05" rpy="0.3 0 0"/><mass value="0.2"/>
    <inertia ixx="0.001" iyy="0.002" izz="0.0025"/></inertial></link>
  <link name="camera"/>
  <joint name="ja1" type="revolute"><parent link="base"/><child link="a1"/><axis xyz="0 0 1"/>
    <limit lower="-1.5" upper="2" effort="30" velocity="4"/><dynamics damping="0.5" friction="0.2"/></joint>
  <joint name="jb1" type="revolute"><parent link="base"/><child link="b1"/><origin xyz="0 0.2 0"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="ja2" type="continuous"><parent link="a1"/><child link="a2"/><origin xyz="0.2 0 0"/><axis xyz="0 1 0"/></joint>
  <joint name="mount" type="fixed"><parent link="a2"/><child link="sensor"/><origin xyz="0.2 0 0" rpy="0 0.5 0"/></joint>
  <joint name="lens" type="fixed"><parent link="sensor"/><child link="camera"/><origin xyz="0 0 0.1"/></joint>
</robot>"""


def test_q_follows_the_files_depth_first_order_and_fixed_links_are_welded_into_frames():
    model = mb.Model.from_urdf(TREE)
    assert [j.name for j in model.joints] == ["ja1", "ja2", "jb1"]  # depth first, not breadth first
    assert [b.name for b in model.bodies] == ["a1", "a2", "b1"] and {"base", "sensor", "camera"} <= set(model.frames)
    assert model.body("a2").mass == pytest.approx(1.2)
    kept = mb.Model.from_urdf(TREE, fuse_fixed=False)
    assert [b.name for b in kept.bodies] == ["base", "a1", "a2", "sensor", "b1"] and "camera" in kept.frames
    rng = np.random.default_rng(3)
    q, v, a = rng.normal(size=(3, 3))
    np.testing.assert_allclose(mb.body_pose(model, q, "base")[1], np.zeros(3), rtol=0, atol=0)
    assert not mb.jacobian(model, q, "base", (0.3, 0, 0)).any()
    np.testing.assert_allclose(mb.crba(model, q), mb.crba(kept, q), rtol=0, atol=1e-14)
    np.testing.assert_allclose(mb.rnea(model, q, v, a), mb.rnea(kept, q, v, a), rtol=0, atol=1e-13)
    for name in ("sensor", "camera"):
        for part in (0, 1):
            np.testing.assert_allclose(mb.body_pose(model, q, name)[part], mb.body_pose(kept, q, name)[part],
                                       rtol=0, atol=1e-14)
    np.testing.assert_allclose(mb.jacobian(model, q, "camera", (0.1, 0, 0)), mb.jacobian(kept, q, "camera", (0.1, 0, 0)),
                               rtol=0, atol=1e-14)


def test_limits_damping_and_friction_are_read():
    model = mb.Model.from_urdf(TREE)
    assert model.joints[model.joint_index("ja1")].limits == mb.JointLimits(-1.5, 2.0, 30.0, 4.0)
    assert model.joints[model.joint_index("ja2")].limits is None
    forces = {type(f).__name__: f for f in model.forces}
    assert forces["JointSpring"].damping == 0.5 and forces["JointSpring"].stiffness == 0.0
    assert forces["JointFriction"].friction == 0.2 and len(model.forces) == 2


def test_floating_base_always_floats_or_raises():
    model = mb.Model.from_urdf(TREE, floating_base=True)
    assert type(model.joints[0]) is mb.Free and model.joints[0].name == "root_joint" and model.nv == 9
    clash = mb.Model.from_urdf(TREE.replace('name="ja1"', 'name="root_joint"'), floating_base=True)
    assert [j.name for j in clash.joints][:2] == ["root_joint_", "root_joint"]
    massless_root = TREE.replace('<link name="base"><inertial><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.02"/>'
                                 '</inertial></link>', '<link name="base"/>')
    model = mb.Model.from_urdf(massless_root, floating_base=True)
    assert type(model.joints[0]) is mb.Free and model.bodies[0].mass == 0.0  # floats on its children's mass
    assert mb.aba(model, model.neutral(), np.zeros(9), np.zeros(9)).shape == (9,)
    world = TREE.replace('<robot name="tree">', '<robot name="tree"><link name="world"/><joint name="weld" type="fixed">'
                         '<parent link="world"/><child link="base"/><origin xyz="0 0 1"/></joint>')
    welded = mb.Model.from_urdf(world)  # 'world' is the fixed world: 'base', welded to it, is a frame of it
    assert welded.nv == 3 and mb.body_pose(welded, np.zeros(3), "base")[1][2] == 1.0
    assert mb.body_pose(welded, np.zeros(3), "a1")[1][2] == 1.0
    floating = mb.Model.from_urdf(world, floating_base=True)
    assert type(floating.joints[0]) is mb.Free and floating.bodies[0].name == "base"
    two = world.replace('<link name="camera"/>', '<link name="camera"/><link name="table"/><joint name="t" type="fixed">'
                        '<parent link="world"/><child link="table"/></joint>')
    with pytest.raises(mb.ModelError, match="floating_base=True, but the root link 'world'"):
        mb.Model.from_urdf(two, floating_base=True)


def test_triangle_inequality_breaks_warn_once_and_strict_checking_refuses_them():
    odd = TREE.replace('ixx="0.001" iyy="0.002" izz="0.0025"', 'ixx="0.001" iyy="0.001" izz="0.01"')
    with pytest.warns(UserWarning, match=r"<urdf string>: the inertias of links sensor break the triangle") as record:
        mb.Model.from_urdf(odd)
    assert len(record) == 1
    with pytest.raises(mb.ModelError, match=r"link 'sensor' <inertial> <inertia>: .*triangle inequality"):
        mb.Model.from_urdf(odd, check_inertia="physical")


def test_a_loop_of_links_is_an_error_not_a_silent_drop():
    loop = TREE.replace('<link name="camera"/>', '<link name="camera"/><link name="x"/><link name="y"/>'
                        '<joint name="xy" type="fixed"><parent link="x"/><child link="y"/></joint>'
                        '<joint name="yx" type="fixed"><parent link="y"/><child link="x"/></joint>')
    with pytest.raises(mb.ModelError, match="links not connected to the root 'base' .*: x, y"):
        mb.Model.from_urdf(loop)


def test_planar_joint_moves_in_the_plane_normal_to_its_axis():
    planar = """<robot name="p"><link name="floor"/>
      <link name="puck"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.2" izz="0.3"/></inertial></link>
      <joint name="slide" type="planar"><parent link="floor"/><child link="puck"/><axis xyz="1 0 0"/></joint></robot>"""
    model = mb.Model.from_urdf(planar)
    assert model.nv == 3
    q = np.array([0.3, -0.2, 0.7])
    R, p = mb.body_pose(model, q, "puck")
    assert p[0] == pytest.approx(0.0, abs=1e-15) and np.hypot(p[1], p[2]) == pytest.approx(np.hypot(0.3, 0.2))
    np.testing.assert_allclose(R, mb.rotation_about((1, 0, 0), 0.7), rtol=0, atol=1e-14)  # the link's own axes
    # the inertia about the plane normal (the link's x axis) resists the rotation: M[2, 2] = Ixx
    assert mb.crba(model, q)[2, 2] == pytest.approx(0.1)


BALL_ON_A_STICK = """<robot name="toy">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial>
    <collision><origin xyz="0 0 -0.2"/><geometry><sphere radius="0.1"/></geometry></collision>
    <collision><geometry><cylinder radius="0.02" length="0.3"/></geometry></collision>
    <collision><geometry><mesh filename="package://toy/base.stl"/></geometry></collision>
  </link>
</robot>"""


def test_collision_primitives_become_contact_shapes_that_land_on_a_floor():
    """collisions=True: the sphere at its <origin>, the cylinder as a capsule (warned), the mesh whose file is not
    there skipped (warned, naming the file); dropped on a floor the model comes to rest on its sphere."""
    with pytest.warns(UserWarning) as caught:
        model = mb.Model.from_urdf(BALL_ON_A_STICK, floating_base=True, collisions=True)
    messages = " ".join(str(w.message) for w in caught)
    assert "cylinders read as capsules (rounded ends) on base" in messages
    assert "link 'base' <collision> <mesh>: mesh file 'package://toy/base.stl' not found" in messages
    assert [g.name for g in model.geometries] == ["base_0", "base_1"]
    assert isinstance(model.geometries[1].shape, mb.Capsule) and model.geometries[1].shape.half_length == pytest.approx(0.13)
    assert mb.Model.from_urdf(BALL_ON_A_STICK, floating_base=True).geometries == []  # not asked: not read
    model.add_geometry("world", mb.Plane(), name="floor")
    q0 = model.neutral()
    q0[2] = 0.5
    traj = mb.simulate(model, q0, None, 1.0, collisions=True, samples=11)
    assert traj.impacts and abs(traj.q[-1, 2] - 0.3) < 1e-6  # the sphere's centre 0.2 below the base, radius 0.1
