"""One line on stderr when numba actually compiles a multibody kernel (a cold cache), not when it loads one from
its cache: ``multibody: compiling the dynamics kernels (once; cached afterwards)…``.

numba fires its ``numba:compile`` event only on a cache miss (``Dispatcher.compile`` tries the disk cache first),
so a listener on that event sees exactly the real compilations.
"""
from __future__ import annotations

import sys

from numba.core import event

NOTICE = "multibody: compiling the dynamics kernels (once; cached afterwards; `multibody compile` does it ahead)…"


class _Notice(event.Listener):
    """Prints NOTICE at the first compilation of a function of the multibody package, then stays silent."""

    def __init__(self) -> None:
        self.shown = False

    def on_start(self, ev: event.Event) -> None:
        if self.shown:
            return
        func = getattr(ev.data.get("dispatcher"), "py_func", None)
        if (getattr(func, "__module__", None) or "").startswith("multibody."):  # generated code has no module
            self.shown = True
            print(NOTICE, file=sys.stderr, flush=True)

    def on_end(self, ev: event.Event) -> None:
        pass


LISTENER = _Notice()
event.register("numba:compile", LISTENER)
