"""Classes of bad input across the public functions, the file readers and every CLI command: booleans where numbers
belong, overflowing numbers, empty batches, infinite times and deep body trees. Each gives a one-line
ModelError/ValueError naming the field and the value, or works."""
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.cli import main


def one_line_error(call, *fields, kind=ValueError):
    with pytest.raises(kind) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and all(field in message for field in fields), message
    return message


def chain(n=2):
    return mb.Model.chain(n)


# ---------------------------------------------------------------------------------------------- booleans
DH_ROW = "{theta: 0, d: 0.1, a: 0.2, alpha: 0, mass: %s, com: [0, 0, 0], inertia: [0.01, 0.01, 0.01]}"


@pytest.mark.parametrize("value", ["yes", "true", "on"])
def test_dh_row_boolean_mass_is_refused(tmp_path, value):
    path = tmp_path / "dh.yaml"
    path.write_text(f"name: arm\ndh:\n  - {DH_ROW % value}\n")
    one_line_error(lambda: mb.read_model_file(path), str(path), "mass", "True", kind=mb.ModelError)


@pytest.mark.parametrize("make", [
    lambda: mb.Body("b", mass=True, inertia=np.eye(3)),
    lambda: mb.Body("b", mass=np.bool_(True), inertia=np.eye(3)),
    lambda: mb.Body("b", mass=1.0, com=(True, 0, 0), inertia=np.eye(3)),
    lambda: mb.Body("b", mass=1.0, inertia=[True, True, True]),
    lambda: mb.Revolute(axis=(False, False, True)),
    lambda: mb.Sphere(True),
    lambda: mb.Model.from_dh([{"theta": 0, "d": 0, "a": 1, "alpha": 0, "mass": True, "com": [0, 0, 0],
                               "inertia": [1, 1, 1]}]),
], ids=["mass", "numpy-mass", "com", "inertia", "axis", "radius", "dh-mass"])
def test_booleans_are_not_numbers(make):
    message = one_line_error(make, kind=mb.ModelError)
    assert "True" in message or "False" in message  # the value named


def test_boolean_states_and_times_are_refused():
    model = chain()
    one_line_error(lambda: mb.rnea(model, np.array([True, False]), np.zeros(2), np.zeros(2)), "q", "booleans")
    one_line_error(lambda: mb.simulate(model, np.zeros(2), np.zeros(2), t_end=True), "t_end", "True")


