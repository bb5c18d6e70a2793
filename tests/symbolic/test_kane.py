"""Kane's method: T. R. Kane, "A new method for formulating equations of motion" worked example, gyrostats (eqs.
11–13) and a nonholonomic rolling disk."""
import functools

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from sympy.physics.mechanics import (KanesMethod, Particle, Point, ReferenceFrame, RigidBody, dynamicsymbols,
                                     inertia)

from multibody import ModelError
from multibody import symbolic as sym
from symbolic_systems import at_random_states, rod_and_particle

t = dynamicsymbols._t


@pytest.fixture(scope="module")
def example():
    return rod_and_particle()


@pytest.fixture(scope="module")
def example_kane(example):
    e = example
    return sym.kane(e["frame"], e["q"], e["u"], e["kd"], e["bodies"], e["loads"])


def test_kane_worked_example_gives_the_corrected_equations(example, example_kane):
    """Kane: the four short equations, no trigonometric terms."""
    m, L, k, L0 = example["symbols"]
    q1, q2, q3, q4 = example["q"]
    u1, u2, u3, u4 = example["u"]
    d1, d2, d3, d4 = [x.diff(t) for x in example["u"]]
    expected = [2 * d1 + d4 - u3 * (2 * u2 + (q4 - L) * u3),
                2 * d2 + (q4 - L) * d3 + 2 * u3 * u4 + 2 * u1 * u3,
                (q4 - L) * d2 + (q4**2 - 2 * q4 * L + 4 * L**2 / 3) * d3 + (q4 - L) * (2 * u4 * u3 + u1 * u3),
                d1 + d4 - u3 * (u2 + (q4 - L) * u3) + k / m * (q4 - L0)]
    kane_equations = example_kane.equations  # F_r + F_r* (= 0)
    for r in range(4):
        assert sp.simplify(kane_equations[r] / (-m) - expected[r]) == 0
    assert not any(eq.has(sp.sin, sp.cos) for eq in kane_equations)


def test_kane_partial_velocities_match_table_2(example, example_kane):
    """Table 2 of Kane: v^{B*}_r = b1, b2, 0, 0 and ω^B_r = 0, 0, b3, 0 (rod axes)."""
    W, V = example_kane.partial_velocities["B"]
    assert W == sp.Matrix([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]])
    assert V == sp.Matrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]])


def test_kane_generalized_forces_sum_to_the_equations(example, example_kane):
    e = example_kane
    variables = [*e.udot, *example["q"], *example["u"], *example["symbols"]]
    for total, equations in at_random_states([e.generalized_active_forces + e.generalized_inertia_forces,
                                              e.equations], variables):
        assert np.allclose(total, equations, atol=1e-12)


def test_kane_with_potential_equals_kane_with_spring_forces(example, example_kane):
    e = example
    m, L, k, L0 = e["symbols"]
    with_potential = sym.kane(e["frame"], e["q"], e["u"], e["kd"], e["bodies"],
                              potential_energy=k * (e["q"][3] - L0) ** 2 / 2, simplify=False)
    for a, b in at_random_states([with_potential.forcing, example_kane.forcing], [*e["q"], *e["u"], *e["symbols"]]):
        assert np.allclose(a, b, atol=1e-12)


def test_kane_rejects_kinematic_equations_that_cannot_be_solved(example):
    e = example
    bad = [e["u"][0] - e["q"][0].diff(t)] * 4
    with pytest.raises(ModelError, match="kinematic_equations"):
        sym.kane(e["frame"], e["q"], e["u"], bad, e["bodies"], e["loads"])


# ---------------------------------------------------------------------------------------------------------------
# Gyrostat (Kane, eqs. 11–13)
# ---------------------------------------------------------------------------------------------------------------
def carrier_setup():
    """Carrier C oriented by 3-2-1 Euler angles q, with u = ω components in C."""
    q = dynamicsymbols("q1:4")
    u = dynamicsymbols("u1:4")
    N = ReferenceFrame("N")
    C = N.orientnew("C", "Body", q, "321")
    w = C.ang_vel_in(N).express(C)
    kd = [(w & v) - ui for v, ui in zip((C.x, C.y, C.z), u)]
    C.set_ang_vel(N, u[0] * C.x + u[1] * C.y + u[2] * C.z)
    O = Point("O")
    O.set_vel(N, 0)
    return N, C, O, q, u, kd


GYRO = dict(I1=2.0, I2=3.0, I3=4.0, J=0.8, spin=15.0)


