"""Layout of the compiled model's arrays, shared by every target's kernels and by the code that fills them.

``topology`` (int64, one row per body, parent before child): the columns TOPOLOGY below.

``params`` (float64, one row per body): the fields of :data:`FIELDS`, each a run of columns in table order; the
offsets and the width NPARAMS are computed from the table. Kernels read a field only through the accessors
:func:`accessors` makes from the table (compiled with each target's decorator and inlined where they are called),
the Python side through :func:`field` and :func:`pack`, never by a column number.

``gravity`` (float64, 3): gravitational acceleration in world axes [m/s²].

``packed`` (float64): the three in one buffer, [n, gravity, topology (its int64 bits), params], of which they are
views (:func:`unpacked`): the single-state entry points take the model as this one array, since each array argument
of a compiled call costs ~0.1 µs to pass from Python.

Frames: *body axes* are the body's own frame; the *joint frame* is fixed in the parent, where the joint's motion is
defined (RBDA Table 4.1); a body's *axis frame* is its body frame turned so that z lies along a revolute joint's axis
(:func:`axis_frames`), where such a joint's rotation is R_z(θ). Symmetric 6 × 6 matrices [[A, B], [Bᵀ, C]] (the
articulated-body inertias) are stored as their SYMMETRIC_6 entries: A and C as (xx, yy, zz, xy, xz, yz), B row major.
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
import math
from types import SimpleNamespace
from typing import Any, Callable, NamedTuple

import numpy as np

from ..model.joints import JOINT_TYPES

# topology's columns: parent index (−1 = world), joint type code, first index in q, first index in v, joint nq, nv
TOPOLOGY = ("PARENT", "JTYPE", "IQ", "IV", "NQJ", "NVJ")
PARENT, JTYPE, IQ, IV, NQJ, NVJ = range(len(TOPOLOGY))
NTOPOLOGY = len(TOPOLOGY)

SYMMETRIC_3 = "symmetric 3 × 3"  # the shape of a symmetric 3 × 3 matrix stored as (xx, yy, zz, xy, xz, yz)


class Field(NamedTuple):
    """A run of ``params`` columns: its name (that of its accessor), shape (row major) and meaning."""
    name: str
    shape: Any
    meaning: str


FIELDS = (
    Field("tree_rotation", (3, 3), "R_tree: the joint frame's axes in the parent's body axes"),
    Field("tree_translation", (3,), "p_tree [m]: the joint frame's origin in the parent's body axes"),
    Field("joint_axis", (3,), "a: the unit joint axis in joint-frame axes (revolute, prismatic, cylindrical)"),
    Field("spatial_inertia", (6, 6), "I_O [kg, kg m, kg m²]: spatial inertia about the body origin, body axes"),
    Field("motion_subspace", (6, 6), "S: the joint's motion subspace in body axes, its first nv columns used"),
    Field("mass", (), "m [kg]"),
    Field("mass_center", (3,), "c [m]: the mass center in body axes"),
    Field("armature", (6,), "rotor inertia reflected to each joint velocity [kg m² or kg], its first nv used: "
                            "added to the diagonal of M"),
    Field("axis_tree_rotation", (3, 3), "Q_λᵀ R_tree Q: the placement rotation from the body's axis frame to "
                                        "its parent's (Q_λ = 1 for the world)"),
    Field("axis_tree_translation", (3,), "Q_λᵀ p_tree [m]: the placement translation in the parent's axis frame"),
    Field("axis_central_inertia", SYMMETRIC_3, "Qᵀ Ī Q [kg m²]: the rotational inertia about the mass center "
                                                "(Ī = I − m [c]×ᵀ[c]×, RBDA eq. 2.63) in axis-frame axes"),
    Field("axis_mass_center", (3,), "Qᵀ c [m]: the mass center in axis-frame axes"),
    Field("axis_inertia", SYMMETRIC_3, "Qᵀ I Q [kg m²]: the rotational inertia about the body origin in "
                                        "axis-frame axes"),
    Field("axis_frame", (3, 3), "Q: the axis frame's axes (columns) in body axes"),
)


def _width(shape):
    return 6 if shape == SYMMETRIC_3 else math.prod(shape)


START: dict[str, int] = {}  # field name -> its first column
for _field in FIELDS:
    START[_field.name] = sum(_width(f.shape) for f in FIELDS[:FIELDS.index(_field)])
NPARAMS = sum(_width(f.shape) for f in FIELDS)

# 21-entry storage of a symmetric 6 × 6 matrix [[A, B], [Bᵀ, C]]: first entries of A, B and C, and the count
SYM_A, SYM_B, SYM_C, NSYM = 0, _width(SYMMETRIC_3), _width(SYMMETRIC_3) + 9, 2 * _width(SYMMETRIC_3) + 9

# the packed buffer: n, then gravity, then topology
P_NBODIES = 0
P_GRAVITY = P_NBODIES + 1
P_TOPOLOGY = P_GRAVITY + 3


def field(params: np.ndarray, i: int, name: str) -> np.ndarray:
    """Body i's field ``name`` of ``params`` as an array of the field's shape (a view; SYMMETRIC_3: its 6 entries)."""
    shape = FIELDS[[f.name for f in FIELDS].index(name)].shape
    view = params[i, START[name]:START[name] + _width(shape)]
    return view if shape == SYMMETRIC_3 else view.reshape(shape)


def accessors(compile: Callable) -> SimpleNamespace:
    """The readers of the fields of :data:`FIELDS`, compiled with ``compile`` (the decorator of the target's
    spatial family: inlined into the CPU kernels, CUDA device functions on the GPU), as attributes named after
    the fields. Each takes ``params`` and the body's row i (``params[i, k]`` may also be the lanes' values,
    :mod:`._batch`) and returns the field's values in registers:

    - a number (shape ()): ``mass(params, i)``;
    - a 3-vector: ``joint_axis(params, i)``, a 3-tuple;
    - a 3 × 3 matrix, or a SYMMETRIC_3 one: ``axis_frame(params, i)``, a row-major 9-tuple;
    - a 6-vector: ``armature(params, i, k)``, its entry k;
    - a 6 × 6 matrix: ``motion_subspace(params, i, k)``, its column k as a 6-tuple."""
    made = {}
    for f in FIELDS:
        make, says = _READERS[_kind(f.shape)]
        reader = make(START[f.name])
        reader.__name__ = reader.__qualname__ = f.name
        reader.__doc__ = f"Body i's {f.name}: {f.meaning}; {says}."
        made[f.name] = compile(reader)
    return SimpleNamespace(**made)


def _number(o):
    def read(params, i):
        return params[i, o]
    return read


def _vector3(o):
    def read(params, i):
        return params[i, o], params[i, o + 1], params[i, o + 2]
    return read


def _matrix3(o):
    def read(params, i):
        return (params[i, o], params[i, o + 1], params[i, o + 2], params[i, o + 3], params[i, o + 4],
                params[i, o + 5], params[i, o + 6], params[i, o + 7], params[i, o + 8])
    return read


def _symmetric3(o):
    def read(params, i):
        xx, yy, zz, xy, xz, yz = (params[i, o], params[i, o + 1], params[i, o + 2], params[i, o + 3],
                                  params[i, o + 4], params[i, o + 5])
        return xx, xy, xz, xy, yy, yz, xz, yz, zz
    return read


def _entry(o):
    def read(params, i, k):
        return params[i, o + k]
    return read


def _column6(o):
    def read(params, i, k):
        return (params[i, o + k], params[i, o + 6 + k], params[i, o + 12 + k], params[i, o + 18 + k],
                params[i, o + 24 + k], params[i, o + 30 + k])
    return read


def _kind(shape):
    return shape if shape == SYMMETRIC_3 or len(shape) else "number"


_READERS = {"number": (_number, "a number"), (3,): (_vector3, "a 3-tuple"), (3, 3): (_matrix3, "a row-major 9-tuple"),
            SYMMETRIC_3: (_symmetric3, "a row-major 9-tuple"), (6,): (_entry, "its entry k"),
            (6, 6): (_column6, "its column k as a 6-tuple")}


def axis_frames(topology: np.ndarray, params: np.ndarray) -> None:
    """Fill the axis-frame fields of ``params`` (those named axis_*) from the others (NumPy).

    A body's axis frame is its body frame turned so that z lies along its joint's axis a, Q = [x y a], for a
    revolute joint, and the body frame itself (Q = 1) for the other joints. In axis frames the rotation of a
    revolute joint is R_z(θ) (a product with it mixes two columns: 12 multiplications instead of Rodrigues' 15
    and a 3 × 3 product's 27) and its world axis is the third column of the frame's world rotation."""
    upper = [0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]
    frames = []
    for i in range(topology.shape[0]):
        Q = np.eye(3)
        if JOINT_TYPES[topology[i, JTYPE]].rotates_about_its_axis:
            a = field(params, i, "joint_axis")
            x = np.cross(np.eye(3)[np.argmin(np.abs(a))], a)
            x /= np.linalg.norm(x)
            Q = np.column_stack([x, np.cross(a, x), a])
        frames.append(Q)
        Q_parent = frames[topology[i, PARENT]] if topology[i, PARENT] >= 0 else np.eye(3)
        m, c = field(params, i, "mass"), field(params, i, "mass_center")
        I_O = field(params, i, "spatial_inertia")[:3, :3]
        field(params, i, "axis_tree_rotation")[:] = Q_parent.T @ field(params, i, "tree_rotation") @ Q
        field(params, i, "axis_tree_translation")[:] = Q_parent.T @ field(params, i, "tree_translation")
        central = I_O - m * (c @ c * np.eye(3) - np.outer(c, c))  # Ī (parallel axes, RBDA eq. 2.63)
        field(params, i, "axis_central_inertia")[:] = (Q.T @ central @ Q)[upper]
        field(params, i, "axis_mass_center")[:] = Q.T @ c
        field(params, i, "axis_inertia")[:] = (Q.T @ I_O @ Q)[upper]
        field(params, i, "axis_frame")[:] = Q


def packed_size(n: int) -> int:
    """Length of the packed model of n bodies."""
    return P_TOPOLOGY + (NTOPOLOGY + NPARAMS) * n


def unpacked(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(topology, params, gravity): the views of the packed model (compiled: :mod:`._spatial_kernels`)."""
    n = int(packed[P_NBODIES])
    start = P_TOPOLOGY + NTOPOLOGY * n
    return (packed[P_TOPOLOGY:start].view(np.int64).reshape(n, NTOPOLOGY),
            packed[start:start + NPARAMS * n].reshape(n, NPARAMS), packed[P_GRAVITY:P_TOPOLOGY])


def pack(model: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The compiled form of a numeric ``model`` (:class:`~multibody.model.model.Model`): (packed, topology,
    params, gravity, nq, nv), the arrays as this module lays them out, nq and nv counting the beams' elastic
    coordinates too."""
    n = len(model.bodies)
    packed = np.zeros(packed_size(n))
    packed[P_NBODIES] = n
    topology, params, gravity = unpacked(packed)
    iq = iv = 0
    for i, (body, joint, parent, placement) in enumerate(zip(model.bodies, model.joints, model.parents,
                                                             model.placements)):
        topology[i] = (parent, joint.code, iq, iv, joint.nq, joint.nv)
        iq += joint.nq
        iv += joint.nv
        field(params, i, "tree_rotation")[:] = placement.rotation
        field(params, i, "tree_translation")[:] = placement.translation
        field(params, i, "joint_axis")[:] = joint.axis
        field(params, i, "spatial_inertia")[:] = body.spatial_inertia()
        field(params, i, "motion_subspace")[:, :joint.nv] = joint.motion_subspace()
        field(params, i, "mass")[...] = body.mass
        field(params, i, "mass_center")[:] = body.com
        field(params, i, "armature")[:joint.nv] = joint.armature
    axis_frames(topology, params)
    gravity[:] = model.gravity
    # (left writeable: numba's dispatch on read-only arrays costs ~1.5 µs a call)
    return packed, topology, params, gravity, iq + model.ne, iv + model.ne
