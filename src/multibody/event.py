"""The event of a simulation, :class:`Event`: a zero crossing g(t, q, v) = 0 to locate, with an optional action.

With the record of an impact, :class:`ImpactRecord` (``trajectory.impacts``).
Shared by :func:`multibody.simulate` and the layers below it that add events of their own (the joint stops of
:mod:`multibody.constraints.limit_stops`, the collisions of :mod:`multibody.impact.events`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import numpy as np


class NamedEvent:
    """An event function that carries its own ``name`` (the built-in events, :mod:`multibody.simulate.events`)."""

    name: str


@dataclass
class Event:
    """A zero crossing g(t, q, v) = 0 to locate during a simulation.

    ``direction`` > 0 (< 0) catches only rising (falling) crossings, 0 both. ``terminal`` stops the run.
    ``action(t, q, v) -> (q, v)``, if given, replaces the state at the event and the run continues
    (impact laws, mode switches). ``function`` may be a built-in event (:class:`multibody.JointValue`,
    :class:`multibody.PointHeight`), whose name it takes by default; without an action it stays in the compiled
    loop.
    """

    function: Callable
    name: str | None = None
    terminal: bool = False
    direction: float = 0.0
    action: Callable | None = None

    def __post_init__(self):
        builtin = isinstance(self.function, NamedEvent)
        self.name = self.name or (self.function.name if builtin else getattr(self.function, "__name__", "event"))


@dataclass(frozen=True)
class ImpactRecord:
    """One impact: ``time`` [s]; per contact: ``pairs`` (geometry names A, B), ``bodies`` (body names, None for
    the world), ``points`` (3,) world contact points [m], ``normals`` (3,) unit from B to A, ``impulses`` (3,)
    world impulse on A [N·s] (−impulse on B), ``approach`` normal velocity before [m/s] (< 0 approaching);
    ``kinetic_energy_before`` and ``kinetic_energy_after`` [J]; ``resting``: pairs left in resting contact;
    ``q`` (nq,) the configuration at the impact, ``v_before`` and ``v_after`` (nv,) the velocities around it."""

    time: float
    pairs: list
    bodies: list
    points: list
    normals: list
    impulses: list
    approach: list
    kinetic_energy_before: float
    kinetic_energy_after: float
    resting: list
    q: np.ndarray
    v_before: np.ndarray
    v_after: np.ndarray
