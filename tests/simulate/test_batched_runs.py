"""Batched runs with a model per run (mb.simulate(models, Q0, ...)): per-run masses, lengths and springs, each
run the same as its single-model simulation; models of different structure refused, naming the difference."""
import importlib

import numpy as np
import pytest

import multibody as mb
from multibody.io.files import example_path
from multibody.simulate.compiled import integrate_tree_batch

N = 7


def chains(count, seed=0):
    """``count`` 7-link chains of random link masses and lengths, a joint spring of random stiffness on each."""
    rng = np.random.default_rng(seed)
    models = []
    for _ in range(count):
        model = mb.Model.chain(N, mass=rng.uniform(0.5, 2.0), length=rng.uniform(0.2, 0.5))
        model.add_force(mb.JointSpring(model.joints[2].name, stiffness=rng.uniform(0.0, 5.0), rest=0.2, damping=0.1))
        models.append(model)
    return models


def hanging_states(count, seed=1):
    rng = np.random.default_rng(seed)
    q0 = np.full(N, 0.1)
    q0[1] += np.pi / 2
    return q0 + 0.2 * rng.normal(size=(count, N)), rng.normal(size=(count, N))


@pytest.mark.parametrize("method", ["RK4", "Euler"])
def test_each_run_of_a_model_per_run_batch_is_its_single_model_run(method):
    """40 runs (a full chunk of 32 lanes and 8 more) through the lockstep kernel with per-lane params."""
    models = chains(40)
    Q0, V0 = hanging_states(40)
    torque = np.random.default_rng(2).normal(size=(40, N))
    runs = mb.simulate(models, Q0, V0, t_end=0.25, method=method, dt=1e-3, torque=torque, progress=False)
    assert runs[0].info["lockstep"] and len(runs) == 40
    for b in (0, 17, 31, 32, 39):
        one = mb.simulate(models[b], Q0[b], V0[b], t_end=0.25, method=method, dt=1e-3, torque=torque[b],
                          progress=False)
        assert runs[b].model is models[b]
        # to round-off of the largest entry: the lanes' ABA (body axes) and the single-state one (world axes) are
        # different forms of the algorithm, and the velocities reach ~1500 rad/s
        for lanes, single in ((runs[b].q, one.q), (runs[b].v, one.v), (runs[b].tau, one.tau)):
            np.testing.assert_allclose(lanes, single, rtol=0, atol=1e-12 * max(1.0, np.abs(single).max()))


def test_a_model_per_run_on_the_adaptive_compiled_loop_and_on_threads():
    """DOPRI5 (not lockstep): each run with its own params; a single shared state; 1 and 2 threads agree."""
    models = chains(3, seed=4)
    Q0, _ = hanging_states(1, seed=5)
    t_eval = np.linspace(0.0, 0.5, 6)
    _, Q, V, info = integrate_tree_batch(models, Q0[0], np.zeros(N), t_eval, method="DOPRI5", threads=2)
    _, Q1, _, _ = integrate_tree_batch(models, Q0[0], np.zeros(N), t_eval, method="DOPRI5", threads=1)
    assert "lockstep" not in info and info["status"] == ["ok"] * 3
    np.testing.assert_array_equal(Q, Q1)
    for b, model in enumerate(models):
        one = mb.simulate(model, Q0[0], None, t_end=0.5, t_eval=t_eval, method="RK45", progress=False)
        np.testing.assert_allclose(Q[b], one.q, rtol=0, atol=1e-12)
    assert np.ptp(Q[:, -1, 0]) > 1e-3  # the runs differ


def test_the_shared_case_is_unchanged_by_per_run_params():
    """The same model for every run, given once or as a list: the same numbers."""
    model = chains(1)[0]
    Q0, V0 = hanging_states(5)
    shared = mb.simulate(model, Q0, V0, t_end=0.05, method="RK4", dt=1e-3, progress=False)
    listed = mb.simulate([model] * 5, Q0, V0, t_end=0.05, method="RK4", dt=1e-3, progress=False)
    for a, b in zip(shared, listed):
        np.testing.assert_array_equal(a.q, b.q)


