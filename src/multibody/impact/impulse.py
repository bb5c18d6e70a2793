"""External impulses on a tree by spatial algebra: M Δv = B, B = Σ J_Pᵀ [0; P̂] (Zhang Dingguo, "Lagrange equations of
multi-rigid-body systems under external impact", eqs. 3.32–3.37).

During an impact of vanishing duration the configuration q is frozen and finite forces (gravity, springs, joint
torques) contribute nothing; integrating M v̇ + c = τ over the impact leaves

    M(q) (v⁺ − v⁻) = B,     B = Σₖ J_{Pₖ}(q)ᵀ [0; P̂ₖ]   (generalized impulse),

where J_{Pₖ} is the 6 × nv Jacobian (world axes, [angular; linear]) of the point Pₖ that receives the impulse
P̂ₖ [N·s]. The Jacobian comes from the recursive spatial kinematics (:func:`multibody.jacobian`) and M from the
composite-rigid-body algorithm (:func:`multibody.crba`); :mod:`multibody.impact.dh_matrix` computes the same
response independently with Zhang's 4×4 matrices.

The kinetic energy changes by ΔK = ½ v⁺ᵀ M v⁺ − ½ v⁻ᵀ M v⁻ = v⁻ᵀ B + ½ Δvᵀ M Δv.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from ..constraints._kinematics import Snapshot
from ..constraints.types import equality_constraints, stack
from ..dynamics._inputs import as_state
from ..dynamics.algorithms import crba
from ..dynamics.kinematics import jacobian
from ..errors import ModelError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..model import Model


@dataclass(frozen=True)
class ImpulseResponse:
    """The jump of the velocity under impulses.

    v : (nv,) velocity just after [same units as v⁻]; delta_v : (nv,) v⁺ − v⁻;
    generalized_impulse : (nv,) B = Σ Jᵀ (0, P̂), in N·s or N·m·s per coordinate;
    kinetic_energy_before, kinetic_energy_after [J]; kinetic_energy_change = after − before [J].
    """

    v: np.ndarray
    delta_v: np.ndarray
    generalized_impulse: np.ndarray
    kinetic_energy_before: float
    kinetic_energy_after: float

    @property
    def kinetic_energy_change(self) -> float:
        return self.kinetic_energy_after - self.kinetic_energy_before


def as_impulse_list(model, body, point=None, impulse=None):
    """Normalize the impulse arguments to a list of (name, point (3,), impulse (3,)).

    Either one impulse (``body``, ``point``, ``impulse``), or ``body`` a list of (body, point, impulse) triples
    with ``point`` and ``impulse`` left out. Unknown bodies raise :class:`~multibody.ModelError`; non-finite or
    wrongly shaped points and impulses raise ``ValueError`` naming the entry.
    """
    if isinstance(body, (list, tuple)) and (point is None and impulse is None):
        triples = list(body)
    else:
        triples = [(body, (0.0, 0.0, 0.0) if point is None else point, impulse)]
    out = []
    for k, entry in enumerate(triples):
        if not isinstance(entry, (list, tuple)) or len(entry) != 3:
            raise ValueError(f"impulse {k}: expected a (body, point, impulse) triple, got {entry!r}")
        name, p, imp = entry
        model.locate(name)  # raises ModelError naming an unknown body or frame
        label = f"impulse {k} on {name!r}"
        if imp is None:
            raise ValueError(f"{label}: the impulse vector [N·s] is missing")
        p, imp = np.asarray(p, dtype=np.float64), np.asarray(imp, dtype=np.float64)
        if p.shape != (3,) or imp.shape != (3,):
            raise ValueError(f"{label}: point and impulse must have shape (3,), got {p.shape} and {imp.shape}")
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(imp))):
            raise ValueError(f"{label}: point {p.tolist()} and impulse {imp.tolist()} must be finite")
        out.append((name, p, imp))
    if not out:
        raise ValueError("apply_impulse: no impulses given")
    return out


def generalized_impulse(model, q, impulses):
    """B = Σₖ J_{Pₖ}(q)ᵀ [0; P̂ₖ] (nv,) for a list of (body or frame, point in its frame, impulse in world axes)."""
    B = np.zeros(model.nv)
    for name, point, imp in impulses:
        # the linear rows of the point Jacobian map v to the point's world velocity (eq. 3.35 with U r ≡ J_P)
        B += jacobian(model, q, name, point)[3:].T @ imp
    return B


def solve_mass(M, rhs):
    """M⁻¹ rhs by Cholesky; ModelError if M is not positive definite (a massless chain)."""
    try:
        return scipy.linalg.cho_solve(scipy.linalg.cho_factor(M), rhs)
    except np.linalg.LinAlgError:
        raise ModelError("mass matrix is not positive definite (massless or degenerate chain)") from None


def impulse_response_matrix(model: Model, q: np.ndarray, M: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """P rhs: the velocity change [m/s, rad/s] due to generalized impulses ``rhs`` (nv, k) of a model whose loop
    constraints hold through the impact, P = M⁻¹ − M⁻¹Aᵀ (A M⁻¹ Aᵀ)⁺ A M⁻¹ with A the rows of its bilateral
    constraints at q (M⁻¹ rhs without any)."""
    response = solve_mass(M, rhs)
    loops = equality_constraints(model)
    if not loops:
        return response
    A = stack(model, Snapshot(model, q, np.zeros(model.nv)), loops)[0].J
    MinvAT = solve_mass(M, A.T)
    return response - MinvAT @ (np.linalg.pinv(A @ MinvAT, rcond=1e-10) @ (A @ response))


def impulse_response(model: Model, q: ArrayLike, v: ArrayLike, body: str | Sequence[tuple[str, ArrayLike, ArrayLike]],
                     point: ArrayLike | None = None, impulse: ArrayLike | None = None) -> ImpulseResponse:
    """Velocity jump under point impulses: M(q) Δv = B (Zhang, eq. 3.37), with the kinetic energy change;
    with loop constraints Δv = P B, P the constrained response of :func:`impulse_response_matrix`.

    Parameters
    ----------
    q : (nq,) configuration (frozen during the impact); v : (nv,) velocity just before.
    body : body or named-frame name, or a list of (body, point, impulse) triples.
    point : (3,) point of application in the body's (or frame's) coordinates [m]; default its origin.
    impulse : (3,) impulse P̂ = ∫F dt in world axes [N·s].

    Returns
    -------
    ImpulseResponse
    """
    cm = model._compiled or model.compile()
    q, v = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v")
    if q.ndim != 1 or v.ndim != 1:
        raise ValueError(f"impulse_response: expects one state, got q {q.shape} and v {v.shape}")
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
        raise ValueError("impulse_response: q and v must be finite")
    impulses = as_impulse_list(model, body, point, impulse)
    M = crba(model, q)
    with np.errstate(over="ignore", invalid="ignore"):
        B = generalized_impulse(model, q, impulses)
        dv = impulse_response_matrix(model, q, M, B)
        v_plus = v + dv
        response = ImpulseResponse(v_plus, dv, B, 0.5 * v @ M @ v, 0.5 * v_plus @ M @ v_plus)
    if not all(np.all(np.isfinite(x)) for x in (v_plus, response.kinetic_energy_before, response.kinetic_energy_after)):
        worst = max(impulses, key=lambda entry: float(np.abs(entry[2]).max()))
        raise ValueError(f"impulse_response: the velocity jump or its kinetic energy overflows for the impulse "
                         f"{np.asarray(worst[2]).tolist()} N·s on '{worst[0]}' (too large for this model)")
    return response


def apply_impulse(model: Model, q: ArrayLike, v: ArrayLike, body: str | Sequence[tuple[str, ArrayLike, ArrayLike]],
                  point: ArrayLike | None = None, impulse: ArrayLike | None = None) -> np.ndarray:
    """The velocity v⁺ (nv,) just after point impulses; see :func:`impulse_response` for the arguments and for
    the kinetic energy change.

    Examples
    --------
    >>> import numpy as np, multibody as mb
    >>> model = mb.Model("puck", gravity=(0, 0, 0))
    >>> _ = model.add(mb.Body("puck", mass=2.0, inertia=np.eye(3)), joint=mb.Free())
    >>> v = mb.apply_impulse(model, model.neutral(), np.zeros(6), "puck", (0, 0, 0), impulse=(4.0, 0, 0))
    >>> v.round(12).tolist()
    [0.0, 0.0, 0.0, 2.0, 0.0, 0.0]
    """
    return impulse_response(model, q, v, body, point, impulse).v
