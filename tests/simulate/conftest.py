"""Fixtures of the simulation tests."""
import pytest

import multibody as mb
from multibody.io.files import example_path


@pytest.fixture
def double_pendulum():
    return mb.read_model_file(example_path("double_pendulum"))
