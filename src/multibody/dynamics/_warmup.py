"""Compile (or load from numba's cache) every kernel of the numeric core once:
``python -m multibody.dynamics._warmup [core] [batch]`` (both parts by default).

CI runs it before the test workers start, so that they share one compilation instead of each doing it; it runs
the two parts in two processes at once, the structure-of-arrays batch kernel (``batch``, minutes to compile) beside
everything else (``core``).
"""
import sys

import numpy as np


def main(parts=("core", "batch")):
    import multibody as mb
    model = mb.Model("warmup", gravity=(0.0, 0.0, -9.81))
    inertia = np.diag([0.1, 0.2, 0.25])
    joints = [mb.Free(), mb.Revolute(), mb.Prismatic(), mb.Spherical(), mb.Planar(), mb.Cylindrical(), mb.Fixed()]
    parent = "world"
    for k, joint in enumerate(joints):
        model.add(mb.Body(f"b{k}", mass=1.0, com=(0.1, 0.0, 0.0), inertia=inertia), parent=parent, joint=joint)
        parent = f"b{k}"
    q, v = model.neutral(), np.ones(model.nv)
    f_ext = np.ones((model.nbodies, 6))
    if "batch" in parts:
        for forces in (None, f_ext):
            mb.aba(model, [q] * 16, v, v, f_ext=forces)  # the structure-of-arrays kernel (16+ states)
        from multibody.simulate.compiled import integrate_tree_batch
        chain = mb.Model.chain(2)  # revolute joints: the lockstep rollouts (structure of arrays too)
        integrate_tree_batch(chain, np.zeros((2, 2)), np.zeros(2), [0.0, 1e-3], method="RK4", dt=1e-3)
    if "core" not in parts:
        return
    for forces in (None, f_ext):
        tau = mb.rnea(model, q, v, v, f_ext=forces)
        mb.aba(model, q, v, tau, f_ext=forces)
        mb.rnea(model, [q, q], v, v, f_ext=forces)
        mb.aba(model, [q, q], v, [tau, tau], f_ext=forces)
    mb.crba(model, q)
    mb.crba(model, [q, q])
    mb.energy(model, q, v)
    mb.energy(model, [q, q], v)
    mb.jacobian(model, q, "b6", (0.1, 0.2, 0.3))
    mb.momentum(model, q, v)
    mb.integrate(model, q, v, 0.1)
    mb.configuration_rate(model, q, v)
    mb.body_poses(model, q)
    from multibody.simulate.compiled import integrate_tree_batch, tree_run_trajectory
    # the compiled integration loops, and DOP853's helper thread (on more than one of numba's threads)
    tree_run_trajectory(model, q, 0.0 * v, [0.0, 1e-3], method="DOP853")
    integrate_tree_batch(model, [q, q], 0.0 * v, [0.0, 1e-3], dt=1e-3)


if __name__ == "__main__":
    main(sys.argv[1:] or ("core", "batch"))
