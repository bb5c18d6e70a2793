"""The compiled detection of every shape pair (one call over all candidate pairs) against the Python contact tests
of :func:`multibody.constraints.geometry.collide`, pair kind by pair kind, at random poses apart, touching and
overlapping: the same contacts, in the same order."""
import itertools

import numpy as np
import pytest
from scipy.spatial import ConvexHull
from numba import njit

import multibody as mb
from multibody.constraints._kinematics import Snapshot
from multibody.constraints._narrow import MAX_CONTACTS, contact_capacity, detect_contacts, near_pairs
from multibody.constraints.contact import detection_arrays, found_contacts
from multibody.constraints.convex import gjk_distance, penetration
from multibody.constraints.geometry import collide, has_contact_model


def _hull(seed):
    return mb.ConvexHull(np.random.default_rng(seed).normal(size=(40, 3)) * [0.1, 0.06, 0.08])


SHAPES = {"sphere": mb.Sphere(0.1), "capsule": mb.Capsule(0.05, 0.15), "box": mb.Box([0.1, 0.15, 0.07]),
          "hull": _hull(0), "other hull": _hull(1), "plane": mb.Plane()}
KINDS = [(a, b) for a, b in itertools.combinations_with_replacement(SHAPES, 2)
         if has_contact_model(type(SHAPES[a]), type(SHAPES[b])) and {a, b} != {"hull"}]


def _pair_model(a, b):
    """Shape a on a free body; shape b on another free body, or the world's when it is a plane (tilted, raised)."""
    model = mb.Model("pair")
    placement = mb.Transform(mb.rotation_about((1, 2, 3), 0.4), [0.01, -0.02, 0.03])
    for name, shape in (("A", SHAPES[a]), ("B", SHAPES[b])):
        if isinstance(shape, mb.Plane):
            model.add_geometry("world", shape, name=name, placement=placement)
        else:
            model.add(mb.Body(name, mass=1.0, inertia=np.eye(3)), joint=mb.Free())
            model.add_geometry(name, shape, name=name, placement=placement)
    return model


def _posed(model, snapshot, k):
    g = model.geometries[k]
    R0, p0 = (np.eye(3), np.zeros(3)) if g.body == "world" else (snapshot.R0[model.locate(g.body)[0]],
                                                                   snapshot.p0[model.locate(g.body)[0]])
    return R0 @ g.placement.rotation, p0 + R0 @ g.placement.translation


