"""Exceptions raised by multibody."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

MAX_MESSAGE = 1000  # characters of an error message; longer ones keep their start and end


def printable(text: str, limit: int | None = None) -> str:
    """``text`` safe to print on a terminal, on one line: control and other non-printable characters (terminal
    escapes, newlines, bidirectional overrides) written as Python escapes (``\\x1b``), and, given ``limit``, the
    middle of a longer text replaced by " … " so that at most ``limit`` characters remain. Idempotent."""
    if limit is None or len(text) <= limit:
        text = _escaped(text)
        if limit is None or len(text) <= limit:
            return text
    tail = limit // 5
    return _escaped(text[:limit])[:limit - tail - 3] + " … " + _escaped(text[-tail:])[-tail:]


def _escaped(text):
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class ModelError(ValueError):
    """Bad model data. The message names the body, joint or field and the offending value.

    The message is made printable and bounded (:func:`printable`): names read from a file cannot send terminal
    escapes, and a huge value cannot make a huge message."""

    def __init__(self, *args: object) -> None:
        if args and isinstance(args[0], str):
            args = (printable(args[0], MAX_MESSAGE),) + args[1:]
        super().__init__(*args)


class SimulationError(RuntimeError):
    """Time integration failed.

    Attributes
    ----------
    time : float
        Simulated time [s] at which the integration stopped.
    trajectory : multibody.Trajectory or None
        The part of the trajectory computed before the failure.
    """

    def __init__(self, message: str, time: float | None = None, trajectory: Any = None) -> None:
        super().__init__(message)
        self.time = time
        self.trajectory = trajectory


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C (KeyboardInterrupt) during a simulation, carrying what was computed.

    A KeyboardInterrupt, not a SimulationError: code that catches SimulationError (or Exception) to skip a failed
    run still stops on Ctrl-C, and an uncaught one ends the program as Ctrl-C does. Catch it to keep the work::

        try:
            traj = mb.simulate(model, q0, v0, t_end=100.0)
        except mb.SimulationInterrupted as stop:
            traj = stop.trajectory          # the samples up to stop.time

    Attributes as for :class:`SimulationError`: ``time`` [s] and the partial ``trajectory``.
    """

    def __init__(self, message: str, time: float | None = None, trajectory: Any = None) -> None:
        super().__init__(message)
        self.time = time
        self.trajectory = trajectory


def checked_number(value: Any, field: str, *, positive: bool = False, nonnegative: bool = False,
                   interval: tuple[float, float] | None = None, finite: bool = True) -> float:
    """float(value), or a ModelError naming ``field`` and the value: when it is not a number, is NaN, is infinite
    (with ``finite``, and always with a sign or an interval), is not > 0 (``positive``) or ≥ 0 (``nonnegative``), or
    lies outside the closed ``interval``. A boolean is not a number here (YAML reads ``yes`` as True)."""
    if isinstance(value, (bool, np.bool_)):
        raise ModelError(f"{field} must be a number, got the boolean {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{field} must be a number, got {value!r}") from None
    if interval is not None:
        requirement, ok = f"in [{interval[0]:g}, {interval[1]:g}]", interval[0] <= x <= interval[1]
    elif positive or nonnegative:
        requirement = "finite and positive" if positive else "finite and non-negative"
        ok = math.isfinite(x) and (x > 0.0 if positive else x >= 0.0)
    else:
        requirement = "a finite number" if finite else "a number, not NaN"
        ok = math.isfinite(x) if finite else not math.isnan(x)
    if not ok:
        raise ModelError(f"{field} must be {requirement}, got {value!r}")
    return x
