"""Compiled building blocks of the recursive algorithms: spatial transforms, cross products, joint poses.

Layout of the compiled model (one row per body, parent before child):

``topology`` (int64, n × 6): parent index (−1 = world), joint type code, first index in q, first index
in v, joint nq, joint nv.

``params`` (float64, n × 133): joint placement rotation ``R_parent_joint`` (9, row major), placement
translation (3), joint axis in joint axes (3), spatial inertia about the body origin in body axes (36, row
major), motion subspace S in body axes (6 × 6 row major, first nv columns used), mass (1), mass center (3),
joint armature (6, first nv used: rotor inertia reflected to each joint velocity, added to the diagonal of M);
then the same body in axis frames (:func:`axis_frames`): placement rotation (9) and translation (3), central
inertia (6), mass center (3), rotational inertia about the body origin (6), and the axis frame's axes in body
axes (9).

``gravity`` (float64, 3): gravitational acceleration in world axes.

``packed`` (float64): the three in one buffer, [n, gravity, topology (its int64 bits), params], of which they
are views (:func:`unpacked`): the single-state entry points take the model as this one array, since each array
argument of a compiled call costs ~0.1 µs to pass from Python.

Naming: ``R[i]``, ``p[i]`` are the rotation (body-i axes → parent axes) and the body-i origin in parent
axes. Spatial vectors are ``[angular; linear]`` in body axes about the body origin. Per-body arrays of
spatial vectors have n + 1 rows: row −1 (the last) is the world, so ``parent = −1`` indexes it directly.

The helpers take whole arrays plus row indices rather than slices: an array view costs a reference-count
round trip in compiled code, which dominated the run time of the first version (measured 3× slower).
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

if TYPE_CHECKING:
    from numba.core.dispatcher import Dispatcher

from ..model.joints import CYLINDRICAL, FREE, PLANAR, PRISMATIC, REVOLUTE, SPHERICAL

PARENT, JTYPE, IQ, IV, NQJ, NVJ = range(6)
F_RTREE, F_PTREE, F_AXIS, F_INERTIA, F_S, F_MASS, F_COM, F_ARMATURE = 0, 9, 12, 15, 51, 87, 88, 91
F_ZRTREE, F_ZPTREE, F_ZCENTRAL, F_ZCOM, F_ZINERTIA, F_ZAXES, NPARAMS = 97, 106, 109, 115, 118, 124, 133

P_NBODIES, P_GRAVITY, P_TOPOLOGY = 0, 1, 4
inline = njit(cache=True, inline="always")
_Kernel = TypeVar("_Kernel", bound=Callable[..., object])


def njit_without_refcounts(**options: Any) -> "Callable[[_Kernel], Dispatcher[_Kernel]]":
    """``numba.njit(**options)`` compiling without reference counting (numba's ``_nrt=False``): for kernels whose
    arrays are all arguments or :func:`work` arrays."""
    return njit(_nrt=False, **options)  # type: ignore[call-overload]  # numba's stubs omit its private _nrt option


STACK_DOUBLES = 4096  # work arrays up to this many float64 (32 KB) go on the stack, larger ones on the heap
ALIGN = 64  # [bytes] work arrays start on a cache line (an AVX-512 load or store then never straddles two: the
#             lanes' arrays, loaded across two lines, measured up to 2× slower depending on where the stack was)


@intrinsic
def work(typingctx, shape):
    """An uninitialized C-contiguous float64 array of ``shape`` (a tuple of ints) for a kernel's own use,
    ALIGN-aligned and without a reference count: on the stack of the kernel it is compiled into when it holds up
    to STACK_DOUBLES entries (a heap array costs ~40 ns to allocate and free: 5–10 % of an rnea call at N = 7),
    else from the C heap, given back by :func:`release`, which the kernel calls on it before it returns.

    Kernels whose arrays are all arguments or ``work`` arrays compile with ``_nrt=False``: no reference counting.
    numba counts the references of each array handed to an inlined helper with a library call (229 calls in an
    ABA of the 20-link chain, each spilling the floating-point registers around it): 17 % of that ABA's time.
    Call it in a kernel body, not in a loop (each call takes more stack), and never return the array."""
    if not (isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape)):
        return None
    array_type = types.Array(types.float64, len(shape), "C")

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        dims = [context.cast(builder, d, t, types.intp) for d, t in zip(cgutils.unpack_tuple(builder, args[0]), shape)]
        size = ir.Constant(intp, 1)
        for d in dims:
            size = builder.mul(size, d)
        double = context.get_value_type(types.float64)
        with builder.if_else(builder.icmp_signed("<=", size, ir.Constant(intp, STACK_DOUBLES))) as (stack, heap):
            with stack:
                slot = builder.alloca(double, size=size)
                slot.align = ALIGN
                stack_block = builder.basic_block
            with heap:  # (aligned_alloc takes a multiple of the alignment)
                nbytes = builder.add(builder.mul(size, ir.Constant(intp, 8)), ir.Constant(intp, ALIGN - 1))
                nbytes = builder.and_(nbytes, ir.Constant(intp, -ALIGN))
                allocate = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(cgutils.voidptr_t, [intp, intp]), "aligned_alloc")
                block = builder.bitcast(builder.call(allocate, [ir.Constant(intp, ALIGN), nbytes]), double.as_pointer())
                heap_block = builder.basic_block
        data = builder.phi(double.as_pointer())
        data.add_incoming(slot, stack_block)
        data.add_incoming(block, heap_block)
        strides, stride = [], ir.Constant(intp, 8)
        for d in reversed(dims):
            strides.insert(0, stride)
            stride = builder.mul(stride, d)
        array = make_array(array_type)(context, builder)
        populate_array(array, data=data, shape=dims, strides=strides, itemsize=ir.Constant(intp, 8), meminfo=None)
        return array._getvalue()
    return array_type(shape), codegen


@intrinsic
def release(typingctx, arrays):
    """Give back the heap memory of the :func:`work` arrays in the tuple ``arrays`` (those past STACK_DOUBLES
    entries; the stack ones go when the kernel returns)."""
    if not (isinstance(arrays, types.BaseTuple) and all(isinstance(t, types.Array) for t in arrays)):
        return None

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        free = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t]),
                                              "free")
        for array_type, value in zip(arrays, cgutils.unpack_tuple(builder, args[0])):
            array = make_array(array_type)(context, builder, value)
            with builder.if_then(builder.icmp_signed(">", array.nitems, ir.Constant(intp, STACK_DOUBLES))):
                builder.call(free, [builder.bitcast(array.data, cgutils.voidptr_t)])
        return context.get_dummy_value()
    return types.none(arrays), codegen


def axis_frames(topology, params):
    """Fill the axis-frame fields of ``params`` from the others (at compile time; NumPy).

    A body's axis frame is its body frame turned so that z lies along its joint's axis a, Q = [x y a], for a
    revolute joint, and the body frame itself (Q = 1) for the other joints. In axis frames the rotation of a
    revolute joint is R_z(θ) (a product with it mixes two columns: 12 multiplications instead of Rodrigues' 15
    and a 3 × 3 product's 27) and its world axis is the third column of the frame's world rotation. Stored per
    body: the placement in its parent's axis frame, Q_λᵀ R_tree Q and Q_λᵀ p_tree (F_ZRTREE, F_ZPTREE); the
    central inertia Qᵀ Ī Q as (xx, yy, zz, xy, xz, yz), Ī = I_O − m [c]×ᵀ[c]× from the rotational inertia I_O
    about the body origin (parallel axes, RBDA eq. 2.63) (F_ZCENTRAL); the mass center Qᵀ c (F_ZCOM); Qᵀ I_O Q
    (F_ZINERTIA); Q row major (F_ZAXES)."""
    frames = []
    for i in range(topology.shape[0]):
        Q = np.eye(3)
        if topology[i, JTYPE] == REVOLUTE:
            a = params[i, F_AXIS:F_AXIS + 3]
            x = np.cross(np.eye(3)[np.argmin(np.abs(a))], a)
            x /= np.linalg.norm(x)
            Q = np.column_stack([x, np.cross(a, x), a])
        frames.append(Q)
        Q_parent = frames[topology[i, PARENT]] if topology[i, PARENT] >= 0 else np.eye(3)
        params[i, F_ZRTREE:F_ZRTREE + 9] = (Q_parent.T @ params[i, F_RTREE:F_RTREE + 9].reshape(3, 3) @ Q).ravel()
        params[i, F_ZPTREE:F_ZPTREE + 3] = Q_parent.T @ params[i, F_PTREE:F_PTREE + 3]
        m, c = params[i, F_MASS], params[i, F_COM:F_COM + 3]
        I_O = params[i, F_INERTIA:F_INERTIA + 36].reshape(6, 6)[:3, :3]
        upper = [0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]
        params[i, F_ZCENTRAL:F_ZCENTRAL + 6] = (Q.T @ (I_O - m * (c @ c * np.eye(3) - np.outer(c, c))) @ Q)[upper]
        params[i, F_ZCOM:F_ZCOM + 3] = Q.T @ c
        params[i, F_ZINERTIA:F_ZINERTIA + 6] = (Q.T @ I_O @ Q)[upper]
        params[i, F_ZAXES:F_ZAXES + 9] = Q.ravel()


def packed_size(n):
    """Length of the packed model of n bodies."""
    return P_TOPOLOGY + (6 + NPARAMS) * n


def unpacked(packed):
    """(topology, params, gravity): the views of the packed model."""
    n = int(packed[P_NBODIES])
    start = P_TOPOLOGY + 6 * n
    return (packed[P_TOPOLOGY:start].view(np.int64).reshape(n, 6),
            packed[start:start + NPARAMS * n].reshape(n, NPARAMS), packed[P_GRAVITY:P_TOPOLOGY])


@intrinsic
def _pointer(typingctx, array, offset, dtype):
    """Pointer to array[offset] of a 1-d array, typed as pointing to ``dtype`` values."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.bitcast(builder.gep(data, [args[1]]), context.get_value_type(signature.return_type))
    return types.CPointer(dtype.dtype)(array, types.intp, dtype), codegen


@intrinsic
def wide_vectors(typingctx):
    """Let LLVM vectorize the kernel it is called in with 512-bit registers on a CPU that has AVX-512: the function
    attribute "prefer-vector-width"="512" (LLVM's x86 backend reads it per function). For the lane loops of
    :mod:`._batch`, long loops over states with no branch, where LLVM's default on Intel server cores (256 bits,
    for fear of the clock slowing under 512-bit instructions) leaves half of each register unused: measured in one
    process against the same kernels without it, on an Intel Xeon (Emerald Rapids): lockstep RK4 of the 7-link chain
    +9–14 % on 1 thread, +11–20 % on 2. Not for the single-state kernels (the same attribute on the scalar ABA made
    DOP853 runs 1–2 % slower). No effect where 512-bit vectors are absent (AVX2: LLVM takes the widest it has) or on
    other architectures, which ignore the attribute. Call it once, first in the kernel body."""
    def codegen(context, builder, signature, args):  # (llvmlite's attribute set takes only names it knows)
        set.add(builder.function.attributes, '"prefer-vector-width"="512"')
        return context.get_dummy_value()
    return types.none(), codegen


@overload(unpacked)
def _unpacked_compiled(packed):
    """:func:`unpacked` in compiled code: arrays over the packed buffer's memory, built without NumPy views (a view
    costs a reference-count update and its shape checks: 0.15 µs of the three, measured, against ~0.01)."""
    def compiled(packed):
        n = int(packed[P_NBODIES])
        return (numba.carray(_pointer(packed, P_TOPOLOGY, np.int64), (n, 6)),
                numba.carray(_pointer(packed, P_TOPOLOGY + 6 * n, np.float64), (n, NPARAMS)),
                numba.carray(_pointer(packed, P_GRAVITY, np.float64), (3,)))
    return compiled


# sin and cos in a vectorized loop (np.sin and np.cos are library calls: ~12 ns a pair, 14 % of the lanes' ABA of
# the 7-link chain; in the single-state kernels each call also spills the floating-point registers), here by
# Cody–Waite reduction x = n π/2 + r, |r| ≤ π/4, with π/2 split in three parts
# (33 + 33 + 53 bits, so that n π/2 is exact for |n| < 2²⁰), and fdlibm's minimax polynomials of sin and cos on
# [−π/4, π/4] (error < 1 ulp); the quadrant n mod 4 picks ±sin r or ±cos r. Branch-free, so the loop vectorizes
# (1.3 ns a pair); within 2 ulp of libm, measured on 10⁶ angles in [−10⁵, 10⁵].
SIN_POLY = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
            2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
COS_POLY = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
            -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)
PIO2 = (1.57079632673412561417e+00, 6.07710050630396597660e-11, 2.02226624871116645580e-21)
SINCOS_RANGE = 1e5  # [rad] past it (any angle of a loop), np.sin and np.cos


@inline
def sin_cos(x):
    """(sin x, cos x) for |x| < SINCOS_RANGE, branch-free (see SIN_POLY)."""
    n = np.floor(x * (2.0 / np.pi) + 0.5)
    r = ((x - n * PIO2[0]) - n * PIO2[1]) - n * PIO2[2]
    z = r * r
    S, C = SIN_POLY, COS_POLY
    s = r + r * z * (S[0] + z * (S[1] + z * (S[2] + z * (S[3] + z * (S[4] + z * S[5])))))
    c = 1.0 - 0.5 * z + z * z * (C[0] + z * (C[1] + z * (C[2] + z * (C[3] + z * (C[4] + z * C[5])))))
    k = np.int64(n) & 3  # sin x = s, c, −s, −c and cos x = c, −s, −c, s in quadrants k = 0, 1, 2, 3
    sine, cosine = (c, s) if k & 1 else (s, c)
    return (-sine if k & 2 else sine), (-cosine if (k + 1) & 2 else cosine)


@inline
def sines_cosines(x, SC):
    """SC[0, k], SC[1, k] = sin x_k, cos x_k for each entry of the vector x, in one vectorized loop
    (:func:`sin_cos`; np.sin and np.cos if any |x_k| is beyond SINCOS_RANGE)."""
    largest = 0.0
    for k in range(x.shape[0]):
        largest = max(largest, abs(x[k]))
    if largest < SINCOS_RANGE:
        for k in range(x.shape[0]):
            SC[0, k], SC[1, k] = sin_cos(x[k])
    else:
        for k in range(x.shape[0]):
            SC[0, k], SC[1, k] = np.sin(x[k]), np.cos(x[k])


@njit_without_refcounts(cache=True)
def all_finite(x):
    """True if every entry of the array x is finite (the core's NaN guard on its outputs)."""
    for value in x.flat:
        if not np.isfinite(value):
            return False
    return True


@inline
def quaternion_rotation(q, o):
    """The rotation matrix of the quaternion q[o:o+4] = (w, x, y, z) as a row-major 9-tuple, normalized here so
    round-off in q does not scale it. A zero quaternion, or one whose squared norm overflows, gives NaN (which
    the callers' guard reports, naming the joint) rather than a division by zero or a wrong rotation."""
    w, x, y, z = q[o], q[o + 1], q[o + 2], q[o + 3]
    square = w * w + x * x + y * y + z * z
    s = 1.0 / np.sqrt(square) if 0.0 < square < np.inf else np.nan
    w, x, y, z = w * s, x * s, y * s, z * s
    return (1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))


