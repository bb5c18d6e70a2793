"""Closed-loop test mechanisms (planar, modelled in 3D so their loop-closure rows are redundant) and their
hand-written reduced models."""
import numpy as np
from scipy import optimize

import multibody as mb

G = 9.81
CRANK, COUPLER, ROCKER, GROUND = 0.3, 0.8, 0.6, 0.7  # four-bar link lengths [m]
MASSES = (1.0, 1.5, 1.2)


def rod(name, length, mass):
    """Uniform slender rod along its x axis, origin at one end."""
    return mb.Body(name, mass=mass, com=(length / 2, 0, 0),
                   inertia=np.diag([1e-4, mass * length**2 / 12, mass * length**2 / 12]))


def four_bar(revolute_loop=False):
    """Crank–coupler–rocker in the xy plane, gravity −y, closed by Connect (and Align for a full revolute)."""
    model = mb.Model("four_bar", gravity=(0, -G, 0))
    z = mb.Revolute((0, 0, 1))
    model.add(rod("crank", CRANK, MASSES[0]), "world", z)
    model.add(rod("coupler", COUPLER, MASSES[1]), "crank", mb.Revolute((0, 0, 1)),
              mb.Transform(translation=(CRANK, 0, 0)))
    model.add(rod("rocker", ROCKER, MASSES[2]), "world", mb.Revolute((0, 0, 1)),
              mb.Transform(translation=(GROUND, 0, 0)))
    model.add_constraint(mb.Connect("coupler", (COUPLER, 0, 0), "rocker", (ROCKER, 0, 0)))
    if revolute_loop:
        model.add_constraint(mb.Align("coupler", (0, 0, 1), "rocker", (0, 0, 1)))
    return model


def four_bar_state(model, crank_rate=2.0):
    return mb.assemble(model, np.array([1.0, -0.5, 1.8]), np.array([crank_rate, 0.0, 0.0]))


def _e(angle):
    return np.array([np.cos(angle), np.sin(angle)])


def _e_perp(angle):
    return np.array([-np.sin(angle), np.cos(angle)])


def four_bar_angles(theta):
    """Absolute link angles (crank, coupler, rocker) [rad] at crank angle θ: the coupler tip C is the intersection
    of the circles about B (radius coupler) and D (radius rocker), on the elbow branch of :func:`four_bar_state`."""
    B, D = CRANK * _e(theta), np.array([GROUND, 0.0])
    d = np.linalg.norm(D - B)
    along = (COUPLER**2 - ROCKER**2 + d**2) / (2 * d)
    u = (D - B) / d
    C = B + along * u + np.sqrt(COUPLER**2 - along**2) * np.array([-u[1], u[0]])
    return np.array([theta, np.arctan2(*(C - B)[::-1]), np.arctan2(*(C - D)[::-1])])


def four_bar_reduced(theta, rate):
    """θ̈ of the 1-DOF reduced model (planar vector loop a e(θ) + b e(φ₂) − c e(φ₃) = d x̂, written by hand).

    Velocity ratios k and bias κ from the differentiated loop: φ̇ = k θ̇, φ̈ = k θ̈ + κ θ̇². d'Alembert's principle
    along δθ: Σ m c̈ · ∂c/∂θ + I φ̈ ∂φ/∂θ + m g ∂y/∂θ = 0, linear in θ̈."""
    _, p2, p3 = four_bar_angles(theta)
    a, b, c = CRANK, COUPLER, ROCKER
    loop = np.column_stack([b * _e_perp(p2), -c * _e_perp(p3)])
    k2, k3 = np.linalg.solve(loop, -a * _e_perp(theta))
    kap2, kap3 = np.linalg.solve(loop, a * _e(theta) + b * k2**2 * _e(p2) - c * k3**2 * _e(p3))
    # each body: (∂c/∂θ, c̈ for θ̈ = 1 and θ̇ = 0, c̈ for θ̈ = 0 and θ̇ = 1, ∂φ/∂θ, κ_φ)
    bodies = [
        (a / 2 * _e_perp(theta), a / 2 * _e_perp(theta), -a / 2 * _e(theta), 1.0, 0.0),
        (a * _e_perp(theta) + b / 2 * k2 * _e_perp(p2), a * _e_perp(theta) + b / 2 * k2 * _e_perp(p2),
         -a * _e(theta) + b / 2 * (kap2 * _e_perp(p2) - k2**2 * _e(p2)), k2, kap2),
        (c / 2 * k3 * _e_perp(p3), c / 2 * k3 * _e_perp(p3), c / 2 * (kap3 * _e_perp(p3) - k3**2 * _e(p3)), k3, kap3),
    ]
    lhs = rhs = 0.0
    for (dc, acc_theta, acc_rate, dphi, kap), m, L in zip(bodies, MASSES, (a, b, c)):
        inertia = m * L**2 / 12
        lhs += m * acc_theta @ dc + inertia * dphi * dphi
        rhs -= (m * acc_rate @ dc + inertia * kap * dphi) * rate**2 + m * G * dc[1]
    return rhs / lhs


