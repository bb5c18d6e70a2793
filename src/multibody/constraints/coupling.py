"""A linear coupling of joint coordinates: Σⱼ cⱼ qⱼ = offset over revolute and prismatic joints (MuJoCo's
``<equality><joint>`` with a linear polynomial, ``<equality><tendon>`` between fixed tendons, a joint locked at a
value). One holonomic row with a constant Jacobian (the generalization of :class:`~.types.Mimic` to any number of
joints):

    φ = Σⱼ cⱼ qⱼ − offset,   J = Σⱼ cⱼ e_j,   b = 0,   γ = 0

(e_j the unit row of joint j's velocity).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError, checked_number
from .types import CONSTRAINT_TYPES, Constraint, Rows, constant_row, constant_rows

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..model import Model
    from ._kinematics import Snapshot


class LinearCoupling(Constraint):
    """Σⱼ cⱼ qⱼ = offset: ``joints`` (names of revolute or prismatic joints, or their child bodies), their
    ``coefficients`` cⱼ and the ``offset`` [rad or m, as the weighted coordinates]."""

    size = 1
    kind = "linear_coupling"

    def __init__(self, joints: Sequence[str], coefficients: ArrayLike, offset: float = 0.0,
                 name: str | None = None) -> None:
        super().__init__((), name)
        self.joints = tuple(joints)
        coefficients = np.array(coefficients, dtype=float, ndmin=1)
        if coefficients.shape != (len(self.joints),) or not np.all(np.isfinite(coefficients)) \
                or not np.any(coefficients):
            raise ModelError(f"{self!r}: expected one finite coefficient per joint ({len(self.joints)}), not all "
                             f"zero, got {coefficients.tolist()}")
        self.coefficients = coefficients
        self.offset = checked_number(offset, f"{self!r}: offset")

    def check(self, model: Model) -> None:
        """Raise ModelError unless every joint is a revolute or prismatic joint of ``model``."""
        for joint in self.joints:
            model.one_dof_joint(joint, f"{self!r}")

    def evaluate(self, s: Snapshot) -> Rows:
        return constant_rows(s, self.export(s.model))

    def export(self, model: Model) -> tuple:
        """(CONSTANT, J (nv,), A (nq,), offset): φ = A q − offset."""
        return constant_row(model, self.joints, self.coefficients, self.offset, repr(self))

    def to_dict(self) -> dict[str, Any]:
        return self._described(joints=list(self.joints), coefficients=self.coefficients, offset=self.offset)

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return f"LinearCoupling{label}({', '.join(map(repr, getattr(self, 'joints', ())))})"


CONSTRAINT_TYPES[LinearCoupling.kind] = LinearCoupling
