"""MJCF actuators, fixed tendons, joint and tendon equalities and passive joint forces against MuJoCo: the
generalized forces (``qfrc_actuator``, ``qfrc_passive``) and the equality rows at random states, on dm_control's
suite and on small files that cover each element kind."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.io import model_from_dict, model_to_dict
from multibody.simulate.actuators import actuator_force, actuators, tendon_force

mujoco = pytest.importorskip("mujoco")
suite = pytest.importorskip("dm_control.suite")

from .test_mjcf import compare_with_mujoco, random_qpos, velocity_map  # noqa: E402

SUITE = Path(suite.__file__).parent
DRIVEN = ["acrobot", "cartpole", "cheetah", "finger", "fish", "hopper", "humanoid", "humanoid_CMU", "manipulator",
          "pendulum", "point_mass", "quadruped", "reacher", "stacker", "swimmer", "walker"]

ELEMENTS = """
<mujoco model="elements">
  <compiler angle="degree"/>
  <default>
    <motor ctrlrange="-2 2"/>
    <default class="servo"><position kp="30" kv="2"/></default>
  </default>
  <worldbody>
    <body name="a">
      <joint name="ja" axis="0 1 0" range="-30 60" stiffness="2" springref="10" damping="0.5" armature="0.1" ref="5"/>
      <geom type="capsule" size=".05" fromto="0 0 0 1 0 0"/>
      <body name="b" pos="1 0 0">
        <joint name="jb" axis="0 1 0" ref="20" damping="0.3"/>
        <geom type="capsule" size=".05" fromto="0 0 0 1 0 0"/>
        <body name="c" pos="1 0 0">
          <joint name="jc" type="slide" axis="1 0 0" stiffness="5" springref="0.1"/>
          <geom type="sphere" size=".1"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t" stiffness="3" damping="0.2"><joint joint="ja" coef="1"/><joint joint="jb" coef="-2"/></fixed>
    <fixed name="band" stiffness="7" springlength="0.1 0.3"><joint joint="ja" coef="1"/></fixed>
    <fixed name="u" springlength="0.2" stiffness="1"><joint joint="jc" coef="0.5"/><joint joint="jb" coef="1"/></fixed>
  </tendon>
  <actuator>
    <motor joint="ja" gear="3"/>
    <position class="servo" joint="jb" ctrlrange="-1 1"/>
    <velocity joint="jc" kv="4" forcerange="-1 1.5"/>
    <general tendon="t" gaintype="affine" gainprm="2 1 0.5" biastype="affine" biasprm="0.1 0.2 0.3"
             forcerange="-0.5 0.7" gear="3"/>
    <general tendon="u" ctrllimited="false" ctrlrange="-1 1" gainprm="4"/>
    <damper joint="jc" kv="2" ctrlrange="0 1"/>
    <position joint="ja" kp="50" dampratio="0.7" inheritrange="0.5" gear="2"/>
    <position tendon="t" kp="20" dampratio="1"/>
  </actuator>
