"""Shared builders for the impact tests: random DH tables, a loop model and its tree equivalent."""
import numpy as np

import multibody as mb

from oracles import random_inertia


def random_dh_rows(rng, n, kinds=("revolute", "prismatic")):
    """n DH rows with random geometry, joint types drawn from ``kinds``, and valid random mass data."""
    rows = []
    for _ in range(n):
        mass = rng.uniform(0.5, 2.0)
        rows.append(dict(theta=rng.uniform(-np.pi, np.pi), d=rng.uniform(-0.5, 0.5), a=rng.uniform(-0.8, 0.8),
                         alpha=rng.uniform(-np.pi, np.pi), joint=str(rng.choice(kinds)),
                         mass=mass, com=rng.normal(scale=0.3, size=3), inertia=random_inertia(rng, mass)))
    return rows



def ball_on_arm(loop):
    """An arm on a revolute joint carrying a ball (e = 0.5) that hits the floor: the ball on a spherical joint at
    the arm's end (a tree), or on a free joint held there by a Connect constraint (a loop)."""
    model = mb.Model("ball on arm, loop" if loop else "ball on arm")
    model.add(mb.Body("arm", 1.0, com=(0.5, 0, 0), inertia=np.diag([0.01, 0.1, 0.1])), joint=mb.Revolute(axis=(0, 1, 0)))
    ball = mb.Body("ball", 0.5, inertia=0.002 * np.eye(3))
    if loop:
        model.add(ball, joint=mb.Free())
        model.add_constraint(mb.Connect("ball", (0, 0, 0), "arm", (1, 0, 0)))
    else:
        model.add(ball, parent="arm", joint=mb.Spherical(), placement=mb.Transform(translation=(1, 0, 0)))
    model.add_geometry("ball", mb.Sphere(0.1), restitution=0.5)
    model.add_geometry("world", mb.Plane(), placement=mb.Transform(translation=(0, 0, -0.8)))
    return model
