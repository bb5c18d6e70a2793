"""Unilateral bounds on a coordinate linear in q: joint limits (:class:`JointLimit`) and fixed-tendon limits
(:class:`TendonLimit`), both :class:`Bounds`. They have no equality rows; :mod:`.limits` turns their bounds into
the linear rows g = G q − offset ≥ 0, ġ = N v that forward dynamics, the impact events and the contact time
stepper solve with the contacts.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError, checked_number
from .types import CONSTRAINT_TYPES, Constraint, Rows

if TYPE_CHECKING:
    from ..model import Model
    from ._kinematics import Snapshot


class Bounds(Constraint):
    """Unilateral bounds lower ≤ y ≤ upper on a coordinate y = a_q · q that is linear in q, with ẏ = a_v · v (a
    joint's coordinate, :class:`JointLimit`; a fixed tendon's length, :class:`TendonLimit`). Subclasses give
    :meth:`arms` (a_q, a_v), ``label`` and the bounds' default (:meth:`check`).

    Each finite bound is a one-sided linear row, gap g ≥ 0 and normal N (nv,):

        lower:  g = a_q q − lower,  N = a_v;      upper:  g = upper − a_q q,  N = −a_v

    so ġ = N v and g̈ = N v̇ (no bias term). The bounds have no equality rows (:meth:`evaluate` gives empty
    :class:`Rows`); :mod:`multibody.constraints.limits` turns the touching bounds into Signorini conditions
    (g̈ ≥ 0 ⟂ λ ≥ 0, solved with the contacts) and the arrivals at a bound into impacts in
    :func:`multibody.simulate`. ``restitution`` e ∈ [0, 1] is Newton's coefficient at the stop (0: it stops dead,
    default; 1: it bounces back at the same speed).
    """

    size = 0
    unilateral = True
    label = "coordinate"

    def __init__(self, bounded: str, lower: float | None, upper: float | None, restitution: float,
                 name: str | None) -> None:
        super().__init__((), name)
        self._bounded = bounded  # (the joint's or tendon's name)
        label = f"{type(self).__name__} on {self.label} {bounded!r}"
        self.lower = None if lower is None else checked_number(lower, f"{label}: lower", finite=False)
        self.upper = None if upper is None else checked_number(upper, f"{label}: upper", finite=False)
        e = checked_number(restitution, f"{label}: restitution")
        if not 0.0 <= e <= 1.0:
            raise ModelError(f"{label}: restitution must be in [0, 1] (0 plastic, 1 elastic), got {restitution!r}")
        self.restitution = e
        self._given = (lower is None, upper is None)
        if self.lower is not None and self.upper is not None:
            self._check_order()

    def _check_order(self):
        if self.lower > self.upper:
            raise ModelError(f"{self!r}: lower {self.lower:g} exceeds upper {self.upper:g}")
        if not (np.isfinite(self.lower) or np.isfinite(self.upper)):
            raise ModelError(f"{self!r}: no finite bound (lower {self.lower:g}, upper {self.upper:g}); give lower "
                             f"or upper, or set the {self.label}'s limits")

    def _resolve(self, stored: tuple[float, float] | None, missing: str) -> None:
        """Bounds left None from the ``stored`` (lower, upper) of the joint or tendon (None: it has none, which
        ``missing`` says)."""
        if stored is None and all(self._given):
            raise ModelError(f"{self!r}: {missing} and no lower or upper bound was given")
        if self._given[0]:
            self.lower = -np.inf if stored is None else stored[0]
        if self._given[1]:
            self.upper = np.inf if stored is None else stored[1]
        self._check_order()

    def arms(self, model: Model) -> tuple[np.ndarray, np.ndarray]:
        """(a_q (nq,), a_v (nv,)): y = a_q · q, ẏ = a_v · v."""
        raise NotImplementedError

    @property
    def target(self) -> str:
        """What is bounded, as events and messages name it: the joint's name, or "tendon <name>"."""
        raise NotImplementedError

    def value(self, model: Model, q: np.ndarray) -> float:
        """The bounded coordinate y = a_q · q [rad, m or the tendon's unit]."""
        return float(self.arms(model)[0] @ q)

    def bound_rows(self, model: Model) -> list[tuple[str, np.ndarray, float, np.ndarray]]:
        """The finite bounds as linear rows (side "lower"/"upper", G (nq,), offset, N (nv,)): g = G q − offset,
        ġ = N v."""
        a_q, a_v = self.arms(model)
        out = []
        if self.lower is not None and np.isfinite(self.lower):
            out.append(("lower", a_q, self.lower, a_v))
        if self.upper is not None and np.isfinite(self.upper):
            out.append(("upper", -a_q, -self.upper, -a_v))
        return out

    def sides(self, model: Model, q: np.ndarray, v: np.ndarray) -> list[tuple[str, float, np.ndarray, float]]:
        """The finite bounds at (q, v) as a list of (side, gap g, normal N (nv,), ġ)."""
        return [(side, float(G @ q - offset), N, float(N @ v)) for side, G, offset, N in self.bound_rows(model)]

    def evaluate(self, s: Snapshot) -> Rows:
        """No equality rows (empty :class:`Rows`): the bounds are inequalities."""
        empty = np.zeros(0)
        return Rows(empty, np.zeros((0, s.nv)), empty, empty, np.zeros(0, bool))

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return f"{type(self).__name__}{label}({self._bounded!r})"

    def _bounds_dict(self) -> dict[str, Any]:
        bound = (lambda x: None if x is None or not np.isfinite(x) else float(x))
        return {"lower": bound(self.lower), "upper": bound(self.upper), "restitution": self.restitution}


