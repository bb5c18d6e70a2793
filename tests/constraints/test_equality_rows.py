"""Equality constraints in compiled form (:mod:`multibody.constraints._equality_rows`): their rows equal the Python
rows, Gauss's principle on (a, K) equals :class:`~multibody.constraints.gauss.GaussSolver` (redundant rows
included), and the compiled contact loop takes models with Connect, Weld and LinearCoupling (MJCF ``<equality>``)
and steps them as the Python step does."""
import warnings
from pathlib import Path

import mujoco
import numpy as np
import pytest

import multibody as mb
from multibody.constraints._equality_rows import RCOND, constrained_motion, equality_rows
from multibody.constraints._kinematics import Snapshot
from multibody.constraints.gauss import GaussSolver, free_compliance
from multibody.constraints.types import equality_arrays, stack
from multibody.dynamics import crba
from multibody.simulate import contact_loop, planning

suite = pytest.importorskip("dm_control.suite")

# a box hung from the world at one corner (connect) that swings into the floor, and a block welded to a hinged arm
# that falls with it onto the floor
TETHERED = """<mujoco><option timestep="0.002"/>
  <worldbody><geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="box" pos="0 0 0.35" euler="0 20 0"><freejoint/><geom type="box" size="0.2 0.1 0.05"/></body>
    <body name="arm" pos="1 0 0.25"><joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/></body>
    <body name="block" pos="1.35 0 0.25" euler="10 0 0"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
  </worldbody>
  <equality><connect body1="box" body2="world" anchor="0.2 0 0.05"/><weld body1="arm" body2="block"/></equality>
</mujoco>"""


def _tethered(tmp_path, redundant=False):
    path = tmp_path / "tethered.xml"
    path.write_text(TETHERED)
    model = mb.Model.from_mjcf(path)
    if redundant:  # rows the others imply: the weld's point coincidence and its axes again, the connect twice, and
        # the hinge's axis held to the world's (zero rows): 9 + 3 + 2 + 3 + 2 rows of rank 9
        weld = model.constraints[1]
        model.add_constraint(mb.Connect("arm", weld.relative.translation, "block", (0.0, 0.0, 0.0)))
        model.add_constraint(mb.Align("arm", weld.relative.rotation @ [0.3, 0.4, 0.5], "block", [0.3, 0.4, 0.5]))
        model.add_constraint(mb.Connect("box", model.constraints[0].point_a, "world", model.constraints[0].point_b))
        model.add_constraint(mb.Align("arm", [0.0, 1.0, 0.0]))
    return model


def _quadruped():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what the file holds that is approximated
        return mb.Model.from_mjcf(Path(suite.__file__).parent / "quadruped.xml")


def _random_state(model, rng):
    q = model.neutral() + 0.0
    for joint in model.joints:
        part = model.q_slice(joint.name)
        if joint.nq == 1:
            q[part] = rng.uniform(-1.0, 1.0)
        elif joint.nq == 7:
            q[part] = np.r_[rng.normal(size=3), rng.normal(size=4)]
            q[part][3:] /= np.linalg.norm(q[part][3:])
    return q, rng.normal(size=model.nv)


def test_compiled_rows_are_the_python_rows(tmp_path):
    """J and φ of Connect, Weld (to the world, between bodies, on a named frame), Align, PointOnPlane, Mimic
    and LinearCoupling at random states: the compiled rows equal the Python rows."""
    model = _tethered(tmp_path)
    model.add_frame("tip", "arm", mb.Transform(mb.spatial.rotation_about([1, 1, 0], 0.7), [0.3, 0.0, 0.01]))
    model.add_constraint(mb.Weld("tip", "box", mb.Transform(mb.spatial.rotation_about([0, 0, 1], 0.4), [0.1, 0, 0])))
    model.add_constraint(mb.Weld("world", "tip"))
    model.add_constraint(mb.Connect("box", (0.1, 0.2, 0.3), "tip", (0.0, 0.1, 0.0)))
    model.add_constraint(mb.Align("tip", (0.0, 0.6, 0.8), "block", (1.0, 0.0, 0.0)))
    model.add_constraint(mb.Align("world", (0.0, 0.0, 1.0), "tip"))
    model.add_constraint(mb.PointOnPlane("block", (0.05, 0.0, 0.0), "tip", (0.1, 0.0, 0.0), (0.0, 0.6, 0.8)))
    model.add_constraint(mb.PointOnPlane("tip", (0.05, 0.0, 0.0)))
    model.add(mb.Body("finger", mass=0.1, inertia=np.eye(3) * 1e-4), "arm", mb.Revolute(axis=[0, 0, 1], name="finger"),
              mb.Transform(translation=[0.25, 0.0, 0.0]))
    model.add_constraint(mb.Mimic("finger", "hinge", multiplier=-0.7, offset=0.2))
    quadruped = _quadruped()
    rng = np.random.default_rng(3)
    for m in (model, quadruped):
        cm = m._compiled or m.compile()
        arrays = equality_arrays(m)
        for _ in range(5):
            q, v = _random_state(m, rng)
            s = Snapshot(m, q, v)
            rows, _ = stack(m, s)
            J, phi = np.empty_like(rows.J), np.empty_like(rows.phi)
            equality_rows(cm.topology, cm.params, s.R0, s.p0, q, arrays, J, phi)
            assert np.abs(rows.phi).max() > 0.1 and not rows.b.any()
            np.testing.assert_allclose(J, rows.J, rtol=0, atol=1e-14)
            np.testing.assert_allclose(phi, rows.phi, rtol=0, atol=1e-14)