@inline
def rodrigues(ax, ay, az, s, c):
    """R = I + sin θ [a]× + (1 − cos θ) [a]×² for a unit axis a, from s = sin θ and c = cos θ, as a row-major
    9-tuple."""
    t = 1.0 - c
    return (c + t * ax * ax, t * ax * ay - s * az, t * ax * az + s * ay,
            t * ax * ay + s * az, c + t * ay * ay, t * ay * az - s * ax,
            t * ax * az - s * ay, t * ay * az + s * ax, c + t * az * az)


@inline
def motion_to_child(R, p, i, m, j, out, k):
    """out[k] = X_i m[j]: motion vector from parent to body-i coordinates.

    ω_i = Rᵀ ω, v_i = Rᵀ (v + ω × p)  (RBDA eq. 2.24 with E = Rᵀ, r = p).
    """
    w0, w1, w2 = m[j, 0], m[j, 1], m[j, 2]
    v0 = m[j, 3] + w1 * p[i, 2] - w2 * p[i, 1]
    v1 = m[j, 4] + w2 * p[i, 0] - w0 * p[i, 2]
    v2 = m[j, 5] + w0 * p[i, 1] - w1 * p[i, 0]
    for c in range(3):
        out[k, c] = R[i, 0, c] * w0 + R[i, 1, c] * w1 + R[i, 2, c] * w2
        out[k, 3 + c] = R[i, 0, c] * v0 + R[i, 1, c] * v1 + R[i, 2, c] * v2


