"""Fuzzing the model-file and trajectory readers: mutated YAML and URDF files (the bundled examples and small
URDFs with elements deleted, duplicated and swapped, numbers replaced by nan/inf/1e308/-1/'x'/huge strings,
truncation, unicode and control characters, deep nesting) plus the known hostile cases (alias bombs, duplicate
keys, escape characters, a trajectory declaring a 3 GB array).

Every outcome must be a sane load (a Model whose compile() works or raises ModelError) or a one-line ModelError
naming the file: no other exception, no hang (a time limit per case), no memory blow-up (each case runs in a
forked child under RLIMIT_AS). Seeded and bounded; ``python tests/io/test_fuzz.py`` prints the counts.
"""
from __future__ import annotations

import io
import os
import pickle
import random
import re
import resource
import select
import signal
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import multibody as mb

EXAMPLES = Path(mb.__file__).parent / "examples"
SEED = 14
TIME_LIMIT = 5.0  # seconds per case
MEMORY_LIMIT = 1 << 30  # bytes of address space a case may add

SMALL_URDFS = {
    "two_links.urdf": """<?xml version="1.0"?>
<robot name="two">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><origin xyz="0 0 0.5" rpy="0 0 0"/><mass value="2"/>
    <inertia ixx="0.2" iyy="0.2" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/>
    <dynamics damping="0.1" friction="0.01"/></joint>
</robot>
""",
    "slider.urdf": """<robot name="slider">
  <link name="world"/>
  <link name="cart"><inertial><mass value="1.5"/><inertia ixx="0.01" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="pole"><inertial><origin xyz="0 0 0.3"/><mass value="0.2"/><inertia ixx="0.006" iyy="0.006" izz="0.0001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tip"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="rail" type="prismatic"><parent link="world"/><child link="cart"/><axis xyz="1 0 0"/></joint>
  <joint name="hinge" type="continuous"><parent link="cart"/><child link="pole"/><axis xyz="0 1 0"/></joint>
  <joint name="weld" type="fixed"><parent link="pole"/><child link="tip"/><origin xyz="0 0 0.6"/></joint>
  <joint name="mimic_j" type="revolute"><parent link="pole"/><child link="tip"/><mimic joint="hinge" multiplier="2"/></joint>
</robot>
""",
}

NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")
REPLACEMENTS = ["nan", ".nan", "inf", ".inf", "-.inf", "1e308", "1.0e308", "-1.0e308", "-1", "0", "x", "1e999",
                "9" * 5000, "'" + "z" * 100_000 + "'", "1.0e-320", "[1, 2]", "{a: 1}", "null", "true", "0x1F", "1_0"]
JUNK = ["\x00", "\x1b[31m", "\u202e", "\ufeff", "é", "\U0001F600", "\x7f", "\r", "\t", "\\", "'", '"', "&", "<", ">",
        "*", "!!python/object:os.system", "%", "{{", "]]", "\u2028", "\udcff"]


