"""Time rnea, crba and aba on real robots — the URDFs of example-robot-data read by multibody's importer and by
Pinocchio's own parser — and batched forward dynamics on Talos, in one run.

    python benchmarks/bench_robots.py [--batch 10000] [--robots DIR]

The URDFs come from example-robot-data's ``robots`` folder as installed with Pinocchio, or from ``--robots DIR``: a
plain folder holding a copy of that ``robots`` tree (the .urdf files are enough: neither library reads the meshes).

Per-call times are the best of interleaved rounds (see bench_dynamics.py); ratio = multibody / Pinocchio (below 1:
multibody faster). Both read the same file: multibody welds fixed joints into their parent bodies, as Pinocchio does.
Both are timed at the same states (joints matched by name): the cost of sin and cos depends on the angle (glibc's
sincos takes ~14 ns below 0.8 rad, ~25 ns near π), so states drawn apart would not time the same work.
pin.crba returns a new array holding the whole symmetric M (not only the upper triangle it computes in C++), as
mb.crba does.
"""
from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

import multibody as mb
from bench_dynamics import interleaved_best

ROBOTS = {  # name: (file under example-robot-data/robots, floating base)
    "panda": ("panda_description/urdf/panda.urdf", False),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", False),
    "talos (free-flyer)": ("talos_data/robots/talos_reduced.urdf", True),
    "talos full (free-flyer)": ("talos_data/robots/talos_full_v2.urdf", True),
}


def robots_directory(given=None):
    """example-robot-data's ``robots`` folder: ``given`` (a folder holding it, or the folder itself), else the one
    installed beside Pinocchio (the example-robot-data package); SystemExit saying which is missing."""
    if given is not None:
        folder = Path(given)
        folder = folder / "robots" if (folder / "robots").is_dir() else folder
    else:
        import pinocchio as pin
        folder = Path(pin.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"
    if not folder.is_dir():
        raise SystemExit(f"no example-robot-data robots folder at {folder}: install example-robot-data, or pass "
                         "--robots DIR (a copy of its robots/ tree, the .urdf files are enough)")
    return folder


def add_robots_option(parser):
    parser.add_argument("--robots", metavar="DIR", help="a folder holding example-robot-data's robots/ tree (only "
                        "the .urdf files are read), instead of the package installed with Pinocchio")


def machine():
    """The machine line of a table header: the cores this process may run on and numba's thread count."""
    import numba
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{cores} cores available ({os.cpu_count()} on the machine), numba threads: "
            f"{numba.config.NUMBA_NUM_THREADS} (NUMBA_NUM_THREADS)")


def load(path, floating):
    import pinocchio as pin
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mb.Model.from_urdf(path, floating_base=floating)
    reference = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(str(path))
    return model, reference


def in_pinocchio_order(model, reference, q, v):
    """The states (q, v) of ``model`` (arrays (..., nq), (..., nv)) as Pinocchio's: joints matched by name, a free
    joint's quaternion (w, x, y, z) -> (x, y, z, w) and its velocity [ω; v] -> [v; ω]. Joints of one coordinate
    and free joints only (those of the robots here)."""
    qp, vp = np.empty(q.shape[:-1] + (reference.nq,)), np.empty(v.shape[:-1] + (reference.nv,))
    for jid in range(1, reference.njoints):
        joint, name = reference.joints[jid], reference.names[jid]
        qj, vj = q[..., model.q_slice(name)], v[..., model.v_slice(name)]
        if joint.nq == 7:
            qj, vj = np.concatenate([qj[..., :3], qj[..., 4:], qj[..., 3:4]], -1), np.roll(vj, 3, -1)
        elif joint.nq != 1 or joint.nv != 1:
            raise NotImplementedError(f"joint '{name}' ({joint.shortname()}): no mapping here")
        qp[..., joint.idx_q:joint.idx_q + joint.nq], vp[..., joint.idx_v:joint.idx_v + joint.nv] = qj, vj
    return qp, vp


def per_call(model, reference, rng):
    """µs per call of the three algorithms, multibody and Pinocchio interleaved, at the same state."""
    import pinocchio as pin
    data = reference.createData()
    q, (v, a) = model.random_configuration(rng), rng.normal(size=(2, model.nv))
    (qp, vp), (_, ap) = in_pinocchio_order(model, reference, q, v), in_pinocchio_order(model, reference, q, a)
    tau, taup = mb.rnea(model, q, v, a), pin.rnea(reference, data, qp, vp, ap)
    functions = {
        ("rnea", "mb"): lambda: mb.rnea(model, q, v, a), ("rnea", "pin"): lambda: pin.rnea(reference, data, qp, vp, ap),
        ("crba", "mb"): lambda: mb.crba(model, q), ("crba", "pin"): lambda: pin.crba(reference, data, qp),
        ("aba", "mb"): lambda: mb.aba(model, q, v, tau), ("aba", "pin"): lambda: pin.aba(reference, data, qp, vp, taup),
    }
    return interleaved_best(functions)


def batched(model, reference, count, rng):
    """Evaluations per second of forward dynamics over ``count`` random states."""
    import numba
    import pinocchio as pin
    data = reference.createData()
    Q = np.stack([model.random_configuration(rng) for _ in range(count)])
    V, T = rng.normal(size=(2, count, model.nv))
    (QP, VP), (_, TP) = in_pinocchio_order(model, reference, Q, V), in_pinocchio_order(model, reference, Q, T)
    mb.aba(model, Q[:64], V[:64], T[:64])
    rates = {}
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        best = min(_timed(lambda: mb.aba(model, Q, V, T)) for _ in range(5))
        rates[f"multibody batched, {threads} thread{'s' if threads > 1 else ''}"] = count / best
    rates["pinocchio.aba, Python loop"] = count / min(
        _timed(lambda: [pin.aba(reference, data, QP[k], VP[k], TP[k]) for k in range(count)]) for _ in range(3))
    return rates


def _timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=10000)
    add_robots_option(parser)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    directory = robots_directory(args.robots)
    print(machine() + "\n")
    print("| robot | bodies (multibody) | nv | algorithm | multibody [µs] | Pinocchio [µs] | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, (file, floating) in ROBOTS.items():
        model, reference = load(directory / file, floating)
        times = per_call(model, reference, rng)
        for algorithm in ("rnea", "crba", "aba"):
            ours, theirs = times[(algorithm, "mb")], times[(algorithm, "pin")]
            print(f"| {name} | {model.nbodies} | {model.nv} | {algorithm} | {ours:.2f} | {theirs:.2f} | {ours / theirs:.2f} |")
    model, reference = load(directory / ROBOTS["talos (free-flyer)"][0], True)
    rates = batched(model, reference, args.batch, rng)
    print_rates(f"Forward dynamics of Talos (free-flyer, nv = {model.nv}) over {args.batch} random states",
                rates, "pinocchio.aba, Python loop", "evaluations per second", "vs a Python loop over pinocchio.aba")


def print_rates(title, rates, baseline, unit, versus):
    """A markdown table of the rates {label: per second}, each also as a multiple of the rate of ``baseline``."""
    print(f"\n{title}:\n")
    print(f"| | {unit} | {versus} |")
    print("|---|---|---|")
    for label, rate in rates.items():
        print(f"| {label} | {rate:,.0f} | {rate / rates[baseline]:.1f}× |")


if __name__ == "__main__":
    main()
