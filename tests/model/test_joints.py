"""Each joint type's Python half (multibody.model.joints: sizes, kinds of coordinates, quaternion place, random
configuration, symbolic kinematics) against its compiled half (pose, q̇ from v, normalization), type by type."""
import numpy as np
import pytest
import sympy as sp

import multibody as mb
from multibody.model.joints import normalized_quaternions, quaternion_norms, quaternion_slices
from oracles import JOINT_FACTORIES


def one_joint_model(kind):
    model = mb.Model(kind, gravity=(0.0, 0.0, 0.0))
    model.add(mb.Body("b", mass=1.0, inertia=np.diag([1.0, 2.0, 3.0])), parent="world",
              joint=JOINT_FACTORIES[kind](np.random.default_rng(5)))
    return model


def joint_state(kind, seed):
    """(model, joint, q, v): a one-joint model and a random state of it (unit quaternions)."""
    model = one_joint_model(kind)
    joint = model.joints[0]
    rng = np.random.default_rng(seed)
    return model, joint, mb.normalize(model, rng.normal(size=joint.nq)), rng.normal(size=joint.nv)


@pytest.mark.parametrize("kind", sorted(JOINT_FACTORIES))
def test_sizes_kinds_and_random_configuration_agree(kind):
    model = one_joint_model(kind)
    joint = model.joints[0]
    assert (len(joint.neutral()), len(joint.coordinate_kinds), len(joint.velocity_kinds)) == (joint.nq, joint.nq,
                                                                                             joint.nv)
    q = model.random_configuration(7)
    assert q.shape == (joint.nq,)
    if joint.quaternion_at is not None:
        at = joint.quaternion_at
        assert abs(np.linalg.norm(q[at:at + 4]) - 1.0) < 1e-15
        np.testing.assert_array_equal(joint.neutral()[at:at + 4], [1.0, 0.0, 0.0, 0.0])
        assert joint.coordinate_kinds[at:at + 4] == "1111"
        assert quaternion_slices(model.joints) == [slice(at, at + 4)]
    else:
        assert "1" not in joint.coordinate_kinds and quaternion_slices(model.joints) == []


@pytest.mark.parametrize("kind", sorted(JOINT_FACTORIES))
def test_rate_is_velocity_says_whether_the_compiled_rate_is_v(kind):
    model, joint, q, v = joint_state(kind, 2)
    qdot = mb.configuration_rate(model, q, v)
    assert joint.rate_is_velocity == (joint.nq == joint.nv and np.array_equal(qdot, v))


@pytest.mark.parametrize("kind", sorted(JOINT_FACTORIES))
def test_symbolic_kinematics_match_the_compiled_pose_rate_and_subspace(kind):
    model, joint, q, v = joint_state(kind, 4)
    qs, us = sp.symbols(f"q:{joint.nq}"), sp.symbols(f"u:{joint.nv}")
    values = {**dict(zip(qs, q)), **dict(zip(us, v))}
    R_J, t_J, S, qdot = joint.symbolic_kinematics(list(qs), list(us), "body", sp.Matrix(joint.axis))
    R, p = mb.body_pose(model, q, "b")
    np.testing.assert_allclose(np.array(R_J.subs(values), dtype=float), R, rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.array(t_J.subs(values), dtype=float).ravel(), p, rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.array(S.subs(values), dtype=float).reshape(6, joint.nv), joint.motion_subspace(),
                               rtol=0, atol=1e-15)
    np.testing.assert_allclose(np.array([sp.sympify(e).subs(values) for e in qdot], dtype=float),
                               mb.configuration_rate(model, q, v), rtol=0, atol=1e-14)


def test_quaternions_are_normalized_alike_in_python_and_compiled():
    model = mb.Model("two", gravity=(0.0, 0.0, 0.0))
    model.add(mb.Body("a", mass=1.0, inertia=np.eye(3)), parent="world", joint=mb.Free())
    model.add(mb.Body("b", mass=1.0, inertia=np.eye(3)), parent="a", joint=mb.Revolute())
    model.add(mb.Body("c", mass=1.0, inertia=np.eye(3)), parent="b", joint=mb.Spherical())
    q = np.random.default_rng(0).normal(size=(3, model.nq)) * 3.0
    assert quaternion_slices(model.joints) == [slice(3, 7), slice(8, 12)]
    unit = normalized_quaternions(model.joints, q)
    for norms in quaternion_norms(model.joints, unit).values():
        np.testing.assert_allclose(norms, 1.0, rtol=0, atol=3e-16)
    np.testing.assert_allclose(unit, mb.normalize(model, q), rtol=0, atol=0)
    np.testing.assert_array_equal(unit[:, [0, 1, 2, 7]], q[:, [0, 1, 2, 7]])
    # a step of zero length leaves the compiled integrator only its normalization
    np.testing.assert_allclose(mb.integrate(model, q[0], np.zeros(model.nv), 0.0), unit[0], rtol=0, atol=4e-16)
