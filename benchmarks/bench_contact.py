"""Time per step of the contact stepper (``mb.simulate(model, method="contact")``: velocity-level time stepping,
Lemke's method or projected Gauss–Seidel, implicit joint damping) beside MuJoCo's ``mj_step`` on the same model at
the same step, in one run.

    python benchmarks/bench_contact.py [--models cheetah walker go1] [--seconds 0.2] [--runs 3] [--baseline REV|DIR]
                                       [--clock wall|cpu] [--calls]

Models: the dm_control suite files (cheetah, walker, hopper, humanoid, quadruped, stacker, ...: each from its
initial configuration at its ``opt.timestep``) and ``go1`` (example-robot-data's URDF with its collision shapes,
its SRDF's disabled pairs, on a floor, dropped 5 cm in its standing pose with joint spring-dampers of 150 N·m/rad
and 4 N·m·s/rad, dt 2 ms; MuJoCo reads the same URDF, the same springs as its joint stiffness and damping).
multibody's time is the best of ``--runs`` runs of ``mb.simulate`` (output at every step), MuJoCo's the best of as
many ``mj_step`` loops over the same number of steps (no output). Ratio: multibody / MuJoCo.
``--baseline REV`` also times the stepper of commit REV (checked out into a temporary git worktree, run in a
subprocess with its own numba cache; ``--baseline DIR``: the package under DIR/src as it is, with its own cache),
its rounds interleaved with today's, and gives the speed-up. ``--clock cpu`` times by the process's CPU time (all
its threads) instead of the wall clock: steadier on a host shared with other work. ``--calls`` adds a table of the
time per ``mb.simulate`` call of one step and of ``--seconds`` (each the best of ``--runs`` rounds of many calls),
and what a call costs beyond its steps (the 1-step call less one step, the step's time from the difference of the
two): the cost that weighs on short calls.
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

DM_CONTROL = ("cheetah", "walker", "hopper", "humanoid", "quadruped")

RUN = r'''
import json, sys, time, warnings, xml.etree.ElementTree as ET
from pathlib import Path
import numpy as np
import multibody as mb

GO1_GAINS = (150.0, 4.0)  # [N·m/rad], [N·m·s/rad] the legs' spring-dampers about the standing pose


def robots():
    import pinocchio
    return Path(pinocchio.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"


def go1_standing():
    """{joint: angle [rad]} of the SRDF's "standing" group state."""
    srdf = robots() / "go1_description" / "srdf" / "go1.srdf"
    state = next(s for s in ET.parse(srdf).getroot().iter("group_state") if s.get("name") == "standing")
    return {j.get("name"): float(j.get("value")) for j in state.iter("joint") if j.get("name") != "root_joint"}


def go1():
    """(model, q0, dt) of Go1 on a floor, its lowest shape 5 cm above it."""
    from multibody.constraints._kinematics import Snapshot
    from multibody.constraints.contact import detect
    from multibody.io.srdf import disable_collisions
    base = robots() / "go1_description"
    model = mb.Model.from_urdf(base / "urdf" / "go1.urdf", floating_base=True, collisions=True)
    disable_collisions(model, base / "srdf" / "go1.srdf")
    model.add_geometry("world", mb.Plane(), friction=0.8, name="floor")
    model.friction_rule = "max"
    q0 = model.neutral()
    for joint, angle in go1_standing().items():
        q0[model.q_slice(joint)] = angle
        model.add_force(mb.JointSpring(joint, GO1_GAINS[0], rest=angle, damping=GO1_GAINS[1]))
    gaps = [c.geometry.distance for c in detect(model, Snapshot(model, q0, np.zeros(model.nv)), np.inf)
            if "floor" in (c.a.name, c.b.name)]
    q0[2] += 0.05 - min(gaps)
    return model, q0, 2e-3


def dm_control_model(name):
    import dm_control, mujoco
    path = Path(dm_control.__file__).parent / "suite" / f"{name}.xml"
    model = mb.Model.from_mjcf(path)
    return model, None, mujoco.MjModel.from_xml_path(str(path)).opt.timestep


