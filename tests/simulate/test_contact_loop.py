"""``simulate(..., method="contact")`` in the compiled loop (:mod:`multibody.simulate.contact_loop`): the same
trajectories as the Python step on the dm_control files, the Python loop with a notice for what it cannot take,
Ctrl-C keeping the samples, and many scenes at once across threads equal to the single runs."""
import _thread
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.simulate import planning

suite = pytest.importorskip("dm_control.suite")
SUITE = Path(suite.__file__).parent
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_contact  # noqa: E402  (Go1 as the benchmark builds it)


def _model(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what the files hold that is approximated (zero control here)
        return mb.Model.from_mjcf(str(SUITE / f"{name}.xml"))


def go1():
    """(model, q0) of Go1 on a floor, dropped 5 cm in its standing pose with joint spring-dampers, as
    benchmarks/bench_contact.py builds it."""
    namespace = {"__name__": "bench_contact_run"}
    exec(compile(bench_contact.RUN, "bench_contact_run", "exec"), namespace)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return namespace["go1"]()[:2]


def _ball(restitution=0.0):
    """A ball of radius 0.1 m on a free joint over a floor, a capsule pendulum beside it with a limited hinge."""
    model = mb.Model("ball")
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 4e-3), joint=mb.Free())
    model.add_geometry("ball", mb.Sphere(0.1), restitution=restitution)
    model.add(mb.Body("arm", mass=0.5, inertia=np.eye(3) * 1e-3, com=[0, 0, -0.2]),
              joint=mb.Revolute(axis=[0, 1, 0], name="arm", limits=mb.JointLimits(-0.5, 0.5)),
              placement=mb.Transform(translation=[1.0, 0, 0.5]))
    model.add_geometry("arm", mb.Capsule(0.05, 0.1), placement=mb.Transform(translation=[0, 0, -0.3]))
    model.add_geometry("world", mb.Plane(), friction=0.8)
    q0 = model.neutral()
    q0[2], q0[7] = 0.3, 0.4
    return model, q0, np.r_[0.5, 0.0, 0.0, 0.0, 2.0, 0.0, -3.0]


@pytest.mark.slow
@pytest.mark.parametrize("name, dt", [("cheetah", 0.01), ("hopper", 0.002), ("walker", 0.0025),
                                      ("humanoid", 0.005), ("go1", 0.002)])
def test_the_compiled_contact_loop_follows_the_python_step(name, dt):
    """0.5 s from the file's qpos0: the compiled loop and the Python step (which share the detection, the rows and
    the solve) agree to round-off; a redundant contact set's LCP (four humanoid contacts on one foot) may pivot
    differently on a 1e-30 difference, or be solved from the last step's basis in the loop and by Lemke's method in
    the Python step, and give another of its solutions, equal to the LCP's regularization (1e-10 relative), which
    keeps the runs apart by that much (1.6e-9 rad on a walker joint at its stop) without growing. Go1's URDF joint
    friction (0.2 N·m over v_s = 1e-3 rad/s) makes a sample's acceleration at rest move by F_c/(v_s I) ≈ 5e4 s⁻¹
    times a velocity difference: its accelerations agree to 1e-6 relative."""
    model, q0 = go1() if name == "go1" else (_model(name), None)
    v0 = None if q0 is None else np.zeros(model.nv)
    fast = mb.simulate(model, q0, v0, 0.5, method="contact", dt=dt)
    slow = mb.simulate(model, q0, v0, 0.5, method="contact", dt=dt, compiled=False)
    assert fast.info["compiled"] is True and "compiled" not in slow.info and len(fast) == len(slow)
    np.testing.assert_array_equal(fast.t, slow.t)
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-8)
    np.testing.assert_allclose(fast.v, slow.v, rtol=0, atol=1e-7)
    np.testing.assert_allclose(fast.a, slow.a, rtol=1e-6 if name == "go1" else 0, atol=1e-5)


