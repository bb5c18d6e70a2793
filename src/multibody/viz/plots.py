"""Matplotlib figures of a trajectory: coordinates, speeds, accelerations, forces, energy, constraint error."""
from __future__ import annotations

import numpy as np

PANELS = ("q", "v", "a", "tau", "energy", "constraints")
_TITLES = {"q": "configuration q", "v": "velocity v", "a": "acceleration v̇", "tau": "applied generalized force τ",
           "energy": "energy [J]", "constraints": "constraint error"}


def plot_trajectory(trajectory, what=("q", "v", "energy"), path=None, title=None, dpi=100):
    """A figure with one panel per entry of ``what`` (from "q", "v", "a", "tau", "energy", "constraints")
    against time [s]; written to ``path`` (PNG, PDF, SVG by suffix) if given. Returns the Figure."""
    from matplotlib.figure import Figure
    what = (what,) if isinstance(what, str) else tuple(what)
    unknown = [w for w in what if w not in PANELS]
    if unknown or not what:
        raise ValueError(f"plot: unknown panel(s) {unknown}; choose from {', '.join(PANELS)}")
    figure = Figure(figsize=(8, 2.4 * len(what)), dpi=dpi, layout="constrained")
    axes = figure.subplots(len(what), 1, sharex=True, squeeze=False)[:, 0]
    t = trajectory.t
    for ax, panel in zip(axes, what):
        _draw(ax, trajectory, panel, t)
        ax.set_title(_TITLES[panel], fontsize=10, loc="left")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time t [s]")
    figure.suptitle(title or trajectory.model.name)
    if path is not None:
        figure.savefig(path)
    return figure


def _draw(ax, trajectory, panel, t):
    from ..simulate.trajectory import coordinate_label
    if panel in ("q", "v", "a", "tau"):
        values = getattr(trajectory, panel)
        for i in range(values.shape[1]):
            ax.plot(t, values[:, i], label=coordinate_label(trajectory.model, panel, i), lw=1.2)
        if values.shape[1] <= 12:
            ax.legend(fontsize=7, ncol=min(4, max(1, values.shape[1])), loc="upper right")
    elif panel == "energy":
        kinetic, potential = trajectory.energy("kinetic"), trajectory.energy("potential")
        total = kinetic + potential
        ax.plot(t, kinetic, label="kinetic", lw=1.2)
        ax.plot(t, potential, label="potential", lw=1.2)
        ax.plot(t, total, label="total", lw=1.6, color="k")
        scale = max(np.abs(kinetic).max(initial=0.0), np.abs(potential).max(initial=0.0), 1e-300)
        drift = np.abs(total - total[0]).max(initial=0.0) / scale if len(total) else 0.0
        ax.legend(fontsize=7, loc="upper right", title=f"max drift {drift:.1e} (relative)", title_fontsize=7)
    else:
        errors = trajectory.constraint_errors()
        if errors.shape[1]:
            ax.semilogy(t, np.maximum(errors[:, 0], 1e-300), lw=1.2, label="max |φ(q)| (position)")
            ax.semilogy(t, np.maximum(errors[:, 1], 1e-300), lw=1.2, label="max |J v − b| (velocity)")
            ax.legend(fontsize=7, loc="upper right")
        else:
            ax.text(0.5, 0.5, "no constraints", ha="center", va="center", transform=ax.transAxes)
