"""Numbers that must not give silent wrong answers in model building and in the numeric functions."""
import time
import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.spatial import quat_to_rotation, unit


def free_body():
    model = mb.Model("free")
    model.add(mb.Body("b", 1.0, inertia=np.diag([0.1, 0.2, 0.25])), joint=mb.Free())
    return model


def test_huge_inertia_and_mass_are_model_errors():
    with pytest.raises(mb.ModelError, match="inertia"):
        mb.Body("b", 1.0, inertia=np.eye(3) * 1e308)
    with pytest.raises(mb.ModelError, match="mass"):
        mb.Body("b", 1e308, inertia=np.eye(3))


def test_huge_axis_is_normalized_without_overflow():
    assert np.allclose(mb.Revolute((1e308, 1e308, 0)).axis, [np.sqrt(0.5), np.sqrt(0.5), 0])
    assert np.allclose(mb.Prismatic((3e307, 0, 4e307)).axis, [0.6, 0, 0.8])


def test_normalizing_is_idempotent_bit_for_bit():
    rng = np.random.default_rng(1)
    for _ in range(200):
        u = unit(rng.normal(size=3))
        assert np.array_equal(unit(u), u)
        assert np.array_equal(mb.Revolute(mb.Revolute(u).axis).axis, mb.Revolute(u).axis)


def test_scaled_quaternion_gives_the_rotation_and_zero_quaternion_is_an_error():
    quat = np.array([1.0, 0.0, 0.0, 1.0])
    assert np.allclose(quat_to_rotation(quat * 1e160), quat_to_rotation(quat))
    with pytest.raises(mb.ModelError, match="quaternion"):
        quat_to_rotation([0, 0, 0, 0])


@pytest.mark.parametrize("quat", [[0.0, 0.0, 0.0, 0.0], [1e160, 0.0, 0.0, 1e160]])
def test_degenerate_quaternion_in_q_names_the_joint(quat):
    model = free_body()
    q, v = model.neutral(), np.zeros(6)
    q[3:] = quat
    for call in (lambda: mb.aba(model, q, v, v), lambda: mb.rnea(model, q, v, v), lambda: mb.crba(model, q),
                 lambda: mb.aba(model, [q] * 20, v, v)):
        with pytest.raises(ValueError, match="quaternion of joint 'b_joint'"):
            call()


def test_normalize_zero_quaternion_names_the_joint_and_huge_one_normalizes():
    model = free_body()
    q = model.neutral()
    q[3:] = 0.0
    with pytest.raises(ValueError, match="b_joint"):
        mb.normalize(model, q)
    q[3:] = [3e200, 0, 0, 4e200]
    assert np.allclose(mb.normalize(model, q)[3:], [0.6, 0, 0, 0.8])


def test_complex_input_raises():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for make in (lambda: mb.Body("b", 1.0, com=[1j, 0, 0], inertia=np.eye(3)),
                     lambda: mb.Body("b", 1.0, inertia=np.eye(3) * (1 + 1j)),
                     lambda: mb.Revolute((1j, 0, 1)), lambda: mb.Transform(translation=(1j, 0, 0))):
            with pytest.raises(mb.ModelError, match="real"):
                make()
        model = free_body()
        with pytest.raises(ValueError, match="real"):
            mb.aba(model, model.neutral() + 0j, np.zeros(6), np.zeros(6))


def test_single_state_fast_path_still_rejects_other_dtypes_with_type_error():
    from multibody.dynamics import _core
    model = free_body()
    packed = model.compile().packed
    with pytest.raises(TypeError):
        _core.aba_one(packed, model.neutral().astype(np.float32), np.zeros(6), np.zeros(6), np.zeros(6))


def test_model_add_is_constant_time():
    n = 12000
    bodies = [mb.Body(f"b{i}", 1.0, inertia=np.eye(3)) for i in range(n)]
    joints = [mb.Revolute() for _ in range(n)]
    model, times = mb.Model("chain"), []
    for start in range(0, n, 1000):
        tic = time.perf_counter()
        for i in range(start, start + 1000):
            model.add(bodies[i], parent=f"b{i - 1}" if i else "world", joint=joints[i])
        times.append(time.perf_counter() - tic)
    assert min(times[-3:]) < 3 * min(times[:3])  # the 12th thousand costs what the first did (was quadratic)


def test_a_joint_object_cannot_be_added_twice():
    model, joint = mb.Model("m"), mb.Revolute(name="j")
    model.add(mb.Body("a", 1.0, inertia=np.eye(3)), joint=joint)
    with pytest.raises(mb.ModelError):
        model.add(mb.Body("b", 1.0, inertia=np.eye(3)), joint=joint)


def test_batched_point_and_body_velocity_match_the_per_state_loop():
    model = mb.load(mb.io.files.EXAMPLES / "double_pendulum.yaml")
    rng = np.random.default_rng(0)
    Q, V = rng.normal(size=(5, model.nq)), rng.normal(size=(5, model.nv))
    name, point = model.bodies[-1].name, (0.1, 0.2, 0.3)
    assert mb.point_velocity(model, Q, V, name, point).shape == (5, 3)
    assert np.allclose(mb.point_velocity(model, Q, V, name, point),
                       [mb.point_velocity(model, q, v, name, point) for q, v in zip(Q, V)])
    assert np.allclose(mb.body_velocity(model, Q, V, name), [mb.body_velocity(model, q, v, name) for q, v in zip(Q, V)])
    assert mb.body_velocity(model, Q.reshape(5, 1, -1), V[0], name).shape == (5, 1, 6)