def _mutate_text(text: str, rng: random.Random, xml: bool) -> str:
    lines = text.splitlines(keepends=True)
    kind = rng.choice(["delete", "duplicate", "swap", "number", "number", "number", "truncate", "junk", "nest",
                       "attribute" if xml else "key", "element" if xml else "alias"])
    if kind == "delete" and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
    elif kind == "duplicate":
        k = rng.randrange(len(lines))
        lines.insert(k, lines[k])
    elif kind == "swap" and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "number":
        matches = list(NUMBER.finditer(text))
        if matches:
            m = rng.choice(matches)
            return text[:m.start()] + rng.choice(REPLACEMENTS) + text[m.end():]
    elif kind == "truncate":
        return text[:rng.randrange(len(text))]
    elif kind == "junk":
        k = rng.randrange(len(text))
        return text[:k] + rng.choice(JUNK) * rng.choice([1, 3, 1000]) + text[k:]
    elif kind == "nest":
        depth = rng.choice([50, 500, 5000, 100_000])
        k = rng.randrange(len(text))
        return text[:k] + ("<a>" * depth + "</a>" * depth if xml else "[" * depth + "]" * depth) + text[k:]
    elif kind == "attribute":  # XML: drop, duplicate or empty an attribute
        matches = list(re.finditer(r'\s(\w+)="[^"]*"', text))
        if matches:
            m = rng.choice(matches)
            new = rng.choice(["", m.group(0) * 2, f' {m.group(1)}=""', f' {m.group(1)}="{rng.choice(REPLACEMENTS)}"'])
            return text[:m.start()] + new + text[m.end():]
    elif kind == "element":  # XML: delete or duplicate an element
        matches = list(re.finditer(r"<(\w+)[^<>]*/>|<(\w+)[^<>]*>.*?</\2>", text, re.S))
        if matches:
            m = rng.choice(matches)
            return text[:m.start()] + rng.choice(["", m.group(0) * 2]) + text[m.end():]
    elif kind == "key":  # YAML: rename or duplicate a key
        matches = list(re.finditer(r"(\w+):", text))
        if matches:
            m = rng.choice(matches)
            new = rng.choice([m.group(0) + " 1, " + m.group(0), "mas:", "name:", "<<:", "? ", m.group(1) + "x:"])
            return text[:m.start()] + new + text[m.end():]
    elif kind == "alias":  # YAML: a value made an alias of another, possibly of itself
        matches = list(re.finditer(r":\s(\[[^\]\n]*\])", text))
        if matches:
            m = rng.choice(matches)
            return text[:m.start(1)] + "&v " + m.group(1) + text[m.end(1):] + "\nextra: [*v, *v]\n"
    return "".join(lines)


def _alias_bomb() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 12)]
    return "\n".join(lines) + "\nbodies: *a11\n"


def _huge_npz(base: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(base)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (400_000_000,)})
    members["q.npy"] = header.getvalue() + bytes(3_000_000)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def cases() -> list[tuple[str, bytes]]:
    """(file name, content) of every case, the same on every run."""
    rng = random.Random(SEED)
    sources = {p.name: p.read_text() for p in sorted(EXAMPLES.iterdir()) if p.suffix in (".yaml", ".urdf")}
    sources.update(SMALL_URDFS)
    out = []
    for name, text in sources.items():
        xml = name.endswith(".urdf")
        for k in range(40 if xml else 45):
            mutated = text
            for _ in range(rng.choice([1, 1, 2, 3])):
                mutated = _mutate_text(mutated, rng, xml)
            out.append((f"{k:03d}_{name}", mutated.encode("utf-8", "surrogatepass")))
    hostile = {
        "bomb.yaml": _alias_bomb(),
        "self_alias.yaml": "bodies: &a [*a]\n",
        "duplicate.yaml": "bodies:\n  - name: a\n    mass: 1\n    mass: 2\n    inertia: [1, 1, 1]\n",
        "deep_flow.yaml": "bodies: " + "[" * 300_000 + "]" * 300_000 + "\n",
        "deep_block.yaml": "bodies:\n" + "".join("  " * i + "- \n" for i in range(2000)),
        "escape.yaml": 'bodies:\n  - {name: "\\e[31mred", joint: revolute, mass: -1, inertia: [1, 1, 1]}\n',
        "inertia.yaml": "bodies:\n  - {name: a, joint: revolute, mass: 1, inertia: [1.0e308, 1.0e308, 1.0e308]}\n",
        "axis.yaml": "bodies:\n  - {name: a, joint: {type: revolute, axis: [1.0e308, 1.0e308, 0]}, mass: 1, "
                     "inertia: [1, 1, 1]}\n",
        "quaternion.yaml": "bodies:\n  - {name: a, joint: revolute, mass: 1, inertia: [1, 1, 1], "
                           "placement: {quaternion: [1.0e160, 0, 0, 1.0e160]}}\n",
        "zero_quaternion.yaml": "bodies:\n  - {name: a, joint: revolute, mass: 1, inertia: [1, 1, 1], "
                                "placement: {quaternion: [0, 0, 0, 0]}}\n",
        "bigint.yaml": "bodies:\n  - {name: a, joint: revolute, mass: " + "9" * 5000 + ", inertia: [1, 1, 1]}\n",
        "tags.yaml": "bodies: !!python/object/apply:os.system [echo]\n",
        "binary.yaml": "\xff\xfe\x00bodies",
        "recursive.urdf": "<robot name='r'>" + "<link name='a'>" * 100_000,
        "entity.urdf": '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;'
                       '&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><robot name="&c;"/>',
    }
    out += [(name, text.encode("utf-8", "surrogatepass")) for name, text in hostile.items()]
    model = mb.load(EXAMPLES / "double_pendulum.yaml")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.npz"
        mb.Trajectory(model, np.linspace(0, 1, 5), np.zeros((5, 2)), np.zeros((5, 2)), np.zeros((5, 2)),
                      np.zeros((5, 2))).save(path)
        base = path.read_bytes()
    out.append(("huge.npz", _huge_npz(base)))
    for k in range(20):
        data = bytearray(base)
        if k % 2:
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.choice([1, 10, 100])):
                data[rng.randrange(len(data))] = rng.randrange(256)
        out.append((f"{k:03d}_damaged.npz", bytes(data)))
    return out


