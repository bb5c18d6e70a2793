"""Built-in events (multibody.simulate.events) in the compiled loop: the same event times and samples as the Python
loop, the analytic crossing times of a pendulum, errors that name what is wrong, and which path runs them."""
import doctest

import numpy as np
import pytest
from scipy.special import ellipk, ellipkinc

import multibody as mb
from multibody.simulate.compiled import integrate_tree, unsupported

from sim_models import G, hanging_chain, point_pendulum

TIGHT = {"rtol": 1e-10, "atol": 1e-10}
METHODS = [("DOP853", TIGHT), ("RK45", TIGHT), ("RK4", {"dt": 0.01}), ("Euler", {"dt": 0.01})]


def both_paths(model, q0, v0, t_end, events, method, settings, **options):
    fast = mb.simulate(model, q0, v0, t_end, events=events, method=method, **settings, **options)
    slow = mb.simulate(model, q0, v0, t_end, events=events, method=method, compiled=False, **settings, **options)
    assert fast.info["compiled"] and "compiled" not in slow.info
    return fast, slow


def assert_same_events(fast, slow, atol=1e-10):
    assert [name for name, _ in fast.events] == [name for name, _ in slow.events]
    np.testing.assert_allclose([t for _, t in fast.events], [t for _, t in slow.events], rtol=0, atol=atol)


@pytest.mark.parametrize("method, settings", METHODS, ids=[m for m, _ in METHODS])
@pytest.mark.parametrize("terminal", [False, True], ids=["non-terminal", "terminal"])
def test_pendulum_event_times_match_the_python_loop(method, settings, terminal):
    model = point_pendulum()
    events = [mb.JointValue("bob0", 0.0, direction=-1, terminal=terminal, name="down"),
              mb.JointValue("bob0", 0.0, direction=1, name="up"),
              mb.JointValue("bob0", 0.0, velocity=True)]  # both directions
    fast, slow = both_paths(model, [0.3], [0.0], 3.0, events, method, settings)
    assert_same_events(fast, slow)
    names = [name for name, _ in fast.events]
    assert names == (["down"] if terminal else ["down", "bob0 velocity = 0", "up", "bob0 velocity = 0", "down"])
    assert np.array_equal(fast.t, slow.t) and (fast.t[-1] <= fast.events[-1][1] if terminal else fast.t[-1] == 3.0)
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fast.v, slow.v, rtol=0, atol=1e-9)
    if terminal:  # the trajectory ends at the last output time before the event, as the Python loop's
        assert fast.info["status"] == "terminal event" and fast.info["t_reached"] == fast.events[-1][1]
        assert fast.t[-1] <= fast.events[-1][1] < fast.t[-1] + 0.01


@pytest.mark.parametrize("method, settings", METHODS, ids=[m for m, _ in METHODS])
@pytest.mark.parametrize("terminal", [False, True], ids=["non-terminal", "terminal"])
def test_several_runs_with_events_run_compiled_together_as_one_by_one(method, settings, terminal):
    """Several runs at once with built-in events run in the compiled loop together (across threads), each with its
    own crossings, samples and end (a terminal event ends only its run), as its single run does."""
    model, q0, v0 = hanging_chain(4, swing=0.5)
    events = [mb.JointValue("link2_joint", 1.5, terminal=terminal), mb.JointValue("link3", 0.0, velocity=True)]
    Q0 = np.array([q0, q0 + 0.2, q0 - 0.3])
    runs = mb.simulate(model, Q0, v0, 1.5, events=events, method=method, t_eval=np.linspace(0.0, 1.0, 51),
                       **settings)
    for b, run in enumerate(runs):
        alone = mb.simulate(model, Q0[b], v0, 1.5, events=events, method=method, t_eval=np.linspace(0.0, 1.0, 51),
                            **settings)
        assert run.info["compiled"] and alone.info["compiled"] and run.info["status"] == alone.info["status"]
        assert run.events == alone.events and np.array_equal(run.t, alone.t)
        np.testing.assert_array_equal(run.q, alone.q)
    assert len({tuple(run.events) for run in runs}) == 3  # (each run its own crossings)
    if terminal:
        assert any(run.info["status"] == "terminal event" for run in runs)


