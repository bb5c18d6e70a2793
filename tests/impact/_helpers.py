"""Shared builders for the impact tests: random DH tables."""
import numpy as np

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