SC_CRANK, SC_ROD = 0.2, 0.6  # slider-crank lengths [m]
SC_MASSES = (1.0, 2.0, 3.0)  # crank, rod, piston


def slider_crank(speed):
    """Crank at the origin, rod, piston on a prismatic x joint, gravity −y; the crank driven at ``speed`` [rad/s]
    by the constraint q̇_crank = speed (its multiplier is the driving torque)."""
    model = mb.Model("slider_crank", gravity=(0, -G, 0))
    model.add(rod("crank", SC_CRANK, SC_MASSES[0]), "world", mb.Revolute((0, 0, 1)))
    model.add(rod("rod", SC_ROD, SC_MASSES[1]), "crank", mb.Revolute((0, 0, 1)),
              mb.Transform(translation=(SC_CRANK, 0, 0)))
    model.add(mb.Body("piston", mass=SC_MASSES[2], inertia=np.diag([0.01, 0.01, 0.01])), "world",
              mb.Prismatic((1, 0, 0)))
    model.add_constraint(mb.Connect("rod", (SC_ROD, 0, 0), "piston", (0, 0, 0)))
    drive = np.array([[1.0, 0.0, 0.0]])
    model.add_constraint(mb.Nonholonomic(lambda q: drive, size=1, b=lambda q: np.array([speed]), name="drive"))
    return model


def piston_position(theta, lib=np):
    """Closed-form slider-crank kinematics x(θ) = r cos θ + √(l² − r² sin² θ)."""
    return SC_CRANK * lib.cos(theta) + lib.sqrt(SC_ROD**2 - (SC_CRANK * lib.sin(theta)) ** 2)


def slider_crank_torque(speed):
    """τ(θ) driving the crank at constant ``speed`` by virtual work: τ θ̇ = dE/dt, so τ = dE/dθ with
    E = Σ ½ m_k |ċ_k|² + ½ I_k φ̇_k² + m_k g y_k from the closed-form positions (sympy)."""
    import sympy as sp
    t = sp.symbols("theta")
    B = sp.Matrix([SC_CRANK * sp.cos(t), SC_CRANK * sp.sin(t)])
    P = sp.Matrix([piston_position(t, sp), 0])
    psi = sp.atan2(P[1] - B[1], P[0] - B[0])
    E = 0
    for c, phi, m, inertia in ((B / 2, t, SC_MASSES[0], SC_MASSES[0] * SC_CRANK**2 / 12),
                               ((B + P) / 2, psi, SC_MASSES[1], SC_MASSES[1] * SC_ROD**2 / 12),
                               (P, 0, SC_MASSES[2], 0)):
        dc = sp.diff(c, t) * speed
        E += m * dc.dot(dc) / 2 + inertia * (sp.diff(phi, t) * speed) ** 2 / 2 + m * G * c[1]
    return sp.lambdify(t, sp.diff(E, t), "numpy")


def hanging_four_bar():
    """The four-bar of :func:`four_bar` at rest: θ with θ̈(θ, 0) = 0 in the hand-written reduced model, and ω² =
    −∂θ̈/∂θ there (the reduced model's own linearization)."""
    theta = optimize.brentq(lambda th: four_bar_reduced(th, 0.0), -2.0, -1.0)  # crank hanging down (−y)
    h = 1e-5
    omega2 = -(four_bar_reduced(theta + h, 0.0) - four_bar_reduced(theta - h, 0.0)) / (2 * h)
    angles = four_bar_angles(theta)
    q = np.array([angles[0], angles[1] - angles[0], angles[2]])  # coupler angle relative to the crank
    return theta, omega2, q
