"""What the layers above the data lend to it.

A :class:`~multibody.Model` is data and imports nothing above it; a :class:`~multibody.Trajectory` imports nothing
above the simulation. The methods through which they reach further call the function that the layer owning it lends
here when it is imported (``import multibody`` imports them all):

* ``Model.compile``: ``compile`` (:func:`multibody.dynamics.compiled_model.compile_model`);
* ``Model.from_urdf``, ``Model.from_mjcf``: ``read_urdf``, ``read_mjcf`` (:mod:`multibody.io`);
* ``Model.enforce_joint_limits``: ``joint_limit``, :class:`multibody.JointLimit` (:mod:`multibody.constraints`);
* ``Model._repr_html_``: ``model_html`` (:mod:`multibody.viz`);
* ``Trajectory.save``, ``Trajectory.load``: ``model_to_dict``, ``model_from_dict`` (:mod:`multibody.io`);
* ``Trajectory._repr_html_``, ``.plot``, ``.animate``: ``trajectory_html``, ``plot_trajectory``, ``animate``
  (:mod:`multibody.viz`).
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
