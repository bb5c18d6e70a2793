"""Constraint rows: J v = φ̇ and γ = d/dt (b − J v) along the motion, on random trees (finite-difference oracle);
bad input raises errors that name the culprit."""
import numpy as np
import pytest

import multibody as mb
from multibody.constraints._kinematics import Snapshot
from multibody.constraints.types import rotation_vector, stack
from oracles import random_model, random_state

H = 1e-6


def _rows(model, q, v):
    return stack(model, Snapshot(model, q, v))[0]


def _constraints(model):
    return [
        mb.Connect("b3", (0.1, 0.2, -0.1), "b1", (0.0, 0.3, 0.1)),
        mb.Connect("b2", (0.2, 0.0, 0.0)),
        mb.Weld("b3", "b2", relative=mb.Transform(mb.rotation_about((1, 2, 3), 0.4), (0.1, 0.0, 0.2))),
        mb.Align("b1", (0, 0, 1), "b3", (1, 1, 0)),
        mb.PointOnPlane("b3", (0.1, 0.1, 0.0), "b2", origin=(0.0, 0.1, 0.2), normal=(1, 1, 1)),
        mb.RollingDisk("b3", 0.3, axis=(0, 1, 0), center=(0.1, 0, 0)),
        mb.RollingSphere("b2", 0.2, center=(0.0, 0.1, 0.0)),
        mb.KnifeEdge("b1", (0.1, 0.0, 0.0), direction=(1, 0, 0)),
        mb.Holonomic(lambda q: np.array([np.sin(q[0]) * q[1] - q[2] ** 2, np.sum(q ** 2)]), size=2),
        mb.Nonholonomic(lambda q: np.vstack([np.cos(q[:model.nv]), np.ones(model.nv)]), size=2,
                        b=lambda q: np.array([q[0], q[1] ** 2])),
    ]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rows_match_finite_differences(seed):
    """φ̇ = J v on holonomic rows and γ = d/dt (b − J v) at constant v, for every constraint type."""
    rng = np.random.default_rng(seed)
    model = random_model(rng, 4, kinds=("revolute", "prismatic", "spherical", "free"), free_base=True)
    for c in _constraints(model):
        model.add_constraint(c)
    q, v, _ = random_state(rng, model)
    rows = _rows(model, q, v)
    plus, minus = (_rows(model, mb.integrate(model, q, v, s * H), v) for s in (1, -1))
    phi_dot = (plus.phi - minus.phi) / (2 * H)
    hol = rows.holonomic.copy()
    hol[6:9] = False  # Weld's rotation-vector φ has φ̇ = ω_a − ω_b only to first order in φ (checked below)
    np.testing.assert_allclose((rows.J @ v)[hol], phi_dot[hol], rtol=1e-6, atol=1e-6)
    rate = ((plus.b - plus.J @ v) - (minus.b - minus.J @ v)) / (2 * H)
    # built-in types are analytic; the user callables' γ (finite differences of finite differences) and this
    # oracle for them are good to ~1e-4
    np.testing.assert_allclose(rows.gamma[:22], rate[:22], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rows.gamma[22:], rate[22:], rtol=1e-3, atol=1e-3)


def test_weld_rotation_rate_at_assembly():
    """Where the weld holds (φ = 0), its rotation rows give φ̇ = J v exactly."""
    rng = np.random.default_rng(3)
    model = mb.Model("weld")
    model.add(mb.Body("a", mass=1.0, com=(0.1, 0, 0), inertia=np.diag([1, 2, 2.5])), joint=mb.Spherical(),
              placement=mb.Transform(translation=(0, 0, 1)))
    model.add(mb.Body("b", mass=2.0, com=(0, 0.1, 0), inertia=np.diag([1, 1.5, 2])), joint=mb.Free())
    model.add_constraint(mb.Weld("b", "a", relative=mb.Transform(mb.rotation_about((0, 1, 1), 0.7), (0.3, 0, 0))))
    q, v, _ = random_state(rng, model)
    q = mb.assemble(model, q)[0]
    rows = _rows(model, q, v)
    plus, minus = (_rows(model, mb.integrate(model, q, v, s * H), v) for s in (1, -1))
    np.testing.assert_allclose(rows.J @ v, (plus.phi - minus.phi) / (2 * H), rtol=1e-6, atol=1e-6)


