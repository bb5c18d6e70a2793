"""Compile (or load from numba's cache) every kernel that the commands and the documented calls use:
``python -m multibody._warmup [part ...]`` (all parts, in the order of PARTS, by default).

Parts: ``kernels`` (the one-state rnea, aba and crba, the articulated-body algorithm first: most other kernels
call it), ``loop`` (the compiled integration loop and DOP853's helper thread), ``batch`` (the structure-of-arrays
batch kernels and the lockstep rollouts), ``runs`` (the lockstep rollouts of a batch with a model per run),
``derivatives`` (the README's analytic derivatives, of one state and of batches), ``quantities`` (a few states
at once, energies, a Jacobian, the momentum, ...), ``contact`` (the time stepper and the event-driven impacts),
``symbolic`` (``to_numeric``'s linear solves), ``core`` (``kernels``, ``quantities`` and ``loop``), and ``calls``:
the README's calls, ``multibody simulate`` of a URDF and ``multibody demo``, which then load what the parts before
compiled and compile only what they left.

``multibody compile`` runs the parts of each entry of :data:`multibody.cli.WORKERS` in one process, the two at once
(numba's cache on disk is shared: a kernel that one process saved, the other loads; each kernel has its own index
and data files, written whole and renamed into place), then ``calls``. Each process first compiles what needs
nothing of the other's (the ABA; the derivatives of one state), so that no kernel compiles twice.
"""
import io
import os
import sys
import tempfile
import warnings
from contextlib import contextmanager, redirect_stderr, redirect_stdout

import numpy as np

from multibody import cli
from multibody.cli import WORKERS

PARTS = ("kernels", "loop", "batch", "runs", "derivatives", "quantities", "contact", "symbolic", "calls")


def _model():
    """A chain through every joint type."""
    import multibody as mb
    model = mb.Model("warmup", gravity=(0.0, 0.0, -9.81))
    inertia = np.diag([0.1, 0.2, 0.25])
    joints = [mb.Free(), mb.Revolute(), mb.Prismatic(), mb.Spherical(), mb.Planar(), mb.Cylindrical(), mb.Fixed()]
    parent = "world"
    for k, joint in enumerate(joints):
        model.add(mb.Body(f"b{k}", mass=1.0, com=(0.1, 0.0, 0.0), inertia=inertia), parent=parent, joint=joint)
        parent = f"b{k}"
    return model


@contextmanager
def _quiet():
    """What a part prints (the CLI's reports, to_numeric's notice) and warns is not for the warm-up's user."""
    with warnings.catch_warnings(), redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def batch():
    import multibody as mb
    from multibody.simulate.compiled import integrate_tree_batch
    model = _model()
    q, v = model.neutral(), np.ones(model.nv)
    for forces in (None, np.ones((model.nbodies, 6))):
        mb.aba(model, [q] * 16, v, v, f_ext=forces)  # the structure-of-arrays kernel (16+ states)
    chain = mb.Model.chain(2)  # revolute joints: the lockstep rollouts (structure of arrays too)
    integrate_tree_batch(chain, np.zeros((2, 2)), np.zeros(2), [0.0, 1e-3], method="RK4", dt=1e-3)


def runs():
    """A batch of runs with a model each (``mb.simulate(models, ...)``): the lockstep rollouts on each run's params
    (the batch kernels again, for params of one more axis)."""
    import multibody as mb
    from multibody.simulate.compiled import integrate_tree_batch
    chain = mb.Model.chain(2)
    integrate_tree_batch([chain, chain], np.zeros((2, 2)), np.zeros(2), [0.0, 1e-3], method="RK4", dt=1e-3)


def loop():
    from multibody.simulate.compiled import integrate_tree_batch, tree_run_trajectory
    model = _model()
    q, v = model.neutral(), np.zeros(model.nv)
    # the compiled integration loop (every method: one kernel), and DOP853's helper thread (on more than one of
    # numba's threads)
    tree_run_trajectory(model, q, v, [0.0, 1e-3], method="DOP853")
    integrate_tree_batch(model, [q, q], v, [0.0, 1e-3], dt=1e-3)


def kernels():
    """The one-state rnea, aba and crba (the ABA first: the loop and the derivatives call it)."""
    import multibody as mb
    model = _model()
    q, v = model.neutral(), np.ones(model.nv)
    f_ext = np.ones((model.nbodies, 6))
    mb.aba(model, q, v, v, f_ext=f_ext)
    for forces in (None, f_ext):
        tau = mb.rnea(model, q, v, v, f_ext=forces)
        mb.aba(model, q, v, tau, f_ext=forces)
    mb.crba(model, q)


