"""Contact shapes attached to bodies: the data a model holds (:meth:`Model.add_geometry`).

:class:`Shape` is the base of the shapes (``mb.Sphere``, ``mb.Box``, ``mb.Capsule``, ``mb.Plane``,
``mb.ConvexHull``: :mod:`multibody.constraints.geometry`, with the distances between them); :class:`Geometry` places
one on a body with its contact coefficients.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..errors import ModelError
from ..spatial import Transform
from .part import ModelPart


class Shape:
    """Base of the contact shapes: all of a shape lies within ``bounding_radius`` [m] of ``bounding_center`` (3,) [m]
    of its frame (∞ for a plane)."""

    bounding_radius = np.inf
    bounding_center = np.zeros(3)
    kind = ""

    def to_dict(self) -> dict[str, Any]:
        """The dictionary form: ``type`` and the constructor's arguments."""
        return {"type": self.kind}


def placement_to_dict(transform):
    """The dictionary form {xyz, rotation} of a :class:`Transform` (model files; every float exact)."""
    return {"xyz": transform.translation.tolist(), "rotation": transform.rotation.tolist()}


class Geometry(ModelPart):
    """A shape attached to a body ("world" for fixed scenery) at ``placement`` in the body frame, with its Coulomb
    ``friction`` coefficient (≥ 0) and Newton ``restitution`` coefficient in [0, 1]. ``exclude``: the names of the
    geometries it never touches (a robot's disabled self-collision pairs, :func:`multibody.io.srdf.disable_collisions`;
    an MJCF file's contact filters); ``include``: those it can touch whatever the filters (an MJCF file's
    ``<contact><pair>``). Neither is kept in model files, whose saving says so.

    ``priority`` and ``condim`` are MuJoCo's geom attributes, which decide a contact's coefficients with the other
    shape's (:func:`contact_coefficients`): of two shapes of different priority the higher one's friction holds;
    ``condim`` 1 makes the contact frictionless unless the other shape has 3 (sliding friction, the default) and
    the same or a higher priority."""

    def __init__(self, body: str, shape: Shape, friction: float = 0.5, restitution: float = 0.0,
                 placement: Transform | None = None, name: str | None = None, priority: int = 0,
                 condim: int = 3) -> None:
        if not isinstance(shape, Shape):
            raise ModelError(f"geometry on '{body}': shape must be mb.Sphere, mb.Box, mb.Capsule, mb.Plane or "
                             f"mb.ConvexHull, "
                             f"got {shape!r}")
        placement = Transform() if placement is None else placement
        if not isinstance(placement, Transform):
            raise ModelError(f"geometry on '{body}': placement must be a multibody.Transform, got {placement!r}")
        friction, restitution = float(friction), float(restitution)
        if not np.isfinite(friction) or friction < 0:
            raise ModelError(f"geometry on '{body}': friction must be finite and ≥ 0, got {friction}")
        if not 0.0 <= restitution <= 1.0:
            raise ModelError(f"geometry on '{body}': restitution must be in [0, 1], got {restitution}")
        if condim not in (1, 3) or isinstance(condim, bool):
            raise ModelError(f"geometry on '{body}': condim must be 1 (frictionless) or 3 (sliding friction), got "
                             f"{condim!r}")
        if not isinstance(priority, (int, np.integer)) or isinstance(priority, bool):
            raise ModelError(f"geometry on '{body}': priority must be an integer, got {priority!r}")
        self.body, self.shape, self.placement = body, shape, placement
        self.friction, self.restitution, self.name = friction, restitution, name
        self.priority, self.condim = int(priority), int(condim)
        self.exclude: set[str | None] = set()  # the names of the shapes it never touches (None: unnamed)
        self.include: set[str] = set()

    def exclude_contacts(self, other: Geometry) -> bool:
        """Never touch ``other``: each names the other in its ``exclude``. Returns whether the pair was new."""
        new = other.name not in self.exclude or self.name not in other.exclude
        self.exclude.add(other.name)
        other.exclude.add(self.name)
        self._changed()
        other._changed()
        return new

    def to_dict(self) -> dict[str, Any]:
        """The dictionary form: the arguments of ``Model.add_geometry`` with the shape's own form (``exclude`` is
        left out, with a warning, as is ``include``)."""
        if self.exclude or self.include:
            warnings.warn(f"geometry {self.name!r}: its disabled and explicit contact pairs ({len(self.exclude)}, "
                          f"{len(self.include)}, from an SRDF or MJCF file) are not saved in the model file: read "
                          "that file again after loading it", stacklevel=2)
        data = {"body": self.body, "shape": self.shape.to_dict(), "friction": self.friction,
                "restitution": self.restitution, "placement": placement_to_dict(self.placement), "name": self.name}
        if self.priority:
            data["priority"] = self.priority
        if self.condim != 3:
            data["condim"] = self.condim
        return data

    def __repr__(self):
        return f"Geometry({self.name!r}, {self.shape!r} on {self.body!r})"


FRICTION_RULES = ("geometric", "max")
