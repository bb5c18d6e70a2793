"""Kinematics: Jacobians against finite motions, integration on the joint manifolds, poses of DH chains."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import multibody as mb
from multibody.model.dh import dh_transform
from oracles import random_inertia, random_model, random_state


def test_jacobian_matches_finite_motion_of_a_point_and_frame():
    """p(q ⊕ h v) − p(q ⊕ −h v) ≈ 2h J_v v and the rotation changes by exp(2h [J_ω v]) for every joint type."""
    rng = np.random.default_rng(2)
    model = random_model(rng, 9, free_base=True)
    q, v, _ = random_state(rng, model)
    name, point = model.bodies[-1].name, np.array([0.2, -0.1, 0.4])
    J = mb.jacobian(model, q, name, point)
    h = 1e-6

    def world_point(qq):
        R, p = mb.body_pose(model, qq, name)
        return p + R @ point

    plus, minus = mb.integrate(model, q, v, h), mb.integrate(model, q, v, -h)
    np.testing.assert_allclose((world_point(plus) - world_point(minus)) / (2 * h), J[3:] @ v, atol=1e-7)
    R_plus, R_minus = mb.body_pose(model, plus, name)[0], mb.body_pose(model, minus, name)[0]
    W = (R_plus - R_minus) @ mb.body_pose(model, q, name)[0].T / (2 * h)  # ≈ [ω]×
    np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], J[:3] @ v, atol=1e-7)
    # local axes: the same vectors in the body's axes
    R = mb.body_pose(model, q, name)[0]
    np.testing.assert_allclose(mb.jacobian(model, q, name, point, axes="local"), np.vstack([R.T @ J[:3], R.T @ J[3:]]),
                               atol=1e-14)
    np.testing.assert_allclose(mb.point_velocity(model, q, v, name, point), J[3:] @ v, atol=1e-14)


def test_integrate_follows_the_configuration_rate_ode_for_constant_velocity():
    """q ⊕ v t equals the solution of q̇ = f(q, v) with v held constant (free, spherical, planar included)."""
    rng = np.random.default_rng(4)
    model = random_model(rng, 6, free_base=True)
    q0, v, _ = random_state(rng, model)
    sol = solve_ivp(lambda t, q: mb.configuration_rate(model, q, v), (0, 0.7), q0, rtol=1e-12, atol=1e-12,
                    method="DOP853")
    np.testing.assert_allclose(mb.integrate(model, q0, v, 0.7), mb.normalize(model, sol.y[:, -1]), atol=1e-9)


def test_integrate_keeps_quaternions_unit_and_is_exact_for_spin():
    model = mb.Model("top", gravity=(0, 0, 0))
    model.add(mb.Body("top", mass=1.0, inertia=np.diag([1.0, 1.0, 1.5])), joint=mb.Spherical())
    q = model.neutral()
    omega = np.array([0.0, 0.0, 2.0])
    for _ in range(1000):
        q = mb.integrate(model, q, omega, 0.01)
    assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(mb.body_pose(model, q, "top")[0], mb.rotation_about((0, 0, 1), 20.0), atol=1e-12)


def test_dh_chain_equals_the_same_chain_built_with_add():
    """from_dh vs a chain assembled by hand with Model.add from the DH transforms (Zhang Dingguo, "Lagrange equations
    of multi-rigid-body systems under external impact", eq. 3.3)."""
    rng = np.random.default_rng(8)
    rows = []
    for i in range(6):
        mass = rng.uniform(0.5, 2.0)
        rows.append(dict(theta=rng.uniform(-1, 1), d=rng.uniform(-0.3, 0.3), a=rng.uniform(0, 0.5),
                         alpha=rng.choice([-np.pi / 2, 0.0, np.pi / 2]) + rng.uniform(-0.1, 0.1),
                         joint="prismatic" if i in (2, 4) else "revolute", mass=mass,
                         com=rng.normal(size=3) * 0.1, inertia=random_inertia(rng, mass)))
    model = mb.Model.from_dh(rows, gravity=(0, 0, -9.81))
    q, v, a = rng.normal(size=(3, 6))
    # poses: the DH frames are the products of the row transforms
    T = np.eye(4)
    for i, (row, qi) in enumerate(zip(rows, q), start=1):
        theta = row["theta"] + (qi if row["joint"] == "revolute" else 0.0)
        d = row["d"] + (qi if row["joint"] == "prismatic" else 0.0)
        T = T @ dh_transform(theta, d, row["a"], row["alpha"])
        R, p = mb.body_pose(model, q, f"frame{i}")
        np.testing.assert_allclose(R, T[:3, :3], atol=1e-12)
        np.testing.assert_allclose(p, T[:3, 3], atol=1e-12)
    # dynamics: hand-built chain whose body frames are the DH frames at q, each joint a free axis through
    # frame i-1: revolute about z_{i-1}, prismatic along z_{i-1}; here built as Model.add with each body frame
    # = DH frame i, the joint placed at frame i-1 expressed in frame i's parent
    hand = mb.Model("hand", gravity=(0, 0, -9.81))
    parent, previous = "world", np.eye(4)
    for i, row in enumerate(rows, start=1):
        A_fixed = dh_transform(row["theta"], row["d"], row["a"], row["alpha"])
        # body frame of link i = DH frame i; joint frame = frame i at q_i = 0, axis z_{i-1} seen from frame i
        axis_in_i = A_fixed[:3, :3].T @ np.array([0.0, 0.0, 1.0])
        if row["joint"] == "revolute":
            # rotating about z_{i-1} through the origin of frame i-1: put the joint frame at frame i-1 with
            # frame i's orientation, and the body's mass data relative to it
            joint_frame = np.eye(4)
            joint_frame[:3, :3] = A_fixed[:3, :3]
            offset = np.linalg.inv(joint_frame) @ A_fixed  # frame i in the joint frame
            placement = previous @ joint_frame
            joint = mb.Revolute(axis_in_i)
        else:
            offset = np.eye(4)
            placement = previous @ A_fixed
            joint = mb.Prismatic(axis_in_i)
        com = offset[:3, :3] @ row["com"] + offset[:3, 3]
        inertia = offset[:3, :3] @ row["inertia"] @ offset[:3, :3].T
        hand.add(mb.Body(f"link{i}", mass=row["mass"], com=com, inertia=inertia), parent=parent,
                 joint=joint, placement=mb.Transform.from_matrix(placement))
        parent, previous = f"link{i}", offset
    np.testing.assert_allclose(mb.rnea(hand, q, v, a), mb.rnea(model, q, v, a), atol=1e-10)
    np.testing.assert_allclose(mb.crba(hand, q), mb.crba(model, q), atol=1e-10)


def test_dh_rows_are_validated():
    with pytest.raises(mb.ModelError, match="DH row 2: missing field 'alpha'"):
        mb.Model.from_dh([dict(theta=0, d=0, a=1, alpha=0, mass=1, com=(0, 0, 0), inertia=np.eye(3)),
                          dict(theta=0, d=0, a=1, mass=1, com=(0, 0, 0), inertia=np.eye(3))])
    with pytest.raises(mb.ModelError, match="DH row 1: joint must be 'revolute' or 'prismatic', got 'helical'"):
        mb.Model.from_dh([dict(theta=0, d=0, a=1, alpha=0, joint="helical", mass=1, com=(0, 0, 0), inertia=np.eye(3))])
    with pytest.raises(mb.ModelError, match="DH row 1: field 'a' must be a number"):
        mb.Model.from_dh([dict(theta=0, d=0, a="long", alpha=0, mass=1, com=(0, 0, 0), inertia=np.eye(3))])