def test_gauss_on_the_compliance_is_gauss_solver_and_takes_redundant_rows(tmp_path):
    """a_c = a + K Jᵀ (J K Jᵀ)⁺ (γ − J a), K_c = K − K Jᵀ (J K Jᵀ)⁺ J K from K = M⁻¹ equal GaussSolver's solve and
    compliance; rows repeated (scaled) change neither; J a_c = γ and J K_c = 0."""
    model = _tethered(tmp_path)
    rng = np.random.default_rng(4)
    q, v = _random_state(model, rng)
    rows, _ = stack(model, Snapshot(model, q, v))
    M = crba(model, q)
    a_free, gamma = rng.normal(size=model.nv), rng.normal(size=rows.J.shape[0])
    solver = GaussSolver(M, rows.J)
    a_ref, K_ref = solver.solve(a_free, gamma)[0], solver.compliance()
    for J, g in ((rows.J, gamma), (np.vstack([rows.J, 2.0 * rows.J[:4], -rows.J[5:6]]),
                                   np.r_[gamma, 2.0 * gamma[:4], -gamma[5:6]])):
        a, K = a_free.copy(), free_compliance(M)
        constrained_motion(a, K, np.ascontiguousarray(J), g, RCOND)
        np.testing.assert_allclose(a, a_ref, rtol=0, atol=1e-11)
        np.testing.assert_allclose(K, K_ref, rtol=0, atol=1e-11)
        np.testing.assert_allclose(J @ a, g, rtol=0, atol=1e-10)
        np.testing.assert_allclose(J @ K, 0.0, rtol=0, atol=1e-11)
    assert solver.rank == 9


@pytest.mark.parametrize("redundant", [False, True])
def test_connect_and_weld_with_contact_run_compiled_as_the_python_step(tmp_path, redundant):
    """The tethered box swings into the floor and the welded block falls with its arm onto it: the compiled loop
    takes the model and steps it as the Python step does (to round-off), with the loops closed."""
    model = _tethered(tmp_path, redundant)
    assert contact_loop.unsupported(model) == ""
    fast = mb.simulate(model, t_end=0.6, method="contact", dt=0.002)
    slow = mb.simulate(model, t_end=0.6, method="contact", dt=0.002, compiled=False)
    assert fast.info["compiled"] is True and "compiled" not in slow.info
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fast.v, slow.v, rtol=0, atol=1e-7)
    corners = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T
    for body, size in (("box", [0.2, 0.1, 0.05]), ("block", [0.05, 0.05, 0.05])):  # both on the floor, not in it
        lowest = [(p + (corners * size) @ R.T)[:, 2].min() for R, p in (mb.body_pose(model, q, body) for q in fast.q)]
        assert -3e-3 < min(lowest) < 1e-3
    drift = [np.abs(stack(model, Snapshot(model, q, v))[0].phi).max() for q, v in zip(fast.q, fast.v)]
    assert max(drift) < 2e-3


def test_the_quadruped_runs_compiled_as_the_python_step_with_its_couplings_held():
    """dm_control's quadruped (four tendon couplings, its servos at ctrl = 0, on its floor) 0.5 s: compiled as the
    Python step, the couplings' |A q − offset| small throughout, its torso height as MuJoCo's."""
    model = _quadruped()
    assert contact_loop.unsupported(model) == ""
    fast = mb.simulate(model, t_end=0.5, method="contact", dt=0.005, ctrl=np.zeros(12))
    slow = mb.simulate(model, t_end=0.5, method="contact", dt=0.005, ctrl=np.zeros(12), compiled=False)
    assert fast.info["compiled"] is True and "compiled" not in slow.info
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-8)
    np.testing.assert_allclose(fast.v, slow.v, rtol=0, atol=1e-6)
    _, _, _, _, A, offset = equality_arrays(model)
    assert A.shape[0] == 4 and np.abs(fast.q @ A.T - offset).max() < 1e-3
    path = Path(suite.__file__).parent / "quadruped.xml"
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    while d.time < 0.5 - 1e-9:
        mujoco.mj_step(m, d)
    assert abs(fast.q[-1, 2] - d.qpos[2]) < 0.02


def test_equalities_without_a_compiled_form_keep_the_python_step(tmp_path):
    model = _tethered(tmp_path)
    model.add_constraint(mb.KnifeEdge("block"))
    assert "equality constraints without a compiled form (KnifeEdge first)" in contact_loop.unsupported(model)
    planning.NOTICED.clear()
    with pytest.warns(UserWarning, match="without a compiled form"):
        assert "compiled" not in mb.simulate(model, t_end=0.01, method="contact", dt=0.002).info
