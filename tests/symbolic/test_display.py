"""Showing equations of motion: a compact repr (sizes, fast), cheap trig simplification for printing, LaTeX for
notebooks with a size cap."""
import time

import numpy as np
import pytest
import sympy as sp

import multibody as mb
from multibody import symbolic as sym
from multibody.io.files import example_path
from multibody.symbolic.eom import LATEX_MAX_OPS, operations


@pytest.fixture(scope="module")
def double_pendulum():
    return sym.equations_of_motion(mb.load(example_path("double_pendulum")))


@pytest.fixture(scope="module")
def arm():
    return sym.equations_of_motion(mb.load(example_path("six_axis_arm")))


def test_operations_counts_like_count_ops_over_the_shared_graph():
    x, y = sp.symbols("x y")
    for expr in (x * y + sp.sin(x), (x + y) ** 2 * sp.cos(x * y) + 3 * x, x):
        assert operations([expr]) == sp.count_ops(expr)
    shared = sp.sin(x) * sp.cos(y) + 1
    assert operations([shared, shared ** 2]) == 2 * operations([shared]) + 1


def test_repr_gives_sizes_not_expressions_and_is_fast(arm):
    start = time.perf_counter()
    text = repr(arm)
    assert time.perf_counter() - start < 0.1  # was 11.5 s and 2.7 MB: the whole expression
    assert text.startswith("EquationsOfMotion(method='kane', n=6, q=(q_0 … q_5), mass_matrix: 6×6, ")
    assert "sin" not in text and len(text) < 200
    assert f"{operations(arm.mass_matrix):,} ops" in text


def test_printed_double_pendulum_is_trig_simplified(double_pendulum):
    simple = double_pendulum.simplified()
    assert sp.count_ops(simple.mass_matrix[0, 0]) <= 60 and "q_0" not in str(simple.mass_matrix)
    assert sp.count_ops(simple.mass_matrix) < sp.count_ops(double_pendulum.mass_matrix)
    # the same equations: equal at random states
    rng = np.random.default_rng(3)
    for _ in range(3):
        point = dict(zip([*double_pendulum.q, *double_pendulum.u], rng.normal(size=4)))
        for a, b in ((simple.mass_matrix, double_pendulum.mass_matrix), (simple.forcing, double_pendulum.forcing)):
            np.testing.assert_allclose(np.array(a.subs(point), dtype=float), np.array(b.subs(point), dtype=float),
                                       atol=1e-12)
    latex = double_pendulum.to_latex()
    assert "q_{0}" not in latex.split("&=")[2].split("\\\\")[1]  # X₀₀ is 1 + 2/3 + cos q₁ (no sin² q₀ + cos² q₀)


def test_simplification_respects_its_budget(double_pendulum):
    assert double_pendulum.simplified(max_ops=0).mass_matrix == double_pendulum.mass_matrix
    assert double_pendulum.simplified(seconds=0).forcing == double_pendulum.forcing
    assert double_pendulum.to_latex(simplify=False) != double_pendulum.to_latex()


def test_notebooks_show_small_systems_in_latex_and_summarize_large_ones(double_pendulum, arm):
    small = double_pendulum._repr_latex_()
    assert small.startswith("$$\\begin{aligned}") and small.endswith("\\end{aligned}$$")
    assert operations([*arm.mass_matrix, *arm.forcing]) > LATEX_MAX_OPS
    start = time.perf_counter()
    large = arm._repr_latex_()
    assert time.perf_counter() - start < 0.5  # 10 ms alone; the bound leaves room for a loaded machine
    assert large.startswith("$\\text{EquationsOfMotion(method='kane', n=6, q=(q\\_0 … q\\_5)")
    assert "too large to show" in large and "eom.mass\\_matrix[i, j]" in large