def quantities():
    """A few states at once (the loop over states, in parallel threads), the energies, a Jacobian, the momentum,
    q ⊕ v dt, q̇ and the body poses."""
    import multibody as mb
    model = _model()
    q, v = model.neutral(), np.ones(model.nv)
    for forces in (None, np.ones((model.nbodies, 6))):
        tau = mb.rnea(model, [q, q], v, v, f_ext=forces)
        mb.aba(model, [q, q], v, tau, f_ext=forces)
    mb.crba(model, [q, q])
    mb.energy(model, q, v)
    mb.energy(model, [q, q], v)
    mb.jacobian(model, q, "b6", (0.1, 0.2, 0.3))
    mb.momentum(model, q, v)
    mb.integrate(model, q, v, 0.1)
    mb.configuration_rate(model, q, v)
    mb.body_poses(model, q)


def calls():
    """The README's calls, ``multibody simulate`` of a URDF and ``multibody demo``, in a scratch folder."""
    import multibody as mb
    from multibody.io.files import example_path
    with tempfile.TemporaryDirectory() as folder, _quiet():
        model = mb.Model("arm", gravity=(0, 0, -9.81))
        rod = np.diag([1e-4, 0.0075, 0.0075])
        model.add(mb.Body("upper", mass=1.0, com=(0.15, 0, 0), inertia=rod), joint=mb.Revolute((0, 1, 0)))
        model.add(mb.Body("lower", mass=1.0, com=(0.15, 0, 0), inertia=rod), parent="upper",
                  joint=mb.Revolute((0, 1, 0)), placement=mb.Transform(translation=(0.3, 0, 0)))
        q, v = np.array([0.3, -0.2]), np.zeros(2)
        mb.crba(model, q), mb.rnea(model, q, v, np.zeros(2)), mb.aba(model, q, v, np.zeros(2))
        mb.aba(model, [q] * 20, v, np.zeros(2))
        mb.jacobian(model, q, "lower", point=(0.3, 0, 0))
        mb.aba_derivatives(model, q, v, np.zeros(2))
        traj = mb.simulate(model, q, v, t_end=0.01, rtol=1e-10, atol=1e-10)
        traj.energy()
        traj.animate(os.path.join(folder, "arm.html"))
        # what users run first, as they run it: a URDF to its first joint stop and on (the compiled loop, then the
        # Python loop), and the demo (the double pendulum in the Python loop, reported and animated)
        cli.main(["simulate", str(example_path("humanoid")), "--t-end", "1", "--no-progress",
                  "--out", os.path.join(folder, "humanoid.npz")])
        cli.main(["demo", "--t-end", "1", "--out-dir", os.path.join(folder, "demo")])


def derivatives():
    """The README's ∂q̈/∂(q, v) (rnea_derivatives, which needs no other kernel, first), then batches of states:
    a few (state by state) and MIN_BATCH or more (chunks of states as lanes), as full (B, nq) and (B, nv) arrays."""
    import multibody as mb
    from multibody.dynamics._lanes import MIN_BATCH
    model = mb.Model.chain(2)
    q, v = np.array([0.3, -0.2]), np.zeros(2)
    mb.rnea_derivatives(model, q, v, np.zeros(2))
    mb.aba_derivatives(model, q, v, np.zeros(2))
    for count in (2, MIN_BATCH):
        qs, vs = np.tile(q, (count, 1)), np.zeros((count, 2))
        mb.rnea_derivatives(model, qs, vs, vs.copy())
        mb.aba_derivatives(model, qs, vs, vs.copy())


def contact():
    """The time stepper, compiled (its whole loop) and in the Python loop (the step of models with equality
    constraints or Python callables), and the event-driven impacts of shapes on a floor (--method contact,
    --collisions)."""
    import multibody as mb
    box = mb.Model("box")
    box.add(mb.Body("box", mass=1.0, inertia=np.eye(3) * 4e-3), joint=mb.Free())
    box.add_geometry("box", mb.Box([0.1, 0.1, 0.1]))
    box.add_geometry("box", mb.Sphere(0.12))
    box.add_geometry("world", mb.Plane())
    q0 = box.neutral()
    q0[2] = 0.11
    with _quiet():
        mb.simulate(box, q0, np.zeros(6), 0.02, method="contact", dt=2e-3)
        mb.simulate(box, q0, np.zeros(6), 0.02, method="contact", dt=2e-3, compiled=False)
        mb.simulate(box, q0, np.zeros(6), 0.02, collisions=True)


def symbolic():
    """The linear solves of to_numeric's state derivative (cached): X u̇ = Y expanded, and over auxiliary symbols."""
    import multibody as mb
    from multibody import symbolic as sym
    with _quiet():
        for chain in (mb.Model.chain(2), mb.Model.chain(7)):
            sym.equations_of_motion(chain).to_numeric().rhs(0.0, np.zeros(2 * chain.nv))


def main(parts=PARTS):
    unknown = sorted(set(parts) - {*PARTS, "core"})
    if unknown:
        raise SystemExit(f"_warmup: unknown part(s) {', '.join(unknown)}; choose from {', '.join((*PARTS, 'core'))}")
    for part in PARTS:
        if part in parts or (part in ("kernels", "quantities", "loop") and "core" in parts):
            globals()[part]()


if __name__ == "__main__":
    main(sys.argv[1:] or PARTS)
