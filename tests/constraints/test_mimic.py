"""Mimic joints (q_joint = m · q_master + o) as a holonomic constraint: the constrained dynamics equals the reduced
one-coordinate model written by hand, simulation keeps φ small, model files round trip, bad input names the joint."""
import numpy as np
import pytest

import multibody as mb
from multibody.io.files import model_from_dict, model_to_dict

G = 9.81


def _two_pendulums(m1=1.0, l1=0.5, m2=2.0, l2=0.3):
    """Two point-mass pendulums hinged on the world about y at different places (independent joints a and b);
    point masses with a small inertia i about the mass center, so the inertia about the hinge is m l² + i."""
    model = mb.Model("geared", gravity=(0, 0, -G))
    small = 1e-3
    model.add(mb.Body("A", mass=m1, com=(0, 0, -l1), inertia=np.eye(3) * small), joint=mb.Revolute((0, 1, 0), name="a"))
    model.add(mb.Body("B", mass=m2, com=(0, 0, -l2), inertia=np.eye(3) * small), joint=mb.Revolute((0, 1, 0), name="b"),
              placement=mb.Transform(translation=(1.0, 0, 0)))
    return model, (m1 * l1**2 + small, m2 * l2**2 + small), (m1 * G * l1, m2 * G * l2)


@pytest.mark.parametrize("multiplier, offset", [(-1.0, 0.0), (-1.0, 0.2), (2.5, -0.3), (0.0, 0.4)])
def test_geared_pendulums_move_as_one_coordinate_with_the_reduced_inertia(multiplier, offset):
    """q_b = m q_a + o. Reduced Lagrangian in q_a: (I_a + m² I_b) q̈_a = τ_a + m τ_b − k_a sin q_a − m k_b sin(m q_a + o)
    (k = m g l); the constrained forward dynamics gives this q̈_a and q̈_b = m q̈_a, to 1e-10."""
    model, (Ia, Ib), (ka, kb) = _two_pendulums()
    model.add_constraint(mb.Mimic("b", "a", multiplier=multiplier, offset=offset))
    rng = np.random.default_rng(3)
    for _ in range(5):
        qa, va = rng.uniform(-1, 1, 2)
        tau = rng.uniform(-2, 2, 2)
        q, v = np.array([qa, multiplier * qa + offset]), np.array([va, multiplier * va])
        a = mb.forward_dynamics(model, q, v, tau)
        expected = (tau[0] + multiplier * tau[1] - ka * np.sin(qa) - multiplier * kb * np.sin(q[1])) / (Ia + multiplier**2 * Ib)
        assert a[0] == pytest.approx(expected, abs=1e-10)
        assert a[1] == pytest.approx(multiplier * expected, abs=1e-10)
        lam = mb.constraint_forces(model, q, v, tau).multipliers[0]
        assert lam.shape == (1,)  # the force on b is λ, on a it is −m λ: Ib q̈_b = τ_b − k_b sin q_b + λ
        assert Ib * a[1] == pytest.approx(tau[1] - kb * np.sin(q[1]) + lam[0], abs=1e-9)


def test_mimic_in_a_chain_matches_the_projected_equations():
    """Double pendulum with the elbow mimicking the shoulder (q₂ = −0.5 q₁ + 0.1): with v = T u, T = [1, −0.5]ᵀ,
    the reduced equation Tᵀ M T u̇ = Tᵀ (τ − c) (from crba and rnea, independent of the constraint code)."""
    model = mb.Model.chain(2, axes="yy")
    joints = [j.name for j in model.joints]
    model.add_constraint(mb.Mimic(joints[1], joints[0], multiplier=-0.5, offset=0.1))
    T = np.array([1.0, -0.5])
    rng = np.random.default_rng(7)
    for _ in range(5):
        q1, u = rng.uniform(-1, 1, 2)
        q, v, tau = np.array([q1, -0.5 * q1 + 0.1]), T * u, rng.uniform(-1, 1, 2)
        c = mb.rnea(model, q, v, np.zeros(2))
        u_dot = T @ (tau - c) / (T @ mb.crba(model, q) @ T)
        np.testing.assert_allclose(mb.forward_dynamics(model, q, v, tau), T * u_dot, rtol=0, atol=1e-10)


def test_simulation_keeps_the_mimic_relation():
    model, *_ = _two_pendulums()
    model.add_constraint(mb.Mimic("b", "a", multiplier=-1.0, offset=0.2))
    traj = mb.simulate(model, [0.8, -0.6], [0.0, 0.0], t_end=3.0, rtol=1e-10, atol=1e-12)
    phi = traj.q[:, 1] + traj.q[:, 0] - 0.2
    assert np.max(np.abs(phi)) < 1e-8
    assert np.ptp(traj.energy()) < 1e-7


def test_mimic_round_trips_through_the_model_file_form():
    model, *_ = _two_pendulums()
    model.add_constraint(mb.Mimic("b", "a", multiplier=-1.5, offset=0.25, name="gear"))
    data = model_to_dict(model)
    assert data["constraints"] == [{"type": "mimic", "joint": "b", "master": "a", "multiplier": -1.5,
                                    "offset": 0.25, "name": "gear"}]
    again = model_from_dict(data)
    assert model_to_dict(again) == data
    q, v = np.array([0.3, -0.2]), np.array([0.5, -0.75])
    np.testing.assert_array_equal(mb.forward_dynamics(again, q, v), mb.forward_dynamics(model, q, v))


def test_bad_mimic_input_names_the_joint_and_the_value():
    model, *_ = _two_pendulums()
    with pytest.raises(mb.ModelError, match=r"Mimic joint 'b': multiplier must be a finite number, got nan"):
        mb.Mimic("b", "a", multiplier=np.nan)
    with pytest.raises(mb.ModelError, match=r"Mimic joint 'b': offset must be a number, got 'x'"):
        mb.Mimic("b", "a", offset="x")
    with pytest.raises(mb.ModelError, match="cannot mimic itself"):
        mb.Mimic("a", "a")
    with pytest.raises(mb.ModelError, match=r"unknown joint 'c'"):
        model.add_constraint(mb.Mimic("c", "a"))
    with pytest.raises(mb.ModelError, match=r"master: unknown joint 'z'"):
        model.add_constraint(mb.Mimic("b", "z"))
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3)), parent="A", joint=mb.Spherical(name="wrist"))
    with pytest.raises(mb.ModelError, match=r"joint 'wrist' is Spherical \(3 velocities\)"):
        model.add_constraint(mb.Mimic("wrist", "a"))
    with pytest.raises(mb.ModelError, match="joint and master are the same joint 'b'"):
        model.add_constraint(mb.Mimic("b", "B"))  # the child body's name resolves to the same joint
    assert not model.constraints
