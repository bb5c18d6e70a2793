"""The compiled integration loop (multibody.simulate.compiled): against scipy's path, conservation, quaternion
norms, convergence orders, batches, failures that keep their samples."""
import numba
import numpy as np
import pytest

import multibody as mb
from multibody.model.joints import FREE, SPHERICAL
from multibody.simulate.compiled import (force_arrays, integrate_tree, integrate_tree_batch, tree_trajectory,
                                        unsupported)

from sim_models import floating_tree, hanging_chain


def quaternion_norms(model, q):
    norms = []
    for joint in model.joints:
        if joint.code in (SPHERICAL, FREE):
            stop = model.q_slice(joint.name).stop
            norms.append(np.linalg.norm(q[:, stop - 4:stop], axis=1))
    return np.array(norms)


@pytest.mark.parametrize("make", [lambda: hanging_chain(7, swing=0.5), floating_tree],
                         ids=["chain7", "floating_tree"])
@pytest.mark.parametrize("compiled_method", ["DOPRI5", "DOP853"])
def test_adaptive_methods_match_scipy(make, compiled_method):
    model, q0, v0 = make()
    t_eval = np.linspace(0.0, 1.0, 51)
    tau = np.linspace(-0.5, 0.5, model.nv)
    t, q, v, info = integrate_tree(model, q0, v0, t_eval, method=compiled_method, rtol=1e-10, atol=1e-10, tau=tau)
    for method in ("RK45", "DOP853"):
        ref = mb.simulate(model, q0, v0, t_end=1.0, t_eval=t_eval, rtol=1e-10, atol=1e-10, method=method,
                          torque=tau)
        np.testing.assert_allclose(q, ref.q, atol=1e-8, rtol=0)
        # (the chain's last link spins at up to ~5000 rad/s about its axis: velocities to 1e-8 of their scale)
        np.testing.assert_allclose(v, ref.v, atol=1e-8 * max(1.0, np.abs(ref.v).max()), rtol=0)
    assert info["status"] == "ok" and info["steps"] > 10
    if compiled_method == "DOPRI5":
        assert info["nfev"] == 6 * (info["steps"] + info["rejected"]) + 2
    traj = tree_trajectory(model, t, q, v, info, tau)  # accelerations and forces as mb.simulate records them
    np.testing.assert_allclose(traj.a, ref.a, atol=1e-6, rtol=0)
    np.testing.assert_allclose(traj.tau, ref.tau, atol=1e-7, rtol=0)


def test_quaternion_norms_stay_one():
    model, q0, v0 = floating_tree()
    t_eval = np.linspace(0.0, 2.0, 101)
    for method, options in (("DOPRI5", {"rtol": 1e-6, "atol": 1e-6}), ("DOP853", {"rtol": 1e-6, "atol": 1e-6}),
                            ("RK4", {"dt": 2e-3}), ("Euler", {"dt": 1e-3})):
        _, q, _, _ = integrate_tree(model, q0, v0, t_eval, method=method, **options)
        assert np.abs(quaternion_norms(model, q) - 1.0).max() < 1e-14, method


def test_energy_is_conserved_on_a_conservative_chain():
    model, q0, v0 = hanging_chain(7, swing=0.3)
    t_eval = np.linspace(0.0, 5.0, 501)
    total = {}
    for method, options in (("DOPRI5", {"rtol": 1e-10, "atol": 1e-10}), ("RK4", {"dt": 1e-3}),
                            ("Euler", {"dt": 1e-4})):
        t, q, v, info = integrate_tree(model, q0, v0, t_eval, method=method, **options)
        energy = tree_trajectory(model, t, q, v, info).energy()
        total[method] = np.abs(energy - energy[0]).max()
    kinetic = tree_trajectory(model, t, q, v, info).energy("kinetic").max()
    assert kinetic > 0.1  # it really moved
    assert total["DOPRI5"] < 1e-8 * kinetic and total["RK4"] < 1e-6 * kinetic
    # first order, and symplectic only for a constant mass matrix: a few % at dt = 1e-4 with the tip link spinning
    assert total["Euler"] < 0.1 * kinetic


