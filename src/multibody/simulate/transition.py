"""Exact one-step transition Jacobians of the fixed-step methods (as MuJoCo's ``mjd_transitionFD``, but analytical).

One step maps (q, v) and a torque τ held over it to (q⁺, v⁺); its Jacobians come from the analytical derivatives of
the forward dynamics (:func:`~.analysis.acceleration_derivatives`, Carpentier & Mansard, RSS 2018) chained through the
step's formulas. Configurations are varied in the local coordinates of :func:`multibody.integrate` on both sides:
q = q* ⊕ δ and q⁺ = q⁺* ⊕ δ⁺ (δ, δ⁺ with nv entries), the convention of ``mjd_transitionFD``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics import aba
from ..dynamics._inputs import as_state
from ..errors import ModelError
from .analysis import acceleration_derivatives
from .forces import elements_force

if TYPE_CHECKING:
    from ..model import Model

METHODS = ("Euler", "RK4")


def _motion_cross_matrix(xi):
    """ad_ξ, the 6 × 6 matrix of m ↦ ξ ×m m = [ω × m_ω; ω × m_v + v × m_ω] for ξ = [ω; v] (RBDA eq. 2.31)."""
    def skew(x):
        return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])
    ad = np.zeros((6, 6))
    ad[:3, :3] = ad[3:, 3:] = skew(xi[:3])
    ad[3:, :3] = skew(xi[3:])
    return ad


def integrate_differentials(model: Model, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Ad, J), each (nv, nv): the differentials of q⁺ = q ⊕ ξ (:func:`multibody.integrate` with v dt = ξ) in local
    coordinates, δ⁺ = Ad δ + J dξ for q ⊕ δ and ξ + dξ. Joint by joint, with the joint's motion subspace S (its
    velocities as a body twist S ξ, the Lie algebra of its configuration group): Ad = S⁺ exp(−ad_{Sξ}) S, the adjoint
    of exp(−S ξ), and J = S⁺ Σₖ (−ad_{Sξ})ᵏ/(k + 1)! S, the right Jacobian of the exponential, both by their series
    (summed to round-off); the identity for joints whose motion commutes with itself (revolute, prismatic,
    cylindrical)."""
    nv = model.nv
    Ad, J = np.eye(nv), np.eye(nv)
    for joint in model.joints:
        if joint.rate_is_velocity:
            continue
        s = model.v_slice(cast(str, joint.name))  # (a model's joints are named)
        S = joint.motion_subspace()
        X = -_motion_cross_matrix(S @ xi[s])
        term, exp_sum, jacobian_sum = np.eye(6), np.eye(6), np.eye(6)
        for k in range(1, 60):
            term = term @ X / k
            exp_sum += term
            jacobian_sum += term / (k + 1)
            if np.abs(term).max() < 1e-18:
                break
        S_plus = np.linalg.pinv(S)
        Ad[s, s], J[s, s] = S_plus @ exp_sum @ S, S_plus @ jacobian_sum @ S
    return Ad, J


