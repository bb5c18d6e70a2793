"""Exact angles: "pi/2" in DH tables and model files gives exact rotations, and symbolic equations without
round-off coefficients; anything but an expression of π is refused without being evaluated."""
import numpy as np
import pytest
import sympy as sp

import multibody as mb
from multibody import symbolic as sym
from multibody.io.files import example_path, model_from_dict
from multibody.model.exact import parse_number


@pytest.mark.parametrize("text, value", [
    ("pi/2", sp.pi / 2), ("-pi/4", -sp.pi / 4), ("3*pi/4", 3 * sp.pi / 4), (" 0.5 * pi ", sp.pi / 2),
    ("90 deg", sp.pi / 2), ("-45°", -sp.pi / 4), ("0.25", sp.Rational(1, 4)), ("2*(pi - 1)", 2 * sp.pi - 2),
    ("+7", sp.Integer(7))])
def test_expressions_of_pi_are_read_exactly(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text, reason", [
    ("pi**2", "'Pow'"), ("__import__('os')", "'Call'"), ("x", "'x'"), ("1/0", "finite"), ("1e400", "'Constant'"),
    ("", "not an expression"), ("True", "'Constant'"), ("pi*1e300*1e300", "finite"), ("1" * 101, "longer"),
    ("lambda: 0", "'Lambda'"), ("[1]", "'List'"), ("pi/2; import os", "not an expression")])
def test_anything_else_is_refused_without_evaluating_it(text, reason):
    with pytest.raises(ValueError, match=reason):
        parse_number(text)


def test_an_exact_quarter_turn_is_exact_in_the_rotation():
    assert np.array_equal(mb.rotation_about((1, 0, 0), sp.pi / 2), [[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    assert mb.rotation_about((1, 0, 0), np.pi / 2)[1, 1] != 0  # the float π/2: cos = 6.1e-17
    np.testing.assert_allclose(mb.rotation_about((1, 2, 3), sp.Rational(7, 10)), mb.rotation_about((1, 2, 3), 0.7),
                               atol=1e-15)


ROW = {"theta": 0, "d": 0.3, "a": 0.2, "alpha": "pi/2", "mass": 1.0, "com": [0.1, 0, 0], "inertia": [0.1, 0.2, 0.3]}


def test_dh_rows_take_text_and_sympy_angles_and_agree_with_floats():
    exact = mb.Model.from_dh([ROW, {**ROW, "alpha": sp.pi / 2, "theta": "-90 deg"}])
    floats = mb.Model.from_dh([{**ROW, "alpha": np.pi / 2}, {**ROW, "alpha": np.pi / 2, "theta": -np.pi / 2}])
    assert set(np.unique(exact.placements[1].rotation)) <= {-1.0, 0.0, 1.0}
    q = np.array([0.3, -0.7])
    np.testing.assert_allclose(mb.crba(exact, q), mb.crba(floats, q), atol=1e-15)


@pytest.mark.parametrize("value", ["pi/x", "heavy", [1]])
def test_a_bad_dh_value_names_the_row_field_and_value(value):
    with pytest.raises(mb.ModelError, match=r"DH row 1: field 'alpha' must be a number or an expression of pi"):
        mb.Model.from_dh([{**ROW, "alpha": value}])


def test_model_files_take_expressions_of_pi_wherever_a_number_goes():
    data = {"name": "tilted", "bodies": [{
        "name": "a", "joint": "revolute", "mass": "1/2", "inertia": [0.1, 0.1, 0.1],
        "placement": {"rpy": ["pi/2", 0, "-pi/2"]}}], "frames": [
        {"name": "f", "body": "a", "placement": {"axis_angle": [0, 0, 1, "180 deg"]}}],
        "initial": {"q": ["pi/4"]}}
    setup = mb.io.file_from_dict(data)
    assert setup.model.bodies[0].mass == 0.5 and setup.q0[0] == float(sp.pi / 4)
    assert set(np.unique(setup.model.placements[0].rotation)) <= {-1.0, 0.0, 1.0}
    assert np.array_equal(setup.model.frames["f"][1].rotation, np.diag([-1.0, -1.0, 1.0]))


def test_a_bad_expression_in_a_model_file_names_the_field_and_value():
    data = {"bodies": [{"name": "a", "joint": "revolute", "mass": 1.0, "inertia": [0.1, 0.1, 0.1],
                        "placement": {"rpy": [0, "pi**2", 0]}}]}
    with pytest.raises(mb.ModelError, match=r"arm.yaml: bodies\[0\].placement.rpy: expected a list of 3 numbers, "
                                            r"got 'pi\*\*2' \(text must be an expression of pi"):
        model_from_dict(data, "arm.yaml")


def test_the_six_axis_arm_equations_have_no_round_off_coefficients():
    model = mb.load(example_path("six_axis_arm"))
    eom = sym.equations_of_motion(model)
    tiny = [x for M in (eom.mass_matrix, eom.forcing) for entry in M for x in entry.atoms(sp.Float) if abs(x) < 1e-12]
    assert tiny == []  # was 935 such coefficients (down to 4.9e-37) with alpha: 1.5707963267948966
    assert sum(sp.count_ops(entry) for entry in eom.mass_matrix) < 10_000  # was 26,607 operations