def test_fixed_step_methods_converge_at_their_order():
    model, q0, v0 = hanging_chain(7, swing=0.3)
    t_eval = np.array([0.0, 0.5])
    _, exact, _, _ = integrate_tree(model, q0, v0, t_eval, rtol=1e-13, atol=1e-13)
    for method, dt, order in (("RK4", 1e-2, 4), ("Euler", 1e-3, 1)):
        errors = [np.abs(integrate_tree(model, q0, v0, t_eval, method=method, dt=h)[1][-1] - exact[-1]).max()
                  for h in (dt, dt / 2)]
        assert 0.8 * order < np.log2(errors[0] / errors[1]) < 1.25 * order + 0.3, (method, errors)


def test_fixed_steps_land_on_the_output_times():
    model, q0, v0 = hanging_chain(3)
    t_eval = np.array([0.0, 0.0, 0.013, 0.1, 0.25])
    t, q, v, info = integrate_tree(model, q0, v0, t_eval, method="RK4", dt=0.01)
    assert np.array_equal(t, t_eval) and info["steps"] == 2 + 9 + 15  # ceil(0.013/0.01), ceil(0.087/0.01), …
    np.testing.assert_array_equal(q[0], q[1])
    _, q_fine, _, _ = integrate_tree(model, q0, v0, t_eval, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(q, q_fine, atol=1e-6)  # RK4's error at dt = 0.01


def test_batch_matches_single_runs_on_any_number_of_threads():
    model, q0, v0 = floating_tree()
    rng = np.random.default_rng(0)
    Q0 = np.array([mb.normalize(model, q0 + 0.1 * rng.normal(size=model.nq)) for _ in range(5)])
    V0 = v0 + 0.1 * rng.normal(size=(5, model.nv))
    t_eval = np.linspace(0.0, 0.5, 11)
    for method, options in (("RK4", {"dt": 1e-3}), ("DOPRI5", {"rtol": 1e-9, "atol": 1e-9})):
        t, Q, V, info = integrate_tree_batch(model, Q0, V0, t_eval, method=method, threads=1, **options)
        _, Q2, V2, _ = integrate_tree_batch(model, Q0, V0, t_eval, method=method, threads=2, **options)
        assert Q.shape == (5, 11, model.nq) and V.shape == (5, 11, model.nv)
        assert info["status"] == ["ok"] * 5 and list(info["samples"]) == [11] * 5
        np.testing.assert_array_equal(Q, Q2)
        np.testing.assert_array_equal(V, V2)
        for b in (0, 4):
            _, q, v, _ = integrate_tree(model, Q0[b], V0[b], t_eval, method=method, **options)
            np.testing.assert_array_equal(Q[b], q)
            np.testing.assert_array_equal(V[b], v)


def test_lockstep_batch_matches_single_runs():
    """Revolute trees go through the lockstep kernel (LANES runs per vectorized ABA): the same steps as the
    single runs, so the same states to round-off; lanes are independent, so any thread count gives the same bits."""
    model, q0, v0 = hanging_chain(7)
    model.add_force(mb.JointSpring(model.joints[2].name, stiffness=3.0, rest=0.2, damping=0.1))
    model.add_force(mb.JointFriction(model.joints[4].name, friction=0.5, velocity_scale=0.1))
    rng = np.random.default_rng(1)
    Q0, V0 = q0 + 0.2 * rng.normal(size=(40, 7)), rng.normal(size=(40, 7))  # one full chunk of 32 and 8 more
    t_eval = np.array([0.0, 0.013, 0.1, 0.25])
    for method in ("RK4", "Euler"):
        t, Q, V, info = integrate_tree_batch(model, Q0, V0, t_eval, method=method, dt=1e-3, threads=1, tau=[0.1] * 7)
        _, Q2, V2, _ = integrate_tree_batch(model, Q0, V0, t_eval, method=method, dt=1e-3, threads=2, tau=[0.1] * 7)
        assert info["lockstep"] and info["status"] == ["ok"] * 40 and info["steps"] == 40 * (13 + 87 + 150)
        np.testing.assert_array_equal(Q, Q2)
        np.testing.assert_array_equal(V, V2)
        for b in (0, 31, 32, 39):
            _, q, v, _ = integrate_tree(model, Q0[b], V0[b], t_eval, method=method, dt=1e-3, tau=[0.1] * 7)
            np.testing.assert_allclose(Q[b], q, rtol=0, atol=1e-12)
            np.testing.assert_allclose(V[b], v, rtol=0, atol=1e-11)


def test_failures_raise_with_the_samples_computed_so_far():
    model, q0, v0 = hanging_chain(3)
    t_eval = np.linspace(0.0, 1.0, 11)
    with pytest.raises(mb.SimulationError, match="non-finite") as caught:  # v grows ~1e300 per step
        integrate_tree(model, q0, v0, t_eval, method="RK4", dt=0.01, tau=[1e300, 0, 0])
    traj = caught.value.trajectory
    assert 1 <= len(traj) < 11 and np.isfinite(traj.q).all() and caught.value.time < 1.0
    with pytest.raises(mb.SimulationError, match="max_steps") as caught:
        integrate_tree(model, q0, v0, t_eval, rtol=1e-10, atol=1e-10, max_steps=100)
    traj = caught.value.trajectory
    assert 1 <= len(traj) < 11 and traj.info["steps"] + traj.info["rejected"] == 100
    np.testing.assert_allclose(traj.q, integrate_tree(model, q0, v0, traj.t, rtol=1e-10, atol=1e-10)[1])
    _, _, _, info = integrate_tree_batch(model, [q0, q0], v0, t_eval, method="RK4", dt=0.01,
                                         tau=[1e300, 0, 0])
    assert info["status"] == ["non-finite state"] * 2


class Drag:
    """A force element of the user's own: Q = −0.1 q̇ (Python; the compiled loop does not take it)."""
    name = "drag"

    def check(self, model):
        pass

    def generalized_force(self, model, q, v):
        return -0.1 * np.asarray(v)


def test_what_it_does_not_compile_is_refused():
    model, q0, v0 = hanging_chain(3)
    assert unsupported(model) == ""
    assert "callable" in unsupported(model, torque=lambda t, q, v: 0 * v)
    model.add_force(mb.Spring("link1", (0.3, 0, 0), "world", (0, 0, 0), stiffness=1.0))
    model.add_force(mb.Gyrostat("link2", (0, 0, 1), polar_inertia=0.02, spin=40.0))
    assert unsupported(model) == ""
    model.add_force(Drag())
    assert "Drag" in unsupported(model)
    with pytest.raises(ValueError, match="Drag"):
        integrate_tree(model, q0, v0, [0.0, 1.0])
    with pytest.raises(ValueError, match="dt"):
        integrate_tree(mb.Model.chain(2), [0, 0], [0, 0], [0.0, 1.0], method="RK4")


def with_springs(model):
    """``model`` with two damped springs between body points (one to a world point, one between two bodies), a
    spinning rotor (a gyrostat) and a joint spring."""
    names = [body.name for body in model.bodies]
    model.add_force(mb.Gyrostat(names[1], (0.0, 0.6, 0.8), polar_inertia=0.05, spin=30.0))
    model.add_force(mb.Spring("world", (0.3, 0.2, -0.5), names[-1], (0.1, 0.05, 0.0), stiffness=40.0,
                              rest_length=0.2, damping=0.7))
    model.add_force(mb.Spring(names[0], (0.1, 0.0, 0.02), names[2], (0.0, 0.1, 0.0), stiffness=15.0,
                              rest_length=0.1, damping=0.3))
    one_dof = next(joint.name for joint in model.joints if joint.nv == 1)
    model.add_force(mb.JointSpring(one_dof, stiffness=2.0, rest=0.1, damping=0.05))
    return model


@pytest.mark.parametrize("make", [lambda: hanging_chain(4, swing=0.4), floating_tree], ids=["chain4", "floating"])
def test_springs_and_rotors_run_compiled_as_in_python(make):
    """Springs (mb.Spring) and gyrostats act as body forces in the compiled loop: the same motion, accelerations
    and applied generalized forces as their generalized_force in scipy's loop."""
    model, q0, v0 = make()
    model = with_springs(model)
    v0 = v0 + 0.3
    fast = mb.simulate(model, q0, v0, t_end=1.0, rtol=1e-11, atol=1e-11)
    slow = mb.simulate(model, q0, v0, t_end=1.0, rtol=1e-11, atol=1e-11, compiled=False)
    assert fast.info.get("compiled") is True and "compiled" not in slow.info
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fast.a, slow.a, rtol=0, atol=1e-6)
    np.testing.assert_allclose(fast.tau, slow.tau, rtol=0, atol=1e-9)
    assert np.abs(slow.tau).max() > 1.0  # (the springs act)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_spring_without_direction_stops_the_run_naming_it(compiled):
    """A spring of rest length L₀ > 0 whose two points coincide (here a point on the first joint's axis, at the
    world point) has no direction: both loops stop with a SimulationError that names the spring and keeps the
    samples."""
    model = mb.Model.chain(2)
    model.add_force(mb.Spring("world", (0, 0, 0), "link1", (0, 0, 0), stiffness=10.0, rest_length=0.1))
    with pytest.raises(mb.SimulationError, match="spring world-link1: the two points coincide") as stop:
        mb.simulate(model, np.array([0.3, 0.2]), np.zeros(2), 0.5, compiled=compiled)
    assert stop.value.trajectory is not None


