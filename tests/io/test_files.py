"""YAML model files: the bundled examples, exact round trips (constraints and contact shapes included, through
YAML text and saved trajectories), the seed's worked example, and clear errors."""
import numpy as np
import pytest
import yaml

import multibody as mb
from multibody.io.files import EXAMPLES, example_path, model_from_dict, model_to_dict
from multibody.simulate.forces import elements_force

EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*") if p.suffix in (".yaml", ".urdf"))


def test_the_bundled_examples_are_all_there():
    assert {"rod_particle", "double_pendulum", "six_axis_arm", "satellite_rotor", "four_bar", "humanoid"} <= set(EXAMPLE_NAMES)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_every_example_loads_and_round_trips_through_the_dictionary_form(name):
    setup = mb.read_model_file(example_path(name))
    assert setup.q0.shape == (setup.model.nq,) and setup.v0.shape == (setup.model.nv,)
    copy = model_from_dict(model_to_dict(setup.model))
    a, b = setup.model.compile(), copy.compile()
    assert np.array_equal(a.params, b.params) and np.array_equal(a.topology, b.topology)
    assert copy.frames.keys() == setup.model.frames.keys()
    assert [c.to_dict() for c in copy.constraints] == [c.to_dict() for c in setup.model.constraints]


def test_a_bundled_example_loads_by_name_like_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert mb.load("double_pendulum").name == "double_pendulum"
    assert mb.read_model_file("six_axis_arm").source == str(example_path("six_axis_arm"))
    (tmp_path / "double_pendulum").write_text("name: mine\nbodies:\n  - {name: a, joint: revolute, mass: 1, "
                                              "inertia: [1, 1, 1]}\n")
    assert mb.load("double_pendulum").name == "mine"  # a file of that name comes first
    with pytest.raises(mb.ModelError, match=r"^no_such: no such model file or bundled example \(examples: .*four_bar"):
        mb.load("no_such")
    with pytest.raises(mb.ModelError, match="sub/arm.yaml: no such model file$"):
        mb.load("sub/arm.yaml")


def test_saved_four_bar_trajectory_keeps_its_loop_closure(tmp_path):
    setup = mb.read_model_file(example_path("four_bar"))
    traj = mb.simulate(setup.model, setup.q0, setup.v0, t_end=0.2, samples=5)
    loaded = mb.Trajectory.load(traj.save(tmp_path / "four_bar.npz"))
    assert loaded.model.constraints[0].to_dict() == {"type": "connect", "body_a": "coupler", "point_a": [0.6, 0, 0],
                                                     "body_b": "rocker", "point_b": [0.5, 0, 0], "name": "C"}
    assert loaded.q.tobytes() == traj.q.tobytes()
    # the rebuilt loop closure measures the same drift, bit for bit, and it is small
    assert loaded.constraint_errors().tobytes() == traj.constraint_errors().tobytes()
    assert np.max(traj.constraint_errors()) < 1e-6


def every_constraint_and_shape():
    """A free wheel and a hinged arm carrying one of each constraint type and contact shape, with unit vectors
    such as [0, 1, 1]/√2 whose normalization is not idempotent in floating point."""
    model = mb.Model("everything")
    model.add(mb.Body("arm", mass=1.0, com=(0.2, 0, 0), inertia=[0.01, 0.02, 0.02]), joint=mb.Revolute((0, 1, 0)))
    model.add(mb.Body("wheel", mass=2.0, inertia=[0.05, 0.09, 0.05]), joint=mb.Free())
    model.add_frame("tip", "arm", mb.Transform(mb.rotation_about((0, 0, 1), 0.3), (0.4, 0, 0)))
    tilted = mb.Transform(mb.rotation_about((1, 2, 3), 0.7), (0.3, 0.1, -0.2))
    for constraint in (
            mb.Connect("tip", (0.1, 1 / 3, 0.2), "wheel", (0, 0, 0.05), name="pin"),
            mb.Weld("arm", "world", relative=tilted),
            mb.Align("arm", (0, 1, 1), "wheel", (1, 1, 0), name="parallel"),
            mb.PointOnPlane("wheel", (0.1, 0, 0), "arm", origin=(0, 0.2, 0), normal=(0, 1, 1)),
            mb.RollingDisk("wheel", 0.3, axis=(0, 1, 0.1), center=(0, 0, 0.01), height=0.05),
            mb.RollingSphere("wheel", 0.2, center=(0.1, 0, 0), normal=(0, 1, 1)),
            mb.KnifeEdge("wheel", (0.1, 0, 0), direction=(1, 1, 0))):
        model.add_constraint(constraint)
    model.add_geometry("wheel", mb.Sphere(0.2), friction=0.3, restitution=0.7)
    model.add_geometry("arm", mb.Capsule(0.02, 0.2), placement=mb.Transform(mb.rotation_about((0, 1, 0), np.pi / 2)))
    model.add_geometry("wheel", mb.Box((0.1, 1 / 3, 0.05)), placement=tilted, name="crate")
    model.add_geometry("world", mb.Plane(), friction=0.9, name="ground")
    return model


