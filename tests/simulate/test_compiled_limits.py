"""Joint limits in the compiled loop: a run up to a stop is compiled, the impact and the resting stop are the
Python loop's (multibody.simulate.stops); both loops give the same trajectory."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import multibody as mb


def limited_chain():
    """A 2-link chain released from the horizontal whose elbow stops at 0.6 rad: it reaches the stop after
    about 0.3 s."""
    model = mb.Model.chain(2)
    model.joints[1].limits = mb.JointLimits(lower=-0.6, upper=0.6)
    return model


@pytest.mark.parametrize("options, atol", [({}, 1e-6), ({"method": "RK4", "dt": 1e-3}, 1e-9)])
def test_a_chain_hitting_its_stop_runs_compiled_until_the_impact_as_the_python_loop(options, atol):
    model = limited_chain()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no notice: this run takes the compiled loop
        fast = mb.simulate(model, t_end=1.0, progress=False, **options)
    slow = mb.simulate(model, t_end=1.0, progress=False, compiled=False, **options)
    hits = [name for name, _ in slow.events]
    assert hits and hits[0].startswith("limit link2")
    assert [name for name, _ in fast.events] == hits
    np.testing.assert_allclose([t for _, t in fast.events], [t for _, t in slow.events], rtol=0, atol=atol)
    assert 0.0 < fast.info["compiled"] < 1.0  # compiled up to the first impact
    np.testing.assert_array_equal(fast.t, slow.t)
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=atol)
    np.testing.assert_allclose(fast.v, slow.v, rtol=0, atol=100 * atol)
    assert np.abs(fast.q[:, 1]).max() < 0.6 + 1e-8


def test_a_run_that_reaches_no_stop_is_compiled_throughout():
    model = limited_chain()
    model.joints[1].limits = mb.JointLimits(lower=-3.0, upper=3.0)
    fast = mb.simulate(model, t_end=0.2, progress=False)
    slow = mb.simulate(model, t_end=0.2, progress=False, compiled=False)
    assert fast.info["compiled"] is True and not fast.events
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-12)


def test_a_fallback_to_the_python_loop_says_why_once(monkeypatch):
    import importlib
    module = importlib.import_module("multibody.simulate.planning")
    monkeypatch.setattr(module, "NOTICED", set())
    model = mb.Model.chain(1)
    with pytest.warns(UserWarning, match="runs in the Python loop.*because the torque is a callable") as caught:
        for _ in range(2):
            mb.simulate(model, t_end=0.05, progress=False, torque=lambda t, q, v: np.zeros(1))
    assert sum("Python loop" in str(w.message) for w in caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # asked for: no notice
        mb.simulate(model, t_end=0.05, progress=False, compiled=False, torque=lambda t, q, v: np.zeros(1))


def test_a_robot_with_its_limits_runs_in_the_compiled_loop():
    """The UR5 with joint limits (example-robot-data), its stored limits stops, started inside them (at their
    midpoints): the compiled loop while no joint reaches a stop."""
    from pathlib import Path
    pin = pytest.importorskip("pinocchio")
    path = (Path(pin.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"
            / "ur_description" / "urdf" / "ur5_joint_limited_robot.urdf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the file's shapes, which a run without contact ignores)
        model = mb.Model.from_urdf(path)
    assert all(j.limits is not None for j in model.joints)
    q0 = np.array([0.5 * (j.limits.lower + j.limits.upper) for j in model.joints])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no notice of a fallback
        warnings.filterwarnings("ignore", message=".*contact shapes.*")
        trajectory = mb.simulate(model, q0, t_end=0.05, progress=False)
    assert trajectory.info["compiled"] is True and not trajectory.events
