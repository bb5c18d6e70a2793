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
import warnings
from pathlib import Path

import numpy as np

from .errors import ModelError, SimulationError, SimulationInterrupted, checked_number, printable


def _tree(model):
    """Lines drawing the body tree, e.g. "└─ link2  [revolute 'elbow', 1 dof, 1.0 kg]"."""
    children = {}
    for i, parent in enumerate(model.parents):
        children.setdefault(parent, []).append(i)
    lines = ["world"]
    stack = [(i, "", k == len(children.get(-1, [])) - 1) for k, i in enumerate(children.get(-1, []))][::-1]
    while stack:  # depth first, without recursion: a chain may have thousands of bodies
        i, prefix, last = stack.pop()
        joint, body = model.joints[i], model.bodies[i]
        lines.append(f"{prefix}{'└─ ' if last else '├─ '}{printable(body.name)}  "
                     f"[{type(joint).__name__.lower()} '{printable(joint.name)}', {joint.nv} dof, {body.mass:g} kg"
                     f"{f', flexible: {body.ne} elastic coordinates' if body.ne else ''}]")
        kids = children.get(i, [])
        inner = prefix + ("   " if last else "│  ")
        stack.extend((j, inner, k == len(kids) - 1) for k, j in reversed(list(enumerate(kids))))
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
                   collisions=False, floating_base=False, floor=None, compiled=True):
    """Read and simulate a model file with the command line's settings over the file's own. ``floor``: None (no
    floor), "below" (a plane FLOOR_DROP under the lowest contact shape at the initial state) or a height [m];
    ``compiled=False``: the Python loop (for the demo: its few kernels compile in seconds)."""
    from .io.files import read_model_file
    from .simulate import simulate
    from .simulate.simulate import FIXED_STEP
    contact = collisions or method == "contact"
    if floor is not None and not contact:
        raise ModelError("--floor needs contact: add --method contact --dt 0.002 (time stepping) or "
                         "--collisions (event-driven impacts)")
    setup = read_model_file(path, floating_base=floating_base, collisions=contact)
    model, q0 = setup.model, setup.q0
    settings = dict(setup.simulation)
    for key, value in (("t_end", t_end), ("method", method), ("rtol", rtol), ("atol", atol), ("samples", samples),
                       ("dt", dt)):
        if value is not None:
            settings[key] = value
    settings.setdefault("t_end", 5.0)
    chosen = settings.get("method", "DOP853")
    if chosen in FIXED_STEP and settings.get("dt") is None:
        raise ModelError(f"method {chosen!r} takes fixed steps: give the step with --dt SECONDS "
                         "(e.g. --dt 0.001)")
    if chosen not in FIXED_STEP and dt is not None:
        raise ModelError(f"--dt is the step of the fixed-step methods (--method {', '.join(FIXED_STEP)}); "
                         f"{chosen!r} chooses its own steps")
    if floor is not None:
        _add_floor(model, q0, floor)
    if collisions or chosen == "contact":
        _check_contact_shapes(model, setup.source, collisions)
    if collisions:
        settings["collisions"] = True
    if not compiled:
        settings["compiled"] = False
    return simulate(model, q0, setup.v0, progress=progress, **settings)


FLOOR_DROP = 0.05  # [m] the automatic floor's distance below the lowest contact shape at the initial state


def _add_floor(model, q0, floor):
    """Add the floor: the plane z = height of the world (normal +z), at the given height or FLOOR_DROP below the
    lowest contact shape of the bodies at q0 (the model then falls onto it), and say where."""
    from .constraints.geometry import Plane, lowest_height
    from .dynamics.kinematics import body_poses
    from .spatial import Transform
    if floor == "below":
        R, p = body_poses(model, q0)
        lows = [lowest_height(g.shape, R[i] @ g.placement.rotation, p[i] + R[i] @ g.placement.translation)
                for g in model.geometries if g.body != "world" for i in (model.body_index(g.body),)]
        if not lows:
            raise ModelError(f"--floor: model '{model.name}' has no contact shapes on its bodies to put "
                             "on a floor (URDF <collision> spheres, boxes, cylinders; MJCF geoms; YAML geometries)")
        height = min(lows) - FLOOR_DROP
        print(f"floor: the plane z = {height:.6g} m, {FLOOR_DROP * 100:g} cm below the lowest contact shape",
              file=sys.stderr)
    else:
        height = checked_number(floor, "--floor HEIGHT [m]")
    model.add_geometry("world", Plane(), placement=Transform(translation=(0.0, 0.0, height)), name="floor")


def _check_contact_shapes(model, source, collisions):
    """A contact simulation of a model without contact shapes on its bodies: an error for --collisions (which
    needs them), a warning for --method contact (which then runs as plain time stepping)."""
    if any(g.body != "world" for g in model.geometries):
        return
    what = ("has no contact shapes on its bodies (URDF <collision> spheres, boxes and cylinders; MJCF geoms; "
            "YAML geometries)")
    if collisions:
        raise ModelError(f"--collisions: {printable(str(source))} {what}")
    warnings.warn(f"simulate: --method contact: {printable(str(source))} {what}: nothing can touch", stacklevel=2)


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
                              False if args.no_progress else None, args.dt, args.collisions, args.floating_base,
                              args.floor)
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


