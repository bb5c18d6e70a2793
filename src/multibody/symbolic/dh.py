"""Lagrange's equations of a Denavit–Hartenberg chain by the 4×4 matrix method (Zhang Dingguo, "Lagrange equations of
multi-rigid-body systems under external impact").

    ⁱ⁻¹Aᵢ = Rz(θᵢ) Tz(dᵢ) Tx(aᵢ) Rx(αᵢ),   ⁰Aᵢ = A₁⋯Aᵢ                                   (eq. 3.3)
    U_ij = ∂⁰Aᵢ/∂q_j = ⁰A_{j−1} Φ_j ʲ⁻¹Aᵢ  (j ≤ i; Φ acts in frame j−1, where q_j enters)   (eqs. 3.8–3.13)
    J_i = ∫ r̄ r̄ᵀ dm  (pseudo-inertia in link frame i, homogeneous coordinates)            (eq. 3.18)
    M_ik = Σ_{j ≥ max(i,k)} Tr(U_jk J_j U_jiᵀ)                                            (eq. 3.34)
    h_i  = Σ_{k,m} Σ_{j ≥ max(i,k,m)} Tr(∂U_jk/∂q_m J_j U_jiᵀ) q̇_k q̇_m
    G_i  = −Σ_{j ≥ i} m_j gᵀ U_ji r̄_j
    M q̈ + h + G = τ
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sympy as sp
from sympy.physics.vector import dynamicsymbols

from ..errors import ModelError
from ..model.exact import parse_number
from .eom import TIME, EquationsOfMotion

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

_PHI = {"revolute": sp.Matrix([[0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]),
        "prismatic": sp.Matrix([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])}


def dh_matrix(theta, d, a, alpha):
    """ⁱ⁻¹Aᵢ = Rz(θ) Tz(d) Tx(a) Rx(α) as a sympy 4×4 matrix (eq. 3.3)."""
    ct, st, ca, sa = sp.cos(theta), sp.sin(theta), sp.cos(alpha), sp.sin(alpha)
    return sp.Matrix([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st], [0, sa, ca, d], [0, 0, 0, 1]])


def pseudo_inertia(mass, com, inertia):
    """J = ∫ r̄ r̄ᵀ dm (eq. 3.18) from the mass, mass center c and central inertia I_c in the link frame:
    ∫ r rᵀ dm = ½ tr(I_o) E − I_o with I_o = I_c + m (cᵀc E − c cᵀ)."""
    c = sp.Matrix(com)
    Io = sp.Matrix(inertia) + mass * ((c.T * c)[0] * sp.eye(3) - c * c.T)
    second = Io.trace() / 2 * sp.eye(3) - Io
    return sp.Matrix(sp.BlockMatrix([[second, mass * c], [mass * c.T, sp.Matrix([[mass]])]]))


def lagrange_dh(rows: Sequence[Mapping[str, Any]],
                gravity: Sequence[sp.Expr | float] = (0, 0, -sp.Symbol("g"))) -> EquationsOfMotion:
    """Lagrange's equations of a DH chain by the matrix method; coordinates q_0(t).., speeds u_0(t).. = q̇
    (the same form as :func:`.equations_of_motion`).

    ``rows``: dicts with theta, d, a, alpha, joint ("revolute"/"prismatic"), mass, com, inertia (central, link
    frame i), numbers, sympy expressions or expressions of π as text ("pi/2"), as for
    :meth:`multibody.Model.from_dh`.
    """
    n = len(rows)
    if n == 0:
        raise ModelError("DH table has no rows")
    q = list(dynamicsymbols(f"q_0:{n}")) if n > 1 else [dynamicsymbols("q_0")]
    A, J, mass, com, kinds = [], [], [], [], []
    for i, row in enumerate(rows, start=1):
        missing = [k for k in ("theta", "d", "a", "alpha", "mass", "com", "inertia") if k not in row]
        if missing:
            raise ModelError(f"DH row {i}: missing field(s) {missing}")
        kind = str(row.get("joint", "revolute")).lower()
        if kind not in _PHI:
            raise ModelError(f"DH row {i}: joint must be 'revolute' or 'prismatic', got {row.get('joint')!r}")
        theta, d = _exact(row["theta"]), _exact(row["d"])
        theta, d = (theta + q[i - 1], d) if kind == "revolute" else (theta, d + q[i - 1])
        A.append(dh_matrix(theta, d, _exact(row["a"]), _exact(row["alpha"])))
        J.append(pseudo_inertia(sp.sympify(row["mass"]), row["com"], row["inertia"]))
        mass.append(sp.sympify(row["mass"]))
        com.append(sp.Matrix([*row["com"], 1]))
        kinds.append(kind)
    T0 = [sp.eye(4)]
    for Ai in A:
        T0.append(T0[-1] * Ai)
    # U[i][j] = ∂ ⁰A_{i+1} / ∂q_{j+1} = ⁰A_j Φ_j A_{j+1}⋯A_{i+1}
    U = [[T0[j] * _PHI[kinds[j]] * _chain(A, j, i) if j <= i else sp.zeros(4, 4) for j in range(n)] for i in range(n)]
    qd = [qi.diff(TIME) for qi in q]
    M = sp.Matrix(n, n, lambda i, k: sum(((U[j][k] * J[j] * U[j][i].T).trace() for j in range(max(i, k), n)),
                                         sp.Integer(0)))
    h = sp.Matrix([sum(((U[j][k].diff(q[m]) * J[j] * U[j][i].T).trace() * qd[k] * qd[m]
                        for k in range(n) for m in range(n) for j in range(max(i, k, m), n)), sp.Integer(0))
                   for i in range(n)])
    g = sp.Matrix([*gravity, 0])
    G = sp.Matrix([-sum(((g.T * U[j][i] * com[j])[0] * mass[j] for j in range(i, n)), sp.Integer(0)) for i in range(n)])
    # speeds u_k(t) = q̇_k, as every other formulation returns them
    u = list(dynamicsymbols(f"u_0:{n}")) if n > 1 else [dynamicsymbols("u_0")]
    speeds = dict(zip(qd, u))
    M, h = M.xreplace(speeds), h.xreplace(speeds)
    udot = sp.Matrix([r.diff(TIME) for r in u])
    Y = -h - G
    return EquationsOfMotion(method="lagrange-dh", q=tuple(q), u=tuple(u), mass_matrix=M, forcing=Y,
                             qdot=sp.Matrix(u), generalized_active_forces=-G,
                             generalized_inertia_forces=-h - M * udot)


def _exact(value):
    """A row's value as a sympy expression; text is read as an expression of π ("pi/2"), never evaluated."""
    return parse_number(value) if isinstance(value, str) else sp.sympify(value)


def _chain(A, j, i):
    """A_{j+1} ⋯ A_{i+1} (0-based: A[j] ... A[i])."""
    product = sp.eye(4)
    for k in range(j, i + 1):
        product = product * A[k]
    return product
