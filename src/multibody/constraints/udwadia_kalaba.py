"""The Udwadia–Kalaba explicit equation of constrained motion (an independent check on :mod:`.gauss`).

Udwadia & Kalaba (1992) write the solution of Gauss's minimization in closed form with the symmetric square root
of the mass matrix:

    a = a_free + M^{-1/2} (J M^{-1/2})⁺ (γ − J a_free),

the constraint force being Q_c = M (a − a_free). M^{-1/2} comes from the eigendecomposition of M and ⁺ is the
Moore–Penrose inverse (numpy.linalg.pinv with relative cutoff ``rcond``), so redundant constraints are handled too.
"""
from __future__ import annotations

import numpy as np


def udwadia_kalaba(M, a_free, J, gamma, rcond=1e-10):
    """(a, Q_c): constrained accelerations (nv,) and the generalized constraint force Q_c = M (a − a_free) (nv,)."""
    w, Q = np.linalg.eigh(M)
    M_inv_half = (Q / np.sqrt(w)) @ Q.T
    a = a_free + M_inv_half @ np.linalg.pinv(J @ M_inv_half, rcond=rcond) @ (gamma - J @ a_free)
    return a, M @ (a - a_free)
