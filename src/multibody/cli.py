"""The ``multibody`` command: inspect a model file, simulate it, print its equations of motion, run the demo.

    multibody info FILE
    multibody simulate FILE --t-end 10 --out run.npz --plot run.png --animate run.html
    multibody eom FILE --method kane --latex
    multibody demo
    multibody compile

FILE is a YAML model file, a URDF file, or the name of a bundled example (``multibody info --list``).
Errors print as one line; ``--debug`` shows the traceback.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from .errors import ModelError, SimulationError, SimulationInterrupted, printable


def _tree(model):
    """Lines drawing the body tree, e.g. "└─ link2  [revolute 'elbow', 1 dof, 1.0 kg]"."""
    children = {}
    for i, parent in enumerate(model.parents):
        children.setdefault(parent, []).append(i)
    lines = ["world"]

    def walk(parent, prefix):
        kids = children.get(parent, [])
        for k, i in enumerate(kids):
            last = k == len(kids) - 1
            joint, body = model.joints[i], model.bodies[i]
            lines.append(f"{prefix}{'└─ ' if last else '├─ '}{printable(body.name)}  "
                         f"[{type(joint).__name__.lower()} '{printable(joint.name)}', {joint.nv} dof, {body.mass:g} kg"
                         f"{f', flexible: {body.ne} elastic coordinates' if body.ne else ''}]")
            walk(i, prefix + ("   " if last else "│  "))
    walk(-1, "")
    return lines


def cmd_info(args):
    from .io.files import EXAMPLES, read_model_file
    if args.list:
        for path in sorted(EXAMPLES.iterdir()):
            if path.suffix in (".yaml", ".urdf"):
                print(f"{path.stem:24s} {path}")
        return 0
    if args.file is None:
        raise ModelError("info: give a model FILE (or --list for the bundled examples)")
    setup = read_model_file(args.file)
    model = setup.model
    print(f"model '{printable(model.name)}' from {printable(str(setup.source))}")
    print(f"  bodies: {model.nbodies}   joints: {len(model.joints)}   {_freedom(model, setup.q0)}   "
          f"total mass: {model.total_mass():g} kg")
    print(f"  gravity: {np.asarray(model.gravity, dtype=float).tolist()} m/s²")
    for label, items in (("frames", list(model.frames)), ("force elements", [f.name for f in model.forces]),
                         ("constraints", [getattr(c, "name", None) or type(c).__name__
                                          for c in getattr(model, "constraints", [])])):
        if items:
            print(f"  {label}: {printable(', '.join(map(str, items)))}")
    print("\n".join("  " + line for line in _tree(model)))
    return 0


def _freedom(model, q0):
    """"degrees of freedom: 2 (nq = 2)", or with constraints the mobility nv − rank J at the initial state (assembled
    if it does not close the loops): "3 joint coordinates, 1 degree of freedom (2 independent constraints)"."""
    if not getattr(model, "constraints", None):
        elastic = f", {model.ne} elastic coordinates of flexible beams" if model.ne else ""
        return f"degrees of freedom: {model.nv} (nq = {model.nq}{elastic})"
    from .constraints.assembly import assemble_positions, constraint_drift, mobility
    q = model.neutral() if q0 is None else np.asarray(q0, dtype=float)
    where = "at the initial state"
    if constraint_drift(model, q, np.zeros(model.nv))[0] > 1e-8:
        try:
            q, where = assemble_positions(model, q), "at the assembled initial state"
        except ModelError:
            where = "at the initial state, which does not satisfy the constraints"
    m = mobility(model, q)
    plural = "" if m["dof"] == 1 else "s"
    text = (f"{model.nv} joint coordinate{'' if model.nv == 1 else 's'}{'' if model.nq == model.nv else f' (nq = {model.nq})'}, "
            f"{m['dof']} degree{plural} of freedom ({m['rank']} independent constraint{'' if m['rank'] == 1 else 's'}")
    if m["configuration_dof"] != m["dof"]:
        text += f", {m['rank'] - m['holonomic_rank']} nonholonomic: {m['configuration_dof']} in configuration"
    return text + f"; {where})"


def _simulate_file(path, t_end=None, method=None, rtol=None, atol=None, samples=None, progress=None, dt=None,
                   collisions=False):
    from .io.files import read_model_file
    from .simulate import simulate
    setup = read_model_file(path)
    settings = dict(setup.simulation)
    for key, value in (("t_end", t_end), ("method", method), ("rtol", rtol), ("atol", atol), ("samples", samples),
                       ("dt", dt)):
        if value is not None:
            settings[key] = value
    settings.setdefault("t_end", 5.0)
    if collisions:
        settings["collisions"] = True
    return simulate(setup.model, setup.q0, setup.v0, progress=progress, **settings)


def _report(traj, out=None, plot=None, animate=None):
    energy = traj.energy()
    scale = max(np.abs(traj.energy("kinetic")).max(), np.abs(traj.energy("potential")).max(), 1e-300)
    print(f"simulated '{traj.model.name}' to t = {traj.t[-1]:g} s: {len(traj)} samples, "
          f"{traj.info.get('steps', 0)} steps, energy change {abs(energy[-1] - energy[0]) / scale:.2e} (relative)")
    for label, path, write in (("trajectory", out, traj.save), ("plot", plot, lambda p: traj.plot(path=p)),
                               ("animation", animate, traj.animate)):
        if path:
            write(path)
            print(f"{label:>10s}: {Path(path).resolve()}")


def cmd_simulate(args):
    try:
        traj = _simulate_file(args.file, args.t_end, args.method, args.rtol, args.atol, args.samples,
                              False if args.no_progress else None, args.dt, args.collisions)
    except SimulationInterrupted as stop:
        _save_partial(stop, args.out, "interrupted")
        raise
    except SimulationError as exc:
        _save_partial(exc, args.out, "failed")
        raise
    _report(traj, args.out, args.plot, args.animate)
    return 0


def _save_partial(stop, out, what):
    """Write the partial trajectory of a failed or interrupted simulation to ``out`` and say so (on stderr)."""
    traj = getattr(stop, "trajectory", None)
    if not out or traj is None or len(traj) == 0:
        return
    traj.info[what] = True
    traj.save(out)
    print(f"multibody simulate: {what} at t = {stop.time:g} s; the partial trajectory ({len(traj)} samples, "
          f"t = {traj.t[0]:g} … {traj.t[-1]:g} s) is saved to {Path(out).resolve()}", file=sys.stderr)


def cmd_eom(args):
    from .io.files import read_model_file
    from .symbolic import equations_of_motion
    model = read_model_file(args.file).model
    speeds = "body" if model.nq != model.nv else "qdot"
    eom = equations_of_motion(model, method=args.method, speeds=speeds).simplified()
    if args.latex:
        print(eom.to_latex(simplify=False))  # simplified already
        return 0
    import sympy
    print(f"equations of motion of '{model.name}' ({args.method}): X u̇ = Y")
    for r in range(len(eom.u)):
        lhs = sum((eom.mass_matrix[r, s] * eom.udot[s] for s in range(len(eom.u))), sympy.Integer(0))
        print(f"  [{r}]  {sympy.sstr(lhs)} = {sympy.sstr(eom.forcing[r])}")
    return 0


def cmd_demo(args):
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    traj = _simulate_file(args.example, t_end=args.t_end, progress=None)
    stem = traj.model.name
    _report(traj, plot=out / f"{stem}.png", animate=out / f"{stem}.html")
    print(f"done in {time.monotonic() - start:.1f} s; open the .html file in a browser to watch the motion")
    return 0


def cmd_compile(args):
    """Compile every numba kernel into numba's cache (two processes at once: the batch kernel takes longest)."""
    import os
    import subprocess
    start = time.monotonic()
    print("multibody: compiling the dynamics kernels into numba's cache (a few minutes when cold)…", flush=True)
    workers = [subprocess.Popen([sys.executable, "-m", "multibody.dynamics._warmup", part]) for part in ("batch", "core")]
    status = max(worker.wait() for worker in workers)
    cache = os.environ.get("NUMBA_CACHE_DIR") or "next to the package's sources (__pycache__)"
    print(f"{'done' if status == 0 else 'failed'} in {time.monotonic() - start:.1f} s; cache: {cache}")
    return status


