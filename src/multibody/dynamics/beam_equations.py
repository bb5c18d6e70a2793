"""The equations of a flexible beam in its floating frame B: the deformed positions of its Gauss-point masses and
Kane's equations M(e) u̇ = f + [N; F; 0], u = (ω, v, ė), with the foreshortening that gives the geometric stiffening.
The beam and its discretization (:class:`~multibody.flexible.Beam`, :class:`~multibody.flexible.DiscretizedBeam`) and
the symbols are described in :mod:`multibody.flexible.beam`."""
from __future__ import annotations

import numpy as np


def _skew_rows(r):
    """(N, 3, 3) matrices [r]× of the rows of r (N, 3)."""
    S = np.zeros(r.shape[:-1] + (3, 3))
    S[..., 0, 1], S[..., 0, 2], S[..., 1, 2] = -r[..., 2], r[..., 1], -r[..., 0]
    S[..., 1, 0], S[..., 2, 0], S[..., 2, 1] = r[..., 2], -r[..., 1], r[..., 0]
    return S


def deformed_kinematics(fb, e, e_dot, stiffening=True):
    """Positions and relative motion of the Gauss-point masses in B.

    Returns r (N, 3) [m], the partial velocities Ψ = ∂r/∂e (N, 3, n), the relative velocity ṙ = Ψ ė (N, 3)
    [m/s] and the velocity-product part of the relative acceleration Ψ̇ ė (N, 3) [m/s²], so r̈ = Ψ ë + Ψ̇ ė.
    """
    e, e_dot = _elastic(fb, e, "e"), _elastic(fb, e_dot, "e_dot")
    r = fb.r0 + fb.Phi @ e
    Psi = fb.Phi.copy()
    Psi_dot_e_dot = np.zeros_like(r)
    if stiffening:
        # foreshortening: r_x −= ½ eᵀG e, so ∂r_x/∂e −= (G e)ᵀ and r̈_x gains −ėᵀ G ė
        Ge = fb.G @ e
        r[:, 0] -= 0.5 * Ge @ e
        Psi[:, 0, :] -= Ge
        Psi_dot_e_dot[:, 0] = -(fb.G @ e_dot) @ e_dot
    return r, Psi, Psi @ e_dot, Psi_dot_e_dot


def floating_frame_equations(fb, e, e_dot, omega, velocity=(0.0, 0.0, 0.0), gravity=(0.0, 0.0, 0.0),
                             stiffening=True):
    """Kane's equations of the beam in its floating frame B: M(e) u̇ = f + [N; F; 0], u = (ω, v, ė).

    Parameters
    ----------
    e, e_dot : (n,) elastic coordinates and rates.
    omega : (3,) angular velocity of B in B axes [rad/s]; velocity : (3,) velocity of B's origin, B axes [m/s].
    gravity : (3,) uniform field (gravitational acceleration) in B axes [m/s²].
    stiffening : keep the foreshortening (geometric stiffening); False gives linear floating-frame theory.

    Returns
    -------
    M : (6 + n, 6 + n) symmetric mass matrix, rows [angular; linear; elastic].
    f : (6 + n,) generalized forces: gravity, minus the velocity-product inertia terms, minus K e.
    [N; F] : the wrench on the beam about B's origin, B axes, to be added to f[:6] by the caller.
    """
    w = _vector3(omega, "omega")
    vel, g = _vector3(velocity, "velocity"), _vector3(gravity, "gravity")
    r, Psi, r_dot, Psi_dot_e_dot = deformed_kinematics(fb, e, e_dot, stiffening)
    n = fb.n
    # partial velocities of each mass (doc 000 eqs. 2–3): V = v + ω × r + Ψ ė  →  P = [−[r]×, 1, Ψ]
    P = np.empty((r.shape[0], 3, 6 + n))
    P[:, :, :3] = -_skew_rows(r)
    P[:, :, 3:6] = np.eye(3)
    P[:, :, 6:] = Psi
    # velocity-product acceleration (doc 001 eq. 3): ω × v + ω × (ω × r) + 2 ω × ṙ + Ψ̇ ė, with ω × x = [ω]× x
    W = _skew_rows(w)
    bias = W @ vel + (r @ W.T) @ W.T + 2.0 * r_dot @ W.T + Psi_dot_e_dot
    # F_r* + F_r = 0 (doc 000 eq. 14): Σ m Pᵀ (P u̇ + bias) = Σ m Pᵀ g − K e
    mP = fb.mass[:, None, None] * P
    M = np.tensordot(mP, P, axes=([0, 1], [0, 1]))
    f = np.tensordot(mP, g - bias, axes=([0, 1], [0, 1]))
    f[6:] -= fb.K @ _elastic(fb, e, "e")
    # cross-sections turning rigidly with B about x: inertia Jx = ρJ·L, Euler term −ω × (Jx ω_x b_x)
    Jx = fb.beam.polar_inertia * fb.beam.length
    M[0, 0] += Jx
    f[:3] -= W @ [Jx * w[0], 0.0, 0.0]
    return M, f


def momentum_and_energy(fb, e, e_dot, omega, velocity=(0.0, 0.0, 0.0), stiffening=True):
    """Linear momentum (3,) [kg·m/s] and angular momentum about B's origin (3,) [kg·m²/s], both in B axes,
    kinetic energy [J] and elastic energy ½ eᵀ K e [J] of the beam."""
    w, vel = _vector3(omega, "omega"), _vector3(velocity, "velocity")
    r, _, r_dot, _ = deformed_kinematics(fb, e, e_dot, stiffening)
    V = vel + np.cross(w, r) + r_dot
    Jx = fb.beam.polar_inertia * fb.beam.length
    linear = fb.mass @ V
    angular = fb.mass @ np.cross(r, V) + [Jx * w[0], 0.0, 0.0]
    kinetic = 0.5 * fb.mass @ np.einsum("ga,ga->g", V, V) + 0.5 * Jx * w[0] ** 2
    e = _elastic(fb, e, "e")
    return linear, angular, kinetic, 0.5 * e @ fb.K @ e


def _elastic(fb, x, name):
    arr = np.asarray(x, dtype=float)
    if arr.shape != (fb.n,):
        raise ValueError(f"{name}: expected shape ({fb.n},) (the beam's elastic coordinates), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: must be finite, got non-finite entries at {np.flatnonzero(~np.isfinite(arr)).tolist()}")
    return arr


def _vector3(x, name):
    arr = np.asarray(x, dtype=float)
    if arr.shape != (3,):
        raise ValueError(f"{name}: expected shape (3,), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: must be finite, got {arr.tolist()}")
    return arr
