"""Analyses around the equations of motion M(q) v̇ + c(q, v) = τ + Q(q, v): inverse dynamics along a trajectory,
static equilibrium, linearization and natural frequencies, and inverse kinematics.

Q(q, v) is the generalized force of the model's force elements (springs, dampers). Configurations are varied
in local coordinates, q = q* ⊕ δ (:func:`multibody.integrate`), so quaternion joints are handled: δ has nv
entries.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg, optimize

from ..dynamics import aba, body_pose, crba, generalized_gravity, integrate, jacobian, rnea
from ..dynamics._inputs import as_state
from ..errors import SimulationError
from ..spatial import rotation_to_quat
from .forces import elements_force


def inverse_dynamics(trajectory):
    """Generalized forces (T, nv) that produce the trajectory's motion besides its force elements:
    τ = M(q) a + c(q, v) − Q(q, v), by the RNEA at every sample."""
    model = trajectory.model
    tau = rnea(model, trajectory.q, trajectory.v, trajectory.a)
    return tau - np.array([elements_force(model, q, v) for q, v in zip(trajectory.q, trajectory.v)])


def _static_residual(model, q, tau):
    """g(q) − Q(q, 0) − τ: the generalized force left unbalanced at rest (zero at a static equilibrium)."""
    return generalized_gravity(model, q) - elements_force(model, q, np.zeros(model.nv)) - tau


def static_equilibrium(model, q_guess=None, torque=None, tol=1e-10):
    """A configuration q near ``q_guess`` where the model rests: g(q) = Q(q, 0) + τ (Kane's statics
    equations F_r = 0, source document 000). ``torque`` (nv,) is a constant applied generalized force.

    Raises SimulationError if the Newton-type solve (scipy.optimize.root) does not converge.
    """
    q_star = model.neutral() if q_guess is None else as_state(q_guess, model.nq, "q_guess")
    tau = np.zeros(model.nv) if torque is None else as_state(torque, model.nv, "torque")
    result = optimize.root(lambda d: _static_residual(model, integrate(model, q_star, d), tau),
                           np.zeros(model.nv), method="hybr", tol=tol)
    q = integrate(model, q_star, result.x)
    residual = np.abs(_static_residual(model, q, tau)).max(initial=0.0)
    scale = max(1.0, np.abs(generalized_gravity(model, q_star)).max(initial=0.0))
    if not result.success or residual > 1e3 * tol * scale:
        raise SimulationError(f"static_equilibrium: no equilibrium found near the guess ({result.message.strip()}; "
                              f"largest unbalanced force {residual:.3g})")
    return q


def _jacobian_fd(function, size, eps):
    """Central-difference Jacobian of ``function`` at 0, columns ∂f/∂δ_j."""
    columns = []
    for j in range(size):
        step = np.zeros(size)
        step[j] = eps
        columns.append((function(step) - function(-step)) / (2.0 * eps))
    return np.array(columns).T


def linearize(model, q, v=None, torque=None, eps=1e-6):
    """State-space matrices of ẋ ≈ A x + B u about (q, v, τ), with x = [δ; δv] and u = δτ.

    δ (nv,) are local coordinates about q (δ̇ = δv exactly for scalar joints, to first order about v = 0 for
    quaternion joints); A = [[0, I], [∂v̇/∂δ, ∂v̇/∂v]], B = [[0], [M(q)⁻¹]]. Derivatives of the
    articulated-body algorithm by central differences with step ``eps``.
    """
    q = as_state(q, model.nq, "q")
    v = np.zeros(model.nv) if v is None else as_state(v, model.nv, "v")
    tau = np.zeros(model.nv) if torque is None else as_state(torque, model.nv, "torque")
    nv = model.nv

    def accel(qq, vv):
        return aba(model, qq, vv, tau + elements_force(model, qq, vv))

    A = np.zeros((2 * nv, 2 * nv))
    A[:nv, nv:] = np.eye(nv)
    A[nv:, :nv] = _jacobian_fd(lambda d: accel(integrate(model, q, d), v), nv, eps)
    A[nv:, nv:] = _jacobian_fd(lambda dv: accel(q, v + dv), nv, eps)
    B = np.vstack([np.zeros((nv, nv)), np.linalg.inv(crba(model, q))])
    return A, B


def natural_frequencies(model, q, eps=1e-6, tol=1e-8):
    """Undamped natural frequencies ω [rad/s] (ascending) and mass-normalized mode shapes (nv, nv, columns)
    about a static equilibrium q: K φ = ω² M φ with M = M(q) and stiffness K = ∂(g − Q)/∂δ.

    Raises ValueError if q is not an equilibrium or the equilibrium is unstable (K not positive semidefinite).
    """
    q = as_state(q, model.nq, "q")
    tau0 = np.zeros(model.nv)
    residual = np.abs(_static_residual(model, q, tau0)).max(initial=0.0)
    scale = max(1.0, np.abs(generalized_gravity(model, model.neutral())).max(initial=0.0))
    if residual > tol * scale:
        raise ValueError(f"natural_frequencies: q is not a static equilibrium (unbalanced generalized force "
                         f"{residual:.3g}); find one with static_equilibrium()")
    K = _jacobian_fd(lambda d: _static_residual(model, integrate(model, q, d), tau0), model.nv, eps)
    K = 0.5 * (K + K.T)
    omega_squared, modes = linalg.eigh(K, crba(model, q))
    if omega_squared[0] < -tol * max(1.0, abs(omega_squared[-1])):
        raise ValueError(f"natural_frequencies: the equilibrium is unstable (ω² = {omega_squared[0]:.4g}); "
                         f"use the eigenvalues of linearize()'s A")
    return np.sqrt(np.clip(omega_squared, 0.0, None)), modes


def _rotation_error(R_target, R):
    """Rotation vector φ (world axes) with exp([φ]×) R = R_target."""
    w, x, y, z = rotation_to_quat(R_target @ R.T)
    if w < 0:
        w, x, y, z = -w, -x, -y, -z
    sine = np.sqrt(x * x + y * y + z * z)
    angle = 2.0 * np.arctan2(sine, w)
    return np.zeros(3) if sine < 1e-15 else angle / sine * np.array([x, y, z])


def inverse_kinematics(model, name, position=None, rotation=None, q0=None, point=(0.0, 0.0, 0.0), damping=1e-3,
                       tol=1e-10, max_iter=500):
    """A configuration placing ``point`` of body/frame ``name`` at ``position`` (world, [m]) and/or the
    frame's axes at ``rotation`` (3×3, frame → world), by damped least squares (Levenberg–Marquardt):
    δ = Jᵀ (J Jᵀ + λ² I)⁻¹ e, q ← q ⊕ δ, with e the position and rotation-vector errors.

    Raises SimulationError if the error does not fall below ``tol`` within ``max_iter`` iterations
    (an unreachable target).
    """
    if position is None and rotation is None:
        raise ValueError("inverse_kinematics: give a target position, rotation, or both")
    q = model.neutral() if q0 is None else as_state(q0, model.nq, "q0").copy()
    point = np.asarray(point, dtype=float)
    rows = ([0, 1, 2] if rotation is not None else []) + ([3, 4, 5] if position is not None else [])
    for _ in range(max_iter):
        R, p = body_pose(model, q, name)
        error = []
        if rotation is not None:
            error.append(_rotation_error(np.asarray(rotation, dtype=float), R))
        if position is not None:
            error.append(np.asarray(position, dtype=float) - (p + R @ point))
        e = np.concatenate(error)
        if np.linalg.norm(e) < tol:
            return q
        J = jacobian(model, q, name, point)[rows]
        q = integrate(model, q, J.T @ np.linalg.solve(J @ J.T + damping**2 * np.eye(len(rows)), e))
    raise SimulationError(f"inverse_kinematics: target for '{name}' not reached in {max_iter} iterations "
                          f"(remaining error {np.linalg.norm(e):.3g}); it may be out of reach")
