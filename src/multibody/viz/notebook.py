"""What a Jupyter notebook shows for a Model and a Trajectory: small HTML tables (``_repr_html_``).

Built from the model's and trajectory's data only: nothing is computed or compiled to show them.
"""
from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..model import Model
    from ..simulate.trajectory import Trajectory

MAX_ROWS = 50  # bodies (or events) listed; the rest are counted


def model_html(model: Model) -> str:
    """Name, sizes and gravity, then one row per body: parent, joint (type and name), dof, mass [kg],
    mass center [m]."""
    parents = ["world" if p < 0 else model.bodies[p].name for p in model.parents]
    rows = [(body.name, parent, f"{type(joint).__name__} '{joint.name}'", joint.nv, _number(body.mass),
             _vector(body.com)) for body, joint, parent in zip(model.bodies, model.joints, parents)]
    extras = [f"{label}: {len(items)}" for label, items in (
        ("frames", model.frames), ("constraints", model.constraints), ("force elements", model.forces),
        ("contact shapes", model.geometries)) if items]
    caption = (f"Model '{model.name}': {model.nbodies} bodies, nq = {model.nq}, nv = {model.nv}, total mass "
               f"{_number(sum(body.mass for body in model.bodies))} kg, gravity {_vector(model.gravity)} m/s²" + "".join(f", {extra}" for extra in extras))
    return _table(caption, ("body", "parent", "joint", "dof", "mass [kg]", "mass center [m]"), rows)


def trajectory_html(traj: Trajectory) -> str:
    """Model, samples and time span, the solver's settings and statistics, then the events (name, time)."""
    span = f"{len(traj)} samples, t = {traj.t[0]:g} … {traj.t[-1]:g} s" if len(traj) else "no samples"
    settings = ", ".join(f"{key} {value}" for key, value in traj.info.items()
                         if isinstance(value, (str, int, float)) and not isinstance(value, bool))
    impacts = f", {len(traj.impacts)} impacts" if traj.impacts else ""
    caption = (f"Trajectory of '{traj.model.name}': {span}, nq = {traj.model.nq}, "
               f"nv = {traj.model.nv}{impacts}" + (f"; {settings}" if settings else ""))
    rows = [(name, f"{time:g}") for name, time in traj.events]
    return _table(caption, ("event", "t [s]"), rows) if rows else f"<p>{escape(caption)}</p>"


def _vector(values):
    return "(" + ", ".join(map(_number, np.ravel(values))) + ")"


def _number(x):
    """A number as %g, a symbolic value (sympy) as its expression."""
    try:
        return f"{float(x):g}"
    except (TypeError, ValueError):
        return str(x)


def _table(caption, header, rows):
    """An HTML table with ``caption``; at most MAX_ROWS rows, then one saying how many more."""
    shown = [[escape(str(cell)) for cell in row] for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        shown.append([f"… {len(rows) - MAX_ROWS} more"] + [""] * (len(header) - 1))
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in shown)
    return (f"<table><caption style='text-align:left'>{escape(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")