# ---------------------------------------------------------------------------------------------- overflow
def test_an_impulse_whose_response_overflows_is_refused():
    model = mb.Model("puck", gravity=(0, 0, 0))
    model.add(mb.Body("puck", mass=2.0, inertia=np.eye(3)), joint=mb.Free())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow warning on the way
        one_line_error(lambda: mb.apply_impulse(model, model.neutral(), np.zeros(6), "puck", (0, 0, 0),
                                                impulse=(1e308, 0, 0)), "impulse", "1e+308", "puck")
    np.testing.assert_allclose(mb.apply_impulse(model, model.neutral(), np.zeros(6), "puck", (0, 0, 0),
                                                impulse=(4.0, 0, 0)), [0, 0, 0, 2, 0, 0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("make, expected", [
    (lambda: mb.Revolute(axis=(1e308, 1e308, 0)).axis, [math.sqrt(0.5), math.sqrt(0.5), 0.0]),
    (lambda: mb.Prismatic(axis=(0, -1e308, 0)).axis, [0.0, -1.0, 0.0]),
])
def test_huge_axes_work(make, expected):
    np.testing.assert_allclose(make(), expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("make, field", [
    (lambda: mb.Body("b", mass=1e308, inertia=np.eye(3)), "mass"),
    (lambda: mb.Body("b", mass=1.0, inertia=np.eye(3) * 1e308), "inertia"),
    (lambda: mb.Body("b", mass=1.0, com=(1e308, 0, 0), inertia=np.eye(3)), "com"),
])
def test_overflowing_mass_data_is_refused(make, field):
    one_line_error(make, field, kind=mb.ModelError)


def test_huge_spans_get_bounded_default_samples_or_a_clear_error():
    model = chain(1)
    from multibody.simulate.planning import MAX_DEFAULT_SAMPLES, output_times as _output_times
    assert len(_output_times(0.0, 1e308, None, None)) == MAX_DEFAULT_SAMPLES
    one_line_error(lambda: mb.simulate(model, np.zeros(1), np.zeros(1), t_end=1e308, method="RK4", dt=1e-3),
                   "samples")


# ---------------------------------------------------------------------------------------------- empty batches
EMPTY = {
    "rnea": (lambda m, Q, V: mb.rnea(m, Q, V, V), [(0, 2)]),
    "aba": (lambda m, Q, V: mb.aba(m, Q, V, V), [(0, 2)]),
    "crba": (lambda m, Q, V: mb.crba(m, Q), [(0, 2, 2)]),
    "energy": (lambda m, Q, V: mb.energy(m, Q, V), [(0,), (0,)]),
    "jacobian": (lambda m, Q, V: mb.jacobian(m, Q, "link2", (0.1, 0, 0)), [(0, 6, 2)]),
    "body_poses": (lambda m, Q, V: mb.body_poses(m, Q), [(0, 2, 3, 3), (0, 2, 3)]),
    "body_pose": (lambda m, Q, V: mb.body_pose(m, Q, "link2"), [(0, 3, 3), (0, 3)]),
    "momentum": (lambda m, Q, V: mb.momentum(m, Q, V), [(0, 3), (0, 3)]),
    "center_of_mass": (lambda m, Q, V: mb.center_of_mass(m, Q), [(0, 3)]),
    "integrate": (lambda m, Q, V: mb.integrate(m, Q, V, 0.1), [(0, 2)]),
    "configuration_rate": (lambda m, Q, V: mb.configuration_rate(m, Q, V), [(0, 2)]),
    "body_velocity": (lambda m, Q, V: mb.body_velocity(m, Q, V, "link2"), [(0, 6)]),
}


@pytest.mark.parametrize("name", list(EMPTY))
def test_empty_batches_give_empty_results(name):
    model = chain()
    assert [b.name for b in model.bodies] == ["link1", "link2"]
    function, shapes = EMPTY[name]
    result = function(model, np.zeros((0, 2)), np.zeros((0, 2)))
    results = result if isinstance(result, tuple) else (result,)
    assert [np.shape(r) for r in results] == shapes


# ---------------------------------------------------------------------------------------------- infinite times
@pytest.mark.parametrize("times", [dict(t_end=math.inf), dict(t_end=math.nan), dict(t_end=-math.inf),
                                   dict(t_start=-math.inf, t_end=1.0), dict(t_end=1.0, dt=math.inf, method="RK4"),
                                   dict(t_end=1.0, t_eval=[0.0, math.inf])])
def test_infinite_times_are_refused(times):
    model = chain(1)
    one_line_error(lambda: mb.simulate(model, np.zeros(1), np.zeros(1), **times))
    one_line_error(lambda: mb.simulate(model, np.zeros((2, 1)), np.zeros(1), **times))  # batched runs too


def test_an_unnormalized_free_joint_quaternion_is_said():
    model = mb.Model("puck", gravity=(0, 0, 0))
    model.add(mb.Body("puck", mass=1.0, inertia=np.eye(3)), joint=mb.Free(name="float"))
    with pytest.warns(UserWarning, match="quaternion of joint 'float' has norm 2"):
        traj = mb.simulate(model, [0, 0, 0, 2.0, 0, 0, 0], np.zeros(6), t_end=0.01)
    np.testing.assert_array_equal(traj.q[0, 3:], [1, 0, 0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mb.simulate(model, [0, 0, 0, 0.7071, 0, 0, 0.7071], np.zeros(6), t_end=0.01)  # file rounding: silent


# ---------------------------------------------------------------------------------------------- deep trees
DEPTH = 1200  # bodies in a chain: beyond Python's default recursion limit (1000)


def deep_files(directory, n=DEPTH):
    import yaml
    bodies = [{"name": f"l{i}", "parent": "world" if i == 0 else f"l{i - 1}", "joint": "revolute", "mass": 1.0,
               "com": [0.05, 0, 0], "inertia": [0.01, 0.01, 0.01], "placement": {"xyz": [0.1 if i else 0, 0, 0]}}
              for i in range(n)]
    (directory / "chain.yaml").write_text(yaml.safe_dump({"name": "chain", "bodies": bodies}))
    link = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
    urdf = [f'<robot name="chain"><link name="l0">{link}</link>']
    for i in range(1, n):
        urdf.append(f'<link name="l{i}">{link}</link><joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
                    f'<child link="l{i}"/><origin xyz="0.1 0 0"/><axis xyz="0 1 0"/></joint>')
    (directory / "chain.urdf").write_text("".join(urdf) + "</robot>")
    mjcf = "".join(f'<body name="l{i}" pos="0.1 0 0"><joint name="j{i}" type="hinge" axis="0 1 0"/>'
                   f'<geom type="sphere" size="0.01" mass="1"/>' for i in range(n))
    (directory / "chain.xml").write_text(f"<mujoco><worldbody>{mjcf}{'</body>' * n}</worldbody></mujoco>")
    return [directory / name for name in ("chain.yaml", "chain.urdf", "chain.xml")]


@pytest.mark.slow
def test_deep_trees_in_every_cli_command(tmp_path, capsys):
    """info draws the whole tree, simulate runs it, eom refuses it by its size, demo runs and draws it."""
    for path in deep_files(tmp_path):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # URDF without limits, ...
            assert main(["info", str(path)]) == 0, capsys.readouterr().err
            out = capsys.readouterr().out
            root_welded = path.suffix == ".urdf"  # a URDF's root link is the fixed base
            assert f"bodies: {DEPTH - root_welded}  " in out and f"l{DEPTH - 1}  [" in out
            assert main(["simulate", str(path), "--t-end", "1e-3", "--samples", "2", "--no-progress"]) == 0
            assert "to t = 0.001 s" in capsys.readouterr().out
            assert main(["eom", str(path)]) == 1
            assert f"has {DEPTH - root_welded} bodies" in capsys.readouterr().err
            assert main(["demo", "--example", str(path), "--t-end", "1e-3", "--out-dir", str(tmp_path / "demo")]) == 0
            assert "to t = 0.001 s" in capsys.readouterr().out


def test_deep_tree_info_in_a_fresh_process(tmp_path):
    """The command as a user runs it: no RecursionError traceback."""
    path = deep_files(tmp_path, 1500)[0]
    result = subprocess.run([sys.executable, "-m", "multibody.cli", "info", str(path)], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "bodies: 1500" in result.stdout and "Traceback" not in result.stderr
