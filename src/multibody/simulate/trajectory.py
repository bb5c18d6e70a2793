"""Simulation results: sampled states with the model that produced them, energies, files, plots, animation."""
from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike

from .._lent import lent
from ..dynamics import energy as _energy
from ..dynamics.flexible_tree import strain_energy
from ..errors import ModelError
from ..event import ImpactRecord
from .forces import elastic_energy

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    import pandas
    from matplotlib.figure import Figure

    from ..model import Model

_ENERGY_KINDS = ("total", "kinetic", "potential", "gravity", "elastic")


class Trajectory:
    """States of ``model`` at times ``t``.

    Attributes
    ----------
    t : (T,) times [s]; q : (T, nq) configurations; v : (T, nv) velocities; a : (T, nv) accelerations v̇;
    tau : (T, nv) applied generalized forces (torques, mapped body forces, force elements);
    events : list of (name, time [s]) in the order they happened; info : solver settings and statistics;
    impacts : list of :class:`ImpactRecord` (collisions of :func:`multibody.simulate`, else empty);
    drift : (T, 2) constraint drift per sample, max|φ| [m or rad] and max|J v − b| [m/s or rad/s]: for a run
    projected onto the constraints (fixed-step methods) the largest residual the steps since the previous sample
    had before their projection, else (the default) the residual of the sample, as :meth:`constraint_errors`;
    (T, 0) for a model without constraints.
    """

    def __init__(self, model: Model, t: ArrayLike, q: ArrayLike, v: ArrayLike, a: ArrayLike | None = None,
                 tau: ArrayLike | None = None, events: Iterable[tuple[str, float]] = (),
                 info: Mapping[str, Any] | None = None, impacts: Iterable[ImpactRecord] = (),
                 drift: ArrayLike | None = None) -> None:
        self.model = model
        self.t = np.asarray(t, dtype=float)
        count, nv = self.t.shape[0], model.nv
        self.q = np.asarray(q, dtype=float).reshape(count, model.nq)
        self.v = np.asarray(v, dtype=float).reshape(count, nv)
        self.a = np.full((count, nv), np.nan) if a is None else np.asarray(a, dtype=float).reshape(count, nv)
        self.tau = np.zeros((count, nv)) if tau is None else np.asarray(tau, dtype=float).reshape(count, nv)
        self.events = [(str(name), float(time)) for name, time in events] if events else []
        self.info = dict(info or {})
        self.impacts = list(impacts) if impacts else []
        self._drift: np.ndarray | None = None  # None: the samples' own residuals, computed when first asked for
        if drift is not None:
            self.drift = np.asarray(drift, dtype=float)

    @property
    def drift(self) -> np.ndarray:
        """(T, 2) constraint drift per sample (see the class); given by the run that built the trajectory, else the
        residual of each sample (:meth:`constraint_errors`), computed on first use."""
        if self._drift is None:
            self._drift = constraint_residuals(self.model, self.q, self.v)
        return self._drift

    @drift.setter
    def drift(self, value: ArrayLike) -> None:
        drift = np.asarray(value, dtype=float)
        if drift.ndim != 2 or drift.shape[0] != len(self):
            raise ValueError(f"Trajectory: drift must have one row per sample ({len(self)}), got shape {drift.shape}")
        self._drift = drift

    def __len__(self) -> int:
        return self.t.shape[0]

    def __repr__(self) -> str:
        span = f"t = {self.t[0]:g} … {self.t[-1]:g} s" if len(self) else "empty"
        return f"Trajectory({self.model.name!r}, {len(self)} samples, {span}, {len(self.events)} events)"

    def _repr_html_(self) -> str:
        """Jupyter: samples, time span, solver settings and events (:func:`multibody.viz.notebook.trajectory_html`)."""
        return cast(str, lent("trajectory_html")(self))

    # ------------------------------------------------------------------------------------------
    # Derived quantities
    # ------------------------------------------------------------------------------------------
    def energy(self, kind: str = "total") -> np.ndarray:
        """Energy (T,) [J]: "kinetic", "gravity" (potential of gravity), "elastic" (force elements and the strain
        of flexible beams), "potential" (gravity + elastic) or "total" (kinetic + potential)."""
        if kind not in _ENERGY_KINDS:
            raise ValueError(f"energy: kind must be one of {', '.join(_ENERGY_KINDS)}, got {kind!r}")
        if len(self) == 0:
            return np.zeros(0)
        kinetic, potential = _energy(self.model, self.q, self.v)
        strain = strain_energy(self.model, self.q) if self.model.ne else 0.0  # in mb.energy's potential
        elastic = np.array([elastic_energy(self.model, q) for q in self.q]) + strain
        gravity = potential - strain
        return np.asarray({"kinetic": kinetic, "gravity": gravity, "elastic": elastic, "potential": gravity + elastic,
                           "total": kinetic + gravity + elastic}[kind])  # (T,) arrays: mb.energy of T states

    def constraint_errors(self) -> np.ndarray:
        """Constraint violation (T, 2) of the samples: max|φ(q)| (positions) and max|J v − b| (velocities), from
        :func:`multibody.constraints.assembly.constraint_drift`; shape (T, 0) for a model without constraints.
        (:attr:`drift` holds what the integration saw before any projection.)"""
        return constraint_residuals(self.model, self.q, self.v)

    def columns(self) -> list[str]:
        """Column names of :meth:`to_dataframe`: t, q[i] and v[i] labelled by joint, a[i], tau[i], energies."""
        return (["t"] + [coordinate_label(self.model, "q", i) for i in range(self.model.nq)]
                + [coordinate_label(self.model, "v", i) for i in range(self.model.nv)]
                + [coordinate_label(self.model, "a", i) for i in range(self.model.nv)]
                + [coordinate_label(self.model, "tau", i) for i in range(self.model.nv)]
                + ["kinetic_energy", "potential_energy", "energy"])

    def to_dataframe(self) -> pandas.DataFrame:
        """A pandas DataFrame with one row per sample (see :meth:`columns`)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("Trajectory.to_dataframe needs pandas: pip install pandas") from exc
        kinetic, potential = self.energy("kinetic"), self.energy("potential")
        data = np.column_stack([self.t, self.q, self.v, self.a, self.tau, kinetic, potential, kinetic + potential])
        return pd.DataFrame(data, columns=self.columns())

    def impacts_dataframe(self) -> pandas.DataFrame:
        """A pandas DataFrame with one row per contact of each impact: impact (its index), time, shape_a,
        shape_b, body_a, body_b ("world" for the world), point_x/y/z, normal_x/y/z, impulse_x/y/z (on A, world
        axes [N·s]), approach (normal velocity before [m/s]), kinetic_energy_before, kinetic_energy_after [J]."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("Trajectory.impacts_dataframe needs pandas: pip install pandas") from exc
        arrays = impacts_to_arrays(self.impacts, self.model)
        k = arrays["contact_impact"]
        table = {"impact": k, "time": arrays["impact_time"][k]}
        for column, side in (("shape", "contact_shapes"), ("body", "contact_bodies")):
            table[f"{column}_a"], table[f"{column}_b"] = arrays[side].T
        for column in ("point", "normal", "impulse"):
            for axis, values in zip("xyz", arrays[f"contact_{column}"].T):
                table[f"{column}_{axis}"] = values
        table["approach"] = arrays["contact_approach"]
        for column in ("kinetic_energy_before", "kinetic_energy_after"):
            table[column] = arrays[f"impact_{column}"][k]
        frame = pd.DataFrame(table)
        frame[["body_a", "body_b"]] = frame[["body_a", "body_b"]].replace("", "world")
        return frame

    # ------------------------------------------------------------------------------------------
    # Files
    # ------------------------------------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> str | os.PathLike:
        """Write a .npz file holding the arrays (drift included), the events, the impacts
        (:func:`impacts_to_arrays`), the solver info and the model description.

        :meth:`load` reads it back with the arrays and impact records bit for bit identical. A model holding a
        constraint that cannot be written (user callables) raises ModelError naming it, before the file is opened.
        """
        names = np.array([name for name, _ in self.events], dtype=str)
        times = np.array([time for _, time in self.events], dtype=float)
        model = np.array(json.dumps(lent("model_to_dict")(self.model)))
        with open(path, "wb") as handle:
            np.savez_compressed(handle, t=self.t, q=self.q, v=self.v, a=self.a, tau=self.tau, drift=self.drift,
                                event_names=names, event_times=times, model=model,
                                info=np.array(json.dumps(self.info, default=str)),
                                **impacts_to_arrays(self.impacts, self.model))
        return path

    # Largest total size of the arrays :meth:`load` accepts [bytes] (the file's headers declare it).
    MAX_LOAD_BYTES = 4 << 30

    @classmethod
    def load(cls, path: str | os.PathLike) -> Trajectory:
        """Read a trajectory written by :meth:`save` (the model is rebuilt from its description).

        Raises ModelError naming the file for anything that is not such a file: not a zip archive, a member
        missing or of the wrong type, arrays whose headers declare more data than the file holds or than
        MAX_LOAD_BYTES in all (checked before anything is allocated), an invalid model description."""
        try:
            _check_npz_sizes(path, cls.MAX_LOAD_BYTES)
            with np.load(path, allow_pickle=False) as data:
                model = lent("model_from_dict")(json.loads(str(data["model"])), source=str(path))
                events = list(zip(data["event_names"].tolist(), data["event_times"].tolist()))
                impacts = impacts_from_arrays(data) if "impact_time" in data.files else []
                drift = data["drift"] if "drift" in data.files else None  # (files written before it was saved)
                return cls(model, data["t"], data["q"], data["v"], data["a"], data["tau"], events,
                           json.loads(str(data["info"])), impacts, drift)
        except ModelError as exc:
            if str(path) in str(exc):
                raise
            raise ModelError(f"{path}: {exc}") from exc
        except FileNotFoundError:
            raise
        except MemoryError:
            raise ModelError(f"{path}: its arrays do not fit in memory (a trajectory file too large for this machine, "
                             "or a damaged one that claims huge arrays)") from None
        except Exception as exc:  # BadZipFile, KeyError (a missing array), JSON, zlib, numpy format errors, ...
            raise ModelError(f"{path}: not a trajectory file written by Trajectory.save "
                             f"({type(exc).__name__}: {exc})") from exc

    # ------------------------------------------------------------------------------------------
    # Pictures
    # ------------------------------------------------------------------------------------------
    def plot(self, what: Sequence[str] = ("q", "v", "energy"), path: str | os.PathLike | None = None,
             **options: Any) -> Figure:
        """Matplotlib figure of the chosen panels ("q", "v", "a", "tau", "energy", "constraints");
        saved to ``path`` if given. See :func:`multibody.viz.plot_trajectory`."""
        return cast("Figure", lent("plot_trajectory")(self, what=what, path=path, **options))

    def animate(self, path: str | os.PathLike = "animation.html", **options: Any) -> str | os.PathLike:
        """Write a self-contained HTML page with a 3D animation (play/pause, time slider).
        See :func:`multibody.viz.animate`."""
        return cast("str | os.PathLike", lent("animate")(self, path, **options))