def test_springs_in_batches_of_models_match_single_runs():
    """A batch of models whose springs differ (their own stiffness): each run as the single compiled run of its
    model, RK4 taking the per-run loop (the lockstep kernel has no body forces)."""
    models = [with_springs(hanging_chain(4)[0]) for _ in range(3)]
    for k, model in enumerate(models):  # (an element's edit drops the compiled model and its element rows)
        next(e for e in model.forces if isinstance(e, mb.Spring)).stiffness = 10.0 * (k + 1)
    q0, v0 = hanging_chain(4)[1:]
    t_eval = np.linspace(0.0, 0.5, 6)
    _, Q, _, info = integrate_tree_batch(models, q0, v0 + 0.2, t_eval, method="RK4", dt=1e-3)
    assert "lockstep" not in info and info["status"] == ["ok"] * 3
    for k, model in enumerate(models):
        _, q, _, _ = integrate_tree(model, q0, v0 + 0.2, t_eval, method="RK4", dt=1e-3)
        np.testing.assert_array_equal(Q[k], q)
    assert np.abs(Q[0] - Q[2]).max() > 1e-3


@pytest.mark.parametrize("method, options", [("DOP853", {"rtol": 1e-11, "atol": 1e-11}), ("RK4", {"dt": 1e-3})])
def test_a_torque_table_runs_compiled_as_in_python(method, options):
    """A TorqueTable τ(t), linear between its rows and held outside them, runs in the compiled loop with the
    same motion and applied forces as its Python callable form in scipy's (or the fixed-step) loop."""
    model, q0, v0 = hanging_chain(3)
    table = mb.TorqueTable([0.1, 0.35, 0.5, 0.9], [[0.0, 0.2, -0.1], [1.5, -0.4, 0.3], [-1.0, 0.0, 0.8],
                                                    [0.2, 0.2, 0.2]])
    fast = mb.simulate(model, q0, v0, 1.2, method=method, torque=table, samples=61, **options)
    slow = mb.simulate(model, q0, v0, 1.2, method=method, torque=table, samples=61, compiled=False, **options)
    assert fast.info.get("compiled") is True and "compiled" not in slow.info
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-8)
    expected = np.column_stack([np.interp(fast.t, table.t, column) for column in table.values.T])
    np.testing.assert_allclose(fast.tau, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(slow.tau, expected, rtol=0, atol=1e-12)
    runs = mb.simulate(model, np.array([q0, q0 + 0.1]), v0, 1.2, method=method, torque=table, samples=61, **options)
    assert all(run.info.get("compiled") for run in runs)
    np.testing.assert_array_equal(runs[0].q, fast.q)


@pytest.mark.parametrize("method, options", [("DOP853", {"rtol": 1e-11, "atol": 1e-11}), ("RK4", {"dt": 1e-3})])
def test_a_torque_table_per_run_gives_each_run_its_own_table(method, options):
    """A batch with a list of TorqueTables, one per run (at times of their own), runs them all in the compiled loop
    on the union of their times, each run the motion and applied forces of its own single run."""
    model, q0, v0 = hanging_chain(3)
    tables = [mb.TorqueTable([0.1, 0.5], [[1.0, 0.0, -0.5], [0.0, 0.3, 0.0]]),
              mb.TorqueTable([0.0, 0.25, 0.7, 0.9], [[0.0, 0.0, 0.0], [2.0, -1.0, 0.5], [0.0, 0.4, 0.0],
                                                     [-1.0, 0.0, 0.2]]),
              mb.TorqueTable([0.3], [[0.5, 0.5, 0.5]])]
    Q0 = np.array([q0, q0 + 0.1, q0 - 0.1])
    runs = mb.simulate(model, Q0, v0, 1.0, method=method, torque=tables, samples=41, **options)
    slow = mb.simulate(model, Q0, v0, 1.0, method=method, torque=tables, samples=41, compiled=False, **options)
    for b, (run, table) in enumerate(zip(runs, tables)):
        alone = mb.simulate(model, Q0[b], v0, 1.0, method=method, torque=table, samples=41, **options)
        assert run.info.get("compiled") is True and "compiled" not in slow[b].info
        # (its table's values at the union's times round differently: steps of 1e-16 that step control can grow)
        np.testing.assert_allclose(run.q, alone.q, rtol=0, atol=1e-10)
        np.testing.assert_allclose(run.tau, alone.tau, rtol=0, atol=1e-12)
        np.testing.assert_allclose(run.q, slow[b].q, rtol=0, atol=1e-8)
    assert np.abs(runs[0].q - runs[1].q).max() > 1e-2
    with pytest.raises(ValueError, match="2 torque tables for 3 runs"):
        mb.simulate(model, Q0, v0, 1.0, method=method, torque=tables[:2], **options)


def test_a_torque_table_checks_its_rows():
    with pytest.raises(ValueError, match="strictly increasing"):
        mb.TorqueTable([0.0, 0.0], [[1.0], [2.0]])
    with pytest.raises(ValueError, match="one row"):
        mb.TorqueTable([0.0, 1.0], [[1.0, 2.0]])
    model, q0, v0 = hanging_chain(3)
    with pytest.raises(ValueError, match="nv = 3"):
        mb.simulate(model, q0, v0, 0.1, torque=mb.TorqueTable([0.0, 1.0], [[1.0, 2.0], [0.0, 0.0]]))


def test_simulate_runs_trees_in_the_compiled_loop_with_the_same_result():
    model = mb.Model.chain(4)
    q0, v0 = np.full(4, 0.3), np.zeros(4)
    fast = mb.simulate(model, q0, v0, t_end=2.0, rtol=1e-10, atol=1e-10)
    slow = mb.simulate(model, q0, v0, t_end=2.0, rtol=1e-10, atol=1e-10, compiled=False)
    assert fast.info.get("compiled") is True and "compiled" not in slow.info
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fast.a, slow.a, rtol=0, atol=1e-7)


