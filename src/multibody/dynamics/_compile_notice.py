"""Lines on stderr while numba actually compiles a multibody kernel (a cold cache), not when it loads one from its
cache: first ``multibody: compiling the dynamics kernels (once; cached afterwards; ...)…``, then, while compiling
goes on, every PERIOD seconds a line naming the kernel being compiled and the time so far, so that a first run is
never silent for long.

numba fires its ``numba:compile`` event only on a cache miss (``Dispatcher.compile`` tries the disk cache first),
so a listener on that event sees exactly the real compilations. ``MULTIBODY_COMPILE_NOTICE=0`` silences it
(``multibody compile`` says it once for its worker processes).
"""
from __future__ import annotations

import os
import sys
import threading
import time

from numba.core import event

NOTICE = "multibody: compiling the dynamics kernels (once; cached afterwards; `multibody compile` does it ahead)…"
PERIOD = 5.0  # [s] between the lines naming what compiles


class _Notice(event.Listener):
    """Prints NOTICE at the first compilation of a function of the multibody package, then, from a daemon thread,
    a line every PERIOD seconds while a multibody function is being compiled."""

    def __init__(self) -> None:
        self.shown = False
        self.compiling: list[str] = []  # the multibody functions being compiled, outermost first
        self.started = 0.0
        self.said = 0.0

    def on_start(self, ev: event.Event) -> None:
        func = getattr(ev.data.get("dispatcher"), "py_func", None)
        module = getattr(func, "__module__", None) or ""  # generated code has no module
        self.compiling.append(f"{module.removeprefix('multibody.')}.{getattr(func, '__qualname__', '?')}"
                              if module.startswith("multibody.") else "")
        if self.shown or not module.startswith("multibody.") or os.environ.get("MULTIBODY_COMPILE_NOTICE") == "0":
            return
        self.shown = True
        self.started = self.said = time.monotonic()
        print(NOTICE, file=sys.stderr, flush=True)
        threading.Thread(target=self._tick, name="multibody-compile-notice", daemon=True).start()

    def on_end(self, ev: event.Event) -> None:
        if self.compiling:
            self.compiling.pop()

    def _tick(self) -> None:
        while True:
            time.sleep(0.5)
            now = time.monotonic()
            names = [name for name in list(self.compiling) if name]
            if names and now - self.said >= PERIOD:
                self.said = now
                print(f"multibody: compiling {names[-1]} ({now - self.started:.0f} s so far)…", file=sys.stderr,
                      flush=True)
            elif not names:
                self.said = now  # not compiling: the program speaks for itself


LISTENER = _Notice()
event.register("numba:compile", LISTENER)
