"""Shared test setup.

Tests are imported with ``--import-mode=importlib`` (pyproject.toml), so test files may share names across
folders. Helper modules are imported by plain name: tests/oracles.py (Pinocchio twin, random models) and the
helpers inside each test folder, whose folders are put on sys.path here (helper names must stay unique).
"""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
for _folder in [_here] + sorted(os.path.join(_here, d) for d in os.listdir(_here)):
    if os.path.isdir(_folder) and not os.path.basename(_folder).startswith((".", "__")) and _folder not in sys.path:
        sys.path.insert(0 if _folder == _here else len(sys.path), _folder)