def _outcome(path: Path) -> str:
    """What reading one file gives: "loaded", "model error", or what went wrong."""
    try:
        if path.suffix == ".npz":
            mb.Trajectory.load(path)
            return "loaded"
        model = mb.load(path)
        try:
            model.compile()
        except mb.ModelError:
            pass
        return "loaded"
    except mb.ModelError as exc:
        message = str(exc)
        if "\n" in message or str(path) not in message:
            return "ModelError not one line naming the file"
        if any(not c.isprintable() for c in message) or len(message) > 1000:
            return "ModelError with raw control characters or unbounded"
        return "model error"
    except BaseException as exc:  # noqa: BLE001 - the point is to see every other type
        return f"other: {type(exc).__name__}"


def _vm_size() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def run_case(path: Path) -> str:
    """The outcome of one case in a forked child (time and address-space limits), or "hang" / "crash"."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        try:
            limit = _vm_size() + MEMORY_LIMIT
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            sys.stderr = open(os.devnull, "w")
            import warnings
            warnings.simplefilter("ignore")
            result = _outcome(path)
        except BaseException as exc:  # noqa: BLE001
            result = f"other: {type(exc).__name__}"
        os.write(write, pickle.dumps(result))
        os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], TIME_LIMIT)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read)
        return "hang"
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.close(read)
    _, status = os.waitpid(pid, 0)
    return pickle.loads(data) if data else f"crash (status {status})"


def run_all(folder: Path) -> dict[str, str]:
    mb.load(EXAMPLES / "double_pendulum.yaml").compile()  # import and compile once, before forking
    results = {}
    for name, content in cases():
        path = folder / name
        path.write_bytes(content)
        results[name] = run_case(path)
        path.unlink()
    return results


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self/status").exists(), reason="needs fork and /proc")
def test_fuzzed_files_load_or_raise_a_one_line_model_error(tmp_path):
    start = time.monotonic()
    results = run_all(tmp_path)
    assert len(results) >= 300
    bad = {name: outcome for name, outcome in results.items() if outcome not in ("loaded", "model error")}
    assert not bad, f"{len(bad)} of {len(results)} cases: {dict(list(bad.items())[:20])}"
    assert Counter(results.values())["loaded"] > 20  # the mutations leave many files readable
    assert time.monotonic() - start < 120


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        tic = time.monotonic()
        outcomes = run_all(Path(folder))
        print(f"{len(outcomes)} cases in {time.monotonic() - tic:.1f} s")
        for outcome, count in Counter(outcomes.values()).most_common():
            print(f"  {count:4d}  {outcome}")
        for name, outcome in outcomes.items():
            if outcome not in ("loaded", "model error"):
                print(f"    {name}: {outcome}")
