"""YAML model files: the bundled examples, exact round trips, the seed's worked example, and clear errors."""
import numpy as np
import pytest

import multibody as mb
from multibody.io.files import EXAMPLES, example_path, model_from_dict, model_to_dict
from multibody.simulate.forces import elements_force

EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*") if p.suffix in (".yaml", ".urdf"))


def test_examples_cover_the_issue():
    assert {"rod_particle", "double_pendulum", "six_axis_arm", "satellite_rotor", "four_bar", "humanoid"} <= set(EXAMPLE_NAMES)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_every_example_loads_and_round_trips_through_the_dictionary_form(name):
    if name == "four_bar" and not hasattr(mb, "Connect"):
        pytest.skip("needs multibody.Connect (constraints, issue 4)")
    setup = mb.read_model_file(example_path(name))
    assert setup.q0.shape == (setup.model.nq,) and setup.v0.shape == (setup.model.nv,)
    if getattr(setup.model, "constraints", None) and not hasattr(setup.model.constraints[0], "to_dict"):
        pytest.skip("constraints cannot describe themselves yet (no to_dict)")
    copy = model_from_dict(model_to_dict(setup.model))
    a, b = setup.model.compile(), copy.compile()
    assert np.array_equal(a.params, b.params) and np.array_equal(a.topology, b.topology)
    assert copy.frames.keys() == setup.model.frames.keys()


def test_double_pendulum_file_gives_the_described_model():
    setup = mb.read_model_file(example_path("double_pendulum"))
    model = setup.model
    assert [b.name for b in model.bodies] == ["upper", "lower"] and model.total_mass() == 2.0
    np.testing.assert_array_equal(setup.q0, [1.2, -0.6])
    assert setup.simulation == {"t_end": 10.0, "method": "DOP853", "rtol": 1e-8, "atol": 1e-10}
    np.testing.assert_allclose(mb.body_pose(model, [0.0, 0.0], "tip")[1], [0, 0, -2.0])


def _seed_lagrange_accelerations(q, qd, k_over_m, L, L0):
    """q̈ of the rod with a sliding particle from the corrected eq. 34 of source document 000 (divided by m)."""
    q1, q2, q3, q4 = q
    _, _, w, s = qd
    c, n = np.cos(q3), np.sin(q3)
    M = np.array([[2, 0, -(L + q4) * n, c],
                  [0, 2, (L + q4) * c, n],
                  [-(L + q4) * n, (L + q4) * c, 4 * L**2 / 3 + q4**2, 0],
                  [c, n, 0, 1]])
    rhs = -np.array([-2 * s * w * n - (L + q4) * w**2 * c,
                     2 * s * w * c - (L + q4) * w**2 * n,
                     2 * q4 * w * s,
                     -q4 * w**2 + k_over_m * (q4 - L0)])
    return np.linalg.solve(M, rhs)


def test_rod_particle_example_follows_the_seed_equations():
    # the seed's q1, q2 locate C, the rod's end; its mass center is at C + L b1, so
    # in the seed's Lagrange form the rod contributes as a rod of length 2L about C (eq. 34, corrected)
    setup = mb.read_model_file(example_path("rod_particle"))
    model = setup.model
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.normal(size=4) * [1, 1, 1, 0.3] + [0, 0, 0, 0.8]
        v = rng.normal(size=4)
        qd = mb.configuration_rate(model, q, v)
        a = mb.aba(model, q, v, elements_force(model, q, v))
        # q̈ from v̇: (ẍ, ẏ) = R(θ)(v̇x, v̇y) + θ̇ R'(θ)(vx, vy)
        c, s = np.cos(q[2]), np.sin(q[2])
        R, dR = np.array([[c, -s], [s, c]]), np.array([[-s, -c], [c, -s]])
        qdd = np.concatenate([R @ a[:2] + v[2] * dR @ v[:2], a[2:]])
        expected = _seed_lagrange_accelerations(q, qd, 10.0, 1.0, 0.5)
        np.testing.assert_allclose(qdd, expected, atol=2e-8)


BASE = """
name: test
bodies:
  - name: a
    joint: {type: revolute, axis: [0, 1, 0]}
    mass: 1.0
    inertia: [0.1, 0.1, 0.1]
"""


@pytest.mark.parametrize("text, message", [
    (BASE.replace("    mass: 1.0\n", ""), "bad.yaml: bodies[0].mass: missing required field"),
    (BASE.replace("mass: 1.0", "mass: heavy"), "bad.yaml: bodies[0].mass: expected a number, got 'heavy'"),
    (BASE.replace("axis: [0, 1, 0]", "axis: [0, 1]"), "bad.yaml: bodies[0].joint.axis: expected a list of 3 numbers"),
    (BASE.replace("    joint:", "    parent: b\n    joint:"), "bad.yaml: bodies[0].parent: body 'a': unknown parent 'b'"),
    (BASE.replace("    mass:", "    mas: 2\n    mass:"), "bad.yaml: bodies[0].mas: unknown field (did you mean 'mass'?)"),
    (BASE.replace("revolute", "hinge"), "bad.yaml: bodies[0].joint.type: unknown joint type 'hinge'"),
    (BASE + "initial: {q: [1, 2]}\n", "bad.yaml: initial.q: expected 1 numbers, got 2"),
    (BASE + "initial: {q: {knee: 1}}\n", "bad.yaml: initial.q.knee: unknown joint"),
    (BASE + "simulation: {rtol: fine}\n", "bad.yaml: simulation.rtol: expected a number"),
    (BASE + "forces: [{type: joint_spring, joint: a_joint}]\n", "bad.yaml: forces[0].stiffness: missing required field"),
    (BASE + "forces: [{type: rubber_band}]\n", "bad.yaml: forces[0].type: unknown force element 'rubber_band'"),
    (BASE.replace("inertia: [0.1, 0.1, 0.1]", "inertia: [0.1, 0.1, 0.5]"), "bad.yaml: bodies[0]: body 'a': inertia violates"),
    ("bodies: [\n  {name: a\n", "bad.yaml: line 3, column 1: invalid YAML"),
    ("name: x\n", "bad.yaml: bodies: missing required field"),
    ("", "bad.yaml: the file is empty"),
])
def test_errors_name_the_file_the_field_and_the_problem(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(mb.ModelError) as info:
        mb.load(path)
    text = str(info.value)
    assert "\n" not in text
    assert text.replace(str(tmp_path) + "/", "").startswith(message), text


def test_the_base_file_is_valid(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(BASE)
    assert mb.load(path).nv == 1
