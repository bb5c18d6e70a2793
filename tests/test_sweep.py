"""mb.sweep: one table from many runs, the same on local processes, in process, and on a Dask cluster."""
import numpy as np
import pytest

import multibody as mb
from multibody.io.files import example_path


def pendulum_period(length, amplitude=0.1):
    """Small-amplitude period of a point pendulum by simulation: the time of the first return to rest."""
    model = mb.Model("p", gravity=(0, 0, -9.81))
    model.add(mb.Body("bob", mass=1.0, com=(0, 0, -length), inertia=np.eye(3) * 1e-12), joint=mb.Revolute((0, 1, 0)))
    event = mb.Event(lambda t, q, v: v[0], name="rest", direction=1, terminal=True)
    traj = mb.simulate(model, [amplitude], [0.0], t_end=10.0, events=[event], progress=False)
    return {"period": 2 * traj.events[0][1], "samples": len(traj)}


GRID = {"length": [0.25, 0.5, 1.0, 2.0]}


def test_function_sweep_gives_one_table_in_grid_order():
    table = mb.sweep(pendulum_period, GRID, processes=2)
    assert list(table.columns) == ["length", "period", "samples"] and len(table) == 4
    np.testing.assert_allclose(table["period"], 2 * np.pi * np.sqrt(table["length"] / 9.81), rtol=2e-3)
    in_process = mb.sweep(pendulum_period, GRID, processes=0)
    assert in_process.equals(table)
    assert len(mb.sweep(pendulum_period, [{"length": 1.0}, {"length": 1.0, "amplitude": 0.5}], processes=0)) == 2


@pytest.mark.slow
def test_model_sweep_over_8_values_is_the_same_locally_and_on_a_dask_cluster():
    distributed = pytest.importorskip("dask.distributed")
    grid = {"initial.q.shoulder": np.linspace(0.2, 1.6, 8), "simulation.t_end": [0.5]}
    path = example_path("double_pendulum")
    local = mb.sweep(path, grid)
    assert len(local) == 8 and local["initial.q.shoulder"].tolist() == grid["initial.q.shoulder"].tolist()
    assert np.ptp(local["q_final[0]"]) > 0.3 and np.abs(local["energy_drift"]).max() < 1e-6
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = mb.sweep(path, grid, client=client)
    assert remote.equals(local)  # bit for bit


def test_model_sweep_changes_the_model_parameter():
    grid = {"bodies.1.mass": [0.5, 2.0], "simulation.t_end": [0.3]}
    table = mb.sweep(mb.load(example_path("double_pendulum")), grid, processes=0,
                     summary=lambda traj: {"mass": traj.model.bodies[1].mass})
    assert table["mass"].tolist() == [0.5, 2.0]


def test_a_bundled_example_is_swept_by_name():
    table = mb.sweep("double_pendulum", {"bodies.1.mass": [0.5, 2.0], "simulation.t_end": [0.1]}, processes=0)
    assert table["bodies.1.mass"].tolist() == [0.5, 2.0] and table["q_final[1]"].nunique() == 2


def test_bad_grid_is_refused():
    with pytest.raises(ValueError, match="parameter_grid"):
        mb.sweep(pendulum_period, [1.0, 2.0])
    with pytest.raises(mb.ModelError, match="bodies"):
        mb.sweep({"name": "x"}, {"simulation.t_end": [1.0]}, processes=0)


def period_or_fail(length):
    """pendulum_period, but a length ≤ 0 is a user error raised inside the run."""
    if length <= 0:
        raise KeyError(f"no pendulum of length {length}")
    return pendulum_period(length)


@pytest.mark.parametrize("processes", [0, 2])
def test_a_failed_point_is_recorded_and_the_others_kept(processes):
    grid = {"length": [0.5, -1.0, 2.0, 0.0]}
    with pytest.warns(RuntimeWarning, match="2 of 4 points failed"):
        table = mb.sweep(period_or_fail, grid, processes=processes)
    assert list(table.columns) == ["length", "period", "samples", "error"] and table.attrs["failed"] == 2
    ok = table["error"].isna()
    assert ok.tolist() == [True, False, True, False]
    np.testing.assert_allclose(table["period"][ok], 2 * np.pi * np.sqrt(table["length"][ok] / 9.81), rtol=2e-3)
    assert table["period"][~ok].isna().all()
    assert table["error"][1] == "KeyError: 'no pendulum of length -1.0'"
    # the same rows without pandas
    with pytest.warns(RuntimeWarning):
        rows = mb.sweep(period_or_fail, grid, processes=0, rows=True)
    assert rows[1] == {"length": -1.0, "error": "KeyError: 'no pendulum of length -1.0'"}
    assert rows[0]["period"] == table["period"][0] and "error" in rows[0] and rows[0]["error"] is None


def test_no_failures_no_error_column():
    table = mb.sweep(pendulum_period, {"length": [1.0]}, processes=0)
    assert "error" not in table.columns and table.attrs["failed"] == 0


def test_without_pandas_the_sweep_says_so_before_running(monkeypatch):
    import sys
    calls = []
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    with pytest.raises(ImportError, match="pip install pandas, or pass rows=True"):
        mb.sweep(lambda length: calls.append(length), {"length": [1.0]}, processes=0)
    assert calls == []
    assert mb.sweep(lambda length: {"twice": 2 * length}, {"length": [1.0]}, processes=0, rows=True) == \
        [{"length": 1.0, "twice": 2.0}]


SCRIPT = """
import multibody as mb

def square(x):
    return {"y": x * x}

{body}
"""


@pytest.mark.parametrize("guarded", [False, True])
def test_a_script_without_the_main_guard_gets_a_clear_error(tmp_path, guarded):
    import subprocess
    import sys
    call = 'table = mb.sweep(square, {"x": [1.0, 2.0, 3.0]}, processes=2)\nprint(table["y"].tolist())'
    body = ('if __name__ == "__main__":\n' + "\n".join("    " + line for line in call.splitlines())) if guarded else call
    script = tmp_path / "my_sweep.py"
    script.write_text(SCRIPT.replace("{body}", body))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    if guarded:
        assert done.returncode == 0 and done.stdout.strip() == "[1.0, 4.0, 9.0]", done.stderr
    else:
        assert done.returncode == 1 and "BrokenProcessPool" not in done.stderr
        assert "'my_sweep.py' again" in done.stderr and 'if __name__ == "__main__":' in done.stderr
        assert "processes=0" in done.stderr


def test_a_sweep_of_initial_states_is_one_batched_simulation():
    """Points that differ only in "initial." fields run together (no processes, no __main__ guard needed) and give
    the rows the point-by-point runs give; a run that fails is recorded in its row."""
    from multibody.io.yaml_safe import yaml_load
    from multibody.sweep import ModelRun
    description = yaml_load(example_path("double_pendulum"))
    description["simulation"] = {"t_end": 0.2, "method": "RK4", "dt": 1e-3}
    grid = {"initial.q.shoulder": [0.2, 0.5, 1.0], "initial.v.1": [0.0, 1.0]}
    rows = mb.sweep(description, grid, rows=True)
    run = ModelRun(description)
    for row in rows:
        expected = run(**{k: row[k] for k in grid})
        assert all(abs(row[k] - expected[k]) < 1e-12 for k in expected)
    grid["initial.v.1"] = [0.0, 1e300]
    with pytest.warns(RuntimeWarning, match="3 of 6 points failed"):
        rows = mb.sweep(description, grid, rows=True)
    assert [("error" in row and row["error"] is not None) for row in rows] == [False, True] * 3
    assert "non-finite" in rows[1]["error"]
