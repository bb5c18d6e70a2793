"""SRDF import: the self-collision pairs a robot's authors disabled.

An SRDF file (the semantic description beside a URDF, MoveIt's format; example-robot-data ships one per robot)
lists ``<disable_collisions link1="…" link2="…" reason="Adjacent|Never|Default"/>``: pairs of links whose collision
shapes touch by construction (the hip and thigh shapes of a leg overlap at their joint) or never touch.
:func:`disable_collisions` leaves the contact shapes of each such pair out of each other's contact pairs
(:func:`multibody.constraints.contact.contact_pairs`), as Pinocchio's ``removeCollisionPairs`` does. The shapes
of a link are those :func:`multibody.io.urdf.model_from_urdf` read from its ``<collision>`` elements, named
"<link>_k". The other SRDF elements (groups, group states, end effectors) are not read.
"""
from __future__ import annotations

import os
import warnings

from ..errors import ModelError
from ..model import Model
from .robot_xml import read_robot_xml


def disable_collisions(model: Model, path_or_xml: str | os.PathLike) -> int:
    """Leave out the contacts between the shapes of every ``<disable_collisions>`` link pair of an SRDF file path
    or XML string; returns the number of shape pairs left out. Link names the model has neither as a body nor as a
    frame are said once (``warnings.warn``); links without contact shapes have nothing to disable."""
    source, root = read_robot_xml(path_or_xml, "SRDF")
    shapes: dict[str, list] = {}
    for geometry in model.geometries:
        link, _, k = (geometry.name or "").rpartition("_")
        if k.isdigit():
            shapes.setdefault(link, []).append(geometry)
    unknown: set[str | None] = set()
    count = 0
    for element in root.iter("disable_collisions"):
        pair = element.get("link1"), element.get("link2")
        unknown.update(link for link in pair if link is None or not _has_link(model, link))
        for a in shapes.get(pair[0], ()):
            for b in shapes.get(pair[1], ()):
                count += a.exclude_contacts(b)
    if unknown:
        warnings.warn(f"{source}: <disable_collisions> names links model '{model.name}' does not have (ignored): "
                      f"{', '.join(sorted(map(str, unknown)))}", stacklevel=2)
    if model._compiled is not None:
        model._compiled.derived.pop("contact_pairs", None)
    return count


def _has_link(model, name):
    try:
        model.locate(name)
    except ModelError:
        return False
    return True
