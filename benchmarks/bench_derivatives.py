"""Time the analytical derivatives of inverse and forward dynamics against Pinocchio's on real robots, and batched.

    python benchmarks/bench_derivatives.py [--batch 256] [--seconds 2] [--robots DIR]

mb.rnea_derivatives / mb.aba_derivatives against pin.computeRNEADerivatives / pin.computeABADerivatives (Carpentier &
Mansard, RSS 2018, both), each called from Python at the same state (joints matched by name), best of interleaved
rounds (bench_dynamics.interleaved_best); ratio = multibody / Pinocchio (below 1: multibody faster). "× aba" is
each library's derivative time over its own aba's. Batched: µs per state of mb.aba_derivatives and mb.rnea_derivatives
over a (B, nq) batch, on one thread and on numba's thread count (NUMBA_NUM_THREADS), against a Python loop over
pin.computeABADerivatives / pin.computeRNEADerivatives, all interleaved in the same way; the one-thread column is the
speed-up per core, "× aba" the batched derivatives' time over the batched mb.aba's at the same states and threads
(the batched calls themselves use no more of the threads than the batch's work is worth). The batched derivatives
write into the same arrays every round (``out=``), as the loop into its one pin.Data; the last two columns time
them returning new arrays, whose memory the operating system maps and zeroes on first touch. The header names the cores
and numba's thread count. --robots DIR: example-robot-data's robots/ tree copied to a plain folder (.urdf files only),
for a machine without the package (bench_robots.robots_directory).
"""
from __future__ import annotations

import argparse
import numba
import numpy as np

import multibody as mb
from bench_dynamics import interleaved_best
from bench_robots import add_robots_option, in_pinocchio_order, load, machine, robots_directory

ROBOTS = {"panda": ("panda_description/urdf/panda.urdf", False),
          "ur5": ("ur_description/urdf/ur5_robot.urdf", False),
          "talos (free-flyer)": ("talos_data/robots/talos_reduced.urdf", True)}


def per_call(model, reference, rng, seconds):
    import pinocchio as pin
    data = reference.createData()
    q, (v, a) = model.random_configuration(rng), rng.normal(size=(2, model.nv))
    (qp, vp), (_, ap) = in_pinocchio_order(model, reference, q, v), in_pinocchio_order(model, reference, q, a)
    tau, taup = mb.rnea(model, q, v, a), pin.rnea(reference, data, qp, vp, ap)
    functions = {
        ("rnea_derivatives", "mb"): lambda: mb.rnea_derivatives(model, q, v, a),
        ("rnea_derivatives", "pin"): lambda: pin.computeRNEADerivatives(reference, data, qp, vp, ap),
        ("aba_derivatives", "mb"): lambda: mb.aba_derivatives(model, q, v, tau),
        ("aba_derivatives", "pin"): lambda: pin.computeABADerivatives(reference, data, qp, vp, taup),
        ("aba", "mb"): lambda: mb.aba(model, q, v, tau),
        ("aba", "pin"): lambda: pin.aba(reference, data, qp, vp, taup),
    }
    return interleaved_best(functions, seconds)


def batched(model, reference, count, rng):
    """µs per state of mb.aba_derivatives and mb.rnea_derivatives (into the same arrays each time, ``out``) and
    mb.aba over a (count, nq) batch on 1 and on numba's thread count of threads, of the derivatives into new arrays
    on numba's thread count, and of Python loops over pin.computeABADerivatives and pin.computeRNEADerivatives:
    {(algorithm, threads or "pin"): µs, (algorithm, threads, "new"): µs}."""
    import pinocchio as pin
    data = reference.createData()
    Q = np.stack([model.random_configuration(rng) for _ in range(count)])
    V, T = rng.normal(size=(2, count, model.nv))
    (QP, VP), (_, TP) = in_pinocchio_order(model, reference, Q, V), in_pinocchio_order(model, reference, Q, T)
    threads = sorted({1, numba.config.NUMBA_NUM_THREADS})

    outputs = tuple(np.empty((3, count, model.nv, model.nv)))  # (as the loop's one pin.Data; one block, as the
    # calls' own new results: above 4 MB NumPy asks for huge pages)

    def ours(function, count_threads, **out):
        def run():
            numba.set_num_threads(count_threads)
            function(model, Q, V, T, **out)
        return run
    functions = {(name, k): ours(function, k, out=outputs) for k in threads for name, function in (
        ("aba_derivatives", mb.aba_derivatives), ("rnea_derivatives", mb.rnea_derivatives))}
    functions.update({("aba", k): ours(mb.aba, k) for k in threads})
    functions.update({(name, threads[-1], "new"): ours(function, threads[-1]) for name, function in (
        ("aba_derivatives", mb.aba_derivatives), ("rnea_derivatives", mb.rnea_derivatives))})
    functions["aba_derivatives", "pin"] = lambda: [pin.computeABADerivatives(reference, data, QP[k], VP[k], TP[k])
                                                   for k in range(count)]
    functions["rnea_derivatives", "pin"] = lambda: [pin.computeRNEADerivatives(reference, data, QP[k], VP[k], TP[k])
                                                    for k in range(count)]
    times = interleaved_best(functions, seconds=0.2)  # (about 25 interleaved rounds, best of each)
    numba.set_num_threads(threads[-1])
    return {key: t / count for key, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=2.0)
    add_robots_option(parser)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    directory = robots_directory(args.robots)
    print(machine() + "\n")
    print("| robot | nv | algorithm | multibody [µs] | Pinocchio [µs] | ratio | multibody × aba | Pinocchio × aba |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (file, floating) in ROBOTS.items():
        model, reference = load(directory / file, floating)
        times = per_call(model, reference, rng, args.seconds)
        for algorithm in ("rnea_derivatives", "aba_derivatives"):
            ours, theirs = times[(algorithm, "mb")], times[(algorithm, "pin")]
            print(f"| {name} | {model.nv} | {algorithm} | {ours:.2f} | {theirs:.2f} | {ours / theirs:.2f} | "
                  f"{ours / times[('aba', 'mb')]:.1f} | {theirs / times[('aba', 'pin')]:.1f} |")
    print(f"\nOver {args.batch} random states (q of shape ({args.batch}, nq)) against a Python loop over Pinocchio's, "
          f"µs per state; speed-up = loop time / batched time; the batched derivatives written into the same arrays "
          f"each time (out=), as the loop's into one pin.Data, and into new arrays:\n")
    threads = sorted({1, numba.config.NUMBA_NUM_THREADS})
    last = threads[-1]
    print("| robot | nv | algorithm | Pinocchio loop [µs] | " + " | ".join(
        f"batched, {k} thread{'s' * (k > 1)} [µs] | speed-up | × aba" for k in threads)
          + f" | new arrays, {last} thread{'s' * (last > 1)} [µs] | speed-up |")
    print("|---|---|---|---|" + "---|---|---|" * len(threads) + "---|---|")
    for name, (file, floating) in ROBOTS.items():
        model, reference = load(directory / file, floating)
        times = batched(model, reference, args.batch, rng)
        for algorithm in ("rnea_derivatives", "aba_derivatives"):
            loop = times[algorithm, "pin"]
            print(f"| {name} | {model.nv} | {algorithm} | {loop:.2f} | " + " | ".join(
                f"{times[algorithm, k]:.2f} | {loop / times[algorithm, k]:.2f}× | "
                f"{times[algorithm, k] / times['aba', k]:.1f}" for k in threads)
                  + f" | {times[algorithm, last, 'new']:.2f} | {loop / times[algorithm, last, 'new']:.2f}× |")


if __name__ == "__main__":
    main()