def test_ctrl_c_stops_the_compiled_loop_and_keeps_the_samples():
    import _thread
    import threading
    model = mb.Model.chain(7)
    mb.simulate(model, np.full(7, 0.3), np.zeros(7), t_end=0.01)  # compiled before the clock starts
    threading.Timer(0.3, _thread.interrupt_main).start()
    with pytest.raises(mb.SimulationInterrupted) as info:
        mb.simulate(model, np.full(7, 0.3), np.zeros(7), t_end=1e4, samples=10001, rtol=1e-12, atol=1e-12)
    partial = info.value.trajectory
    assert partial.info["interrupted"] and partial.info["compiled"] and len(partial) > 10
    assert partial.t[-1] <= info.value.time < 1e4
    assert np.all(np.isfinite(partial.q)) and np.all(np.isfinite(partial.a))


def test_simulate_takes_several_initial_states_and_a_torque_per_run():
    """mb.simulate with q0 (B, nq) and torque (B, nv): a list of B trajectories, equal to the single runs; models
    the compiled loop does not take run one after the other; a failed run raises with every run's trajectory."""
    model, q0, _ = hanging_chain(3)
    rng = np.random.default_rng(2)
    Q0, tau = q0 + 0.1 * rng.normal(size=(5, 3)), 0.1 * rng.normal(size=(5, 3))
    for method, options in (("RK4", {"dt": 1e-3}), ("DOP853", {})):
        runs = mb.simulate(model, Q0, None, 0.5, method=method, torque=tau, samples=6, **options)
        assert len(runs) == 5 and all(r.info["compiled"] for r in runs)
        for b in (0, 4):
            one = mb.simulate(model, Q0[b], None, 0.5, method=method, torque=tau[b], samples=6, compiled=False, **options)
            np.testing.assert_allclose(runs[b].q, one.q, rtol=0, atol=1e-10)
            np.testing.assert_allclose(runs[b].tau, one.tau, rtol=0, atol=1e-12)
    model.add_force(Drag())  # (not compiled)
    runs = mb.simulate(model, Q0[:2], np.zeros(3), 0.1, samples=3)
    assert len(runs) == 2 and not runs[0].info.get("compiled")
    np.testing.assert_allclose(runs[1].q, mb.simulate(model, Q0[1], None, 0.1, samples=3).q, rtol=0, atol=0)
    model.forces.clear()
    with pytest.raises(mb.SimulationError, match="1 of 2 runs failed") as caught:
        mb.simulate(model, Q0[:2], None, 1.0, method="RK4", dt=0.01, torque=[[0, 0, 0], [1e300, 0, 0]])
    assert len(caught.value.trajectories) == 2 and len(caught.value.trajectories[0]) == 101
    with pytest.raises(ValueError, match="2 and 3 runs"):
        mb.simulate(model, Q0[:2], np.zeros((3, 3)), 0.1)


