"""Time robots with their stored joint limits (stops, ``mb.simulate``'s default): the compiled loop up to the
first stop (:mod:`multibody.simulate.stops`) against the Python loop (``compiled=False``), in one run.

    python benchmarks/bench_limits.py [--runs 5] [--robots ur5]

Each robot (example-robot-data URDF) falls under gravity from its file's initial configuration, DOP853 at
``mb.simulate``'s defaults, for ``t_end`` = 0.5 s (no joint reaches a stop: compiled throughout) and 1 s (the UR5's
wrist reaches its stop at 0.63 s: compiled to there, the impact and the resting stop in the Python loop). Times are
the best of ``--runs`` rounds, each round one run of each path in turn; the end states of both paths are compared.
"""
from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import multibody as mb

FILES = {"ur5": "ur_description/urdf/ur5_joint_limited_robot.urdf"}


def robots_directory():
    import pinocchio as pin
    return Path(pin.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--robots", nargs="+", default=list(FILES))
    args = parser.parse_args()
    print(f"{'robot':8} {'t_end':>6} {'compiled [ms]':>14} {'Python [ms]':>12} {'speed-up':>9} "
          f"{'max|Δq(t_end)|':>15} compiled until")
    for name in args.robots:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the files' shapes, which a run without contact ignores)
            model = mb.Model.from_urdf(robots_directory() / FILES[name])
            for t_end in (0.5, 1.0):
                best = {True: np.inf, False: np.inf}
                runs = {}
                mb.simulate(model, t_end=0.01, progress=False)  # (compiled kernels loaded)
                for _ in range(args.runs):
                    for compiled in (True, False):
                        start = time.perf_counter()
                        runs[compiled] = mb.simulate(model, t_end=t_end, progress=False, compiled=compiled)
                        best[compiled] = min(best[compiled], time.perf_counter() - start)
                error = float(np.abs(runs[True].q[-1] - runs[False].q[-1]).max())
                until = runs[True].info["compiled"]
                print(f"{name:8} {t_end:6.2f} {1e3 * best[True]:14.2f} {1e3 * best[False]:12.2f} "
                      f"{best[False] / best[True]:9.1f} {error:15.2e} {'end' if until is True else f'{until:.4f} s'}")


if __name__ == "__main__":
    main()