EOM_MAX_BODIES = 6  # bodies whose expanded, simplified equations `multibody eom` prints (beyond: minutes, pages)


def cmd_eom(args):
    from .io.files import read_model_file
    from .symbolic import equations_of_motion
    model = read_model_file(args.file).model
    if model.nbodies > EOM_MAX_BODIES:
        raise ModelError(f"model '{model.name}' has {model.nbodies} bodies; printed equations of motion are "
                         f"for up to {EOM_MAX_BODIES} (larger ones in Python, written in auxiliary symbols: "
                         "multibody.symbolic.equations_of_motion(model))")
    speeds = "body" if model.nq != model.nv else "qdot"
    eom = equations_of_motion(model, method=args.method, speeds=speeds, intermediates=False).simplified()
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
    # the Python integration loop: with a cold numba cache its kernels compile in seconds, the compiled loop's in
    # minutes (`multibody compile`), and the double pendulum's 10 s run takes well under a second either way
    traj = _simulate_file(args.example, t_end=args.t_end, progress=None, compiled=False)
    stem = traj.model.name
    _report(traj, plot=out / f"{stem}.png", animate=out / f"{stem}.html")
    print(f"done in {time.monotonic() - start:.1f} s; open the .html file in a browser to watch the motion")
    return 0


# the parts of the warm-up (``python -m multibody._warmup``) that ``multibody compile`` runs in two processes of about
# the same CPU time, each compiling first what needs nothing of the other (the ABA; the derivatives of one state, whose
# first kernel calls no other), then what does (the loop, the quantities, the derivatives and contact call the ABA; the
# derivatives of batches the lanes' ABA, which whichever process comes to it first compiles); its part "calls" runs
# after
WORKERS = (("kernels", "loop", "batch", "quantities", "symbolic", "runs"), ("derivatives", "contact"))


def cmd_compile(args):
    """Compile every numba kernel into numba's cache: the warm-up's parts in two processes at once (the one-state
    kernels, the compiled loop, the batch kernels, a few states at once, to_numeric's solves and a batch with a model
    per run; the derivatives and contact), then the README's calls, a URDF simulate and the demo (which load
    those and compile what is left). One notice, a line as each process is done; the worker processes are
    silent."""
    import os
    import subprocess

    start = time.monotonic()
    print("multibody: compiling the dynamics kernels into numba's cache (about three minutes on two idle cores "
          "when cold)…", flush=True)
    env = {**os.environ, "MULTIBODY_COMPILE_NOTICE": "0"}
    groups = WORKERS if (os.cpu_count() or 1) > 1 else (tuple(part for parts in WORKERS for part in parts),)
    status = 0
    for stage in (groups, (("calls",),)):
        workers = {subprocess.Popen([sys.executable, "-m", "multibody._warmup", *parts], env=env): parts
                   for parts in stage}
        while workers:
            done = next((worker for worker in workers if worker.poll() is not None), None)
            if done is None:
                time.sleep(0.2)
                continue
            status = status or int(done.returncode != 0)  # (a worker killed by a signal returns < 0)
            print(f"  {', '.join(workers.pop(done))}: {'ready' if done.returncode == 0 else 'failed'} "
                  f"({time.monotonic() - start:.0f} s)", flush=True)
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
                     help="event-driven impacts and resting contact between the model's contact shapes (a URDF "
                          "file's <collision> primitives are read; for contact by time stepping instead: --method "
                          "contact --dt 0.001)")
    sim.add_argument("--floating-base", action="store_true",
                     help="URDF: a free joint under the root link (a legged or flying robot) instead of a fixed base")
    sim.add_argument("--floor", nargs="?", const="below", metavar="HEIGHT",
                     help="a floor, the plane z = HEIGHT [m] (normal +z); without HEIGHT 5 cm below the lowest "
                          "contact shape at the start, so the model drops onto it. Needs --method contact or "
                          "--collisions")
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
    warm = commands.add_parser("compile", help="compile the numeric kernels ahead (else on first use; cached)",
                               description="Compile every numba kernel that the commands and the documented calls "
                               "use into numba's on-disk cache (NUMBA_CACHE_DIR if set, else __pycache__ beside the "
                               "sources), so that nothing compiles on first use. Takes a few minutes on a cold "
                               "cache, seconds when it is filled.")
    warm.set_defaults(run=cmd_compile)
    for action in commands._choices_actions:  # each command's --help starts with what it does
        command = commands.choices[action.dest]
        command.description = command.description or action.help[0].upper() + action.help[1:] + "."
    return parser


def main(argv=None):
    """Entry point of the ``multibody`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        with warnings.catch_warnings():  # warnings as one line each, "multibody simulate: warning: ..."
            warnings.formatwarning = lambda message, *_, **__: f"multibody {args.command}: warning: {message}\n"
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
