"""Joint limits from every source (``Joint.limits``, a URDF <limit>, an MJCF range with limited/autolimits, a
model file's ``limits``) are stops in every simulation method by default, the contact stepper included, and
``joint_limits=False`` lets the joints through (with a warning naming them). The MJCF reader's limits are
MuJoCo's (``jnt_limited``, ``jnt_range``) on every dm-control file."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.constraints.integrate import contact_step
from multibody.io.files import model_from_dict, model_to_dict

sys.path.insert(0, str(Path(__file__).parents[1] / "simulate"))
from sim_models import G, point_pendulum  # noqa: E402

STOP, START = 0.3, 1.0  # released at 1 rad, the pendulum swings down onto its lower limit at 0.3 rad


def _pendulum():
    """Point pendulum (mass 1, length 1, hinge about y) whose joint stores the limits [0.3, 2] rad, no constraint."""
    model = point_pendulum(links=1)
    model.joints[0].limits = mb.JointLimits(lower=STOP, upper=2.0)
    return model


@pytest.mark.parametrize("method, options", [("DOP853", {}), ("RK4", {"dt": 1e-3}), ("Euler", {"dt": 1e-3}),
                                             ("contact", {"dt": 1e-3})])
def test_every_method_stops_the_joint_at_its_stored_limit(method, options):
    """Released at 1 rad (reaching the 0.3 rad stop after ~0.3 s), the pendulum ends at rest on its stop, never
    more than 1e-6 rad (the event methods' release distance) past it: the stored limits are enforced with no
    JointLimit constraint on the model."""
    model = _pendulum()
    traj = mb.simulate(model, [START], [0.0], 0.8, method=method, **options)
    assert traj.q[:, 0].min() >= STOP - 1e-6
    assert traj.q[-1, 0] == pytest.approx(STOP, abs=1e-6)
    assert abs(traj.v[-1, 0]) < 1e-5
    assert model.constraints == []  # the model is left as it was


@pytest.mark.parametrize("method, options", [("DOP853", {}), ("contact", {"dt": 1e-3})])
def test_joint_limits_false_lets_the_joint_through_and_says_so(method, options):
    """With the limits turned off the pendulum swings through its stop to the mirror angle −1 rad (energy kept by
    DOP853; the contact stepper's Euler loses a little), and the warning names the joint and its limits."""
    model = _pendulum()
    with pytest.warns(UserWarning, match=r"'bob0_joint' reached -[01][.0-9]* \(limits \[0\.3, 2\]\)"):
        traj = mb.simulate(model, [START], [0.0], 1.2, method=method, joint_limits=False, **options)
    assert traj.q[:, 0].min() == pytest.approx(-START, abs=0.03)


def test_contact_step_holds_a_limit_and_a_contact_in_one_solve():
    """A ball on a slider (prismatic z joint, stored limits [0.15, 1] m) resting on the floor: with the floor
    0.1 m below the ball's centre at its lower limit, the limit row alone carries the weight: the joint stays on
    it (to 1e-12) and the velocity stays zero, no contact impulse. Lifting the floor to touch the ball, both rows
    are in the step's problem and the ball rests (no penetration, no drift)."""
    for floor, radius in ((0.0, 0.05), (0.05, 0.1)):
        model = mb.Model("slider", gravity=(0, 0, -G))
        model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 1e-3),
                  joint=mb.Prismatic((0, 0, 1), limits=mb.JointLimits(0.15, 1.0)))
        model.add_geometry("ball", mb.Sphere(radius))
        model.add_geometry("world", mb.Plane(), placement=mb.Transform(translation=(0, 0, floor)))
        q, v = np.array([0.15]), np.zeros(1)
        for _ in range(200):
            q, v = contact_step(model, q, v, 1e-3, np.zeros(1))
        np.testing.assert_allclose(q, [0.15], rtol=0, atol=1e-12)
        np.testing.assert_allclose(v, [0.0], rtol=0, atol=1e-12)


def test_stored_limits_from_a_urdf_and_a_model_file_are_enforced(tmp_path):
    """A URDF <limit> and a model file's joint ``limits`` (written and read back exactly) stop the joint."""
    urdf = """<robot name="p"><link name="base"/>
      <link name="bob"><inertial><origin xyz="0 0 -1"/><mass value="1"/>
        <inertia ixx="1e-9" iyy="1e-9" izz="1e-9" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="hinge" type="revolute"><parent link="base"/><child link="bob"/><axis xyz="0 1 0"/>
        <limit lower="0.3" upper="2" effort="10" velocity="5"/></joint></robot>"""
    model = mb.Model.from_urdf(urdf)
    again = model_from_dict(model_to_dict(model))
    assert again.joints[0].limits == model.joints[0].limits == mb.JointLimits(0.3, 2.0, 10.0, 5.0)
    for m in (model, again):
        traj = mb.simulate(m, [START], [0.0], 0.6, method="contact", dt=1e-3)
        assert traj.q[:, 0].min() >= STOP - 1e-9
    with pytest.raises(mb.ModelError, match=r"bodies\[0\]\.joint\.limits.*one-dof"):
        model_from_dict({"bodies": [{"name": "b", "joint": {"type": "spherical", "limits": {"lower": 0}},
                                     "mass": 1, "inertia": [1, 1, 1]}]})


