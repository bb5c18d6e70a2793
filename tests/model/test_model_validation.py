"""Bad input is rejected with an error that names the culprit."""
import numpy as np
import pytest

import multibody as mb

INERTIA = np.diag([0.1, 0.2, 0.25])


def _pendulum():
    model = mb.Model("pendulum")
    model.add(mb.Body("rod", mass=1.0, com=(0, 0, -0.5), inertia=INERTIA), joint=mb.Revolute((1, 0, 0)))
    model.add(mb.Body("ball", mass=1.0, com=(0, 0, 0), inertia=INERTIA), parent="rod",
              joint=mb.Spherical(name="wrist"), placement=mb.Transform(translation=(0, 0, -1)))
    return model


@pytest.mark.parametrize("mass, words", [(-1.0, "mass must be finite and non-negative"),
                                         (np.nan, "finite"), (np.inf, "finite"), ("heavy", "must be a number")])
def test_bad_mass_names_body_and_value(mass, words):
    with pytest.raises(mb.ModelError, match=words) as err:
        mb.Body("arm", mass=mass, inertia=INERTIA)
    assert "'arm'" in str(err.value)


@pytest.mark.parametrize("inertia, words", [
    (np.array([[1.0, 0.5, 0], [0.0, 1.0, 0], [0, 0, 1.0]]), "symmetric"),
    (np.diag([1.0, -1.0, 1.0]), "positive semi-definite"),
    (np.diag([1.0, -2e-6, 1.0]), "positive semi-definite"),
    (np.diag([0.1, 0.1, 1.0]), "triangle inequality"),
    (np.eye(2), r"shape \(3, 3\)"),
    (np.diag([1.0, np.nan, 1.0]), "finite"),
])
def test_bad_inertia_names_body_and_problem(inertia, words):
    with pytest.raises(mb.ModelError, match=words) as err:
        mb.Body("forearm", mass=1.0, inertia=inertia)
    assert "'forearm'" in str(err.value)


def test_point_masses_massless_bodies_and_round_off_inertias_are_accepted():
    assert mb.Body("point", mass=2.0, inertia=np.zeros((3, 3))).mass == 2.0
    assert mb.Body("ghost", mass=0.0, inertia=np.zeros((3, 3))).massless
    mb.Body("rounded", mass=1.0, inertia=np.diag([1.0, -1e-7, 1.0]))          # within a relative 1e-6
    mb.Body("rod", mass=1.0, inertia=np.diag([1.0, 1.0, 2.0 + 1e-7]))          # triangle, within 1e-6
    mb.Body("odd", mass=1.0, inertia=np.diag([0.1, 0.1, 1.0]), check_inertia="semidefinite")
    mb.Body("wrong", mass=1.0, inertia=np.diag([1.0, -1.0, 1.0]), check_inertia="none")
    with pytest.raises(mb.ModelError, match="check_inertia must be one of"):
        mb.Body("typo", mass=1.0, inertia=np.eye(3), check_inertia="loose")


def test_a_massless_body_moved_by_a_joint_is_allowed_and_forward_dynamics_names_a_singular_mass_matrix():
    """Virtual links of a multi-axis joint: two massless bodies, then the massive one (RBDA §4.2)."""
    model = mb.Model("hip")
    for name, axis, parent in (("hip_z", (0, 0, 1), "world"), ("hip_x", (1, 0, 0), "hip_z")):
        model.add(mb.Body(name, mass=0.0, inertia=np.zeros((3, 3))), parent=parent, joint=mb.Revolute(axis))
    model.add(mb.Body("thigh", mass=3.0, com=(0, 0, -0.2), inertia=INERTIA), parent="hip_x", joint=mb.Revolute((0, 1, 0)))
    q, v, a = np.array([0.3, -0.2, 0.5]), np.array([0.1, 0.4, -0.3]), np.array([1.0, -2.0, 0.5])
    assert np.linalg.eigvalsh(mb.crba(model, q))[0] > 0
    np.testing.assert_allclose(mb.aba(model, q, v, mb.rnea(model, q, v, a)), a, rtol=0, atol=1e-10)
    model.add(mb.Body("dangling", mass=0.0, inertia=np.zeros((3, 3))), parent="thigh", joint=mb.Prismatic((0, 0, 1)))
    q, v = np.zeros(4), np.zeros(4)
    assert mb.crba(model, q)[3, 3] == 0.0 and mb.rnea(model, q, v, v)[3] == 0.0  # inverse dynamics still holds
    with pytest.raises(mb.ModelError, match=r"mass matrix is singular.*joints 'dangling_joint'; give") as err:
        mb.aba(model, q, v, v)
    assert "hip_z" not in str(err.value)


def test_inertia_is_required_and_principal_moments_accepted():
    with pytest.raises(mb.ModelError, match="inertia .* is required"):
        mb.Body("b", mass=1.0)
    np.testing.assert_array_equal(mb.Body("b", mass=1.0, inertia=[1, 2, 2.5]).inertia, np.diag([1, 2, 2.5]))


def test_bad_com_and_names():
    with pytest.raises(mb.ModelError, match=r"'b': com must have shape \(3,\)"):
        mb.Body("b", mass=1.0, com=(0, 0), inertia=INERTIA)
    with pytest.raises(mb.ModelError, match="reserved"):
        mb.Body("world", mass=1.0, inertia=INERTIA)
    with pytest.raises(mb.ModelError, match="non-empty string"):
        mb.Body("", mass=1.0, inertia=INERTIA)


