"""Self-contained 3D animation of a trajectory as one offline HTML page (plotly, its JavaScript embedded).

Each body is drawn as simple shapes: a stick from its frame origin to its mass center and to the joints of its
children, a sphere at its mass center (size growing with the cube root of its mass) and, for a sliding joint, a
thin line from the joint to the moved body. The page has play/pause buttons and a time slider.
"""
from __future__ import annotations

import numpy as np

from ..dynamics import body_poses


def skeleton(model, R0, p0):
    """Stick segments (k, 2, 3) and mass centers (n, 3) of the bodies in world coordinates [m] for one pose.

    Segments: body origin → mass center, body origin → each child's joint, child joint → child origin.
    World-attached joints start at their placement in the world.
    """
    segments, centers = [], []
    for i, (body, parent, placement) in enumerate(zip(model.bodies, model.parents, model.placements)):
        center = p0[i] + R0[i] @ body.com
        centers.append(center)
        segments.append((p0[i], center))
        joint_at = placement.translation if parent < 0 else p0[parent] + R0[parent] @ placement.translation
        if parent >= 0:
            segments.append((p0[parent], joint_at))
        segments.append((joint_at, p0[i]))
    return np.array(segments), np.array(centers)


def _lines(segments):
    """x, y, z lists for one Scatter3d trace with None between segments."""
    points = np.full((len(segments), 3, 3), np.nan)
    points[:, :2] = segments
    flat = points.reshape(-1, 3)
    return [[None if np.isnan(x) else float(x) for x in flat[:, k]] for k in range(3)]


def animate(trajectory, path="animation.html", fps=30, max_frames=400, title=None):
    """Write the animation of ``trajectory`` to ``path`` (HTML, works offline) and return the path.

    Frames are taken at up to ``fps`` per simulated second (at most ``max_frames``, all samples if fewer).
    """
    import plotly.io
    figure = animation_figure(trajectory, fps, max_frames, title)
    plotly.io.write_html(figure, str(path), include_plotlyjs=True, full_html=True, auto_play=False, validate=False)
    return path


def animation_figure(trajectory, fps=30, max_frames=400, title=None):
    """The plotly figure (a dict: data, layout, frames) of :func:`animate`."""
    model = trajectory.model
    if len(trajectory) == 0:
        raise ValueError("animate: the trajectory has no samples")
    duration = trajectory.t[-1] - trajectory.t[0]
    count = int(min(max_frames, len(trajectory), max(2, np.ceil(duration * fps) + 1)))
    picks = np.unique(np.round(np.linspace(0, len(trajectory) - 1, count)).astype(int))
    R0, p0 = body_poses(model, trajectory.q[picks])
    shapes = [skeleton(model, R, p) for R, p in zip(R0, p0)]
    every = np.concatenate([np.concatenate([s.reshape(-1, 3), c]) for s, c in shapes])
    center = 0.5 * (every.max(axis=0) + every.min(axis=0))
    half = 0.55 * max(np.ptp(every, axis=0).max(), 1e-3)
    sizes = 6 + 10 * np.cbrt(np.array([b.mass for b in model.bodies]) / max(b.mass for b in model.bodies))

    def traces(k):
        segments, centers = shapes[k]
        x, y, z = _lines(segments)
        return [dict(type="scatter3d", x=x, y=y, z=z, mode="lines", line=dict(width=7, color="#1f4e79"),
                     name="links", hoverinfo="skip"),
                dict(type="scatter3d", x=centers[:, 0].tolist(), y=centers[:, 1].tolist(), z=centers[:, 2].tolist(),
                     mode="markers", marker=dict(size=sizes.tolist(), color="#e8772e", line=dict(width=1, color="#333")),
                     text=[b.name for b in model.bodies], name="mass centers")]

    labels = [f"{trajectory.t[i]:.3f}" for i in picks]
    frame_ms = max(1, int(1000 * duration / max(1, len(picks) - 1)))
    frames = [dict(data=traces(k), name=labels[k]) for k in range(len(picks))]
    play = dict(label="▶ play", method="animate",
                args=[None, dict(frame=dict(duration=frame_ms, redraw=True), fromcurrent=True, transition=dict(duration=0))])
    pause = dict(label="❚❚ pause", method="animate",
                 args=[[None], dict(frame=dict(duration=0, redraw=False), mode="immediate", transition=dict(duration=0))])
    slider = dict(active=0, currentvalue=dict(prefix="t = ", suffix=" s"), pad=dict(t=40),
                  steps=[dict(label=label, method="animate",
                              args=[[label], dict(mode="immediate", frame=dict(duration=0, redraw=True),
                                                  transition=dict(duration=0))]) for label in labels])
    axis = [dict(range=[c - half, c + half], title=name) for c, name in zip(center, ("x [m]", "y [m]", "z [m]"))]
    return dict(data=traces(0), frames=frames, layout=dict(
        title=title or f"{model.name}: {len(model.bodies)} bodies, {model.nv} degrees of freedom",
        scene=dict(xaxis=axis[0], yaxis=axis[1], zaxis=axis[2], aspectmode="cube"),
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=0.0, xanchor="left", yanchor="top",
                          buttons=[play, pause])],
        sliders=[slider], showlegend=False, height=720, margin=dict(l=0, r=0, t=40, b=0)))
    return figure
