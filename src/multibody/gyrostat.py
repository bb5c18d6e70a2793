"""Gyrostats: an axisymmetric rotor D spinning inside a carrier body C (source document 000, eqs. 11–13).

Prescribed spin (eq. 12). Give the carrier body the inertia of carrier *and* rotor locked together; the
rotor's spin Ω relative to C about the unit axis c (C axes), with polar moment J, adds to C the inertia
torque (F_r*)_I = J [Ω(−ω₂c₁ + ω₁c₂) − Ω̇ c₃]·ω_r, i.e. the wrench about C's origin, in C axes,

    n = −J (Ω̇ c + Ω ω × c),     f = 0,

which :func:`rotor_forces` assembles as ``f_ext`` for :func:`multibody.rnea` / :func:`multibody.aba`.

Free spin (eq. 13). The rotor's relative rate u_n = ω^{D/C}·c is one more generalized speed: :func:`add_rotor`
adds the rotor to the model as a body on a revolute joint about c, so the compiled tree algorithms produce
eq. 13 exactly (the motor torque on the rotor is that joint's τ).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from .dynamics.kinematics import body_pose, body_velocity
from .errors import ModelError
from .model import Body, Revolute
from .spatial import Transform, _as_vector3

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .model import Model


@dataclass(frozen=True)
class Gyrostat:
    """An axisymmetric rotor in the body ``carrier``: spin ``axis`` (C axes, normalized) and polar moment of
    inertia ``polar_inertia`` J [kg·m²] about it."""

    carrier: str
    axis: tuple
    polar_inertia: float

    def __post_init__(self) -> None:
        axis = _as_vector3(self.axis, f"gyrostat on '{self.carrier}': axis")
        norm = np.linalg.norm(axis)
        if norm < 1e-12:
            raise ModelError(f"gyrostat on '{self.carrier}': axis must be non-zero, got {axis.tolist()}")
        object.__setattr__(self, "axis", tuple(axis / norm))
        J = float(self.polar_inertia)
        if not np.isfinite(J) or J <= 0:
            raise ModelError(f"gyrostat on '{self.carrier}': polar_inertia must be finite and positive, "
                             f"got {self.polar_inertia!r}")
        object.__setattr__(self, "polar_inertia", J)


def rotor_wrench(gyrostat: Gyrostat, omega: ArrayLike, spin: float, spin_rate: float) -> np.ndarray:
    """Wrench [moment; force] (6,) [N·m; N] of the spinning rotor on its carrier, about the carrier's origin in
    carrier axes (doc 000 eq. 12): n = −J (Ω̇ c + Ω ω × c).

    omega : (3,) carrier angular velocity in carrier axes [rad/s]; spin Ω [rad/s] and spin_rate Ω̇ [rad/s²]:
    the rotor's rate relative to the carrier and its derivative.
    """
    c, J = np.asarray(gyrostat.axis), gyrostat.polar_inertia
    return np.r_[-J * (spin_rate * c + spin * np.cross(np.asarray(omega, dtype=float), c)), 0.0, 0.0, 0.0]


def rotor_forces(model: Model, gyrostats: Sequence[Gyrostat], q: ArrayLike, v: ArrayLike, spins: ArrayLike,
                 spin_rates: ArrayLike) -> np.ndarray:
    """External forces (nbodies, 6) for ``mb.rnea`` / ``mb.aba`` (``f_ext``) from rotors with prescribed spins
    (sequences matching ``gyrostats``)."""
    spins, spin_rates = np.atleast_1d(spins), np.atleast_1d(spin_rates)
    if spins.shape != (len(gyrostats),) or spin_rates.shape != (len(gyrostats),):
        raise ValueError(f"rotor_forces: expected one spin and one spin rate per gyrostat ({len(gyrostats)}), "
                         f"got shapes {spins.shape} and {spin_rates.shape}")
    forces = np.zeros((model.nbodies, 6))
    for g, spin, rate in zip(gyrostats, spins, spin_rates):
        R = body_pose(model, q, g.carrier)[0]
        omega = R.T @ body_velocity(model, q, v, g.carrier)[:3]
        forces[model.body_index(g.carrier)] += rotor_wrench(g, omega, spin, rate)
    return forces


def add_rotor(model: Model, gyrostat: Gyrostat, name: str, mass: float, transverse_inertia: float,
              position: ArrayLike = (0.0, 0.0, 0.0)) -> Body:
    """Add the rotor of ``gyrostat`` as a body ``name`` on a revolute joint about its axis (free spin, doc 000
    eq. 13): mass [kg], transverse moment of inertia about its centre [kg·m²] (≥ J/2), centre at ``position``
    in carrier coordinates [m]. The carrier body must then hold the carrier's inertia only. Returns the body."""
    c = np.asarray(gyrostat.axis)
    inertia = gyrostat.polar_inertia * np.outer(c, c) + transverse_inertia * (np.eye(3) - np.outer(c, c))
    rotor = Body(name, mass=mass, com=(0.0, 0.0, 0.0), inertia=inertia)
    return model.add(rotor, parent=gyrostat.carrier, joint=Revolute(axis=c),
                     placement=Transform(translation=position))


def dual_spin_stability(inertia: Iterable[float], carrier_rate: float, rotor_momentum: float) -> tuple[bool, float]:
    """Classical stability test of a torque-free dual-spin spacecraft spinning about its principal axis 3,
    the rotor axis (e.g. Hughes, *Spacecraft Attitude Dynamics*, 1986, §7.2; Likins, J. Spacecraft 4(12), 1967).

    inertia : (I1, I2, I3) principal moments of the whole vehicle, rotor locked [kg·m²]; carrier_rate ω₀
    [rad/s]; rotor_momentum h = J Ω, the rotor's momentum relative to the carrier [kg·m²/s].

    The transverse rates obey I1 ω̇1 = −k2 ω2, I2 ω̇2 = k1 ω1 with k_i = (I3 − I_i) ω₀ + h, so the spin is
    stable when k1 k2 > 0 (nutation at √(k1k2/(I1I2))) and unstable when k1 k2 < 0 (growth √(−k1k2/(I1I2))).
    Returns (stable, rate): rate is the nutation frequency or the growth rate [rad/s].
    """
    I1, I2, I3 = (float(x) for x in inertia)
    k1, k2 = (I3 - I1) * carrier_rate + rotor_momentum, (I3 - I2) * carrier_rate + rotor_momentum
    product = k1 * k2 / (I1 * I2)
    return product > 0, float(np.sqrt(abs(product)))
