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
    assert [j.name for j in model.joints] == ["base_joint", "j1", "j2", "j3", "j4"] and model.nv == 4
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