class Samples:
    """A run's samples as it wrote them: times t (T,) [s], states q (T, nq) and v (T, nv); len() the count."""

    __slots__ = ("t", "q", "v")

    def __init__(self, t: np.ndarray, q: np.ndarray, v: np.ndarray) -> None:
        self.t, self.q, self.v = t, q, v

    def __len__(self) -> int:
        return len(self.t)


class RatesWhenRead(Trajectory):
    """A :class:`Trajectory` of a compiled run whose accelerations ``a`` and applied generalized forces ``tau`` at the
    samples are computed when first read, all at once: a run that does not read them (a short call of a control
    loop that reads q and v) does not pay for them. ``rates``: (function, arguments), ``function(samples,
    *arguments)`` -> (a (T, nv), tau (T, nv)), computed from the run's own arrays as it ran: its samples (t, q, v
    as given, which the trajectory's ``q`` and ``v``, copies, do not share: an edit of them in place does not
    change a and tau) and the model's arrays (an edit of the model after the run does not change them either)."""

    def __init__(self, model: Model, t: ArrayLike, q: ArrayLike, v: ArrayLike, rates: tuple, **fields: Any) -> None:
        super().__init__(model, t, np.array(q, dtype=float), np.array(v, dtype=float), v, v, **fields)
        self._a = self._tau = None  # (the placeholders a and tau above are not allocated)
        self._rates_of: tuple | None = rates
        self._samples: Samples | None = Samples(self.t.copy(), np.asarray(q, dtype=float).reshape(self.q.shape),
                                                np.asarray(v, dtype=float).reshape(self.v.shape))

    def _rates(self) -> None:
        """Compute ``a`` and ``tau`` at the samples (those not set since)."""
        function, arguments = cast(tuple, self._rates_of)
        a, applied = function(self._samples, *arguments)
        self._a = a if self._a is None else self._a
        self._tau = applied if self._tau is None else self._tau
        self._rates_of = self._samples = None

    def _read(self, name: str) -> np.ndarray:
        """The array ``name`` ("_a" or "_tau"), computed now if it has not been (:meth:`_rates`)."""
        if getattr(self, name) is None:
            self._rates()
        return cast(np.ndarray, getattr(self, name))

    a = property(lambda self: self._read("_a"), lambda self, value: setattr(self, "_a", value),
                 doc="(T, nv) the accelerations v̇ at the samples.")
    tau = property(lambda self: self._read("_tau"), lambda self, value: setattr(self, "_tau", value),
                   doc="(T, nv) the applied generalized forces at the samples.")


