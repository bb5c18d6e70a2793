"""Contact detection per call (broad and narrow phase of every candidate pair, ``found_contacts``) on robots
standing on a floor: candidate pairs, contacts found, µs per call.

    python benchmarks/bench_detection.py [--models go1 humanoid anymal anymal-srdf] [--calls 300]

Models: Go1, ANYmal and Solo12 (example-robot-data URDFs with their collision shapes, Solo12's STL meshes as
convex hulls; Go1, Solo12 and ``anymal-srdf`` with the SRDF's disabled pairs, as benchmarks/bench_contact.py sets up
Go1) in their neutral pose, and the dm_control humanoid at its initial configuration, each lowered onto a plane until its lowest shape is 1 mm into it.
The time is the best of 5 rounds of ``--calls`` calls at that state, margin 1 mm.
"""
from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import multibody as mb
from multibody.constraints._kinematics import Snapshot
from multibody.constraints.contact import contact_pairs, found_contacts


def robots():
    import pinocchio
    return Path(pinocchio.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"


def urdf_robot(urdf, srdf=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mb.Model.from_urdf(urdf, floating_base=True, collisions=True)
        if srdf is not None:
            from multibody.io.srdf import disable_collisions
            disable_collisions(model, srdf)
    model.add_geometry("world", mb.Plane(), name="floor")
    return model, model.neutral()


def humanoid():
    import dm_control
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mb.Model.from_mjcf(Path(dm_control.__file__).parent / "suite" / "humanoid.xml")
    return model, model.neutral()


def models():
    go1, anymal, solo = (robots() / "go1_description", robots() / "anymal_b_simple_description",
                         robots() / "solo_description")
    return {"go1": lambda: urdf_robot(go1 / "urdf" / "go1.urdf", go1 / "srdf" / "go1.srdf"),
            "humanoid": humanoid,
            "anymal": lambda: urdf_robot(anymal / "robots" / "anymal.urdf"),
            "anymal-srdf": lambda: urdf_robot(anymal / "robots" / "anymal.urdf", anymal / "srdf" / "anymal.srdf"),
            "solo12": lambda: urdf_robot(solo / "robots" / "solo12.urdf", solo / "srdf" / "solo.srdf")}


def on_the_floor(model, q):
    """q lowered so that the deepest floor contact is 1 mm deep."""
    floor = next(k for k, g in enumerate(model.geometries) if isinstance(g.shape, mb.Plane))
    found = found_contacts(model, Snapshot(model, q, np.zeros(model.nv)), np.inf)
    touching = (found.first == floor) | (found.second == floor)
    q = q.copy()
    q[2] -= found.gap[touching].min() + 1e-3
    return q


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["go1", "humanoid", "anymal", "anymal-srdf", "solo12"])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    print(f"{'model':12s} {'shapes':>6s} {'pairs':>6s} {'contacts':>8s} {'µs/call':>9s}")
    for name in args.models:
        model, q = models()[name]()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pairs = contact_pairs(model)
        q = on_the_floor(model, q)
        snapshot = Snapshot(model, q, np.zeros(model.nv))
        found = found_contacts(model, snapshot, 1e-3)
        best = np.inf
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(args.calls):
                found_contacts(model, snapshot, 1e-3)
            best = min(best, (time.perf_counter() - start) / args.calls)
        print(f"{name:12s} {len(model.geometries):6d} {len(pairs):6d} {len(found.gap):8d} {best * 1e6:9.1f}")


if __name__ == "__main__":
    main()
