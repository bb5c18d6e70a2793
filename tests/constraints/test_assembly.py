"""Assembly of closed loops and the errors for states that cannot be made consistent."""
import numpy as np
import pytest

import multibody as mb
from mechanisms import four_bar
from multibody.constraints.assembly import constraint_drift
from multibody.simulate.simulate import run


def test_assemble_closes_the_loop_and_keeps_the_crank_speed_direction():
    model = four_bar()
    q, v = mb.assemble(model, np.array([1.0, -0.5, 1.8]), np.array([2.0, 0, 0]))
    phi, vel = constraint_drift(model, q, v)
    assert phi < 1e-12 and vel < 1e-10
    # the closest consistent v in the kinetic-energy metric: M (v − v_guess) lies in the range of Jᵀ
    assert v[0] > 0


def test_unreachable_loop_cannot_be_assembled():
    model = mb.Model.chain(2, axes="z", length=0.3)
    model.add_constraint(mb.Connect("link2", (0.3, 0, 0), "world", (2.0, 0, 0)))  # 0.6 m of links, 2 m away
    with pytest.raises(mb.ModelError, match="cannot be assembled.*Connect"):
        mb.assemble(model, np.array([0.1, 0.2]))


def test_inconsistent_velocity_constraints_are_rejected():
    model = mb.Model.chain(1)
    model.add_constraint(mb.Nonholonomic(lambda q: np.array([[1.0], [1.0]]), size=2,
                                         b=lambda q: np.array([1.0, 2.0]), name="contradiction"))
    with pytest.raises(mb.ModelError, match="inconsistent.*contradiction"):
        mb.assemble(model, np.zeros(1), np.zeros(1))


def test_simulation_rejects_inconsistent_initial_velocities():
    model = four_bar()
    q, _ = mb.assemble(model, np.array([1.0, -0.5, 1.8]))
    for options in (dict(method="RK4", dt=1e-2), dict(method="contact", dt=1e-2), dict(method="DOP853")):
        with pytest.raises(ValueError, match="inconsistent initial velocities.*Connect"):
            mb.simulate(model, q, np.array([1.0, 0, 0]), 0.1, **options)
    with pytest.raises(ValueError, match="inconsistent initial velocities.*Connect"):
        run(model, q, np.array([1.0, 0, 0]), 0.1, 1e-2)
    with pytest.raises(ValueError, match="scheme"):
        run(model, q, np.zeros(3), 0.1, 1e-2, scheme="euler")


def test_mobility_counts_independent_constraints():
    from multibody.constraints.assembly import mobility
    # planar four-bar in 3D: Connect gives 3 rows of rank 2, Align 2 more rows that are redundant (Grübler: 1 dof)
    for revolute_loop in (False, True):
        model = four_bar(revolute_loop)
        q, _ = mb.assemble(model, np.array([1.0, -0.5, 1.8]))
        m = mobility(model, q)
        assert (m["rows"], m["rank"], m["dof"], m["configuration_dof"]) == (3 + 2 * revolute_loop, 2, 1, 1)
    # a disk rolling on z = 0 (free joint, 6 speeds): 3 independent rows, one of them holonomic (the contact
    # height), so 3 independent speeds but 5 independent coordinates (x, y, yaw, lean, spin)
    disk = mb.Model("disk", gravity=(0, 0, -9.81))
    disk.add(mb.Body("disk", mass=1.0, inertia=np.diag([0.0625, 0.0625, 0.125])), joint=mb.Free())
    disk.add_constraint(mb.RollingDisk("disk", 0.5, axis=(0, 0, 1)))
    upright = np.array([0, 0, 0.5, *mb.rotation_to_quat(mb.rotation_about((1, 0, 0), np.pi / 2))])
    m = mobility(disk, upright)
    assert (m["speeds"], m["rank"], m["holonomic_rank"], m["dof"], m["configuration_dof"]) == (6, 3, 1, 3, 5)
