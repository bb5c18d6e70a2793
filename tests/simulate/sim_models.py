"""Small models shared by the simulation tests: analytic pendulums, the benchmark chain, a random floating tree."""
import numpy as np
import multibody as mb
from multibody.model.joints import REVOLUTE

from oracles import random_model

G = 9.81


def point_pendulum(length=1.0, mass=1.0, links=1):
    """A chain of point masses (tiny inertia) on massless rods of ``length``, hinged about y, hanging along −z."""
    model = mb.Model(f"point_pendulum{links}", gravity=(0, 0, -G))
    parent = "world"
    for k in range(links):
        model.add(mb.Body(f"bob{k}", mass=mass, com=(0, 0, -length), inertia=np.eye(3) * 1e-12),
                  parent=parent, joint=mb.Revolute((0, 1, 0)),
                  placement=mb.Transform(translation=(0, 0, 0 if k == 0 else -length)))
        parent = f"bob{k}"
    return model


def hanging_chain(n=7, swing=0.1):
    """The N-link 3D chain (benchmark model) and a state of small swings about its hanging equilibrium."""
    model = mb.Model.chain(n)
    q0 = np.full(n, swing)
    q0[1] += np.pi / 2  # links 2 … n hang down
    return model, q0, np.zeros(n)


def floating_tree(damping=0.1, friction=0.5):
    rng = np.random.default_rng(5)
    model = random_model(rng, 6, free_base=True)  # free, spherical, fixed, revolute, planar, spherical joints
    revolute = next(j.name for j in model.joints if j.code == REVOLUTE)
    model.add_force(mb.JointSpring(revolute, stiffness=3.0, rest=0.2, damping=damping))
    if friction:
        model.add_force(mb.JointFriction(revolute, friction=friction, velocity_scale=0.1))
    q0 = mb.normalize(model, model.random_configuration(1))
    return model, q0, rng.normal(size=model.nv)