def test_a_ball_and_a_limited_arm_step_alike_in_both_loops():
    """A bouncing ball (restitution) and an arm swinging onto its joint limit and a capsule onto the floor:
    contact, restitution, friction and limit rows, at output times off the dt grid."""
    model, q0, v0 = _ball(restitution=0.5)
    t_eval = np.array([0.0, 0.0, 0.013, 0.1, 0.25, 0.4, 0.4, 0.6])
    fast = mb.simulate(model, q0, v0, 0.6, method="contact", dt=2e-3, t_eval=t_eval)
    slow = mb.simulate(model, q0, v0, 0.6, method="contact", dt=2e-3, t_eval=t_eval, compiled=False)
    assert fast.info["compiled"] is True
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast.v, slow.v, rtol=0, atol=1e-10)
    every = mb.simulate(model, q0, v0, 0.6, method="contact", dt=2e-3)  # a sample every step
    assert -0.5 - 1e-9 <= every.q[:, 7].min() < -0.5 + 1e-3  # the arm on its stop
    assert every.q[:, 2].min() > 0.1 - 1e-3  # the ball on the floor, not into it


def test_what_the_compiled_loop_cannot_take_runs_in_the_python_loop_with_a_notice():
    model, q0, v0 = _ball()
    model.add_geometry("arm", mb.Box([0.05, 0.05, 0.05]), name="block")  # (boxes: compiled)
    fast = mb.simulate(model, q0, v0, 0.05, method="contact", dt=1e-2)
    planning.NOTICED.clear()
    with pytest.warns(UserWarning, match="the torque is a callable"):
        slow = mb.simulate(model, q0, v0, 0.05, method="contact", dt=1e-2, torque=lambda t, q, v: np.zeros(7))
    assert fast.info["compiled"] is True and "compiled" not in slow.info
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # compiled=False: no notice
        mb.simulate(model, q0, v0, 0.05, method="contact", dt=1e-2, compiled=False)


def test_ctrl_c_stops_the_compiled_contact_loop_and_keeps_the_samples():
    model, q0, v0 = _ball()
    mb.simulate(model, q0, v0, 0.01, method="contact", dt=1e-3)  # compiled before the clock starts
    threading.Timer(0.3, _thread.interrupt_main).start()
    with pytest.raises(mb.SimulationInterrupted) as info:
        mb.simulate(model, q0, v0, 1e4, method="contact", dt=1e-3, samples=10001)
    partial = info.value.trajectory
    assert partial.info["interrupted"] and partial.info["compiled"] and len(partial) > 2
    assert partial.t[-1] <= info.value.time < 1e4
    assert np.all(np.isfinite(partial.q)) and np.all(np.isfinite(partial.a))


def test_many_scenes_run_across_threads_as_their_single_runs():
    model, q0, v0 = _ball()
    rng = np.random.default_rng(3)
    Q0 = np.tile(q0, (5, 1))
    Q0[:, 2] += 0.2 * rng.random(5)
    Q0[:, 7] += 0.2 * rng.random(5) - 0.1
    runs = mb.simulate(model, Q0, v0, 0.4, method="contact", dt=2e-3, samples=21)
    assert len(runs) == 5 and all(r.info["compiled"] is True for r in runs)
    for b in range(5):
        one = mb.simulate(model, Q0[b], v0, 0.4, method="contact", dt=2e-3, samples=21)
        np.testing.assert_array_equal(runs[b].q, one.q)
        np.testing.assert_array_equal(runs[b].v, one.v)


def test_a_run_longer_than_its_steps_on_the_calling_thread_goes_on_alike_on_a_worker():
    """A single run takes its first INLINE_STEPS steps on the calling thread and the rest on a worker: the same
    samples and trajectory as the batch run, which takes every step in one call."""
    from multibody.simulate import contact_loop
    model, q0, v0 = _ball()
    steps = 2 * contact_loop.INLINE_STEPS + 10
    one = mb.simulate(model, q0, v0, steps * 2e-3, method="contact", dt=2e-3, samples=steps + 1)
    runs = mb.simulate(model, np.tile(q0, (2, 1)), v0, steps * 2e-3, method="contact", dt=2e-3, samples=steps + 1)
    assert one.info["compiled"] is True and one.info["steps"] == steps
    for run in runs:
        np.testing.assert_array_equal(run.q, one.q)
        np.testing.assert_array_equal(run.v, one.v)


