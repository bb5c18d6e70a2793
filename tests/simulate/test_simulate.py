"""mb.simulate: conservation laws, analytic solutions, applied forces, events and failures."""
import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.io.files import example_path

from sim_models import G, point_pendulum


def test_double_pendulum_conserves_energy_to_1e_8(double_pendulum):
    setup = double_pendulum
    traj = mb.simulate(setup.model, setup.q0, setup.v0, t_end=10.0, rtol=1e-10, atol=1e-12)
    energy = traj.energy()
    scale = np.abs(traj.energy("kinetic")).max()
    assert traj.t[-1] == 10.0 and len(traj) == 1001
    assert np.abs(energy - energy[0]).max() / scale < 1e-8
    assert np.ptp(traj.q[:, 1]) > 1.0  # it really moved


def test_joint_spring_oscillator_matches_cosine():
    # mass on a prismatic joint with a spring: x(t) = x0 cos(ωt), ω = √(k/m)
    model = mb.Model("oscillator", gravity=(0, 0, 0))
    model.add(mb.Body("mass", mass=2.0, inertia=np.eye(3) * 0.01), joint=mb.Prismatic((1, 0, 0), name="x"))
    model.add_force(mb.JointSpring("x", stiffness=8.0, rest=0.0))
    traj = mb.simulate(model, [0.3], [0.0], t_end=5.0, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(traj.q[:, 0], 0.3 * np.cos(2.0 * traj.t), atol=1e-9)
    np.testing.assert_allclose(traj.a[:, 0], -4.0 * traj.q[:, 0], atol=1e-9)
    np.testing.assert_allclose(traj.energy(), 0.5 * 8.0 * 0.3**2, rtol=1e-9)


def test_point_spring_equals_joint_spring_along_its_line():
    # a spring from a world point to the slider, along the slide axis, is the same joint spring
    def slider(element):
        model = mb.Model("slider", gravity=(0, 0, 0))
        model.add(mb.Body("mass", mass=1.5, inertia=np.eye(3) * 0.01), joint=mb.Prismatic((1, 0, 0), name="x"))
        model.add_force(element)
        return model
    spring = slider(mb.Spring("world", (-1.0, 0, 0), "mass", (0, 0, 0), stiffness=5.0, rest_length=0.6, damping=0.3))
    joint = slider(mb.JointSpring("x", stiffness=5.0, rest=-0.4, damping=0.3))
    a = mb.simulate(spring, [0.2], [0.1], t_end=3.0)
    b = mb.simulate(joint, [0.2], [0.1], t_end=3.0)
    np.testing.assert_allclose(a.q, b.q, atol=1e-9)
    assert a.energy()[-1] < a.energy()[0] - 0.1  # damping dissipates


def test_body_force_equals_the_equivalent_joint_torque():
    model = point_pendulum()
    force = np.array([0, 0, 0, 2.0, 0, 0])  # 2 N along body x at the body origin ...
    moved = mb.simulate(model, [0.3], [0.0], t_end=1.0,
                        f_ext=lambda t, q, v: {"bob0": [0, 0, 0, 2.0, 0, 0.0]})
    assert force[3] == 2.0
    # ... at the hinge: no torque. Apply it at the bob instead: moment r × f about the origin.
    r, f = np.array([0, 0, -1.0]), np.array([2.0, 0, 0])
    at_bob = mb.simulate(model, [0.3], [0.0], t_end=1.0, f_ext={"bob0": np.concatenate([np.cross(r, f), f])})
    torque = mb.simulate(model, [0.3], [0.0], t_end=1.0, torque=[-2.0])  # τ = (r × f)·y = −2 N·m
    free = mb.simulate(model, [0.3], [0.0], t_end=1.0)
    np.testing.assert_allclose(moved.q, free.q, atol=1e-12)
    np.testing.assert_allclose(at_bob.q, torque.q, atol=1e-9)
    assert np.abs(torque.q - free.q).max() > 0.1


def test_gyrostat_conserves_momentum_and_unit_quaternion():
    setup = mb.read_model_file(example_path("satellite_rotor"))
    traj = mb.simulate(setup.model, setup.q0, setup.v0, t_end=20.0, rtol=1e-10, atol=1e-12)
    h = np.array([mb.momentum(setup.model, q, v)[0] for q, v in zip(traj.q, traj.v)])
    assert np.abs(h - h[0]).max() < 1e-8 * np.linalg.norm(h[0])
    np.testing.assert_allclose(np.linalg.norm(traj.q[:, 3:7], axis=1), 1.0, atol=1e-14)
    assert np.ptp(traj.q[:, 3:7]) > 0.1  # the carrier tumbles


def test_terminal_event_and_bounce_action_at_analytic_times():
    # a ball on a vertical slider dropped from h: hits z = 0 at √(2h/g); an elastic bounce returns it to h
    model = mb.Model("ball", gravity=(0, 0, -G))
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 1e-3), joint=mb.Prismatic((0, 0, 1)))
    hit = mb.Event(lambda t, q, v: q[0], name="floor", direction=-1, action=lambda t, q, v: (q, -v))
    traj = mb.simulate(model, [1.0], [0.0], t_end=2.0, events=[hit], rtol=1e-10, atol=1e-12)
    t_hit = np.sqrt(2.0 / G)
    assert [name for name, _ in traj.events] == ["floor", "floor"]
    np.testing.assert_allclose([t for _, t in traj.events], [t_hit, 3 * t_hit], rtol=1e-9)
    assert traj.q.min() > -1e-9 and abs(traj.q[:, 0].max() - 1.0) < 1e-9

    def stop(t, q, v):
        return q[0] - 0.5
    stop.terminal = True
    stopped = mb.simulate(model, [1.0], [0.0], t_end=2.0, events=[stop])
    assert stopped.events[0][0] == "stop" and stopped.t[-1] <= stopped.events[0][1] < 0.33