def transition_derivatives(model: Model, q: ArrayLike, v: ArrayLike, torque: ArrayLike | None = None,
                           dt: float = 1e-3, method: str = "Euler", eps: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    """Jacobians of one fixed step of a tree: (A, B) with [δq⁺; δv⁺] ≈ A [δq; δv] + B δτ.

    Parameters
    ----------
    q, v : the state before the step; torque : τ (nv,) held over the step (default 0) [N·m or N]; dt : step [s].
    method : "Euler", the semi-implicit Euler step v⁺ = v + dt v̇(q, v), q⁺ = q ⊕ dt v⁺ (MuJoCo's "Euler"), or "RK4",
        the classical Runge–Kutta step on (q, v) (MuJoCo's "RK4"; joints whose q̇ = v only: revolute, prismatic,
        cylindrical).
    eps : difference step of the point-to-point springs and gyrostats among the force elements (the rest is exact,
        :func:`~.analysis.acceleration_derivatives`).

    Returns
    -------
    A (2 nv, 2 nv) and B (2 nv, nv), δq and δq⁺ in the local coordinates of :func:`multibody.integrate` about q and
    about the nominal q⁺ (the layout of MuJoCo's ``mjd_transitionFD``). The model's force elements are included.
    """
    if method not in METHODS:
        raise ValueError(f"transition_derivatives: method must be one of {METHODS}, got {method!r}")
    from ..constraints.types import equality_constraints
    if equality_constraints(model):
        raise ModelError(f"transition_derivatives: '{model.name}' has constraints; the transition Jacobians cover "
                         f"trees only")
    q, v = as_state(q, model.nq, "q"), as_state(v, model.nv, "v")
    tau = np.zeros(model.nv) if torque is None else as_state(torque, model.nv, "torque")
    if q.ndim != 1 or v.ndim != 1 or tau.ndim != 1:
        raise ValueError("transition_derivatives: one state at a time (q (nq,), v (nv,), torque (nv,))")
    h, nv = float(dt), model.nv
    if method == "Euler":
        return _euler(model, q, v, tau, h, eps)
    others = [j.name for j in model.joints if not j.rate_is_velocity]
    if others:
        raise ModelError(f"transition_derivatives: method 'RK4' steps q with q̇ = v, which joints {others} do not "
                         f"have; use method 'Euler'")
    return _rk4(model, q, v, tau, h, eps, nv)


def _euler(model, q, v, tau, h, eps):
    """Semi-implicit Euler: δv⁺ = h ∂v̇ + δv (+ h M⁻¹ δτ), δq⁺ = Ad δq + h J δv⁺ (:func:`integrate_differentials` at
    ξ = h v⁺)."""
    nv = model.nv
    dq, dv, Minv = acceleration_derivatives(model, q, v, tau, eps)
    v_next = v + h * aba(model, q, v, tau + elements_force(model, q, v))
    Ad, J = integrate_differentials(model, h * v_next)
    dvn = np.hstack([h * dq, np.eye(nv) + h * dv])
    A = np.vstack([np.hstack([Ad, np.zeros((nv, nv))]) + h * J @ dvn, dvn])
    B = np.vstack([h * h * J @ Minv, h * Minv])
    return A, B


def _rk4(model, q, v, tau, h, eps, nv):
    """Classical RK4 on x = (q, v), f = (v, v̇): each stage's Jacobian F dx_k (+ [0; M⁻¹] for τ) chained through
    x_k = x + c h k_{k−1}, then A = I + h/6 (dk₁ + 2 dk₂ + 2 dk₃ + dk₄) and B likewise."""
    x = np.concatenate([q, v])
    dx, dtau = np.eye(2 * nv), np.zeros((2 * nv, nv))
    xs, sum_x, sum_tau = x, np.zeros((2 * nv, 2 * nv)), np.zeros((2 * nv, nv))
    for weight, next_step in ((1.0, 0.5), (2.0, 0.5), (2.0, 1.0), (1.0, None)):
        qs, vs = xs[:nv], xs[nv:]
        ddq, ddv, Minv = acceleration_derivatives(model, qs, vs, tau, eps)
        F = np.block([[np.zeros((nv, nv)), np.eye(nv)], [ddq, ddv]])
        k = np.concatenate([vs, aba(model, qs, vs, tau + elements_force(model, qs, vs))])
        dk, dk_tau = F @ dx, F @ dtau + np.vstack([np.zeros((nv, nv)), Minv])
        sum_x += weight * dk
        sum_tau += weight * dk_tau
        if next_step is not None:
            xs, dx, dtau = x + next_step * h * k, np.eye(2 * nv) + next_step * h * dk, next_step * h * dk_tau
    return np.eye(2 * nv) + h / 6.0 * sum_x, h / 6.0 * sum_tau
