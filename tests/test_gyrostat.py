"""Gyrostats (T. R. Kane, "A new method for formulating equations of motion" eqs. 11–13): the prescribed-spin rotor
wrench against an explicit rotor body and
Euler's gyrostat equations, angular momentum conservation, and the dual-spin stability criterion."""
import numpy as np
import pytest
import yaml
from scipy.integrate import solve_ivp

import multibody as mb
from multibody.gyrostat import Gyrostat, add_rotor, dual_spin_stability, rotor_forces, rotor_wrench
from multibody.io import model_to_dict

AXIS = np.array([0.3, -0.4, 0.866])
AXIS = AXIS / np.linalg.norm(AXIS)
J, I_T, M_ROTOR = 0.1, 0.06, 1.0
CARRIER = np.array([[0.9, 0.05, 0.0], [0.05, 1.9, 0.1], [0.0, 0.1, 1.4]])
ROTOR = J * np.outer(AXIS, AXIS) + I_T * (np.eye(3) - np.outer(AXIS, AXIS))


def locked_model(gravity=(0, 0, -9.81)):
    """Carrier and rotor locked into one body (both mass centres at the body origin)."""
    model = mb.Model("gyrostat, locked", gravity=gravity)
    model.add(mb.Body("carrier", mass=5.0 + M_ROTOR, inertia=CARRIER + ROTOR), joint=mb.Free())
    return model, [Gyrostat("carrier", AXIS, J)]


def rotor_model(gravity=(0, 0, -9.81), carrier=CARRIER, axis=AXIS):
    """The same system with the rotor as a body on a revolute joint (free spin, eq. 13)."""
    model = mb.Model("gyrostat, explicit rotor", gravity=gravity)
    model.add(mb.Body("carrier", mass=5.0, inertia=carrier), joint=mb.Free())
    add_rotor(model, Gyrostat("carrier", axis, J), "rotor", mass=M_ROTOR, transverse_inertia=I_T)
    return model


def random_state(rng):
    quat = rng.normal(size=4)
    q = np.r_[rng.normal(size=3), quat / np.linalg.norm(quat)]
    return q, rng.normal(size=6)


def test_rotor_wrench_matches_an_explicit_rotor_body():
    """aba on the locked body with the eq. 12 wrench gives the accelerations that rnea on the explicit rotor
    model balances with zero carrier force (the rotor's joint torque is then the spin motor's)."""
    rng = np.random.default_rng(1)
    locked, gyrostats = locked_model()
    explicit = rotor_model()
    for _ in range(3):
        q, v = random_state(rng)
        spin, spin_rate = rng.normal(scale=20.0), rng.normal(scale=5.0)
        a = mb.aba(locked, q, v, np.zeros(6), f_ext=rotor_forces(locked, gyrostats, q, v, [spin], [spin_rate]))
        tau = mb.rnea(explicit, np.r_[q, 0.7], np.r_[v, spin], np.r_[a, spin_rate])
        np.testing.assert_allclose(tau[:6], 0.0, atol=1e-10)
        omega_dot = a[:3]
        np.testing.assert_allclose(tau[6], J * (AXIS @ omega_dot + spin_rate), rtol=1e-10)


def test_prescribed_spin_gives_eulers_gyrostat_equations():
    """I ω̇ + ω × (I ω + J Ω c) = −J Ω̇ c for a free gyrostat (angular part; mass centre at the origin)."""
    locked, gyrostats = locked_model(gravity=(0, 0, 0))
    I = CARRIER + ROTOR
    omega, spin, spin_rate = np.array([0.3, -1.2, 0.8]), 40.0, -3.0
    q, v = np.r_[0, 0, 0, 1.0, 0, 0, 0], np.r_[omega, 0.1, 0.2, 0.3]
    a = mb.aba(locked, q, v, np.zeros(6), f_ext=rotor_forces(locked, gyrostats, q, v, [spin], [spin_rate]))
    expected = np.linalg.solve(I, -np.cross(omega, I @ omega + J * spin * AXIS) - J * spin_rate * AXIS)
    np.testing.assert_allclose(a[:3], expected, rtol=1e-12)
    np.testing.assert_allclose(rotor_wrench(gyrostats[0], omega, spin, spin_rate)[3:], 0.0)


def _integrate(model, q0, v0, t_end, f_ext=None):
    nq = q0.size

    def rhs(t, y):
        q, v = y[:nq], y[nq:]
        forces = None if f_ext is None else f_ext(q, v)
        return np.r_[mb.configuration_rate(model, q, v), mb.aba(model, q, v, np.zeros(v.size), f_ext=forces)]

    sol = solve_ivp(rhs, (0.0, t_end), np.r_[q0, v0], method="DOP853", rtol=1e-12, atol=1e-12)
    assert sol.success
    return sol.y[:nq].T, sol.y[nq:].T