mujoco = pytest.importorskip("mujoco")
suite = pytest.importorskip("dm_control.suite")
SUITE = Path(suite.__file__).parent


@pytest.mark.parametrize("name", ["cheetah", "walker", "hopper", "humanoid", "quadruped", "acrobot", "cartpole",
                                  "finger", "fish", "manipulator", "reacher", "swimmer", "point_mass", "pendulum"])
def test_mjcf_limits_are_mujocos(name):
    """Every hinge and slide of the dm-control file has MuJoCo's limits: stored (``Joint.limits``) exactly when
    MuJoCo's ``jnt_limited`` (``limited``, ``autolimits`` with a ``range``, the defaults classes), with its
    ``jnt_range`` in radians to 1e-12."""
    path = SUITE / f"{name}.xml"
    m = mujoco.MjModel.from_xml_path(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mb.Model.from_mjcf(str(path))
    checked = 0
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        if m.jnt_type[j] not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)) or not name:
            continue
        joint = model.joints[model.joint_index(name)]
        assert (joint.limits is not None) == bool(m.jnt_limited[j]), joint.name
        if joint.limits is not None:
            np.testing.assert_allclose([joint.limits.lower, joint.limits.upper], m.jnt_range[j], rtol=0, atol=1e-12)
        checked += 1
    assert checked > 0


def test_a_contact_run_with_limits_stops_on_ctrl_c_and_keeps_the_steps_done():
    """Ctrl-C (a KeyboardInterrupt, raised here by the torque at t = 0.1 s) ends a contact run with limits between
    two steps: SimulationInterrupted carries the trajectory up to then, every sample on the limit's side."""
    def torque(t, q, v):
        if t >= 0.1:
            raise KeyboardInterrupt
        return np.zeros(1)
    with pytest.raises(mb.SimulationInterrupted) as caught:
        mb.simulate(_pendulum(), [START], [0.0], 1.0, method="contact", dt=1e-3, torque=torque)
    partial = caught.value.trajectory
    assert partial.info["interrupted"] and 0.09 <= partial.t[-1] <= 0.1 + 1e-12
    assert partial.q[:, 0].min() >= STOP


@pytest.mark.parametrize("method, options", [("DOP853", {}), ("RK4", {"dt": 1e-3})])
def test_a_start_past_a_stored_limit_is_refused_by_the_event_methods(method, options):
    """A start past a stop (Panda's joint 4 at the URDF's zero configuration) would have the event methods' limit
    events chase a bound they never cross: the run is refused with an error naming the joint, its value and
    range, and the ways out (joint_limits=False runs it)."""
    model = _pendulum()
    with pytest.raises(ValueError, match=r"joint '.*' of model '.*' at 0\.1, past its lower limit \(range \[0\.3, 2\]\)"):
        mb.simulate(model, [0.1], [0.0], 0.1, method=method, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (it warns that the joint went past its limits)
        traj = mb.simulate(model, [0.1], [0.0], 0.1, method=method, joint_limits=False, **options)
    assert traj.t[-1] == pytest.approx(0.1)


def test_stored_limits_follow_every_edit_of_the_joints_and_of_the_limit_constraints():
    """The stored limits are the same objects from call to call while nothing changes, and follow an edit of a
    joint's limits (which drops the compiled model), a JointLimit constraint that covers the joint, and that
    constraint moved to another joint in place (no edit of the model's parts: compared on every call)."""
    from multibody.constraints.limits import stored_limits
    model = point_pendulum(links=2)
    model.joints[0].limits = mb.JointLimits(lower=STOP, upper=2.0)
    first = stored_limits(model)
    assert stored_limits(model) is first and [(c.joint, c.lower, c.upper) for c in first] == [
        (model.joints[0].name, STOP, 2.0)]
    model.joints[0].limits = mb.JointLimits(lower=-1.0, upper=1.5)
    assert [(c.lower, c.upper) for c in stored_limits(model)] == [(-1.0, 1.5)]
    model.joints[1].limits = mb.JointLimits(lower=-0.5, upper=0.5)
    explicit = mb.JointLimit(model.joints[0].name)
    model.add_constraint(explicit)
    assert [c.joint for c in stored_limits(model)] == [model.joints[1].name]
    explicit.joint = model.joints[1].name  # (the constraint edited in place)
    assert [c.joint for c in stored_limits(model)] == [model.joints[0].name]