@inline
def force_to_parent(R, p, i, f, out, k):
    """out[k] += X_iᵀ f: the force f (6-tuple) from body-i to parent coordinates.

    f_λ = R f_i, n_λ = R n_i + p × f_λ  (RBDA eq. 2.25).
    """
    fx = R[i, 0, 0] * f[3] + R[i, 0, 1] * f[4] + R[i, 0, 2] * f[5]
    fy = R[i, 1, 0] * f[3] + R[i, 1, 1] * f[4] + R[i, 1, 2] * f[5]
    fz = R[i, 2, 0] * f[3] + R[i, 2, 1] * f[4] + R[i, 2, 2] * f[5]
    for r in range(3):
        out[k, r] += R[i, r, 0] * f[0] + R[i, r, 1] * f[1] + R[i, r, 2] * f[2]
    out[k, 0] += p[i, 1] * fz - p[i, 2] * fy
    out[k, 1] += p[i, 2] * fx - p[i, 0] * fz
    out[k, 2] += p[i, 0] * fy - p[i, 1] * fx
    out[k, 3] += fx
    out[k, 4] += fy
    out[k, 5] += fz


@inline
def row6(X, i):
    """Row i of an (n, 6) array of spatial vectors as a 6-tuple (values in registers)."""
    return X[i, 0], X[i, 1], X[i, 2], X[i, 3], X[i, 4], X[i, 5]


