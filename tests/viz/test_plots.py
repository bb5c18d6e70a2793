"""Matplotlib plots of a trajectory."""
import numpy as np
import pytest

import multibody as mb
from multibody.io.files import example_path
from multibody.viz.plots import coordinate_units


@pytest.fixture(scope="module")
def traj():
    setup = mb.read_model_file(example_path("double_pendulum"))
    return mb.simulate(setup.model, setup.q0, setup.v0, t_end=1.0)


def test_plot_writes_a_png_with_one_panel_per_quantity(traj, tmp_path):
    figure = traj.plot(what=("q", "v", "a", "tau", "energy", "constraints"), path=tmp_path / "run.png")
    assert len(figure.axes) == 6
    assert (tmp_path / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = figure.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["q[0]:shoulder [rad]", "q[1]:elbow [rad]"]
    np.testing.assert_array_equal(lines[1].get_ydata(), traj.q[:, 1])
    total = figure.axes[4].get_lines()[2]
    np.testing.assert_allclose(total.get_ydata(), traj.energy())


def test_unknown_panel_is_refused(traj):
    with pytest.raises(ValueError, match="unknown panel"):
        traj.plot(what=("q", "jerk"))


def test_every_axis_carries_its_unit(traj):
    figure = traj.plot(what=("q", "v", "a", "tau", "energy"))
    assert [ax.get_ylabel() for ax in figure.axes] == ["q [rad]", "v [rad/s]", "a [rad/s²]", "τ [N·m]", "energy [J]"]
    assert figure.axes[-1].get_xlabel() == "time t [s]"


def test_units_follow_the_joint_types():
    setup = mb.read_model_file(example_path("rod_particle"))  # planar (x, y, θ) then prismatic
    assert coordinate_units(setup.model, "q") == ["m", "m", "rad", "m"]
    assert coordinate_units(setup.model, "tau") == ["N", "N", "N·m", "N"]
    traj = mb.simulate(setup.model, setup.q0, setup.v0, t_end=0.1)
    ax = traj.plot(what="v").axes[0]
    assert ax.get_ylabel() == "v [m/s, rad/s]"
    assert [line.get_label() for line in ax.get_lines()][2:] == ["v[2]:plane [rad/s]", "v[3]:slide [m/s]"]
    free = mb.Model("float")
    free.add(mb.Body("b", inertia=np.eye(3)), joint=mb.Free())
    assert coordinate_units(free, "q") == ["m"] * 3 + ["1"] * 4
    assert coordinate_units(free, "v") == ["rad/s"] * 3 + ["m/s"] * 3
