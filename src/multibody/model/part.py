"""A model's parts (bodies, joints, force elements, contact shapes) know the models that use them, and its lists of
parts clear the model's compiled form when edited: no edit can leave a compiled model stale."""
from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np


class ModelPart:
    """Base of :class:`Body`, :class:`Joint`, the force elements and :class:`Geometry`: assigning any attribute clears
    the compiled form of every model the part was added to (``Model.compile`` rebuilds it on the next call), and array
    attributes are read-only, so that no edit in place can leave a compiled model stale."""

    def __setattr__(self, name, value):
        if isinstance(value, np.ndarray) and not name.startswith("__"):
            value = value.view()
            value.flags.writeable = False
        object.__setattr__(self, name, value)
        self._changed()

    def _changed(self):
        """Clear the compiled form of the models using this part (after an edit the setter does not see)."""
        for model in self.__dict__.get("_models", ()):
            model._compiled = None

    def __getstate__(self):
        """The attributes but the models using the part (weak references: those models record it again when they
        are restored, :meth:`Model.__setstate__`)."""
        return {k: v for k, v in self.__dict__.items() if k != "_models"}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _added_to(self, model):
        """Record that ``model`` uses this part."""
        if "_models" not in self.__dict__:
            object.__setattr__(self, "_models", weakref.WeakSet())
        self._models.add(model)


class PartList(list):
    """A model's list of parts (``model.forces``, ``model.constraints``, ``model.geometries``): every edit (append,
    remove, item assignment, ...) clears the model's compiled form, as the Model's ``add_*`` methods do, and records
    the items it adds as parts of the model (:class:`ModelPart`), so that assigning their attributes clears it too."""

    def __init__(self, model, items=()):
        super().__init__()
        self.model = model
        self.extend(items)

    def _changed(self, added):
        model = self.__dict__.get("model")  # (absent while pickle refills the list, before its state)
        if model is not None:
            model._compiled = None
            for part in added:
                if isinstance(part, ModelPart):
                    part._added_to(model)


# How each editing method of a list is called: (its arguments, the items it adds), the iterables read once.
def _adds_nothing(*args):
    return args, ()


def _adds_last(*args):
    return args, args[-1:]


def _adds_all(items):
    items = list(items)
    return (items,), items


def _sets(key, value):
    if isinstance(key, slice):
        value = list(value)
        return (key, value), value
    return (key, value), (value,)


def _editing(name, adds):
    edit = getattr(list, name)

    def method(self, *args, **kwargs):
        args, added = adds(*args)
        result = edit(self, *args, **kwargs)
        self._changed(added)
        return result
    method.__name__ = name
    return method


for _name, _adds in {"append": _adds_last, "insert": _adds_last, "extend": _adds_all, "__iadd__": _adds_all,
                     "__setitem__": _sets, "remove": _adds_nothing, "pop": _adds_nothing, "clear": _adds_nothing,
                     "sort": _adds_nothing, "reverse": _adds_nothing, "__delitem__": _adds_nothing,
                     "__imul__": _adds_nothing}.items():
    setattr(PartList, _name, _editing(_name, _adds))


def part_list(name: str, doc: str) -> property:
    """The Model property ``name``: its :class:`PartList` (kept as ``_name``); assigning a sequence makes a new one
    and recompiles the model."""
    attribute = "_" + name

    def get(model: Any) -> PartList:  # (model: the Model that holds the list)
        return getattr(model, attribute)

    def replace(model: Any, items: Iterable) -> None:
        setattr(model, attribute, PartList(model, items))
        model._compiled = None
    return property(get, replace, doc=doc)
