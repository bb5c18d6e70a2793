"""Hostile model and trajectory files: bounded work and memory, and a one-line ModelError naming the file."""
import io
import zipfile

import numpy as np
import pytest

import multibody as mb
from multibody.io.files import EXAMPLES


def load_error(path):
    with pytest.raises(mb.ModelError) as info:
        mb.read_model_file(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message and len(message) <= 1000
    return message


def test_yaml_alias_bomb_is_refused_quickly(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 12)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\nbodies: *a11\n")
    assert "aliases expand to more than" in load_error(path)


def test_yaml_self_referring_alias_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("bodies: &a [*a]\n")
    assert "alias refers to a node that contains it" in load_error(path)


@pytest.mark.parametrize("text", ["bodies: " + "[" * 300_000 + "]" * 300_000, "bodies: " + "[" * 150 + "]" * 150])
def test_yaml_deep_nesting_is_refused_not_a_crash(tmp_path, text):
    path = tmp_path / "deep.yaml"
    path.write_text(text + "\n")
    assert "nested more than" in load_error(path)


def test_yaml_duplicate_key_names_file_path_and_key(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("bodies:\n  - name: a\n    mass: 1\n    mass: 2\n    inertia: [1, 1, 1]\n")
    assert "bodies[0].mass: duplicate key 'mass'" in load_error(path)


@pytest.mark.parametrize("content", [b"bodies: \xff\xfe\n", ("bodies:\n  - {name: a, mass: " + "9" * 5000 + "}\n").encode()])
def test_undecodable_yaml_is_a_model_error(tmp_path, content):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    load_error(path)


def test_escape_characters_in_names_are_not_printed_raw(tmp_path, capsys):
    path = tmp_path / "esc.yaml"
    path.write_text('name: "\\e[31mred"\nbodies:\n  - {name: "\\e[31mred", joint: revolute, mass: 1, '
                    'inertia: [1, 1, 1]}\n')
    from multibody.cli import main
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[31mred" in out
    path.write_text('bodies:\n  - {name: "\\e[31mred", joint: revolute, mass: -1, inertia: [1, 1, 1]}\n')
    message = load_error(path)
    assert "\x1b" not in message and "\\x1b[31mred" in message


def test_long_values_are_abbreviated_in_errors(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text("bodies:\n  - {name: " + "n" * 100_000 + ", joint: revolute, mass: x, inertia: [1, 1, 1]}\n")
    load_error(path)


def test_xml_errors_name_the_file(tmp_path):
    path = tmp_path / "robot.urdf"
    path.write_text("<robot name='r'><link name='a'>" + "<x>" * 100 + "\x01")
    load_error(path)


def _saved(tmp_path):
    model = mb.load(EXAMPLES / "double_pendulum.yaml")
    traj = mb.simulate(model, model.neutral() + 0.1, np.zeros(model.nv), t_end=0.05)
    return traj.save(tmp_path / "ok.npz")


def test_trajectory_declaring_a_huge_array_is_refused_before_allocating(tmp_path):
    with zipfile.ZipFile(_saved(tmp_path)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (400_000_000,)})
    members["q.npy"] = header.getvalue() + bytes(3_000_000)  # 3 MB holding a declared 3.2 GB
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    import tracemalloc
    tracemalloc.start()
    with pytest.raises(mb.ModelError, match="huge.npz: array 'q' declares shape"):
        mb.Trajectory.load(path)
    assert tracemalloc.get_traced_memory()[1] < 100e6
    tracemalloc.stop()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "no model"])
def test_damaged_trajectory_files_are_model_errors_naming_the_file(tmp_path, damage):
    path = _saved(tmp_path)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not a zip" * 10)
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    else:
        with zipfile.ZipFile(path) as archive:
            members = {name: archive.read(name) for name in archive.namelist() if name != "model.npy"}
        with zipfile.ZipFile(path, "w") as archive:
            for name, member in members.items():
                archive.writestr(name, member)
    with pytest.raises(mb.ModelError, match="ok.npz"):
        mb.Trajectory.load(path)


def test_trajectory_round_trip_is_bit_exact_with_oblique_axes(tmp_path):
    model = mb.Model("oblique")
    model.add(mb.Body("a", 1.0, com=(0.1, 0, 0), inertia=np.diag([0.1, 0.2, 0.25])), joint=mb.Revolute((0.3, 0.4, 1.2)))
    model.add(mb.Body("b", 1.0, com=(0.1, 0, 0), inertia=np.diag([0.1, 0.2, 0.25])), parent="a",
              joint=mb.Prismatic((1e308, 1e308, 0)))
    traj = mb.simulate(model, np.array([0.2, 0.1]), np.zeros(2), t_end=0.02)
    back = mb.Trajectory.load(traj.save(tmp_path / "t.npz"))
    for joint, joint_back in zip(model.joints, back.model.joints):
        assert np.array_equal(joint.axis, joint_back.axis)
    assert np.array_equal(back.q, traj.q)