def test_constraints_and_shapes_round_trip_through_yaml_text_exactly(tmp_path):
    model = every_constraint_and_shape()
    path = tmp_path / "everything.yaml"
    path.write_text(yaml.safe_dump(model_to_dict(model)))
    copy = mb.load(path)
    assert model_to_dict(copy) == model_to_dict(model)
    for before, after in zip(model.constraints + model.geometries, copy.constraints + copy.geometries):
        assert type(after) is type(before)
        assert type(getattr(after, "shape", None)) is type(getattr(before, "shape", None))
        for key, value in vars(before).items():
            if isinstance(value, np.ndarray):
                assert getattr(after, key).tobytes() == value.tobytes(), (before, key)
    assert copy.geometries[3].shape.to_dict() == {"type": "plane"}


def test_constrained_model_with_shapes_round_trips_through_a_saved_trajectory(tmp_path):
    model = every_constraint_and_shape()
    rng = np.random.default_rng(7)
    q = np.array([mb.normalize(model, x) for x in rng.normal(size=(3, model.nq))])
    traj = mb.Trajectory(model, [0.0, 0.5, 1.0], q, rng.normal(size=(3, model.nv)))
    loaded = mb.Trajectory.load(traj.save(tmp_path / "everything.npz"))
    assert model_to_dict(loaded.model) == model_to_dict(model)
    # the rebuilt constraints give the same residuals φ and J v − b, bit for bit
    assert loaded.constraint_errors().tobytes() == traj.constraint_errors().tobytes()
    assert np.all(traj.constraint_errors() > 0)


def test_user_callable_constraints_cannot_be_saved_and_say_which(tmp_path):
    model = mb.Model("user")
    model.add(mb.Body("slider", mass=1.0, inertia=[0.1, 0.1, 0.1]), joint=mb.Prismatic((1, 0, 0)))
    model.add_constraint(mb.Holonomic(lambda q: q[:1] - 0.5, 1, name="stop"))
    traj = mb.Trajectory(model, [0.0], [[0.5]], [[0.0]])
    with pytest.raises(mb.ModelError, match="Holonomic 'stop'.*cannot be saved"):
        traj.save(tmp_path / "user.npz")
    assert not (tmp_path / "user.npz").exists()
    model.constraints[0] = mb.Nonholonomic(lambda q: np.ones((1, 1)), 1, name="brake")
    with pytest.raises(mb.ModelError, match="Nonholonomic 'brake'.*cannot be saved"):
        model_to_dict(model)


def test_double_pendulum_file_gives_the_described_model():
    setup = mb.read_model_file(example_path("double_pendulum"))
    model = setup.model
    assert [b.name for b in model.bodies] == ["upper", "lower"] and model.total_mass() == 2.0
    np.testing.assert_array_equal(setup.q0, [1.2, -0.6])
    assert setup.simulation == {"t_end": 10.0, "method": "DOP853", "rtol": 1e-8, "atol": 1e-10}
    np.testing.assert_allclose(mb.body_pose(model, [0.0, 0.0], "tip")[1], [0, 0, -2.0])


def _seed_lagrange_accelerations(q, qd, k_over_m, L, L0):
    """q̈ of the rod with a sliding particle from the corrected eq. 34 of Kane (1981) (divided by m)."""
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
    (BASE + "constraints: [{type: holonomic, phi: 1}]\n",
     "bad.yaml: constraints[0].type: unknown constraint type 'holonomic' (known: connect, weld"),
    (BASE + "constraints: [{type: connect, body_a: a, point_a: [0, 0]}]\n",
     "bad.yaml: constraints[0]: Connect point_a must have shape (3,)"),
    (BASE + "constraints: [{type: weld, body_a: a, relative: {rpy: [0, 0]}}]\n",
     "bad.yaml: constraints[0].relative.rpy: expected a list of 3 numbers"),
    (BASE + "geometries: [{body: a, shape: {type: cone}}]\n",
     "bad.yaml: geometries[0].shape.type: unknown shape 'cone' (known: sphere, box, capsule, plane, convex_hull)"),
    (BASE + "geometries: [{body: a}]\n", "bad.yaml: geometries[0].shape: missing required field"),
    (BASE + "geometries: [{body: a, shape: {type: sphere}}]\n",
     "bad.yaml: geometries[0].shape.radius: missing required field"),
    (BASE + "geometries: [{body: b, shape: plane}]\n",
     "bad.yaml: geometries[0]: model 'test': unknown body or frame 'b'"),
    (BASE + "geometries: [{body: a, shape: plane, restitution: 2}]\n",
     "bad.yaml: geometries[0]: geometry on 'a': restitution must be in [0, 1]"),
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


def test_a_model_file_selects_a_fixed_step_method(tmp_path):
    path = tmp_path / "rk4.yaml"
    path.write_text(example_path("double_pendulum").read_text().split("simulation:")[0]
                    + "simulation: {t_end: 0.05, method: RK4, dt: 0.01}\n")
    setup = mb.read_model_file(path)
    assert setup.simulation == {"t_end": 0.05, "method": "RK4", "dt": 0.01}
    traj = mb.simulate(setup.model, setup.q0, setup.v0, **setup.simulation)
    np.testing.assert_allclose(traj.t, [0.0, 0.01, 0.02, 0.03, 0.04, 0.05], rtol=0, atol=1e-15)