def test_failure_raises_with_time_and_partial_trajectory():
    model = point_pendulum()

    def torque(t, q, v):
        return [np.nan] if t > 0.5 else [0.0]
    with pytest.raises(mb.SimulationError) as info:
        mb.simulate(model, [0.3], [0.0], t_end=2.0, torque=torque)
    error = info.value
    assert 0.3 < error.time <= 0.5 and "t = " in str(error)
    assert isinstance(error.trajectory, mb.Trajectory) and 0.2 < error.trajectory.t[-1] <= 0.5


@pytest.mark.parametrize("bad, match", [
    (dict(t_end=-1.0), "t_end"), (dict(method="Verlet"), "unknown method"), (dict(q0=[0.0, 1.0]), "q0"),
    (dict(torque=[1.0, 2.0]), "torque"), (dict(t_eval=[0.5, 0.2]), "t_eval"),
    (dict(method="RK4"), "'RK4' takes fixed steps: give the step dt"), (dict(method="Euler", dt=0.0), "dt > 0"),
    (dict(method="RK4", dt=np.nan), "dt > 0"), (dict(dt=1e-3), "dt is the step of the fixed-step methods")])
def test_bad_arguments_name_the_culprit(bad, match):
    arguments = dict(q0=[0.1], v0=[0.0], t_end=1.0) | bad
    with pytest.raises(ValueError, match=match):
        mb.simulate(point_pendulum(), **arguments)


def test_symbolic_equations_plug_in_as_dynamics(double_pendulum):
    sym = pytest.importorskip("multibody.symbolic")
    model = double_pendulum.model
    numeric = sym.equations_of_motion(model).to_numeric(backend="numpy")
    reference = mb.simulate(model, double_pendulum.q0, double_pendulum.v0, t_end=2.0)
    generated = mb.simulate(model, double_pendulum.q0, double_pendulum.v0, t_end=2.0,
                            dynamics=lambda t, q, v, tau: numeric.udot(q, v, t))
    np.testing.assert_allclose(generated.q, reference.q, atol=1e-7)


def test_constrained_four_bar_stays_closed():
    if not hasattr(mb, "forward_dynamics"):
        pytest.skip("constrained dynamics not available")
    setup = mb.read_model_file(example_path("four_bar"))
    traj = mb.simulate(setup.model, setup.q0, setup.v0, t_end=2.0)
    errors = traj.constraint_errors()
    assert errors.shape == (len(traj), 2) and errors.max() < 1e-6
    assert np.ptp(traj.q[:, 0]) > 0.5


@pytest.mark.parametrize("t_eval", [[0.0, np.nan], [np.nan, 0.5], [], [0.0, np.inf]])
def test_output_times_must_be_finite(t_eval):
    model = mb.Model.chain(1)
    with pytest.raises(ValueError, match="t_eval must be finite increasing times"):
        mb.simulate(model, np.zeros(1), np.zeros(1), t_end=1.0, t_eval=t_eval)


