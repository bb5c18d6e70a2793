"""A flexible beam clamped to a rigid hub turning about B's z axis: prescribed or free hub rotation, and the
spin-up manoeuvre of Kane, Ryan & Banerjee (J. Guidance, Control, and Dynamics 10(2):139–151, 1987), which
:func:`multibody.simulate.spin_up.simulate_spin_up` runs.

The hub is the rigid body B (origin fixed at the hub centre, rotating about z at rate Ω); the beam is clamped
at radius ``beam.root`` along B's x axis. With ω = (0, 0, Ω) and v = 0, the floating-frame equations
M u̇ = f + [N; F; 0] of :func:`~multibody.flexible.floating_frame_equations` reduce to

    prescribed Ω(t):  M_ee ë = f_e − M_eΩ Ω̇,             hub torque τ = M_Ωe ë + M_ΩΩ Ω̇ − f_Ω,
    free hub:         [I_h + M_ΩΩ  M_Ωe; M_eΩ  M_ee] [Ω̇; ë] = [τ + f_Ω; f_e].
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..dynamics.beam_equations import floating_frame_equations, momentum_and_energy
from ..errors import ModelError
from .beam import Beam
from .body import FlexibleBeam

if TYPE_CHECKING:
    from ..model import Model

_Z = 2  # the hub axis, B's z, is row 2 of the [angular; linear; elastic] equations


def kane_ryan_banerjee_beam():
    """The uniform beam of the spin-up benchmark (Kane, Ryan & Banerjee, J. Guidance 10(2):139–151, 1987):
    L = 10 m, E = 7e10 Pa, A = 4e-4 m², I = 2e-7 m⁴, ρ = 3000 kg/m³, so ρA = 1.2 kg/m, EA = 2.8e7 N and
    EI = 1.4e4 N·m² (first bending frequency 3.80 rad/s), root on the hub axis.

    The same section data define the spin-up of Simo & Vu-Quoc (J. Appl. Mech. 53, 1986, "The plane case:
    Part II", doi:10.1115/1.3171871; CMAME 66, 1988, Example 5.1, whose curve is SIMO_VU_QUOC_1988_TIP), Ansys
    verification case VM258 (EA = 2.8e7, EI = 1.4e4, ρA = 1.2 kg/m) and
    AeroBeams.jl's test/examples/spinupRobotArm.jl (L = 10, EA = 2.8e7, EI = 1.4e4, ρA = 1.2, Ts = 15 s).
    """
    young, area, second_moment, density = 7e10, 4e-4, 2e-7, 3000.0
    return Beam(length=10.0, mass_per_length=density * area, EA=young * area, EIv=young * second_moment)


# The published spin-up curve: Simo & Vu-Quoc, CMAME 66:125–161 (1988), Example 5.1 — the beam of
# kane_ryan_banerjee_beam() on spin_up_profile with Ωs = 6 rad/s, Ts = 15 s: in-plane tip displacement in the
# turning frame relative to the rigidly turned tip (t [s], v [m]), as digitized from the paper's figure and shipped
# as reference data by hortulanusT/dynLattice, tests/transient/ref_data/test1_ref_u2.csv (commit 68e0403816f2);
# its rows on the half-second grid, and the peak (−0.5723 m at 6.75 s). Digitizing is good to a few millimetres.
SIMO_VU_QUOC_1988_TIP = np.array([
    (0.5, -0.0023), (1.5, -0.0675), (2, -0.1114), (2.5, -0.1610), (4.5, -0.4225), (5, -0.4789), (5.5, -0.5159),
    (6, -0.5462), (6.5, -0.5697), (6.75, -0.5723), (7, -0.5686), (7.5, -0.5582), (8, -0.5415), (8.5, -0.5029),
    (9, -0.4559), (9.5, -0.4110), (10.5, -0.2962), (11, -0.2424), (11.5, -0.1886), (12, -0.1396), (12.5, -0.0989),
    (13, -0.0571), (13.5, -0.0336)])


def spin_up_profile(t, final_rate, duration):
    """Kane–Ryan–Banerjee spin-up: Ω(t) = (Ωs/Ts)[t − (Ts/2π) sin(2πt/Ts)] for t < Ts, then Ωs.

    Returns the hub angle [rad], rate Ω [rad/s] and angular acceleration Ω̇ [rad/s²] at time t [s].
    """
    if duration <= 0:
        raise ModelError(f"spin_up_profile: duration Ts must be positive, got {duration!r} s")
    if t >= duration:
        return final_rate * (t - 0.5 * duration), final_rate, 0.0
    phase = 2.0 * np.pi * t / duration
    angle = final_rate / duration * (0.5 * t**2 + (duration / (2 * np.pi)) ** 2 * (np.cos(phase) - 1.0))
    rate = final_rate / duration * (t - duration / (2 * np.pi) * np.sin(phase))
    return angle, rate, final_rate / duration * (1.0 - np.cos(phase))


def prescribed_hub_accelerations(fb, rate, rate_dot, e, e_dot, stiffening=True):
    """Elastic accelerations ë (n,) [per s²] and the hub torque τ [N·m] that drives the hub at the
    prescribed rate Ω [rad/s] and acceleration Ω̇ [rad/s²]."""
    M, f = floating_frame_equations(fb, e, e_dot, (0.0, 0.0, rate), stiffening=stiffening)
    e_ddot = np.linalg.solve(M[6:, 6:], f[6:] - M[6:, _Z] * rate_dot)
    return e_ddot, M[_Z, 6:] @ e_ddot + M[_Z, _Z] * rate_dot - f[_Z]


def free_hub_accelerations(fb, hub_inertia, rate, e, e_dot, torque=0.0, stiffening=True):
    """Hub angular acceleration Ω̇ [rad/s²] and ë (n,) of a hub of moment of inertia ``hub_inertia`` [kg·m²]
    about z, free to turn under the applied ``torque`` [N·m]."""
    M, f = floating_frame_equations(fb, e, e_dot, (0.0, 0.0, rate), stiffening=stiffening)
    rows = np.r_[_Z, 6:M.shape[0]]
    A = M[np.ix_(rows, rows)]
    A[0, 0] += hub_inertia
    x = np.linalg.solve(A, np.r_[torque + f[_Z], f[6:]])
    return x[0], x[1:]


def hub_momentum_and_energy(fb, hub_inertia, rate, e, e_dot, stiffening=True):
    """Angular momentum about the hub axis [kg·m²/s] and total energy (kinetic + elastic) [J] of hub and beam."""
    _, angular, kinetic, elastic = momentum_and_energy(fb, e, e_dot, (0.0, 0.0, rate), stiffening=stiffening)
    return hub_inertia * rate + angular[_Z], 0.5 * hub_inertia * rate**2 + kinetic + elastic


def spin_up_model(fb, stiffening=True) -> Model:
    """The hub and beam of :func:`multibody.simulate.spin_up.simulate_spin_up` as a Model: the hub (body "hub", 1 kg, inertia 1 kg·m²: its
    motion is prescribed) turning about the world z axis by the revolute joint "hub_joint", and the beam of ``fb``
    (a clamped :class:`~multibody.flexible.beam.DiscretizedBeam`) clamped to it as the :class:`FlexibleBeam`
    "blade"; no gravity. q = (hub angle, e), v = (Ω, ė)."""
    from ..model import Body, Fixed, Model, Revolute
    b, n = fb.beam, fb.n
    modes = None if np.array_equal(fb.basis, np.eye(fb.basis.shape[0], n)) else n // len(fb.components)
    model = Model("spin-up", gravity=(0.0, 0.0, 0.0))
    model.add(Body("hub", mass=1.0, inertia=np.eye(3)), joint=Revolute((0, 0, 1)))
    blade = FlexibleBeam("blade", b.length, b.mass_per_length, b.EA, b.EIv, b.EIw, root=b.root,
                         polar_inertia=b.polar_inertia, elements=fb.elements, modes=modes, components=fb.components,
                         stiffening=stiffening)
    if blade.discretization.n != n or not np.allclose(blade.discretization.basis, fb.basis, rtol=0, atol=1e-12):
        raise ModelError(f"spin_up_model: the beam's discretization ({fb.elements} elements, components "
                         f"{fb.components!r}, {n} coordinates) is not one that discretize(beam, elements, 'clamped', "
                         "components, modes) makes")
    model.add(blade, parent="hub", joint=Fixed())
    return model


def tip_displacement(trajectory: Any, body: str = "blade") -> np.ndarray:
    """(T, 3) displacement Φ e [m] of the free end of the flexible beam ``body`` in its floating frame B, at each
    sample of ``trajectory`` (a run of a model with that beam, e.g. :func:`multibody.simulate.spin_up.simulate_spin_up`'s)."""
    model = trajectory.model
    beam = model.body(body)
    if not isinstance(beam, FlexibleBeam):
        raise ModelError(f"tip_displacement: body '{body}' of model '{model.name}' is a {type(beam).__name__}, "
                         "not a FlexibleBeam")
    # the elastic coordinates come last in q, beam after beam in body order
    start = model.nq - model.ne + sum(b.ne for b in model.bodies[:model.body_index(body)])
    return trajectory.q[:, start:start + beam.ne] @ beam.discretization.tip.T
