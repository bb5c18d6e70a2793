"""Oracle: rnea, crba, aba and Jacobians agree with Pinocchio on random trees and on n-link chains."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import multibody as mb
from oracles import PinocchioTwin, random_inertia, random_model, random_rotation, random_state

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


@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0), (0, -1, 0), (0, 0, -1), (1, -1, 0)])
def test_revolute_joints_along_and_against_coordinate_axes_agree_with_pinocchio(axis):
    """rnea and crba turn each revolute body's frame so that z lies along its joint axis (``axis_frames``); the
    frame's first axis is built from the coordinate axis least aligned with the joint's, a choice these axes test."""
    rng = np.random.default_rng(7)
    model = mb.Model("axes", gravity=(0.0, -3.0, -9.81))
    for i in range(3):
        body = mb.Body(f"b{i}", mass=1.0 + i, com=rng.normal(size=3) * 0.2, inertia=random_inertia(rng, 1.0 + i))
        model.add(body, parent="world" if i == 0 else f"b{i - 1}", joint=mb.Revolute(axis),
                  placement=mb.Transform(random_rotation(rng), rng.normal(size=3) * 0.3))
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


def _with_random_armature(rng, model):
    """Give every joint a random armature (one value per velocity)."""
    for joint in model.joints:
        joint.armature = rng.uniform(0.0, 0.5, size=joint.nv)
    model._compiled = None
    return model


@pytest.mark.parametrize("seed", range(6))
def test_armature_agrees_with_pinocchio(seed):
    rng = np.random.default_rng(100 + seed)
    model = _with_random_armature(rng, random_model(rng, 8, free_base=seed % 2 == 1))
    twin = PinocchioTwin(model)
    twin.pm.armature = twin.v(np.concatenate([joint.armature for joint in model.joints]))
    twin.data = twin.pm.createData()
    q, v, a = random_state(rng, model)
    tau = mb.rnea(model, q, v, a)
    scale = 1 + np.abs(tau).max()
    np.testing.assert_allclose(tau, twin.rnea(q, v, a), atol=1e-9 * scale)
    np.testing.assert_allclose(mb.crba(model, q), twin.crba(q), atol=1e-9 * scale)
    np.testing.assert_allclose(mb.aba(model, q, v, tau), a, atol=1e-9 * (1 + np.abs(a).max()))
    np.testing.assert_allclose(mb.aba(model, q, v, tau), twin.aba(q, v, tau), atol=1e-9 * (1 + np.abs(a).max()))
    kinetic = mb.kinetic_energy(model, q, v)
    np.testing.assert_allclose(kinetic, 0.5 * v @ mb.crba(model, q) @ v, rtol=1e-12)


def test_armature_must_be_non_negative_and_sized():
    with pytest.raises(mb.ModelError, match="'elbow'.*non-negative"):
        mb.Revolute((0, 0, 1), name="elbow", armature=-0.1)
    with pytest.raises(mb.ModelError, match="'ball'.*3 numbers"):
        mb.Spherical(name="ball", armature=[0.1, 0.2])
    assert mb.Spherical(armature=[0.1, 0.2, 0.3]).armature.tolist() == [0.1, 0.2, 0.3]
    assert mb.Free(armature=0.5).armature.tolist() == [0.5] * 6


def test_aba_keeps_its_digits_on_a_fast_spinning_link_far_from_the_origin():
    """The last link of a 2.1 m chain spinning at 5000 rad/s about its own axis, where its inertia is 1e-4 kg m²:
    forward dynamics worked about a point far from the body (the world origin) loses digits there, since the small
    inertia is then the difference of terms ~ m |p|² (measured 2e-7 off); about each body's origin it agrees with
    Pinocchio's body-axes ABA to 2e-9 of accelerations ~5e3 (the body-axes form: 1e-11)."""
    model = mb.Model.chain(7)
    rng = np.random.default_rng(22)
    q = 0.5 + 0.2 * rng.normal(size=7)
    q[1] += np.pi / 2
    v = rng.normal(size=7)
    v[-1] = 5000.0  # joint 7 turns about x, the link's own axis
    tau = np.linspace(-0.5, 0.5, 7)
    expected = PinocchioTwin(model).aba(q, v, tau)
    np.testing.assert_allclose(mb.aba(model, q, v, tau), expected, rtol=0, atol=2e-12 * np.abs(expected).max())