@functools.lru_cache(maxsize=None)
def gyrostat_eom(free_spin):
    N, C, O, q, u, kd = carrier_setup()
    I1, I2, I3, J = sp.symbols("I1 I2 I3 J", positive=True)
    carrier = RigidBody("C", O, C, sp.Integer(1), (inertia(C, I1, I2, I3), O))
    if free_spin:
        spin = dynamicsymbols("u4")
        qs, us = [*q, dynamicsymbols("q4")], [*u, spin]
        kd = kd + [spin - qs[3].diff(t)]
    else:
        spin, qs, us = sp.Symbol("Omega"), q, u
    eom = sym.kane(N, qs, us, kd, [carrier], gyrostats=[sym.Gyrostat(carrier, C.z, J, spin)], simplify=False)
    return eom, (I1, I2, I3, J), C, N, q, u, spin


@pytest.mark.parametrize("free_spin", [False, True])
def test_torque_free_gyrostat_conserves_angular_momentum(free_spin):
    eom, (I1, I2, I3, J), C, N, q, u, spin = gyrostat_eom(free_spin)
    params = {I1: GYRO["I1"], I2: GYRO["I2"], I3: GYRO["I3"], J: GYRO["J"]}
    if not free_spin:
        params[spin] = GYRO["spin"]
    f = eom.to_numeric(params, backend="numpy")
    x0 = np.r_[0.1, 0.2, 0.3, *([0.0] if free_spin else []), 0.3, -0.2, 0.5, *([GYRO["spin"]] if free_spin else [])]
    sol = solve_ivp(f.rhs, (0, 3.0), x0, method="DOP853", rtol=1e-12, atol=1e-12)
    # H = I·ω + J Ω c3 in inertial axes
    w = sp.Matrix(u)
    H_body = sp.diag(I1, I2, I3) * w + sp.Matrix([0, 0, J * spin])
    H_inertial = (N.dcm(C) * H_body).xreplace(params)
    Hf = sp.lambdify([*eom.q, *eom.u, *([] if free_spin else [spin])], H_inertial, "numpy")
    extra = [] if free_spin else [GYRO["spin"]]
    H = np.array([np.ravel(Hf(*x, *extra)) for x in sol.y.T])
    drift = np.abs(H - H[0]).max() / np.linalg.norm(H[0])
    assert drift < 1e-10
    if free_spin:  # free rotor, no axial torque: the rotor's axial momentum J (ω3 + Ω) is constant
        axial = GYRO["J"] * (sol.y[6] + sol.y[7])
        assert np.ptp(axial) < 1e-10 * abs(axial[0])


def test_free_gyrostat_matches_carrier_plus_rotor_by_sympy_kanesmethod():
    """Oracle: the rotor as its own RigidBody (frame spun by q4 about c3) in sympy's KanesMethod."""
    eom, (I1, I2, I3, J), C, N, q, u, spin = gyrostat_eom(free_spin=True)
    q4, u4 = dynamicsymbols("q4 u4")
    K = sp.Symbol("K", positive=True)
    O = Point("O")
    O.set_vel(N, 0)
    D = C.orientnew("Rotor", "Axis", [q4, C.z])
    D.set_ang_vel(C, u4 * C.z)
    carrier = RigidBody("C", O, C, 1, (inertia(C, I1 - K, I2 - K, I3 - J), O))
    rotor = RigidBody("D", O, D, 1, (inertia(D, K, K, J), O))
    kd = carrier_setup()[5] + [u4 - q4.diff(t)]
    km = KanesMethod(N, [*q, q4], [*u, u4], kd_eqs=kd)
    km.kanes_equations([carrier, rotor], [])
    values = {I1: 2.0, I2: 3.0, I3: 4.0, J: 0.8, K: 0.5}
    rng = np.random.default_rng(3)
    state = dict(zip([*q, q4, *u, u4], rng.normal(size=8)))
    for ours, theirs in ((eom.mass_matrix, km.mass_matrix), (eom.forcing, km.forcing)):
        a = np.array(ours.xreplace(values).xreplace(state), dtype=float)
        b = np.array(sp.Matrix(theirs).xreplace(values).xreplace(state), dtype=float)
        assert np.allclose(a, b, atol=1e-12)


def test_gyrostat_axis_must_be_a_unit_vector():
    N, C, O, q, u, kd = carrier_setup()
    body = RigidBody("C", O, C, 1, (inertia(C, 1, 1, 1), O))
    with pytest.raises(ModelError, match="unit vector"):
        sym.kane(N, q, u, kd, [body], gyrostats=[sym.Gyrostat(body, 2 * C.z, 1, 3)], simplify=False)


