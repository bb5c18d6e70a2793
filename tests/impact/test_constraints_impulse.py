"""Impulsive constraints by Gauss's principle: locked joint, fixed point (Pinocchio oracle), contacts with
restitution and friction, simultaneous vs sequential impacts, energy, bad input."""
import numpy as np
import pytest

import multibody as mb
from multibody.impact import Contact, FixPoint, LockJoint, resolve_impact
from oracles import PinocchioTwin, random_model, random_state


def sliders(n, gravity=(0, 0, 0)):
    """n unit point masses on a line (prismatic joints along x), ball k at x = k at q = 0."""
    model = mb.Model("sliders", gravity=gravity)
    for k in range(n):
        model.add(mb.Body(f"ball{k}", mass=1.0, inertia=np.eye(3) * 1e-3), joint=mb.Prismatic((1, 0, 0)),
                  placement=mb.Transform(translation=(float(k), 0, 0)))
    return model


def chain_contacts(n, e):
    return [Contact(f"ball{k + 1}", (0, 0, 0), (1, 0, 0), f"ball{k}", (0, 0, 0), restitution=e) for k in range(n - 1)]


def test_fix_point_matches_pinocchio_impulse_dynamics():
    import pinocchio as pin
    rng = np.random.default_rng(4)
    model = random_model(rng, 6, kinds=("revolute", "prismatic"))
    twin = PinocchioTwin(model)
    q, v, _ = random_state(rng, model)
    point = rng.normal(size=3)
    J = twin.jacobian(q, 5, point)[3:]
    for e in (0.0, 0.6):
        out = resolve_impact(model, q, v, [FixPoint("b5", point, restitution=e)])
        expected = twin.v_back(pin.impulseDynamics(twin.pm, twin.data, twin.q(q), twin.v(v), J[:, twin.v_perm], e, 0.0))
        np.testing.assert_allclose(out.v, expected, atol=1e-10)
        np.testing.assert_allclose(J @ out.v, -e * J @ v, atol=1e-10)
        assert out.kinetic_energy_change < 0


def test_locking_the_elbow_conserves_angular_momentum_about_the_shoulder():
    model = mb.Model.chain(2, axes="zz", gravity=(0, 0, 0))
    q, v = np.array([0.3, 0.7]), np.array([1.0, -2.0])
    out = resolve_impact(model, q, v, [LockJoint("link2")])
    assert out.v[1] == pytest.approx(0.0, abs=1e-14)
    # the locked pair turns as one body: ω = L_O / I_O with I_O = M₁₁ at this q
    L = mb.momentum(model, q, v)[0][2]
    assert out.v[0] == pytest.approx(L / mb.crba(model, q)[0, 0], rel=1e-12)
    assert out.impulses[0][0] == pytest.approx(-mb.crba(model, q)[1] @ v + mb.crba(model, q)[1] @ out.v, rel=1e-12)


def test_single_frictionless_contact_newton_equals_poisson():
    rng = np.random.default_rng(5)
    model = random_model(rng, 5, kinds=("revolute", "prismatic"))
    q, v, _ = random_state(rng, model)
    n = rng.normal(size=3)
    approach = (mb.jacobian(model, q, "b4", (0.1, 0, 0))[3:] @ v) @ n / np.linalg.norm(n)
    contact = Contact("b4", (0.1, 0, 0), -np.sign(approach) * n, restitution=0.7)
    newton = resolve_impact(model, q, v, [contact], law="newton")
    poisson = resolve_impact(model, q, v, [contact], law="poisson")
    np.testing.assert_allclose(newton.v, poisson.v, atol=1e-11)
    u = lambda vel: mb.jacobian(model, q, "b4", (0.1, 0, 0))[3:] @ vel @ (-np.sign(approach) * n / np.linalg.norm(n))
    assert u(newton.v) == pytest.approx(-0.7 * u(v), rel=1e-10)


def test_simultaneous_contacts_spread_the_impulse_sequential_ones_propagate_it():
    model = sliders(3)
    v = np.array([1.0, 0.0, 0.0])
    simultaneous = resolve_impact(model, model.neutral(), v, chain_contacts(3, 1.0), method="simultaneous")
    # both contacts at once with Newton's law (u⁺ = −e u⁻ on each): v = (−1/3, 2/3, 2/3), energy conserved
    np.testing.assert_allclose(simultaneous.v, [-1 / 3, 2 / 3, 2 / 3], atol=1e-12)
    sequential = resolve_impact(model, model.neutral(), v, chain_contacts(3, 1.0), method="sequential")
    np.testing.assert_allclose(sequential.v, [0.0, 0.0, 1.0], atol=1e-12)
    for out in (simultaneous, sequential):
        assert out.v.sum() == pytest.approx(1.0, abs=1e-12)
        assert out.kinetic_energy_change == pytest.approx(0.0, abs=1e-12)


