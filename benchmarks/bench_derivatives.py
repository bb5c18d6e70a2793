"""Time the analytical derivatives of inverse and forward dynamics against Pinocchio's on real robots, and batched.

    python benchmarks/bench_derivatives.py [--batch 2000] [--seconds 2]

mb.rnea_derivatives / mb.aba_derivatives against pin.computeRNEADerivatives / pin.computeABADerivatives (Carpentier &
Mansard, RSS 2018, both), each called from Python at the same state (joints matched by name), best of interleaved
rounds (bench_dynamics.interleaved_best); ratio = multibody / Pinocchio (below 1: multibody faster). "× aba" is
each library's derivative time over its own aba's. Batched: states per second of mb.aba_derivatives over a (B, nq)
batch against a Python loop over pin.computeABADerivatives, best of 5 interleaved rounds.
"""
from __future__ import annotations

import argparse
import numba
import numpy as np

import multibody as mb
from bench_dynamics import interleaved_best
from bench_robots import in_pinocchio_order, load, print_rates, robots_directory

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
    import pinocchio as pin
    data = reference.createData()
    Q = np.stack([model.random_configuration(rng) for _ in range(count)])
    V, T = rng.normal(size=(2, count, model.nv))
    (QP, VP), (_, TP) = in_pinocchio_order(model, reference, Q, V), in_pinocchio_order(model, reference, Q, T)
    threads = sorted({1, numba.config.NUMBA_NUM_THREADS})

    def ours(count_threads):
        def run():
            numba.set_num_threads(count_threads)
            mb.aba_derivatives(model, Q, V, T)
        return run
    functions = {f"mb.aba_derivatives batched, {k} thread{'s' if k > 1 else ''}": ours(k) for k in threads}
    functions["pin.computeABADerivatives, Python loop"] = lambda: [
        pin.computeABADerivatives(reference, data, QP[k], VP[k], TP[k]) for k in range(count)]
    times = interleaved_best(functions, seconds=0.01)  # (5 interleaved rounds, best of each)
    numba.set_num_threads(threads[-1])
    return {label: count / (t * 1e-6) for label, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    directory = robots_directory()
    print("| robot | nv | algorithm | multibody [µs] | Pinocchio [µs] | ratio | multibody × aba | Pinocchio × aba |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (file, floating) in ROBOTS.items():
        model, reference = load(directory / file, floating)
        times = per_call(model, reference, rng, args.seconds)
        for algorithm in ("rnea_derivatives", "aba_derivatives"):
            ours, theirs = times[(algorithm, "mb")], times[(algorithm, "pin")]
            print(f"| {name} | {model.nv} | {algorithm} | {ours:.2f} | {theirs:.2f} | {ours / theirs:.2f} | "
                  f"{ours / times[('aba', 'mb')]:.1f} | {theirs / times[('aba', 'pin')]:.1f} |")
    model, reference = load(directory / ROBOTS["talos (free-flyer)"][0], True)
    rates = batched(model, reference, args.batch, rng)
    print_rates(f"aba_derivatives of Talos (free-flyer, nv = {model.nv}) over {args.batch} random states", rates,
                "pin.computeABADerivatives, Python loop", "states per second", "vs the Python loop over Pinocchio")


if __name__ == "__main__":
    main()
