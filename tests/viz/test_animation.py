"""The 3D HTML animation: bodies drawn as their geometry, closed loops closed, title and units, a readable slider,
small pages; checked on the figure and, in headless Chromium, on what plotly drew for each bundled example."""
from pathlib import Path

import numpy as np
import pytest
from viz_browser import CHROMIUM, EXAMPLES, dump_dom, errors, example_trajectory, probe_of, probed

import multibody as mb
from multibody.viz.animation import animate, animation_figure, frame_indices
from multibody.viz.shapes import THINNEST, inertia_box, outlines

FRAME = 60  # the frame the browser shows (the last one for shorter animations)
SCREENSHOTS = Path(__file__).parent / "screenshots"
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def runs():
    return {name: example_trajectory(name) for name in EXAMPLES}


def _trace(traces, name):
    return next(t for t in traces if t["name"] == name)


def _points(trace):
    """(m, 3) points of a trace, NaN where a line has a gap."""
    return np.array([[np.nan if v is None else v for v in trace[axis]] for axis in "xyz"], dtype=float).T


def _segments(trace):
    """(S, 2, 3) segments of a line trace drawn as point, point, gap."""
    return _points(trace).reshape(-1, 3, 3)[:, :2]


def _frame_traces(figure, k):
    """The traces of frame ``k`` with the constant parts (names) from the figure's data."""
    frame = figure["frames"][k]
    return [dict(figure["data"][index], **data) for index, data in zip(frame["traces"], frame["data"])]


def _pose(traj, k):
    """World poses R (n, 3, 3), p (n, 3) of the bodies at frame ``k`` of the default animation."""
    return mb.body_poses(traj.model, traj.q[frame_indices(traj.t)[k]])


def _sides(vertices):
    """Sorted side lengths [m] of the box with these 8 corners (from the spread of its corners)."""
    centred = vertices - vertices.mean(axis=0)
    return np.sort(2 * np.sqrt(np.linalg.eigvalsh(centred.T @ centred / len(vertices))))


def _model_sides(body):
    """Sorted sides [m] of the uniform box with the body's mass and inertia, thin sides as the animation draws them."""
    moments = np.linalg.eigvalsh(body.inertia)
    sides = np.sqrt(np.clip(6 * (moments.sum() - 2 * moments) / body.mass, 0, None))
    return np.sort(np.maximum(sides, THINNEST * sides.max()))


# ------------------------------------------------------------------------------------------------------------
# The figure
# ------------------------------------------------------------------------------------------------------------
def test_title_and_axis_titles_are_in_the_form_plotly_js_reads(runs):
    layout = animation_figure(runs["double_pendulum"])["layout"]
    assert layout["title"]["text"] == "double_pendulum: 2 bodies, 2 degrees of freedom"
    assert "t = 0 to 10 s in 200 frames" in layout["title"]["subtitle"]["text"]
    assert [layout["scene"][f"{a}axis"]["title"] for a in "xyz"] == [{"text": f"{a} [m]"} for a in "xyz"]


def test_frames_are_decimated_and_carry_only_coordinates(runs):
    figure = animation_figure(runs["double_pendulum"])
    assert len(figure["frames"]) == 200  # 10 s at 30 frames per second would be 301
    assert len(animation_figure(runs["four_bar"])["frames"]) == 91  # 3 s at 30 per second, both ends
    assert figure["data"][0]["name"] == "ground" and 0 not in figure["frames"][0]["traces"]  # the ground is static
    assert all(set(data) == {"type", "x", "y", "z"} for frame in figure["frames"] for data in frame["data"])


def test_slider_is_labelled_at_round_times(runs):
    ticks = animation_figure(runs["double_pendulum"])["layout"]["annotations"]
    assert [a["text"] for a in ticks] == ["0", "2", "4", "6", "8", "10"]
    assert np.all(np.diff([a["x"] for a in ticks]) > 0)
    slider = animation_figure(runs["four_bar"])["layout"]["sliders"][0]
    assert slider["steps"][30]["label"] == "1.00" and slider["currentvalue"]["suffix"] == " s"