def constraint_residuals(model, q, v):
    """(T, 2) max|φ(q)| and max|J v − b| of the states q (T, nq), v (T, nv)
    (:func:`multibody.constraints.assembly.constraint_drift`); (T, 0) for a model without constraints."""
    if not getattr(model, "constraints", None):
        return np.zeros((len(q), 0))
    from ..constraints.assembly import constraint_drift
    return np.array([constraint_drift(model, qi, vi) for qi, vi in zip(q, v)]).reshape(len(q), 2)


def _check_npz_sizes(path, limit):
    """Raise ModelError if the .npy headers in the .npz archive ``path`` declare arrays larger than their members
    hold, or more than ``limit`` bytes in all (np.load allocates the declared size before reading)."""
    import zipfile
    total = 0
    with zipfile.ZipFile(path) as archive:
        for member in archive.infolist():
            if not member.filename.endswith(".npy"):
                continue
            with archive.open(member) as handle:
                version = np.lib.format.read_magic(handle)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read_header(handle, max_header_size=10000)
                header = handle.tell()
            declared = math.prod(shape) * dtype.itemsize
            total += declared
            what = f"{path}: array {member.filename[:-4]!r} declares shape {shape} of {dtype} ({declared:,} bytes)"
            if declared > member.file_size - header:
                raise ModelError(f"{what}, more than the file holds ({member.file_size - header:,} bytes)")
            if total > limit:
                raise ModelError(f"{what}: the arrays exceed the limit of {limit:,} bytes (Trajectory.MAX_LOAD_BYTES)")


