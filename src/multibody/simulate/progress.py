"""A progress bar that appears only for runs longer than about a second: rich's on a terminal (standard error),
an HTML bar updated in place in a Jupyter notebook."""
from __future__ import annotations

import sys
import time
from html import escape
from typing import Literal

NOTEBOOK_REFRESH = 0.2  # seconds between redraws of a notebook bar (each is a message to the browser)


class Progress:
    """Report progress of a task of size ``total``; ``enabled`` None shows the bar on a terminal and in a
    Jupyter notebook (whose standard error is no terminal), not when the output goes to a file or pipe.

    Use as a context manager and call :meth:`update` with the amount completed so far.
    """

    def __init__(self, total: float, description: str, enabled: bool | None = None, delay: float = 1.0) -> None:
        self.total = float(total)
        self.description = description
        self.enabled = (sys.stderr.isatty() or in_notebook()) if enabled is None else bool(enabled)
        self.delay = delay
        self._start = time.monotonic()
        self._bar: NotebookBar | TerminalBar | None = None

    def __enter__(self) -> Progress:
        return self

    def update(self, completed: float) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            if time.monotonic() - self._start < self.delay:
                return
            self._bar = (NotebookBar if in_notebook() else TerminalBar)(self.description, self.total)
        self._bar.update(completed)

    def __exit__(self, *exc) -> Literal[False]:
        if self._bar is not None:
            self._bar.stop()
        return False


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython's ZMQ shell, also Colab's subclass of it); IPython is not
    imported to find out."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return shell is not None and any(cls.__name__ == "ZMQInteractiveShell" for cls in type(shell).__mro__)


class TerminalBar:
    """rich's bar on standard error, removed when done."""

    def __init__(self, description, total):
        from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeRemainingColumn
        self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                 TimeRemainingColumn(), transient=True)
        self._bar.start()
        self._task = self._bar.add_task(description, total=total)

    def update(self, completed):
        self._bar.update(self._task, completed=completed)

    def stop(self):
        self._bar.stop()


class NotebookBar:
    """An HTML ``<progress>`` bar with the percentage and the time left, redrawn in place through an IPython
    display handle (no widgets needed) at most every NOTEBOOK_REFRESH seconds, cleared when done."""

    def __init__(self, description, total):
        from IPython.display import HTML, display
        self._html, self.description, self.total = HTML, description, total
        self._start, self._shown = time.monotonic(), -float("inf")
        self._handle = display(self._render(0.0), display_id=True)

    def update(self, completed):
        now = time.monotonic()
        if now - self._shown >= NOTEBOOK_REFRESH:
            self._handle.update(self._render(completed))
            self._shown = now

    def stop(self):
        self._handle.update(self._html(""))

    def _render(self, completed):
        fraction = min(max(completed / self.total, 0.0), 1.0) if self.total > 0 else 1.0
        elapsed = time.monotonic() - self._start
        left = f", {elapsed * (1 - fraction) / fraction:.0f} s left" if fraction > 0 else ""
        return self._html(f"<div>{escape(self.description)} <progress value='{fraction:.3f}' max='1'></progress> "
                          f"{100 * fraction:.0f}%{left}</div>")
