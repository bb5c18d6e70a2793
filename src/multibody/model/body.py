"""Rigid bodies: mass, mass center and central inertia, validated on construction."""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..spatial import _as_vector3, is_symbolic, skew


class Body:
    """A rigid body.

    Parameters
    ----------
    name : str
        Unique name in its model ("world" is reserved).
    mass : float
        Mass [kg], finite and positive. A sympy expression is accepted for the symbolic path.
    com : (3,) array_like
        Mass center in the body frame [m].
    inertia : (3, 3) array_like
        Inertia tensor about the mass center, in body axes [kg·m²]: symmetric, positive definite,
        and obeying the triangle inequalities (Ixx + Iyy ≥ Izz, ...).
    """

    def __init__(self, name, mass=1.0, com=(0.0, 0.0, 0.0), inertia=None):
        if not isinstance(name, str) or not name:
            raise ModelError(f"body name must be a non-empty string, got {name!r}")
        if name == "world":
            raise ModelError("body name 'world' is reserved for the fixed base")
        self.name = name
        self.symbolic = is_symbolic(mass) or is_symbolic(com) or (inertia is not None and is_symbolic(inertia))
        self.com = _as_vector3(com, f"body '{name}': com")
        if inertia is None:
            raise ModelError(f"body '{name}': inertia (3×3 about the mass center, body axes) is required")
        if self.symbolic:
            self.mass = mass
            self.inertia = np.asarray(inertia, dtype=object)
            if self.inertia.shape != (3, 3):
                raise ModelError(f"body '{name}': inertia must have shape (3, 3), got {self.inertia.shape}")
            return
        self.mass = _check_mass(name, mass)
        self.inertia = _check_inertia(name, inertia)

    def spatial_inertia(self):
        """6×6 spatial inertia about the body-frame origin, body axes, ``[angular; linear]`` (RBDA eq. 2.63)."""
        m, c, Ic = self.mass, self.com, self.inertia
        C = skew(c)
        I6 = np.zeros((6, 6))
        I6[:3, :3] = Ic + m * C @ C.T
        I6[:3, 3:] = m * C
        I6[3:, :3] = m * C.T
        I6[3:, 3:] = m * np.eye(3)
        return I6

    def __repr__(self):
        return f"Body({self.name!r}, mass={self.mass}, com={list(self.com)})"


def _check_mass(name, mass):
    try:
        m = float(mass)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"body '{name}': mass must be a number, got {mass!r}") from exc
    if not np.isfinite(m) or m <= 0.0:
        raise ModelError(f"body '{name}': mass must be finite and positive, got {mass!r}")
    return m


def _check_inertia(name, inertia):
    try:
        I = np.asarray(inertia, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"body '{name}': inertia must be a 3×3 matrix of numbers, got {inertia!r}") from exc
    if I.shape == (3,):
        I = np.diag(I)
    if I.shape != (3, 3):
        raise ModelError(f"body '{name}': inertia must have shape (3, 3) (or 3 principal moments), got shape {I.shape}")
    if not np.all(np.isfinite(I)):
        raise ModelError(f"body '{name}': inertia must be finite, got {I.tolist()}")
    scale = max(np.abs(I).max(), 1e-300)
    if not np.allclose(I, I.T, rtol=0.0, atol=1e-12 * scale):
        raise ModelError(f"body '{name}': inertia must be symmetric, got {I.tolist()}")
    I = 0.5 * (I + I.T)
    moments = np.linalg.eigvalsh(I)
    if moments[0] <= 0.0:
        raise ModelError(f"body '{name}': inertia must be positive definite, got principal moments {moments.tolist()}")
    a, b, c = moments
    if a + b < c * (1.0 - 1e-9):
        raise ModelError(
            f"body '{name}': inertia violates the triangle inequality: principal moments {moments.tolist()}, "
            f"{a:g} + {b:g} < {c:g}")
    return I
