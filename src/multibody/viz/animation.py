"""3D animation of trajectories as one HTML page (plotly), with play/pause buttons and a time slider.

Each body is drawn as its solid (its contact shapes, or the uniform box of its mass and inertia: see
:mod:`multibody.viz.shapes`), sticks from its joint to where other bodies, frames and constraints attach and to its
tip, a marker at its mass centre and its x, y, z axes in red, green, blue (a legend entry shows and hides them).
Under gravity a ground plane lies below the motion (or, for a model with a world ``Plane`` contact shape, there).
The scene keeps true proportions and is fitted to the whole motion; bodies that travel far (a free fall) are
followed by the camera instead. plotly.js is loaded once per page: embedded (``include_plotlyjs=True``, a page
of ~5 MB that works offline), from a CDN (``"cdn"``, a small page that needs the internet) or from a
``plotly.min.js`` written once next to the page (``"directory"``, small pages that work offline).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..constraints.geometry import Plane
from ..dynamics import body_poses
from ..dynamics.flexible_tree import beam_segments
from .shapes import attachments, outlines

if TYPE_CHECKING:
    from ..simulate.trajectory import Trajectory

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
AXIS_COLOURS = ("#e41a1c", "#2ca02c", "#1f5fd6")  # body x, y, z axes
FOLLOW = 4.0  # the camera follows the bodies when they travel more than this many times their own size
_HEAD = '<!doctype html>\n<html>\n<head>\n<meta charset="utf-8" />\n<title>{title}</title>\n' \
        '<style>html, body {{height: 100%; margin: 0;}}</style>\n</head>\n<body>\n{divs}\n</body>\n</html>\n'


def animate(trajectories: Trajectory | Sequence[Trajectory], path: str | os.PathLike = "animation.html", *,
            fps: float = 30, max_frames: int = 200, title: str | None = None,
            include_plotlyjs: bool | str = True) -> str | os.PathLike:
    """Write the animation of a trajectory (or one below the other for several) to the HTML page ``path``;
    returns ``path``.

    Frames are taken at up to ``fps`` per simulated second [1/s] and at most ``max_frames`` per trajectory (all
    samples if fewer). ``title`` replaces the default (the model's name and sizes). ``include_plotlyjs``: True
    embeds plotly.js (~4.8 MB, works offline), "cdn" links it (small file, needs the internet), "directory" links
    a ``plotly.min.js`` written next to ``path`` if absent (small file, works offline), or a URL/path ending in
    ".js". However many trajectories, the page loads plotly.js once.
    """
    import plotly.io
    figures = [animation_figure(t, fps, max_frames, title)
               for t in (trajectories if isinstance(trajectories, Sequence) else [trajectories])]
    divs = [plotly.io.to_html(figure, include_plotlyjs=include_plotlyjs if k == 0 else False, full_html=False,
                              auto_play=False, validate=False, default_height="100vh" if len(figures) > 1 else "100%")
            for k, figure in enumerate(figures)]
    page_title = " · ".join(f["layout"]["meta"]["model"] for f in figures)
    Path(path).write_text(_HEAD.format(title=page_title, divs="\n".join(divs)), encoding="utf-8")
    if include_plotlyjs == "directory":
        bundle = Path(path).parent / "plotly.min.js"
        if not bundle.exists():
            from plotly.offline import get_plotlyjs
            bundle.write_text(get_plotlyjs(), encoding="utf-8")
    return path


def frame_indices(t: np.ndarray, fps: float = 30, max_frames: int = 200) -> np.ndarray:
    """Indices of the samples shown as frames: evenly spread, up to ``fps`` per second of ``t`` [s] and at most
    ``max_frames`` (both ends included)."""
    duration = t[-1] - t[0]
    count = int(min(max_frames, len(t), max(2, np.ceil(duration * fps) + 1)))
    return np.unique(np.round(np.linspace(0, len(t) - 1, count)).astype(int))


def animation_figure(trajectory: Trajectory, fps: float = 30, max_frames: int = 200,
                     title: str | None = None) -> dict[str, Any]:
    """The plotly figure of :func:`animate` as a dict (data, layout, frames), coordinates in metres."""
    if len(trajectory) == 0:
        raise ValueError("animate: the trajectory has no samples")
    model = trajectory.model
    picks = frame_indices(trajectory.t, fps, max_frames)
    drawing = posed_drawing(model, trajectory.q[picks])
    view = fit_view(drawing, model.gravity, _world_planes(model))
    moving = [_frame_traces(model, drawing, view, k) for k in range(len(picks))]
    static = [_ground_trace(view)] if view["ground"] is not None else []
    indices = list(range(len(static), len(static) + len(moving[0])))
    times = trajectory.t[picks]
    frames = [dict(name=str(k), data=[_coordinates_only(trace) for trace in traces], traces=indices,
                   **({"layout": dict(scene=_ranges(view, k))} if view["follow"] else {}))
              for k, traces in enumerate(moving)]
    return dict(data=static + moving[0], frames=frames,
                layout=_layout(model, times, view, title or _default_title(model, trajectory.q[0]), _notes(trajectory, times, view)))


def posed_drawing(model, Q: np.ndarray) -> dict[str, Any]:
    """World coordinates [m] of everything drawn, for configurations Q (F, nq): ``solids`` (per body: (F, m, 3)
    vertices, triangles), ``sticks`` (F, S, 2, 3) segments, ``centres`` (F, n, 3) mass centres, ``axes``
    (F, n, 3, 3): the unit x, y, z axes of each body at ``origins`` (F, n, 3)."""
    R0, p0 = body_poses(model, Q)
    bodies, anchors = outlines(model), attachments(model)[-1]
    solids = [(_posed(R0[:, i], p0[:, i], o.vertices), o.triangles) for i, o in enumerate(bodies)]
    sticks = [_fan(p0[:, i], _posed(R0[:, i], p0[:, i], o.anchors)) for i, o in enumerate(bodies)]
    world = np.broadcast_to(anchors, (len(Q), *anchors.shape))
    sticks += [_fan(np.zeros((len(Q), 3)), world)] + _slides(model, R0, p0) + beam_segments(model, Q)
    centres = np.stack([_posed(R0[:, i], p0[:, i], b.com[None])[:, 0] for i, b in enumerate(model.bodies)], axis=1)
    return dict(solids=solids, sticks=np.concatenate(sticks, axis=1), centres=centres, origins=p0,
                axes=np.swapaxes(R0, -1, -2), masses=np.array([b.mass for b in model.bodies], dtype=float))


def _posed(R, p, points):
    """Points (m, 3) of a body frame in world coordinates (F, m, 3) for its poses R (F, 3, 3), p (F, 3)."""
    return p[:, None] + np.einsum("fij,mj->fmi", R, points)


def _fan(origin, ends):
    """Segments (F, k, 2, 3) from ``origin`` (F, 3) to each of ``ends`` (F, k, 3)."""
    return np.stack([np.broadcast_to(origin[:, None], ends.shape), ends], axis=2)


def _slides(model, R0, p0):
    """Segments from sliding joints (prismatic, cylindrical) to the bodies they move: the joint's travel."""
    slides = []
    for i, (joint, parent, placement) in enumerate(zip(model.joints, model.parents, model.placements)):
        if joint.drawn_as == "slide":
            R, p = (R0[:, parent], p0[:, parent]) if parent >= 0 else (np.eye(3)[None], np.zeros((1, 3)))
            at = _posed(R, p, placement.translation[None])[:, 0]
            slides.append(_fan(np.broadcast_to(at, p0[:, i].shape), p0[:, i][:, None]))
    return slides


def _world_planes(model):
    """(point, upward normal) of each Plane contact shape fixed in the world (the ground of contact models)."""
    return [(g.placement.translation, g.placement.rotation[:, 2]) for g in model.geometries
            if g.body == "world" and isinstance(g.shape, Plane)]


def _drawn_points(drawing):
    """All drawn points per frame (F, P, 3)."""
    sticks = drawing["sticks"]
    return np.concatenate([v for v, _ in drawing["solids"]] + [sticks.reshape(len(sticks), -1, 3),
                                                               drawing["centres"]], axis=1)


def fit_view(drawing: dict[str, Any], gravity: np.ndarray, planes: list) -> dict[str, Any]:
    """Scene fitted to the motion: ``centre`` (F, 3) [m] of the window per frame (the same for all frames unless
    ``follow``), ``half`` (3,) [m] its half sides, ``eye`` the camera position, ``size`` [m] of the bodies,
    ``travel`` [m], ``axis_length`` [m] of the drawn body axes, ``ground`` (point, normal) or None, ``digits``:
    decimals kept in the page (~1e-7 of the size)."""
    points = _drawn_points(drawing)
    low, high = points.min(axis=1), points.max(axis=1)
    size = max(float((high - low).max()), 1e-3)
    centres = 0.5 * (low + high)
    travel = float(np.ptp(centres, axis=0).max())
    follow = travel > FOLLOW * size
    if follow:
        half = 0.6 * (high - low).max(axis=0) + 0.1 * size
    else:
        half = 0.55 * (high.max(axis=0) - low.min(axis=0)) + 0.05 * size
        centres = np.broadcast_to(0.5 * (high.max(axis=0) + low.min(axis=0)), centres.shape)
    ground = planes[0] if planes else _ground(points if not follow else points[:1], gravity, size)
    extent = high.max(axis=0) - low.min(axis=0) if not follow else (high - low).max(axis=0)
    return dict(centre=centres, half=np.maximum(half, 0.25 * half.max()), eye=_eye(extent, _up(gravity)), size=size,
                follow=bool(follow), travel=travel, ground=ground, axis_length=0.12 * size, up=_up(gravity),
                digits=int(7 - np.floor(np.log10(size + np.abs(points).max()))))


def _up(gravity):
    g = np.linalg.norm(gravity)
    return -np.asarray(gravity) / g if g > 0 else np.array([0.0, 0.0, 1.0])


def _ground(points, gravity, size):
    """(point, upward normal) of the plane just below the lowest of ``points`` (F, P, 3), or None without gravity."""
    if not np.any(gravity):
        return None
    up = _up(gravity)
    lowest = points.reshape(-1, 3)[np.argmin(points.reshape(-1, 3) @ up)]
    return lowest - 0.03 * size * up, up


def _ground_trace(view):
    """The ground as a square (mesh3d) under the whole scene, in its plane."""
    point, normal = view["ground"]
    centre = view["centre"].mean(axis=0)
    centre = centre - ((centre - point) @ normal) * normal
    reach = view["half"] + 0.5 * np.ptp(view["centre"], axis=0)
    t1, t2 = np.linalg.svd(normal[None])[2][1:]  # two unit vectors spanning the plane
    corners = np.array([centre + a * (np.abs(t1) @ reach) * t1 + b * (np.abs(t2) @ reach) * t2
                        for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    x, y, z = np.round(corners.T, view["digits"]).tolist()
    return dict(type="mesh3d", x=x, y=y, z=z, i=[0, 0], j=[1, 2], k=[2, 3], color="#b9b3a3", opacity=0.45,
                name="ground", showlegend=True, hoverinfo="skip", flatshading=True)


def _ranges(view, k):
    """Axis ranges [m] of the scene at frame ``k``."""
    centre, half = view["centre"][k], view["half"]
    return {f"{axis}axis": dict(range=[float(c - h), float(c + h)]) for axis, c, h in zip("xyz", centre, half)}


def _lines(segments, digits):
    """x, y, z lists of one line trace for ``segments`` (S, 2, 3), a gap (null) between segments."""
    points = np.full((len(segments), 3, 3), np.nan)
    points[:, :2] = segments
    return dict(zip("xyz", np.round(points.reshape(-1, 3).T, digits).tolist()))


def _frame_traces(model, drawing, view, k):
    """The moving traces at frame ``k``: solids, sticks, mass centres and the body axes."""
    traces, digits = [], view["digits"]
    for i, (vertices, triangles) in enumerate(drawing["solids"]):
        if len(triangles):
            x, y, z = np.round(vertices[k].T, digits).tolist()
            i_, j_, k_ = triangles.T.tolist()
            traces.append(dict(type="mesh3d", x=x, y=y, z=z, i=i_, j=j_, k=k_, name=model.bodies[i].name,
                               color=COLOURS[i % len(COLOURS)], opacity=0.5, flatshading=True, showlegend=False,
                               hovertemplate=f"{model.bodies[i].name}<extra></extra>"))
    traces.append(dict(type="scatter3d", mode="lines", name="links", line=dict(width=3, color="#37474f"),
                       hoverinfo="skip", **_lines(drawing["sticks"][k], digits)))
    masses = drawing["masses"]
    x, y, z = np.round(drawing["centres"][k].T, digits).tolist()
    traces.append(dict(type="scatter3d", mode="markers", name="mass centres", x=x, y=y, z=z,
                       text=[b.name for b in model.bodies], hovertemplate="%{text}<extra>mass centre</extra>",
                       marker=dict(size=(3 + 6 * np.cbrt(masses / max(masses.max(), 1e-300))).tolist(),
                                   color="#111111")))
    return traces + _axis_traces(drawing, view, k)


def _axis_traces(drawing, view, k):
    """The x, y, z axes of every body at frame ``k`` (one trace per axis, one legend entry for the three)."""
    origins, length, digits = drawing["origins"][k], view["axis_length"], view["digits"]
    return [dict(type="scatter3d", mode="lines", name="body axes (x, y, z)", legendgroup="axes",
                 showlegend=a == 0, hoverinfo="skip", line=dict(width=4, color=AXIS_COLOURS[a]),
                 **_lines(np.stack([origins, origins + length * drawing["axes"][k][:, a]], axis=1), digits))
            for a in range(3)]


def _coordinates_only(trace):
    """What a frame needs of a trace: its coordinates (plotly keeps the rest from the first frame)."""
    return {key: trace[key] for key in ("type", "x", "y", "z")}


def _default_title(model, q):
    """"name: 3 bodies, 1 degree of freedom": the mobility at q (nv less the independent constraints)."""
    dof = model.nv
    from ..constraints.types import equality_constraints
    if equality_constraints(model):
        from ..constraints.assembly import mobility
        dof = mobility(model, q)["dof"]
    return f"{model.name}: {model.nbodies} bodies, {dof} degree{'' if dof == 1 else 's'} of freedom"


def _notes(trajectory, times, view):
    """The subtitle: time span and what the solids are; on a second line, how the camera behaves and which joints
    turn too fast for the frames."""
    model = trajectory.model
    notes = [f"t = {times[0]:g} to {times[-1]:g} s in {len(times)} frames",
             "bodies as their contact shapes or uniform boxes of equal inertia"]
    warnings = []
    if view["follow"]:
        warnings.append(f"the camera follows the bodies ({view['travel']:.3g} m of travel)")
        if np.any(model.gravity) and not _world_planes(model):
            warnings.append("no ground contact in the model: they fall through the ground drawn")
    fast = _too_fast(trajectory, times)
    if fast:
        warnings.append(f"{', '.join(fast)} exceed half a turn between frames (the picture aliases: raise "
                        "max_frames or shorten the run)")
    return "<br>".join(" · ".join(line) for line in (notes, warnings) if line)


def _too_fast(trajectory, times):
    """Labels of the angular speeds that exceed half a turn per frame interval: max |v_k| Δt > π."""
    from ..simulate.trajectory import coordinate_label
    from .plots import coordinate_units
    interval = np.diff(times).max(initial=0.0)
    angular = [k for k, unit in enumerate(coordinate_units(trajectory.model, "v")) if unit == "rad/s"]
    peaks = np.abs(trajectory.v[:, angular]).max(axis=0, initial=0.0)
    return [coordinate_label(trajectory.model, "v", k) for k, peak in zip(angular, peaks) if peak * interval > np.pi]


def _layout(model, times, view, title, notes):
    """Title, axes with units, camera, play/pause buttons and the time slider."""
    half = view["half"]
    scene = {f"{a}axis": dict(title=dict(text=f"{a} [m]"), **r) for a, r in zip("xyz", _ranges(view, 0).values())}
    scene.update(aspectmode="manual", aspectratio=dict(zip("xyz", (half / half.max()).tolist())),
                 camera=dict(eye=dict(zip("xyz", view["eye"])), up=dict(zip("xyz", view["up"].tolist()))))
    return dict(title=dict(text=title, subtitle=dict(text=notes), x=0.01, xanchor="left", y=0.98, yanchor="top"),
                meta=dict(model=model.name), scene=scene, showlegend=True,
                legend=dict(x=0.01, y=0.9, bgcolor="rgba(255,255,255,0.6)"),
                margin=dict(l=0, r=0, t=75, b=110), updatemenus=[_buttons(times)], sliders=[_slider(times)],
                annotations=_slider_ticks(times))


def _eye(extent, up):
    """Camera position (scene units) for the motion's ``extent`` (3,) [m]: across the plane of a planar motion (one
    side under a tenth of the largest), from the front and above if that plane is horizontal; else a three-quarter
    view."""
    thin, vertical = int(np.argmin(extent)), int(np.argmax(np.abs(up)))
    if extent[thin] > 0.1 * extent.max():
        return [1.25, -1.35, 0.75]
    if thin == vertical:
        return (0.3 * np.ones(3) - 0.9 * np.eye(3)[(vertical + 2) % 3] + 1.3 * up).tolist()
    eye = np.full(3, 0.3) + 0.35 * up
    eye[thin] = -1.7 if thin == 1 else 1.7
    return eye.tolist()


_IMMEDIATE = dict(mode="immediate", transition=dict(duration=0))


def _buttons(times):
    """Play (in real time) and pause."""
    frame_ms = max(1, int(1000 * (times[-1] - times[0]) / max(1, len(times) - 1)))
    play = dict(label="▶ play", method="animate",
                args=[None, dict(frame=dict(duration=frame_ms, redraw=True), fromcurrent=True, **_IMMEDIATE)])
    pause = dict(label="❚❚ pause", method="animate",
                 args=[[None], dict(frame=dict(duration=0, redraw=False), **_IMMEDIATE)])
    return dict(type="buttons", direction="left", x=0.0, y=0.0, xanchor="left", yanchor="top", pad=dict(t=4),
                buttons=[play, pause])


SLIDER_PAD = (140, 20)  # px left (room for the buttons) and right of the slider's rail
STEP_INSET = 10  # px between the rail's ends and its first and last steps (plotly.js's sliders)


def _slider(times):
    """One step per frame. The current time shows above the rail; the labels under it (drawn by plotly at
    uneven times) are hidden and replaced by round times (:func:`_slider_ticks`)."""
    decimals = max(0, int(np.ceil(-np.log10(max(np.diff(times).min(initial=1.0), 1e-9)))))
    steps = [dict(label=f"{t:.{decimals}f}", method="animate",
                  args=[[str(k)], dict(frame=dict(duration=0, redraw=True), **_IMMEDIATE)])
             for k, t in enumerate(times)]
    return dict(active=0, steps=steps, x=0.0, len=1.0, y=0.0, yanchor="top", ticklen=4, minorticklen=4,
                pad=dict(t=0, l=SLIDER_PAD[0], r=SLIDER_PAD[1], b=0), font=dict(color="rgba(0,0,0,0)"),
                currentvalue=dict(prefix="t = ", suffix=" s", xanchor="right", font=dict(size=14, color="#222222")))


def _slider_ticks(times, most=8):
    """Annotations under the slider rail at round times [s] (at most ``most``), where plotly.js puts those steps:
    left pad + inset + fraction · (slider width − pads − 2 insets) [px]."""
    span = times[-1] - times[0]
    if span <= 0:
        return []
    step = min(s * 10.0 ** e for e in range(int(np.floor(np.log10(span))) - 1, int(np.floor(np.log10(span))) + 2)
               for s in (1, 2, 5) if span / (s * 10.0 ** e) <= most)
    ticks = np.arange(np.ceil(times[0] / step), np.floor(times[-1] / step) + 1) * step
    fractions = np.interp(ticks, times, np.linspace(0.0, 1.0, len(times)))
    return [dict(text=f"{t:g}", x=float(f), y=0.0, xref="paper", yref="paper", xanchor="center", yanchor="top",
                 xshift=SLIDER_PAD[0] + STEP_INSET - f * (sum(SLIDER_PAD) + 2 * STEP_INSET), yshift=-58,
                 showarrow=False, font=dict(size=11))
            for t, f in zip(ticks, fractions)]
