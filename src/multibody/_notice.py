"""One-line notices on stderr for work that turns out slow: said once the work has taken a few seconds, never for
quick work (``with notice_if_slow("generating code for X and Y"): ...``)."""
from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def notice_if_slow(text: str, seconds: float = 3.0) -> Iterator[None]:
    """Print ``multibody: {text}…`` on stderr if the block is still running after ``seconds``."""
    timer = threading.Timer(seconds, lambda: print(f"multibody: {text}…", file=sys.stderr, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
