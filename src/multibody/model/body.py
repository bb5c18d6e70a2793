"""Rigid bodies: mass, mass center and central inertia, validated on construction."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ModelError, checked_number
from ..spatial import _as_vector3, is_symbolic, real_array, skew
from .part import ModelPart


class Body(ModelPart):
    """A rigid body.

    Parameters
    ----------
    name : str
        Unique name in its model ("world" is reserved).
    mass : float
        Mass [kg], finite and non-negative. A massless body (a virtual link between the axes of a multi-axis
        joint) is allowed as long as the model's mass matrix stays positive definite, which
        :meth:`Model.compile` checks. A sympy expression is accepted for the symbolic path.
    com : (3,) array_like
        Mass center in the body frame [m].
    inertia : (3, 3) array_like
        Inertia tensor about the mass center, in body axes [kg·m²]: symmetric, positive semi-definite (zero for a
        point mass), and obeying the triangle inequalities (Ixx + Iyy ≥ Izz, ...). Both checks allow a relative
        1e-6 of the largest principal moment, the round-off of values written in files.
    check_inertia : {"physical", "semidefinite", "none"}
        "physical" (default) applies both checks; "semidefinite" drops the triangle inequalities (inertias that
        no mass distribution has, which real robot files contain: the dynamics stay well defined); "none" only
        requires a finite symmetric matrix (a model whose mass matrix is still positive definite can run).
    """

    ne = 0  # number of elastic coordinates: none for a rigid body (see multibody.FlexibleBeam)

    def __init__(self, name: str, mass: float = 1.0, com: ArrayLike = (0.0, 0.0, 0.0), inertia: ArrayLike | None = None,
                 check_inertia: str = "physical") -> None:
        if not isinstance(name, str) or not name:
            raise ModelError(f"body name must be a non-empty string, got {name!r}")
        if name == "world":
            raise ModelError("body name 'world' is reserved for the fixed base")
        if check_inertia not in INERTIA_CHECKS:
            raise ModelError(f"body '{name}': check_inertia must be one of {', '.join(INERTIA_CHECKS)}, "
                             f"got {check_inertia!r}")
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
        self.inertia = _check_inertia(name, inertia, check_inertia)
        if np.abs(self.com).max() > LARGEST:
            raise ModelError(f"body '{name}': com must be below {LARGEST:g} m in magnitude, got {self.com.tolist()}")

    @property
    def massless(self) -> bool:
        """True for a body with zero mass and zero inertia (a frame moved by a joint)."""
        return not self.symbolic and self.mass == 0.0 and not np.any(self.inertia)

    def spatial_inertia(self) -> np.ndarray:
        """6×6 spatial inertia about the body-frame origin, body axes, ``[angular; linear]`` (RBDA eq. 2.63)."""
        m, c, Ic = self.mass, self.com, self.inertia
        C = skew(c)
        I6 = np.zeros((6, 6))
        I6[:3, :3] = Ic + m * C @ C.T
        I6[:3, 3:] = m * C
        I6[3:, :3] = m * C.T
        I6[3:, 3:] = m * np.eye(3)
        return I6

    def __repr__(self) -> str:
        return f"Body({self.name!r}, mass={self.mass}, com={list(self.com)})"


def _check_mass(name, mass):
    m = checked_number(mass, f"body '{name}': mass", nonnegative=True)
    if m > LARGEST:
        raise ModelError(f"body '{name}': mass must be below {LARGEST:g} kg (the dynamics would overflow), got {mass!r}")
    return m


# Largest mass [kg], inertia [kg m²] and mass-center coordinate [m] of a body: their products (m c cᵀ, sums of
# moments, the spatial inertia) must stay finite; 1e100 leaves room for any physical system.
LARGEST = 1e100


INERTIA_CHECKS = ("physical", "semidefinite", "none")
INERTIA_TOLERANCE = 1e-6  # relative to the largest principal moment (of the body, or of a whole model file's
# bodies, where the importers pass that as ``scale``): the round-off of inertias written in files


def _check_inertia(name, inertia, check="physical", scale=0.0):
    try:
        I = real_array(inertia, f"body '{name}': inertia")
    except ModelError as exc:
        raise ModelError(f"body '{name}': inertia must be a 3×3 matrix of real numbers, got {inertia!r}") from exc
    if I.shape == (3,):
        I = np.diag(I)
    if I.shape != (3, 3):
        raise ModelError(f"body '{name}': inertia must have shape (3, 3) (or 3 principal moments), got shape {I.shape}")
    if not np.all(np.isfinite(I)):
        raise ModelError(f"body '{name}': inertia must be finite, got {I.tolist()}")
    largest = max(np.abs(I).max(), 1e-300)
    if not np.allclose(I, I.T, rtol=0.0, atol=1e-12 * largest):
        raise ModelError(f"body '{name}': inertia must be symmetric, got {I.tolist()}")
    if largest > LARGEST:
        raise ModelError(f"body '{name}': inertia entries must be below {LARGEST:g} kg m² in magnitude (the "
                         f"dynamics would overflow), got {I.tolist()}")
    I = 0.5 * I + 0.5 * I.T
    if check == "none":
        return I
    moments = np.linalg.eigvalsh(I)
    tolerance = INERTIA_TOLERANCE * max(abs(moments[-1]), abs(moments[0]), scale)
    if moments[0] < -tolerance:
        raise ModelError(f"body '{name}': inertia must be positive semi-definite, got principal moments "
                         f"{moments.tolist()}")
    a, b, c = moments
    if check == "physical" and a + b < c - tolerance:
        raise ModelError(
            f"body '{name}': inertia violates the triangle inequality: principal moments {moments.tolist()}, "
            f"{a:g} + {b:g} < {c:g} (check_inertia='semidefinite' accepts it)")
    return I


def combined(parts):
    """(mass, mass center, central inertia) of rigid parts given as (mass mₖ, mass center cₖ, central inertia Iₖ),
    all in one frame: the masses add up, the center is the mass-weighted mean c, and the inertia is
    Σ (Iₖ + mₖ (|dₖ|² E − dₖ dₖᵀ)) with dₖ = cₖ − c (parallel-axis theorem). Massless parts may still carry
    rotational inertia; without any mass the center is the origin."""
    mass = sum(m for m, _, _ in parts)
    center = sum(m * c for m, c, _ in parts) / mass if mass > 0 else np.zeros(3)
    inertia = np.zeros((3, 3))
    for m, c, I in parts:
        d = c - center
        inertia += I + m * (d @ d * np.eye(3) - np.outer(d, d))
    return mass, center, inertia


def welded(name, parts):
    """One body of several rigidly joined: ``parts`` is a list of (Body, Transform: the part's frame in the new
    body's frame); mass properties :func:`combined`. The parts were checked when they were made, so the sum is
    taken as it is."""
    mass, com, inertia = combined([(body.mass, pose.apply(body.com), pose.rotation @ body.inertia @ pose.rotation.T)
                                   for body, pose in parts])
    return Body(name, mass=mass, com=com, inertia=inertia, check_inertia="none")
