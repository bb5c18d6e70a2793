"""Time 10 s simulations of the 3D N-link chains: ``mb.simulate(..., compiled=False)`` (scipy's DOP853 stepped from
Python: the path of every model the compiled loop does not take, and of every model before it), the
compiled loop (``multibody.simulate.compiled``, DOPRI5 and DOP853) and MuJoCo (RK4), in one run; then batched rollouts.

    python benchmarks/bench_simulate.py [--sizes 7 20] [--runs 5] [--batch 256] [--baseline REV]

The chain (``mb.Model.chain(N)``) starts from small swings about its hanging equilibrium (joint 2 at π/2, every
joint offset by ``swing`` rad: 0.1 for N = 7, 0.01 for N = 20), where the motion is not chaotic, so that end-state
errors measure the integrators (released from the horizontal the chain is chaotic and any two solvers differ by
O(1) after a few seconds). Errors are max |q(10 s) − q_ref| against the compiled DOPRI5 at rtol = atol = 1e-13
("ref. uncertainty": its difference to rtol = atol = 1e-12). Both multibody paths run at rtol = 1e-8,
atol = 1e-10 (``mb.simulate``'s defaults but rtol) with 1001 output samples. MuJoCo (no contacts, no
constraints, RK4) runs at the fixed step that gives the compiled path's end-state error (of DOPRI5; of DOP853
in the second table), found by secant
iterations on log(error) vs log(step); its time is ``mj_step`` with ``nstep`` in one call (no output samples).
Times are the best of ``--runs`` rounds, each round one run of every path in turn (interleaved: this machine's
speed drifts by up to 40 % over tens of seconds, so paths timed minutes apart compare different machines).
Ratios: today / compiled (speed-up), compiled / MuJoCo (below 1: faster).
``--baseline REV`` also times the scipy path of commit REV in the same rounds (``scipy_path_at.py``, a worker
process: the speed-up of the compiled loop over the scipy path of an earlier version of the package) and gives two
ratios: the compiled DOP853 loop's (``integrate_tree``: samples of q and v), and that of what a
user calls, ``mb.simulate`` (default method, compiled), which also builds the Trajectory as the scipy path does
(the accelerations and applied forces at every sample); then the same on one of numba's threads (a single DOP853
run otherwise computes its dense output and the samples' accelerations on a helper thread:
:mod:`multibody.simulate.handoff`).

With an event: the N = 7 chain with a non-terminal ``mb.JointValue`` event, ``mb.simulate`` compiled vs
``compiled=False`` (both DOP853, the events located on the dense output).

Batched rollouts: ``integrate_tree_batch`` of the N = 7 chain from ``--batch`` random initial states, 1 s each,
fixed steps of 1 ms (RK4 and semi-implicit Euler), on 1 and 2 threads: chain-steps per second, best of ``--runs``
rounds, each round one run of every case in turn; once with one model for all runs, once with a model per run
(random link masses and lengths: per-run parameters). The chain's revolute joints take the lockstep kernel
(``multibody.simulate.lockstep``: 32 runs per vectorized ABA, the chunks spread over threads).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numba
import numpy as np

import multibody as mb
from multibody.simulate.compiled import integrate_tree, integrate_tree_batch, tree_trajectory

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_dynamics import mujoco_chain  # noqa: E402

T_END, RTOL, ATOL, SAMPLES = 10.0, 1e-8, 1e-10, 1001
SWING = {7: 0.1, 20: 0.01}


def hanging(n):
    q0 = np.full(n, SWING.get(n, 0.01))
    q0[1] += np.pi / 2
    return q0, np.zeros(n)


def best_time(function, runs):
    best, result = np.inf, None
    for _ in range(runs):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def interleaved(functions, runs):
    """{name: (best wall time [s], last result)} of the functions of a dict, each run once per round, ``runs``
    rounds."""
    best, results = {name: np.inf for name in functions}, {}
    for _ in range(runs):
        for name, function in functions.items():
            start = time.perf_counter()
            results[name] = function()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: (best[name], results[name]) for name in functions}


def mujoco_run(mm, q0, step):
    """(end configuration, wall time [s]) of a 10 s MuJoCo RK4 run at ``step``."""
    import mujoco
    data = mujoco.MjData(mm)
    mm.opt.timestep = step
    data.qpos[:], data.qvel[:] = q0, 0.0
    count = int(round(T_END / step))
    start = time.perf_counter()
    mujoco.mj_step(mm, data, nstep=count)
    return data.qpos.copy(), time.perf_counter() - start


def matching_step(mm, q0, reference, target):
    """MuJoCo's RK4 step whose end-state error is ``target`` (secant on log error vs log step), and that error."""
    steps, errors = [], []
    step = 1e-3
    for _ in range(6):
        step = T_END / int(round(T_END / step))
        error = np.abs(mujoco_run(mm, q0, step)[0] - reference).max()
        steps.append(step)
        errors.append(error)
        if abs(np.log(error / target)) < 0.1:
            break
        slope = 4.0 if len(steps) < 2 else np.clip(
            np.log(errors[-1] / errors[-2]) / np.log(steps[-1] / steps[-2]), 1.0, 8.0)
        step = min(5e-3, step * (target / error) ** (1.0 / slope))
    return steps[-1], errors[-1]