@inline
def cross_motion(v, m):
    """v ×m m = [ω × m_ω; ω × m_v + v × m_ω] for spatial motion vectors given as 6-tuples (RBDA eq. 2.31)."""
    return (v[1] * m[2] - v[2] * m[1],
            v[2] * m[0] - v[0] * m[2],
            v[0] * m[1] - v[1] * m[0],
            v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1],
            v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2],
            v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0])


@inline
def cross_force(v, f):
    """v ×* f = [ω × n + v × f; ω × f] for a motion v and a force f given as 6-tuples (RBDA eq. 2.32)."""
    return (v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4],
            v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5],
            v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3],
            v[1] * f[5] - v[2] * f[4],
            v[2] * f[3] - v[0] * f[5],
            v[0] * f[4] - v[1] * f[3])


@inline
def subspace_times(params, i, nvj, x, iv):
    """S_i x[iv:iv+nvj] as a 6-tuple: joint velocity (or acceleration) as a spatial vector in body axes."""
    s0 = s1 = s2 = s3 = s4 = s5 = 0.0
    for c in range(nvj):
        xc = x[iv + c]
        s0 += params[i, F_S + c] * xc
        s1 += params[i, F_S + 6 + c] * xc
        s2 += params[i, F_S + 12 + c] * xc
        s3 += params[i, F_S + 18 + c] * xc
        s4 += params[i, F_S + 24 + c] * xc
        s5 += params[i, F_S + 30 + c] * xc
    return s0, s1, s2, s3, s4, s5


