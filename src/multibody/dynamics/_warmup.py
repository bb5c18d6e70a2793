"""Compile (or load from numba's cache) every kernel of the numeric core once: ``python -m multibody.dynamics._warmup``.

CI runs it before the test workers start, so that they share one compilation instead of each doing it.
"""
import numpy as np


def main():
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
    for forces in (None, f_ext):
        tau = mb.rnea(model, q, v, v, f_ext=forces)
        mb.aba(model, q, v, tau, f_ext=forces)
        mb.rnea(model, [q, q], v, v, f_ext=forces)
        mb.aba(model, [q, q], v, [tau, tau], f_ext=forces)
        mb.aba(model, [q] * 16, v, tau, f_ext=forces)  # the structure-of-arrays kernel (16+ states)
    mb.crba(model, q)
    mb.crba(model, [q, q])
    mb.energy(model, q, v)
    mb.energy(model, [q, q], v)
    mb.jacobian(model, q, "b6", (0.1, 0.2, 0.3))
    mb.momentum(model, q, v)
    mb.integrate(model, q, v, 0.1)
    mb.configuration_rate(model, q, v)
    mb.body_poses(model, q)


if __name__ == "__main__":
    main()
