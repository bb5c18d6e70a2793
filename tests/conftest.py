"""Shared test setup.

Tests are imported with ``--import-mode=importlib`` (pyproject.toml), so test files may share names across
folders. Helper modules are imported by plain name: tests/oracles.py (Pinocchio twin, random models) and the
helpers inside each test folder, whose folders are put on sys.path here (helper names must stay unique).
"""
import os
import sys

# GNU OpenMP, numba's threading layer here (the batched rnea, crba and energy of dynamics/_core.py and
# _quantities.py), keeps its workers spinning for a while after each parallel region; with a test worker per core
# they took the other worker's core: the suite took 7:32 against 3:47 with passive waits (a clean clone, -n 2, two
# cores). Set before numba loads the OpenMP library; a value already in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_here = os.path.dirname(os.path.abspath(__file__))
for _folder in [_here] + sorted(os.path.join(_here, d) for d in os.listdir(_here)):
    if os.path.isdir(_folder) and not os.path.basename(_folder).startswith((".", "__")) and _folder not in sys.path:
        sys.path.insert(0 if _folder == _here else len(sys.path), _folder)
