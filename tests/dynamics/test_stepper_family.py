"""The fixed-step schemes written once (multibody.dynamics._stepper_family): RK4 and semi-implicit Euler against their
closed forms on a linear system, and the same functions compiled by numba giving the same numbers bit for bit."""
import math

import numpy as np
from numba import njit

from multibody.dynamics._stepper_family import stepper_family

# a damped oscillator q̈ = −ω² q − 2ζω q̇ as x = (q, v), ẋ = A x
OMEGA, ZETA = 3.0, 0.1
A = np.array([[0.0, 1.0], [-OMEGA**2, -2.0 * ZETA * OMEGA]])


def rates(args, t, x, dx):
    """dx = A x + (0, sin t) (a forcing, so that the stage times matter)."""
    dx[0] = x[1]
    dx[1] = -OMEGA**2 * x[0] - 2.0 * ZETA * OMEGA * x[1] + math.sin(t)


def integrate(args, q, v, h, out):
    for i in range(q.shape[0]):
        out[i] = q[i] + h * v[i]


def normalize(args, x):
    return


PYTHON = stepper_family(lambda function: function, rates, integrate, normalize)
COMPILED = stepper_family(njit, njit(rates), njit(integrate), njit(normalize))


def test_rk4_step_is_the_fourth_order_taylor_polynomial_of_a_linear_system():
    """For ẋ = A x + f(t), RK4's step is x⁺ = Σ_{k ≤ 4} (hA)^k / k! x (Hairer, Nørsett, Wanner, II.1) plus the
    forcing carried through the stages (its closed form below, stage by stage)."""
    x, h, t = np.array([0.3, -1.2]), 0.05, 0.0
    K, y = np.empty((4, 2)), np.empty(2)
    PYTHON.rk4_step(None, t, x, h, 1, K, y)
    hA = h * A
    taylor = sum(np.linalg.matrix_power(hA, k) / math.factorial(k) for k in range(5)) @ x
    f = lambda s: np.array([0.0, math.sin(s)])  # noqa: E731
    # the forcing through the stages: k₁ = A x + f₀, k₂ = A(x + h/2 k₁) + f½, k₃ = A(x + h/2 k₂) + f½, k₄ = A(x + h k₃) + f₁
    g1 = f(t)
    g2 = f(t + h / 2) + A @ (h / 2 * g1)
    g3 = f(t + h / 2) + A @ (h / 2 * g2)
    g4 = f(t + h) + A @ (h * g3)
    forced = h / 6 * (g1 + 2 * g2 + 2 * g3 + g4)
    np.testing.assert_allclose(y, taylor + forced, rtol=0, atol=1e-15)


def test_euler_step_kicks_the_velocity_then_drifts_the_position():
    """Semi-implicit Euler: v⁺ = v + h v̇(t, q, v), q⁺ = q + h v⁺ (not the explicit q + h v)."""
    x, h, t = np.array([0.3, -1.2]), 0.05, 0.7
    K, y = np.empty((1, 2)), np.empty(2)
    PYTHON.euler_step(None, t, x, h, 1, K, y)
    v_next = x[1] + h * (-OMEGA**2 * x[0] - 2.0 * ZETA * OMEGA * x[1] + math.sin(t))
    np.testing.assert_allclose(y, [x[0] + h * v_next, v_next], rtol=0, atol=1e-15)


def test_the_numba_compiled_schemes_give_the_python_ones_bit_for_bit():
    """The same lines compiled by numba (the compiled loop's target) and run as Python: identical over 200 steps."""
    h = 0.01
    for step in ("rk4_step", "euler_step"):
        xs = [np.array([0.3, -1.2]), np.array([0.3, -1.2])]
        for k in range(200):
            for x, family in zip(xs, (PYTHON, COMPILED)):
                K, y = np.empty((4, 2)), np.empty(2)
                getattr(family, step)(None, k * h, x, h, 1, K, y)
                x[:] = y
        assert np.array_equal(xs[0], xs[1]), step
