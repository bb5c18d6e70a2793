"""The compiled model's layout (multibody.dynamics._layout): the table of fields, the packing that fills them from the
model, and the readers the kernels call, against the model's own data."""
import numpy as np
import pytest

from multibody.dynamics import _layout
from multibody.dynamics._layout import FIELDS, NPARAMS, START, SYMMETRIC_3, field
from multibody.dynamics._spatial_kernels import CPU
from multibody.model.joints import REVOLUTE
from oracles import random_model

ALL_KINDS = ("revolute", "prismatic", "spherical", "cylindrical", "planar", "fixed")


@pytest.fixture(scope="module")
def model():
    return random_model(np.random.default_rng(5), 7, kinds=ALL_KINDS, free_base=True)


def test_the_fields_tile_the_columns_in_table_order():
    column = 0
    for f in FIELDS:
        assert START[f.name] == column, f.name
        column += 6 if f.shape == SYMMETRIC_3 else int(np.prod(f.shape))
    assert column == NPARAMS
    assert len({f.name for f in FIELDS}) == len(FIELDS)


def test_the_packing_writes_each_field_from_the_model(model):
    cm = model.compile()
    assert cm.params.shape == (len(model.bodies), NPARAMS)
    Qs = []
    for i, (body, joint, placement, parent) in enumerate(zip(model.bodies, model.joints, model.placements,
                                                             model.parents)):
        params = cm.params
        np.testing.assert_array_equal(field(params, i, "tree_rotation"), placement.rotation)
        np.testing.assert_array_equal(field(params, i, "tree_translation"), placement.translation)
        np.testing.assert_array_equal(field(params, i, "joint_axis"), joint.axis)
        np.testing.assert_array_equal(field(params, i, "spatial_inertia"), body.spatial_inertia())
        S = field(params, i, "motion_subspace")
        np.testing.assert_array_equal(S[:, :joint.nv], joint.motion_subspace())
        np.testing.assert_array_equal(S[:, joint.nv:], 0.0)
        assert field(params, i, "mass") == body.mass
        np.testing.assert_array_equal(field(params, i, "mass_center"), body.com)
        np.testing.assert_array_equal(field(params, i, "armature")[:joint.nv], joint.armature)
        np.testing.assert_array_equal(field(params, i, "armature")[joint.nv:], 0.0)
        # the axis frame: Q orthonormal, z along a revolute joint's axis, the body frame otherwise
        Q = field(params, i, "axis_frame")
        Qs.append(Q)
        np.testing.assert_allclose(Q.T @ Q, np.eye(3), rtol=0, atol=1e-15)
        if joint.code == REVOLUTE:
            np.testing.assert_allclose(Q[:, 2], joint.axis, rtol=0, atol=1e-15)
        Q_parent = Qs[parent] if parent >= 0 else np.eye(3)
        np.testing.assert_allclose(field(params, i, "axis_tree_rotation"), Q_parent.T @ placement.rotation @ Q,
                                   rtol=0, atol=1e-15)
        np.testing.assert_allclose(field(params, i, "axis_tree_translation"), Q_parent.T @ placement.translation,
                                   rtol=0, atol=1e-15)
        np.testing.assert_allclose(field(params, i, "axis_mass_center"), Q.T @ body.com, rtol=0, atol=1e-15)
        upper = [0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]
        I_O = body.spatial_inertia()[:3, :3]
        scale = np.abs(I_O).max()
        np.testing.assert_allclose(field(params, i, "axis_inertia"), (Q.T @ I_O @ Q)[upper], rtol=0,
                                   atol=1e-14 * scale)
        np.testing.assert_allclose(field(params, i, "axis_central_inertia"), (Q.T @ body.inertia @ Q)[upper],
                                   rtol=0, atol=1e-12 * scale)


def expected(params, i, f, k):
    """What the reader of field f returns for body i (and entry or column k), from :func:`field`."""
    value = field(params, i, f.name)
    if f.shape == SYMMETRIC_3:
        xx, yy, zz, xy, xz, yz = value
        return xx, xy, xz, xy, yy, yz, xz, yz, zz
    if f.shape == ():
        return float(value)
    if f.shape == (6,):
        return value[k]
    if f.shape == (6, 6):
        return tuple(value[:, k])
    return tuple(value.ravel())


def test_the_readers_return_the_fields(model):
    params = model.compile().params
    for f in FIELDS:
        read = getattr(CPU, f.name)
        for i in range(params.shape[0]):
            if f.shape in ((6,), (6, 6)):
                for k in range(6):
                    assert read(params, i, k) == expected(params, i, f, k), (f.name, i, k)
            else:
                assert read(params, i) == expected(params, i, f, None), (f.name, i)


def test_each_reader_says_what_it_reads():
    for f in FIELDS:
        reader = getattr(CPU, f.name)
        assert f.meaning in getattr(reader, "py_func", reader).__doc__
    assert _layout.field.__doc__ and _layout.accessors.__doc__
