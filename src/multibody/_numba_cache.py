"""numba's on-disk cache for multibody's kernels, stamped with all the kernel sources, not the defining file only.

numba keys a cached kernel on the source of the file that defines it. A multibody kernel also holds, compiled in,
code and constants of *other* files (``inline="always"`` helpers of ``dynamics/_spatial_kernels.py``, ``aba`` of
``dynamics/_core.py`` inlined by ``simulate/tree_rates.py``, the joint codes of ``model/joints.py``, ...), so after an
edit of one of those (a ``git pull`` on an editable install) numba would load the old machine code: wrong answers,
no warning. Here every multibody kernel's stamp is also a SHA-256 of all of :data:`KERNEL_SOURCES`: an edit of any
of them recompiles every kernel (~1 min cold), an edit of any other file (cli, viz, ...) recompiles nothing.

Where the cache files go is numba's choice, unchanged (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside the source,
else the user-wide cache for a read-only install): :class:`KernelSourcesLocator` wraps the locator numba picks.
Should numba's caching internals change, multibody warns once and numba's own locators remain.
"""
from __future__ import annotations

import hashlib
import os
import warnings
from typing import Any

from numba.core import caching

PACKAGE = os.path.dirname(os.path.abspath(__file__))

# The files whose code or constants a kernel may hold compiled in: every module importing numba, and the joint codes.
# tests/test_numba_cache.py checks this list against the package's sources.
KERNEL_SOURCES = (
    "constraints/_equality_rows.py", "constraints/_faces.py", "constraints/_kinematics.py", "constraints/_narrow.py",
    "constraints/convex.py",
    "constraints/lcp.py", "constraints/_step.py", "constraints/_contact_states.py",
    "dynamics/_algorithm_family.py", "dynamics/_batch.py", "dynamics/_claims.py", "dynamics/_compile_notice.py",
    "dynamics/_configuration.py",
    "dynamics/_core.py", "dynamics/_derivatives.py", "dynamics/_derivatives_lanes.py", "dynamics/_gpu_kernels.py",
    "dynamics/_joint_family.py",
    "dynamics/_lanes.py", "dynamics/_layout.py", "dynamics/_quantities.py", "dynamics/_spatial_family.py",
    "dynamics/_spatial_kernels.py", "dynamics/_stepper_family.py", "dynamics/_tree_factor.py", "dynamics/algorithms.py",
    "dynamics/gpu.py",
    "model/joints.py",
    "simulate/_contact_kernel.py", "simulate/actuators.py", "simulate/adaptive.py", "simulate/compiled.py",
    "simulate/dense_output.py", "simulate/events.py",
    "simulate/forces.py", "simulate/handoff.py", "simulate/lockstep.py", "simulate/steppers.py",
    "simulate/tree_rates.py",
    "symbolic/llvm_kernel.py", "symbolic/numeric.py",
)

_CacheImpl: Any = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
_CacheLocator: Any = getattr(caching, "_CacheLocator", object)
_warned = False


def _warn_once(reason: str) -> None:
    """Says, once a process, that multibody's kernels fall back to numba's own cache stamps, and why."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(f"multibody: numba's cache of the kernels falls back to numba's own source stamps ({reason}): "
                      "after an edit of a kernel helper, delete the numba cache (__pycache__/*.nbi, *.nbc, or "
                      "NUMBA_CACHE_DIR) or cached kernels may run the old code", RuntimeWarning, stacklevel=3)


class KernelSourcesLocator(_CacheLocator):
    """numba's locator for a kernel (where its cache files go), with the stamp of all the package's kernel sources.

    ``root`` is the package directory whose kernels it serves, ``sources`` its kernel files relative to ``root``.
    """

    root = PACKAGE
    sources = KERNEL_SOURCES
    _stamps: dict = {}  # (root, sources) -> SHA-256 digest, computed once a process

    def __init__(self, inner: _CacheLocator) -> None:
        self._inner = inner
        self._py_file = getattr(inner, "_py_file", "")  # (numba names it when it cannot cache a function)

    @classmethod
    def sources_stamp(cls) -> bytes:
        """SHA-256 of the kernel sources' paths and contents (an absent file counts as such, with a warning)."""
        key = (cls.root, cls.sources)
        if key not in cls._stamps:
            digest = hashlib.sha256()
            for name in cls.sources:
                digest.update(name.encode() + b"\0")
                try:
                    with open(os.path.join(cls.root, name), "rb") as f:
                        digest.update(f.read())
                except FileNotFoundError:
                    warnings.warn(f"multibody: kernel source {name} is missing from {cls.root}", RuntimeWarning)
                    digest.update(b"\0missing")
            cls._stamps[key] = digest.digest()
        return cls._stamps[key]

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        return self._inner.get_cache_path()

    def get_source_stamp(self) -> tuple:
        return self._inner.get_source_stamp(), self.sources_stamp()

    def get_disambiguator(self) -> str:
        return self._inner.get_disambiguator()

    @classmethod
    def from_function(cls, py_func, py_file: str):
        """The locator of a kernel of ``root`` (numba's first locator that fits, wrapped), None for other code."""
        if not os.path.abspath(py_file).startswith(cls.root + os.sep):
            return None
        try:
            for numba_locator in _NUMBA_LOCATORS:
                inner = numba_locator.from_function(py_func, py_file)
                if inner is not None:
                    cls.sources_stamp()
                    return cls(inner)
        except Exception as error:  # numba's locators or the sources unreadable: numba's own stamps, said once
            _warn_once(f"{type(error).__name__}: {error}")
        return None


def register(locator: type[KernelSourcesLocator]) -> None:
    """Puts ``locator`` first among numba's cache locators (once)."""
    if locator not in _CacheImpl._locator_classes:
        _CacheImpl._locator_classes = [locator, *_CacheImpl._locator_classes]


if _CacheLocator is object or not isinstance(getattr(_CacheImpl, "_locator_classes", None), list):
    _NUMBA_LOCATORS: tuple = ()
    _warn_once(f"numba {__import__('numba').__version__} has no CacheImpl._locator_classes")
else:
    _NUMBA_LOCATORS = tuple(_CacheImpl._locator_classes)
    register(KernelSourcesLocator)