def one_thread_and_two(run):
    """``run()`` on one of numba's threads (no helper thread) and on two (DOP853 hands its dense output and the
    samples' accelerations to a helper: :mod:`multibody.simulate.handoff`)."""
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        alone = run()
        numba.set_num_threads(2)
        return alone, run()
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("make, events", [
    (lambda: hanging_chain(7, swing=0.5)[0], ()),
    (lambda: hanging_chain(7, swing=0.5)[0],
     (mb.JointValue("link2", -1.8), mb.JointValue("link1", -3.5, terminal=True))),
    (lambda: with_springs(floating_tree()[0]), ())], ids=["chain7", "chain7_events", "floating_with_springs"])
def test_a_helper_thread_changes_no_sample(make, events):
    """mb.simulate's default DOP853 run on two threads: the same samples, bit for bit, the same evaluation count
    and event times, and the accelerations and applied forces (the helper's scalar ABA, not the batched one) to
    round-off. With events, the steps with a crossing are computed on the loop's thread."""
    model = make()
    q0 = mb.normalize(model, model.random_configuration(3))
    v0 = np.random.default_rng(3).normal(size=model.nv)
    table = mb.TorqueTable([0.0, 0.5, 1.0], np.linspace(0.0, 0.4, 3 * model.nv).reshape(3, model.nv))
    alone, helped = one_thread_and_two(lambda: mb.simulate(model, q0, v0, t_end=1.0, torque=table, events=events))
    assert helped.info["compiled"] and helped.info["nfev"] == alone.info["nfev"]
    assert helped.events == alone.events and len(helped.events) >= len(events)
    assert np.array_equal(helped.q, alone.q) and np.array_equal(helped.v, alone.v)
    np.testing.assert_allclose(helped.a, alone.a, rtol=0, atol=1e-12 * np.abs(alone.a).max())
    np.testing.assert_allclose(helped.tau, alone.tau, rtol=0, atol=1e-12 * np.abs(alone.tau).max())