def on_one_thread(run):
    """``run()`` with numba on one thread: a DOP853 run then has no helper thread for its dense output
    (:mod:`multibody.simulate.handoff`)."""
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return run()
    finally:
        numba.set_num_threads(before)


def table_rows(sizes, runs, baseline=None):
    rows = []
    for n in sizes:
        model = mb.Model.chain(n)
        q0, v0 = hanging(n)
        t_eval = np.linspace(0.0, T_END, SAMPLES)
        reference = integrate_tree(model, q0, v0, [0.0, T_END], rtol=1e-13, atol=1e-13)[1][-1]
        uncertainty = np.abs(integrate_tree(model, q0, v0, [0.0, T_END], rtol=1e-12, atol=1e-12)[1][-1]
                             - reference).max()
        integrate_tree(model, q0, v0, t_eval, rtol=RTOL, atol=ATOL)  # compiled (or loaded from the cache)
        paths = {
            "today": lambda: mb.simulate(model, q0, v0, t_end=T_END, rtol=RTOL, atol=ATOL, progress=False,
                                         compiled=False),
            "loop": lambda: integrate_tree(model, q0, v0, t_eval, rtol=RTOL, atol=ATOL),
            "full": lambda: tree_trajectory(model, *integrate_tree(model, q0, v0, t_eval, rtol=RTOL, atol=ATOL)),
            "dop853": lambda: integrate_tree(model, q0, v0, t_eval, method="DOP853", rtol=RTOL, atol=ATOL),
            "simulate": lambda: mb.simulate(model, q0, v0, t_end=T_END, rtol=RTOL, atol=ATOL, progress=False),
            "simulate_1": lambda: on_one_thread(
                lambda: mb.simulate(model, q0, v0, t_end=T_END, rtol=RTOL, atol=ATOL, progress=False))}
        then = []  # the baseline worker's own times of its runs (without the pipe's)
        if baseline is not None:
            paths["baseline"] = lambda: then.append(baseline.time(n))
        timed = interleaved(paths, runs)
        (today, traj), (loop, (t, q, v, info)), (full, _), (dop853, (_, q8, _, info8)) = (
            timed["today"], timed["loop"], timed["full"], timed["dop853"])
        error = np.abs(q[-1] - reference).max()
        row = {"simulate": timed["simulate"][0], "simulate_1": timed["simulate_1"][0], "dop853": dop853,
               "dop853_error": np.abs(q8[-1] - reference).max(), "dop853_nfev": info8["nfev"],
               "N": n, "today": today, "today_error": np.abs(traj.q[-1] - reference).max(),
               "today_nfev": traj.info["nfev"], "loop": loop, "full": full, "error": error, "nfev": info["nfev"],
               "uncertainty": uncertainty}
        if then:
            row["baseline"] = min(then)
        try:
            mm = mujoco_chain(model)
        except ImportError:
            rows.append(row)
            continue
        step, mj_error = matching_step(mm, q0, reference, error)
        mj_time = min(mujoco_run(mm, q0, step)[1] for _ in range(runs))
        rk4, (_, q_rk4, _, _) = best_time(lambda: integrate_tree(model, q0, v0, [0.0, T_END], method="RK4",
                                                                 dt=step), runs)
        step8, mj_error8 = matching_step(mm, q0, reference, row["dop853_error"])
        row.update(mj_step8=step8, mj_error8=mj_error8, mj_time8=min(mujoco_run(mm, q0, step8)[1] for _ in range(runs)))
        row.update(mj_step=step, mj_time=mj_time, mj_error=mj_error, rk4=rk4,
                   rk4_error=np.abs(q_rk4[-1] - reference).max())
        rows.append(row)
    return rows


