"""Signed distances and contact points of shape pairs against dense sampling of the surfaces."""
import numpy as np
import pytest

import multibody as mb
from multibody.constraints.geometry import closest_between_segments, collide


def _pose(rng):
    q = rng.normal(size=4)
    return mb.quat_to_rotation(q / np.linalg.norm(q)), rng.normal(size=3) * 0.3


def _segment_distance_sampled(p0, p1, q0, q1, k=801):
    s = np.linspace(0, 1, k)
    P = p0 + s[:, None] * (p1 - p0)
    Q = q0 + s[:, None] * (q1 - q0)
    return np.min(np.linalg.norm(P[:, None] - Q[None], axis=-1))


@pytest.mark.parametrize("seed", range(5))
def test_capsule_capsule_distance(seed):
    rng = np.random.default_rng(seed)
    a, b = mb.Capsule(0.05, 0.2), mb.Capsule(0.07, 0.15)
    (Ra, pa), (Rb, pb) = _pose(rng), _pose(rng)
    c = collide(a, (Ra, pa), b, (Rb, pb), margin=np.inf)[0]
    seg = lambda R, p, cap: (p - cap.half_length * R[:, 2], p + cap.half_length * R[:, 2])
    d = _segment_distance_sampled(*seg(Ra, pa, a), *seg(Rb, pb, b))
    assert c.distance == pytest.approx(d - 0.12, abs=1e-5)
    np.testing.assert_allclose(np.linalg.norm(c.normal), 1)
    # the normal points from B to A along the line of the closest axis points
    np.testing.assert_allclose(c.anchor_a - c.anchor_b, (c.distance + 0.12) * c.normal, atol=1e-9)


def test_parallel_segments_give_a_closest_pair():
    p, q = closest_between_segments(np.zeros(3), np.array([1.0, 0, 0]), np.array([0.5, 1, 0]), np.array([2.0, 1, 0]))
    assert np.linalg.norm(p - q) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(5))
def test_sphere_box_distance(seed):
    rng = np.random.default_rng(seed)
    box = mb.Box((0.2, 0.1, 0.15))
    R, p = _pose(rng)
    centre = p + rng.normal(size=3) * 0.3
    c = collide(mb.Sphere(0.05), (np.eye(3), centre), box, (R, p), margin=np.inf)[0]
    local = R.T @ (centre - p)
    outside = np.linalg.norm(local - np.clip(local, -box.half_extents, box.half_extents))
    inside = -np.min(box.half_extents - np.abs(local))
    assert c.distance == pytest.approx((outside if outside > 0 else inside) - 0.05, abs=1e-12)
    assert c.distance + 0.05 == pytest.approx(c.normal @ (centre - c.anchor_b), abs=1e-12)


def test_plane_contacts():
    R = mb.rotation_about((1, 0, 0), 0.3)
    plane = (R, np.array([0, 0, 0.1]))
    n = R[:, 2]
    centre = np.array([0.2, 0.1, 0.4])
    (c,) = collide(mb.Sphere(0.1), (np.eye(3), centre), mb.Plane(), plane, margin=np.inf)
    assert c.distance == pytest.approx(n @ (centre - plane[1]) - 0.1)
    np.testing.assert_allclose(c.normal, n)
    flipped = collide(mb.Plane(), plane, mb.Sphere(0.1), (np.eye(3), centre), margin=np.inf)[0]
    np.testing.assert_allclose(flipped.normal, -n)
    box = mb.Box((0.1, 0.2, 0.3))
    contacts = collide(box, (np.eye(3), np.array([0, 0, 0.25])), mb.Plane(), (np.eye(3), np.zeros(3)), margin=0.0)
    assert len(contacts) == 4 and all(c.distance == pytest.approx(-0.05) for c in contacts)
    caps = collide(mb.Capsule(0.05, 0.2), (np.eye(3), np.array([0, 0, 0.3])), mb.Plane(), (np.eye(3), np.zeros(3)),
                   margin=np.inf)
    assert sorted(c.distance for c in caps) == pytest.approx([0.05, 0.45])


def test_unsupported_pairs_raise():
    for a, b in [(mb.Box((1, 1, 1)), mb.Capsule(0.1, 0.2)), (mb.Plane(), mb.Plane())]:
        with pytest.raises(mb.ModelError, match="not supported"):
            collide(a, (np.eye(3), np.zeros(3)), b, (np.eye(3), np.zeros(3)))