def test_double_pendulum_rods_are_drawn_full_length_at_every_frame(runs):
    traj = runs["double_pendulum"]
    figure = animation_figure(traj)
    for k in (0, 57, 199):
        traces = _frame_traces(figure, k)
        lower = _points(_trace(traces, "lower"))
        elbow, tip = (mb.body_pose(traj.model, traj.q[frame_indices(traj.t)[k]], name)[1] for name in ("lower", "tip"))
        rod = (tip - elbow) / np.linalg.norm(tip - elbow)
        # the box of the file's inertia is 0.9997 m long (its axial 1e-4 kg·m² is that of a 2.4 cm thick rod)
        np.testing.assert_allclose([(lower - elbow).dot(rod).min(), (lower - elbow).dot(rod).max()], [0, 1], atol=2e-4)
        ends = _segments(_trace(traces, "links")).reshape(-1, 3)
        assert np.linalg.norm(ends - tip, axis=1).min() < 1e-6  # a stick reaches the rod's tip


def test_four_bar_is_drawn_closed_at_every_frame(runs):
    traj = runs["four_bar"]
    figure = animation_figure(traj)
    for k in range(0, len(figure["frames"]), 9):
        segments = _segments(_trace(_frame_traces(figure, k), "links"))
        R, p = _pose(traj, k)
        crank, coupler, rocker = (traj.model.body_index(name) for name in ("crank", "coupler", "rocker"))
        expected = {"ground A→D": ([0, 0, 0], [0.5, 0, 0]),
                    "crank A→B": (p[crank], p[coupler]),
                    "coupler B→C": (p[coupler], p[coupler] + R[coupler] @ [0.6, 0, 0]),
                    "rocker D→C": (p[rocker], p[rocker] + R[rocker] @ [0.5, 0, 0])}
        for name, (start, end) in expected.items():
            gaps = np.linalg.norm(segments - np.array([start, end]), axis=2).max(axis=1)
            assert gaps.min() < 1e-6, f"frame {k}: {name} not drawn"
        assert np.linalg.norm(expected["coupler B→C"][1] - expected["rocker D→C"][1]) < 1e-6  # the loop meets at C


def test_a_free_fall_is_followed_by_the_camera_and_said(runs):
    traj = runs["humanoid"]
    figure = animation_figure(traj)
    assert "no ground contact in the model" in figure["layout"]["title"]["subtitle"]["text"]
    last = figure["frames"][-1]["layout"]["scene"]["zaxis"]["range"]
    lowest = min(np.nanmin(_points(t)[:, 2]) for t in _frame_traces(figure, len(figure["frames"]) - 1))
    assert last[0] < lowest < last[1] < -100  # the window went down with the bodies
    ground = _points(figure["data"][0])[:, 2]
    first = min(np.nanmin(_points(t)[:, 2]) for t in figure["data"][1:])
    assert np.ptp(ground) < 1e-9 and first - 0.1 < ground[0] < first  # the ground lies just under the feet at t = 0


def test_a_spin_too_fast_for_the_frames_is_said(runs):
    subtitle = animation_figure(runs["satellite_rotor"])["layout"]["title"]["subtitle"]["text"]
    assert "v[6]:spin exceed half a turn between frames" in subtitle  # 60 rad/s, a frame every 0.1 s
    assert "exceed" not in animation_figure(runs["double_pendulum"])["layout"]["title"]["subtitle"]["text"]


def test_pendulum_ground_lies_under_the_whole_motion_and_the_camera_stays(runs):
    figure = animation_figure(runs["double_pendulum"])
    lowest = min(np.nanmin(_points(t)[:, 2]) for k in range(200) for t in _frame_traces(figure, k))
    assert _points(figure["data"][0])[0, 2] < lowest
    assert all("layout" not in frame for frame in figure["frames"])
    assert figure["layout"]["scene"]["camera"]["up"] == {"x": 0.0, "y": 0.0, "z": 1.0}


def test_inertia_box_is_the_uniform_box_of_the_body():
    mass, sides = 2.0, np.array([0.3, 0.2, 0.1])
    inertia = mass / 12 * np.diag([sides[1] ** 2 + sides[2] ** 2, sides[0] ** 2 + sides[2] ** 2,
                                   sides[0] ** 2 + sides[1] ** 2])
    R = mb.Transform.from_rpy((0.3, -0.5, 1.1)).rotation
    com = np.array([0.1, -0.2, 0.3])
    vertices, triangles = inertia_box(mass, com, R @ inertia @ R.T)
    np.testing.assert_allclose(vertices.mean(axis=0), com, atol=1e-12)
    np.testing.assert_allclose(_sides(vertices), np.sort(sides), atol=1e-12)
    assert triangles.shape == (12, 3) and set(triangles.ravel()) == set(range(8))