def test_tree_errors_name_the_body_and_joint():
    model = _pendulum()
    with pytest.raises(mb.ModelError, match="duplicate body name 'rod'"):
        model.add(mb.Body("rod", mass=1.0, inertia=INERTIA), joint=mb.Revolute())
    with pytest.raises(mb.ModelError, match="body 'hand': unknown parent 'elbow'.*add parents before their children"):
        model.add(mb.Body("hand", mass=1.0, inertia=INERTIA), parent="elbow", joint=mb.Revolute())
    with pytest.raises(mb.ModelError, match="duplicate joint name 'wrist'"):
        model.add(mb.Body("hand", mass=1.0, inertia=INERTIA), parent="ball", joint=mb.Revolute(name="wrist"))
    with pytest.raises(mb.ModelError, match="body 'hand': joint must be a multibody joint"):
        model.add(mb.Body("hand", mass=1.0, inertia=INERTIA), parent="ball", joint="revolute")
    with pytest.raises(mb.ModelError, match="unknown body or frame 'nose'"):
        mb.body_pose(model, model.neutral(), "nose")


@pytest.mark.parametrize("axis", [(0, 0, 0), (np.nan, 0, 1), (1, 0)])
def test_bad_joint_axis(axis):
    with pytest.raises(mb.ModelError, match="Revolute joint axis"):
        mb.Revolute(axis)


def test_bad_placement_rotation():
    with pytest.raises(mb.ModelError, match="proper rotation"):
        mb.Transform(rotation=np.diag([1.0, 1.0, -1.0]))


def test_state_shape_errors_say_expected_and_got():
    model = _pendulum()
    with pytest.raises(ValueError, match=r"q: expected shape \(5,\) or \(\.\.\., 5\), got \(4,\)"):
        mb.rnea(model, np.zeros(4), np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match=r"tau: expected shape \(4,\)"):
        mb.aba(model, model.neutral(), np.zeros(4), np.zeros(3))
    with pytest.raises(ValueError, match=r"f_ext: expected shape \(2, 6\)"):
        mb.rnea(model, model.neutral(), np.zeros(4), np.zeros(4), f_ext=np.zeros(6))


@pytest.mark.parametrize("function, argument, index, words", [
    ("rnea", "q", 0, "q[0] (joint 'rod_joint', body 'rod') is nan"),
    ("rnea", "v", 2, "v[2] (joint 'wrist', body 'ball') is inf"),
    ("rnea", "a", 3, "a[3] (joint 'wrist', body 'ball') is nan"),
    ("aba", "tau", 1, "tau[1] (joint 'wrist', body 'ball') is nan"),
    ("crba", "q", 2, "q[2] (joint 'wrist', body 'ball') is nan"),
])
def test_non_finite_state_is_rejected_naming_the_joint(function, argument, index, words):
    model = _pendulum()
    state = {"q": model.neutral(), "v": np.zeros(4), "a": np.zeros(4), "tau": np.zeros(4)}
    state[argument] = state[argument].copy()
    state[argument][index] = np.inf if words.endswith("inf") else np.nan
    args = {"rnea": ("q", "v", "a"), "aba": ("q", "v", "tau"), "crba": ("q",)}[function]
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)")):
        getattr(mb, function)(model, *(state[k] for k in args))


def test_non_finite_in_a_batch_names_the_batch_entry():
    model = _pendulum()
    q = np.tile(model.neutral(), (3, 1))
    q[2, 0] = np.nan
    with pytest.raises(ValueError, match=r"q\[0\] \(joint 'rod_joint', body 'rod'\) in batch entry \(2,\) is nan"):
        mb.aba(model, q, np.zeros(4), np.zeros(4))


def test_symbolic_parameters_are_refused_by_the_numeric_core():
    import sympy
    m = sympy.Symbol("m", positive=True)
    model = mb.Model("symbolic")
    model.add(mb.Body("b", mass=m, inertia=np.diag([m, m, m])), joint=mb.Revolute())
    assert model.symbolic
    with pytest.raises(mb.ModelError, match="symbolic parameters"):
        mb.crba(model, [0.0])


def test_model_sizes_and_neutral_configuration():
    model = _pendulum()
    assert (model.nq, model.nv, model.nbodies) == (5, 4, 2)
    np.testing.assert_array_equal(model.neutral(), [0, 1, 0, 0, 0])
    assert model.q_slice("wrist") == slice(1, 5)
    assert model.v_slice("ball") == slice(1, 4)


def test_changing_gravity_recompiles_and_editing_it_in_place_is_refused():
    model = _pendulum()
    q, v = model.neutral(), np.zeros(model.nv)
    tau = mb.rnea(model, q, v, v)
    model.gravity = (0.0, 0.0, -2 * 9.81)
    np.testing.assert_allclose(mb.rnea(model, q, v, v), 2 * tau, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="read-only"):
        model.gravity[2] = 0.0


def test_changing_a_body_or_joint_after_a_call_recompiles_and_arrays_cannot_be_edited_in_place():
    model = _pendulum()
    q, v = model.neutral(), np.zeros(model.nv)
    M = mb.crba(model, q)
    model.body("rod").mass = 2.0
    assert mb.crba(model, q)[0, 0] > M[0, 0]
    model.joints[0].armature = 0.5
    np.testing.assert_allclose(mb.crba(model, q)[0, 0] - 0.5, mb.crba(_heavier_rod(), q)[0, 0], rtol=0, atol=1e-12)
    for array in (model.body("rod").inertia, model.body("rod").com, model.joints[0].axis, model.joints[0].armature):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0


def _heavier_rod():
    model = _pendulum()
    model.body("rod").mass = 2.0
    return model
