"""EquationsOfMotion: LaTeX, statics, linearization, and the generated numeric callables."""
import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

import multibody as mb
from multibody import ModelError
from multibody import symbolic as sym
from symbolic_systems import hinged_rod

t = dynamicsymbols._t


@pytest.fixture(scope="module")
def pendulum():
    """A compound pendulum (rod of mass m, mass center at distance a from the pivot) with a pivot torque T."""
    N, B, C, body, (theta, w, m, a, J) = hinged_rod()
    g, T = sp.symbols("g T", positive=True)
    eom = sym.kane(N, [theta], [w], [w - theta.diff(t)], [body], loads=[(C, -m * g * N.y), (B, T * N.z)],
                   inputs=[T])
    return eom, (theta, w, m, a, J, g, T)


def test_statics_gives_the_equilibrium_equation(pendulum):
    eom, (theta, w, m, a, J, g, T) = pendulum
    assert sp.simplify(eom.statics()[0] - (T - m * g * a * sp.cos(theta))) == 0


def test_linearize_gives_the_small_oscillation_frequency(pendulum):
    eom, (theta, w, m, a, J, g, T) = pendulum
    A, B = eom.linearize({theta: -sp.pi / 2, w: 0, T: 0}, inputs=[T])
    omega2 = m * g * a / (J + m * a**2)
    assert sp.simplify(A - sp.Matrix([[0, 1], [-omega2, 0]])) == sp.zeros(2, 2)
    assert sp.simplify(B - sp.Matrix([0, 1 / (J + m * a**2)])) == sp.zeros(2, 1)
    with pytest.raises(ValueError, match="operating_point"):
        eom.linearize({theta: 0})


def test_to_latex_shows_the_equations(pendulum):
    latex = pendulum[0].to_latex()
    assert latex.startswith("\\begin{aligned}") and "\\dot{\\theta}" in latex and "\\dot{w}" in latex


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_numeric_callables_match_the_expressions(pendulum, backend):
    eom, (theta, w, m, a, J, g, T) = pendulum
    values = {m: 2.0, a: 0.3, J: 0.05, g: 9.81}
    f = eom.to_numeric(values, inputs=lambda time, q, u: [np.sin(time)], backend=backend)
    q, u, time = np.array([0.4]), np.array([-1.3]), 0.7
    X = 0.05 + 2.0 * 0.09
    Y = np.sin(time) - 2.0 * 9.81 * 0.3 * np.cos(0.4)
    assert np.allclose(f.mass_matrix(q, u, time), [[X]]) and np.allclose(f.forcing(q, u, time), [Y])
    assert np.allclose(f.rhs(time, np.r_[q, u]), [u[0], Y / X])
    assert np.allclose(f.qdot(q, u), u)


def test_numeric_reports_missing_parameters_and_bad_states(pendulum):
    eom, (theta, w, m, a, J, g, T) = pendulum
    with pytest.raises(ModelError, match="T, a"):
        eom.to_numeric({m: 1.0, J: 1.0, g: 9.81}, backend="numpy")
    f = eom.to_numeric({m: 1.0, J: 1.0, g: 9.81, a: 0.5, T: 0.0}, backend="numpy")
    with pytest.raises(ValueError, match="x: expected shape"):
        f.rhs(0.0, [0.0])
    with pytest.raises(ValueError, match="x\\[0\\] = nan"):
        f.rhs(0.0, [np.nan, 0.0])
    with pytest.raises(ValueError, match="backend"):
        eom.to_numeric({m: 1.0, J: 1.0, g: 9.81, a: 0.5, T: 0.0}, backend="fortran")


def test_equations_of_motion_is_immutable(pendulum):
    eom = pendulum[0]
    with pytest.raises(AttributeError):
        eom.mass_matrix = sp.Matrix([[1]])
    with pytest.raises(TypeError):
        eom.mass_matrix[0, 0] = 1


def test_tree_statics_is_the_generalized_gravity():
    model, symbols = sym.symbolic_chain(2)
    eom = sym.equations_of_motion(model, torques=True)
    values = {symbols["g"][0]: 9.81, **{s: 0.5 for k in ("m", "l", "Ixx", "Iyy", "Izz") for s in symbols[k]}}
    numeric = mb.Model("c", gravity=(0, 0, -9.81))
    numeric.add(mb.Body("a", mass=0.5, com=(0.25, 0, 0), inertia=np.diag([0.5] * 3)), joint=mb.Revolute((1, 0, 0)))
    numeric.add(mb.Body("b", mass=0.5, com=(0.25, 0, 0), inertia=np.diag([0.5] * 3)), parent="a",
                joint=mb.Revolute((0, 1, 0)), placement=mb.Transform(translation=(0.5, 0, 0)))
    q = np.array([0.3, -0.8])
    state = dict(zip(eom.q, q))
    gravity = np.array(eom.statics().xreplace(values).xreplace({tau: 0 for tau in eom.inputs}).xreplace(state),
                       dtype=float).ravel()
    assert np.allclose(gravity, -mb.generalized_gravity(numeric, q), atol=1e-12)
