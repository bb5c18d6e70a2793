"""The documentation site builds without a warning (mkdocs --strict, API reference from the docstrings), documents
every name the package exports, and its gallery shows every example with a small picture."""
import importlib
import os
import pathlib
import re
import subprocess
import sys

import pytest

import multibody as mb
from multibody import symbolic as sym
from multibody.io.files import EXAMPLES

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for package in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(package)  # the "docs" extra (also in "test")
    folder = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(folder)], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


def documented_objects(site):
    """The objects of the API reference's headings (their anchors are their dotted paths)."""
    return [resolve(path) for page in site.glob("api/**/*.html")
            for path in re.findall(r'id="(multibody[\w.]*)"', page.read_text(encoding="utf-8"))]


def resolve(path):
    """The object at a dotted path: attributes from the package down (``multibody.simulate`` is the function), else
    the longest importable module and its attributes (``multibody.symbolic.kane.kane``: the module kane, which the
    function of that name hides, and its function)."""
    parts = path.split(".")
    for cut in [1] + list(range(len(parts), 1, -1)):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name, None)
        if target is not None:
            return target
    return None


@pytest.mark.slow
def test_the_api_reference_documents_every_exported_name(site):
    documented = documented_objects(site)
    exported = {name: getattr(mb, name) for name in dir(mb) if not name.startswith("_")
                and not isinstance(getattr(mb, name), type(mb))}
    exported.update({f"symbolic.{name}": getattr(sym, name) for name in sym.__all__})
    missing = [name for name, value in exported.items() if not any(value is d for d in documented)]
    assert missing == [], "add them to a page of docs/api/"
    model_page = (site / "api" / "model" / "index.html").read_text(encoding="utf-8")
    assert "Attach <code>body</code> to <code>parent</code>" in model_page and ":class:" not in model_page


def test_the_gallery_shows_every_example_with_a_small_picture():
    text = (DOCS / "gallery.md").read_text(encoding="utf-8")
    names = [p.stem for p in EXAMPLES.iterdir() if p.suffix in (".yaml", ".urdf")]
    names += [p.stem for p in (ROOT / "examples").glob("*.py")]
    for name in names:
        assert f"## {name}\n" in text and f"![{name}](gallery/{name}.png)" in text, name
        assert 5_000 < (DOCS / "gallery" / f"{name}.png").stat().st_size < 60_000, name