def print_table(rows):
    print(f"10 s of the hanging 3D chain, rtol = {RTOL:g}, atol = {ATOL:g}; times [ms], best of runs")
    print("| N | mb.simulate (DOP853) [ms] | error | compiled DOPRI5 loop [ms] | + Trajectory [ms] | error | "
          "speed-up vs today | MuJoCo RK4 step [ms] | MuJoCo [ms] | MuJoCo error | compiled / MuJoCo | "
          "compiled RK4 at MuJoCo's step [ms] | its error | ref. uncertainty |")
    print("|---" * 15 + "|")
    for r in rows:
        mj = (f"{1e3 * r['mj_step']:.3g} | {1e3 * r['mj_time']:.2f} | {r['mj_error']:.1e} | "
              f"{r['loop'] / r['mj_time']:.2f} | {1e3 * r['rk4']:.2f} | {r['rk4_error']:.1e}"
              if "mj_time" in r else "– | – | – | – | – | –")
        print(f"| {r['N']} | {1e3 * r['today']:.1f} | {r['today_error']:.1e} | {1e3 * r['loop']:.2f} | "
              f"{1e3 * r['full']:.2f} | {r['error']:.1e} | {r['today'] / r['loop']:.1f}× | {mj} | "
              f"{r['uncertainty']:.0e} |")
    print("\nSame method as today (DOP853, same tableau and step rules), compiled:")
    print("| N | mb.simulate (DOP853) [ms] | compiled DOP853 [ms] | speed-up | error today | error compiled | "
          "MuJoCo RK4 step at that error [ms] | MuJoCo [ms] | compiled DOP853 / MuJoCo |")
    print("|---" * 9 + "|")
    for r in rows:
        print(f"| {r['N']} | {1e3 * r['today']:.1f} | {1e3 * r['dop853']:.2f} | {r['today'] / r['dop853']:.1f}× | "
              f"{r['today_error']:.1e} | {r['dop853_error']:.1e} | " + (
                  f"{1e3 * r['mj_step8']:.3g} | {1e3 * r['mj_time8']:.2f} | {r['dop853'] / r['mj_time8']:.2f} |"
                  if "mj_time8" in r else "– | – | – |"))
    for r in rows:
        print(f"N = {r['N']}: evaluations {r['today_nfev']} (scipy DOP853), {r['dop853_nfev']} (compiled DOP853), "
              f"{r['nfev']} (compiled DOPRI5); per evaluation {1e6 * r['today'] / r['today_nfev']:.1f} µs, "
              f"{1e6 * r['dop853'] / r['dop853_nfev']:.2f} µs, {1e6 * r['loop'] / r['nfev']:.2f} µs")


