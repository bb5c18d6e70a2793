"""The time of ``mb.simulate``'s scipy path (DOP853 stepped from Python) at another commit of this repository, for
``bench_simulate.py --baseline REV``: the compiled loop's speed-up over the scipy path of an earlier version of the
package, timed in the same rounds as today's.

    python benchmarks/scipy_path_at.py REV [--runs 3] [--sizes 7 20]

checks REV out into a temporary git worktree and runs the hanging-chain simulations of ``bench_simulate.py`` with
that commit's package in a worker process (its own numba cache). The worker times one run per request, so that a
benchmark can interleave its runs with its own (:class:`PathAt`): this machine's speed drifts by up to 40 % over
tens of seconds (another tenant of the host), and runs timed minutes apart compare different machines.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

RUN = r"""
import inspect, sys, time
import numpy as np
import multibody as mb
models = {}
for line in sys.stdin:
    n = int(line)
    q0 = np.full(n, 0.1 if n == 7 else 0.01)
    q0[1] += np.pi / 2
    model, options = mb.Model.chain(n), dict(t_end=10.0, rtol=1e-8, atol=1e-10, samples=1001, method="DOP853")
    options.update({k: False for k in ("compiled", "progress") if k in inspect.signature(mb.simulate).parameters})
    if n not in models:
        models[n] = model
        mb.simulate(model, q0, np.zeros(n), **{**options, "t_end": 0.1})
    start = time.perf_counter()
    mb.simulate(models[n], q0, np.zeros(n), **options)
    print(time.perf_counter() - start, flush=True)
"""


class PathAt:
    """The scipy path of ``revision`` in a worker process: ``time(n)`` is the wall time [s] of one 10 s run of the
    N-link chain. Use as a context manager (the worktree and the worker go at exit)."""

    def __init__(self, revision: str):
        self.revision = revision

    def __enter__(self) -> PathAt:
        self.root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                                   check=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
        self.scratch = tempfile.TemporaryDirectory()
        self.tree = os.path.join(self.scratch.name, "tree")
        subprocess.run(["git", "worktree", "add", "--detach", "-f", self.tree, self.revision], cwd=self.root,
                       check=True, capture_output=True)
        env = {**os.environ, "PYTHONPATH": os.path.join(self.tree, "src"),
               "NUMBA_CACHE_DIR": os.path.join(self.scratch.name, "numba")}
        self.worker = subprocess.Popen([sys.executable, "-c", RUN], env=env, cwd=self.scratch.name, text=True,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self

    def time(self, n: int) -> float:
        self.worker.stdin.write(f"{n}\n")
        self.worker.stdin.flush()
        line = self.worker.stdout.readline()
        if not line:
            raise RuntimeError(f"the scipy path at {self.revision} stopped (its stderr is above)")
        return float(line)

    def __exit__(self, *exc) -> None:
        self.worker.stdin.close()
        self.worker.wait()
        subprocess.run(["git", "worktree", "remove", "--force", self.tree], cwd=self.root, capture_output=True)
        self.scratch.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 20])
    arguments = parser.parse_args()
    with PathAt(arguments.revision) as path:
        print({n: min(path.time(n) for _ in range(arguments.runs)) for n in arguments.sizes})