</mujoco>
"""


def load(path_or_xml):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mb.Model.from_mjcf(path_or_xml)


def forces_against_mujoco(mj_model, model, states=3, seed=0):
    """Largest |ours − MuJoCo's| of qfrc_passive and qfrc_actuator at random states and controls (MuJoCo's
    activations set to the clamped controls: multibody takes the control as the activation), and the largest
    |qfrc_actuator| seen (so that a comparison of zeros cannot pass)."""
    mj_model.opt.density = mj_model.opt.viscosity = 0.0  # fluid forces are not modelled (named in the warning)
    data = mujoco.MjData(mj_model)
    rng = np.random.default_rng(seed)
    passive = actuated = largest = 0.0
    springs = [e for e in model.forces if isinstance(e, mb.JointSpring)]
    for _ in range(states):
        q, qvel, u = random_qpos(mj_model, rng), rng.normal(size=mj_model.nv), 2.0 * rng.normal(size=mj_model.nu)
        data.qpos[:], data.qvel[:], data.ctrl[:] = q, qvel, u
        if mj_model.na:
            data.act[:] = np.clip(u, *mj_model.actuator_ctrlrange.T)
        mujoco.mj_forward(mj_model, data)
        T, _ = velocity_map(model, q, qvel)
        v = T @ qvel
        ours = sum((e.generalized_force(model, q, v) for e in springs), tendon_force(model, q, v))
        passive = max(passive, np.abs(ours - data.qfrc_passive).max(initial=0.0))
        actuated = max(actuated, np.abs(actuator_force(model, q, v, u) - data.qfrc_actuator).max(initial=0.0))
        largest = max(largest, np.abs(data.qfrc_actuator).max(initial=0.0))
    return passive, actuated, largest


@pytest.mark.parametrize("name", DRIVEN)
def test_suite_actuator_and_passive_forces_match_mujoco(name):
    path = SUITE / f"{name}.xml"
    mj_model, model = mujoco.MjModel.from_xml_path(str(path)), load(path)
    assert len(actuators(model)) == mj_model.nu
    assert [a.name for a in actuators(model)] == [mj_model.actuator(k).name or f"actuator{k}"
                                                    for k in range(mj_model.nu)]
    passive, actuated, largest = forces_against_mujoco(mj_model, model)
    assert passive <= 1e-10 and actuated <= 1e-10 * min(1.0, largest)  # (fish's and swimmer's gains are 5e-4)
    assert largest > 1e-4 or mj_model.nu == 0  # (swimmer.xml is a template without actuators)


def test_every_element_kind_matches_mujoco(tmp_path):
    path = tmp_path / "elements.xml"
    path.write_text(ELEMENTS)
    mj_model, model = mujoco.MjModel.from_xml_path(str(path)), load(path)
    passive, actuated, largest = forces_against_mujoco(mj_model, model, states=8, seed=3)
    assert passive <= 1e-10 and actuated <= 1e-10 and largest > 1.0
    # the clamps act at these states, and the tendon's rest length comes from the joints' springref
    t, band, u = (e for e in model.forces if isinstance(e, mb.FixedTendon))
    np.testing.assert_allclose([t.rest[0], band.rest[1], u.rest[0]], [np.deg2rad(10), 0.3, 0.2], rtol=0, atol=1e-15)
    ranges = [a.ctrl_range for a in actuators(model)]
    assert ranges[:6] == [(-2, 2), (-1, 1), (-2, 2), (-2, 2), None, (0, 1)]
    np.testing.assert_allclose(ranges[6], mj_model.actuator_ctrlrange[6], rtol=0, atol=1e-15)  # inheritrange
    np.testing.assert_allclose([a.bias for a in actuators(model)], mj_model.actuator_biasprm[:, :3], rtol=1e-14,
                               atol=0)  # kv from dampratio
    np.testing.assert_allclose(model.joints[model.joint_index("ja")].armature, [0.1])
    np.testing.assert_array_less(compare_with_mujoco(path), 1e-9)  # M (armature), bias, qacc with qfrc_passive
    # round trip through the model file format
    copy = model_from_dict(model_to_dict(model))
    q, v, ctrl = np.array([0.3, -0.2, 0.1]), np.array([0.5, 0.7, -0.4]), np.array([1, 2, -3, 0.4, 5, 0.5, 0.1, 0.2])
    np.testing.assert_array_equal(actuator_force(copy, q, v, ctrl), actuator_force(model, q, v, ctrl))
    np.testing.assert_array_equal(tendon_force(copy, q, v), tendon_force(model, q, v))


def test_frictionloss_is_smooth_friction_and_said_so():
    with pytest.warns(UserWarning, match=r"finger.xml: .*joint frictionloss \(simulated as smooth friction"):
        model = mb.Model.from_mjcf(SUITE / "finger.xml")
    friction, = (e for e in model.forces if isinstance(e, mb.JointFriction))
    mj_model = mujoco.MjModel.from_xml_path(str(SUITE / "finger.xml"))
    assert friction.friction == mj_model.dof_frictionloss.max() == 0.1


@pytest.mark.parametrize("name", ["quadruped", "manipulator"])
def test_tendon_equalities_are_mujocos_rows(name):
    """<equality><tendon> (and joint) couplings: the same residual and Jacobian as MuJoCo's equality rows."""
    path = SUITE / f"{name}.xml"
    mj_model, model = mujoco.MjModel.from_xml_path(str(path)), load(path)
    couplings = [c for c in model.constraints if isinstance(c, mb.LinearCoupling)]
    assert len(couplings) == mj_model.neq
    data = mujoco.MjData(mj_model)
    rng = np.random.default_rng(1)
    from multibody.constraints._kinematics import Snapshot
    for _ in range(3):
        data.qpos[:] = random_qpos(mj_model, rng)
        mujoco.mj_forward(mj_model, data)
        rows = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        snapshot = Snapshot(model, data.qpos.copy(), np.zeros(model.nv))
        T, _ = velocity_map(model, data.qpos, np.zeros(mj_model.nv))
        ours = [c.evaluate(snapshot) for c in couplings]
        np.testing.assert_allclose([r.phi[0] for r in ours], data.efc_pos[rows], rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.vstack([r.J for r in ours]) @ T, data.efc_J.reshape(-1, mj_model.nv)[rows],
                                   rtol=0, atol=1e-12)


def test_joint_equalities_and_what_is_not_simulated_is_named_once(tmp_path):
    xml = ELEMENTS.replace("</actuator>", """<muscle joint="ja"/><general joint="jb" dyntype="filter"/></actuator>
      <equality><joint joint1="jb" joint2="ja" polycoef="0.1 2 0 0 0"/><joint joint1="jc"/>
        <joint joint1="ja" joint2="jc" polycoef="0 1 3 0 0"/></equality>""").replace(
        '<fixed name="t"', '<fixed name="t" range="-1 1" frictionloss="0.2"')
    path = tmp_path / "more.xml"
    path.write_text(xml)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = mb.Model.from_mjcf(path)
    message, = (str(w.message) for w in caught)
    for named in ("actuator muscle", "dyntype filter", "equality joint with a nonlinear polycoef",
                  "tendon frictionloss"):
        assert named in message
    assert "range" not in message  # (the tendon's range is read as its limits)
    assert next(e for e in model.forces if isinstance(e, mb.FixedTendon)).limits == (-1.0, 1.0)
    mj_model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(mj_model)
    data.qpos[:] = [0.2, -0.3, 0.4]
    mujoco.mj_forward(mj_model, data)
    rows = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    from multibody.constraints._kinematics import Snapshot
    ours = [c.evaluate(Snapshot(model, data.qpos.copy(), np.zeros(3))) for c in model.constraints]
    np.testing.assert_allclose([r.phi[0] for r in ours], data.efc_pos[rows][:2], rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.vstack([r.J for r in ours]), data.efc_J.reshape(-1, 3)[rows][:2], atol=1e-12)


def test_cheetah_loads_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = mb.Model.from_mjcf(SUITE / "cheetah.xml")
    assert [a.gear for a in actuators(model)] == [120, 90, 60, 90, 60, 30]