@pytest.mark.parametrize("where", ["torque", "f_ext", "dynamics", "event", "action"])
def test_any_failure_of_user_code_keeps_the_partial_trajectory_and_chains_the_error(where):
    model = point_pendulum()

    def boom(t, *args):
        if t > 0.5:
            raise KeyError("user bug")
        return {"torque": [0.0], "f_ext": np.zeros((1, 6)), "event": 1.0}.get(where)
    options = {"torque": dict(torque=boom), "f_ext": dict(f_ext=boom),
               "dynamics": dict(dynamics=lambda t, q, v, tau: boom(t) or mb.aba(model, q, v, tau)),
               "event": dict(events=[mb.Event(boom, name="watch")]),
               "action": dict(events=[mb.Event(lambda t, q, v: q[0] - 0.25, name="pass", direction=-1,
                                               action=lambda t, q, v: boom(0.6))])}[where]
    with pytest.raises(mb.SimulationError) as info:
        mb.simulate(model, [0.3], [0.0], t_end=2.0, **options)
    error = info.value
    assert isinstance(error.__cause__, KeyError) and "KeyError" in str(error) and "user bug" in str(error)
    assert {"event": "event 'watch'", "action": "action of event 'pass'"}.get(where, where) in str(error)
    assert isinstance(error.trajectory, mb.Trajectory) and len(error.trajectory) > 10
    assert error.trajectory.t[-1] <= error.time <= 0.6
    # the partial trajectory is the uninterrupted run's, then the state the run reached (between output times)
    full = mb.simulate(model, [0.3], [0.0], t_end=2.0, compiled=False)  # the same solver as the callables force
    k = len(error.trajectory) - (error.trajectory.t[-1] not in full.t)
    np.testing.assert_array_equal(error.trajectory.q[:k], full.q[:k])


def test_ctrl_c_raises_simulation_interrupted_with_the_trajectory_so_far():
    model = point_pendulum()

    def torque(t, q, v):
        if t > 0.5:
            raise KeyboardInterrupt
        return [0.0]
    with pytest.raises(mb.SimulationInterrupted) as info:
        mb.simulate(model, [0.3], [0.0], t_end=2.0, torque=torque)
    stop = info.value
    assert isinstance(stop, KeyboardInterrupt) and not isinstance(stop, mb.SimulationError)
    assert 0.3 < stop.time <= 0.5 and "interrupted at t = " in str(stop)
    traj = stop.trajectory
    assert traj.info["interrupted"] and 0.2 < traj.t[-1] <= stop.time
    full = mb.simulate(model, [0.3], [0.0], t_end=2.0, compiled=False)  # the same solver as the callables force
    k = len(traj) - 1  # last, the state the run reached, between two output times
    assert traj.t[-1] not in full.t and full.t[k - 1] < traj.t[-1] < full.t[k + 1]
    np.testing.assert_array_equal(traj.q[:k], full.q[:k])


def test_an_action_that_leaves_the_state_unchanged_fires_once_and_never_hangs():
    model = point_pendulum()
    # crossing levels of which some left the root on the positive side (the event fired forever before)
    for level in np.linspace(0.01, 0.29, 15):
        event = mb.Event(lambda t, q, v, c=level: q[0] - c, name="cross", direction=-1, action=lambda t, q, v: (q, v))
        traj = mb.simulate(model, [0.3], [0.0], t_end=2.0, events=[event])
        assert [name for name, _ in traj.events] == ["cross"]
        # the same crossing and motion as the event without an action (it only logs)
        logged = mb.simulate(model, [0.3], [0.0], t_end=2.0, events=[mb.Event(event.function, direction=-1)])
        assert traj.events[0][1] == pytest.approx(logged.events[0][1], abs=1e-10)
        assert np.abs(traj.q - logged.q).max() < 1e-7  # restarting at the event: a difference within rtol = 1e-8


def test_actions_that_keep_firing_without_time_advancing_raise_naming_the_event():
    model = point_pendulum()
    nudge = mb.Event(lambda t, q, v: q[0] - 0.1, name="nudge", direction=-1, action=lambda t, q, v: (q + 1e-10, v))
    with pytest.raises(mb.SimulationError, match="event 'nudge': 100 event actions") as info:
        mb.simulate(model, [0.3], [0.0], t_end=2.0, events=[nudge])
    assert info.value.trajectory is not None and 0.35 < info.value.time < 0.45


