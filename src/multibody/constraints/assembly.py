"""Assembly of closed-loop mechanisms: a configuration with φ(q) = 0 and velocities with J(q) v = b(q).

Positions: Gauss–Newton with minimum-norm steps on the holonomic rows, q ← q ⊕ (−J⁺ φ) (J⁺ by SVD, so redundant
rows are fine; the step is taken on the joint manifolds by :func:`multibody.integrate`).
Velocities: the consistent v closest to the guess in the kinetic-energy metric,
v = argmin ½ (v − v_guess)ᵀ M (v − v_guess) s.t. J v = b — Gauss's least-distance problem at the velocity level.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..dynamics import crba, integrate
from ..dynamics._inputs import as_state
from ..errors import ModelError
from ._kinematics import Snapshot
from .gauss import GaussSolver
from .types import stack

if TYPE_CHECKING:
    from ..model import Model


def _worst(model, slices, residual):
    """Name of the constraint holding the largest |residual| entry."""
    k = int(np.argmax(np.abs(residual)))
    owner = next(c for c, sl in zip(model.constraints, slices) if sl.start <= k < sl.stop)
    return f"{owner!r} (row {k}, residual {residual[k]:.3g})"


def assemble_positions(model, q_guess, tol=1e-12, max_iter=50):
    """q with |φ(q)|∞ ≤ tol near ``q_guess``; ModelError naming the worst constraint if Newton fails."""
    cm = model._compiled or model.compile()
    q = as_state(q_guess, cm.nq, "q_guess").copy()
    zero = np.zeros(cm.nv)
    for _ in range(max_iter):
        rows, slices = stack(model, Snapshot(model, q, zero))
        phi, J = rows.phi[rows.holonomic], rows.J[rows.holonomic]
        if phi.size == 0 or np.max(np.abs(phi)) <= tol:
            return q
        q = integrate(model, q, -np.linalg.lstsq(J, phi, rcond=1e-10)[0])
    phi = rows.phi * rows.holonomic
    raise ModelError(f"constraints cannot be assembled from this guess: after {max_iter} Newton steps the largest "
                     f"position error is in {_worst(model, slices, phi)}")


def constraint_drift(model, q, v):
    """(max|φ(q)|, max|J v − b|): how far (q, v) is from the constraint manifold (0, 0 without constraints)."""
    rows, _ = stack(model, Snapshot(model, q, v))
    return np.max(np.abs(rows.phi), initial=0.0), np.max(np.abs(rows.J @ v - rows.b), initial=0.0)


def assemble_velocities(model, q, v_guess, tol=1e-10, rcond=1e-10):
    """The v closest to ``v_guess`` (kinetic-energy metric) with J v = b; ModelError if J v = b has no solution."""
    cm = model._compiled or model.compile()
    v_guess = as_state(v_guess, cm.nv, "v_guess")
    rows, slices = stack(model, Snapshot(model, q, v_guess))
    v = GaussSolver(crba(model, q), rows.J, rcond).solve(v_guess, rows.b)[0]
    residual = rows.J @ v - rows.b
    if residual.size and np.max(np.abs(residual)) > tol * max(1.0, np.max(np.abs(rows.b))):
        raise ModelError(f"constraint velocities J v = b are inconsistent: {_worst(model, slices, residual)}")
    return v


def assemble(model: Model, q_guess: ArrayLike, v_guess: ArrayLike | None = None,
             tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """(q, v): a configuration satisfying the holonomic constraints and velocities satisfying all constraints,
    closest to the guesses (v_guess default 0)."""
    q = assemble_positions(model, q_guess, tol)
    v = np.zeros(model.nv) if v_guess is None else v_guess
    return q, assemble_velocities(model, q, v)


def check_consistent(model, q, v, tol=1e-8):
    """Raise ValueError naming the worst constraint if |J v − b|∞ > tol or |φ(q)|∞ > tol (initial conditions)."""
    rows, slices = stack(model, Snapshot(model, q, v))
    for label, residual in (("positions", rows.phi), ("velocities", rows.J @ v - rows.b)):
        if residual.size and np.max(np.abs(residual)) > tol:
            raise ValueError(f"inconsistent initial {label}: {_worst(model, slices, residual)} exceeds {tol:g}; "
                             f"use multibody.assemble(model, q, v) to find consistent ones")


def _rank(J, scale, rcond=1e-10):
    """Numerical rank of J: singular values above rcond·scale (the Gauss solver's cut-off, with scale the largest
    singular value of the whole constraint Jacobian, so that rows vanishing at q count as zero)."""
    if J.size == 0:
        return 0
    return int(np.sum(np.linalg.svd(J, compute_uv=False) > rcond * scale))


def mobility(model, q):
    """Degrees of freedom at configuration q: {"speeds": nv, "rows": constraint rows, "rank": rank of the
    constraint Jacobian J(q) (independent constraints), "holonomic_rank": rank of its holonomic rows,
    "dof": nv − rank (independent speeds), "configuration_dof": nv − holonomic_rank (independent coordinates;
    more than "dof" with nonholonomic constraints)}. Ranks by SVD with the Gauss solver's cut-off 1e-10·σ_max,
    so redundant rows (a planar loop closed in 3D) count once; at a singular configuration the count changes."""
    cm = model._compiled or model.compile()
    q = as_state(q, cm.nq, "q")
    rows, _ = stack(model, Snapshot(model, q, np.zeros(cm.nv)))
    scale = np.linalg.norm(rows.J, 2) if rows.J.size else 1.0
    rank, holonomic = _rank(rows.J, scale), _rank(rows.J[rows.holonomic], scale)
    return {"speeds": cm.nv, "rows": rows.J.shape[0], "rank": rank, "holonomic_rank": holonomic,
            "dof": cm.nv - rank, "configuration_dof": cm.nv - holonomic}
