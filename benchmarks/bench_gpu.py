"""Many states at once: multibody on an NVIDIA GPU against multibody on all CPU cores and MJX (MuJoCo on JAX) in
float64, on the same models in one run: the N = 20 revolute chain (forward dynamics, and RK4 rollouts) and Talos
(example-robot-data's talos_reduced.urdf, free-flyer; forward dynamics). Prints the rates and the ratios, and with
``--check`` first the agreement of the GPU's results with the CPU's (aba, rnea, crba, body poses, RK4 and Euler
runs) on a random tree with every joint type, the chain and Talos.

    python benchmarks/bench_gpu.py [--check] [--batch 1048576] [--out DIR]

Needs numba-cuda and a GPU; MJX needs mujoco and mujoco-mjx (skipped, saying so, without them); Talos needs
example-robot-data, or ``--talos FILE``, the model pickled beforehand (``--save-talos FILE`` writes it).
The parts run as separate processes at once (their compilations overlap; the timed sections take turns on the GPU,
and the CPU's are timed last, alone): each writes DIR/<part>.json, and the table is printed from them.
Rates: evaluations (states) per second for forward dynamics; chain-steps per second for rollouts (runs × steps).
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import pickle
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N = 20  # links of the chain
DT = 1e-3  # [s] the rollouts' step


def chain():
    import multibody as mb
    return mb.Model.chain(N)


def talos(path=None):
    """Talos (free-flyer) read from example-robot-data's URDF, or unpickled from ``path``."""
    if path:
        with open(path, "rb") as file:
            return pickle.load(file)
    import multibody as mb
    import pinocchio as pin
    robots = Path(pin.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mb.Model.from_urdf(robots / "talos_data/robots/talos_reduced.urdf", floating_base=True)


def states(model, count, seed=0):
    """Random (q, v, τ) of ``count`` states (unit quaternions)."""
    import multibody as mb
    rng = np.random.default_rng(seed)
    Q = mb.normalize(model, rng.normal(size=(count, model.nq)))
    return Q, rng.normal(size=(count, model.nv)), rng.normal(size=(count, model.nv))


@contextlib.contextmanager
def gpu_turn(out):
    """The GPU to this process alone while timing (a lock file shared by the parts)."""
    with open(Path(out) / "gpu.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def rate(call, count, seconds=1.0):
    """Items per second of ``call()`` (which does ``count`` items and waits for them): the best of rounds."""
    call()
    best, spent = np.inf, 0.0
    while spent < seconds:
        start = time.perf_counter()
        call()
        elapsed = time.perf_counter() - start
        best, spent = min(best, elapsed), spent + elapsed
    return count / best


def mjcf(model):
    """The model as MJCF (free, hinge and slide joints, full inertias, no geometry, no contacts)."""
    import mujoco
    from multibody.model.joints import FREE, PRISMATIC, REVOLUTE

    def vec(x):
        return " ".join(f"{value:.17g}" for value in np.ravel(x))

    children = {}
    for i, parent in enumerate(model.parents):
        children.setdefault(int(parent), []).append(i)

    def body(i):
        b, joint, placement = model.bodies[i], model.joints[i], model.placements[i]
        quat = np.empty(4)
        mujoco.mju_mat2Quat(quat, np.ascontiguousarray(placement.rotation, dtype=float).ravel())
        kind = {FREE: "<freejoint/>", REVOLUTE: f'<joint type="hinge" axis="{vec(getattr(joint, "axis", 0))}"/>',
                PRISMATIC: f'<joint type="slide" axis="{vec(getattr(joint, "axis", 0))}"/>'}[joint.code]
        I = b.inertia
        return (f'<body name="{b.name}" pos="{vec(placement.translation)}" quat="{vec(quat)}">{kind}'
                f'<inertial pos="{vec(b.com)}" mass="{b.mass:.17g}" '
                f'fullinertia="{vec([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])}"/>'
                + "".join(body(k) for k in children.get(i, [])) + "</body>")

    text = (f'<mujoco><option gravity="{vec(model.gravity)}" integrator="RK4"><flag contact="disable" '
            f'constraint="disable"/></option><worldbody>{"".join(body(k) for k in children[-1])}</worldbody></mujoco>')
    return mujoco.MjModel.from_xml_string(text)


def part_mjx(args):
    """MJX float64: vmap(mjx.forward) on the chain and Talos (and, with --mjx-rollouts, RK4 rollouts)."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        from mujoco import mjx
    except ImportError as exc:
        return {"skipped": f"MJX not installed ({exc})"}
    results = {"jax": jax.__version__, "device": str(jax.devices()[0])}
    for name, model, batch in (("chain", chain(), args.mjx_batch), ("talos", talos(args.talos), args.mjx_batch // 4)):
        with noted(results, name):
            mjx_forward(args, results, name, model, batch, jax, jnp, mjx)
    return results


@contextlib.contextmanager
def noted(results, name):
    """Run a section; an exception is printed and noted in results[name + " error"], and the part goes on."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 (a benchmark section that fails is reported, not fatal)
        import traceback
        traceback.print_exc()
        results[f"{name} error"] = f"{type(exc).__name__}: {exc}"


def mjx_forward(args, results, name, model, batch, jax, jnp, mjx):
    """MJX's vmap(forward) (and, for the chain with --mjx-rollouts, RK4 rollouts) of one model."""
    m = mjcf(model)
    mx = mjx.put_model(m)
    data = mjx.make_data(mx)
    rng = np.random.default_rng(1)
    qpos = np.tile(m.qpos0, (batch, 1)) + 0.1 * rng.normal(size=(batch, m.nq))
    qvel, tau = rng.normal(size=(batch, m.nv)), rng.normal(size=(batch, m.nv))
    qpos, qvel, tau = (jnp.asarray(x, dtype=jnp.float64) for x in (qpos, qvel, tau))

    def forward(q, v, t):
        return mjx.forward(mx, data.replace(qpos=q, qvel=v, qfrc_applied=t)).qacc
    f = jax.jit(jax.vmap(forward))
    start = time.perf_counter()
    f(qpos, qvel, tau).block_until_ready()
    compile_s = time.perf_counter() - start
    with gpu_turn(args.out):
        results[f"{name} aba"] = rate(lambda: f(qpos, qvel, tau).block_until_ready(), batch)
    results[f"{name} aba compile s"] = compile_s
    results[f"{name} aba batch"] = batch
    print(f"mjx {name}: {results[f'{name} aba'] / 1e6:.2f}M/s (compile {compile_s:.0f} s)", flush=True)
    if name == "chain" and args.mjx_rollouts:
        steps, runs = args.steps, 4096

        def rollout(q, v):
            def step(d, _):
                return mjx.step(mx, d), None
            d, _ = jax.lax.scan(step, data.replace(qpos=q, qvel=v), None, length=steps)
            return d.qpos
        g = jax.jit(jax.vmap(rollout))
        start = time.perf_counter()
        g(qpos[:runs], qvel[:runs]).block_until_ready()
        results["chain rk4 compile s"] = time.perf_counter() - start
        with gpu_turn(args.out):
            results["chain rk4"] = rate(lambda: g(qpos[:runs], qvel[:runs]).block_until_ready(), runs * steps)


def part_gpu(args):
    """multibody on the GPU: ABA of the chain (block sizes compared) and of Talos, RK4 rollouts of the chain."""
    from numba import cuda
    import multibody as mb
    device = cuda.get_current_device()
    name = getattr(device, "name", "numba-cuda simulator")
    results = {"gpu": name.decode() if isinstance(name, bytes) else str(name)}
    for name, model in (("chain", chain()), ("talos", talos(args.talos))):
        with noted(results, f"{name} aba"):
            gpu_aba(args, results, name, model)
    with noted(results, "chain rk4"):
        gpu_rollouts(args, results)
    with noted(results, "chain aba agreement"):  # (last: the CPU's kernels may still be compiling)
        model = chain()
        Q, V, T = states(model, 4096, seed=3)
        cpu = mb.aba(model, Q, V, T)
        gpu = mb.aba(model, *(cuda.to_device(x) for x in (Q, V, T))).copy_to_host()
        results["chain aba error"] = float(np.max(np.abs(gpu - cpu)) / max(1.0, np.max(np.abs(cpu))))
    return results


def gpu_aba(args, results, name, model):
    """The GPU's ABA of one model at each block size."""
    from numba import cuda
    import multibody as mb
    from multibody.dynamics import _gpu_kernels
    B = args.batch if name == "chain" else args.batch // 4
    Q, V, T = (cuda.to_device(np.asfortranarray(x)) for x in states(model, B))  # state index fastest
    mb.aba(model, Q, V, T)  # compiles
    with gpu_turn(args.out):
        for threads in (32, 64, 128, 256):
            _gpu_kernels.THREADS = threads
            results[f"{name} aba {threads}"] = rate(lambda: mb.aba(model, Q, V, T), B)
    results[f"{name} aba"] = max(results[f"{name} aba {t}"] for t in (32, 64, 128, 256))
    results[f"{name} aba batch"] = B
    print(f"gpu {name} aba: " + ", ".join(f"{t} threads {results[f'{name} aba {t}'] / 1e6:.1f}M/s"
                                            for t in (32, 64, 128, 256)), flush=True)


def gpu_rollouts(args, results):
    """The GPU's RK4 rollouts of the chain, at the chain ABA's best block size."""
    from numba import cuda
    import multibody as mb
    from multibody.dynamics import _gpu_kernels
    _gpu_kernels.THREADS = max((32, 64, 128, 256), key=lambda t: results.get(f"chain aba {t}", 0.0))
    model, runs = chain(), args.batch // 4
    Q, V, T = (cuda.to_device(np.asfortranarray(x)) for x in states(model, runs, seed=1))
    t_end = args.steps * DT
    mb.simulate(model, Q, V, t_end, method="RK4", dt=DT, t_eval=[t_end], torque=T)  # compiles
    with gpu_turn(args.out):
        results["chain rk4"] = rate(
            lambda: mb.simulate(model, Q, V, t_end, method="RK4", dt=DT, t_eval=[t_end], torque=T), runs * args.steps)
    results["chain rk4 runs"], results["steps"], results["threads"] = runs, args.steps, _gpu_kernels.THREADS
    print(f"gpu chain rk4: {results['chain rk4'] / 1e6:.1f}M chain-steps/s", flush=True)


def part_cpu(args):
    """multibody on all CPU cores: the batched ABA (SIMD lanes) and the lockstep RK4 rollouts."""
    import numba
    import multibody as mb
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    results = {"threads": numba.get_num_threads(), "cores": os.cpu_count()}
    for name, model in (("chain", chain()), ("talos", talos(args.talos))):
        Q, V, T = states(model, 65536)
        results[f"{name} aba"] = rate(lambda: mb.aba(model, Q, V, T), len(Q))
    model, runs = chain(), 4096
    Q, V, T = states(model, runs, seed=1)
    t_end = args.steps * DT
    results["chain rk4"] = rate(lambda: mb.simulate(model, Q, V, t_end, method="RK4", dt=DT, t_eval=[t_end],
                                                    torque=T), runs * args.steps, seconds=3.0)
    return results


def part_check(args):
    """max |GPU − CPU| / max(1, max |CPU|) of each function on a random tree with every joint type, the chain and
    Talos; RK4 and Euler runs of 10 steps."""
    sys.path.insert(0, str(HERE.parent / "tests"))
    from numba import cuda
    import multibody as mb
    from oracles import random_model
    kinds = ("revolute", "prismatic", "spherical", "cylindrical", "planar", "fixed")
    models = {"random tree": random_model(np.random.default_rng(11), 12, kinds=kinds, free_base=True),
              "talos": talos(args.talos)}  # (the chain's ABA: in the gpu part)
    results = {}

    def error(gpu, cpu):
        gpu = gpu.copy_to_host() if hasattr(gpu, "copy_to_host") else np.asarray(gpu)
        return float(np.max(np.abs(gpu - cpu)) / max(1.0, np.max(np.abs(cpu))))

    for name, model in models.items():
        Q, V, A = states(model, args.check_batch, seed=2)
        Qd, Vd, Ad = (cuda.to_device(x) for x in (Q, V, A))  # (small kernels: no turn on the GPU needed)
        tau = mb.rnea(model, Qd, Vd, Ad)
        results[f"{name} rnea"] = error(tau, mb.rnea(model, Q, V, A))
        results[f"{name} aba"] = error(mb.aba(model, Qd, Vd, tau), mb.aba(model, Q, V, tau.copy_to_host()))
        results[f"{name} crba"] = error(mb.crba(model, Qd), mb.crba(model, Q))
        R, p = mb.body_poses(model, Qd)
        R_cpu, p_cpu = mb.body_poses(model, Q)
        results[f"{name} body_poses"] = max(error(R, R_cpu), error(p, p_cpu))
        for method in ("RK4", "Euler") if name == "random tree" else ():
            runs = min(64, args.check_batch)
            options = dict(method=method, dt=DT, t_eval=[0.0, 5 * DT, 10 * DT], torque=A[:runs])
            cpu = mb.simulate(model, Q[:runs], V[:runs], 10 * DT, **options)
            gpu = mb.simulate(model, cuda.to_device(Q[:runs]), V[:runs], 10 * DT, **options)
            results[f"{name} {method}"] = max(error(gpu.q, np.array([r.q for r in cpu])),
                                              error(gpu.v, np.array([r.v for r in cpu])))
        print(f"check {name}: " + ", ".join(f"{k.split(' ', 2)[-1]} {v:.1e}" for k, v in results.items()
                                            if k.startswith(name)), flush=True)
    results["worst"] = max(results.values())
    return results


PARTS = {"check": part_check, "mjx": part_mjx, "gpu": part_gpu, "cpu": part_cpu}


def report(out, args):
    """The table of rates and ratios from the parts' JSON files."""
    got = {part: json.loads((Path(out) / f"{part}.json").read_text()) for part in PARTS
           if (Path(out) / f"{part}.json").exists()}
    gpu, cpu, mjx = got.get("gpu", {}), got.get("cpu", {}), got.get("mjx", {})
    lines = [f"GPU: {gpu.get('gpu', '?')}; CPU: {cpu.get('cores', '?')} cores, {cpu.get('threads', '?')} numba threads; "
             f"float64. MJX: {mjx.get('skipped') or mjx.get('jax', '?')}"]
    if "check" in got:
        lines.append(f"agreement GPU vs CPU (max |Δ| / max(1, max |CPU|)): worst {got['check']['worst']:.1e}")
        lines += [f"  {k}: {v:.1e}" for k, v in got["check"].items() if k != "worst"]
        if "chain aba error" in gpu:
            lines.append(f"  chain aba: {gpu['chain aba error']:.1e}")
    lines.append(f"{'what':<44}{'GPU':>12}{'CPU cores':>12}{'MJX':>12}{'GPU/CPU':>9}{'GPU/MJX':>9}")
    for key, label, unit in (("chain aba", f"N = {N} chain, ABA", "eval/s"),
                             ("talos aba", "Talos (free-flyer), ABA", "eval/s"),
                             ("chain rk4", f"N = {N} chain, RK4 rollouts", "chain-steps/s")):
        g, c, m = gpu.get(key), cpu.get(key), mjx.get(key)

        def fmt(x):
            return f"{x / 1e6:.2f}M" if x else "—"
        lines.append(f"{label + f' [{unit}]':<44}{fmt(g):>12}{fmt(c):>12}{fmt(m):>12}"
                     f"{(f'{g / c:.1f}x' if g and c else '—'):>9}{(f'{g / m:.1f}x' if g and m else '—'):>9}")
    text = "\n".join(lines)
    (Path(out) / "results.txt").write_text(text + "\n" + json.dumps(got, indent=1) + "\n")
    print(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="first compare the GPU's results with the CPU's")
    parser.add_argument("--batch", type=int, default=1 << 20, help="states of the chain's ABA (Talos: a quarter)")
    parser.add_argument("--mjx-batch", type=int, default=1 << 18)
    parser.add_argument("--check-batch", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=100, help="RK4 steps of each rollout")
    parser.add_argument("--mjx-rollouts", action="store_true", help="also MJX's RK4 rollouts (minutes to compile)")
    parser.add_argument("--talos", help="Talos pickled by --save-talos (where example-robot-data is missing)")
    parser.add_argument("--save-talos", help="pickle Talos to this file and stop")
    parser.add_argument("--out", default="bench_gpu_results")
    parser.add_argument("--part", choices=list(PARTS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.save_talos:
        with open(args.save_talos, "wb") as file:
            pickle.dump(talos(), file)
        return
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if args.part:
        results = PARTS[args.part](args)
        (Path(args.out) / f"{args.part}.json").write_text(json.dumps(results))
        return
    argv = [sys.executable, __file__, *sys.argv[1:]]
    parts = (["check"] if args.check else []) + ["mjx", "gpu"]
    warm = [subprocess.Popen([sys.executable, "-m", "multibody._warmup", part]) for part in ("core", "batch")]
    running = [subprocess.Popen(argv + ["--part", part]) for part in parts]
    for process in warm + running:
        process.wait()
    subprocess.run(argv + ["--part", "cpu"], check=False)  # alone: every core to it
    report(args.out, args)


if __name__ == "__main__":
    main()