@pytest.mark.parametrize("method, settings", METHODS, ids=[m for m, _ in METHODS])
@pytest.mark.parametrize("terminal", [False, True], ids=["non-terminal", "terminal"])
def test_3d_chain_event_times_match_the_python_loop(method, settings, terminal):
    model, q0, v0 = hanging_chain(7, swing=0.5)
    tip = mb.PointHeight("link7", (0.3, 0.0, 0.0), height=-1.0, axis=(0.0, 1.0, 1.0), terminal=terminal)
    events = [mb.JointValue("link3_joint", 0.45, direction=-1), mb.JointValue("link5", 0.0, velocity=True), tip,
              mb.PointHeight("link4", height=-0.5, axis="x")]
    fast, slow = both_paths(model, q0, v0, 1.5, events, method, settings, t_eval=np.linspace(0.0, 1.0, 101))
    assert_same_events(fast, slow, atol=1e-10)
    assert len(fast.events) >= 3 and tip.name in [name for name, _ in fast.events]
    assert fast.events == sorted(fast.events, key=lambda event: event[1])
    if not terminal:  # events after the last output time (1 s) are found too, as the Python loop steps on to t_end
        assert fast.events[-1][1] > 1.0 and len(fast) == 101
    assert np.array_equal(fast.t, slow.t)
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-8)


