"""``simulate(..., ctrl=...)``: controls as a constant, a table in time, a callable and one per run, against
MuJoCo's trajectories of the same MJCF file (semi-implicit Euler, the same step: MuJoCo's ``mj_step`` with the
control set before each step), and a driven dm_control quadruped standing on its floor."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb

mujoco = pytest.importorskip("mujoco")
suite = pytest.importorskip("dm_control.suite")

PENDULUM = """
<mujoco model="servo pendulum">
  <option timestep="0.002" integrator="Euler"/>
  <worldbody>
    <body name="upper" pos="0 0 2">
      <joint name="shoulder" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" contype="0" conaffinity="0"/>
      <body name="lower" pos="0.5 0 0">
        <joint name="elbow" axis="0 1 0" stiffness="2" springref="0.3"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position joint="shoulder" kp="40" kv="3" ctrlrange="-1 1"/>
    <motor joint="elbow" gear="2" ctrlrange="-0.8 0.8" forcerange="-1.2 1.2"/>
  </actuator>
</mujoco>
"""
DT, STEPS = 0.002, 250


def mujoco_run(path, control):
    """qpos (STEPS + 1, nq) of mj_step with d.ctrl = control(t, qpos, qvel) before each step."""
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    qs = [d.qpos.copy()]
    for _ in range(STEPS):
        d.ctrl[:] = control(d.time, d.qpos.copy(), d.qvel.copy())
        mujoco.mj_step(m, d)
        qs.append(d.qpos.copy())
    return np.array(qs)


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory):
    path = tmp_path_factory.mktemp("ctrl") / "pendulum.xml"
    path.write_text(PENDULUM)
    return path, mb.Model.from_mjcf(path)


def run(model, **options):
    return mb.simulate(model, t_end=STEPS * DT, method="Euler", dt=DT, **options)


TABLE = mb.TorqueTable([0.0, 0.2, 0.5], [[0.0, 0.5], [1.5, -1.0], [-0.5, 0.3]])


def feedback(t, q, v):
    return np.array([0.8 * np.sin(6 * t) - 0.2 * v[0], -0.5 * q[1]])


@pytest.mark.parametrize("ctrl, control", [
    (np.array([0.6, -0.3]), lambda t, q, v: [0.6, -0.3]),
    (TABLE, lambda t, q, v: TABLE(t)),
    (feedback, feedback),
], ids=["constant", "table", "callable"])
def test_controls_follow_mujoco(pendulum, ctrl, control):
    path, model = pendulum
    trajectory = run(model, ctrl=ctrl)
    theirs = mujoco_run(path, control)
    assert np.abs(theirs[-1] - theirs[0]).max() > 0.1  # the controls move it
    np.testing.assert_allclose(trajectory.q, theirs, rtol=0, atol=1e-10)


def test_one_control_per_run_and_defaults(pendulum):
    path, model = pendulum
    constant = np.array([-0.4, 0.7])
    runs = run(model, q0=np.zeros((3, 2)), ctrl=[TABLE, feedback, lambda t, q, v: constant])
    for trajectory, control in zip(runs, [lambda t, q, v: TABLE(t), feedback, lambda t, q, v: constant]):
        np.testing.assert_allclose(trajectory.q, mujoco_run(path, control), rtol=0, atol=1e-10)
    rows = run(model, q0=np.zeros((2, 2)), ctrl=np.array([constant, -constant]))
    np.testing.assert_allclose(rows[1].q, mujoco_run(path, lambda t, q, v: -constant), rtol=0, atol=1e-10)
    # no ctrl: u = 0, as MuJoCo's default (the servo holds the shoulder at 0 against gravity)
    np.testing.assert_allclose(run(model).q, mujoco_run(path, lambda t, q, v: [0.0, 0.0]), rtol=0, atol=1e-10)


def test_bad_controls_are_refused_naming_the_model(pendulum):
    _, model = pendulum
    with pytest.raises(ValueError, match=r"ctrl: expected 2 finite controls .*'servo pendulum'"):
        run(model, ctrl=[1.0, 2.0, 3.0])
    with pytest.raises(mb.SimulationError, match="the ctrl callable raised ValueError"):
        run(model, ctrl=lambda t, q, v: np.zeros(3))
    with pytest.raises(ValueError, match=r"ctrl given, but model 'free' has no actuators"):
        mb.simulate(mb.Model("free"), ctrl=[1.0])
    with pytest.raises(ValueError, match="ctrl: the TorqueTable's rows have 1 entries, model 'servo pendulum' has 2"):
        run(model, ctrl=mb.TorqueTable([0.0, 1.0], [[0.0], [1.0]]))
    with pytest.raises(ValueError, match="ctrl gives 2 runs' controls for 3 runs"):
        run(model, q0=np.zeros((3, 2)), ctrl=np.zeros((2, 2)))


def test_constant_and_tabulated_controls_run_compiled(pendulum):
    """The actuators and tendons are compiled force elements: constant and tabulated controls (one per run or
    shared) run in the compiled loop, the same motion as the Python loop's to round-off; a callable takes the
    Python loop, with a notice."""
    _, model = pendulum
    for ctrl in (None, np.array([0.6, -0.3]), TABLE):
        compiled, python = run(model, v0=[1.0, -2.0], ctrl=ctrl), run(model, v0=[1.0, -2.0], ctrl=ctrl, compiled=False)
        assert compiled.info["compiled"] and not python.info.get("compiled", False)
        np.testing.assert_allclose(compiled.q, python.q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(compiled.tau, python.tau, rtol=0, atol=1e-12)
    tables = [TABLE, mb.TorqueTable([0.1, 0.3], [[0.2, 0.1], [-0.4, 0.5]]), mb.TorqueTable([0.0], [[0.3, -0.2]])]
    for ctrl in (tables, np.array([[0.2, 0.1], [-0.5, 0.4], [0.0, 0.0]])):
        for trajectory, one in zip(run(model, q0=np.zeros((3, 2)), ctrl=ctrl), ctrl):
            assert trajectory.info["compiled"]
            np.testing.assert_allclose(trajectory.q, run(model, ctrl=one, compiled=False).q, rtol=0, atol=1e-12)
    from multibody.simulate.planning import NOTICED
    NOTICED.discard("the controls (ctrl) are a Python callable")
    with pytest.warns(UserWarning, match=r"runs in the Python loop.*because the controls \(ctrl\) are a Python"):
        assert not run(model, ctrl=feedback).info.get("compiled", False)


def test_quadruped_stands_on_its_servos_and_tendon_couplings():
    """dm_control's quadruped, its 12 position servos (on joints and fixed tendons) holding ctrl = 0, its four
    tendon couplings as constraints: the contact stepper keeps its torso up as MuJoCo does."""
    path = Path(suite.__file__).parent / "quadruped.xml"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mb.Model.from_mjcf(path)
    trajectory = mb.simulate(model, method="contact", dt=0.005, t_end=0.6, ctrl=np.zeros(12))
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    while d.time < 0.6 - 1e-9:
        mujoco.mj_step(m, d)
    assert abs(trajectory.q[-1, 2] - d.qpos[2]) < 0.02 and trajectory.q[-1, 2] > 0.4


@pytest.mark.parametrize("joint_limits", [False, True])
def test_quadruped_servos_and_tendons_compiled_as_the_python_loop(joint_limits):
    """dm_control's quadruped (its 12 servos on joints and fixed tendons, 12 tendons; the tendon couplings and the
    floor left out, so that the compiled loop takes it) in free fall under constant and tabulated controls: the
    compiled run is the Python loop's to round-off (joint stops included: compiled up to the first stop)."""
    from multibody.io import model_from_dict, model_to_dict
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = model_to_dict(mb.Model.from_mjcf(Path(suite.__file__).parent / "quadruped.xml"))
    data.pop("constraints"), data.pop("geometries")
    model = model_from_dict(data)
    assert len([e for e in model.forces if isinstance(e, (mb.FixedTendon, mb.Actuator))]) == 24
    rng = np.random.default_rng(0)
    for ctrl in (rng.uniform(-0.5, 0.5, 12), mb.TorqueTable([0.0, 0.1, 0.2], rng.uniform(-0.5, 0.5, (3, 12)))):
        compiled = mb.simulate(model, t_end=0.2, method="RK4", dt=5e-4, ctrl=ctrl, joint_limits=joint_limits)
        python = mb.simulate(model, t_end=0.2, method="RK4", dt=5e-4, ctrl=ctrl, compiled=False,
                             joint_limits=joint_limits)
        assert compiled.info["compiled"] and not python.info.get("compiled", False)
        assert np.abs(python.q[-1, 7:] - python.q[0, 7:]).max() > 0.3  # (the servos move the legs)
        np.testing.assert_allclose(compiled.q, python.q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(compiled.v, python.v, rtol=0, atol=1e-12)
        np.testing.assert_allclose(compiled.tau, python.tau, rtol=0, atol=1e-9)