def test_the_loop_computes_its_slots_itself_when_no_helper_runs():
    """The ring's protocol (multibody.simulate.handoff): with no helper thread at all, the loop claims every slot
    it needs and, at its end, those left: the samples of the run without a ring, and its accelerations; with a
    helper started late (after the run), the helper finds DONE and returns."""
    from multibody.simulate.handoff import ring
    from multibody.simulate.adaptive import serve
    from multibody.simulate.steppers import DOP853, run_with_events
    from multibody.simulate.tree_rates import sample_rates
    model, q0, v0 = hanging_chain(5, swing=0.4)
    cm = model.compile()
    arrays, rows = (cm.topology, cm.params, cm.gravity), force_arrays(model)
    tau = (np.zeros(1), np.full((1, 5), 0.1))
    t_eval = np.linspace(0.0, 2.0, 41)
    runs = []
    for slots in (0, 4, 1):
        pipe, x_out = ring(10, 5, 41, slots), np.full((41, 10), np.nan)
        status, count, _ = run_with_events(arrays, DOP853, tau, rows, np.r_[q0, v0], 0.0, t_eval, 1e-9, 1e-9, np.inf,
                                           0.0, 0.0, 10 ** 9, x_out, np.zeros(5), np.zeros((0, 8)), pipe)
        assert status == 0 and count == 41 and not pipe[0][:slots].any()
        if slots:
            serve(arrays, tau, rows, pipe, t_eval, x_out)  # (returns at once: DONE, nothing posted)
        runs.append((x_out, pipe))
    a, forces = np.empty((41, 5)), np.empty((41, 5))
    sample_rates(arrays, tau, rows, t_eval, runs[0][0], 5, a, forces)
    for x_out, pipe in runs[1:]:
        assert np.array_equal(x_out, runs[0][0])
        np.testing.assert_array_equal(pipe[5][1:], a[1:])  # (the same scalar ABA: bit for bit; row 0 is t_start's)
        np.testing.assert_array_equal(pipe[6][1:], forces[1:])


def test_a_helped_run_that_fails_keeps_its_samples_and_accelerations():
    """A DOP853 run on two threads stopped by max_steps: the SimulationError's trajectory holds the samples and
    accelerations the loop and its helper computed, those of the run on one thread."""
    model, q0, v0 = hanging_chain(4, swing=0.4)

    def run():
        with pytest.raises(mb.SimulationError, match="max_steps") as caught:
            integrate_tree(model, q0, v0, np.linspace(0.0, 5.0, 501), method="DOP853", rtol=1e-10, atol=1e-10,
                           max_steps=120)
        return caught.value.trajectory
    alone, helped = one_thread_and_two(run)
    assert 5 < len(helped) == len(alone) < 501
    assert np.array_equal(helped.q, alone.q)
    np.testing.assert_allclose(helped.a, alone.a, rtol=0, atol=1e-12 * np.abs(alone.a).max())
