"""Matplotlib figures of a trajectory: coordinates, speeds, accelerations, forces, energy, constraint error.

Every axis carries its unit: time [s], energy [J], and for q, v, v̇, τ the units of the joints' coordinates (rad,
rad/s, rad/s², N·m for rotations; m, m/s, m/s², N for translations; quaternion entries have none; the beams'
elastic coordinates those of displacements, slopes or modal amplitudes), also in each line's legend label.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np


if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..flexible.body import FlexibleBeam
    from ..model import Model
    from ..simulate.trajectory import Trajectory

PANELS = ("q", "v", "a", "tau", "energy", "constraints")
_TITLES = {"q": "configuration q", "v": "velocity v", "a": "acceleration v̇", "tau": "applied generalized force τ",
           "energy": "energy", "constraints": "constraint error"}
UNITS = {"A": {"q": "rad", "v": "rad/s", "a": "rad/s²", "tau": "N·m"},  # angular coordinates and their rates
         "L": {"q": "m", "v": "m/s", "a": "m/s²", "tau": "N"},  # linear ones
         "1": {"q": "1"},  # quaternion entries
         "M": {"q": "√kg·m", "v": "√kg·m/s", "a": "√kg·m/s²", "tau": "N/√kg"}}  # beams' modal amplitudes


def coordinate_units(model: Model, vector: str) -> list[str]:
    """The unit of each entry of ``vector`` ("q", "v", "a" = v̇ or "tau") by joint type, e.g. ["rad", "m"], then
    of the beams' elastic coordinates (m, rad, or √kg·m for modal amplitudes)."""
    return [UNITS[kind][vector] for joint in model.joints
            for kind in (joint.coordinate_kinds if vector == "q" else joint.velocity_kinds)] + [
        UNITS[kind][vector] for body in model.bodies if body.ne
        for kind in cast("FlexibleBeam", body).discretization.coordinate_kinds]


def plot_trajectory(trajectory: Trajectory, what: str | Sequence[str] = ("q", "v", "energy"),
                    path: str | os.PathLike | None = None, title: str | None = None, dpi: float = 100) -> Figure:
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
    if panel in ("q", "v", "a", "tau"):
        _draw_coordinates(ax, trajectory, panel, t)
    elif panel == "energy":
        _draw_energy(ax, trajectory, t)
    else:
        _draw_constraints(ax, trajectory, t)


def _draw_coordinates(ax, trajectory, panel, t):
    """One line per entry of q, v, v̇ or τ, labelled with its joint and unit; the y label lists the units."""
    from ..simulate.trajectory import coordinate_label
    values, units = getattr(trajectory, panel), coordinate_units(trajectory.model, panel)
    for i in range(values.shape[1]):
        ax.plot(t, values[:, i], label=f"{coordinate_label(trajectory.model, panel, i)} [{units[i]}]", lw=1.2)
    ax.set_ylabel(f"{'τ' if panel == 'tau' else panel} [{', '.join(dict.fromkeys(units))}]")
    if values.shape[1] <= 12:
        ax.legend(fontsize=7, ncol=min(4, max(1, values.shape[1])), loc="upper right")


def _draw_energy(ax, trajectory, t):
    """Kinetic, potential and total energy [J], with the largest drift of the total relative to the largest part."""
    kinetic, potential = trajectory.energy("kinetic"), trajectory.energy("potential")
    total = kinetic + potential
    ax.plot(t, kinetic, label="kinetic", lw=1.2)
    ax.plot(t, potential, label="potential", lw=1.2)
    ax.plot(t, total, label="total", lw=1.6, color="k")
    ax.set_ylabel("energy [J]")
    scale = max(np.abs(kinetic).max(initial=0.0), np.abs(potential).max(initial=0.0), 1e-300)
    drift = np.abs(total - total[0]).max(initial=0.0) / scale if len(total) else 0.0
    ax.legend(fontsize=7, loc="upper right", title=f"max drift {drift:.1e} (relative)", title_fontsize=7)


def _draw_constraints(ax, trajectory, t):
    """The largest position and velocity constraint errors (rows in m or rad, and their rates), log scale."""
    errors = trajectory.constraint_errors()
    if errors.shape[1]:
        ax.semilogy(t, np.maximum(errors[:, 0], 1e-300), lw=1.2, label="max |φ(q)| (position) [m, rad]")
        ax.semilogy(t, np.maximum(errors[:, 1], 1e-300), lw=1.2, label="max |J v − b| (velocity) [m/s, rad/s]")
        ax.set_ylabel("largest row")
        ax.legend(fontsize=7, loc="upper right")
    else:
        ax.text(0.5, 0.5, "no constraints", ha="center", va="center", transform=ax.transAxes)
