"""Impulse response of a Denavit–Hartenberg chain by 4×4 matrices (Zhang Dingguo, "Lagrange equations of
multi-rigid-body systems under external impact", §3), straight from the DH rows.

This is the second, independent implementation of M Δq̇ = B (the first is the spatial one in
:mod:`multibody.impact.impulse`); it never builds a :class:`~multibody.Model`. Notation of Zhang:

    ⁱ⁻¹Aᵢ = Rz(θᵢ) Tz(dᵢ) Tx(aᵢ) Rx(αᵢ)                 link transform (eq. 3.3); q adds to θ or d
    ⁰Aᵢ = ⁰A₁ ¹A₂ ⋯ ⁱ⁻¹Aᵢ                                pose of link frame i
    ∂ ⁱ⁻¹Aᵢ / ∂qᵢ = Φᵢ ⁱ⁻¹Aᵢ                             (eqs. 3.8–3.10; Φ acts on the left, in frame i−1,
                                                          where Rz(θ) and Tz(d) enter: Φ = [[ω]×, v; 0, 0]
                                                          for the joint's motion subspace S = [ω; v] about
                                                          or along z)
    Uᵢⱼ = ∂ ⁰Aᵢ / ∂qⱼ = ⁰Aⱼ₋₁ Φⱼ ʲ⁻¹Aᵢ  (j ≤ i), 0 (j > i)   (eq. 3.13)
    Jᵢ = ∫ r̄ r̄ᵀ dm  (4×4 pseudo-inertia, r̄ = (x, y, z, 1) in frame i)                  (eq. 3.18)
    M_ik = Σ_{j ≥ max(i,k)} Tr(U_jk J_j U_jiᵀ)                                          (eq. 3.34)
    Bᵢ = Σⱼ Σₖ F̂ⱼ⁽ᵏ⁾ᵀ Uⱼᵢ r̄ⱼ⁽ᵏ⁾   (F̂ = (P̂, 0) homogeneous, r̄ the point in frame j)     (eqs. 3.32–3.35)
    q̇⁺ = q̇⁻ + M⁻¹ B                                                                   (eq. 3.37)

Rows are the dicts of :meth:`multibody.Model.from_dh` (``theta, d, a, alpha, joint, mass, com, inertia``, com and
central inertia in link frame i). Link indices i run from 1 to n as in the document.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..model.body import Body
from ..model.dh import _REQUIRED, _row_value, dh_transform
from ..model.joints import Prismatic, Revolute
from .impulse import ImpulseResponse, solve_mass

DH_JOINTS = {"revolute": Revolute, "prismatic": Prismatic}  # a DH row's ``joint``: about or along z of frame i−1


def twist_matrix(S):
    """Φ (4 × 4) = [[ω]×, v; 0, 0] of a motion S = [ω; v] (6,): ∂A/∂q = Φ A for A moved by q S (eqs. 3.8–3.10)."""
    w, v = S[:3], S[3:]
    return np.array([[0.0, -w[2], w[1], v[0]], [w[2], 0.0, -w[0], v[1]], [-w[1], w[0], 0.0, v[2]],
                     [0.0, 0.0, 0.0, 0.0]])


def _parse(rows):
    """(joints, constants (n, 4) of θ, d, a, α, bodies) from DH rows; ModelError naming the row otherwise."""
    if len(rows) == 0:
        raise ModelError("DH table has no rows")
    joints, constants, bodies = [], [], []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise ModelError(f"DH row {i}: must be a mapping with {', '.join(_REQUIRED)}, got {row!r}")
        constants.append([_row_value(row, key, i) for key in _REQUIRED])
        kind = str(row.get("joint", "revolute")).lower()
        if kind not in DH_JOINTS:
            raise ModelError(f"DH row {i}: joint must be 'revolute' or 'prismatic', got {row.get('joint')!r}")
        joints.append(DH_JOINTS[kind]((0.0, 0.0, 1.0)))
        for key in ("mass", "com", "inertia"):
            if key not in row:
                raise ModelError(f"DH row {i}: missing field '{key}'")
        bodies.append(Body(f"link{i}", mass=row["mass"], com=row["com"], inertia=row["inertia"]))
    return joints, np.array(constants), bodies


def _joint_vector(x, n, name):
    x = np.asarray(x, dtype=np.float64)
    if x.shape != (n,):
        raise ValueError(f"{name}: expected shape ({n},) for a {n}-row DH table, got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name}: must be finite, got {x.tolist()}")
    return x


def link_poses(joints, constants, q):
    """⁰Aᵢ for i = 0..n, shape (n + 1, 4, 4) with ⁰A₀ = I (eq. 3.3 chained); qᵢ adds to θᵢ for a joint turning
    about z and to dᵢ for one sliding along it (the z components of its motion subspace, 1 or 0)."""
    A0 = [np.eye(4)]
    for joint, (theta, d, a, alpha), qi in zip(joints, constants, q):
        S = joint.motion_subspace()[:, 0]
        A0.append(A0[-1] @ dh_transform(theta + S[2] * qi, d + S[5] * qi, a, alpha))
    return np.array(A0)


def pose_derivatives(joints, A0):
    """U (n + 1, n + 1, 4, 4) with U[i, j] = ∂⁰Aᵢ/∂qⱼ = ⁰Aⱼ₋₁ Φⱼ ʲ⁻¹Aᵢ for 1 ≤ j ≤ i (eq. 3.13), else 0."""
    n = len(joints)
    U = np.zeros((n + 1, n + 1, 4, 4))
    for j in range(1, n + 1):
        Phi = twist_matrix(joints[j - 1].motion_subspace()[:, 0])
        # ⁰Aⱼ₋₁ Φⱼ (⁰Aⱼ₋₁)⁻¹ ⁰Aᵢ = ⁰Aⱼ₋₁ Φⱼ ʲ⁻¹Aᵢ
        left = A0[j - 1] @ Phi @ np.linalg.inv(A0[j - 1])
        for i in range(j, n + 1):
            U[i, j] = left @ A0[i]
    return U


def pseudo_inertia(body):
    """Jᵢ = ∫ r̄ r̄ᵀ dm (4×4) in link frame i (eq. 3.18) from mass m, mass center c and central inertia I_c:
    ∫ r rᵀ dm = ½ tr(I_c) 1 − I_c + m c cᵀ, and the last row/column (m c, m)."""
    m, c, Ic = body.mass, body.com, body.inertia
    J = np.empty((4, 4))
    J[:3, :3] = 0.5 * np.trace(Ic) * np.eye(3) - Ic + m * np.outer(c, c)
    J[:3, 3] = J[3, :3] = m * c
    J[3, 3] = m
    return J


def dh_mass_matrix(rows, q):
    """M (n × n) with M_ik = Σ_{j ≥ max(i,k)} Tr(U_jk J_j U_jiᵀ) (eq. 3.34), from the DH rows."""
    joints, constants, bodies = _parse(rows)
    q = _joint_vector(q, len(joints), "q")
    return _mass_matrix(pose_derivatives(joints, link_poses(joints, constants, q)), bodies)


def _mass_matrix(U, bodies):
    n = len(bodies)
    J = [None] + [pseudo_inertia(b) for b in bodies]
    M = np.zeros((n, n))
    for i in range(1, n + 1):
        for k in range(1, i + 1):
            M[i - 1, k - 1] = M[k - 1, i - 1] = sum(np.trace(U[j, k] @ J[j] @ U[j, i].T) for j in range(i, n + 1))
    return M


def _generalized_impulse(U, impulses, n):
    """Bᵢ = Σⱼ Σₖ F̂ⱼ⁽ᵏ⁾ᵀ Uⱼᵢ r̄ⱼ⁽ᵏ⁾ (eq. 3.35) for impulses (link j, point in frame j, impulse in base axes)."""
    B = np.zeros(n)
    for k, (j, point, imp) in enumerate(impulses):
        if not isinstance(j, (int, np.integer)) or not 1 <= j <= n:
            raise ModelError(f"impulse {k}: link index must be an integer in 1..{n}, got {j!r}")
        r = np.append(_joint_vector(point, 3, f"impulse {k}: point"), 1.0)
        F = np.append(_joint_vector(imp, 3, f"impulse {k}: impulse"), 0.0)
        for i in range(1, j + 1):
            B[i - 1] += F @ U[j, i] @ r
    return B


def dh_impulse_response(rows, q, qdot, impulses):
    """q̇⁺ = q̇⁻ + M⁻¹ B for a DH chain (Zhang, eq. 3.37), by 4×4 matrices only.

    Parameters
    ----------
    rows : DH rows (see :meth:`multibody.Model.from_dh`).
    q, qdot : (n,) joint variables [rad or m] and their rates just before the impact.
    impulses : list of (link index j in 1..n, point (3,) in DH link frame j [m], impulse (3,) in base axes [N·s]).

    Returns
    -------
    ImpulseResponse with v = q̇⁺, and the kinetic energy K = ½ q̇ᵀ M q̇ (eq. 3.19) before and after.
    """
    joints, constants, bodies = _parse(rows)
    n = len(joints)
    q, qdot = _joint_vector(q, n, "q"), _joint_vector(qdot, n, "qdot")
    U = pose_derivatives(joints, link_poses(joints, constants, q))
    M = _mass_matrix(U, bodies)
    B = _generalized_impulse(U, impulses, n)
    dq = solve_mass(M, B)
    plus = qdot + dq
    return ImpulseResponse(plus, dq, B, 0.5 * qdot @ M @ qdot, 0.5 * plus @ M @ plus)