def test_torque_free_gyrostat_with_free_rotor_conserves_angular_momentum():
    model = rotor_model(gravity=(0, 0, 0))
    q0 = np.r_[0.1, 0.2, 0.3, 1.0, 0, 0, 0, 0.0]
    v0 = np.r_[0.4, -0.3, 1.1, 0.5, 0.0, -0.2, 30.0]
    q, v = _integrate(model, q0, v0, 5.0)
    H0, H1 = mb.momentum(model, q[0], v[0])[0], mb.momentum(model, q[-1], v[-1])[0]
    assert np.linalg.norm(H1 - H0) < 1e-10 * np.linalg.norm(H0)
    assert np.linalg.norm(v[-1, :3] - v0[:3]) > 0.1  # the carrier nutated


def test_torque_free_gyrostat_with_prescribed_spin_conserves_angular_momentum():
    """Constant prescribed spin Ω: H = R (I ω + J Ω c) + p × m ṗ is constant (world axes, about the origin)."""
    locked, gyrostats = locked_model(gravity=(0, 0, 0))
    spin, I, mass = 30.0, CARRIER + ROTOR, 5.0 + M_ROTOR

    def momentum(q, v):
        R = mb.quat_to_rotation(q[3:7])
        return R @ (I @ v[:3] + J * spin * AXIS) + np.cross(q[:3], mass * R @ v[3:])

    q0, v0 = np.r_[0.1, 0.2, 0.3, 1.0, 0, 0, 0], np.r_[0.4, -0.3, 1.1, 0.5, 0.0, -0.2]
    q, v = _integrate(locked, q0, v0, 5.0, f_ext=lambda q, v: rotor_forces(locked, gyrostats, q, v, [spin], [0.0]))
    H0, H1 = momentum(q[0], v[0]), momentum(q[-1], v[-1])
    assert np.linalg.norm(H1 - H0) < 1e-10 * np.linalg.norm(H0)


# Vehicle (rotor locked) principal moments: the rotor axis z is the intermediate axis, unstable when h = 0.
VEHICLE = np.array([1.0, 2.0, 1.5])


@pytest.mark.parametrize("rotor_momentum, stable", [(0.0, False), (0.3, False), (0.8, True), (-0.8, True)])
def test_dual_spin_stability_switches_with_rotor_momentum(rotor_momentum, stable):
    """Spin about the intermediate axis is unstable for a rigid body, and is stabilized by a rotor of momentum
    |h| > (I2 − I3) ω₀ (criterion k1 k2 > 0). Checked on the explicit-rotor model: eigenvalues of the linearized
    transverse dynamics, and growth or boundedness of a perturbed nonlinear motion."""
    carrier = np.diag(VEHICLE) - (J * np.diag([0, 0, 1.0]) + I_T * np.diag([1.0, 1.0, 0]))
    model = rotor_model(gravity=(0, 0, 0), carrier=carrier, axis=(0, 0, 1.0))
    rate = 1.0
    predicted_stable, predicted_rate = dual_spin_stability(VEHICLE, rate, rotor_momentum)
    assert predicted_stable == stable
    q0, v0 = np.r_[0, 0, 0, 1.0, 0, 0, 0, 0], np.r_[0, 0, rate, 0, 0, 0, rotor_momentum / J]

    h = 1e-6
    A = np.zeros((2, 2))
    for k in range(2):
        dv = np.zeros(7)
        dv[k] = h
        A[:, k] = (mb.aba(model, q0, v0 + dv, np.zeros(7)) - mb.aba(model, q0, v0 - dv, np.zeros(7)))[:2] / (2 * h)
    eig = np.linalg.eigvals(A)
    measured = np.max(np.abs(eig.imag)) if stable else np.max(eig.real)
    np.testing.assert_allclose(measured, predicted_rate, rtol=1e-6)

    perturbed = v0 + np.r_[1e-4, 1e-4, 0, 0, 0, 0, 0]
    _, v = _integrate(model, q0, perturbed, 20.0)
    growth = np.max(np.linalg.norm(v[:, :2], axis=1)) / np.linalg.norm(perturbed[:2])
    assert (growth < 10.0) if stable else (growth > 100.0)


def test_bad_gyrostat_data_are_named():
    with pytest.raises(mb.ModelError, match="polar_inertia"):
        Gyrostat("carrier", (0, 0, 1), -1.0)
    with pytest.raises(mb.ModelError, match="axis"):
        Gyrostat("carrier", (0, 0, 0), 1.0)
    locked, gyrostats = locked_model()
    with pytest.raises(ValueError, match="one spin"):
        rotor_forces(locked, gyrostats, locked.neutral(), np.zeros(6), [1.0, 2.0], [0.0])
    with pytest.raises(mb.ModelError, match="unknown body"):
        rotor_forces(locked, [Gyrostat("wheel", (0, 0, 1), 1.0)], locked.neutral(), np.zeros(6), [1.0], [0.0])


