"""The progress bar: shown on a terminal and in Jupyter notebooks (detected from IPython's kernel shell), not in
pipes; in a notebook an HTML bar redrawn in place and cleared when done."""
import sys
import types

import pytest

from multibody.simulate import progress
from multibody.simulate.progress import Progress, in_notebook


class ZMQInteractiveShell:  # the class name IPython's Jupyter kernel shell has
    pass


class ColabShell(ZMQInteractiveShell):
    pass


class TerminalInteractiveShell:
    pass


@pytest.fixture
def ipython(monkeypatch):
    """A stand-in IPython whose shell the test chooses, with a display that records what it shows."""
    shown = []

    class Handle:
        def update(self, html):
            shown.append(html.data)

    def display(html, display_id=False):
        assert display_id
        shown.append(html.data)
        return Handle()

    fake = types.ModuleType("IPython")
    fake.shell = None
    fake.get_ipython = lambda: fake.shell
    fake.display = types.ModuleType("IPython.display")
    fake.display.display = display
    fake.display.HTML = lambda data: types.SimpleNamespace(data=data)
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setitem(sys.modules, "IPython.display", fake.display)
    monkeypatch.setattr(progress, "NOTEBOOK_REFRESH", 0.0)
    fake.shown = shown
    return fake


def test_notebook_detection(ipython, monkeypatch):
    assert not in_notebook()  # IPython imported, no shell running
    for shell, expected in ((ZMQInteractiveShell(), True), (ColabShell(), True), (TerminalInteractiveShell(), False)):
        ipython.shell = shell
        assert in_notebook() is expected
    monkeypatch.delitem(sys.modules, "IPython")
    assert not in_notebook()  # never imports IPython to find out


def test_a_notebook_gets_an_html_bar_cleared_at_the_end(ipython):
    ipython.shell = ZMQInteractiveShell()
    with Progress(10.0, "simulating <arm>", delay=0.0) as bar:  # standard error is no terminal under pytest
        assert bar.enabled
        bar.update(5.0)
        bar.update(10.0)
    first, half, done, cleared = ipython.shown
    assert "simulating &lt;arm&gt; <progress value='0.000' max='1'></progress> 0%" in first
    assert "value='0.500'" in half and "50%" in half and "s left" in half
    assert "100%, 0 s left" in done and cleared == ""


def test_no_bar_outside_terminals_and_notebooks_or_when_disabled(ipython):
    ipython.shell = TerminalInteractiveShell()
    assert not Progress(10.0, "x").enabled  # IPython in a terminal whose standard error is redirected
    ipython.shell = ZMQInteractiveShell()
    with Progress(10.0, "x", enabled=False) as bar:
        bar.update(5.0)
    with Progress(10.0, "x", delay=60.0) as bar:  # runs shorter than the delay show nothing
        bar.update(5.0)
    assert ipython.shown == []