def test_contact_shapes_replace_the_inertia_box():
    model = mb.Model("shapes")
    for name in ("ball", "pill"):
        model.add(mb.Body(name, mass=1.0, inertia=np.eye(3) * 1e-3), joint=mb.Free(name=f"{name}_joint"))
    model.add_geometry("ball", mb.Sphere(0.1), placement=mb.Transform(translation=[0.0, 0.0, 0.5]))
    model.add_geometry("pill", mb.Capsule(0.05, 0.2))
    ball, pill = outlines(model)
    np.testing.assert_allclose(np.linalg.norm(ball.vertices - [0, 0, 0.5], axis=1), 0.1, atol=1e-12)
    np.testing.assert_allclose([pill.vertices[:, 2].min(), pill.vertices[:, 2].max()], [-0.25, 0.25], atol=1e-12)
    assert np.linalg.norm(pill.vertices[:, :2], axis=1).max() <= 0.05 + 1e-12


def test_a_convex_hull_is_drawn_as_its_closed_outward_surface_where_the_model_puts_it():
    half = np.array([0.1, 0.2, 0.3])
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
    cloud = np.vstack([corners, 0.5 * corners[:3], [[0.0, 0.0, 0.0]]])  # inside points: not hull vertices
    placement = mb.Transform.from_rpy((0.3, -0.5, 1.1), translation=(0.0, 0.0, -0.5))
    model = mb.Model("hull", gravity=(0.0, 0.0, -9.81))
    model.add(mb.Body("rock", mass=1.0, com=(0.0, 0.0, -0.5), inertia=np.eye(3) * 1e-2),
              joint=mb.Revolute((1, 0, 0), name="swing"))
    model.add_geometry("rock", mb.ConvexHull(cloud, source="eight corners"), placement=placement)
    (rock,) = outlines(model)
    placed = placement.translation + corners @ placement.rotation.T
    assert len(rock.vertices) == 8 and np.abs(rock.vertices[:, None] - placed[None]).sum(-1).min(1).max() < 1e-12
    a, b, c = (rock.vertices[rock.triangles[:, n]] for n in range(3))
    normals = np.cross(b - a, c - a)
    assert rock.triangles.shape == (12, 3)                  # two triangles a face
    assert np.all(np.einsum("ij,ij->i", normals, a + b + c - 3 * placement.translation) > 0)  # wound outward
    # closed and outward: the divergence theorem gives the box's volume 8 h_x h_y h_z
    np.testing.assert_allclose(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6, 8 * half.prod(), rtol=0, atol=1e-15)
    traj = mb.simulate(model, [0.4], [0.0], t_end=0.5, progress=False)
    figure = animation_figure(traj)
    k = len(figure["frames"]) - 1
    mesh = _trace(_frame_traces(figure, k), "rock")
    assert mesh["type"] == "mesh3d"
    assert np.array([mesh["i"], mesh["j"], mesh["k"]]).T.tolist() == rock.triangles.tolist()
    R, p = mb.body_pose(model, traj.q[frame_indices(traj.t)[k]], "rock")
    np.testing.assert_allclose(_points(mesh), p + rock.vertices @ R.T, rtol=0, atol=1e-6)  # rounded on the page


def test_pages_load_plotly_js_once_embedded_from_a_cdn_or_a_file_beside_them(runs, tmp_path):
    from plotly.offline import get_plotlyjs
    bundle = get_plotlyjs()[:200]  # the start of plotly.js, as embedded
    embedded = animate([runs["double_pendulum"], runs["four_bar"]], tmp_path / "two.html")
    assert Path(embedded).read_text().count(bundle) == 1
    small = animate(runs["double_pendulum"], tmp_path / "cdn.html", include_plotlyjs="cdn")
    assert Path(small).stat().st_size < 500_000 and "cdn.plot.ly" in Path(small).read_text()
    (tmp_path / "local").mkdir()
    local = runs["humanoid"].animate(tmp_path / "local" / "humanoid.html", include_plotlyjs="directory")
    assert Path(local).stat().st_size < 2_000_000 and (tmp_path / "local" / "plotly.min.js").exists()
    assert '<script charset="utf-8" src="plotly.min.js"></script>' in Path(local).read_text()


def test_screenshots_of_every_example_are_checked_in():
    from PIL import Image
    for name in EXAMPLES:
        image = Image.open(SCREENSHOTS / f"{name}.png").convert("RGB")
        pixels = np.asarray(image).astype(int)
        assert image.size == (800, 600), name
        assert (pixels.max(axis=2) - pixels.min(axis=2) > 60).sum() > 300, f"{name}: nothing coloured drawn"


