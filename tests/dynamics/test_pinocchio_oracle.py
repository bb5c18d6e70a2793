"""Oracle: rnea, crba, aba and Jacobians agree with Pinocchio on random trees and on n-link chains."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import multibody as mb
from oracles import PinocchioTwin, random_model, random_state

pin = pytest.importorskip("pinocchio")


def _assert_agree(model, q, v, a, tol=1e-9):
    twin = PinocchioTwin(model)
    tau = mb.rnea(model, q, v, a)
    scale = 1 + np.abs(tau).max()
    np.testing.assert_allclose(tau, twin.rnea(q, v, a), atol=tol * scale)
    np.testing.assert_allclose(mb.crba(model, q), twin.crba(q), atol=tol * scale)
    np.testing.assert_allclose(mb.aba(model, q, v, tau), twin.aba(q, v, tau), atol=tol * (1 + np.abs(a).max()))
    for index in range(0, model.nbodies, max(1, model.nbodies // 3)):
        point = np.array([0.1, -0.2, 0.3])
        np.testing.assert_allclose(mb.jacobian(model, q, model.bodies[index].name, point),
                                   twin.jacobian(q, index, point), atol=tol)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 15), free_base=st.booleans())
def test_random_trees_with_mixed_joints_agree_with_pinocchio(seed, n, free_base):
    rng = np.random.default_rng(seed)
    model = random_model(rng, n, free_base=free_base)
    _assert_agree(model, *random_state(rng, model))


@pytest.mark.parametrize("n", [7, 20, 50, 100])
def test_n_link_chains_agree_with_pinocchio(n):
    rng = np.random.default_rng(n)
    model = mb.Model.chain(n)
    _assert_agree(model, *random_state(rng, model))


def test_a_tree_too_big_for_stack_work_arrays_agrees_with_pinocchio():
    """Past STACK_DOUBLES the kernels' per-body work arrays move from the stack to the heap (here the articulated
    inertias of 130 bodies, 131 × 36 doubles); both kinds must give the same dynamics."""
    from multibody.dynamics._spatial_kernels import STACK_DOUBLES
    rng = np.random.default_rng(130)
    model = random_model(rng, 130)
    assert (model.nbodies + 1) * 36 > STACK_DOUBLES
    _assert_agree(model, *random_state(rng, model), tol=1e-8)


def test_external_forces_agree_with_pinocchio():
    rng = np.random.default_rng(5)
    model = random_model(rng, 6, kinds=("revolute", "prismatic", "spherical"), free_base=True)
    q, v, a = random_state(rng, model)
    f_ext = rng.normal(size=(model.nbodies, 6))
    twin = PinocchioTwin(model)
    # Pinocchio takes one force per joint, in the joint frame, [linear; angular]; our bodies sit on their joints here
    fext_pin = [pin.Force.Zero() for _ in range(twin.pm.njoints)]
    for i, (jid, _) in enumerate(twin.body_joint):
        fext_pin[jid] = pin.Force(f_ext[i, 3:], f_ext[i, :3])
    expected = twin.v_back(pin.rnea(twin.pm, twin.data, twin.q(q), twin.v(v), twin.v(a), fext_pin))
    np.testing.assert_allclose(mb.rnea(model, q, v, a, f_ext=f_ext), expected, atol=1e-10)
    tau = rng.normal(size=model.nv)
    expected_a = twin.v_back(pin.aba(twin.pm, twin.data, twin.q(q), twin.v(v), twin.v(tau), fext_pin))
    np.testing.assert_allclose(mb.aba(model, q, v, tau, f_ext=f_ext), expected_a, atol=1e-10)


def test_energy_and_momentum_agree_with_pinocchio():
    rng = np.random.default_rng(9)
    model = random_model(rng, 8, free_base=True)
    q, v, _ = random_state(rng, model)
    twin = PinocchioTwin(model)
    qp, vp = twin.q(q), twin.v(v)
    assert mb.kinetic_energy(model, q, v) == pytest.approx(pin.computeKineticEnergy(twin.pm, twin.data, qp, vp), rel=1e-12)
    assert mb.potential_energy(model, q) == pytest.approx(pin.computePotentialEnergy(twin.pm, twin.data, qp), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(mb.center_of_mass(model, q), pin.centerOfMass(twin.pm, twin.data, qp), atol=1e-12)
    hg = pin.computeCentroidalMomentum(twin.pm, twin.data, qp, vp)  # about the mass center, world axes
    linear, angular_origin = mb.momentum(model, q, v)[1], mb.momentum(model, q, v)[0]
    np.testing.assert_allclose(linear, hg.linear, atol=1e-12)
    np.testing.assert_allclose(angular_origin - np.cross(mb.center_of_mass(model, q), linear), hg.angular, atol=1e-11)
