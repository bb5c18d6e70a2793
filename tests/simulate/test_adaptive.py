"""The adaptive methods DOPRI5 and DOP853 (multibody.simulate.adaptive), one step for both loops: the compiled loop and
the Python loop (multibody.simulate.adaptive_solver) take the same steps; DOP853 takes scipy's steps; the dense
output and the solution against analytic ones."""
import numpy as np
import pytest
from scipy import integrate

import multibody as mb
from multibody.simulate.adaptive_solver import AdaptiveSolver

from sim_models import floating_tree, hanging_chain


@pytest.mark.parametrize("make", [lambda: hanging_chain(7, swing=0.5), floating_tree], ids=["chain7", "floating_tree"])
@pytest.mark.parametrize("method", ["RK45", "DOP853"])
def test_compiled_and_python_loops_take_the_same_steps(make, method):
    """The same scheme, step-size control and dense output in both loops: the same steps, and states that agree to
    round-off (the rates of the two loops differ in their last bits only)."""
    model, q0, v0 = make()
    tau = np.linspace(-0.5, 0.5, model.nv)
    t_eval = np.linspace(0.0, 1.0, 41)
    options = dict(t_end=1.0, t_eval=t_eval, method=method, rtol=1e-9, atol=1e-9, torque=tau)
    fast = mb.simulate(model, q0, v0, **options)
    slow = mb.simulate(model, q0, v0, **options, compiled=False)
    assert fast.info["compiled"] and "compiled" not in slow.info
    assert fast.info["steps"] == slow.info["steps"] > 20 and fast.info["nfev"] == slow.info["nfev"]
    np.testing.assert_allclose(slow.q, fast.q, rtol=0, atol=1e-13)
    np.testing.assert_allclose(slow.v, fast.v, rtol=0, atol=1e-13 * max(1.0, np.abs(fast.v).max()))


@pytest.mark.parametrize("method", ["RK45", "DOP853"])
def test_the_python_loop_matches_scipys_solver_on_a_chain(method):
    """An oracle: scipy's solve_ivp (its own DOP853) on the chain's ẋ = (v, ABA(q, v, τ)) at a tighter tolerance."""
    model, q0, v0 = hanging_chain(5, swing=0.5)
    tau = np.linspace(-0.5, 0.5, model.nv)
    t_eval = np.linspace(0.0, 1.0, 21)
    ours = mb.simulate(model, q0, v0, t_end=1.0, t_eval=t_eval, method=method, rtol=1e-10, atol=1e-10, torque=tau,
                       compiled=False)
    rates = lambda t, x: np.concatenate([x[5:], mb.aba(model, x[:5], x[5:], tau)])  # noqa: E731
    ref = integrate.solve_ivp(rates, (0.0, 1.0), np.concatenate([q0, v0]), method="DOP853", t_eval=t_eval,
                              rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.q, ref.y[:5].T, rtol=0, atol=1e-8)
    np.testing.assert_allclose(ours.v, ref.y[5:].T, rtol=0, atol=1e-8 * np.abs(ref.y[5:]).max())


def kepler(t, y):
    """A Kepler orbit (μ = 1): y = (x, y, ẋ, ẏ)."""
    r3 = np.hypot(y[0], y[1]) ** 3
    return np.array([y[2], y[3], -y[0] / r3, -y[1] / r3])


ECCENTRIC = np.array([0.4, 0.0, 0.0, np.sqrt(1.6 / 0.4)])  # periapsis of an orbit of eccentricity 0.6, period 2π


def steps(solver):
    """The times of the steps of an OdeSolver run to its end, and the states there."""
    times, states = [solver.t], [solver.y.copy()]
    while solver.status == "running":
        solver.step()
        times.append(solver.t)
        states.append(solver.y.copy())
    assert solver.status == "finished"
    return np.array(times), np.array(states)


def test_dop853_takes_scipys_steps():
    """DOP853's error norm and step rules are scipy's: from the same first step, the same steps on an eccentric
    orbit (to the round-off of the error estimate, a difference of nearly equal sums that scipy adds in another
    order: 1e-9 of a step; another rule would change them by percents)."""
    ours = AdaptiveSolver(kepler, 0.0, ECCENTRIC, 2 * np.pi, method="DOP853", rtol=1e-9, atol=1e-9)
    first = ours.h
    t, y = steps(ours)
    t_ref, y_ref = steps(integrate.DOP853(kepler, 0.0, ECCENTRIC, 2 * np.pi, rtol=1e-9, atol=1e-9, first_step=first))
    assert len(t) == len(t_ref) > 30
    np.testing.assert_allclose(t, t_ref, rtol=1e-8, atol=0)
    np.testing.assert_allclose(y, y_ref, rtol=0, atol=1e-8)


@pytest.mark.parametrize("method", ["RK45", "DOP853"])
def test_a_period_of_an_eccentric_orbit_returns_to_its_start(method):
    """After one period the orbit is back at its start, to the tolerance asked."""
    t, y = steps(AdaptiveSolver(kepler, 0.0, ECCENTRIC, 2 * np.pi, method=method, rtol=1e-11, atol=1e-11))
    assert t[-1] == 2 * np.pi
    np.testing.assert_allclose(y[-1], ECCENTRIC, rtol=0, atol=2e-8)


@pytest.mark.parametrize("method, order", [("RK45", 4), ("DOP853", 7)])
def test_dense_output_meets_the_steps_and_follows_the_solution(method, order):
    """The continuous extension equals the step's end states at its ends and follows the exact cosine between
    them to its order: the error of one long step of y'' = −y shrinks as h^(order + 1)."""
    oscillator = lambda t, y: np.array([y[1], -y[0]])  # noqa: E731
    errors = []
    for h in (0.4, 0.2):
        solver = AdaptiveSolver(oscillator, 0.0, np.array([1.0, 0.0]), h, method=method, rtol=1.0, atol=1.0)
        solver.step()
        assert solver.t == h
        dense = solver.dense_output()
        np.testing.assert_allclose(dense(0.0), [1.0, 0.0], rtol=0, atol=1e-15)
        np.testing.assert_allclose(dense(h), solver.y, rtol=0, atol=1e-15)
        times = np.array([0.3 * h, 0.7 * h])
        between = dense(times)  # (state entries, times)
        errors.append(np.abs(between - [np.cos(times), -np.sin(times)]).max())
    assert np.log2(errors[0] / errors[1]) > order + 0.5, errors


def test_a_vector_field_that_turns_non_finite_fails_with_the_time():
    """Rates that leave the finite numbers: the solver shrinks the step until it cannot and fails, saying why."""
    blowing = lambda t, y: np.array([np.nan if t > 0.5 else 1.0])  # noqa: E731
    solver = AdaptiveSolver(blowing, 0.0, np.array([0.0]), 1.0, method="DOP853", rtol=1e-8, atol=1e-8)
    while solver.status == "running":
        message = solver.step()
    assert solver.status == "failed" and "non-finite" in message and 0.4 < solver.t <= 0.5