def test_user_holonomic_matches_connect():
    """A Holonomic callable written as the Connect equations gives the same J and γ."""
    rng = np.random.default_rng(5)
    model = random_model(rng, 3, kinds=("revolute", "spherical"))
    q, v, _ = random_state(rng, model)
    connect = mb.Connect("b2", (0.1, 0.2, 0.3), "b0", (0.0, -0.1, 0.2))

    def phi(qq):
        Ra, pa = mb.body_pose(model, qq, "b2")
        Rb, pb = mb.body_pose(model, qq, "b0")
        return pa + Ra @ connect.point_a - pb - Rb @ connect.point_b

    exact = stack(model, Snapshot(model, q, v), [connect])[0]
    user = stack(model, Snapshot(model, q, v), [mb.Holonomic(phi, size=3)])[0]
    np.testing.assert_allclose(user.J, exact.J, atol=1e-8)
    np.testing.assert_allclose(user.gamma, exact.gamma, rtol=1e-5, atol=1e-5)


def test_rolling_disk_contact_point_is_lowest_rim_point():
    """φ of the normal row is the height of the rim's lowest point (dense sampling of the rim)."""
    model = mb.Model("disk")
    model.add(mb.Body("disk", mass=1.0, inertia=np.diag([1, 1, 2.0])), joint=mb.Free())
    q = np.array([0.2, -0.1, 0.5, *mb.rotation_to_quat(mb.rotation_about((1, 0.3, 0), 1.1))])
    disk = mb.RollingDisk("disk", 0.4, axis=(0, 0, 1))
    R, p = mb.body_pose(model, q, "disk")
    angles = np.linspace(0, 2 * np.pi, 200001)
    rim = p + 0.4 * (np.outer(np.cos(angles), R[:, 0]) + np.outer(np.sin(angles), R[:, 1]))
    phi = stack(model, Snapshot(model, q, np.zeros(6)), [disk])[0].phi
    assert phi[2] == pytest.approx(rim[:, 2].min(), abs=1e-9)


def test_rotation_vector_inverts_rodrigues():
    axis = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    for angle in (1e-9, 0.3, 3.0):
        np.testing.assert_allclose(rotation_vector(mb.rotation_about(axis, angle)), angle * axis, atol=1e-12)


def test_bad_constraints_name_the_culprit():
    model = mb.Model.chain(2)
    with pytest.raises(mb.ModelError, match="nolink"):
        model.add_constraint(mb.Connect("nolink", (0, 0, 0)))
    with pytest.raises(mb.ModelError, match="add_constraint"):
        model.add_constraint("link1")
    with pytest.raises(mb.ModelError, match="Align axis_a"):
        mb.Align("link1", (0, 0, 0))
    with pytest.raises(mb.ModelError, match="RollingDisk radius"):
        mb.RollingDisk("link1", -1.0)
    bad = mb.Holonomic(lambda q: np.array([np.nan]), size=1, name="broken")
    model.add_constraint(bad)
    with pytest.raises(mb.ModelError, match="broken"):
        mb.forward_dynamics(model, model.neutral(), np.zeros(2))


def test_flat_disk_is_rejected():
    model = mb.Model("disk")
    model.add(mb.Body("disk", mass=1.0, inertia=np.diag([1, 1, 2.0])), joint=mb.Free())
    model.add_constraint(mb.RollingDisk("disk", 0.4, axis=(0, 0, 1)))
    with pytest.raises(mb.ModelError, match="flat"):
        mb.forward_dynamics(model, model.neutral(), np.zeros(6))
