"""The Meijaard et al. (2007) benchmark bicycle built as a Model (examples/bicycle_model.py): table 2's eigenvalues
from mb.linearize on the constraint manifold and from sym.equations_of_motion + linearize, the weave and capsize
speeds, and the two routes against each other between the table's speeds."""
import importlib.util
import time
from pathlib import Path

import numpy as np
import pytest

_path = Path(__file__).resolve().parents[2] / "examples" / "bicycle_model.py"
_spec = importlib.util.spec_from_file_location("bicycle_model_example", _path)
bicycle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bicycle)

SPEEDS = (0.0, 2.0, 4.0, 4.29238, 6.02426, 8.0)
TABLE = {v: bicycle.sorted_eigenvalues(ev) for v, ev in zip(bicycle.MEIJAARD_SPEEDS, bicycle.MEIJAARD_EIGENVALUES)}


@pytest.fixture(scope="module")
def model():
    return bicycle.benchmark_bicycle()


@pytest.fixture(scope="module")
def symbolic(model):
    start = time.perf_counter()
    eom, A_of_v = bicycle.symbolic_lean_steer_matrix(model)
    return eom, A_of_v, time.perf_counter() - start


def test_model_has_three_degrees_of_freedom_and_one_dependent_coordinate(symbolic):
    eom, _, seconds = symbolic
    assert len(eom.u) == 3 and len(eom.dependent_speeds) == 5
    assert [str(q.func) for q in eom.dependent_coordinates] == ["q_4"]     # the rear frame's pitch
    assert seconds < 60.0


@pytest.mark.parametrize("speed", SPEEDS)
def test_numeric_and_symbolic_linearizations_give_table_2(model, symbolic, speed):
    numeric = bicycle.sorted_eigenvalues(bicycle.numeric_lean_steer_eigenvalues(model, speed))
    derived = bicycle.sorted_eigenvalues(np.linalg.eigvals(symbolic[1](speed)))
    if speed in TABLE:
        np.testing.assert_allclose(numeric, TABLE[speed], rtol=0, atol=1e-8)
        np.testing.assert_allclose(derived, TABLE[speed], rtol=0, atol=1e-11)
    else:  # between the table's speeds: the two routes agree
        np.testing.assert_allclose(numeric, derived, rtol=0, atol=1e-8)


def test_weave_and_capsize_speeds(model, symbolic):
    weave, capsize = bicycle.weave_and_capsize_speeds(lambda v: np.linalg.eigvals(symbolic[1](v)))
    # the paper's values to its six decimals
    assert abs(weave - bicycle.WEAVE_SPEED) < 1e-6 and abs(capsize - bicycle.CAPSIZE_SPEED) < 1e-6
    # the numeric linearization puts them at the same speeds: the signs change across them
    below, above = (bicycle.numeric_lean_steer_eigenvalues(model, v) for v in (weave - 1e-4, weave + 1e-4))
    assert below[np.abs(below.imag) > 0].real.max() > 0 > above[np.abs(above.imag) > 0].real.max()
    below, above = (bicycle.numeric_lean_steer_eigenvalues(model, v) for v in (capsize - 1e-4, capsize + 1e-4))
    capsize_mode = (lambda ev: ev.real[np.argmin(np.abs(ev))])
    assert capsize_mode(below) < 0 < capsize_mode(above)