def test_user_code_failing_only_at_an_output_sample_keeps_the_states():
    model = point_pendulum()

    def torque(t, q, v):  # the solver never evaluates it at exactly t = 1.0, the output sample does
        if t == 1.0:
            raise RuntimeError("not at one")
        return [0.0]
    with pytest.raises(mb.SimulationError, match="not at one.*output samples") as info:
        mb.simulate(model, [0.3], [0.0], t_end=2.0, torque=torque)
    traj = info.value.trajectory
    assert len(traj) == 201 and np.isnan(traj.tau).all() and isinstance(info.value.__cause__, RuntimeError)
    np.testing.assert_allclose(traj.q, mb.simulate(model, [0.3], [0.0], t_end=2.0).q, rtol=0, atol=1e-12)


def test_a_run_without_contact_says_it_ignores_the_contact_shapes():
    model = mb.Model("ball over floor")
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 0.004), joint=mb.Prismatic([0, 0, 1], name="z"))
    model.add_geometry("ball", mb.Sphere(0.1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mb.simulate(model, [0.5], t_end=0.1, progress=False)  # one shape: nothing it could touch
    model.add_geometry("world", mb.Plane())
    with pytest.warns(UserWarning, match=r"'ball over floor' has 2 contact shapes, which this run ignores.*"
                                          r"collisions=True.*method='contact'"):
        falls = mb.simulate(model, [0.5], t_end=1.0, progress=False)
    assert falls.q[-1, 0] < 0.0  # through the floor, as the warning says
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rests = mb.simulate(model, [0.5], t_end=1.0, method="contact", dt=1e-3, progress=False)
    np.testing.assert_allclose(rests.q[-1, 0], 0.1, rtol=0, atol=2e-3)


def test_shapes_that_never_touch_give_no_warning_until_contact_is_simulated():
    """Shapes of a body and its parent never touch (no warning for a run without contact); a pair with no contact
    model (plane–plane) is named once, by the first run that simulates contact, not by runs that ignore shapes."""
    model = mb.Model.chain(2)
    model.add_geometry("link1", mb.Sphere(0.1))
    model.add_geometry("link2", mb.Sphere(0.1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mb.simulate(model, [0.1, 0.0], t_end=0.1, progress=False)
    boxes = mb.Model.chain(3)
    boxes.add_geometry("link1", mb.Plane())
    boxes.add_geometry("link3", mb.Plane())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mb.simulate(boxes, [0.1, 0.0, 0.0], t_end=0.1, progress=False)
    with pytest.warns(UserWarning, match="no contact model for 1 pairs of shapes.*Plane–Plane") as caught:
        for _ in range(2):
            mb.simulate(boxes, [0.1, 0.0, 0.0], t_end=0.01, method="contact", dt=1e-3, progress=False)
    assert sum("no contact model" in str(w.message) for w in caught) == 1


def test_a_run_past_limits_it_does_not_enforce_says_so():
    """Limits stored with a joint (Joint.limits, a file's <limit>) are stops by default, with every method; a run
    with ``joint_limits=False`` that takes the joint past them warns, naming the joint."""
    model = mb.Model("hub")
    model.add(mb.Body("hub", mass=1.0, inertia=np.eye(3) * 0.1),
              joint=mb.Revolute([0, 0, 1], name="spin", limits=mb.JointLimits(lower=-0.5, upper=0.5)))
    for options in ({}, {"compiled": False}, {"method": "RK4", "dt": 1e-3}):
        with pytest.warns(UserWarning, match=r"'hub': 1 joints went past.*'spin' reached 1 \(limits \[-0.5, 0.5\]\)"
                                              r".*joint_limits=True"):
            mb.simulate(model, [0.0], [1.0], t_end=1.0, progress=False, joint_limits=False, **options)
    with pytest.warns(UserWarning, match="'spin' reached -1"):
        mb.simulate(model, [0.0], [[0.1], [-1.0]], t_end=1.0, method="RK4", dt=1e-3, progress=False,
                    joint_limits=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mb.simulate(model, [0.0], [0.4], t_end=1.0, progress=False, joint_limits=False)  # within the limits
        for options in ({}, {"method": "RK4", "dt": 1e-3}, {"method": "contact", "dt": 1e-3}):
            stopped = mb.simulate(model, [0.0], [1.0], t_end=1.0, progress=False, **options)
            assert stopped.q[:, 0].max() < 0.5 + 1e-8
