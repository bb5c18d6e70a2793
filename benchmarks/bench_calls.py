"""Time per ``mb.simulate`` call on repeated short calls of one model and options (model-predictive control,
reinforcement learning, co-simulation), beside the compiled loop's own time for the same steps and MuJoCo's
``mj_step`` loop from Python, in one run.

    python benchmarks/bench_calls.py [--rounds 3] [--baseline DIR]

Calls: dm_control's cheetah with ``method="contact"`` at its ``opt.timestep`` (1 and 20 steps a call; MuJoCo:
``mj_step`` of the same steps from the same state, the state set before each call), and example-robot-data's UR5
(six revolute joints, its stored joint limits watched) and a six-link chain without limits (``Model.chain(6)``) with
``method="RK4"``, dt = 1 ms (1 and 10 steps a call).
Each figure is the best of ``--rounds`` rounds of many calls. The step's time is the slope of the call's time over
the steps (calls of n and 10 n steps); "beyond steps" is what a call costs beyond them (the call less n steps),
"/ loop" the call over its n steps' time. ``--baseline DIR`` also times the package under DIR/src (a checkout with
its own numba cache) in a subprocess, its rounds interleaved with today's, and gives the speed-up.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

RUN = r'''
import json, sys, time, warnings
from pathlib import Path
import numpy as np
import multibody as mb


def cheetah():
    import dm_control, mujoco
    path = Path(dm_control.__file__).parent / "suite" / "cheetah.xml"
    mm = mujoco.MjModel.from_xml_path(str(path))
    return mb.Model.from_mjcf(path), mm


def ur5():
    import pinocchio
    robots = Path(pinocchio.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"
    return mb.Model.from_urdf(robots / "ur_description" / "urdf" / "ur5_robot.urdf")


def best(call, rounds, count):
    """Best time [s] per call of ``call`` over ``rounds`` rounds of ``count`` calls (after one call)."""
    call()
    fastest = np.inf
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(count):
            call()
        fastest = min(fastest, (time.perf_counter() - start) / count)
    return fastest


def call_times(rounds):
    """{case: (steps n, µs per call of n steps, µs per call of 10 n steps)} of mb.simulate."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, mm = cheetah()
        dt = mm.opt.timestep
        arm, chain = ur5(), mb.Model.chain(6)
        q_arm, q_chain = arm.neutral() + 0.1, np.full(6, 0.1)
        cases = {"cheetah contact": (lambda n: (lambda: mb.simulate(model, None, None, n * dt, dt=dt,
                                                                    method="contact"))),
                 "ur5 RK4": (lambda n: (lambda: mb.simulate(arm, q_arm, None, n * 1e-3, dt=1e-3, method="RK4"))),
                 "chain6 RK4": (lambda n: (lambda: mb.simulate(chain, q_chain, None, n * 1e-3, dt=1e-3,
                                                               method="RK4")))}
        times = {}
        for name, make in cases.items():
            for n in (1, 20) if name.startswith("cheetah") else (1, 10):
                few, many = best(make(n), rounds, max(20, 2000 // n)), best(make(10 * n), rounds, max(20, 200 // n))
                times[f"{name} {n}"] = (n, 1e6 * few, 1e6 * many)
    return times


if __name__ == "__main__":
    print(json.dumps(call_times(int(sys.argv[1]))))
'''


def mujoco_times(rounds: int, namespace: dict) -> dict:
    """{steps: µs per mj_step call of that many steps from cheetah's initial state, the state set each call}."""
    import mujoco
    import numpy as np
    _, mm = namespace["cheetah"]()
    data = mujoco.MjData(mm)

    def call(n):
        def one():
            data.qpos[:] = mm.qpos0
            data.qvel[:] = 0.0
            data.time = 0.0
            mujoco.mj_step(mm, data, nstep=n)
        return one
    return {n: 1e6 * namespace["best"](call(n), rounds, max(20, 4000 // n)) for n in (1, 20)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default=None, help="a checkout whose src/ to time too, interleaved")
    args = parser.parse_args()
    namespace: dict = {"__name__": "bench_calls_run"}
    exec(compile(RUN, "bench_calls_run", "exec"), namespace)
    today: dict = {}
    before: dict = {}
    mujoco: dict = {}
    for _ in range(args.rounds):
        for name, timed in namespace["call_times"](1).items():
            today[name] = _best(today.get(name), timed)
        if args.baseline:
            env = dict(os.environ, PYTHONPATH=os.path.join(args.baseline, "src"))
            done = subprocess.run([sys.executable, "-c", RUN, "1"], env=env, capture_output=True, text=True,
                                  check=True)
            for name, timed in json.loads(done.stdout.strip().splitlines()[-1]).items():
                before[name] = _best(before.get(name), timed)
        for n, t in mujoco_times(1, namespace).items():
            mujoco[n] = min(mujoco.get(n, float("inf")), t)
    header = (f"{'call':22} {'µs/call':>9} {'µs/step':>8} {'beyond steps':>13} {'/ loop':>7} {'MuJoCo µs':>10} "
              f"{'/ MuJoCo':>9}")
    if args.baseline:
        header += f" {'baseline µs/call':>17} {'baseline beyond':>16} {'speed-up':>9}"
    print(header)
    for name, timed in today.items():
        n, call, step, beyond = _split(timed)
        theirs = mujoco.get(n) if name.startswith("cheetah") else None
        line = (f"{name:22} {call:9.1f} {step:8.2f} {beyond:13.1f} {call / (n * step):7.2f} "
                + (f"{theirs:10.1f} {call / theirs:9.1f}" if theirs else f"{'':10} {'':9}"))
        if args.baseline:
            _, call_before, _, beyond_before = _split(before[name])
            line += f" {call_before:17.1f} {beyond_before:16.1f} {call_before / call:9.2f}"
        print(line)


def _best(kept, new):
    """(n, µs for n steps, µs for 10 n steps): the smaller of each time of ``kept`` (or None) and ``new``."""
    return tuple(new) if kept is None else (kept[0], min(kept[1], new[1]), min(kept[2], new[2]))


def _split(timed):
    """(n, µs per call of n steps, µs per step (the slope from n to 10 n steps), µs beyond the steps)."""
    n, few, many = timed
    step = (many - few) / (9 * n)
    return n, few, step, few - n * step


if __name__ == "__main__":
    main()
