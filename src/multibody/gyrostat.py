"""Gyrostats: an axisymmetric rotor D spinning inside a carrier body C (T. R. Kane, "A new method for formulating
equations of motion", eqs. 11–13).

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

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .dynamics.kinematics import body_pose, body_velocity, jacobian
from .errors import ModelError, checked_number
from .spatial import _as_vector3

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .model import Body, Model


class Gyrostat:
    """An axisymmetric rotor D spinning inside a carrier body C (Kane, eqs. 11–13): one class for the
    numeric model and for :func:`multibody.symbolic.kane`.

    Numeric (``carrier`` a body name of a :class:`multibody.Model`): ``axis`` the spin axis c in carrier axes
    (normalized), ``polar_inertia`` J [kg·m²] about it. With ``spin`` None the rotor is only described: use
    :meth:`multibody.Model.add_rotor` to make it a body on a revolute joint (free spin, eq. 13), or
    :func:`rotor_forces` for a spin given as a function of time (eq. 12). With a constant ``spin`` Ω [rad/s]
    the gyrostat is a force element (``model.add_force``): the carrier's body then holds carrier and rotor
    locked together, and the rotor's relative spin adds the moment n = −J Ω ω × c (eq. 12 with Ω̇ = 0) in every
    simulation, saved in model files as ``{type: gyrostat, ...}`` under ``forces``.

    Symbolic (``carrier`` a sympy RigidBody whose mass and inertia are those of the whole gyrostat): ``axis`` a
    unit Vector fixed in the carrier, ``polar_inertia`` an expression, ``spin`` Ω an expression in t (prescribed,
    eq. 12) or one of the generalized speeds (free rotor, eq. 13), for ``sym.kane(..., gyrostats=[...])``.
    """

    kind = "gyrostat"

    def __init__(self, carrier: Any, axis: Any, polar_inertia: Any, spin: Any = None, name: str | None = None) -> None:
        self.carrier, self.spin = carrier, spin
        if not isinstance(carrier, str):  # symbolic: checked by sym.kane, which knows the frames
            self.axis, self.polar_inertia, self.name = axis, polar_inertia, name or f"gyrostat {carrier}"
            return
        self.name = name or f"gyrostat on {carrier}"
        axis = _as_vector3(axis, f"gyrostat on '{carrier}': axis")
        norm = np.linalg.norm(axis)
        if norm < 1e-12:
            raise ModelError(f"gyrostat on '{carrier}': axis must be non-zero, got {axis.tolist()}")
        self.axis = tuple(float(x) for x in axis / norm)
        self.polar_inertia = checked_number(polar_inertia, f"gyrostat on '{carrier}': polar_inertia", positive=True)
        if spin is not None:
            self.spin = checked_number(spin, f"gyrostat on '{carrier}': spin")

    def __repr__(self) -> str:
        spin = "" if self.spin is None else f", spin={self.spin!r}"
        return f"Gyrostat({self.carrier!r}, axis={self.axis!r}, polar_inertia={self.polar_inertia!r}{spin})"

    def check(self, model: Model) -> None:
        """As a force element: ModelError unless the carrier is a body of ``model`` and the spin is a number."""
        if not isinstance(self.carrier, str) or self.spin is None:
            raise ModelError(f"{self!r}: a force element needs a carrier body name and a constant spin [rad/s] "
                             "(for a free rotor use model.add_rotor)")
        model.body_index(self.carrier)

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Q (nv,) = J_ωᵀ R n: the rotor's moment n = −J Ω ω × c (carrier axes, eq. 12) through the carrier's
        angular-velocity Jacobian J_ω (world axes) and orientation R."""
        R = body_pose(model, q, self.carrier)[0]
        omega = R.T @ body_velocity(model, q, v, self.carrier)[:3]
        moment = rotor_wrench(self, omega, self.spin, 0.0)[:3]
        return (R @ moment) @ jacobian(model, q, self.carrier)[:3]

    def potential_energy(self, model: Model, q: np.ndarray) -> float:
        """0: a rotor spinning at constant rate stores no potential energy."""
        return 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "name": self.name, "carrier": self.carrier, "axis": list(self.axis),
                "polar_inertia": self.polar_inertia, "spin": self.spin}


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
    in carrier coordinates [m]. The carrier body must then hold the carrier's inertia only. Returns the body
    (:meth:`multibody.Model.add_rotor`)."""
    return model.add_rotor(gyrostat, name, mass, transverse_inertia, position)


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
