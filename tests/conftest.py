"""Shared test setup: make tests/oracles.py importable from every test folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
