"""Spatial impulse response: free rigid body (exact), energy identity, Pinocchio oracle, bad input."""
import numpy as np
import pytest

import multibody as mb
from multibody.impact import impulse_response
from oracles import PinocchioTwin, random_model, random_state

from ._helpers import ball_on_arm


def free_body(rng):
    model = mb.Model("block", gravity=(0, 0, -9.81))
    R = mb.quat_to_rotation(rng.normal(size=4))
    inertia = R @ np.diag([0.3, 0.5, 0.6]) @ R.T
    model.add(mb.Body("block", mass=2.5, com=(0.1, -0.2, 0.05), inertia=inertia), joint=mb.Free())
    return model


def test_free_body_velocity_jump_is_exact():
    rng = np.random.default_rng(1)
    model = free_body(rng)
    body = model.body("block")
    q = mb.normalize(model, rng.normal(size=7))
    v = rng.normal(size=6)
    point, impulse = np.array([0.4, 0.3, -0.2]), np.array([1.0, -2.0, 0.5])
    out = impulse_response(model, q, v, "block", point, impulse)
    R, _ = mb.body_pose(model, q, "block")
    # mass-center velocity and angular velocity in world axes, from v = [ω; v_origin] in body axes
    def com_and_omega(vel):
        return R @ (vel[3:] + np.cross(vel[:3], body.com)), R @ vel[:3]
    (vc0, w0), (vc1, w1) = com_and_omega(v), com_and_omega(out.v)
    r = R @ (point - body.com)
    np.testing.assert_allclose(vc1 - vc0, impulse / body.mass, atol=1e-14)
    np.testing.assert_allclose(w1 - w0, np.linalg.solve(R @ body.inertia @ R.T, np.cross(r, impulse)), atol=1e-13)
    M, dv = mb.crba(model, q), out.delta_v
    assert out.kinetic_energy_change == pytest.approx(0.5 * dv @ M @ dv + v @ M @ dv, rel=1e-12)
    assert out.kinetic_energy_after == pytest.approx(mb.kinetic_energy(model, q, out.v), rel=1e-12)


def test_impulses_superpose_and_list_form_matches_single_calls():
    rng = np.random.default_rng(2)
    model = random_model(rng, 6, kinds=("revolute", "prismatic", "spherical"))
    q, v, _ = random_state(rng, model)
    hits = [("b2", rng.normal(size=3), rng.normal(size=3)), ("b5", rng.normal(size=3), rng.normal(size=3))]
    both = mb.apply_impulse(model, q, v, hits)
    one = mb.apply_impulse(model, q, v, *hits[0])
    np.testing.assert_allclose(both - v, (one - v) + (mb.apply_impulse(model, q, v, *hits[1]) - v), atol=1e-12)


def test_matches_pinocchio_mass_matrix_and_jacobian():
    rng = np.random.default_rng(3)
    model = random_model(rng, 7, kinds=("revolute", "prismatic"))
    twin = PinocchioTwin(model)
    q, v, _ = random_state(rng, model)
    hits = [(f"b{k}", rng.normal(size=3), rng.normal(size=3)) for k in (3, 6, 6)]
    B = sum(twin.jacobian(q, model.body_index(b), p)[3:].T @ P for b, p, P in hits)
    expected = v + np.linalg.solve(twin.crba(q), B)
    np.testing.assert_allclose(mb.apply_impulse(model, q, v, hits), expected, atol=1e-10)


def test_impulse_through_the_joint_axis_of_a_pendulum_does_nothing():
    model = mb.Model("pendulum")
    model.add(mb.Body("rod", mass=1.0, com=(0, 0, -0.5), inertia=np.diag([0.1, 0.1, 1e-3])),
              joint=mb.Revolute((1, 0, 0)))
    out = impulse_response(model, [0.3], [1.0], "rod", (0, 0, -1.0), (0, 0, 5.0) )
    # a vertical push along a rod tilted by 0.3 rad has lever arm sin(0.3): ΔL = I_O Δθ̇
    I_O = 0.1 + 1.0 * 0.25
    r = mb.body_pose(model, [0.3], "rod")[0] @ np.array([0, 0, -1.0])
    assert out.delta_v[0] == pytest.approx(np.cross(r, (0, 0, 5.0))[0] / I_O, rel=1e-13)
    along = impulse_response(model, [0.3], [1.0], "rod", (0, 0, -1.0), 5.0 * r)
    assert along.delta_v[0] == pytest.approx(0.0, abs=1e-14)


def test_bad_input_names_the_culprit():
    model = free_body(np.random.default_rng(0))
    q, v = model.neutral(), np.zeros(6)
    with pytest.raises(mb.ModelError, match="unknown body or frame 'nose'"):
        mb.apply_impulse(model, q, v, "nose", (0, 0, 0), (1, 0, 0))
    with pytest.raises(ValueError, match="impulse 0 on 'block'.*finite"):
        mb.apply_impulse(model, q, v, "block", (0, 0, 0), (np.nan, 0, 0))
    with pytest.raises(ValueError, match="impulse 1 on 'block'.*finite"):
        mb.apply_impulse(model, q, v, [("block", (0, 0, 0), (1, 0, 0)), ("block", (np.inf, 0, 0), (1, 0, 0))])
    with pytest.raises(ValueError, match="impulse vector"):
        mb.apply_impulse(model, q, v, "block", (0, 0, 0))
    with pytest.raises(ValueError, match="shape"):
        mb.apply_impulse(model, q, v, "block", (0, 0), (1, 0, 0))
    with pytest.raises(ValueError, match="v: expected shape"):
        mb.apply_impulse(model, q, np.zeros(5), "block", (0, 0, 0), (1, 0, 0))


def test_impulse_on_a_loop_model_keeps_its_constraints():
    """A ball held at an arm's end by a Connect (loop) jumps as the ball on a spherical joint (tree): Δv = P B."""
    tree, loop = ball_on_arm(False), ball_on_arm(True)
    q_tree, q_loop = np.array([0.3, 1, 0, 0, 0]), np.r_[0.3, np.cos(0.3), 0, -np.sin(0.3), np.cos(0.15), 0, np.sin(0.15), 0]
    hit = ("ball", (0, 0, 0), (0.2, 0.7, -1.5))
    tree_jump = mb.impulse_response(tree, q_tree, np.zeros(4), [hit])
    loop_jump = mb.impulse_response(loop, q_loop, np.zeros(7), [hit])
    assert abs(loop_jump.v[0] - tree_jump.v[0]) < 1e-12
    np.testing.assert_allclose(loop_jump.kinetic_energy_after, tree_jump.kinetic_energy_after, rtol=1e-12)
