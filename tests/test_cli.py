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


def test_eom_prints_the_equations(capsys):
    pytest.importorskip("multibody.symbolic")
    assert main(["eom", "double_pendulum"]) == 0
    out = capsys.readouterr().out
    assert "X u̇ = Y" in out and out.count("  [") == 2
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
