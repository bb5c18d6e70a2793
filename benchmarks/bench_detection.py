"""Contact detection per step (the broad and narrow phase of every candidate pair, the compiled
``detect_contacts`` the contact step calls) at the state after a short contact simulation: candidate pairs, the
pairs the broad phase keeps, contacts found, µs per call.

    python benchmarks/bench_detection.py [--models humanoid go1 anymal anymal-all] [--seconds 0.4]
                                         [--rounds 7] [--calls 2000]

Models: the dm_control suite files (cheetah, walker, hopper, humanoid, quadruped, each from its initial
configuration at its ``opt.timestep``), and Go1, ANYmal and Solo12 (example-robot-data URDFs with their collision
shapes, Solo12's STL meshes as convex hulls, their SRDF's disabled pairs, on a floor, dropped 5 cm in the SRDF's
standing pose with joint spring-dampers, dt 2 ms, as tests/constraints/test_robot_landing.py drops them).
``anymal-all`` is ANYmal without its SRDF (every pair of shapes on bodies that are not parent and child a
candidate) at the state of ``anymal``'s run. Each model runs ``mb.simulate(method="contact")`` for ``--seconds``;
at the final state, the detection is called as the step calls it (margin widened by the step's reach,
h (speed bound + h |g|)) from a compiled loop of ``--calls`` calls, timed by the thread's CPU time (steadier than
the wall clock on a shared host). The time is the median of ``--rounds`` rounds, the models' rounds interleaved.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from numba import njit

import multibody as mb
from multibody.constraints._kinematics import Snapshot
from multibody.constraints._narrow import detect_contacts, near_pairs, speed_bound
from multibody.constraints.contact import contact_pairs, detection_arrays
from multibody.constraints.integrate import MARGIN

DM_CONTROL = ("cheetah", "walker", "hopper", "humanoid", "quadruped")
TESTS = Path(__file__).resolve().parent.parent / "tests"


def quadruped(name, srdf_pairs=True):
    """(model, q0, dt) of Go1, ANYmal or Solo12 as tests/constraints/test_robot_landing.py drops it (a floor, the
    standing pose held by joint spring-dampers, the lowest shape 5 cm up, dt 2 ms; Solo12 without the pairs of
    hulls that overlap in that pose, as the test stands it); ``srdf_pairs`` False: the robot and floor alone, every
    pair a candidate (for detection at a state of the other's run)."""
    sys.path[:0] = [str(TESTS), str(TESTS / "constraints")]
    from test_robot_landing import QUADRUPEDS, ROBOTS, _disable_pairs_touching, _quadruped
    if srdf_pairs:
        model, q0 = _quadruped(name)
        if name == "solo12":
            _disable_pairs_touching(model, q0)
        return model, q0, 2e-3
    model = mb.Model.from_urdf(ROBOTS / QUADRUPEDS[name][0], floating_base=True, collisions=True)
    model.add_geometry("world", mb.Plane(), friction=0.8, name="floor")
    return model, None, 2e-3


def dm_control_model(name):
    import dm_control
    import mujoco
    path = Path(dm_control.__file__).parent / "suite" / f"{name}.xml"
    return mb.Model.from_mjcf(path), None, mujoco.MjModel.from_xml_path(str(path)).opt.timestep


@njit  # (not cached: numba would keep the detection compiled into it after an edit of multibody)
def detection_calls(shapes, pairs, R0, p0, margin, out, calls):
    """``calls`` calls of the detection as the contact step makes them; the contacts of the last."""
    count = 0
    for _ in range(calls):
        count = detect_contacts(shapes, pairs, R0, p0, margin, out)
    return count


@njit
def kept_pairs(shapes, pairs, R0, p0, margin):
    """The number of pairs the broad phase keeps."""
    g = shapes[0].shape[0]
    R, frames = np.empty((g, 3, 3)), np.empty((3, g, 3))
    return near_pairs(shapes, pairs, R0, p0, margin, R, frames[0], frames[1], frames[2],
                      np.empty(pairs.shape[0], dtype=np.int64))


def state_after(name, seconds):
    """(model, q, v, dt) at the end of a contact run of ``seconds`` (``anymal-all``: ANYmal's state, all pairs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robot = "anymal" if name == "anymal-all" else name
        model, q0, dt = dm_control_model(name) if name in DM_CONTROL else quadruped(robot)
        v0 = None if q0 is None else np.zeros(model.nv)
        run = mb.simulate(model, q0, v0, t_end=max(round(seconds / dt), 1) * dt, dt=dt, method="contact",
                          progress=False)
        if name == "anymal-all":
            model = quadruped(robot, srdf_pairs=False)[0]
        contact_pairs(model)  # (its warnings, once)
    return model, np.asarray(run.q)[-1], np.asarray(run.v)[-1], dt


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=[*DM_CONTROL, "go1", "anymal", "anymal-all"])
    parser.add_argument("--seconds", type=float, default=0.4)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    calls = {}
    for name in args.models:
        model, q, v, dt = state_after(name, args.seconds)
        shapes, pairs, capacity = detection_arrays(model)
        snapshot = Snapshot(model, q, v)
        speed = speed_bound(shapes[2], shapes[4], shapes[6], snapshot.dp, snapshot.w)
        margin = MARGIN + dt * (speed + dt * np.linalg.norm(model.gravity))
        out = np.empty((capacity, 14))
        found = detection_calls(shapes, pairs, snapshot.R0, snapshot.p0, margin, out, 1)
        kept = kept_pairs(shapes, pairs, snapshot.R0, snapshot.p0, margin)
        calls[name] = ((shapes, pairs, snapshot.R0, snapshot.p0, margin, out), len(shapes[0]), len(pairs), kept, found)
    times = {name: [] for name in calls}
    for _ in range(args.rounds):
        for name, (arguments, *_) in calls.items():
            start = time.thread_time()
            detection_calls(*arguments, args.calls)
            times[name].append((time.thread_time() - start) / args.calls)
    print(f"{'model':12s} {'shapes':>6s} {'pairs':>6s} {'kept':>5s} {'contacts':>8s} {'µs/call':>8s}")
    for name, (_, shapes, pairs, kept, found) in calls.items():
        print(f"{name:12s} {shapes:6d} {pairs:6d} {kept:5d} {found:8d} {np.median(times[name]) * 1e6:8.2f}")


if __name__ == "__main__":
    main()
