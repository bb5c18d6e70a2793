"""A progress bar that appears only for runs longer than about a second (rich, on standard error)."""
from __future__ import annotations

import sys
import time


class Progress:
    """Report progress of a task of size ``total``; ``enabled`` None shows the bar only on a terminal.

    Use as a context manager and call :meth:`update` with the amount completed so far.
    """

    def __init__(self, total, description, enabled=None, delay=1.0):
        self.total = float(total)
        self.description = description
        self.enabled = sys.stderr.isatty() if enabled is None else bool(enabled)
        self.delay = delay
        self._start = time.monotonic()
        self._bar = None
        self._task = None

    def __enter__(self):
        return self

    def update(self, completed):
        if not self.enabled:
            return
        if self._bar is None:
            if time.monotonic() - self._start < self.delay:
                return
            from rich.progress import BarColumn, Progress as RichProgress, TextColumn, TimeRemainingColumn
            self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(),
                                     TextColumn("{task.percentage:>3.0f}%"), TimeRemainingColumn(),
                                     transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.description, total=self.total)
        self._bar.update(self._task, completed=completed)

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()
        return False
