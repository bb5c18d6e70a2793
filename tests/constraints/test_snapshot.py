"""The compiled kinematic snapshot against independent computations: point velocities against the Jacobian
kernel (J v), bias accelerations against a central difference of J(q(t)) v along the motion q(t) = q ⊕ v t."""
import numpy as np
import pytest

import multibody as mb
from multibody.constraints._kinematics import Snapshot


def _tree():
    """Free base, a spherical, a revolute and a prismatic joint: every joint kind Snapshot must follow."""
    model = mb.Model("mixed")
    inertia = np.diag([0.02, 0.03, 0.04])
    model.add(mb.Body("base", mass=2.0, com=(0.1, 0, 0), inertia=inertia), joint=mb.Free())
    model.add(mb.Body("ball", mass=1.0, com=(0, 0.1, 0), inertia=inertia), parent="base",
              joint=mb.Spherical(), placement=mb.Transform(translation=(0.3, 0, 0)))
    model.add(mb.Body("arm", mass=1.0, com=(0, 0, -0.2), inertia=inertia), parent="ball",
              joint=mb.Revolute([0, 1, 1]), placement=mb.Transform(translation=(0, 0.2, 0.1)))
    model.add(mb.Body("slider", mass=0.5, inertia=inertia), parent="arm",
              joint=mb.Prismatic([1, 0, 0]), placement=mb.Transform(translation=(0, 0, -0.4)))
    return model


@pytest.mark.parametrize("seed", [0, 1])
def test_snapshot_point_motion_matches_the_jacobian_and_its_rate(seed):
    model = _tree()
    rng = np.random.default_rng(seed)
    q, v = mb.normalize(model, rng.normal(size=model.nq)), rng.normal(size=model.nv)
    snapshot = Snapshot(model, q, v)
    r, h = np.array([0.05, -0.1, 0.2]), 1e-5
    for body in range(model.nbodies):
        name = model.bodies[body].name
        w, v_point, dw, a_point = snapshot.motion(body, r)
        J = mb.jacobian(model, q, name, r)
        np.testing.assert_allclose(np.concatenate([w, v_point]), J @ v, rtol=0, atol=1e-12)
        R, p = mb.body_pose(model, q, name)
        np.testing.assert_allclose(snapshot.point(body, r), p + R @ r, rtol=0, atol=1e-12)
        ahead, behind = (mb.integrate(model, q, v, dt) for dt in (h, -h))
        rate = (mb.jacobian(model, ahead, name, r) - mb.jacobian(model, behind, name, r)) @ v / (2 * h)
        np.testing.assert_allclose(np.concatenate([dw, a_point]), rate, rtol=0, atol=1e-7)


def test_snapshot_names_the_joint_of_a_state_that_is_not_finite():
    model = _tree()
    q = model.neutral()
    v = np.zeros(model.nv)
    v[2] = np.inf
    with pytest.raises(ValueError, match=r"snapshot: v\[2\] \(joint 'base_joint', body 'base'\) is inf"):
        Snapshot(model, q, v)
