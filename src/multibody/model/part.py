"""Bodies and joints know the models that use them, so that changing one clears those models' compiled form."""
from __future__ import annotations

import weakref

import numpy as np


class ModelPart:
    """Base of :class:`Body` and :class:`Joint`: assigning any attribute clears the compiled form of every model the
    part was added to (``Model.compile`` rebuilds it on the next call), and array attributes are read-only, so that
    no edit in place can leave a compiled model stale."""

    def __setattr__(self, name, value):
        if isinstance(value, np.ndarray) and not name.startswith("__"):
            value = value.view()
            value.flags.writeable = False
        object.__setattr__(self, name, value)
        for model in self.__dict__.get("_models", ()):
            model._compiled = None

    def _added_to(self, model):
        """Record that ``model`` uses this part."""
        if "_models" not in self.__dict__:
            object.__setattr__(self, "_models", weakref.WeakSet())
        self._models.add(model)