def test_poisson_with_several_contacts_conserves_momentum_and_never_pulls():
    model = sliders(4)
    v = np.array([2.0, 0.5, 0.0, 0.0])
    out = resolve_impact(model, model.neutral(), v, chain_contacts(4, 0.5), law="poisson")
    assert out.v.sum() == pytest.approx(v.sum(), abs=1e-12)
    assert np.all(np.diff(out.v) >= -1e-12)  # nobody approaches afterwards
    assert all(lam[0] >= 0 for lam in out.impulses)
    assert out.kinetic_energy_change <= 1e-12


def ground_hits(rng, count):
    """A random rigid body (free joint) touching the ground z = 0 at ``count`` points of its underside, moving
    and spinning so that at least one point approaches; returns (model, q, v, contacts)."""
    model = mb.Model("block", gravity=(0, 0, -9.81))
    R = mb.quat_to_rotation(rng.normal(size=4))
    model.add(mb.Body("block", mass=rng.uniform(0.5, 2), com=rng.normal(size=3) * 0.1,
                      inertia=R @ np.diag(rng.uniform(0.2, 0.3, 3)) @ R.T), joint=mb.Free())
    q = mb.normalize(model, np.r_[rng.normal(size=3) * 0.1 + (0, 0, 0.5), rng.normal(size=4)])
    Rb, p = mb.body_pose(model, q, "block")
    touching = np.c_[rng.uniform(-0.5, 0.5, (count, 2)), np.zeros(count)]
    points = (touching - p) @ Rb  # body coordinates of the ground points
    v = rng.normal(size=6)
    v[5] -= 3.0  # mostly downwards (body z roughly anywhere: push the origin down in world)
    v[3:] = Rb.T @ np.r_[rng.normal(size=2), -3.0]
    contacts = [Contact("block", r, (0, 0, 1), restitution=rng.uniform(0, 1), friction=rng.uniform(0, 1.2))
                for r in points]
    return model, q, v, contacts


@pytest.mark.parametrize("law", ["newton", "poisson"])
@pytest.mark.parametrize("method", ["simultaneous", "sequential"])
def test_frictional_impacts_gain_no_energy_and_respect_the_cone(law, method):
    rng = np.random.default_rng(11)
    for trial in range(8):
        model, q, v, contacts = ground_hits(rng, 1 + trial % 4)
        out = resolve_impact(model, q, v, contacts, law=law, method=method)
        assert out.kinetic_energy_change <= 1e-10 * (1 + out.kinetic_energy_before), trial
        for c, lam in zip(contacts, out.impulses):
            assert lam[0] >= -1e-12 and np.hypot(*lam[1:]) <= c.friction * lam[0] + 1e-10
            u_plus = mb.point_velocity(model, q, out.v, "block", c.point)[2]
            assert u_plus >= -1e-9, (trial, u_plus)  # no point goes on into the ground


def test_external_impulse_and_constraint_together():
    # a slider pinned by a contact wall at its front: a push into the wall is absorbed (plastic), none passes
    model = sliders(1)
    out = resolve_impact(model, [0.0], [0.0], [Contact("ball0", (0, 0, 0), (-1, 0, 0))],
                         impulses=[("ball0", (0, 0, 0), (3.0, 0, 0))])
    assert out.v[0] == pytest.approx(0.0, abs=1e-14)
    assert out.impulses[0][0] == pytest.approx(3.0, rel=1e-12)


def test_bad_input_is_named():
    model = sliders(2)
    q, v = model.neutral(), np.array([1.0, 0.0])
    with pytest.raises(mb.ModelError, match=r"restitution must be in \[0, 1\].*1.5"):
        resolve_impact(model, q, v, chain_contacts(2, 1.5))
    with pytest.raises(mb.ModelError, match=r"restitution must be in \[0, 1\]"):
        resolve_impact(model, q, v, [LockJoint("ball0", restitution=-0.1)])
    with pytest.raises(mb.ModelError, match="friction"):
        resolve_impact(model, q, v, [Contact("ball1", (0, 0, 0), (1, 0, 0), "ball0", friction=np.nan)])
    with pytest.raises(mb.ModelError, match="unknown body or frame 'ghost'"):
        resolve_impact(model, q, v, [FixPoint("ghost")])
    with pytest.raises(mb.ModelError, match="normal"):
        resolve_impact(model, q, v, [Contact("ball1", (0, 0, 0), (0, 0, 0))])
    with pytest.raises(ValueError, match="law"):
        resolve_impact(model, q, v, chain_contacts(2, 1.0), law="huygens")
    with pytest.raises(mb.ModelError, match="LockJoint, FixPoint or Contact"):
        resolve_impact(model, q, v, ["wall"])