def test_models_of_different_structure_are_refused_naming_the_difference():
    q0 = np.zeros(3)
    three = mb.Model.chain(3)
    springy = mb.Model.chain(3)
    springy.add_force(mb.JointSpring(springy.joints[0].name, stiffness=1.0))
    cases = [(mb.Model.chain(4), "4 bodies"), (mb.Model.chain(3, gravity=(0, 0, -1.0)), "gravity"),
             (springy, "force elements")]
    for other, words in cases:
        with pytest.raises(ValueError, match=rf"models\[1\].*{words}"):
            mb.simulate([three, other], q0, t_end=0.01, method="RK4", dt=1e-3)
    prismatic = mb.Model("slider")
    prismatic.add(mb.Body("a", mass=1.0, inertia=np.eye(3)), joint=mb.Prismatic((1, 0, 0)))
    revolute = mb.Model("hinge")
    revolute.add(mb.Body("a", mass=1.0, inertia=np.eye(3)), joint=mb.Revolute((1, 0, 0)))
    with pytest.raises(ValueError, match=r"models\[1\] \('slider'\).*Prismatic joint"):
        mb.simulate([revolute, prismatic], [0.0], t_end=0.01)
    with pytest.raises(ValueError, match="q0 and models give 3 and 2 runs"):
        mb.simulate([three, three], np.zeros((3, 3)), t_end=0.01)
    with pytest.raises(ValueError, match="no models"):
        mb.simulate([], t_end=0.01)


def test_a_model_per_run_outside_the_compiled_loop_runs_one_after_the_other():
    models = chains(2, seed=6)
    Q0, V0 = hanging_states(2, seed=7)
    runs = mb.simulate(models, Q0, V0, t_end=0.05, method="RK4", dt=1e-3, compiled=False, progress=False)
    for b in range(2):
        one = mb.simulate(models[b], Q0[b], V0[b], t_end=0.05, method="RK4", dt=1e-3, progress=False)
        assert not runs[b].info.get("compiled") and runs[b].model is models[b]
        np.testing.assert_allclose(runs[b].q, one.q, rtol=0, atol=1e-12)


def test_a_sweep_of_masses_and_lengths_runs_batched_and_gives_the_process_table(monkeypatch):
    """A model sweep over parameters runs as one batched simulate in this process, with the table of the
    point-by-point path (the same compiled runs)."""
    grid = {"bodies.1.mass": [0.5, 1.0, 2.0], "bodies.1.placement.xyz": [[0.0, 0.0, -0.8], [0.0, 0.0, -1.2]],
            "simulation.method": ["RK4"], "simulation.dt": [1e-3], "simulation.t_end": [0.2]}
    path = example_path("double_pendulum")
    sweeps = importlib.import_module("multibody.sweep")
    batch, batched_runs = sweeps.ModelRun.batch, []
    monkeypatch.setattr(sweeps.ModelRun, "batch",
                        lambda self, points: batched_runs.append(batch(self, points)) or batched_runs[-1])
    batched = mb.sweep(path, grid, processes=0)
    assert len(batched_runs) == 1 and len(batched_runs[0]) == 6
    monkeypatch.setattr(sweeps.ModelRun, "batch", lambda self, points: None)  # the point-by-point path
    single = mb.sweep(path, grid, processes=0)
    assert len(batched) == 6 and np.ptp(batched["q_final[0]"]) > 1e-3
    assert list(batched.columns) == list(single.columns)
    results = [c for c in batched.columns if c.startswith(("q_final", "v_final", "energy"))]
    assert len(results) == 5 and batched["bodies.1.mass"].tolist() == single["bodies.1.mass"].tolist()
    np.testing.assert_allclose(batched[results].to_numpy(), single[results].to_numpy(), rtol=0, atol=1e-12)


def test_a_sweep_that_changes_the_structure_runs_point_by_point():
    grid = {"bodies.1.joint.type": ["revolute", "prismatic"], "simulation.t_end": [0.05]}
    sweeps = importlib.import_module("multibody.sweep")
    run = sweeps._as_function(example_path("double_pendulum"), None)
    assert run.batch(sweeps._points(grid)) is None
    assert run.batch(sweeps._points({"simulation.t_end": [0.05, 0.1]})) is None  # different settings
    assert len(mb.sweep(example_path("double_pendulum"), grid, processes=0)) == 2
