"""Time rnea, crba and aba per call for 3D chains of N revolute links, and a batch of random states, for
multibody and — in the same run, when installed — Pinocchio and MuJoCo built as the same mechanism.

    python benchmarks/bench_dynamics.py [--sizes 7 20 50 100] [--batch 10000]

Per-call times are the best of many interleaved rounds (each round calls every function of the table for about
1 ms in turn), so that the slow phases of a shared machine hit multibody and its peers alike. Ratios are multibody / peer (below 1: multibody faster).
MuJoCo has no ABA: its "aba" column is mj_forward (kinematics, inertia, sparse factorization, accelerations)
with no contacts; its "rnea" is mj_kinematics + mj_comPos + mj_comVel + mj_rne; its "crba" mj_kinematics +
mj_comPos + mj_crb + mj_fullM.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import multibody as mb


def interleaved_best(functions, seconds=3.0):
    """Best wall time per call [µs] of each function over interleaved rounds of about 1 ms per function."""
    loops = {}
    for key, function in functions.items():
        function()
        start = time.perf_counter()
        function()
        loops[key] = max(1, int(1e-3 / max(time.perf_counter() - start, 1e-7)))
    best = dict.fromkeys(functions, np.inf)
    for _ in range(max(5, int(seconds / (1e-3 * len(functions))))):
        for key, function in functions.items():
            start = time.perf_counter()
            for _ in range(loops[key]):
                function()
            best[key] = min(best[key], (time.perf_counter() - start) / loops[key])
    return {key: value * 1e6 for key, value in best.items()}


def pinocchio_chain(model):
    """The same chain in Pinocchio (joint placements, axes and inertias copied body by body)."""
    import pinocchio as pin
    pm = pin.Model()
    pm.gravity = pin.Motion(np.asarray(model.gravity, dtype=float), np.zeros(3))
    parent = 0
    for body, joint, placement in zip(model.bodies, model.joints, model.placements):
        parent = pm.addJoint(parent, pin.JointModelRevoluteUnaligned(joint.axis),
                             pin.SE3(placement.rotation, placement.translation), body.name)
        pm.appendBodyToJoint(parent, pin.Inertia(body.mass, body.com, body.inertia), pin.SE3.Identity())
    return pm


def mujoco_chain(model):
    """The same chain as an MJCF model (hinge joints, full inertias, no geometry, no contacts)."""
    import mujoco

    def vec(x):
        return " ".join(f"{value:.17g}" for value in x)

    xml, closing = [], []
    for body, joint, placement in zip(model.bodies, model.joints, model.placements):
        I = body.inertia
        xml.append(f'<body name="{body.name}" pos="{vec(placement.translation)}">'
                   f'<joint type="hinge" axis="{vec(joint.axis)}" damping="0" armature="0"/>'
                   f'<inertial pos="{vec(body.com)}" mass="{body.mass:.17g}" '
                   f'fullinertia="{vec([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])}"/>')
        closing.append("</body>")
    g = vec(model.gravity)
    text = (f'<mujoco><option gravity="{g}" integrator="RK4"><flag contact="disable" constraint="disable"/></option>'
            f'<worldbody>{"".join(xml)}{"".join(closing)}</worldbody></mujoco>')
    return mujoco.MjModel.from_xml_string(text)


def per_call_table(sizes):
    rows = []
    for n in sizes:
        model = mb.Model.chain(n)
        rng = np.random.default_rng(n)
        q, v, a = rng.normal(size=(3, n))
        tau = mb.rnea(model, q, v, a)
        functions = {("multibody", "rnea"): lambda: mb.rnea(model, q, v, a),
                     ("multibody", "crba"): lambda: mb.crba(model, q),
                     ("multibody", "aba"): lambda: mb.aba(model, q, v, tau)}
        try:
            import pinocchio as pin
            pm = pinocchio_chain(model)
            data = pm.createData()
            assert np.allclose(pin.aba(pm, data, q, v, tau), a, atol=1e-8), "Pinocchio chain differs"
            functions.update({("pinocchio", "rnea"): lambda: pin.rnea(pm, data, q, v, a),
                              ("pinocchio", "crba"): lambda: pin.crba(pm, data, q),
                              ("pinocchio", "aba"): lambda: pin.aba(pm, data, q, v, tau)})
        except ImportError:
            pass
        try:
            import mujoco
            mm = mujoco_chain(model)
            md = mujoco.MjData(mm)
            md.qpos[:], md.qvel[:], md.qfrc_applied[:] = q, v, tau
            mujoco.mj_forward(mm, md)
            assert np.allclose(md.qacc, a, atol=1e-6), "MuJoCo chain differs"
            result = np.empty(n)
            M = np.empty((n, n))

            def mj_rnea():
                mujoco.mj_kinematics(mm, md)
                mujoco.mj_comPos(mm, md)
                mujoco.mj_comVel(mm, md)
                mujoco.mj_rne(mm, md, 1, result)

            def mj_crba():
                mujoco.mj_kinematics(mm, md)
                mujoco.mj_comPos(mm, md)
                mujoco.mj_crb(mm, md)
                mujoco.mj_fullM(mm, md, M)

            functions.update({("mujoco", "rnea"): mj_rnea, ("mujoco", "crba"): mj_crba,
                              ("mujoco", "aba"): lambda: mujoco.mj_forward(mm, md)})
        except ImportError:
            pass
        times = interleaved_best(functions)
        ours = {algo: times[("multibody", algo)] for algo in ("rnea", "crba", "aba")}
        peers = {}
        for (name, algo), value in times.items():
            if name != "multibody":
                peers.setdefault(name, {})[algo] = value
        rows.append((n, ours, peers))
    return rows


def batch_table(n, count):
    """Forward dynamics over ``count`` random states of the n-link chain: evaluations per second."""
    import numba
    model = mb.Model.chain(n)
    rng = np.random.default_rng(0)
    Q, V, T = rng.normal(size=(3, count, n))
    mb.aba(model, Q[:8], V[:8], T[:8])
    result = {}

    def rate(function):
        return count / (cpu_or_wall(function) * 1e-6)

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    result["multibody batched, 1 thread"] = rate(lambda: mb.aba(model, Q, V, T))
    numba.set_num_threads(threads)
    result[f"multibody batched, {threads} threads"] = rate(lambda: mb.aba(model, Q, V, T))
    result["multibody, Python loop"] = rate(lambda: [mb.aba(model, Q[b], V[b], T[b]) for b in range(count)])
    try:
        import pinocchio as pin
        pm = pinocchio_chain(model)
        data = pm.createData()
        result["pinocchio.aba, Python loop"] = rate(lambda: [pin.aba(pm, data, Q[b], V[b], T[b]) for b in range(count)])
        if hasattr(pin, "abaInParallel"):
            pool = pin.ModelPool(pm, 1)
            out = np.empty((n, count), order="F")
            Qf, Vf, Tf = (np.asfortranarray(x.T) for x in (Q, V, T))
            result["pinocchio.abaInParallel, 1 thread"] = rate(lambda: pin.abaInParallel(1, pool, Qf, Vf, Tf, out))
    except ImportError:
        pass
    return result


def cpu_or_wall(function):
    """Wall time [µs] of one call, best of 7 (batched runs are multi-threaded, so CPU time would overcount)."""
    function()
    best = np.inf
    for _ in range(7):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 20, 50, 100])
    parser.add_argument("--batch", type=int, default=10000, help="number of states in the batched test (N = 20)")
    args = parser.parse_args(argv)
    print("Per call, µs (best of interleaved rounds; ratio = multibody / peer)")
    header = f"{'N':>4} {'algo':>5} {'multibody':>10}"
    rows = per_call_table(args.sizes)
    peers = sorted({name for _, _, p in rows for name in p})
    for name in peers:
        header += f" {name:>10} {'ratio':>6}"
    print(header)
    for n, ours, p in rows:
        for algo in ("rnea", "crba", "aba"):
            line = f"{n:>4} {algo:>5} {ours[algo]:>10.2f}"
            for name in peers:
                if name in p:
                    line += f" {p[name][algo]:>10.2f} {ours[algo] / p[name][algo]:>6.2f}"
            print(line)
    print(f"\nForward dynamics of the N = 20 chain over {args.batch} states (evaluations per second)")
    result = batch_table(20, args.batch)
    loop = result.get("pinocchio.aba, Python loop")
    for name, value in result.items():
        extra = f"   {value / loop:5.1f}x the Python loop over pinocchio.aba" if loop else ""
        print(f"  {name:<40} {value:>12,.0f}{extra}")


if __name__ == "__main__":
    main()