@pytest.mark.parametrize("kinds", KINDS, ids=["–".join(k) for k in KINDS])
def test_compiled_detection_finds_the_contacts_of_collide(kinds):
    """60 random poses of the pair, centres within 0.3 m, margin 5 cm: the same number of contacts as collide, and
    the same points, normals, gaps and anchors to 1e-9 m, for each pair kind."""
    model = _pair_model(*kinds)
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(60):
        q = np.concatenate([np.concatenate([rng.uniform(-0.15, 0.15, 3), rng.normal(size=4)])
                            for _ in range(model.nq // 7)])
        q = np.concatenate([np.concatenate([x[:3], x[3:] / np.linalg.norm(x[3:])]) for x in q.reshape(-1, 7)])
        snapshot = Snapshot(model, q, np.zeros(model.nv))
        ours = found_contacts(model, snapshot, margin=0.05)
        (a, pose_a), (b, pose_b) = [(model.geometries[k].shape, _posed(model, snapshot, k)) for k in (0, 1)]
        theirs = collide(a, pose_a, b, pose_b, margin=0.05)
        assert len(ours.gap) == len(theirs)
        for k, c in enumerate(theirs):
            for x, y in ((ours.point[k], c.point), (ours.normal[k], c.normal), (ours.gap[k], c.distance),
                         (ours.anchor_a[k], c.anchor_a), (ours.anchor_b[k], c.anchor_b)):
                np.testing.assert_allclose(x, y, rtol=0, atol=1e-9)
        found += len(theirs)
    assert found >= 20


def test_every_kind_of_pair_in_one_call_from_compiled_code():
    """All the shapes on bodies of one model, every pair of them a candidate: one call from a compiled function finds
    the contacts of all pairs, pair after pair, each row naming its pair, within the capacity the pairs can fill."""
    model = mb.Model("all")
    for name, shape in SHAPES.items():
        if isinstance(shape, mb.Plane):
            model.add_geometry("world", shape, name=name)
        else:
            model.add(mb.Body(name, mass=1.0, inertia=np.eye(3)), joint=mb.Free())
            model.add_geometry(name, shape, name=name)
    q = model.neutral()
    rng = np.random.default_rng(2)
    for k in range(model.nq // 7):
        q[7 * k:7 * k + 3] = rng.uniform(-0.1, 0.1, 3) + [0, 0, 0.05]
    snapshot = Snapshot(model, q, np.zeros(model.nv))
    shapes, pairs, capacity = detection_arrays(model)
    assert len(pairs) == 15 and capacity == contact_capacity(shapes[0], pairs) == sum(
        MAX_CONTACTS[min(shapes[0][i], shapes[0][j]), max(shapes[0][i], shapes[0][j])] for i, j in pairs)
    out = np.full((capacity, 14), np.nan)
    count = _compiled_caller(shapes, pairs, snapshot.R0, snapshot.p0, out)
    found = found_contacts(model, snapshot)
    assert count == len(found.gap) >= 15 and np.all(np.diff(out[:count, 13]) >= 0)
    np.testing.assert_array_equal(pairs[out[:count, 13].astype(int)], np.column_stack([found.first, found.second]))
    np.testing.assert_array_equal(out[:count, 6], found.gap)


@njit
def _compiled_caller(shapes, pairs, R0, p0, out):
    return detect_contacts(shapes, pairs, R0, p0, 0.0, out)


def test_penetration_is_the_nearest_facet_of_the_minkowski_difference():
    """Overlapping random polytopes (a point, a segment, a box's corners, a hull of 4 to 60 points, against a hull):
    the expanding polytope's depth and normal are those of the nearest facet of A − B's hull by qhull to 1e-12, and
    its witness points a ∈ A, b ∈ B differ by depth · u."""
    rng = np.random.default_rng(4)
    tested = 0
    for trial in range(200):
        A = rng.normal(size=(rng.integers(4, 60), 3)) * 0.05
        B = [rng.normal(size=(1, 3)) * 0.02, rng.normal(size=(2, 3)) * 0.03,
             mb.Box([0.03, 0.04, 0.05]).corners() @ mb.quat_to_rotation(rng.normal(size=4)).T,
             rng.normal(size=(rng.integers(4, 40), 3)) * 0.04][trial % 4] + rng.normal(size=3) * 0.02
        if gjk_distance(A, B)[0] > 0.0:
            continue
        hull = ConvexHull((A[:, None] - B[None]).reshape(-1, 3))
        nearest = np.argmax(hull.equations[:, 3])
        depth, u, a, b = penetration(A, B)
        np.testing.assert_allclose(depth, -hull.equations[nearest, 3], rtol=0, atol=1e-12)
        np.testing.assert_allclose(u, hull.equations[nearest, :3], rtol=0, atol=1e-9)
        np.testing.assert_allclose(a - b, depth * u, rtol=0, atol=1e-12)
        tested += 1
    assert tested >= 150


def test_broad_phase_keeps_the_pairs_that_touch_and_leaves_out_those_far_apart():
    """The shapes of every kind on free bodies scattered over 2 m, 200 random poses, margin 2 cm: the broad phase
    keeps every pair the narrow phase finds a contact for (collide, pair by pair), and no pair whose bounding
    spheres are more than the margin apart; beyond the pairs that touch, it keeps under 5 % of them all."""
    model = mb.Model("scattered")
    for k, (name, shape) in enumerate(list(SHAPES.items()) * 2):
        if isinstance(shape, mb.Plane):
            if k < len(SHAPES):
                model.add_geometry("world", shape, name=name)
            continue
        model.add(mb.Body(f"{name} {k}", mass=1.0, inertia=np.eye(3)), joint=mb.Free())
        model.add_geometry(f"{name} {k}", shape, name=f"{name} {k}")
    shapes, pairs, _ = detection_arrays(model)
    rng = np.random.default_rng(3)
    kept_total = touching = 0
    for _ in range(200):
        q = model.neutral()
        for k in range(model.nq // 7):
            x = rng.normal(size=4)
            q[7 * k:7 * k + 7] = np.concatenate([rng.uniform(-1.0, 1.0, 3) * [1.0, 1.0, 0.2], x / np.linalg.norm(x)])
        snapshot = Snapshot(model, q, np.zeros(model.nv))
        kept = set(_near_pair_indices(shapes, pairs, snapshot.R0, snapshot.p0, 0.02).tolist())
        for m, (i, j) in enumerate(pairs):
            (a, pose_a), (b, pose_b) = [(model.geometries[k].shape, _posed(model, snapshot, k)) for k in (i, j)]
            if collide(a, pose_a, b, pose_b, margin=0.02):
                assert m in kept
                touching += 1
            if not any(isinstance(s, mb.Plane) for s in (a, b)):
                centres = [pose[1] + pose[0] @ s.bounding_center for s, pose in ((a, pose_a), (b, pose_b))]
                if np.linalg.norm(centres[0] - centres[1]) - a.bounding_radius - b.bounding_radius > 0.02:
                    assert m not in kept
        kept_total += len(kept)
    assert touching >= 1000 and kept_total - touching < 0.05 * 200 * len(pairs)


@njit
def _near_pair_indices(shapes, pairs, R0, p0, margin):
    g = shapes[0].shape[0]
    R, frames, near = np.empty((g, 3, 3)), np.empty((3, g, 3)), np.empty(pairs.shape[0], dtype=np.int64)
    return near[:near_pairs(shapes, pairs, R0, p0, margin, R, frames[0], frames[1], frames[2], near)].copy()
