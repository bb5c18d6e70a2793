"""dm-control models falling for 2 s from the file's qpos0 with ``method="contact"`` at the file's timestep, beside
MuJoCo's ``mj_step`` on the same file, same step: the torso ends within 2 cm (height) and 5 cm (horizontally) of
MuJoCo's, no state of multibody's has a shape more than 3 mm into another, and no joint goes past its limits.

The walker's qpos0 (standing on straight legs, the body above the ankles' free hinges) is an unstable equilibrium:
multibody's exact contact keeps it standing (its torso is still within 2 cm of the start after 0.5 s), while
MuJoCo's soft contact and limits start it falling backwards. Both runs therefore start with the same small push,
a torso pitch rate of −0.05 rad/s, after which both fall backwards alike."""
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.constraints._kinematics import Snapshot
from multibody.constraints.contact import detect

mujoco = pytest.importorskip("mujoco")
suite = pytest.importorskip("dm_control.suite")
SUITE = Path(suite.__file__).parent
T_END = 2.0


def _mujoco(name, kick):
    """MuJoCo's torso position after T_END and its timestep."""
    m = mujoco.MjModel.from_xml_path(str(SUITE / f"{name}.xml"))
    d = mujoco.MjData(m)
    for joint, rate in kick.items():
        d.qvel[m.jnt_dofadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, joint)]] = rate
    for _ in range(int(round(T_END / m.opt.timestep))):
        mujoco.mj_step(m, d)
    return d.xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "torso")].copy(), m.opt.timestep


def _model(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what the files hold that is approximated (zero control here)
        return mb.Model.from_mjcf(str(SUITE / f"{name}.xml"))


def _past_limits(model, q):
    """(T,) the largest distance [rad or m] any joint is past its stored limits, per state."""
    worst = np.zeros(len(q))
    for joint in model.joints:
        if joint.limits is not None:
            k = model.q_slice(joint.name).start
            worst = np.maximum(worst, np.maximum(joint.limits.lower - q[:, k], q[:, k] - joint.limits.upper))
    return worst


@pytest.mark.parametrize("name, kick", [("cheetah", {}), ("hopper", {}), ("humanoid", {}),
                                        ("walker", {"rooty": -0.05})])
def test_falls_end_where_mujocos_do(name, kick):
    expected, dt = _mujoco(name, kick)
    model = _model(name)
    v0 = np.zeros(model.nv)
    for joint, rate in kick.items():
        v0[model.v_slice(joint).start] = rate
    traj = mb.simulate(model, None, v0, T_END, method="contact", dt=dt)
    torso = mb.body_pose(model, traj.q[-1], "torso")[1]
    assert abs(torso[2] - expected[2]) <= 0.02
    assert np.linalg.norm(torso[:2] - expected[:2]) <= 0.05
    depth = max([-c.geometry.distance for q, v in zip(traj.q, traj.v) for c in detect(model, Snapshot(model, q, v))],
                default=0.0)
    assert depth <= 3e-3
    # past the limits by no more than at the start (the hopper's knee starts 0.087 rad below its range), and
    # within them at the end
    past = _past_limits(model, traj.q)
    assert past.max() <= max(past[0], 0.0) + 1e-6
    assert past[-1] <= 1e-6


def test_the_walker_stands_on_straight_legs_without_a_push():
    """From qpos0 without a push, the knees on their stops, multibody's walker stays balanced: after 0.5 s its
    torso is within 2 cm of its start height and 1 cm of its start horizontally."""
    model = _model("walker")
    q0 = model.initial_configuration()
    traj = mb.simulate(model, q0, None, 0.5, method="contact", dt=0.0025)
    start, end = (mb.body_pose(model, q, "torso")[1] for q in (q0, traj.q[-1]))
    assert abs(end[2] - start[2]) <= 0.02
    assert np.linalg.norm(end[:2] - start[:2]) <= 0.01
