"""Simulation results: sampled states with the model that produced them, energies, files, plots, animation."""
from __future__ import annotations

import json

import numpy as np

from ..dynamics import energy as _energy
from .forces import elastic_energy

_ENERGY_KINDS = ("total", "kinetic", "potential", "gravity", "elastic")


class Trajectory:
    """States of ``model`` at times ``t``.

    Attributes
    ----------
    t : (T,) times [s]; q : (T, nq) configurations; v : (T, nv) velocities; a : (T, nv) accelerations v̇;
    tau : (T, nv) applied generalized forces (torques, mapped body forces, force elements);
    events : list of (name, time [s]) in the order they happened; info : solver settings and statistics.
    """

    def __init__(self, model, t, q, v, a=None, tau=None, events=(), info=None):
        self.model = model
        self.t = np.asarray(t, dtype=float)
        count = self.t.shape[0]
        self.q = np.asarray(q, dtype=float).reshape(count, model.nq)
        self.v = np.asarray(v, dtype=float).reshape(count, model.nv)
        self.a = np.full((count, model.nv), np.nan) if a is None else np.asarray(a, dtype=float).reshape(count, model.nv)
        self.tau = np.zeros((count, model.nv)) if tau is None else np.asarray(tau, dtype=float).reshape(count, model.nv)
        self.events = [(str(name), float(time)) for name, time in events]
        self.info = dict(info or {})

    def __len__(self):
        return self.t.shape[0]

    def __repr__(self):
        span = f"t = {self.t[0]:g} … {self.t[-1]:g} s" if len(self) else "empty"
        return f"Trajectory({self.model.name!r}, {len(self)} samples, {span}, {len(self.events)} events)"

    # ------------------------------------------------------------------------------------------
    # Derived quantities
    # ------------------------------------------------------------------------------------------
    def energy(self, kind="total"):
        """Energy (T,) [J]: "kinetic", "gravity" (potential of gravity), "elastic" (force elements),
        "potential" (gravity + elastic) or "total" (kinetic + potential)."""
        if kind not in _ENERGY_KINDS:
            raise ValueError(f"energy: kind must be one of {', '.join(_ENERGY_KINDS)}, got {kind!r}")
        if len(self) == 0:
            return np.zeros(0)
        kinetic, gravity = _energy(self.model, self.q, self.v)
        elastic = np.array([elastic_energy(self.model, q) for q in self.q])
        return {"kinetic": kinetic, "gravity": gravity, "elastic": elastic, "potential": gravity + elastic,
                "total": kinetic + gravity + elastic}[kind]

    def constraint_errors(self):
        """Constraint violation (T, 2) per sample: max|φ(q)| (positions) and max|J v − b| (velocities), from
        :func:`multibody.constraints.assembly.constraint_drift`; shape (T, 0) for a model without constraints."""
        if not getattr(self.model, "constraints", None):
            return np.zeros((len(self), 0))
        from ..constraints.assembly import constraint_drift
        return np.array([constraint_drift(self.model, q, v) for q, v in zip(self.q, self.v)]).reshape(len(self), 2)

    def columns(self):
        """Column names of :meth:`to_dataframe`: t, q[i] and v[i] labelled by joint, a[i], tau[i], energies."""
        return (["t"] + [coordinate_label(self.model, "q", i) for i in range(self.model.nq)]
                + [coordinate_label(self.model, "v", i) for i in range(self.model.nv)]
                + [coordinate_label(self.model, "a", i) for i in range(self.model.nv)]
                + [coordinate_label(self.model, "tau", i) for i in range(self.model.nv)]
                + ["kinetic_energy", "potential_energy", "energy"])

    def to_dataframe(self):
        """A pandas DataFrame with one row per sample (see :meth:`columns`)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("Trajectory.to_dataframe needs pandas: pip install pandas") from exc
        kinetic, potential = self.energy("kinetic"), self.energy("potential")
        data = np.column_stack([self.t, self.q, self.v, self.a, self.tau, kinetic, potential, kinetic + potential])
        return pd.DataFrame(data, columns=self.columns())

    # ------------------------------------------------------------------------------------------
    # Files
    # ------------------------------------------------------------------------------------------
    def save(self, path):
        """Write a .npz file holding the arrays, the events, the solver info and the model description.

        :meth:`load` reads it back with the arrays bit for bit identical.
        """
        from ..io.files import model_to_dict
        names = np.array([name for name, _ in self.events], dtype=str)
        times = np.array([time for _, time in self.events], dtype=float)
        with open(path, "wb") as handle:
            np.savez_compressed(handle, t=self.t, q=self.q, v=self.v, a=self.a, tau=self.tau,
                                event_names=names, event_times=times,
                                model=np.array(json.dumps(model_to_dict(self.model))),
                                info=np.array(json.dumps(self.info, default=str)))
        return path

    @classmethod
    def load(cls, path):
        """Read a trajectory written by :meth:`save` (the model is rebuilt from its description)."""
        from ..io.files import model_from_dict
        with np.load(path, allow_pickle=False) as data:
            model = model_from_dict(json.loads(str(data["model"])), source=str(path))
            events = list(zip(data["event_names"].tolist(), data["event_times"].tolist()))
            return cls(model, data["t"], data["q"], data["v"], data["a"], data["tau"], events,
                       json.loads(str(data["info"])))

    # ------------------------------------------------------------------------------------------
    # Pictures
    # ------------------------------------------------------------------------------------------
    def plot(self, what=("q", "v", "energy"), path=None, **options):
        """Matplotlib figure of the chosen panels ("q", "v", "a", "tau", "energy", "constraints");
        saved to ``path`` if given. See :func:`multibody.viz.plot_trajectory`."""
        from ..viz.plots import plot_trajectory
        return plot_trajectory(self, what=what, path=path, **options)

    def animate(self, path="animation.html", **options):
        """Write a self-contained HTML page with a 3D animation (play/pause, time slider).
        See :func:`multibody.viz.animate`."""
        from ..viz.animation import animate
        return animate(self, path, **options)


def coordinate_label(model, vector, index):
    """Column label like "q[2]:elbow" (the joint owning entry ``index`` of q or of v)."""
    describe = model.describe_q if vector == "q" else model.describe_v
    text = describe(index)
    joint = text.split("joint '")[1].split("'")[0] if "joint '" in text else ""
    return f"{vector}[{index}]:{joint}" if joint else f"{vector}[{index}]"