@inline
def rigid_inertia_times(mass, h0, h1, h2, I00, I11, I22, I01, I02, I12, w0, w1, w2, v0, v1, v2):
    """The spatial inertia of a rigid body in compact form — mass M, first moment h = M c (c the mass center) and
    rotational inertia I about the reference point — times the motion vector [ω; v]:
    [I ω + h × v; M v − h × ω] (RBDA eq. 2.63), 24 products instead of the 36 of the 6 × 6 matrix."""
    return (I00 * w0 + I01 * w1 + I02 * w2 + h1 * v2 - h2 * v1,
            I01 * w0 + I11 * w1 + I12 * w2 + h2 * v0 - h0 * v2,
            I02 * w0 + I12 * w1 + I22 * w2 + h0 * v1 - h1 * v0,
            mass * v0 - h1 * w2 + h2 * w1,
            mass * v1 - h2 * w0 + h0 * w2,
            mass * v2 - h0 * w1 + h1 * w0)


@inline
def inertia_times(params, i, m):
    """I_i m for body i's spatial inertia (about its origin, body axes) and a motion vector m (6-tuple)."""
    mass = params[i, F_MASS]
    return rigid_inertia_times(mass, mass * params[i, F_COM], mass * params[i, F_COM + 1], mass * params[i, F_COM + 2],
                               params[i, F_INERTIA], params[i, F_INERTIA + 7], params[i, F_INERTIA + 14],
                               params[i, F_INERTIA + 1], params[i, F_INERTIA + 2], params[i, F_INERTIA + 8],
                               m[0], m[1], m[2], m[3], m[4], m[5])


