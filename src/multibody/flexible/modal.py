"""Natural frequencies and mode shapes of free, clamped and rotating beams.

For a beam at rest: K φ = ω² M φ. For a clamped beam whose frame B spins at a constant rate ω about its
origin, the small vibrations about the undeformed beam obey (Coriolis, centrifugal softening and the
geometric stiffening of the centrifugal tension; the proceedings "Dynamics of Multibody Systems — Theory,
Computational Method and Application" (1992), eqs. 3 and 10–14)

    M ë + C ė + (K + K_G − K_Ω) e = 0,    C = 2 Σ m Φᵀ[ω]×Φ,   K_Ω = −Σ m Φᵀ[ω]×²Φ,
    K_G = ∫ P(s) (Φ'_vᵀΦ'_v + Φ'_wᵀΦ'_w) ds,   P(s) = ρA (ω_y² + ω_z²) [R (L − s) + (L² − s²)/2],

P the centrifugal tension of a beam of root radius R (the classical rotating-beam equation; e.g. Hodges &
Rutkowski, AIAA J. 19(11), 1981). Rod modes (axial) shift to √(ω_i² − Ω²) (the 1992 proceedings, eq. 14).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import eig, eigh
from scipy.optimize import brentq

from ..errors import ModelError
from ..dynamics.beam_equations import _skew_rows, _vector3


def natural_frequencies(fb, count=None):
    """Natural frequencies ω (k,) [rad/s], ascending, and mass-normalized mode shapes (n, k) of a
    :class:`~multibody.flexible.beam.DiscretizedBeam` at rest (rigid-body modes of a free beam give ω ≈ 0)."""
    count = fb.n if count is None else _count(count, fb.n)
    lam, shapes = eigh(fb.K, fb.M, subset_by_index=[0, count - 1])
    return np.sqrt(np.clip(lam, 0.0, None)), shapes


def euler_bernoulli_frequencies(beam, count=3, boundary="clamped", EI=None):
    """Exact bending frequencies [rad/s] of the continuous uniform beam: ω_i = (β_i L)² √(EI / (ρA L⁴)), with
    cos βL cosh βL = −1 (clamped–free; β_1 L = 1.8751, 4.6941, 7.8548, ...) or = +1 (free–free, elastic
    modes; β_1 L = 4.7300, 7.8532, ...). ``EI`` defaults to the beam's EIv [N·m²]."""
    sign = {"clamped": -1.0, "free": 1.0}.get(boundary)
    if sign is None:
        raise ModelError(f"euler_bernoulli_frequencies: boundary must be 'clamped' or 'free', got {boundary!r}")
    # one root in each interval (kπ, (k + 1)π), k = 0, 1, ... (from k = 1 for free–free: βL = 0 is rigid)
    f = lambda x: np.cos(x) * np.cosh(x) - sign  # noqa: E731
    start = 0 if sign < 0 else 1
    roots = [brentq(f, k * np.pi, (k + 1) * np.pi, xtol=1e-14)
             for k in range(start, start + _count(count, 10**6))]
    EI = beam.EIv if EI is None else EI
    return np.array(roots) ** 2 * np.sqrt(EI / (beam.mass_per_length * beam.length**4))


def centrifugal_stiffness(fb, omega):
    """Geometric stiffness K_G (n, n) [N/m] of the centrifugal tension of a beam spinning at ω (3,) [rad/s]
    (B axes) about B's origin: K_G = ∫ P(s) (Φ'_vᵀΦ'_v + Φ'_wᵀΦ'_w) ds."""
    w = _vector3(omega, "omega")
    beam, s = fb.beam, fb.s
    # P(s) = ∫_s^L ρA (ω_y² + ω_z²)(R + σ) dσ : the x component of the centrifugal load outboard of s
    P = beam.mass_per_length * (w[1] ** 2 + w[2] ** 2) * (beam.root * (beam.length - s) + 0.5 * (beam.length**2 - s**2))
    slopes = fb.dPhi[:, 1:]
    return np.einsum("g,gai,gaj->ij", P * fb.mass / beam.mass_per_length, slopes, slopes)


def rotating_eigenvalues(fb, omega, stiffening=True):
    """Eigenvalues s (n,) of the clamped beam's small vibrations in its frame spinning at constant ω (3,)
    [rad/s], sorted by |s|: one of each pair ±s, with Im s > 0 (a vibration at frequency Im s [rad/s]) or,
    for a real pair, s > 0 (a divergence growing as e^{st}). ``stiffening=False`` drops K_G."""
    if fb.boundary != "clamped":
        raise ModelError("rotating_eigenvalues: the beam must be clamped to its rotating frame (boundary='clamped')")
    w = _vector3(omega, "omega")
    W = _skew_rows(w)
    C = 2.0 * np.einsum("g,gai,ab,gbj->ij", fb.mass, fb.Phi, W, fb.Phi)
    K_omega = -np.einsum("g,gai,ab,gbj->ij", fb.mass, fb.Phi, W @ W, fb.Phi)
    K = fb.K - K_omega + (centrifugal_stiffness(fb, w) if stiffening else 0.0)
    n = fb.n
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-np.linalg.solve(fb.M, K), -np.linalg.solve(fb.M, C)]])
    s = eig(A, right=False)
    scale = max(1.0, np.max(np.abs(s)))
    keep = (s.imag > 1e-9 * scale) | ((np.abs(s.imag) <= 1e-9 * scale) & (s.real > 0))
    s = s[keep]
    return s[np.argsort(np.abs(s))]


def _count(count, limit):
    if not isinstance(count, (int, np.integer)) or not 1 <= count <= limit:
        raise ModelError(f"count must be an integer from 1 to {limit}, got {count!r}")
    return int(count)
