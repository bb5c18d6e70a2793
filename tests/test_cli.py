"""The multibody command: info, simulate, eom, demo, help and one-line errors."""
import subprocess
import sys

import numpy as np
import pytest

import multibody as mb
from multibody.cli import main


def test_info_draws_the_tree(capsys):
    assert main(["info", "double_pendulum"]) == 0
    out = capsys.readouterr().out
    assert "degrees of freedom: 2" in out and "total mass: 2 kg" in out
    assert "└─ upper  [revolute 'shoulder', 1 dof, 1 kg]" in out and "   └─ lower" in out
    assert main(["info", "--list"]) == 0 and "humanoid" in capsys.readouterr().out


def test_simulate_writes_trajectory_plot_and_animation(tmp_path, capsys):
    out, png, html = tmp_path / "run.npz", tmp_path / "run.png", tmp_path / "run.html"
    status = main(["simulate", "double_pendulum", "--t-end", "0.5", "--out", str(out), "--plot", str(png),
                   "--animate", str(html), "--no-progress"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "to t = 0.5 s" in printed and str(html) in printed
    traj = mb.Trajectory.load(out)
    assert traj.t[-1] == 0.5 and traj.model.name == "double_pendulum"
    assert png.stat().st_size > 10_000 and html.stat().st_size > 1_000_000


def test_simulate_takes_a_fixed_step_method(tmp_path, capsys):
    out = tmp_path / "run.npz"
    assert main(["simulate", "four_bar", "--t-end", "0.2", "--method", "RK4", "--dt", "0.01", "--out", str(out),
                 "--no-progress"]) == 0
    traj = mb.Trajectory.load(out)
    assert len(traj) == 21 and traj.info["method"] == "RK4" and traj.drift.shape == (21, 2)
    assert main(["simulate", "four_bar", "--method", "RK4"]) != 0 and "give the step dt" in capsys.readouterr().err


def test_eom_prints_the_equations(capsys):
    pytest.importorskip("multibody.symbolic")
    assert main(["eom", "double_pendulum"]) == 0
    out = capsys.readouterr().out
    assert "X u̇ = Y" in out and out.count("  [") == 2
    assert "cos(q_0(t))**2" not in out  # trig-simplified: X₀₀ = 1.0 cos q₁ + 5/3, not with sin² q₀ + cos² q₀
    assert main(["eom", "double_pendulum", "--latex"]) == 0
    assert "\\begin{aligned}" in capsys.readouterr().out


def test_errors_are_one_line_and_debug_shows_the_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("bodies:\n  - name: a\n    joint: revolute\n    mass: -1\n    inertia: [1, 1, 1]\n")
    assert main(["info", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("multibody info: error: ") and "mass must be finite and non-negative" in err
    assert main(["simulate", "no_such_model"]) == 1
    assert "no such model file or bundled example" in capsys.readouterr().err
    with pytest.raises(mb.ModelError):
        main(["--debug", "info", str(bad)])


@pytest.mark.slow
def test_demo_writes_plot_and_animation_and_help_works(tmp_path):
    run = subprocess.run([sys.executable, "-m", "multibody.cli", "demo", "--out-dir", str(tmp_path), "--t-end", "3"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "double_pendulum.png").exists() and (tmp_path / "double_pendulum.html").exists()
    assert str(tmp_path / "double_pendulum.html") in run.stdout
    for args in (["--help"], ["simulate", "--help"]):
        helped = subprocess.run([sys.executable, "-m", "multibody.cli", *args], capture_output=True, text=True)
        assert helped.returncode == 0 and "usage: multibody" in helped.stdout


def test_info_reports_the_mobility_of_a_closed_loop(capsys):
    # planar four-bar: Grübler–Kutzbach M = 3 (n − 1) − 2 j = 3·3 − 2·4 = 1 for 4 links and 4 hinges
    assert main(["info", "four_bar"]) == 0
    out = capsys.readouterr().out
    assert "3 joint coordinates, 1 degree of freedom (2 independent constraints; at the initial state)" in out
    assert "degrees of freedom: 3" not in out


@pytest.mark.parametrize("when", ["integration", "samples"])  # or while τ and v̇ at the samples are evaluated
def test_ctrl_c_during_simulate_saves_the_partial_trajectory(tmp_path, capsys, monkeypatch, when):
    # four_bar: a constrained model, integrated by the Python loop that evaluates its forward dynamics
    module = sys.modules["multibody.simulate.simulate"]
    original, calls = module.default_dynamics, [0]

    def interrupted_dynamics(model, stabilization=None):
        accel = original(model, stabilization)

        def interrupted(*args):  # Ctrl-C after some work: raised from the dynamics as a signal would be
            calls[0] += 1
            frame, finishing = sys._getframe(1), False
            while frame is not None:
                finishing, frame = finishing or frame.f_code.co_name == "finish", frame.f_back
            if calls[0] > 300 and finishing == (when == "samples"):
                raise KeyboardInterrupt
            return accel(*args)
        return interrupted
    monkeypatch.setattr(module, "default_dynamics", interrupted_dynamics)
    out = tmp_path / "run.npz"
    assert main(["simulate", "four_bar", "--t-end", "5", "--out", str(out), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "interrupted at t = " in err and "partial trajectory" in err and str(out) in err
    assert err.rstrip().endswith("multibody: interrupted")
    traj = mb.Trajectory.load(out)
    assert traj.info["interrupted"] and 0 < traj.t[-1] <= 5.0 and len(traj) > 5
    monkeypatch.setattr(module, "default_dynamics", original)
    full = mb.simulate(traj.model, traj.q[0], traj.v[0], t_end=5.0)
    np.testing.assert_array_equal(traj.q, full.q[:len(traj)])  # the same samples as an uninterrupted run


def test_a_failed_simulate_saves_the_partial_trajectory_too(tmp_path, capsys, monkeypatch):
    module = sys.modules["multibody.simulate.simulate"]
    original, calls = module.default_dynamics, [0]

    def failing_dynamics(model, stabilization=None):
        accel = original(model, stabilization)

        def failing(*args):
            calls[0] += 1
            if calls[0] > 300:
                raise np.linalg.LinAlgError("broken")
            return accel(*args)
        return failing
    monkeypatch.setattr(module, "default_dynamics", failing_dynamics)
    out = tmp_path / "run.npz"
    assert main(["simulate", "four_bar", "--t-end", "5", "--out", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "failed at t = " in err and "broken" in err and str(out) in err
    assert mb.Trajectory.load(out).info["failed"]


def test_info_counts_the_elastic_coordinates_of_beams(tmp_path, capsys):
    import yaml

    from multibody.io import model_to_dict
    model = mb.Model("blade")
    model.add(mb.Body("hub", 10.0, inertia=np.eye(3)), joint=mb.Revolute())
    model.add(mb.FlexibleBeam("blade", length=2.0, mass_per_length=1.0, EA=1e4, EIv=10.0, modes=3, components="uv"),
              parent="hub", joint=mb.Fixed())
    path = tmp_path / "blade.yaml"
    path.write_text(yaml.safe_dump(model_to_dict(model)))
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"degrees of freedom: 7 (nq = 7, {model.ne} elastic coordinates of flexible beams)" in out
    assert "└─ blade  [fixed 'blade_joint', 0 dof, 2 kg, flexible: 6 elastic coordinates]" in out


BALL_OVER_FLOOR = """
name: ball over floor
bodies:
  - {name: ball, parent: world, joint: {type: prismatic, axis: [0, 0, 1], name: z}, mass: 1.0,
     inertia: [0.004, 0.004, 0.004]}
geometries:
  - {body: ball, shape: {type: sphere, radius: 0.1}, restitution: 0.5}
  - {body: world, shape: {type: plane}, restitution: 0.5}
initial: {q: {z: [0.5]}}
"""


def test_simulate_says_it_ignores_contact_shapes_and_takes_collisions(tmp_path, capsys):
    path = tmp_path / "ball.yaml"
    path.write_text(BALL_OVER_FLOOR)
    out = tmp_path / "run.npz"
    with pytest.warns(UserWarning, match="contact shapes, which this run ignores.*CLI --collisions"):
        assert main(["simulate", str(path), "--t-end", "1", "--out", str(out), "--no-progress"]) == 0
    assert mb.Trajectory.load(out).q[-1, 0] < 0.0  # fell through the floor
    assert main(["simulate", str(path), "--t-end", "1", "--collisions", "--out", str(out), "--no-progress"]) == 0
    bounced = mb.Trajectory.load(out)
    assert bounced.q.min() > 0.1 - 1e-6 and len(bounced.impacts) >= 2