def with_event(runs, n=7):
    """10 s of the N-link chain with a non-terminal mb.JointValue event: mb.simulate in the compiled loop vs
    compiled=False (both DOP853, interleaved rounds, best of each)."""
    model = mb.Model.chain(n)
    q0, v0 = hanging(n)
    events = [mb.JointValue("link1", 0.0)]
    fast = mb.simulate(model, q0, v0, t_end=T_END, rtol=RTOL, atol=ATOL, events=events, progress=False)
    best = {True: np.inf, False: np.inf}
    for _ in range(runs):
        for compiled in (True, False):
            start = time.perf_counter()
            traj = mb.simulate(model, q0, v0, t_end=T_END, rtol=RTOL, atol=ATOL, events=events, progress=False,
                               compiled=compiled)
            best[compiled] = min(best[compiled], time.perf_counter() - start)
    gap = np.abs(np.array([t for _, t in fast.events]) - [t for _, t in traj.events]).max()
    print(f"\nN = {n} with a non-terminal JointValue event ({len(fast.events)} crossings in 10 s): mb.simulate "
          f"{1e3 * best[True]:.1f} ms compiled vs {1e3 * best[False]:.0f} ms compiled=False: "
          f"{best[False] / best[True]:.1f}×; event times agree to {gap:.0e} s")


def throughput(batch, runs, n=7):
    rng = np.random.default_rng(0)
    Q0 = np.array([hanging(n)[0]] * batch) + 0.1 * rng.normal(size=(batch, n))
    per_run = [mb.Model.chain(n, mass=rng.uniform(0.5, 2.0), length=rng.uniform(0.2, 0.4)) for _ in range(batch)]
    t_eval = np.linspace(0.0, 1.0, 11)
    print(f"\nBatched rollouts, N = {n}, {batch} runs of 1 s at dt = 1 ms, best of {runs} interleaved rounds (load "
          f"average before: {os.getloadavg()[0]:.2f}; CPU / wall near the thread count when the cores are free)")
    print("| models | method | threads | chain-steps/s | µs per step per thread | CPU / wall |")
    print("|---|---|---|---|---|---|")
    cases = [(models, model, method, threads) for models, model in (("one", mb.Model.chain(n)), ("one per run", per_run))
             for method in ("RK4", "Euler") for threads in (1, 2)]
    for _, model, method, _ in cases:
        integrate_tree_batch(model, Q0, 0.0 * Q0[0], t_eval[:2], method=method, dt=1e-3)  # compiled
    best = {k: (np.inf, 0.0, 0) for k in range(len(cases))}  # (wall, cpu, steps)
    for _ in range(runs):  # rounds: every case once per round (this machine's speed drifts over tens of seconds)
        for k, (_, model, method, threads) in enumerate(cases):
            wall, clock = time.perf_counter(), time.process_time()
            _, _, _, info = integrate_tree_batch(model, Q0, 0.0 * Q0[0], t_eval, method=method, dt=1e-3,
                                                 threads=threads)
            wall = time.perf_counter() - wall
            if wall < best[k][0]:
                best[k] = (wall, time.process_time() - clock, info["steps"])
    for k, (models, _, method, threads) in enumerate(cases):
        wall, cpu, steps = best[k]
        rate = steps / wall
        print(f"| {models} | {method} | {threads} | {rate:,.0f} | {1e6 * threads / rate:.2f} | {cpu / wall:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 20])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--baseline", metavar="REV", help="also time the scipy path at this commit and give the "
                        "compiled DOP853's speed-up against it")
    args = parser.parse_args()
    if args.baseline:
        from scipy_path_at import PathAt
        with PathAt(args.baseline) as baseline:
            rows = table_rows(args.sizes, args.runs, baseline)
    else:
        rows = table_rows(args.sizes, args.runs)
    print_table(rows)
    for r in rows:
        if "baseline" in r:
            print(f"N = {r['N']}: the scipy path at {args.baseline} {1e3 * r['baseline']:.1f} ms (today "
                  f"{1e3 * r['today']:.1f} ms); compiled DOP853 loop {1e3 * r['dop853']:.2f} ms: "
                  f"{r['baseline'] / r['dop853']:.1f}×; mb.simulate (that loop and its Trajectory, the "
                  f"accelerations at every sample) {1e3 * r['simulate']:.2f} ms: {r['baseline'] / r['simulate']:.1f}×; "
                  f"the same on one thread (no helper thread) {1e3 * r['simulate_1']:.2f} ms: "
                  f"{r['baseline'] / r['simulate_1']:.1f}×")
    with_event(args.runs)
    throughput(args.batch, args.runs)


if __name__ == "__main__":
    main()