def impacts_to_arrays(records, model):
    """Plain arrays of impact records (K impacts, C contacts, R resting pairs; the world body written as ""):

    impact_time, impact_kinetic_energy_before, impact_kinetic_energy_after (K,); impact_q (K, nq);
    impact_v_before, impact_v_after (K, nv); contact_impact (C,) index of the contact's impact;
    contact_shapes, contact_bodies (C, 2) names of A and B; contact_point, contact_normal, contact_impulse (C, 3);
    contact_approach (C,); resting_impact (R,) and resting_shapes (R, 2) the pairs left resting after impact k.
    """
    contacts = [(k, c) for k, r in enumerate(records)
                for c in zip(r.pairs, r.bodies, r.points, r.normals, r.impulses, r.approach)]
    resting = [(k, pair) for k, r in enumerate(records) for pair in r.resting]

    def column(values, shape, dtype=float):
        return np.array(values, dtype=dtype).reshape(shape)
    count, n = len(contacts), len(records)
    return {
        "impact_time": column([r.time for r in records], n),
        "impact_kinetic_energy_before": column([r.kinetic_energy_before for r in records], n),
        "impact_kinetic_energy_after": column([r.kinetic_energy_after for r in records], n),
        "impact_q": column([r.q for r in records], (n, model.nq)),
        "impact_v_before": column([r.v_before for r in records], (n, model.nv)),
        "impact_v_after": column([r.v_after for r in records], (n, model.nv)),
        "contact_impact": column([k for k, _ in contacts], count, int),
        "contact_shapes": column([c[0] for _, c in contacts], (count, 2), str),
        "contact_bodies": column([["" if b is None else b for b in c[1]] for _, c in contacts], (count, 2), str),
        "contact_point": column([c[2] for _, c in contacts], (count, 3)),
        "contact_normal": column([c[3] for _, c in contacts], (count, 3)),
        "contact_impulse": column([c[4] for _, c in contacts], (count, 3)),
        "contact_approach": column([c[5] for _, c in contacts], count),
        "resting_impact": column([k for k, _ in resting], len(resting), int),
        "resting_shapes": column([pair for _, pair in resting], (len(resting), 2), str),
    }


def impacts_from_arrays(data):
    """The :class:`ImpactRecord` list of :func:`impacts_to_arrays` (a mapping of its arrays)."""
    owner, resting_owner = data["contact_impact"], data["resting_impact"]
    records = []
    for k, time in enumerate(data["impact_time"].tolist()):
        mine = owner == k
        pairs = [tuple(p) for p in data["contact_shapes"][mine].tolist()]
        bodies = [tuple(b or None for b in pair) for pair in data["contact_bodies"][mine].tolist()]
        vectors = [list(data[f"contact_{name}"][mine]) for name in ("point", "normal", "impulse")]
        resting = [tuple(p) for p in data["resting_shapes"][resting_owner == k].tolist()]
        records.append(ImpactRecord(
            time, pairs, bodies, *vectors, data["contact_approach"][mine].tolist(),
            float(data["impact_kinetic_energy_before"][k]), float(data["impact_kinetic_energy_after"][k]), resting,
            data["impact_q"][k], data["impact_v_before"][k], data["impact_v_after"][k]))
    return records


def coordinate_label(model, vector, index):
    """Column label like "q[2]:elbow" (the joint owning entry ``index`` of q or of v)."""
    describe = model.describe_q if vector == "q" else model.describe_v
    text = describe(index)
    joint = text.split("joint '")[1].split("'")[0] if "joint '" in text else ""
    return f"{vector}[{index}]:{joint}" if joint else f"{vector}[{index}]"
