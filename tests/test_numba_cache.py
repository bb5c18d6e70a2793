"""numba's cache of multibody's kernels after an edit of a helper in another file: numba's own locators load the old
machine code (the trap), multibody's KernelSourcesLocator recompiles."""
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from multibody import _numba_cache
from multibody._numba_cache import KERNEL_SOURCES, KernelSourcesLocator

KERNEL = """
from numba import njit
from .helper import twice

@njit(cache=True)
def kernel(x):
    return twice(x) + 1.0
"""
HELPER = """
from numba import njit

@njit(inline="always")
def twice(x):
    return {factor} * x
"""
# A process that runs the kernel of package `pkg` under `root`, with KernelSourcesLocator serving `pkg` if asked.
RUN = """
import sys
sys.path.insert(0, {root!r})
if {ours}:
    from multibody._numba_cache import KernelSourcesLocator, register
    class PackageLocator(KernelSourcesLocator):
        root = {package!r}
        sources = ("kernel.py", "helper.py")
    register(PackageLocator)
from pkg.kernel import kernel
print(kernel(1.0))
"""


def run_kernel(root: Path, ours: bool) -> float:
    code = RUN.format(root=str(root), package=str(root / "pkg"), ours=ours)
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}  # the in-tree __pycache__
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return float(result.stdout)


@pytest.mark.parametrize("ours, after_edit", [(False, 3.0), (True, 4.0)], ids=["numba-locator", "multibody-locator"])
def test_edit_of_an_inlined_helper_in_another_file(tmp_path, ours, after_edit):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernel.py").write_text(KERNEL)
    (package / "helper.py").write_text(HELPER.format(factor=2.0))
    assert run_kernel(tmp_path, ours) == 3.0
    (package / "helper.py").write_text(HELPER.format(factor=3.0))
    # numba's stamp is the kernel.py's only: the cached 2x + 1 runs again (the trap this module closes)
    assert run_kernel(tmp_path, ours) == after_edit


def test_a_kernel_numba_cannot_cache_runs_with_numbas_warning(tmp_path):
    # numba cannot cache code that reads the threading layer's thread count (a dynamic global): it warns, naming the
    # file, through the locator, which must answer as numba's own do
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    kernel = KERNEL.replace("twice(x) + 1.0", "twice(x) + 1.0 + 0.0 * numba.get_num_threads()")
    (package / "kernel.py").write_text(kernel.replace("from numba import njit", "import numba\nfrom numba import njit"))
    (package / "helper.py").write_text(HELPER.format(factor=2.0))
    code = RUN.format(root=str(tmp_path), package=str(package), ours=True)
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) == 3.0
    assert "Cannot cache compiled function" in result.stderr and "kernel.py" in result.stderr


def test_kernel_sources_are_the_modules_holding_numba_code_and_their_constants():
    package = Path(_numba_cache.PACKAGE)
    sources = {path.relative_to(package).as_posix(): path.read_text() for path in package.rglob("*.py")}
    imports_numba = {name for name, text in sources.items() if re.search(r"^\s*(import|from) numba\b", text, re.M)}
    imports_numba.discard("_numba_cache.py")
    assert set(KERNEL_SOURCES) >= imports_numba
    # the modules whose constants (UPPER_CASE names) a kernel module imports: their values are compiled in
    for name in imports_numba:
        for dots, module, names in re.findall(r"^from (\.+)([\w.]*) import \(?([^)\n]*(?:\n[^)\n]*)*?)\)?$",
                                              sources[name], re.M):
            if re.search(r"\b[A-Z][A-Z0-9_]+\b", names):
                base = Path(name).parents[len(dots) - 1]
                target = (base / module.replace(".", "/")).as_posix()
                assert f"{target}.py" in KERNEL_SOURCES or f"{target}/__init__.py" in sources, (name, target)
    assert all(name in sources for name in KERNEL_SOURCES)


def test_multibody_kernels_use_the_locator_and_other_code_does_not(tmp_path):
    from numba import njit
    from multibody.dynamics import _core

    def elsewhere(x):
        return x
    locator = _core.aba._cache._impl.locator
    assert isinstance(locator, KernelSourcesLocator)
    assert locator.get_source_stamp()[1] == KernelSourcesLocator.sources_stamp()
    assert locator.get_cache_path() == KernelSourcesLocator.from_function(_core.aba.py_func, _core.__file__)\
        ._inner.get_cache_path()
    assert not isinstance(njit(cache=True)(elsewhere)._cache._impl.locator, KernelSourcesLocator)


def test_stamp_changes_with_a_kernel_source_only(tmp_path):
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("x = 1\n")

    class Locator(KernelSourcesLocator):
        root = str(tmp_path)
        sources = ("a.py", "b.py")
    before = Locator.sources_stamp()
    Locator._stamps.clear()
    (tmp_path / "c.py").write_text("x = 2\n")
    assert Locator.sources_stamp() == before
    Locator._stamps.clear()
    (tmp_path / "b.py").write_text("x = 2\n")
    assert Locator.sources_stamp() != before


def test_a_copy_of_multibody_recompiles_after_an_edit_of_a_kernel_source_only(tmp_path):
    """End to end on a real kernel (Lemke's, a few seconds to compile) of a copy of the package, as an editable
    install: a comment added to cli.py loads it from the cache, one added to model/joints.py recompiles it."""
    import shutil
    copy = tmp_path / "multibody"
    shutil.copytree(_numba_cache.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    code = "import numpy as np; from multibody.constraints.lcp import lemke; lemke(np.eye(2), -np.ones(2))"
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tmp_path)

    def compiles() -> bool:
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                                cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        return "multibody: compiling" in result.stderr
    assert compiles()
    with open(copy / "cli.py", "a") as f:
        f.write("# an edit\n")
    assert not compiles()
    with open(copy / "model" / "joints.py", "a") as f:
        f.write("# an edit\n")
    assert compiles()


def test_unknown_numba_internals_fall_back_to_numba_with_one_warning():
    # a numba whose locator list is no list: multibody's locator stays out, numba's own serve, said once
    code = ("import warnings; warnings.simplefilter('always')\n"
            "from numba.core import caching\n"
            "caching.CacheImpl._locator_classes = tuple(caching.CacheImpl._locator_classes)\n"
            "import multibody.constraints.lcp as lcp; print(type(lcp._pivot._cache._impl.locator).__name__)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() in ("UserProvidedCacheLocator", "InTreeCacheLocator")
    assert result.stderr.count("falls back to numba's own source stamps") == 1, result.stderr


def test_an_unreadable_kernel_source_falls_back_with_one_warning(tmp_path):
    class Locator(KernelSourcesLocator):
        root = os.path.dirname(_numba_cache.__file__)
        sources = (str(tmp_path),)  # a directory: open() fails
    _numba_cache._warned = False
    with pytest.warns(RuntimeWarning, match="falls back to numba's own source stamps"):
        assert Locator.from_function(lambda: None, _numba_cache.__file__) is None


def test_read_only_sources_cache_where_numba_would(monkeypatch, tmp_path):
    """An install whose __pycache__ cannot be written (site-packages): numba's user-wide cache, as without us."""
    from numba.core import caching
    from multibody.dynamics import _core
    monkeypatch.setattr(caching.config, "CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def read_only(self):
        raise PermissionError("read-only")
    monkeypatch.setattr(caching.InTreeCacheLocator, "ensure_cache_path", read_only)
    locator = KernelSourcesLocator.from_function(_core.aba.py_func, _core.__file__)
    assert isinstance(locator._inner, caching.UserWideCacheLocator)
    assert locator.get_cache_path().startswith(str(tmp_path))
