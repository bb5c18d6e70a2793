"""The time of ``mb.simulate``'s scipy path (DOP853 stepped from Python) at another commit of this repository, for
``bench_simulate.py --baseline REV``: issue 13 measures the compiled loop against the path as it was when the
issue was filed (5a40d97), while the scipy path itself has been made faster since.

    python benchmarks/scipy_path_at.py REV [--runs 3] [--sizes 7 20]

checks REV out into a temporary git worktree, runs the hanging-chain simulations of ``bench_simulate.py`` with that
commit's package in a subprocess (its own numba cache), and prints {"N": best seconds} as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

RUN = r"""
import inspect, json, sys, time
import numpy as np
import multibody as mb
out = {}
for n in map(int, sys.argv[2:]):
    q0 = np.full(n, 0.1 if n == 7 else 0.01)
    q0[1] += np.pi / 2
    model, options = mb.Model.chain(n), dict(t_end=10.0, rtol=1e-8, atol=1e-10, samples=1001, method="DOP853")
    options.update({k: False for k in ("compiled", "progress") if k in inspect.signature(mb.simulate).parameters})
    mb.simulate(model, q0, np.zeros(n), **{**options, "t_end": 0.1})
    best = np.inf
    for _ in range(int(sys.argv[1])):
        start = time.perf_counter()
        mb.simulate(model, q0, np.zeros(n), **options)
        best = min(best, time.perf_counter() - start)
    out[n] = best
print(json.dumps(out))
"""


def scipy_path_times(revision: str, sizes=(7, 20), runs: int = 3) -> dict[int, float]:
    """{N: best wall time [s] of a 10 s run of the N-chain} with the package of ``revision``."""
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True,
                          cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        tree = os.path.join(scratch, "tree")
        subprocess.run(["git", "worktree", "add", "--detach", "-f", tree, revision], cwd=root, check=True,
                       capture_output=True)
        try:
            env = {**os.environ, "PYTHONPATH": os.path.join(tree, "src"),
                   "NUMBA_CACHE_DIR": os.path.join(scratch, "numba")}
            done = subprocess.run([sys.executable, "-c", RUN, str(runs), *map(str, sizes)], env=env, cwd=scratch,
                                  capture_output=True, text=True, check=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=root, capture_output=True)
    return {int(n): t for n, t in json.loads(done.stdout.strip().splitlines()[-1]).items()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 20])
    arguments = parser.parse_args()
    print(json.dumps(scipy_path_times(arguments.revision, arguments.sizes, arguments.runs)))
