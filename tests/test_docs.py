"""Every ```python block of the README and of docs/*.md runs as written: the blocks of a page in order, in one
namespace, in an empty folder. A block that deliberately does not run is marked on the line before it with
``<!-- not run: reason -->``; the reasons are few and checked here."""
import contextlib
import io
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?:<!-- not run: (?P<reason>[^\n]*?) -->\n)?```python\n(?P<code>.*?)```", re.S)
MAX_NOT_RUN = 3  # across all pages


def blocks(page):
    """(first line number, code, reason it does not run or None) of each python block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [(text[:m.start("code")].count("\n") + 1, m.group("code"), m.group("reason")) for m in BLOCK.finditer(text)]


def run_page(page):
    """Run the page's blocks in order in one namespace; returns (namespace, printed text)."""
    namespace = {"__name__": f"docs.{page.stem}"}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for line, code, reason in blocks(page):
            if reason is None:  # blank lines first: tracebacks give the page's own line numbers
                exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)
    return namespace, output.getvalue()


def check_readme(namespace, printed, folder):
    assert abs(float(printed.split()[0])) < 1e-7  # the printed energy change
    assert (folder / "arm.png").stat().st_size > 10_000 and (folder / "arm.html").stat().st_size > 10_000
    assert namespace["eom"].mass_matrix.shape == (2, 2)


CHECKS = {"README.md": check_readme}


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=lambda p: p.name)
def test_every_python_block_runs_as_written(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace, printed = run_page(page)
    CHECKS.get(page.name, lambda *args: None)(namespace, printed, tmp_path)


def test_blocks_that_do_not_run_are_few_and_say_why():
    reasons = [reason for page in PAGES for _, _, reason in blocks(page) if reason is not None]
    assert len(reasons) <= MAX_NOT_RUN and all(len(reason) > 20 for reason in reasons), reasons
    assert sum(len(blocks(page)) for page in PAGES) >= 19  # the pattern still finds them all