@inline
def rotation_product(A, B):
    """A B for 3×3 matrices given as row-major 9-tuples."""
    return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6], A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
            A[0] * B[2] + A[1] * B[5] + A[2] * B[8], A[3] * B[0] + A[4] * B[3] + A[5] * B[6],
            A[3] * B[1] + A[4] * B[4] + A[5] * B[7], A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
            A[6] * B[0] + A[7] * B[3] + A[8] * B[6], A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
            A[6] * B[2] + A[7] * B[5] + A[8] * B[8])


@inline
def rotated(M, R):
    """R M Rᵀ for 3×3 matrices given as row-major 9-tuples (values in registers), through W = M Rᵀ."""
    W = (M[0] * R[0] + M[1] * R[1] + M[2] * R[2], M[0] * R[3] + M[1] * R[4] + M[2] * R[5],
         M[0] * R[6] + M[1] * R[7] + M[2] * R[8], M[3] * R[0] + M[4] * R[1] + M[5] * R[2],
         M[3] * R[3] + M[4] * R[4] + M[5] * R[5], M[3] * R[6] + M[4] * R[7] + M[5] * R[8],
         M[6] * R[0] + M[7] * R[1] + M[8] * R[2], M[6] * R[3] + M[7] * R[4] + M[8] * R[5],
         M[6] * R[6] + M[7] * R[7] + M[8] * R[8])
    return rotation_product(R, W)


@inline
def rotated_to_world(R0, i, x, y, z):
    """R0[i] (x, y, z): a 3-vector of body-i axes in world axes, as a 3-tuple."""
    return (R0[i, 0, 0] * x + R0[i, 0, 1] * y + R0[i, 0, 2] * z, R0[i, 1, 0] * x + R0[i, 1, 1] * y + R0[i, 1, 2] * z,
            R0[i, 2, 0] * x + R0[i, 2, 1] * y + R0[i, 2, 2] * z)


@inline
def subspace_column_in_world_axes(params, i, k, R0):
    """Column k of body i's motion subspace in world axes about the body origin, [R0 S_ω; R0 S_v], as a 6-tuple."""
    w = rotated_to_world(R0, i, params[i, F_S + k], params[i, F_S + 6 + k], params[i, F_S + 12 + k])
    v = rotated_to_world(R0, i, params[i, F_S + 18 + k], params[i, F_S + 24 + k], params[i, F_S + 30 + k])
    return w[0], w[1], w[2], v[0], v[1], v[2]


# Symmetric 6 × 6 matrices [[A, B], [Bᵀ, C]] (the articulated-body inertias) stored as 21 entries: A and C as
# (xx, yy, zz, xy, xz, yz), B row major.
SYM_A, SYM_B, SYM_C, NSYM = 0, 6, 15, 21


@inline
def symmetric_times(S, i, m):
    """S[i] m = [A ω + B v; Bᵀ ω + C v] for a symmetric 6×6 matrix S[i] in 21-entry storage and a motion vector
    m = [ω; v] (6-tuple), as a 6-tuple."""
    w0, w1, w2, v0, v1, v2 = m
    return (S[i, 0] * w0 + S[i, 3] * w1 + S[i, 4] * w2 + S[i, 6] * v0 + S[i, 7] * v1 + S[i, 8] * v2,
            S[i, 3] * w0 + S[i, 1] * w1 + S[i, 5] * w2 + S[i, 9] * v0 + S[i, 10] * v1 + S[i, 11] * v2,
            S[i, 4] * w0 + S[i, 5] * w1 + S[i, 2] * w2 + S[i, 12] * v0 + S[i, 13] * v1 + S[i, 14] * v2,
            S[i, 6] * w0 + S[i, 9] * w1 + S[i, 12] * w2 + S[i, 15] * v0 + S[i, 18] * v1 + S[i, 19] * v2,
            S[i, 7] * w0 + S[i, 10] * w1 + S[i, 13] * w2 + S[i, 18] * v0 + S[i, 16] * v1 + S[i, 20] * v2,
            S[i, 8] * w0 + S[i, 11] * w1 + S[i, 14] * w2 + S[i, 19] * v0 + S[i, 20] * v1 + S[i, 17] * v2)


@inline
def symmetric_subtract(S, i, x, y):
    """S[i] −= x yᵀ in 21-entry storage, for 6-tuples x, y whose product (or the sum of such products over
    several calls) is symmetric: only the stored entries are computed."""
    _subtract_diagonal_block(S, i, 0, x, y, 0)
    for r in range(3):
        for c in range(3):
            S[i, 6 + 3 * r + c] -= x[r] * y[3 + c]
    _subtract_diagonal_block(S, i, 15, x, y, 3)


