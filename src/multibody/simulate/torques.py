"""Inputs of a simulation as they enter it: the initial state and a constant torque, checked once
(:func:`initial_inputs`, :func:`initial_state`), and joint torques tabulated in time, the input that a Python callable
would otherwise give, in a form the compiled loop takes (:mod:`multibody.simulate.compiled`)."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics._inputs import as_state, unit_quaternions


def initial_state(model, q0: ArrayLike, v0: ArrayLike, what: str) -> tuple[np.ndarray, np.ndarray]:
    """The initial state of a simulation, checked once where it enters, to be handed down as checked: (q0, v0) as
    float64 arrays, q0 (nq,) or (runs, nq) and v0 (nv,) or (runs, nv) (:func:`~multibody.dynamics._inputs.as_state`;
    ValueError naming ``what`` for more dimensions or non-finite entries), with q0's quaternions scaled to unit length
    (:func:`~multibody.dynamics._inputs.unit_quaternions`; a warning for one whose norm is not 1 to 1e-3: the rotation
    it describes is kept, which for a value such as (2, 0, 0, 0) is rarely what was meant)."""
    q0, v0, _ = initial_inputs(model, q0, v0, None, what)
    return q0, v0


def initial_inputs(model, q0: ArrayLike, v0: ArrayLike, torque: Any, what: str) -> tuple[np.ndarray, np.ndarray, Any]:
    """(q0, v0, torque): the initial state as :func:`initial_state` checks it, and a constant ``torque`` checked with
    it, once, as float64 (nv,) or (runs, nv) (ValueError naming "torque" otherwise); None, a :class:`TorqueTable`
    (one, or one per run) or a callable pass as they are."""
    q0, v0 = as_state(q0, model.nq, "q0"), as_state(v0, model.nv, "v0")
    if torque is not None and not callable(torque) and not per_run_tables(torque):
        torque = as_state(torque, model.nv, "torque")
    if q0.ndim > 2 or v0.ndim > 2:
        raise ValueError(f"{what}: q0 and v0 must be states or (runs, n) arrays of them, got shapes {q0.shape} "
                         f"and {v0.shape}")
    if not (_finite(q0) and _finite(v0)):
        raise ValueError(f"{what}: q0 and v0 must be finite")
    return unit_quaternions(model, q0, "normalize", warn=f"{what}: q0"), v0, torque


def _finite(x: np.ndarray) -> bool:
    """Whether every entry of x is finite: a state's x · x is, short of overflow (which the entries are then
    checked for one by one)."""
    return (x.ndim == 1 and math.isfinite(x @ x)) or bool(np.logical_and.reduce(np.isfinite(x), axis=None))


class TorqueTable:
    """Generalized forces τ(t) given at times t_k [s] as rows τ_k (nv,) [N·m or N]: linear in t between the rows,
    held at the first row before t_0 and at the last after t_T (a table of one row is a constant torque).

    Pass it as ``torque`` to :func:`multibody.simulate`: it runs in the compiled loop, as a constant torque does
    (a Python callable makes the whole run take the Python loop), and as a callable (t, q, v) -> τ anywhere else.
    """

    def __init__(self, t: ArrayLike, values: ArrayLike) -> None:
        self.t = np.array(t, dtype=float, ndmin=1)
        self.values = np.array(values, dtype=float)
        if self.values.ndim == 1:
            self.values = self.values[:, None]
        if self.t.ndim != 1 or not self.t.size or not np.all(np.isfinite(self.t)) or np.any(np.diff(self.t) <= 0):
            raise ValueError(f"TorqueTable: t must be finite, strictly increasing times, got "
                             f"{np.array2string(self.t, threshold=8)}")
        if self.values.ndim != 2 or self.values.shape[0] != self.t.size or not np.all(np.isfinite(self.values)):
            raise ValueError(f"TorqueTable: values must be finite, one row (nv,) per time ({self.t.size}), got "
                             f"shape {self.values.shape}")
        self.t.flags.writeable = self.values.flags.writeable = False

    def __call__(self, t: float | np.ndarray, q: Any = None, v: Any = None) -> np.ndarray:
        """τ(t) (nv,), or (nv, T) at times t (T,)."""
        return np.array([np.interp(t, self.t, column) for column in self.values.T])

    def table(self, nv: int, what: str = "torque") -> tuple[np.ndarray, np.ndarray]:
        """(times (T,), values (T, nv)) for the compiled loop; ValueError unless the rows have nv entries."""
        if self.values.shape[1] != nv:
            raise ValueError(f"{what}: the TorqueTable's rows have {self.values.shape[1]} entries, the model has "
                             f"nv = {nv}")
        return self.t, self.values

    @staticmethod
    def stacked(tables: Sequence[TorqueTable], nv: int, what: str = "torque") -> tuple[np.ndarray, np.ndarray]:
        """(times (T,), values (B, T, nv)) of B tables, one per run of a batch, for the compiled loop: every table
        on the union of their times. Exact: a table evaluated at its own times and others' is the same
        piecewise-linear τ(t), held beyond its own first and last rows as before."""
        for table in tables:
            table.table(nv, what)  # (its rows have nv entries)
        times = np.unique(np.concatenate([table.t for table in tables]))
        return times, np.ascontiguousarray(np.stack([table(times).T for table in tables]))  # (C order: one kernel)

    def __repr__(self) -> str:
        return f"TorqueTable({self.t.size} rows, t = {self.t[0]:g} … {self.t[-1]:g} s, nv = {self.values.shape[1]})"


def per_run_tables(torque: Any) -> bool:
    """Whether ``torque`` is a sequence of TorqueTables: one per run of a batch."""
    return isinstance(torque, (list, tuple)) and bool(torque) and all(isinstance(t, TorqueTable) for t in torque)
