"""What the layers above the data lend to it.

A :class:`~multibody.Model` is data and imports nothing above it. The methods through which it reaches further —
compiling itself (:mod:`multibody.dynamics`), reading URDF and MJCF files (:mod:`multibody.io`), making joint-limit
constraints (:mod:`multibody.constraints`), showing itself and a trajectory in a notebook and in plots
(:mod:`multibody.viz`) — call the function that the layer owning it lends here when it is imported; ``import
multibody`` imports them all.
"""
from __future__ import annotations

from typing import Any, Callable

_LENT: dict[str, Callable[..., Any]] = {}


def lend(**functions: Callable[..., Any]) -> None:
    """Lend ``functions`` under their keyword names (called by the layer that defines them, on its import)."""
    _LENT.update(functions)


def lent(name: str) -> Callable[..., Any]:
    """The function lent as ``name``."""
    try:
        return _LENT[name]
    except KeyError:
        raise RuntimeError(f"multibody: {name!r} comes from a part of multibody that is not imported; "
                           "import multibody first") from None
