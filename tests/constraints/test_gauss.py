"""Gauss's principle: agreement with Udwadia–Kalaba and a direct KKT solve, redundant constraints, multipliers,
and the four-bar against its hand-written 1-DOF reduced model."""
import numpy as np
import pytest

import multibody as mb
from mechanisms import four_bar, four_bar_angles, four_bar_reduced, four_bar_state
from multibody.constraints.gauss import GaussSolver
from multibody.constraints.udwadia_kalaba import udwadia_kalaba
from oracles import random_model, random_state


@pytest.mark.parametrize("revolute_loop", [False, True])
def test_four_bar_gauss_matches_udwadia_kalaba(revolute_loop):
    """Redundant rows (3 for Connect, 5 with Align; 2 independent): both methods agree to 1e-10."""
    model = four_bar(revolute_loop)
    q, v = four_bar_state(model)
    tau = np.array([0.3, -0.2, 0.1])
    gauss = mb.constraint_forces(model, q, v, tau)
    uk = mb.constraint_forces(model, q, v, tau, method="udwadia_kalaba")
    assert gauss.rank == 2
    np.testing.assert_allclose(gauss.a, uk.a, rtol=0, atol=1e-10 * np.abs(gauss.a).max())
    np.testing.assert_allclose(gauss.generalized_force, uk.generalized_force, atol=1e-9)


def test_four_bar_matches_reduced_model():
    """θ̈ from Gauss's principle equals Lagrange's equation of the 1-DOF reduced model; the other joints follow."""
    model = four_bar()
    for crank, rate in [(1.0, 2.0), (2.5, -1.0), (-0.7, 0.5)]:
        angles = four_bar_angles(crank)
        q = mb.assemble(model, np.array([angles[0], angles[1] - angles[0], angles[2]]))[0]
        np.testing.assert_allclose(q, [angles[0], angles[1] - angles[0], angles[2]], atol=1e-12)
        v = mb.assemble(model, q, np.array([rate, 0, 0]))[1]
        a = mb.forward_dynamics(model, q, v)
        assert a[0] == pytest.approx(four_bar_reduced(crank, v[0]), rel=1e-9, abs=1e-9)


def test_gauss_matches_kkt_on_random_trees():
    """Non-redundant constraints: [M −Jᵀ; J 0] [a; λ] = [τ − c; γ] solved directly (an independent oracle)."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        model = random_model(rng, 5, kinds=("revolute", "prismatic", "spherical"))
        model.add_constraint(mb.Connect("b4", (0.1, 0.0, 0.2), "b2", (0.0, 0.2, 0.0)))
        model.add_constraint(mb.PointOnPlane("b3", (0.2, 0.1, 0.0)))
        q, v, _ = random_state(rng, model)
        tau = rng.normal(size=model.nv)
        res = mb.constraint_forces(model, q, v, tau)
        from multibody.constraints._kinematics import Snapshot
        from multibody.constraints.types import stack
        rows = stack(model, Snapshot(model, q, v))[0]
        M, c = mb.crba(model, q), mb.nonlinear_effects(model, q, v)
        m = rows.J.shape[0]
        kkt = np.block([[M, -rows.J.T], [rows.J, np.zeros((m, m))]])
        sol = np.linalg.solve(kkt, np.concatenate([tau - c, rows.gamma]))
        np.testing.assert_allclose(res.a, sol[:model.nv], atol=1e-9 * max(1, np.abs(sol).max()))
        np.testing.assert_allclose(np.concatenate(res.multipliers), sol[model.nv:],
                                   atol=1e-8 * max(1, np.abs(sol).max()))


def test_gauss_minimizes_the_gauss_function():
    """Among accelerations with J a = γ (a = a* + null-space directions), a* has the least G."""
    rng = np.random.default_rng(7)
    model = four_bar(revolute_loop=True)
    q, v = four_bar_state(model)
    M = mb.crba(model, q)
    a_free = mb.aba(model, q, v, np.zeros(3))
    a = mb.forward_dynamics(model, q, v)
    from multibody.constraints._kinematics import Snapshot
    from multibody.constraints.types import stack
    J = stack(model, Snapshot(model, q, v))[0].J
    null = np.linalg.svd(J)[2][-1]
    gauss = lambda x: 0.5 * (x - a_free) @ M @ (x - a_free)
    for step in rng.normal(size=5):
        assert gauss(a + step * null) > gauss(a)


def test_pendulum_connect_multiplier_is_the_pivot_force():
    """A free rod held at one end by Connect: the constraint force equals the pivot reaction of a pendulum."""
    m, L = 2.0, 1.0
    model = mb.Model("rod", gravity=(0, 0, -9.81))
    model.add(mb.Body("rod", mass=m, com=(L / 2, 0, 0), inertia=np.diag([1e-3, m * L**2 / 12, m * L**2 / 12])),
              joint=mb.Free())
    model.add_constraint(mb.Connect("rod", (0, 0, 0), "world", (0, 0, 0)))
    q = np.array([0, 0, 0, 1.0, 0, 0, 0])  # rod horizontal along x
    res = mb.constraint_forces(model, q, np.zeros(6))
    # horizontal rod released from rest about its end: θ̈ = 3g / 2L, pivot force m g − m (L/2) θ̈ = m g / 4 upwards
    np.testing.assert_allclose(res.multipliers[0], [0, 0, m * 9.81 / 4], atol=1e-9)
    # the tip accelerates downward at (3/2) g
    tip_acc = mb.jacobian(model, q, "rod", (L, 0, 0))[3:] @ res.a
    np.testing.assert_allclose(tip_acc, [0, 0, -1.5 * 9.81], atol=1e-9)


def test_udwadia_kalaba_rejects_contacts():
    model = mb.Model("ball")
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 0.01), joint=mb.Free())
    model.add_geometry("ball", mb.Sphere(0.1))
    model.add_geometry("world", mb.Plane())
    q = np.array([0, 0, 0.1, 1, 0, 0, 0.0])
    with pytest.raises(ValueError, match="udwadia_kalaba"):
        mb.forward_dynamics(model, q, np.zeros(6), method="udwadia_kalaba")


def test_solver_rank_and_compliance():
    """Duplicated rows do not change the solution; K J-projects: J K = 0."""
    rng = np.random.default_rng(1)
    A = rng.normal(size=(4, 4))
    M = A @ A.T + 4 * np.eye(4)
    J = rng.normal(size=(2, 4))
    a_free, gamma = rng.normal(size=4), rng.normal(size=2)
    single = GaussSolver(M, J)
    double = GaussSolver(M, np.vstack([J, J]))
    assert double.rank == 2
    np.testing.assert_allclose(double.solve(a_free, np.concatenate([gamma, gamma]))[0], single.solve(a_free, gamma)[0],
                               atol=1e-12)
    np.testing.assert_allclose(J @ single.compliance(), 0, atol=1e-12)
    np.testing.assert_allclose(udwadia_kalaba(M, a_free, J, gamma)[0], single.solve(a_free, gamma)[0], atol=1e-12)
