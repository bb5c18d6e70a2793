"""Collision meshes as convex hulls: a robot's STL meshes read from its URDF, their contact with a plane and with
the other shapes checked against MuJoCo's (which collides the convex hulls of meshes too) on the same files and
against the exact distance of two polytopes, and the meshes that cannot be read named in a warning."""
from pathlib import Path
import warnings

import numpy as np
import pytest

import multibody as mb
from scipy.spatial import ConvexHull

from multibody.constraints.convex import MAX_PLANE_CONTACTS, closest_on_simplex, spread_contacts
from multibody.constraints.geometry import collide
from multibody.io.files import model_from_dict, model_to_dict

mujoco = pytest.importorskip("mujoco")
pin = pytest.importorskip("pinocchio")
trimesh = pytest.importorskip("trimesh")
ROBOTS = Path(pin.__file__).resolve().parents[4] / "share" / "example-robot-data" / "robots"
SOLO_MESHES = ROBOTS / "solo_description" / "meshes" / "stl"
MESHES = ["with_foot/solo_foot.stl", "with_foot/solo_lower_leg_left_side.stl", "solo12/solo_12_base.stl"]
FLOOR = (np.eye(3), np.zeros(3))


def _mujoco_plane_distances(path, poses):
    """MuJoCo's smallest contact distance of the mesh on a free body at each pose (p, quaternion w x y z) above
    the plane z = 0 (both geoms with a 1 m margin, so that separated poses report their distance too)."""
    xml = f"""<mujoco><asset><mesh name="m" file="{path}"/></asset><worldbody>
      <geom type="plane" size="0 0 1" margin="1"/><body><freejoint/><geom type="mesh" mesh="m" margin="1"/></body>
      </worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    out = []
    for p, quat in poses:
        data.qpos[:] = [*p, *quat]
        mujoco.mj_forward(model, data)
        out.append((min(data.contact.dist[:data.ncon]), data.ncon))
    return out


@pytest.mark.parametrize("mesh", MESHES)
def test_hull_plane_depth_matches_mujoco_on_the_same_mesh(mesh):
    """Solo12's foot, shank and base STL meshes at 8 random poses, from 2 cm deep to 10 cm above the plane: the
    deepest contact's signed distance equals MuJoCo's to 1e-7 m (MuJoCo stores the vertices in single precision),
    with at most 4 contacts as MuJoCo, the deepest first."""
    path = SOLO_MESHES / mesh
    hull = mb.ConvexHull(trimesh.load(str(path), force="mesh").vertices, source=str(path))
    rng = np.random.default_rng(7)
    poses = []
    for _ in range(8):
        quat = rng.normal(size=4)
        poses.append((np.array([*rng.uniform(-0.1, 0.1, 2), rng.uniform(-0.02, 0.1)]), quat / np.linalg.norm(quat)))
    for (p, quat), (reference, count) in zip(poses, _mujoco_plane_distances(path, poses)):
        contacts = collide(hull, (mb.quat_to_rotation(quat), p), mb.Plane(), FLOOR, margin=1.0)
        assert 1 <= len(contacts) <= MAX_PLANE_CONTACTS and count <= MAX_PLANE_CONTACTS
        assert contacts[0].distance == min(c.distance for c in contacts)
        np.testing.assert_allclose(contacts[0].distance, reference, rtol=0, atol=1e-7)
        for c in contacts:  # each contact: a hull vertex, its foot on the plane, the midpoint between them
            np.testing.assert_allclose(c.anchor_a[2] - c.anchor_b[2], c.distance, rtol=0, atol=1e-15)
            np.testing.assert_allclose(c.point, 0.5 * (c.anchor_a + c.anchor_b), rtol=0, atol=1e-15)


def test_hull_of_a_box_rests_on_its_four_corners_like_the_box():
    """A box's 8 corners plus interior points: only the 8 corners are kept, and resting tilted by 1e-3 rad on the
    plane it gets the box–plane contacts (its 4 lowest corners, same distances)."""
    box = mb.Box([0.2, 0.1, 0.05])
    inner = np.random.default_rng(1).uniform(-1, 1, (50, 3)) * box.half_extents * 0.9
    hull = mb.ConvexHull(np.vstack([inner, box.corners()]))
    assert len(hull.vertices) == 8
    pose = (mb.rotation_about((1, 0, 0), 1e-3), np.array([0, 0, 0.05]))
    ours = sorted(c.distance for c in collide(hull, pose, mb.Plane(), FLOOR, margin=1e-3))
    boxes = sorted(c.distance for c in collide(box, pose, mb.Plane(), FLOOR, margin=1e-3))
    assert len(ours) == 4
    np.testing.assert_allclose(ours, boxes, rtol=0, atol=1e-15)


def test_spread_contacts_keeps_the_deepest_and_the_farthest():
    points = np.array([[0, 0, 0], [0.01, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0.5, 0.5, 0]], float)
    gaps = np.array([0.0, -0.1, 0.0, 0.0, 0.0, 0.0])
    assert spread_contacts(points, gaps).tolist() == [1, 4, 3, 2]  # deepest, then the corners away from it


def test_flat_or_too_few_points_make_no_hull():
    with pytest.raises(mb.ModelError, match="span no volume"):
        mb.ConvexHull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    with pytest.raises(mb.ModelError, match="at least 4 finite points"):
        mb.ConvexHull([[0, 0, 0], [1, 0, 0], [0, 1, 0]])


def test_urdf_meshes_become_hulls_and_unreadable_ones_are_named(tmp_path):
    """Solo12's 17 STL collision meshes are read (package:// paths found above the URDF) as hulls of their vertices
    times the ``scale``, kept by model files; a missing file and a file trimesh cannot read are each named in the warning."""
    with pytest.warns(UserWarning, match="meshes read as their convex hulls on base_link"):
        model = mb.Model.from_urdf(ROBOTS / "solo_description" / "robots" / "solo12.urdf", floating_base=True,
                                   collisions=True)
    assert len(model.geometries) == 17 and all(isinstance(g.shape, mb.ConvexHull) for g in model.geometries)
    saved = model_from_dict(model_to_dict(model)).geometries[0].shape  # a model file keeps the hull's vertices
    np.testing.assert_array_equal(saved.vertices, model.geometries[0].shape.vertices)
    assert saved.source == model.geometries[0].shape.source
    foot = SOLO_MESHES / "with_foot" / "solo_foot.stl"
    (tmp_path / "broken.stl").write_text("not a mesh")
    urdf = tmp_path / "r.urdf"
    urdf.write_text(f"""<robot name="r"><link name="a"><inertial><mass value="1"/>
      <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
      <collision><geometry><mesh filename="file://{foot}" scale="2 2 2"/></geometry></collision>
      <collision><geometry><mesh filename="missing.stl"/></geometry></collision>
      <collision><geometry><mesh filename="broken.stl"/></geometry></collision></link></robot>""")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = mb.Model.from_urdf(urdf, floating_base=True, collisions=True)
    said = " ".join(str(w.message) for w in caught)
    assert "mesh file 'missing.stl' not found" in said and f"mesh file '{tmp_path / 'broken.stl'}' could not" in said
    (geometry,) = model.geometries
    vertices = trimesh.load(str(foot), force="mesh").vertices
    np.testing.assert_allclose(np.abs(geometry.shape.vertices).max(axis=0), 2 * np.abs(vertices).max(axis=0),
                               rtol=0, atol=1e-15)


def _exact_distance(A, B):
    """Signed distance of the convex hulls of A and B from the hull of all differences a − b (qhull): the
    origin's distance to its nearest triangle when outside (:func:`closest_on_simplex` on each), minus the distance
    to its nearest facet plane when inside."""
    hull = ConvexHull((A[:, None] - B[None]).reshape(-1, 3))
    if hull.equations[:, 3].max() < 0:  # the origin inside every facet's half-space
        return hull.equations[:, 3].max()
    return min(np.linalg.norm(closest_on_simplex(hull.points[s])[0]) for s in hull.simplices)


PRIMITIVES = {"sphere": ('type="sphere" size="0.03"', mb.Sphere(0.03)),
              "capsule": ('type="capsule" size="0.02 0.05"', mb.Capsule(0.02, 0.05)),
              "box": ('type="box" size="0.03 0.04 0.05"', mb.Box([0.03, 0.04, 0.05])),
              "mesh": ('type="mesh" mesh="other"', None)}


@pytest.mark.parametrize("kind", list(PRIMITIVES))
def test_hull_against_shapes_matches_the_exact_distance_and_mujoco(kind):
    """Solo12's shank hull against a sphere, capsule, box and its hip hull at 12 random poses, apart and
    overlapping: the signed distance equals the exact one (from the Minkowski difference's hull) to 1e-12 m and its
    witness points are that far apart along the normal; MuJoCo's distance to 1e-8 m where it reports a single
    contact (a sphere's every pose), to 1e-4 m where it reports several (its multi-contact path approximates)."""
    shank, hip = SOLO_MESHES / "with_foot/solo_lower_leg_left_side.stl", SOLO_MESHES / "solo12/solo12_hip_fe_fl.stl"
    hull = mb.ConvexHull(trimesh.load(str(shank), force="mesh").vertices)
    mj_geom, shape = PRIMITIVES[kind]
    shape = shape or mb.ConvexHull(trimesh.load(str(hip), force="mesh").vertices)
    cores = {"sphere": lambda R, p: p[None], "capsule": lambda R, p: np.array([p - 0.05 * R[:, 2], p + 0.05 * R[:, 2]]),
             "box": lambda R, p: p + shape.corners() @ R.T, "mesh": lambda R, p: p + shape.vertices @ R.T}[kind]
    radius = getattr(shape, "radius", 0.0) if kind in ("sphere", "capsule") else 0.0
    rng = np.random.default_rng(3)
    compared = 0
    for _ in range(12):
        q1, q2 = (x / np.linalg.norm(x) for x in rng.normal(size=(2, 4)))
        p1, p2 = rng.uniform(-0.03, 0.03, 3), rng.uniform(-0.06, 0.06, 3)
        R1, R2 = mb.quat_to_rotation(q1), mb.quat_to_rotation(q2)
        (contact,) = collide(hull, (R1, p1), shape, (R2, p2), margin=1.0)
        exact = _exact_distance(p1 + hull.vertices @ R1.T, cores(R2, p2)) - radius
        np.testing.assert_allclose(contact.distance, exact, rtol=0, atol=1e-12)
        np.testing.assert_allclose(contact.normal @ (contact.anchor_a - contact.anchor_b), contact.distance + radius,
                                   rtol=0, atol=1e-12)
        reference, count = _mujoco_pair_distance(shank, hip, mj_geom, (p1, q1, p2, q2), margin=contact.distance > 0)
        if count:
            np.testing.assert_allclose(contact.distance, reference, rtol=0, atol=1e-8 if count == 1 else 1e-4)
            compared += count == 1
    assert compared >= 1


def _mujoco_pair_distance(mesh, other, geom, pose, margin):
    """(smallest contact distance, number of contacts) of MuJoCo's mesh on one free body and ``geom`` on another,
    posed (p1, q1, p2, q2); both geoms with a 1 m margin (``margin``) to report separated pairs, else none."""
    m = 1 if margin else 0
    xml = f"""<mujoco><asset><mesh name="mesh" file="{mesh}"/><mesh name="other" file="{other}"/></asset><worldbody>
      <body><freejoint/><geom type="mesh" mesh="mesh" margin="{m}"/></body>
      <body><freejoint/><geom {geom} margin="{m}"/></body></worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qpos[:] = np.concatenate(pose)
    mujoco.mj_forward(model, data)
    return (data.contact.dist[:data.ncon].min() if data.ncon else np.nan), data.ncon


def test_collada_meshes_read_as_pinocchio_reads_them():
    """Kinova's DAE collision meshes (read by trimesh with pycollada): each hull has the support function of the
    vertices Pinocchio's buildGeomFromUrdf loads (by assimp) from the same file, to 1e-10 m in 50 directions."""
    urdf = ROBOTS / "kinova_description" / "robots" / "kinova.urdf"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = {g.name: g.shape for g in mb.Model.from_urdf(urdf, collisions=True).geometries}
        reference = pin.buildModelFromUrdf(str(urdf))
        geometry = pin.buildGeomFromUrdf(reference, str(urdf), pin.GeometryType.COLLISION,
                                         package_dirs=[str(ROBOTS.parents[1])])
    directions = np.random.default_rng(0).normal(size=(50, 3))
    meshes = [g for g in geometry.geometryObjects if g.meshPath.endswith(".dae")]
    assert len(meshes) >= 6
    for g in meshes:
        vertices = np.array(g.geometry.vertices())
        assert isinstance(ours[g.name], mb.ConvexHull)
        np.testing.assert_allclose((ours[g.name].vertices @ directions.T).max(axis=0),
                                   (vertices @ directions.T).max(axis=0), rtol=0, atol=1e-10)