def test_actuators_at_constant_and_tabulated_controls_step_alike_in_both_loops():
    """The cheetah's six motors at constant controls, and at a table of controls in time, in the compiled loop
    (the actuators' compiled forces) and in the Python step (their Python forces)."""
    model = _model("cheetah")
    nu = 6
    for ctrl in (np.linspace(-0.5, 0.5, nu), mb.TorqueTable([0.0, 0.3], np.array([np.zeros(nu), np.ones(nu)]))):
        fast = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=ctrl)
        slow = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=ctrl, compiled=False)
        assert fast.info["compiled"] is True and "compiled" not in slow.info
        np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-10)
        np.testing.assert_allclose(fast.tau, slow.tau, rtol=0, atol=1e-9)
    moved = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=np.ones(nu))
    still = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01)
    assert np.abs(moved.q[-1] - still.q[-1]).max() > 1e-3  # the controls act


def test_the_arrays_kept_with_the_model_follow_its_step_its_limits_and_its_edits():
    """A second run of the same model with another dt, without its stored limits, after an edit of a shape's
    restitution and of the pairs' friction rule: each equal to the same run of a freshly built model."""
    model, q0, v0 = _ball(restitution=0.5)
    edits = []

    def alike(edit, **options):
        fresh, _, _ = _ball(restitution=0.5)
        edit(model)
        edits.append(edit)
        for each in edits:  # (the kept model holds every edit so far)
            each(fresh)
        kept = mb.simulate(model, q0, v0, 0.6, method="contact", **options)
        new = mb.simulate(fresh, q0, v0, 0.6, method="contact", **options)
        np.testing.assert_array_equal(kept.q, new.q)
        np.testing.assert_array_equal(kept.a, new.a)
        return kept

    first = alike(lambda m: None, dt=2e-3)
    assert not np.array_equal(alike(lambda m: None, dt=5e-3).q[-1], first.q[-1])
    with pytest.warns(UserWarning, match="went past the limits stored"):
        free = alike(lambda m: None, dt=2e-3, joint_limits=False)
    assert free.q[:, 7].min() < -0.5 - 1e-3  # the arm past its stored stop: those limits' rows left out
    plastic = alike(lambda m: setattr(m.geometries[0], "restitution", 0.0), dt=2e-3)
    assert not np.array_equal(plastic.q[-1], first.q[-1])
    alike(lambda m: setattr(m, "friction_rule", "max"), dt=2e-3)


def test_the_samples_accelerations_and_forces_are_computed_when_read_as_the_python_step_has_them():
    """A compiled contact run's ``tau`` and ``a`` at the samples, computed when first read: the applied forces
    (Python force elements, actuators at their controls) and the free acceleration, the ABA of each sample's state
    under them, without the contact impulses, as the Python step's samples have them, of the model as it ran; a
    value set before the first read is kept, and the trajectory pickles."""
    import pickle

    from multibody.simulate.python_loop import generalized_forces
    model = _model("cheetah")
    ctrl = np.linspace(-0.5, 0.5, 6)
    fast = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=ctrl)
    slow = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=ctrl, compiled=False)
    forces = generalized_forces(model, None, None, ctrl)
    for j in (0, 7, len(fast) - 1):
        tau = forces(fast.t[j], fast.q[j], fast.v[j])
        np.testing.assert_allclose(fast.tau[j], tau, rtol=0, atol=1e-12)
        np.testing.assert_allclose(fast.a[j], mb.aba(model, fast.q[j], fast.v[j], tau), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fast.a, slow.a, rtol=0, atol=1e-7)
    np.testing.assert_allclose(fast.tau, slow.tau, rtol=0, atol=1e-9)
    unread = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=ctrl)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(unread)).a, fast.a)  # (pickled before a first read)
    unread.a = np.zeros_like(unread.v)
    assert not unread.a.any()
    np.testing.assert_array_equal(unread.tau, fast.tau)
    edited = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=ctrl)
    model.body("torso").mass *= 2  # (after the run: its samples' accelerations are those of the model that ran)
    np.testing.assert_array_equal(edited.a, fast.a)
    shifted = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=ctrl)
    again = mb.simulate(model, None, None, 0.3, method="contact", dt=0.01, ctrl=ctrl)
    shifted.q[:, 0] += 1.0  # (the user's arrays, edited in place before the first read: a and tau are the run's)
    shifted.v[:] = 0.0
    np.testing.assert_array_equal(shifted.a, again.a)
    np.testing.assert_array_equal(shifted.tau, again.tau)
