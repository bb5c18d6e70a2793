"""Constrained forward dynamics by Gauss's principle of least constraint (Yao Wenli, "Modelling multi-rigid-body
systems by Gauss's principle of least constraint in generalized coordinates" (2016)).

At a given instant, with q and v fixed, the true acceleration minimizes the Gauss function (003, eq. 5)

    G(a) = ½ (a − a_free)ᵀ M (a − a_free),      a_free = M⁻¹ (τ − c(q, v)),

over the accelerations the constraints admit, J a = γ. Lagrange's equations with multipliers,
M a = τ − c + Jᵀ λ (004, eq. 6.1), are its stationarity conditions.

Solve (robust to redundant constraints). With the Cholesky factor M = L Lᵀ and z = Lᵀ a the Gauss function is
½ |z − z_free|², a least-distance problem: z = z_free + B⁺ (γ − B z_free), B = J L⁻ᵀ. B⁺ is the Moore–Penrose
inverse from the singular value decomposition of B, with singular values below ``rcond`` · σ_max treated as zero,
so dependent rows (a planar four-bar closed in 3D, a loop over-described by Connect + Align) do not make the
system singular: the accelerations are unique and the multipliers are the minimum-norm ones, Jᵀλ = M (a − a_free).
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ._equality_rows import least_constraint


class GaussSolver:
    """Gauss's principle for the mass matrix M (nv × nv) and constraint Jacobian J (m × nv) at one state.

    ``solve(a_free, gamma)`` gives the constrained acceleration and the multipliers; ``compliance()`` the matrix K
    (nv × nv) with δa = K δQ: the acceleration response to an extra generalized force δQ with J a = γ still held
    (used by the contact problem). ``rank`` is the number of independent constraint rows.
    """

    def __init__(self, M, J, rcond=1e-10):
        self.J = np.ascontiguousarray(J, dtype=float)
        self.L = cholesky(M)
        self.Linv = np.linalg.inv(self.L)  # small nv: the explicit triangular inverse is cheap and stable
        # B⁺ (nv × m) and the orthonormal basis of B's row space (rank × nv, z coordinates) of B = J L⁻ᵀ
        self.B_pinv, self.row_space = least_constraint(np.ascontiguousarray(self.Linv.T), self.J.reshape(-1, len(M)),
                                                       rcond)
        self.rank = self.row_space.shape[0]

    def solve(self, a_free, gamma):
        """(a, λ): the minimizer of G subject to J a = γ, and the minimum-norm multipliers, Jᵀλ = M (a − a_free)."""
        dz = self.B_pinv @ (gamma - self.J @ a_free)  # B z_free = J L⁻ᵀ Lᵀ a_free
        return a_free + self.Linv.T @ dz, self.B_pinv.T @ dz

    def compliance(self):
        """K = L⁻ᵀ (I − P) L⁻¹ (nv × nv), P the projector onto B's row space: M⁻¹ restricted to J δa = 0."""
        N = np.eye(self.L.shape[0]) - self.row_space.T @ self.row_space
        return self.Linv.T @ N @ self.Linv

    def multipliers(self, a, a_free, Q_extra):
        """Minimum-norm λ with Jᵀλ = M (a − a_free) − Q_extra (Q_extra: other constraint forces, e.g. contact)."""
        dz = self.L.T @ (a - a_free) - self.Linv @ Q_extra
        return self.B_pinv.T @ dz


def cholesky(M):
    """L (nv × nv, lower) with M = L Lᵀ; ModelError if M is not positive definite."""
    try:
        return np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        raise ModelError("mass matrix is not positive definite (check body inertias)") from None


def free_compliance(M):
    """K = M⁻¹ = L⁻ᵀ L⁻¹ (nv × nv), the compliance without constraints (the matrix :meth:`GaussSolver.compliance`
    restricts)."""
    L_inv = np.linalg.inv(cholesky(M))
    return L_inv.T @ L_inv