@inline
def _subtract_diagonal_block(S, i, first, x, y, o):
    """S[i, first:first + 6] −= the stored entries (xx, yy, zz, xy, xz, yz) of the diagonal 3×3 block
    x[o:o + 3] y[o:o + 3]ᵀ (:func:`symmetric_subtract`)."""
    S[i, first] -= x[o] * y[o]
    S[i, first + 1] -= x[o + 1] * y[o + 1]
    S[i, first + 2] -= x[o + 2] * y[o + 2]
    S[i, first + 3] -= x[o] * y[o + 1]
    S[i, first + 4] -= x[o] * y[o + 2]
    S[i, first + 5] -= x[o + 1] * y[o + 2]


@inline
def symmetric_add_shifted(S, i, dx, dy, dz, out, k):
    """out[k] += X_dᵀ S[i] X_d for a symmetric 6×6 matrix in 21-entry storage and X_d the translation of the
    reference point by d = (dx, dy, dz), axes unchanged (a force or inertia about the point d moved to the origin):
    with S = [[A, B], [Bᵀ, C]], C'' = C,  B'' = B + [d]× C,  A'' = A + [d]× Bᵀ − B'' [d]×  (RBDA eq. 2.66, R = 1)."""
    A00, A11, A22, A01, A02, A12 = S[i, 0], S[i, 1], S[i, 2], S[i, 3], S[i, 4], S[i, 5]
    B00, B01, B02, B10, B11, B12, B20, B21, B22 = (S[i, 6], S[i, 7], S[i, 8], S[i, 9], S[i, 10], S[i, 11], S[i, 12],
                                                   S[i, 13], S[i, 14])
    C00, C11, C22, C01, C02, C12 = S[i, 15], S[i, 16], S[i, 17], S[i, 18], S[i, 19], S[i, 20]
    # B'' = B + [d]× C  (column c of [d]× C is d × C[:, c])
    E00, E01, E02 = B00 + dy * C02 - dz * C01, B01 + dy * C12 - dz * C11, B02 + dy * C22 - dz * C12
    E10, E11, E12 = B10 + dz * C00 - dx * C02, B11 + dz * C01 - dx * C12, B12 + dz * C02 - dx * C22
    E20, E21, E22 = B20 + dx * C01 - dy * C00, B21 + dx * C11 - dy * C01, B22 + dx * C12 - dy * C02
    # A'' = A + [d]× Bᵀ − B'' [d]×  (entry (r, c): (d × B[c, :])_r − (B''[r, :] × d)_c; the upper triangle)
    out[k, 0] += A00 + (dy * B02 - dz * B01) - (E01 * dz - E02 * dy)
    out[k, 1] += A11 + (dz * B10 - dx * B12) - (E12 * dx - E10 * dz)
    out[k, 2] += A22 + (dx * B21 - dy * B20) - (E20 * dy - E21 * dx)
    out[k, 3] += A01 + (dy * B12 - dz * B11) - (E02 * dx - E00 * dz)
    out[k, 4] += A02 + (dy * B22 - dz * B21) - (E00 * dy - E01 * dx)
    out[k, 5] += A12 + (dz * B20 - dx * B22) - (E10 * dy - E11 * dx)
    out[k, 6], out[k, 7], out[k, 8] = out[k, 6] + E00, out[k, 7] + E01, out[k, 8] + E02
    out[k, 9], out[k, 10], out[k, 11] = out[k, 9] + E10, out[k, 10] + E11, out[k, 11] + E12
    out[k, 12], out[k, 13], out[k, 14] = out[k, 12] + E20, out[k, 13] + E21, out[k, 14] + E22
    for r in range(6):
        out[k, 15 + r] += S[i, 15 + r]


