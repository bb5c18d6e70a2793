"""Time per step of the contact stepper (``mb.simulate(model, method="contact")``: velocity-level time stepping,
Lemke's method or projected Gauss–Seidel, implicit joint damping) on dm_control suite files, beside MuJoCo's
``mj_step`` on the same file at the same step, in one run.

    python benchmarks/bench_contact.py [--files cheetah stacker] [--seconds 1] [--runs 5] [--baseline REV]

Each file runs ``--seconds`` of simulated time from the file's initial configuration at MuJoCo's ``opt.timestep``;
multibody's time is the best of ``--runs`` runs of ``mb.simulate`` (output at every step), MuJoCo's the best of as
many ``mj_step`` loops over the same number of steps (from ``qpos0``, no output). Ratio: multibody / MuJoCo.
``--baseline REV`` also times the stepper of commit REV (checked out into a temporary git worktree, run in a
subprocess with its own numba cache), its rounds interleaved with today's, and gives the speed-up.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

RUN = r"""
import json, sys, time, warnings
from pathlib import Path
import mujoco, numpy as np
import multibody as mb

def contact_step_time(path, seconds, runs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mb.Model.from_mjcf(path)
        dt = mujoco.MjModel.from_xml_path(str(path)).opt.timestep
        steps = int(round(seconds / dt))
        mb.simulate(model, t_end=seconds, dt=dt, method="contact", progress=False)
        best = np.inf
        for _ in range(runs):
            start = time.perf_counter()
            mb.simulate(model, t_end=steps * dt, dt=dt, method="contact", progress=False)
            best = min(best, time.perf_counter() - start)
    return best / steps

if __name__ == "__main__":
    print(json.dumps({p: contact_step_time(Path(p), float(sys.argv[1]), int(sys.argv[2])) for p in sys.argv[3:]}))
"""


def mujoco_step_time(path: Path, seconds: float, runs: int) -> float:
    """Best wall time [s] per ``mj_step`` over ``seconds`` of simulated time from qpos0."""
    import mujoco
    import numpy as np
    mm = mujoco.MjModel.from_xml_path(str(path))
    steps = int(round(seconds / mm.opt.timestep))
    best = np.inf
    for _ in range(runs):
        data = mujoco.MjData(mm)
        start = time.perf_counter()
        mujoco.mj_step(mm, data, nstep=steps)
        best = min(best, time.perf_counter() - start)
    return best / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="+", default=["cheetah", "stacker"])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds of today's and the baseline's runs")
    args = parser.parse_args()
    import dm_control
    paths = [Path(dm_control.__file__).parent / "suite" / f"{name}.xml" for name in args.files]
    namespace: dict = {}
    exec(compile(RUN, "bench_contact_run", "exec"), namespace)
    today = {str(p): float("inf") for p in paths}
    before = dict(today)
    with tempfile.TemporaryDirectory() as scratch:
        tree = os.path.join(scratch, "tree")
        root = Path(__file__).resolve().parent.parent
        if args.baseline:
            subprocess.run(["git", "worktree", "add", "--detach", "-f", tree, args.baseline], cwd=root, check=True,
                           capture_output=True)
        try:
            for _ in range(args.rounds):
                for p in paths:
                    today[str(p)] = min(today[str(p)], namespace["contact_step_time"](p, args.seconds, args.runs))
                if args.baseline:
                    env = {**os.environ, "PYTHONPATH": os.path.join(tree, "src"),
                           "NUMBA_CACHE_DIR": os.path.join(scratch, "numba")}
                    done = subprocess.run([sys.executable, "-c", RUN, str(args.seconds), str(args.runs),
                                           *map(str, paths)], env=env, cwd=scratch, capture_output=True, text=True,
                                          check=True)
                    for p, t in json.loads(done.stdout.strip().splitlines()[-1]).items():
                        before[p] = min(before[p], t)
        finally:
            if args.baseline:
                subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=root, capture_output=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mujoco = {str(p): mujoco_step_time(p, args.seconds, args.runs) for p in paths}
    header = f"{'file':10} {'multibody µs/step':>18} {'MuJoCo µs/step':>15} {'ratio':>8}"
    if args.baseline:
        header += f" {args.baseline + ' µs/step':>22} {'speed-up':>9}"
    print(header)
    for p, name in zip(paths, args.files):
        ours, theirs = today[str(p)], mujoco[str(p)]
        line = f"{name:10} {1e6 * ours:18.1f} {1e6 * theirs:15.2f} {ours / theirs:8.1f}"
        if args.baseline:
            line += f" {1e6 * before[str(p)]:22.1f} {before[str(p)] / ours:9.2f}"
        print(line)


if __name__ == "__main__":
    main()