# ---------------------------------------------------------------------------------------------------------------
# Rolling disk (nonholonomic; dependent speeds eliminated)
# ---------------------------------------------------------------------------------------------------------------
def rolling_disk():
    """Disk of radius r, mass m: yaw q1, lean q2, spin q3, center (q4, q5); u1..u3 = ω in the lean frame L,
    u4..u6 = velocity of the center in L (dependent: rolling without slipping)."""
    q1, q2, q3, q4, q5 = q = dynamicsymbols("q1:6")
    u = dynamicsymbols("u1:7")
    m, r, g = sp.symbols("m r g", positive=True)
    N = ReferenceFrame("N")
    Yf = N.orientnew("Y", "Axis", [q1, N.z])
    L = Yf.orientnew("L", "Axis", [q2, Yf.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    R.set_ang_vel(N, u[0] * L.x + u[1] * L.y + u[2] * L.z)
    Dmc = Point("D")
    Dmc.set_vel(N, u[3] * L.x + u[4] * L.y + u[5] * L.z)
    omega_from_q = (L.ang_vel_in(N) + q3.diff(t) * L.y).express(L)
    kd = [(omega_from_q & v) - ui for v, ui in zip((L.x, L.y, L.z), u[:3])]
    kd += [q4.diff(t) - (Dmc.vel(N) & N.x), q5.diff(t) - (Dmc.vel(N) & N.y)]
    rolling = Dmc.vel(N) - R.ang_vel_in(N).cross(r * L.z)   # contact point at rest
    constraints = [rolling & v for v in (L.x, L.y, L.z)]
    disk = RigidBody("disk", Dmc, R, m, (inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), Dmc))
    loads = [(Dmc, -m * g * N.z)]
    return dict(N=N, L=L, R=R, D=Dmc, q=q, u=u, kd=kd, constraints=constraints, disk=disk, loads=loads,
                symbols=(m, r, g))


@pytest.fixture(scope="module")
def disk():
    d = rolling_disk()
    d["eom"] = sym.kane(d["N"], d["q"], d["u"], d["kd"], [d["disk"]], d["loads"], dependent_speeds=d["u"][3:],
                        velocity_constraints=d["constraints"])
    return d


def test_rolling_disk_matches_sympy_kanesmethod(disk):
    d = disk
    km = KanesMethod(d["N"], d["q"], d["u"][:3], kd_eqs=d["kd"], u_dependent=d["u"][3:],
                     velocity_constraints=d["constraints"])
    km.kanes_equations([d["disk"]], d["loads"])
    m, r, g = d["symbols"]
    rng = np.random.default_rng(7)
    values = {m: 1.3, r: 0.4, g: 9.81}
    for _ in range(3):
        state = dict(zip([*d["q"], *d["u"][:3]], rng.normal(size=8)))
        # both keep the dependent speeds as symbols: substitute their values
        dep = {k: v.xreplace(values).xreplace(state) for k, v in d["eom"].dependent_speeds.items()}
        ours = np.linalg.solve(*(np.array(M.xreplace(values).xreplace(dep).xreplace(state), dtype=float)
                                 for M in (d["eom"].mass_matrix, d["eom"].forcing)))
        M, F = (np.array(sp.Matrix(x).xreplace(values).xreplace(dep).xreplace(state), dtype=float)
                for x in (km.mass_matrix, km.forcing))
        assert np.allclose(ours.ravel(), np.linalg.solve(M, F).ravel()[:3], atol=1e-10)


def test_rolling_disk_textbook_equations(disk):
    """The closed form of the rolling thin disk with u = ω in the lean frame L (axle L.y), as in Kane &
    Levinson's treatment: u̇1 = (4g sin q2 + 6r u2 u3 − r u3² tan q2)/(5r), u̇2 = −⅔ u1 u3,
    u̇3 = u1 (u3 tan q2 − 2 u2)."""
    eom = disk["eom"]
    m, r, g = disk["symbols"]
    u1, u2, u3 = disk["u"][:3]
    q2 = disk["q"][1]
    expected = [(4 * g * sp.sin(q2) + 6 * r * u2 * u3 - r * u3**2 * sp.tan(q2)) / (5 * r),
                -sp.Rational(2, 3) * u1 * u3, u1 * (u3 * sp.tan(q2) - 2 * u2)]
    udot = eom.minimizer().xreplace(eom.dependent_speeds)
    assert all(sp.simplify(udot[i] - expected[i]) == 0 for i in range(3))


def test_rolling_disk_conserves_energy(disk):
    d = disk
    m, r, g = d["symbols"]
    values = {m: 1.0, r: 0.3, g: 9.81}
    f = d["eom"].to_numeric(values, backend="numpy")
    x0 = np.r_[0.0, 0.2, 0.0, 0.0, 0.0, 0.1, 6.0, 0.5]
    sol = solve_ivp(f.rhs, (0, 2.0), x0, method="DOP853", rtol=1e-11, atol=1e-11)
    w = d["R"].ang_vel_in(d["N"])
    v = d["D"].vel(d["N"])
    energy = (d["disk"].mass * (v & v) / 2 + (w & (d["disk"].central_inertia & w)) / 2
              + m * g * r * sp.cos(d["q"][1])).xreplace(d["eom"].dependent_speeds).xreplace(values)
    E = sp.lambdify([*d["eom"].q, *d["eom"].u], energy, "numpy")
    values_E = np.array([E(*x) for x in sol.y.T])
    assert np.ptp(values_E) < 1e-8 * abs(values_E[0])


def test_upright_rolling_disk_is_stable_above_the_critical_speed(disk):
    """Linearized about upright rolling at spin rate Ω: stable iff Ω² > g/(3r) (thin uniform disk)."""
    d = disk
    m, r, g = d["symbols"]
    values = {m: 1.0, r: 0.5, g: 9.81}
    critical = np.sqrt(9.81 / (3 * 0.5))
    for spin, stable in ((0.8 * critical, False), (1.2 * critical, True)):
        point = {**dict(zip(d["eom"].q, [0] * 5)), **dict(zip(d["eom"].u, [0, spin, 0])), **values}
        A, _ = d["eom"].linearize(point)
        growth = np.linalg.eigvals(np.array(A.xreplace(values), dtype=float)).real.max()
        assert (growth < 1e-9) == stable


@pytest.mark.parametrize("h, stable", [(0.0, False), (0.5, False), (1.5, True)])
def test_dual_spin_stability_switches_with_rotor_momentum(h, stable):
    """Spin ω0 about the intermediate axis c3 (I1 < I3 < I2) with rotor momentum h = JΩ: steady spin is stable
    iff (h + (I3 − I1) ω0)(h + (I3 − I2) ω0) > 0 (the classical dual-spin criterion, torque-free, no damping);
    here with I1, I2, I3 = 2, 4, 3 and ω0 = 1: iff h > 1."""
    eom, (I1, I2, I3, J), C, N, q, u, spin = gyrostat_eom(free_spin=False)
    values = {I1: 2.0, I2: 4.0, I3: 3.0, J: 0.5, spin: h / 0.5}
    point = {**dict(zip(q, [0, 0, 0])), **dict(zip(u, [0, 0, 1.0])), **values}
    A, _ = eom.linearize(point)
    rates = np.array(A[3:, 3:].xreplace(values), dtype=float)   # ∂u̇/∂u: the attitude angles do not enter
    growth = np.linalg.eigvals(rates).real.max()
    assert (growth < 1e-9) == stable



def cartesian_pendulum():
    """A particle at (x, y) on a rod of length l: u = (ẋ, ẏ), the holonomic constraint x² + y² − l² = 0."""
    x, y = q = dynamicsymbols("x y")
    u = dynamicsymbols("u_x u_y")
    m, l, g = sp.symbols("m l g", positive=True)
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u[0] * N.x + u[1] * N.y)
    system = dict(frame=N, q=q, u=u, kinematic_equations=[u[0] - x.diff(t), u[1] - y.diff(t)],
                  bodies=[Particle("P", P, m)], loads=[(P, -m * g * N.y)])
    return system, (m, l, g)


