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
    assert main(["simulate", "four_bar", "--method", "RK4"]) != 0
    assert "give the step with --dt" in capsys.readouterr().err
    assert main(["simulate", "four_bar", "--dt", "0.01"]) != 0
    assert "--dt is the step of the fixed-step methods" in capsys.readouterr().err


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
    module = sys.modules["multibody.simulate.python_loop"]
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
    k = len(traj) - (when == "integration")  # interrupted while integrating: last, the state reached
    np.testing.assert_array_equal(traj.q[:k], full.q[:k])  # the same samples as an uninterrupted run
    if when == "integration":
        assert traj.t[-2] < traj.t[-1] < 5.0
        _reached(traj.model, traj)


def _reached(model, traj, **options):
    """The last sample of a stopped run against a run of the same model to that sample's time."""
    again = mb.simulate(model, traj.q[0], traj.v[0], t_end=traj.t[-1], samples=2, **options)
    np.testing.assert_allclose(traj.q[-1], again.q[-1], rtol=0, atol=1e-6)
    np.testing.assert_allclose(traj.v[-1], again.v[-1], rtol=0, atol=1e-5)


def _raising_dynamics(monkeypatch, error):
    """The simulations' dynamics raise ``error`` from their 301st evaluation on (as a signal or a failure would)."""
    module = sys.modules["multibody.simulate.python_loop"]
    original, calls = module.default_dynamics, [0]

    def raising_dynamics(model, stabilization=None):
        accel = original(model, stabilization)

        def raising(*args):
            calls[0] += 1
            if calls[0] > 300:
                raise error
            return accel(*args)
        return raising
    monkeypatch.setattr(module, "default_dynamics", raising_dynamics)
    return module, original


def test_ctrl_c_between_distant_output_times_keeps_the_state_reached(tmp_path, capsys, monkeypatch):
    """--samples 2 over 1e6 s: the only output times are 0 and 1e6 s, yet the saved run ends at the state reached."""
    module, original = _raising_dynamics(monkeypatch, KeyboardInterrupt)
    out = tmp_path / "run.npz"
    assert main(["simulate", "four_bar", "--t-end", "1e6", "--samples", "2", "--out", str(out), "--no-progress"]) == 130
    traj = mb.Trajectory.load(out)
    assert len(traj) == 2 and traj.t[0] == 0.0 and 0.0 < traj.t[1] < 1e6 and traj.info["interrupted"]
    monkeypatch.setattr(module, "default_dynamics", original)
    _reached(traj.model, traj)


def test_interrupted_compiled_run_keeps_the_state_reached(monkeypatch):
    """The compiled loop (a tree, no progress bar) stopped as Ctrl-C stops it, between its two output times."""
    import threading

    from multibody.simulate import compiled
    from multibody.simulate.tree_rates import STOP
    original = compiled._interruptible

    def stopped_soon(call, stats, helper=None):
        threading.Timer(0.3, stats.__setitem__, (STOP, 1.0)).start()
        return original(call, stats, helper)
    monkeypatch.setattr(compiled, "_interruptible", stopped_soon)
    model = mb.load("double_pendulum")
    q0 = np.array([1.0, 0.5])
    with pytest.raises(mb.SimulationInterrupted) as stop:
        mb.simulate(model, q0, np.zeros(2), t_end=1e6, samples=2, progress=False)
    traj = stop.value.trajectory
    assert len(traj) == 2 and 0.0 < traj.t[1] == stop.value.time < 1e6
    monkeypatch.setattr(compiled, "_interruptible", original)
    _reached(model, traj)


def test_a_failed_simulate_saves_the_partial_trajectory_too(tmp_path, capsys, monkeypatch):
    _raising_dynamics(monkeypatch, np.linalg.LinAlgError("broken"))
    out = tmp_path / "run.npz"
    assert main(["simulate", "four_bar", "--t-end", "5", "--out", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "failed at t = " in err and "broken" in err and str(out) in err
    traj = mb.Trajectory.load(out)
    assert traj.info["failed"] and traj.t[-2] < traj.t[-1]  # last, the state the run reached
    monkeypatch.undo()
    _reached(traj.model, traj)


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


def test_simulate_drops_a_urdf_robot_on_a_floor(tmp_path, capsys):
    """--floating-base, --floor and --method contact read the URDF's collision shapes: the box falls 5 cm onto the
    floor and rests on it."""
    path = tmp_path / "box.urdf"
    path.write_text(BOX_URDF)
    out = tmp_path / "run.npz"
    assert main(["simulate", str(path), "--floating-base", "--floor", "--method", "contact", "--dt", "0.002",
                 "--t-end", "0.5", "--out", str(out), "--no-progress"]) == 0
    assert "floor: the plane z = -0.15 m, 5 cm below the lowest contact shape" in capsys.readouterr().err
    traj = mb.Trajectory.load(out)
    assert traj.q.shape[1] == 7 and traj.q[0, 2] == 0.0  # a free joint, starting at the file's pose
    np.testing.assert_allclose(traj.q[-1, 2], -0.05, rtol=0, atol=2e-3)  # resting on the floor (z = −0.15)
    assert abs(traj.v[-1]).max() < 1e-2
    assert main(["simulate", str(path), "--floating-base", "--floor", "-0.3", "--method", "contact", "--dt", "0.002",
                 "--t-end", "0.6", "--out", str(out), "--no-progress"]) == 0  # the floor at a given height
    np.testing.assert_allclose(mb.Trajectory.load(out).q[-1, 2], -0.2, rtol=0, atol=2e-3)


BOX_URDF = """<robot name="box">
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
  </link>
</robot>
"""


def test_contact_asked_of_a_model_without_shapes(tmp_path, capsys):
    with pytest.warns(UserWarning, match="--method contact: .*has no contact shapes on its bodies"):
        assert main(["simulate", "double_pendulum", "--method", "contact", "--dt", "0.01", "--t-end", "0.05",
                     "--no-progress"]) == 0
    assert main(["simulate", "double_pendulum", "--collisions", "--t-end", "0.05", "--no-progress"]) == 1
    assert "--collisions: " in capsys.readouterr().err
    assert main(["simulate", "double_pendulum", "--floor", "--method", "contact", "--dt", "0.01"]) == 1
    assert "--floor: model 'double_pendulum' has no contact shapes" in capsys.readouterr().err
    assert main(["simulate", "double_pendulum", "--floor"]) == 1
    assert "--floor needs contact" in capsys.readouterr().err
    assert main(["simulate", "double_pendulum", "--floating-base", "--t-end", "0.05"]) == 1
    assert "a floating base is an option of URDF files" in capsys.readouterr().err


def test_compile_help_describes_the_command():
    from multibody.cli import build_parser
    commands = build_parser()._subparsers._group_actions[0].choices
    for name, command in commands.items():
        assert command.description, name
    assert "cache" in commands["compile"].format_help()


def test_compile_fails_when_a_compiling_process_dies(monkeypatch, capsys):
    # a worker killed by a signal (an LLVM abort: return code -6) makes `multibody compile` fail, not say done
    class Killed:
        returncode = -6

        def __init__(self, *args, **kwargs):
            pass

        def poll(self):
            return self.returncode
    monkeypatch.setattr(subprocess, "Popen", Killed)
    assert main(["compile"]) == 1
    output = capsys.readouterr().out
    assert "failed (" in output and "failed in" in output and "done in" not in output