def build_parser():
    parser = argparse.ArgumentParser(prog="multibody", description="Dynamics of multibody systems: inspect, "
                                     "simulate and animate model files (YAML, URDF or MuJoCo MJCF).")
    parser.add_argument("--debug", action="store_true", help="show the full traceback on errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    info = commands.add_parser("info", help="bodies, joints, degrees of freedom, mass and the body tree")
    info.add_argument("file", nargs="?", help="model file (YAML, URDF or MJCF) or bundled example name")
    info.add_argument("--list", action="store_true", help="list the bundled examples")
    info.set_defaults(run=cmd_info)
    sim = commands.add_parser("simulate", help="simulate a model file; save, plot and animate the result")
    sim.add_argument("file", help="model file (YAML, URDF or MJCF) or bundled example name")
    sim.add_argument("--t-end", type=float, help="final time [s] (default: the file's, else 5)")
    sim.add_argument("--method", help="adaptive: DOP853 (default), RK45, RK23, Radau, BDF, LSODA; fixed-step "
                     "(with --dt): RK4, Euler, contact")
    sim.add_argument("--dt", type=float, help="step of the fixed-step methods [s]")
    sim.add_argument("--collisions", action="store_true",
                     help="event-driven impacts and resting contact between the model's contact shapes (for "
                          "contact by time stepping instead: --method contact --dt 0.001)")
    sim.add_argument("--rtol", type=float, help="relative tolerance")
    sim.add_argument("--atol", type=float, help="absolute tolerance")
    sim.add_argument("--samples", type=int, help="number of output samples")
    sim.add_argument("--out", help="write the trajectory (.npz)")
    sim.add_argument("--plot", help="write a plot (.png, .pdf, .svg)")
    sim.add_argument("--animate", help="write a 3D animation (.html)")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")
    sim.set_defaults(run=cmd_simulate)
    eom = commands.add_parser("eom", help="print the symbolic equations of motion X u̇ = Y")
    eom.add_argument("file", help="model file (YAML, URDF or MJCF) or bundled example name")
    eom.add_argument("--method", default="kane", choices=("kane", "lagrange", "gauss"))
    eom.add_argument("--latex", action="store_true", help="print LaTeX")
    eom.set_defaults(run=cmd_eom)
    demo = commands.add_parser("demo", help="simulate an example and write a plot and an animation")
    demo.add_argument("--example", default="double_pendulum", help="bundled example or model file")
    demo.add_argument("--out-dir", default="multibody-demo", help="output folder (default ./multibody-demo)")
    demo.add_argument("--t-end", type=float, default=None, help="final time [s]")
    demo.set_defaults(run=cmd_demo)
    warm = commands.add_parser("compile", help="compile the numeric kernels ahead (else on first use; cached)")
    warm.set_defaults(run=cmd_compile)
    return parser


def main(argv=None):
    """Entry point of the ``multibody`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except (ModelError, SimulationError, ValueError, OSError, ImportError) as exc:
        if args.debug:
            raise
        print(f"multibody {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("multibody: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