def test_pendulum_crossings_match_the_exact_period():
    """Released at rest from θ₀, a point pendulum passes θ = 0 at T/4 + k T/2, T = 4 √(L/g) K(sin²(θ₀/2)), and
    its bob reaches the height −cos(θ₀/2) L at √(L/g) (K(m) − F(φ | m)), sin φ = sin(θ₀/4) / sin(θ₀/2)."""
    theta0, length = 0.6, 1.0
    m = np.sin(theta0 / 2) ** 2
    period = 4 * np.sqrt(length / G) * ellipk(m)
    phi = np.arcsin(np.sin(theta0 / 4) / np.sqrt(m))
    t_height = np.sqrt(length / G) * (ellipk(m) - ellipkinc(phi, m))
    events = [mb.JointValue("bob0", 0.0, name="zero"),
              mb.PointHeight("bob0", (0, 0, -length), height=-np.cos(theta0 / 2) * length, direction=-1)]
    traj = mb.simulate(point_pendulum(length), [theta0], [0.0], t_end=10.0, events=events, rtol=1e-12, atol=1e-12)
    assert traj.info["compiled"]
    zeros = [t for name, t in traj.events if name == "zero"]
    heights = [t for name, t in traj.events if name != "zero"]
    assert len(zeros) == int((10.0 - period / 4) // (period / 2)) + 1 > 8  # (more than the log's first 8 rows)
    np.testing.assert_allclose(zeros, period / 4 + period / 2 * np.arange(len(zeros)), rtol=0, atol=1e-9)
    np.testing.assert_allclose(heights[0], t_height, rtol=0, atol=1e-9)


def test_builtin_events_are_plain_callables_with_one_value():
    model, q0, v0 = hanging_chain(3, swing=0.4)
    joint = mb.JointValue("link2_joint", 1.0).bind(model)
    speed = mb.JointValue("link3", -0.2, velocity=True).bind(model)  # a joint by its child body's name
    point = mb.PointHeight("link3", (0.3, 0.1, 0.0), height=0.2, axis=(1.0, 0.0, 1.0)).bind(model)
    v0 = np.array([0.1, 0.2, 0.3])
    R, p = mb.body_pose(model, q0, "link3")
    assert joint(0.0, q0, v0) == q0[1] - 1.0 and speed(0.0, q0, v0) == v0[2] + 0.2
    np.testing.assert_allclose(point(0.0, q0, v0), (p + R @ [0.3, 0.1, 0.0]) @ [1, 0, 1] / np.sqrt(2) - 0.2,
                               rtol=0, atol=1e-14)
    model.add_frame("tip", "link3", mb.Transform(translation=(0.3, 0.0, 0.0)))  # a frame names the same point
    on_frame = mb.PointHeight("tip", (0.0, 0.1, 0.0), height=0.2, axis=(1.0, 0.0, 1.0)).bind(model)
    assert on_frame(0.0, q0, v0) == point(0.0, q0, v0)
    # as a user's callable on the Python path (with an action), and wrapped in mb.Event (its settings count)
    bounce = mb.Event(mb.JointValue("link1", 0.35, direction=-1), action=lambda t, q, v: (q, -v))
    traj = mb.simulate(model, q0, np.zeros(3), t_end=1.0, events=[bounce])
    assert "compiled" not in traj.info and traj.events[0][0] == "link1 = 0.35"
    stop = mb.Event(mb.JointValue("link1", 0.35), terminal=True, name="stop")
    traj = mb.simulate(model, q0, np.zeros(3), t_end=1.0, events=[stop])
    assert traj.info["compiled"] and [name for name, _ in traj.events] == ["stop"]


def test_bad_events_are_refused_naming_the_problem():
    model = mb.Model.chain(2)
    for make, error, match in [
            (lambda: mb.JointValue("knee", 0.0), mb.ModelError, "no joint 'knee'.*link1_joint, link2_joint"),
            (lambda: mb.JointValue("link1", 0.0, axis=1), ValueError, "axis 1 is out of range.*1 coordinates"),
            (lambda: mb.JointValue("link1", 0.0, axis=-1), ValueError, "axis must be"),
            (lambda: mb.JointValue("link1", np.nan), ValueError, "value must be a finite number"),
            (lambda: mb.PointHeight("foot"), mb.ModelError, "PointHeight.*unknown body or frame 'foot'"),
            (lambda: mb.PointHeight("link1", axis="w"), ValueError, "axis must be 'x', 'y', 'z'"),
            (lambda: mb.PointHeight("link1", axis=(0, 0, 0)), ValueError, "nonzero world direction"),
            (lambda: mb.PointHeight("link1", point=(1, 2)), ValueError, "point must be 3 finite"),
            (lambda: mb.JointValue("link1", direction="up"), ValueError, "direction must be a number")]:
        with pytest.raises(error, match=match):
            mb.simulate(model, t_end=0.1, events=[make()])
    model.add_frame("floor", "world")
    with pytest.raises(ValueError, match="frame 'floor' is fixed in the world"):
        mb.simulate(model, t_end=0.1, events=[mb.PointHeight("floor")])
    with pytest.raises(ValueError, match="not bound to a model"):
        mb.JointValue("link1")(0.0, np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="Python callable"):
        integrate_tree(model, [0, 0], [0, 0], [0.0, 1.0], events=[lambda t, q, v: q[0]])


def test_the_compiled_loop_takes_builtin_events_and_says_why_not_others():
    model, q0, v0 = hanging_chain(3)
    down = mb.JointValue("link1", 0.0)
    assert unsupported(model, events=[down, mb.Event(down, terminal=True)]) == ""
    assert "'lift' is a Python callable" in unsupported(model, events=[mb.Event(lambda t, q, v: q[0], name="lift")])
    assert "has an action" in unsupported(model, events=[mb.Event(down, action=lambda t, q, v: (q, v))])
    assert mb.simulate(model, q0, v0, t_end=0.2, events=[down], method="RK4", dt=0.01).info["compiled"]
    # several runs: each in the compiled loop with its events (the batched loop has none)
    runs = mb.simulate(model, [q0, 0.5 * q0], v0, t_end=1.5, events=[down])
    for run, start in zip(runs, [q0, 0.5 * q0]):
        assert run.info["compiled"] and run.events
        assert run.events == mb.simulate(model, start, v0, t_end=1.5, events=[down]).events


def test_the_docstring_examples_run():
    from multibody.simulate import events
    result = doctest.testmod(events, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 6 and result.failed == 0
