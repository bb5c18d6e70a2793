"""Compiled building blocks of the recursive algorithms: spatial transforms, cross products, joint poses.

The layout of the compiled model (``topology``, ``params``, ``gravity`` and the ``packed`` buffer of the three) is
:mod:`._layout`'s; its readers of ``params`` are members of the spatial family.

Naming: ``R[i]``, ``p[i]`` are the rotation (body-i axes → parent axes) and the body-i origin in parent
axes. Spatial vectors are ``[angular; linear]`` in body axes about the body origin. Per-body arrays of
spatial vectors have n + 1 rows: row −1 (the last) is the world, so ``parent = −1`` indexes it directly.

The helpers take whole arrays plus row indices rather than slices: an array view costs a reference-count
round trip in compiled code, which dominated the run time of the first version (measured 3× slower).
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array

if TYPE_CHECKING:
    from numba.core.dispatcher import Dispatcher

from ._layout import (IQ, IV, JTYPE, NPARAMS, NQJ, NSYM, NVJ, P_GRAVITY, P_NBODIES,  # noqa: F401
                      P_TOPOLOGY, PARENT, NTOPOLOGY, unpacked)
from ._algorithm_family import algorithm_family
from ._spatial_family import COS_POLY, PIO2, SIN_POLY, SINCOS_RANGE, spatial_family  # noqa: F401

inline = njit(cache=True, inline="always")
_Kernel = TypeVar("_Kernel", bound=Callable[..., object])


def njit_without_refcounts(**options: Any) -> "Callable[[_Kernel], Dispatcher[_Kernel]]":
    """``numba.njit(**options)`` compiling without reference counting (numba's ``_nrt=False``): for kernels whose
    arrays are all arguments or :func:`work` arrays."""
    return njit(_nrt=False, **options)  # type: ignore[call-overload]  # numba's stubs omit its private _nrt option


# The spatial and joint functions (:mod:`._spatial_family`), compiled for the CPU and inlined into each kernel.
CPU = spatial_family(inline)
(sin_cos, sines_cosines, quaternion_rotation, rodrigues, motion_to_child, force_to_parent, row6, cross_motion,
 cross_force, subspace_times, rigid_inertia_times, inertia_times, rotation_product, rotated, rotated_to_world,
 subspace_column_in_world_axes, joint_pose, placed) = (
    CPU.sin_cos, CPU.sines_cosines, CPU.quaternion_rotation, CPU.rodrigues, CPU.motion_to_child, CPU.force_to_parent,
    CPU.row6, CPU.cross_motion, CPU.cross_force, CPU.subspace_times, CPU.rigid_inertia_times, CPU.inertia_times,
    CPU.rotation_product, CPU.rotated, CPU.rotated_to_world, CPU.subspace_column_in_world_axes, CPU.joint_pose,
    CPU.placed)
# The readers of the model's parameters (:func:`~._layout.accessors`), members of the family likewise.
(joint_axis, mass, mass_center, armature, motion_subspace, axis_frame) = (
    CPU.joint_axis, CPU.mass, CPU.mass_center, CPU.armature, CPU.motion_subspace, CPU.axis_frame)
# The passes of the recursive algorithms (:mod:`._algorithm_family`), compiled for the CPU each on its own and
# inlined by LLVM (``forceinline``: the same machine code as numba's ``inline="always"``, which copies a callee's
# whole IR into its caller and took most of a kernel's compile time: the ABA kernel compiles in 11 s, not 19 s).
CPU_PASSES = algorithm_family(njit_without_refcounts(cache=True, forceinline=True), CPU,
                              called=njit_without_refcounts(cache=True, forceinline=False))  # (else inherited)
poses = CPU_PASSES.poses


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


@intrinsic
def _model_arrays(typingctx, packed):
    """(topology, params, gravity) over the memory of the packed buffer (a C-contiguous float64 vector), as array
    structs without a NumPy view's reference count and checks, nor a reference-counted owner (numba.carray gives
    the same arrays, but cannot be called in a kernel compiled without reference counting)."""
    if not (isinstance(packed, types.Array) and packed.ndim == 1 and packed.dtype == types.float64):
        return None
    kinds = (types.Array(types.int64, 2, "C"), types.Array(types.float64, 2, "C"), types.Array(types.float64, 1, "C"))

    def codegen(context, builder, signature, args):
        intp = context.get_value_type(types.intp)
        data = context.make_array(signature.args[0])(context, builder, args[0]).data

        def constant(value):
            return ir.Constant(intp, value)

        def array(kind, offset, dims):  # dims: the shape, row-major
            strides, stride = [], constant(8)
            for d in reversed(dims):
                strides.insert(0, stride)
                stride = builder.mul(stride, d)
            pointer = builder.bitcast(builder.gep(data, [offset]), context.get_value_type(kind.dtype).as_pointer())
            view = make_array(kind)(context, builder)
            populate_array(view, data=pointer, shape=dims, strides=strides, itemsize=constant(8), meminfo=None)
            return view._getvalue()

        n = builder.fptosi(builder.load(builder.gep(data, [constant(P_NBODIES)])), intp)  # int(packed[P_NBODIES])
        return context.make_tuple(builder, signature.return_type, (
            array(kinds[0], constant(P_TOPOLOGY), [n, constant(NTOPOLOGY)]),
            array(kinds[1], builder.add(constant(P_TOPOLOGY), builder.mul(constant(NTOPOLOGY), n)), [n, constant(NPARAMS)]),
            array(kinds[2], constant(P_GRAVITY), [constant(3)])))
    return types.Tuple(kinds)(packed), codegen


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
    costs a reference-count update and its shape checks: 0.15 µs of the three, measured, against ~0.01); callable in
    kernels compiled with reference counting and without (:func:`_model_arrays`)."""
    def compiled(packed):
        return _model_arrays(packed)
    return compiled


@njit_without_refcounts(cache=True)
def all_finite(x):
    """True if every entry of the array x is finite (the core's NaN guard on its outputs)."""
    for value in x.flat:
        if not np.isfinite(value):
            return False
    return True


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
