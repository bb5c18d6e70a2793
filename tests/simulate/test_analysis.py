"""Inverse dynamics, static equilibrium, linearization and natural frequencies, inverse kinematics."""
import numpy as np
import pytest

import multibody as mb
from multibody.io.files import example_path

from sim_models import G, point_pendulum


def test_pendulum_frequency_is_sqrt_g_over_l():
    for length in (0.5, 2.0):
        omega, modes = mb.natural_frequencies(point_pendulum(length), [0.0])
        np.testing.assert_allclose(omega, [np.sqrt(G / length)], rtol=1e-6)


def test_double_point_pendulum_frequencies_and_linearization():
    # equal masses and lengths: ω² = (g/l)(2 ∓ √2)
    model = point_pendulum(1.0, links=2)
    expected = np.sqrt(G * np.array([2 - np.sqrt(2), 2 + np.sqrt(2)]))
    omega, modes = mb.natural_frequencies(model, [0.0, 0.0])
    np.testing.assert_allclose(omega, expected, rtol=1e-6)
    np.testing.assert_allclose(modes.T @ mb.crba(model, [0.0, 0.0]) @ modes, np.eye(2), atol=1e-9)
    A, B = mb.linearize(model, [0.0, 0.0])
    eig = np.linalg.eigvals(A)
    np.testing.assert_allclose(np.sort(np.abs(eig.imag)), np.repeat(expected, 2), rtol=1e-6)
    np.testing.assert_allclose(eig.real, 0.0, atol=1e-6)
    np.testing.assert_allclose(B[2:], np.linalg.inv(mb.crba(model, [0.0, 0.0])))


def test_frequencies_refuse_non_equilibria_and_unstable_ones():
    with pytest.raises(ValueError, match="not a static equilibrium"):
        mb.natural_frequencies(point_pendulum(), [0.3])
    with pytest.raises(ValueError, match="unstable"):
        mb.natural_frequencies(point_pendulum(), [np.pi])


def test_static_equilibrium_balances_gravity_and_spring():
    # hanging pendulum with a torsional spring toward θ0: k (θ − θ0) + m g l sin θ = 0
    model = point_pendulum(1.0)
    model.add_force(mb.JointSpring("bob0_joint", stiffness=20.0, rest=1.0))
    q = mb.static_equilibrium(model, [0.5])
    assert abs(20.0 * (q[0] - 1.0) + G * np.sin(q[0])) < 1e-9
    # it is a rest state: a simulation from it does not move
    traj = mb.simulate(model, q, [0.0], t_end=1.0)
    assert np.abs(traj.q - q).max() < 1e-8


def test_static_equilibrium_with_quaternion_joint():
    model = mb.Model("ball_pendulum", gravity=(0, 0, -G))
    model.add(mb.Body("bob", mass=1.0, com=(0.3, 0, 0), inertia=np.eye(3) * 0.01), joint=mb.Spherical())
    q = mb.static_equilibrium(model, mb.normalize(model, [0.9, 0.1, 0.3, 0.2]))
    R, p = mb.body_pose(model, q, "bob")
    np.testing.assert_allclose(R @ [0.3, 0, 0], [0, 0, -0.3], atol=1e-8)  # mass center straight down


def test_inverse_dynamics_recovers_the_applied_torque(double_pendulum):
    setup = double_pendulum
    model = setup.model
    model.add_force(mb.JointSpring("shoulder", stiffness=2.0, damping=0.5))

    def torque(t, q, v):
        return np.array([np.sin(3 * t), 0.5 * np.cos(t)])
    traj = mb.simulate(model, setup.q0, setup.v0, t_end=2.0, torque=torque)
    expected = np.array([torque(t, None, None) for t in traj.t])
    np.testing.assert_allclose(mb.inverse_dynamics(traj), expected, atol=1e-9)


def test_inverse_kinematics_reaches_a_pose_of_the_arm():
    model = mb.load(example_path("six_axis_arm"))
    q_true = np.array([0.3, -0.5, 0.4, 0.2, 0.6, -0.3])
    R, p = mb.body_pose(model, q_true, "frame6")
    q = mb.inverse_kinematics(model, "frame6", position=p, rotation=R, q0=q_true + 0.2)
    R2, p2 = mb.body_pose(model, q, "frame6")
    np.testing.assert_allclose(p2, p, atol=1e-9)
    np.testing.assert_allclose(R2, R, atol=1e-9)
    point_only = mb.inverse_kinematics(model, "frame6", position=p + [0.05, 0, 0])
    np.testing.assert_allclose(mb.body_pose(model, point_only, "frame6")[1], p + [0.05, 0, 0], atol=1e-9)
    with pytest.raises(mb.SimulationError, match="out of reach"):
        mb.inverse_kinematics(model, "frame6", position=[5.0, 0, 0], max_iter=50)