@inline
def joint_pose(jtype, params, i, q, iq):
    """Pose of the child body in the joint frame (RBDA Table 4.1): R_J (child axes → joint axes) as a row-major
    9-tuple and the origin p_J as a 3-tuple."""
    ax, ay, az = params[i, F_AXIS], params[i, F_AXIS + 1], params[i, F_AXIS + 2]
    identity, origin = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0)
    if jtype == REVOLUTE:
        return rodrigues(ax, ay, az, np.sin(q[iq]), np.cos(q[iq])), origin
    if jtype == PRISMATIC:
        return identity, (ax * q[iq], ay * q[iq], az * q[iq])
    if jtype == CYLINDRICAL:
        return rodrigues(ax, ay, az, np.sin(q[iq]), np.cos(q[iq])), (ax * q[iq + 1], ay * q[iq + 1], az * q[iq + 1])
    if jtype == SPHERICAL:
        return quaternion_rotation(q, iq), origin
    if jtype == FREE:
        return quaternion_rotation(q, iq + 3), (q[iq], q[iq + 1], q[iq + 2])
    if jtype == PLANAR:
        return rodrigues(0.0, 0.0, 1.0, np.sin(q[iq + 2]), np.cos(q[iq + 2])), (q[iq], q[iq + 1], 0.0)
    return identity, origin


@inline
def placed(params, i, RJ, pJ):
    """The joint pose (R_J row-major 9-tuple, p_J 3-tuple) composed with body i's joint placement: the pose of body i
    in its parent, (R_tree R_J, p_tree + R_tree p_J)."""
    T = (params[i, F_RTREE], params[i, F_RTREE + 1], params[i, F_RTREE + 2], params[i, F_RTREE + 3],
         params[i, F_RTREE + 4], params[i, F_RTREE + 5], params[i, F_RTREE + 6], params[i, F_RTREE + 7],
         params[i, F_RTREE + 8])
    return rotation_product(T, RJ), (params[i, F_PTREE] + T[0] * pJ[0] + T[1] * pJ[1] + T[2] * pJ[2],
                                     params[i, F_PTREE + 1] + T[3] * pJ[0] + T[4] * pJ[1] + T[5] * pJ[2],
                                     params[i, F_PTREE + 2] + T[6] * pJ[0] + T[7] * pJ[1] + T[8] * pJ[2])


@njit(cache=True)
def poses(topology, params, q, R, p, in_world):
    """R[i], p[i]: pose of body i in its parent body, placement ∘ joint: R_i = R_tree R_J, p_i = p_tree + R_tree p_J
    — or with ``in_world``, in the world: R0_i = R0_λ R_i, p0_i = p0_λ + R0_λ p_i.

    Revolute joints, the common case, skip the branches of :func:`joint_pose`: the general path also costs
    reference-count updates of the arrays it is handed (measured 1.5× slower for a chain of revolute joints)."""
    for i in range(topology.shape[0]):
        jtype, iq = topology[i, JTYPE], topology[i, IQ]
        if jtype == REVOLUTE:
            RJ = rodrigues(params[i, F_AXIS], params[i, F_AXIS + 1], params[i, F_AXIS + 2], np.sin(q[iq]),
                           np.cos(q[iq]))
            pJ = (0.0, 0.0, 0.0)
        else:
            RJ, pJ = joint_pose(jtype, params, i, q, iq)
        Ri, pi = placed(params, i, RJ, pJ)
        lam = topology[i, PARENT]
        if in_world and lam >= 0:
            for r in range(3):
                p[i, r] = p[lam, r] + R[lam, r, 0] * pi[0] + R[lam, r, 1] * pi[1] + R[lam, r, 2] * pi[2]
                for c in range(3):
                    R[i, r, c] = R[lam, r, 0] * Ri[c] + R[lam, r, 1] * Ri[3 + c] + R[lam, r, 2] * Ri[6 + c]
        else:
            for r in range(3):
                p[i, r] = pi[r]
                for c in range(3):
                    R[i, r, c] = Ri[3 * r + c]


@njit(cache=True)
def local_poses(topology, params, q, R, p):
    """R[i], p[i]: pose of body i in its parent body (:func:`poses`)."""
    poses(topology, params, q, R, p, False)


@njit(cache=True)
def world_poses(topology, params, q, R0, p0):
    """R0[i], p0[i]: pose of body i in the world (:func:`poses`)."""
    poses(topology, params, q, R0, p0, True)


@njit(cache=True)
def body_velocities(topology, params, R, p, v, V):
    """V[i]: spatial velocity of body i in body axes, v_i = X_i v_λ + S_i q̇_i (RBDA eq. 5.7). V: (n + 1, 6),
    row −1 the world (set to zero here)."""
    V[-1, :] = 0.0
    for i in range(topology.shape[0]):
        motion_to_child(R, p, i, V, topology[i, PARENT], V, i)
        vJ = subspace_times(params, i, topology[i, NVJ], v, topology[i, IV])
        for r in range(6):
            V[i, r] += vJ[r]