def test_configuration_constraints_give_the_pendulum_in_one_speed():
    """f(q) = 0 alone (no velocity constraints): its rate ḟ = 0 is solved for the dependent speed u_y."""
    system, (m, l, g) = cartesian_pendulum()
    x, y = system["q"]
    eom = sym.kane(**system, dependent_speeds=[system["u"][1]], dependent_coordinates=[y],
                   configuration_constraints=[x**2 + y**2 - l**2])
    ux, uy = system["u"]
    assert eom.u == (ux,) and sp.simplify(eom.dependent_speeds[uy] + ux * x / y) == 0
    f = eom.to_numeric({m: 1.0, l: 1.5, g: 9.81}, backend="numpy")
    for theta, rate in ((0.7, 1.3), (-0.4, -2.0)):
        # x = l sin θ: ẍ = l cos θ θ̈ − l sin θ θ̇², θ̈ = −(g/l) sin θ
        expected = 1.5 * np.cos(theta) * (-9.81 / 1.5 * np.sin(theta)) - 1.5 * np.sin(theta) * rate**2
        udot = f.udot([1.5 * np.sin(theta), -1.5 * np.cos(theta)], [1.5 * np.cos(theta) * rate])
        assert np.isclose(udot[0], expected, rtol=0, atol=1e-12)


def test_configuration_constraints_need_dependent_speeds():
    system, (m, l, g) = cartesian_pendulum()
    x, y = system["q"]
    with pytest.raises(ModelError, match="dependent_speeds"):
        sym.kane(**system, dependent_coordinates=[y], configuration_constraints=[x**2 + y**2 - l**2])