def contact_step_time(name, seconds, runs, clock=time.perf_counter):
    """Best time per step [s] (``clock``: wall or CPU) of mb.simulate(method="contact") over ``seconds``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, q0, dt = go1() if name == "go1" else dm_control_model(name)
        v0 = None if q0 is None else np.zeros(model.nv)
        steps = max(int(round(seconds / dt)), 1)
        mb.simulate(model, q0, v0, t_end=steps * dt, dt=dt, method="contact", progress=False)
        best = np.inf
        for _ in range(runs):
            start = clock()
            mb.simulate(model, q0, v0, t_end=steps * dt, dt=dt, method="contact", progress=False)
            best = min(best, clock() - start)
    return best / steps


def call_times(name, seconds, runs, clock=time.perf_counter):
    """(steps, best time [s] of a call of one step, of a call of ``steps`` steps (``seconds``)) of
    mb.simulate(method="contact"), each the best of ``runs`` rounds of many calls."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, q0, dt = go1() if name == "go1" else dm_control_model(name)
        v0 = None if q0 is None else np.zeros(model.nv)
        steps = max(int(round(seconds / dt)), 1)
        best = {}
        for n in (1, steps):
            mb.simulate(model, q0, v0, t_end=n * dt, dt=dt, method="contact", progress=False)
            calls = max(3, 400 // n)
            best[n] = np.inf
            for _ in range(runs):
                start = clock()
                for _ in range(calls):
                    mb.simulate(model, q0, v0, t_end=n * dt, dt=dt, method="contact", progress=False)
                best[n] = min(best[n], (clock() - start) / calls)
    return steps, best[1], best[steps]


if __name__ == "__main__":
    clock = time.process_time if sys.argv[3] == "cpu" else time.perf_counter
    timed = call_times if sys.argv[4] == "calls" else contact_step_time
    print(json.dumps({n: timed(n, float(sys.argv[1]), int(sys.argv[2]), clock) for n in sys.argv[5:]}))
'''


def mujoco_model(name: str, namespace: dict):
    """(MjModel, initial qpos or None) of ``name`` for MuJoCo: the dm_control file, or Go1's URDF
    (tests/oracles.py's :func:`mujoco_urdf_on_floor`: MuJoCo's URDF reader, a free joint, a floor, contacts with the
    floor only) with the springs of :func:`go1` as joint springs, from :func:`go1`'s initial pose."""
    import dm_control
    import mujoco
    if name != "go1":
        return mujoco.MjModel.from_xml_path(str(Path(dm_control.__file__).parent / "suite" / f"{name}.xml")), None
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from oracles import mujoco_urdf_on_floor
    robots, standing = namespace["robots"](), namespace["go1_standing"]()
    stiffness, damping = namespace["GO1_GAINS"]
    model = mujoco_urdf_on_floor(robots / "go1_description" / "urdf" / "go1.urdf", robots,
                                 springs={j: (stiffness, damping, angle) for j, angle in standing.items()})
    model.opt.timestep = 2e-3
    qpos = model.qpos0.copy()
    for joint, angle in standing.items():
        qpos[model.joint(joint).qposadr[0]] = angle
    qpos[:7] = namespace["go1"]()[1][:7]  # the base's position and quaternion (w, x, y, z), as multibody's
    return model, qpos


def mujoco_step_time(name: str, seconds: float, runs: int, namespace: dict, clock=time.perf_counter) -> float:
    """Best time [s] (``clock``: wall or CPU) per ``mj_step`` over ``seconds`` of simulated time."""
    import mujoco
    import numpy as np
    mm, qpos = mujoco_model(name, namespace)
    steps = max(int(round(seconds / mm.opt.timestep)), 1)
    best = np.inf
    for _ in range(runs + 1):  # (the first: warm-up)
        data = mujoco.MjData(mm)
        if qpos is not None:
            data.qpos[:] = qpos
        start = clock()
        mujoco.mj_step(mm, data, nstep=steps)
        best = min(best, clock() - start)
    return best / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", "--files", nargs="+", default=[*DM_CONTROL, "go1"])
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds of today's and the baseline's runs")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--calls", action="store_true",
                        help="then the time per mb.simulate call of 1 step and of --seconds, and what a call costs "
                             "beyond its steps")
    args = parser.parse_args()
    namespace: dict = {"__name__": "bench_contact_run"}
    exec(compile(RUN, "bench_contact_run", "exec"), namespace)
    inf = float("inf")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    today, before, mujoco = (dict.fromkeys(args.models, inf) for _ in range(3))
    calls, calls_before = {}, {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(__file__).resolve().parent.parent
        tree, env = os.path.join(scratch, "tree"), dict(os.environ)
        if args.baseline and os.path.isdir(args.baseline):
            tree = args.baseline
        elif args.baseline:
            subprocess.run(["git", "worktree", "add", "--detach", "-f", tree, args.baseline], cwd=root, check=True,
                           capture_output=True)
            env["NUMBA_CACHE_DIR"] = os.path.join(scratch, "numba")
        env["PYTHONPATH"] = os.path.join(tree, "src")
        try:
            for _ in range(args.rounds):
                for name in args.models:
                    today[name] = min(today[name], namespace["contact_step_time"](name, args.seconds, args.runs, clock))
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        mujoco[name] = min(mujoco[name], mujoco_step_time(name, args.seconds, args.runs, namespace,
                                                                          clock))
                if args.baseline:
                    for name, t in _baseline(args, "steps", env, scratch).items():
                        before[name] = min(before[name], t)
                if args.calls:
                    for name in args.models:
                        calls[name] = _best(calls.get(name), namespace["call_times"](name, args.seconds, args.runs,
                                                                                     clock))
                    for name, t in (_baseline(args, "calls", env, scratch) if args.baseline else {}).items():
                        calls_before[name] = _best(calls_before.get(name), t)
        finally:
            if args.baseline and tree != args.baseline:
                subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=root, capture_output=True)
    header = f"{'model':10} {'multibody µs/step':>18} {'MuJoCo µs/step':>15} {'ratio':>8}"
    if args.baseline:
        header += f" {'baseline µs/step':>17} {'baseline ratio':>15} {'speed-up':>9}"
    print(header)
    for name in args.models:
        ours, theirs = today[name], mujoco[name]
        line = f"{name:10} {1e6 * ours:18.1f} {1e6 * theirs:15.2f} {ours / theirs:8.1f}"
        if args.baseline:
            line += f" {1e6 * before[name]:17.1f} {before[name] / theirs:15.1f} {before[name] / ours:9.2f}"
        print(line)
    if args.calls:
        _print_calls(args, calls, calls_before)


def _baseline(args, what, env, scratch):
    """{model: result} of RUN's ``what`` ("steps": contact_step_time, "calls": call_times) for the baseline."""
    done = subprocess.run([sys.executable, "-c", RUN, str(args.seconds), str(args.runs), args.clock, what,
                           *args.models], env=env, cwd=scratch, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _best(kept, new):
    """call_times' (steps, t_1, t_n), the smaller of each time of ``kept`` (or None) and ``new``."""
    return tuple(new) if kept is None else (kept[0], min(kept[1], new[1]), min(kept[2], new[2]))


def _print_calls(args, calls, calls_before):
    """The table of µs per mb.simulate call: of 1 step (t_1), of n steps (t_n), and a call's cost beyond its
    steps, t_1 − (t_n − t_1) / (n − 1): the 1-step call less one step."""
    header = (f"\n{'model':10} {'steps':>6} {'µs/call (1 step)':>17} {'µs/call (n steps)':>18} "
              f"{'µs/call beyond steps':>21}")
    if args.baseline:
        header += f" {'baseline (1 step)':>18} {'baseline (n steps)':>19} {'baseline beyond':>16}"
    print(header)
    for name in args.models:
        line = f"{name:10} {calls[name][0]:6d}" + _call_columns(calls[name])
        if args.baseline:
            line += _call_columns(calls_before[name], (18, 19, 16))
        print(line)


def _call_columns(timed, widths=(17, 18, 21)):
    steps, one, many = timed
    beyond = one - (many - one) / (steps - 1) if steps > 1 else float("nan")
    return "".join(f" {1e6 * t:{w}.1f}" for t, w in zip((one, many, beyond), widths))


if __name__ == "__main__":
    main()
