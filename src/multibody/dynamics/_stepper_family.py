"""The fixed-step schemes on the state x = (q, v), each written once and compiled for every loop that steps it.

    RK4      k₁ … k₄ at x, x + h/2 k₁, x + h/2 k₂, x + h k₃;   x⁺ = x + h/6 (k₁ + 2k₂ + 2k₃ + k₄)
             (the classical Runge–Kutta method: Kutta 1901; Hairer, Nørsett, Wanner, *Solving ODEs I*, II.1)
    Euler    v⁺ = v + h v̇(q, v),   q⁺ = q ⊕ h v⁺
             (semi-implicit, MuJoCo's "Euler"; symplectic when the mass matrix is constant)

:func:`stepper_family` compiles them with a target's decorator around what the target supplies: its rates
ẋ = f(t, x), its q ⊕ h v (exact on each joint's manifold, or q + h v where q̇ = v) and its quaternion
normalization. The targets are the compiled single-run loop (:func:`multibody.simulate.steppers.fixed_step`), the
vectorized lanes (:mod:`multibody.simulate.lockstep`, a flat state of the runs' q then v, lanes last), the GPU's
rollout (:mod:`._gpu_kernels`, numba-cuda device functions) and the Python loop
(:mod:`multibody.simulate.fixed_step`, no decorator), so that they agree to round-off: the steps are the same
lines, only the rates ẋ they call are each target's.

x, y (nx,) and K (≥ 4, nx) are the caller's arrays: no step allocates, so the same function runs in a CUDA thread.
:func:`on_the_manifold` makes the integrate and normalize of a tree from a target's configuration family.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple


class StepperFamily(NamedTuple):
    """The schemes for one target: ``rk4_step`` and ``euler_step``, each (args, t, x, h, nq, K, y) -> None with the
    new state written to y (x left as it was, the stage rates in K's first rows)."""

    rk4_step: Any
    euler_step: Any


def stepper_family(compile: Callable, rates: Callable, integrate: Callable, normalize: Callable,
                   accelerations: Callable | None = None) -> StepperFamily:
    """RK4 and semi-implicit Euler compiled with ``compile`` around the target's

    - ``rates(args, t, x, dx)``: dx = ẋ = (q̇, v̇) at time t [s] and state x (``args``: the target's model, forces
      and work arrays, passed through untouched);
    - ``integrate(args, q, v, h, out)``: out = q ⊕ h v, the configuration moved along the velocity v for h [s];
    - ``normalize(args, x)``: the quaternions of x renormalized in place (nothing where there are none);
    - ``accelerations(args, t, x, dx)``: dx[nq:] = v̇ alone, which is all semi-implicit Euler takes of ẋ (default
      ``rates``; a target whose Euler step needs no q̇ — no events located on the step's rates — skips it).
    """
    accelerations = rates if accelerations is None else accelerations

    @compile
    def rk4_step(args, t, x, h, nq, K, y):
        """y = x(t + h) by the classical Runge–Kutta method (the module's RK4); K[:4] = k₁ … k₄."""
        n, half = x.shape[0], 0.5 * h
        # k₁ = f(t, x)
        rates(args, t, x, K[0])
        # k₂ = f(t + h/2, x + h/2 k₁)
        for i in range(n):
            y[i] = x[i] + half * K[0, i]
        rates(args, t + half, y, K[1])
        # k₃ = f(t + h/2, x + h/2 k₂)
        for i in range(n):
            y[i] = x[i] + half * K[1, i]
        rates(args, t + half, y, K[2])
        # k₄ = f(t + h, x + h k₃)
        for i in range(n):
            y[i] = x[i] + h * K[2, i]
        rates(args, t + h, y, K[3])
        # x⁺ = x + h/6 (k₁ + 2k₂ + 2k₃ + k₄)
        for i in range(n):
            y[i] = x[i] + h / 6.0 * (K[0, i] + 2.0 * K[1, i] + 2.0 * K[2, i] + K[3, i])
        normalize(args, y)

    @compile
    def euler_step(args, t, x, h, nq, K, y):
        """y = x(t + h) by semi-implicit Euler (the module's Euler); K[0, nq:] = v̇(t, x) (K[0] = ẋ(t, x) with the
        default ``accelerations``)."""
        accelerations(args, t, x, K[0])
        # v⁺ = v + h v̇(q, v)
        for i in range(nq, x.shape[0]):
            y[i] = x[i] + h * K[0, i]
        # q⁺ = q ⊕ h v⁺
        integrate(args, x[:nq], y[nq:], h, y[:nq])

    return StepperFamily(rk4_step, euler_step)


def on_the_manifold(compile: Callable, configuration: Any) -> tuple[Callable, Callable]:
    """(integrate, normalize) for :func:`stepper_family` on a tree whose ``topology`` is args[0]: q ⊕ h v exact on
    each joint's manifold and the quaternions renormalized, by ``configuration`` (a
    :func:`~._configuration.configuration_family` of the same target), compiled with ``compile``."""
    integrate_q, normalize_quaternions = configuration.integrate, configuration.normalize_quaternions

    @compile
    def integrate(args, q, v, h, out):
        """out = q ⊕ h v on each joint's manifold."""
        integrate_q(args[0], q, v, h, out)

    @compile
    def normalize(args, x):
        """The quaternions of x = (q, v) renormalized."""
        normalize_quaternions(args[0], x)

    return integrate, normalize