# ------------------------------------------------------------------------------------------------------------
# In the browser: the six examples on one page, shown at FRAME, read back from plotly
# ------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def drawn(runs, tmp_path_factory):
    """(probe report per example, console lines) of one page holding the six animations."""
    folder = tmp_path_factory.mktemp("pages")
    page = animate([runs[name] for name in EXAMPLES], folder / "examples.html", include_plotlyjs="directory")
    dom, console = dump_dom(probed(page, folder / "probed.html", frame=FRAME), folder / "profile", budget_ms=30000)
    return dict(zip(EXAMPLES, probe_of(dom))), console


@needs_chromium
def test_page_of_six_animations_renders_without_javascript_errors(drawn):
    reports, console = drawn
    assert not errors(console), errors(console)
    assert len(reports) == len(EXAMPLES)


@needs_chromium
@pytest.mark.parametrize("name", EXAMPLES)
def test_title_axis_labels_and_time_reach_the_page(drawn, runs, name):
    report, traj = drawn[0][name], runs[name]
    dof = "1 degree" if name == "four_bar" else f"{traj.model.nv} degrees"  # the mobility (nv − rank J)
    title = f"{name}: {traj.model.nbodies} bodies, {dof} of freedom"
    assert report["title"] == report["gtitle"] == title  # plotly.js kept the title and drew it
    assert report["axes"] == ["x [m]", "y [m]", "z [m]"]
    k = min(FRAME, report["frames"] - 1)
    assert report["slider"].startswith("t = ") and report["slider"].endswith(" s")
    assert float(report["slider"][4:-2]) == pytest.approx(traj.t[frame_indices(traj.t)[k]], abs=0.006)


@needs_chromium
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_body_is_drawn_with_its_geometry_where_the_model_puts_it(drawn, runs, name):
    report, traj = drawn[0][name], runs[name]
    model, k = traj.model, min(FRAME, report["frames"] - 1)
    R, p = _pose(traj, k)
    scale = max(1.0, np.abs(p).max())
    for i, body in enumerate(model.bodies):
        if body.mass == 0:
            continue
        local = (_points(_trace(report["traces"], body.name)) - p[i]) @ R[i]  # back in the body frame
        np.testing.assert_allclose(local.mean(axis=0), body.com, atol=2e-6 * scale, err_msg=body.name)
        np.testing.assert_allclose(_sides(local), _model_sides(body), atol=2e-6 * scale, err_msg=body.name)
    ends = _segments(_trace(report["traces"], "links")).reshape(-1, 3)
    for child, parent in enumerate(model.parents):  # every joint is reached by a stick of its parent body
        if parent >= 0:
            joint = p[parent] + R[parent] @ model.placements[child].translation
            reached = np.linalg.norm(ends - joint, axis=1).min()
            assert reached < 2e-6 * scale, f"{name}: no stick reaches the joint of {model.bodies[child].name}"


@needs_chromium
def test_the_page_draws_the_double_pendulum_rods_full_length_and_the_four_bar_closed(drawn, runs):
    pendulum = runs["double_pendulum"]
    q = pendulum.q[frame_indices(pendulum.t)[FRAME]]
    elbow, tip = (mb.body_pose(pendulum.model, q, name)[1] for name in ("lower", "tip"))
    lower = _points(_trace(drawn[0]["double_pendulum"]["traces"], "lower"))
    along = (lower - elbow) @ (tip - elbow)  # the rod's box runs from the elbow to the tip (0.9997 m: see above)
    np.testing.assert_allclose([along.min(), along.max()], [0, 1], atol=2e-4)
    assert np.linalg.norm(_segments(_trace(drawn[0]["double_pendulum"]["traces"], "links")).reshape(-1, 3) - tip,
                          axis=1).min() < 1e-6
    four_bar = runs["four_bar"]
    R, p = _pose(four_bar, FRAME)
    coupler, rocker = (four_bar.model.body_index(name) for name in ("coupler", "rocker"))
    ends = _segments(_trace(drawn[0]["four_bar"]["traces"], "links")).reshape(-1, 3)
    for point in (p[coupler] + R[coupler] @ [0.6, 0, 0], p[rocker] + R[rocker] @ [0.5, 0, 0], [0.5, 0, 0]):
        assert np.linalg.norm(ends - point, axis=1).min() < 1e-6  # coupler and rocker meet at C; the ground reaches D


@needs_chromium
def test_the_browser_check_catches_a_javascript_error_and_a_page_that_never_draws(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><p>nothing drawn</p><script>undefinedFunction();</script></body></html>")
    dom, console = dump_dom(probed(bad, tmp_path / "probed.html", frame=0), tmp_path / "profile", budget_ms=2000)
    assert errors(console)
    with pytest.raises(AssertionError, match="did not report"):
        probe_of(dom)
