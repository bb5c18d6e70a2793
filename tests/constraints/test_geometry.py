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
    with pytest.raises(mb.ModelError, match="not supported"):
        collide(mb.Plane(), (np.eye(3), np.zeros(3)), mb.Plane(), (np.eye(3), np.zeros(3)))


def _mujoco_depth(shape_a, pose_a, shape_b, pose_b):
    """MuJoCo's deepest contact distance of two posed shapes (each on a free body, gravity off)."""
    import mujoco

    def body(shape, pose):
        R, p = pose
        w, x, y, z = mb.rotation_to_quat(R)
        kind, size = (("box", shape.half_extents) if isinstance(shape, mb.Box)
                      else ("capsule", (shape.radius, shape.half_length)))
        numbers = " ".join  # exact: the shortest repr of each float
        return (f'<body pos="{numbers(repr(float(x)) for x in p)}" quat="{numbers(repr(float(x)) for x in (w, x, y, z))}">'
                f'<freejoint/><geom type="{kind}" size="{numbers(repr(float(x)) for x in size)}"/></body>')
    model = mujoco.MjModel.from_xml_string(f'<mujoco><option gravity="0 0 0"/><worldbody>{body(shape_a, pose_a)}'
                                           f'{body(shape_b, pose_b)}</worldbody></mujoco>')
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return min(data.contact[k].dist for k in range(data.ncon))


@pytest.mark.parametrize("kind", ["box", "capsule"])
def test_box_pairs_touching_shallowly_have_mujocos_depth(kind):
    """Box–box (separating axes, clipped faces) and capsule–box against MuJoCo's collision functions: random sizes
    and orientations, A moved along a random direction until our deepest contact is 2 mm deep."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        box_b, pose_b = mb.Box(rng.uniform(0.1, 0.5, 3)), _pose(rng)
        shape_a = (mb.Box(rng.uniform(0.1, 0.5, 3)) if kind == "box"
                   else mb.Capsule(rng.uniform(0.05, 0.3), rng.uniform(0.1, 0.5)))
        R_a, direction = _pose(rng)[0], rng.normal(size=3)
        direction /= np.linalg.norm(direction)

        def deepest(s):
            return min((c.distance for c in collide(shape_a, (R_a, pose_b[1] + s * direction), box_b, pose_b,
                                                     margin=1.0)), default=1.0)
        inside, outside = 0.0, 3.0
        for _ in range(60):
            middle = 0.5 * (inside + outside)
            inside, outside = (middle, outside) if deepest(middle) < -2e-3 else (inside, middle)
        pose_a = (R_a, pose_b[1] + inside * direction)
        assert deepest(inside) == pytest.approx(-2e-3, abs=1e-9)
        np.testing.assert_allclose(deepest(inside), _mujoco_depth(shape_a, pose_a, box_b, pose_b), rtol=0,
                                   atol=1e-7)


def test_a_box_resting_on_a_box_touches_at_the_corners_of_the_overlap():
    """Face on face: four contacts at the corners of the overlap of the two faces, all at the same depth; a box
    turned 45° about the vertical: eight, where its edges cross the other face's edges."""
    lower, upper = mb.Box((0.5, 0.5, 0.1)), mb.Box((0.2, 0.3, 0.1))
    at = (np.eye(3), np.array([0.4, 0.0, 0.199]))
    contacts = collide(upper, at, lower, (np.eye(3), np.zeros(3)))
    assert len(contacts) == 4 and all(c.distance == pytest.approx(-1e-3, abs=1e-12) for c in contacts)
    np.testing.assert_allclose(sorted(c.point[0] for c in contacts), [0.2, 0.2, 0.5, 0.5], rtol=0, atol=1e-12)
    assert all(np.allclose(c.normal, [0, 0, 1], rtol=0, atol=1e-12) for c in contacts)
    turned = collide(mb.Box((0.6, 0.6, 0.1)), (mb.rotation_about((0, 0, 1), np.pi / 4), np.array([0, 0, 0.199])),
                     lower, (np.eye(3), np.zeros(3)))
    assert len(turned) == 8 and all(c.distance == pytest.approx(-1e-3, abs=1e-12) for c in turned)


def test_a_capsule_lying_on_a_box_touches_at_both_ends_and_across_an_edge_at_its_deepest_point():
    box = (mb.Box((0.5, 0.5, 0.1)), (np.eye(3), np.zeros(3)))
    lying = collide(mb.Capsule(0.05, 0.2), (mb.rotation_about((0, 1, 0), np.pi / 2), np.array([0, 0, 0.149])), *box)
    assert len(lying) == 2 and all(c.distance == pytest.approx(-1e-3, abs=1e-12) for c in lying)
    # across the box's top edge at x = 0.5, axis (cos θ, 0, −sin θ) through the edge's normal line, 1 mm deep:
    # one contact, at the edge, at the axis point nearest to it
    theta, radius = 0.3, 0.05
    center = np.array([0.5, 0, 0.1 + (radius - 1e-3) / np.cos(theta)])
    across = collide(mb.Capsule(radius, 0.4), (mb.rotation_about((0, 1, 0), np.pi / 2 + theta), center), *box)
    assert len(across) == 1 and across[0].distance == pytest.approx(-1e-3, abs=1e-12)
    np.testing.assert_allclose(across[0].anchor_b, [0.5, 0, 0.1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(across[0].normal, [np.sin(theta), 0, np.cos(theta)], rtol=0, atol=1e-12)