def test_spinning_up_rotor_in_mb_simulate_keeps_total_angular_momentum():
    """A rotor spun up by an internal motor (Ω = 20 t) exchanges momentum with its carrier; the total
    R (I ω + J Ω c) + p × m ṗ stays constant. The rotor wrench enters mb.simulate as a time-dependent f_ext."""
    locked, gyrostats = locked_model(gravity=(0, 0, 0))
    I, mass = CARRIER + ROTOR, 5.0 + M_ROTOR
    forces = lambda t, q, v: rotor_forces(locked, gyrostats, q, v, [20.0 * t], [20.0])  # noqa: E731
    q0, v0 = np.r_[0.1, 0.2, 0.3, 1.0, 0, 0, 0], np.r_[0.4, -0.3, 1.1, 0.5, 0.0, -0.2]
    traj = mb.simulate(locked, q0, v0, t_end=2.0, f_ext=forces, rtol=1e-11, atol=1e-12, progress=False)

    def momentum(t, q, v):
        R = mb.quat_to_rotation(q[3:7])
        return R @ (I @ v[:3] + J * 20.0 * t * AXIS) + np.cross(q[:3], mass * R @ v[3:])

    H0, H1 = momentum(traj.t[0], traj.q[0], traj.v[0]), momentum(traj.t[-1], traj.q[-1], traj.v[-1])
    assert np.linalg.norm(H1 - H0) < 1e-9 * np.linalg.norm(H0)
    assert np.linalg.norm(traj.v[-1, :3] - v0[:3]) > 0.1


def constant_spin_model(spin=40.0):
    """The locked gyrostat with its rotor's constant relative spin as a force element (no gravity)."""
    model, _ = locked_model(gravity=(0, 0, 0))
    model.add_force(Gyrostat("carrier", AXIS, J, spin=spin))
    return model


def test_constant_spin_force_element_is_the_prescribed_spin_wrench():
    """Q of the force element = the f_ext of rotor_forces with Ω̇ = 0, through aba."""
    rng = np.random.default_rng(4)
    model, gyrostats = constant_spin_model(), locked_model()[1]
    element = model.forces[0]
    for _ in range(3):
        q, v = random_state(rng)
        with_element = mb.aba(model, q, v, element.generalized_force(model, q, v))
        with_wrench = mb.aba(model, q, v, np.zeros(6), f_ext=rotor_forces(model, gyrostats, q, v, [40.0], [0.0]))
        np.testing.assert_allclose(with_element, with_wrench, rtol=0, atol=1e-12)


def test_simulate_with_a_constant_spin_rotor_conserves_momentum_and_energy():
    """h = R (I ω + J Ω c) is constant in the world, and so is ½ ωᵀ I ω (the rotor's moment does no work)."""
    model = constant_spin_model()
    I = CARRIER + ROTOR
    trajectory = mb.simulate(model, np.r_[0, 0, 0, 1.0, 0, 0, 0], np.r_[0.3, -1.2, 0.8, 0, 0, 0], 2.0,
                             rtol=1e-12, atol=1e-12)
    momentum = [mb.body_pose(model, q, "carrier")[0] @ (I @ v[:3] + J * 40.0 * AXIS)
                for q, v in zip(trajectory.q, trajectory.v)]
    np.testing.assert_allclose(momentum, np.broadcast_to(momentum[0], (len(momentum), 3)), rtol=0, atol=1e-9)
    energy = trajectory.energy()
    np.testing.assert_allclose(energy, energy[0], rtol=0, atol=1e-9)


def test_gyrostat_force_element_round_trips_through_a_model_file(tmp_path):
    model = constant_spin_model(spin=-12.5)
    path = tmp_path / "gyrostat.yaml"
    path.write_text(yaml.safe_dump(model_to_dict(model)))
    loaded = mb.load(path)
    assert loaded.forces[0].to_dict() == model.forces[0].to_dict()
    q, v = random_state(np.random.default_rng(2))
    np.testing.assert_allclose(loaded.forces[0].generalized_force(loaded, q, v),
                               model.forces[0].generalized_force(model, q, v), rtol=0, atol=1e-14)


def test_model_add_rotor_is_the_free_rotor_body():
    model = mb.Model("gyrostat", gravity=(0, 0, 0))
    model.add(mb.Body("carrier", mass=5.0, inertia=CARRIER), joint=mb.Free())
    body = model.add_rotor(Gyrostat("carrier", AXIS, J), "rotor", mass=M_ROTOR, transverse_inertia=I_T)
    q, v = random_state(np.random.default_rng(3))
    reference = rotor_model(gravity=(0, 0, 0))
    np.testing.assert_allclose(mb.crba(model, np.r_[q, 0.4]), mb.crba(reference, np.r_[q, 0.4]), rtol=0, atol=1e-14)
    assert body.name == "rotor" and model.nv == 7


def test_one_gyrostat_class_for_numeric_and_symbolic():
    from multibody import symbolic as sym
    assert sym.Gyrostat is mb.Gyrostat
    with pytest.raises(mb.ModelError, match="constant spin"):
        mb.Model("m").add_force(Gyrostat("carrier", (0, 0, 1), 1.0))
    with pytest.raises(mb.ModelError, match="spin"):
        Gyrostat("carrier", (0, 0, 1), 1.0, spin="fast")