class JointLimit(Bounds):
    """Unilateral joint limit lower ≤ q ≤ upper on a revolute or prismatic joint (URDF ``<limit>``), its bounds
    rows on the joint's entries (:class:`Bounds`: g = q − lower, N = +e_k; g = upper − q, N = −e_k).

    ``lower``/``upper`` [rad or m] default to the joint's ``limits`` (a :class:`multibody.JointLimits`); a bound
    that is None and not given by the joint is open (±inf). At least one bound must be finite. ``restitution``
    as for :class:`Bounds`.
    """

    kind = "joint_limit"
    label = "joint"

    def __init__(self, joint: str, lower: float | None = None, upper: float | None = None,
                 restitution: float = 0.0, name: str | None = None) -> None:
        self.joint = joint
        super().__init__(joint, lower, upper, restitution, name)

    def check(self, model: Model) -> None:
        """Resolve the bounds left None from the joint's ``limits``; ModelError naming the joint if it is not a
        one-dof joint of ``model``, has no limits and no bound was given, or lower > upper."""
        joint = model.one_dof_joint(self.joint, f"{self!r}")[0]
        limits = joint.limits
        self._resolve(None if limits is None else (limits.lower, limits.upper),
                      f"joint '{joint.name}' has no limits (joint.limits is None)")

    def arms(self, model: Model) -> tuple[np.ndarray, np.ndarray]:
        """(e_k (nq,), e_k (nv,)) at the joint's coordinate and velocity entries."""
        _, iq, iv = model.one_dof_joint(self.joint, f"{self!r}")
        a_q, a_v = np.zeros(model.nq), np.zeros(model.nv)
        a_q[iq], a_v[iv] = 1.0, 1.0
        return a_q, a_v

    @property
    def target(self) -> str:
        return self.joint

    def to_dict(self) -> dict[str, Any]:
        return self._described(joint=self.joint, **self._bounds_dict())


class TendonLimit(Bounds):
    """Unilateral limit lower ≤ L ≤ upper on the length L = Σ cⱼ qⱼ of a fixed tendon of the model
    (:class:`multibody.FixedTendon`, MJCF ``<tendon><fixed limited="true" range="...">``), its bounds rows
    G = ±(cⱼ on the joints' q entries), N = ±(cⱼ on their v entries) (:class:`Bounds`).

    ``lower``/``upper`` [the tendon's length unit] default to the tendon's ``limits``; ``restitution`` as for
    :class:`Bounds`. The tendon must be added to the model (``Model.add_force``) before the limit.
    """

    kind = "tendon_limit"
    label = "tendon"

    def __init__(self, tendon: str, lower: float | None = None, upper: float | None = None,
                 restitution: float = 0.0, name: str | None = None) -> None:
        self.tendon = tendon
        super().__init__(tendon, lower, upper, restitution, name)

    def _element(self, model):
        for element in getattr(model, "forces", ()):
            if getattr(element, "kind", None) == "fixed_tendon" and element.name == self.tendon:
                return element
        known = [e.name for e in getattr(model, "forces", ()) if getattr(e, "kind", None) == "fixed_tendon"]
        raise ModelError(f"{self!r}: model '{model.name}' has no fixed tendon {self.tendon!r} (fixed tendons: "
                         f"{', '.join(known) or 'none'})")

    def check(self, model: Model) -> None:
        """Resolve the bounds left None from the tendon's ``limits``; ModelError naming the tendon if the model
        has no such fixed tendon, it has no limits and no bound was given, or lower > upper."""
        tendon = self._element(model)
        tendon.check(model)
        self._resolve(tendon.limits, f"tendon '{self.tendon}' has no limits (its limits are None)")

    def arms(self, model: Model) -> tuple[np.ndarray, np.ndarray]:
        """(∂L/∂q (nq,), ∂L/∂v (nv,)) of the tendon."""
        return self._element(model).arms(model)

    @property
    def target(self) -> str:
        return f"tendon {self.tendon}"

    def to_dict(self) -> dict[str, Any]:
        return self._described(tendon=self.tendon, **self._bounds_dict())


CONSTRAINT_TYPES.update({cls.kind: cls for cls in (JointLimit, TendonLimit)})
