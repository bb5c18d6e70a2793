"""The 3D HTML animation: self-contained, geometry right, and rendered by headless Chromium without errors."""
import re
import shutil
import subprocess

import numpy as np
import pytest

import multibody as mb
from multibody.io.files import example_path
from multibody.viz.animation import animation_figure, skeleton

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    setup = mb.read_model_file(example_path("double_pendulum"))
    traj = mb.simulate(setup.model, setup.q0, setup.v0, t_end=2.0)
    path = tmp_path_factory.mktemp("anim") / "run.html"
    return traj, traj.animate(path, fps=20)


def test_page_is_self_contained_with_frames_buttons_and_slider(page):
    traj, path = page
    html = path.read_text()
    external = re.findall(r"<script[^>]*\bsrc=[^>]*>", html)
    assert external == []  # nothing fetched: plotly.js is embedded
    assert len(html) > 1_000_000 and ("Plotly.addFrames" in html) is True
    figure = animation_figure(traj, fps=20)
    frames, layout = figure["frames"], figure["layout"]
    assert len(frames) == 41  # 20 per second over 2 s, both ends
    assert [b["label"] for b in layout["updatemenus"][0]["buttons"]] == ["▶ play", "❚❚ pause"]
    assert len(layout["sliders"][0]["steps"]) == len(frames)
    assert (f'"name":"{frames[-1]["name"]}"' in html.replace(" ", "")) is True
    # the last frame shows the last state: the lower mass center where the kinematics puts it
    R, p = mb.body_pose(traj.model, traj.q[-1], "lower")
    np.testing.assert_allclose([frames[-1]["data"][1][axis][1] for axis in "xyz"], p + R @ [0, 0, -0.5], atol=1e-12)


def test_skeleton_joins_parent_to_child_joint():
    model = mb.Model.chain(2, axes="y", length=0.5)
    R0, p0 = mb.body_poses(model, [0.3, -0.2])
    segments, centers = skeleton(model, R0, p0)
    assert any(np.allclose(s, [p0[0], p0[1]]) for s in segments)  # link1 reaches link2's joint
    np.testing.assert_allclose(centers[1], p0[1] + R0[1] @ [0.25, 0, 0])


def _chromium(url, tmp_path):
    """Screenshot (PNG path) and console log lines of a page loaded in headless Chromium."""
    shot = tmp_path / "shot.png"
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
               "--window-size=900,700", "--virtual-time-budget=5000", f"--screenshot={shot}", url]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line]
    return shot, console


def _errors(console):
    return [line for line in console if re.search(r"Uncaught|Error:|TypeError|ReferenceError", line)]


def _coloured_pixels(shot):
    """Count of saturated pixels (max − min channel > 60): drawn links and markers, not the grey page chrome."""
    from PIL import Image
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    return int((pixels.max(axis=2) - pixels.min(axis=2) > 60).sum())


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_chromium_renders_a_frame_without_javascript_errors(page, tmp_path):
    _, path = page
    shot, console = _chromium(path.as_uri(), tmp_path)
    assert shot.exists(), console
    assert not _errors(console), _errors(console)
    assert _coloured_pixels(shot) > 300


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_the_browser_check_catches_a_javascript_error_and_a_blank_page(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><p>nothing drawn</p><script>undefinedFunction();</script></body></html>")
    shot, console = _chromium(bad.as_uri(), tmp_path)
    assert _errors(console)
    assert _coloured_pixels(shot) == 0
