"""Matplotlib plots of a trajectory."""
import numpy as np
import pytest

import multibody as mb
from multibody.io.files import example_path


@pytest.fixture(scope="module")
def traj():
    setup = mb.read_model_file(example_path("double_pendulum"))
    return mb.simulate(setup.model, setup.q0, setup.v0, t_end=1.0)


def test_plot_writes_a_png_with_one_panel_per_quantity(traj, tmp_path):
    figure = traj.plot(what=("q", "v", "a", "tau", "energy", "constraints"), path=tmp_path / "run.png")
    assert len(figure.axes) == 6
    assert (tmp_path / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = figure.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["q[0]:shoulder", "q[1]:elbow"]
    np.testing.assert_array_equal(lines[1].get_ydata(), traj.q[:, 1])
    total = figure.axes[4].get_lines()[2]
    np.testing.assert_allclose(total.get_ydata(), traj.energy())


def test_unknown_panel_is_refused(traj):
    with pytest.raises(ValueError, match="unknown panel"):
        traj.plot(what=("q", "jerk"))
