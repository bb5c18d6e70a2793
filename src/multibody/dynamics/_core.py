"""Compiled numeric core: Featherstone's recursive algorithms on the flat model (numba, ``cache=True``).

The model layout: :mod:`multibody.dynamics._layout`; the building blocks: :mod:`._spatial_kernels`. Each algorithm
takes the model arrays (``topology``, ``params``, ``gravity``), the state, and writes its output array; it
returns True when the output is finite (the NaN guard the public wrappers act on). Per-body work arrays are
separate arrays on each call's stack without reference counts (:func:`~._spatial_kernels.work`; rnea, crba and
aba compile with ``_nrt=False``): a heap allocation costs ~40 ns, and a measured variant that carved them from
one reused scratch array ran 5–10 % slower (the compiler can no longer tell the arrays apart).
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
from typing import Any

import numpy as np
from numba import njit, prange

from ._spatial_kernels import (CPU, CPU_PASSES, IQ, IV, NQJ, NSYM, NVJ, all_finite, inline, njit_without_refcounts,
                               unpacked, release, work)

# The family's members the algorithms below use besides those of _spatial_kernels (:mod:`._spatial_family`).
(axis_inertia_times, cross, rotation_times, axis_frame_placement, axis_frame_pose, world_frame_row,
 inertia_about_world_origin, dot6, translated, rigid_inertia_in_world_axes, invert_spd, articulate, rnea_passes,
 crba_passes, aba_passes) = (
    CPU.axis_inertia_times, CPU.cross, CPU.rotation_times, CPU.axis_frame_placement, CPU.axis_frame_pose,
    CPU.world_frame_row, CPU.inertia_about_world_origin, CPU.dot6, CPU.translated, CPU.rigid_inertia_in_world_axes,
    CPU_PASSES.invert_spd, CPU_PASSES.articulate, CPU_PASSES.rnea_passes, CPU_PASSES.crba_passes,
    CPU_PASSES.aba_passes)
_invert_spd = invert_spd

# Status of the single-state entry points (rnea_one, aba_one, crba_one).
OK, NONFINITE, WRONG_SIZE, STRIDED = 0, 1, 2, 3


@njit_without_refcounts(cache=True, fastmath={"contract"})  # (no reference counts: see work)
def rnea(topology, params, gravity, q, v, a, f_ext, tau):
    """:func:`~._algorithm_family.algorithm_family`'s ``rnea_passes`` on the CPU, its work arrays on this
    call's stack (:func:`~._spatial_kernels.work`). Returns True if every entry of the output is finite."""
    n = topology.shape[0]
    R = work((n, 3, 3))   # pose of each axis frame in its parent's
    p = work((n, 3))
    V = work((n + 1, 6))  # row −1: the world
    A = work((n + 1, 6))
    F = work((n + 1, 6))  # (row −1 collects the forces on the world, unused)
    SC = work((2, q.shape[0]))  # sin and cos of each entry of q (those of revolute joints are used)
    finite = rnea_passes(topology, params, gravity, q, v, a, f_ext, tau, R, p, V, A, F, SC)
    release((R, p, V, A, F, SC))
    return finite


@njit_without_refcounts(cache=True, fastmath={"contract"})  # (no reference counts: see work)
def crba(topology, params, q, M):
    """:func:`~._algorithm_family.algorithm_family`'s ``crba_passes`` on the CPU, its work arrays on this
    call's stack (:func:`~._spatial_kernels.work`). Returns True if every entry of the output is finite."""
    n, nv = topology.shape[0], M.shape[0]
    R0 = work((n + 1, 3, 3))       # world rotations of the axis frames; row −1: the world
    p0 = work((n + 1, 3))
    Y = work((n, 10))              # composite inertias (m, h, I), world axes, about the world origin
    s = work((nv, 6))              # s[iv + k]: column k of body i's motion subspace, world coordinates
    SC = work((2, q.shape[0]))     # sin and cos of each entry of q (those of revolute joints are used)
    finite = crba_passes(topology, params, q, M, R0, p0, Y, s, SC)
    release((R0, p0, Y, s, SC))
    return finite


@njit_without_refcounts(cache=True, fastmath={"contract"})  # (no reference counts: see work)
def aba(topology, params, gravity, q, v, tau, f_ext, qdd):
    """:func:`~._algorithm_family.algorithm_family`'s ``aba_passes`` on the CPU, its work arrays on this
    call's stack (:func:`~._spatial_kernels.work`). Returns True if every entry of the output is finite."""
    n, nv = topology.shape[0], qdd.shape[0]
    R0 = work((n, 3, 3))       # world rotations of the axis frames
    p0 = work((n, 3))          # body origins in world coordinates
    V = work((n, 6))           # body velocities, world axes about each body's origin
    IA = work((n, NSYM))       # articulated-body inertias collected at branch points (and joints of several dof)
    PA = work((n, 6))          # articulated-body bias forces, likewise
    G = work((n, 7))           # one-dof joints: d⁻¹ X_iᵀ U and d⁻¹ (u − Uᵀ c) (pass 2, for pass 3)
    branch = work((n,))        # 1 where a body has a child that does not follow it
    s = work((nv, 6))          # s[iv + k]: column k of body i's motion subspace (joints other than revolute)
    U = work((nv, 6))          # U[iv + k] = I^A_i s[iv + k] (joints of several dof)
    u = work((nv,))
    Dinv = work((n, 6, 6))
    D = work((6, 6))
    A = work((n, 6))           # accelerations of the branch points
    SC = work((2, q.shape[0]))  # sin and cos of each entry of q (those of revolute joints are used)
    aba_passes(topology, params, gravity, q, v, tau, f_ext, qdd, R0, p0, V, IA, PA, G, branch, s, U, u, Dinv, D, A, SC)
    release((R0, p0, V, IA, PA, G, branch, s, U, u, Dinv, D, A, SC))
    return all_finite(qdd)


# Single-state entry points for the public wrappers, the model packed in one array (see _spatial_kernels):
# compiled for C-contiguous float64 vectors only, so that anything else (lists, batches, other dtypes, strided
# or read-only views) raises TypeError at the call and the wrapper takes its general path; no external forces.
# They return OK, NONFINITE (an output entry is not finite), WRONG_SIZE (an array does not have the model's size)
# or STRIDED (a vector is not contiguous: see ``<name>_entry`` below).
# They compile on first use (module __getattr__, below), not at import: a signature given to @njit would compile
# at decoration time, ~20 s with a cold cache. Those here compile without reference counts, as the kernels they
# call: numba's entry point then hands each array argument to the kernel as it is, where with reference counting it
# wraps each in an owner record, allocated and freed on every call (measured 0.25 µs for five vectors, against 0.13).
VECTOR, MATRIX = "float64[::1]", "float64[:, ::1]"
_SINGLE_STATE: dict[str, tuple[Any, str]] = {}  # public name -> (dispatcher, signature)


def _single_state(name, signature, refcounts=True):
    """Register a single-state entry point compiled lazily for ``signature`` only (see __getattr__); with
    ``refcounts=False`` compiled without reference counting (:func:`~._spatial_kernels.njit_without_refcounts`: for
    a function that allocates no array). The dispatcher is made here, at import, so that its cache entries carry the
    stamp of the source it compiles."""
    def register(func):
        _SINGLE_STATE[name] = ((njit if refcounts else njit_without_refcounts)(cache=True)(func), signature)
        return func
    return register


def __getattr__(name):
    """``_core.rnea_one`` and friends: compiled (or loaded from numba's cache) on first access for their one
    signature, then compilation is disabled so that other argument types raise TypeError; the dispatcher is
    stored as a module global, so that later accesses cost a plain attribute lookup.

    ``_core.crba_one_entry`` (and so on): the compiled function's own entry point, called without numba's type
    dispatch (0.12 µs less for three arguments, 0.2 µs for five). It converts its arguments without checking their
    dtype and dimensions: given an int64 array it reads the bits as float64, given a 2-d array it reads it as a
    vector; anything but a NumPy array (a list, an array on a GPU) raises TypeError. Its callers must pass float64
    arrays (``x.dtype is FLOAT64``) of the signature's dimensions; the compiled function checks the strides itself
    (STRIDED: the caller takes its general path)."""
    base = name.removesuffix("_entry")
    if base not in _SINGLE_STATE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if base != name:
        dispatcher = globals().get(base) or __getattr__(base)
        globals()[name] = dispatcher.overloads[dispatcher.signatures[0]].entry_point
        return globals()[name]
    dispatcher, signature = _SINGLE_STATE[name]
    dispatcher.compile(signature)
    dispatcher.disable_compile()
    globals()[name] = dispatcher
    return dispatcher


FLOAT64 = np.dtype(np.float64)  # the native float64 dtype, the one the entry points' callers test for (by identity)


@inline
def contiguous(x):
    """True if the vector x has unit stride (the entry points' own check: their signature says contiguous, but
    called past the dispatcher they would read a strided view as if it were not)."""
    return x.strides[0] == 8


@inline
def sizes_fit(topology, nq, nv):
    """True if the model has nq coordinates and nv velocities."""
    last = topology.shape[0] - 1
    return topology[last, IQ] + topology[last, NQJ] == nq and topology[last, IV] + topology[last, NVJ] == nv


@inline
def state_fits(topology, q, v, x, out):
    """True if q has the model's nq entries and v, x (a or τ) and out its nv."""
    nv = out.shape[0]
    return sizes_fit(topology, q.shape[0], nv) and v.shape[0] == nv and x.shape[0] == nv


@_single_state("rnea_one", f"int64({VECTOR}, {VECTOR}, {VECTOR}, {VECTOR}, {VECTOR})", refcounts=False)
def _rnea_one(packed, q, v, a, tau):
    topology, params, gravity = unpacked(packed)
    if not state_fits(topology, q, v, a, tau):
        return WRONG_SIZE
    if not (contiguous(q) and contiguous(v) and contiguous(a)):
        return STRIDED
    return OK if rnea(topology, params, gravity, q, v, a, params[:0], tau) else NONFINITE  # params[:0]: no forces


@_single_state("aba_one", f"int64({VECTOR}, {VECTOR}, {VECTOR}, {VECTOR}, {VECTOR})", refcounts=False)
def _aba_one(packed, q, v, tau, qdd):
    topology, params, gravity = unpacked(packed)
    if not state_fits(topology, q, v, tau, qdd):
        return WRONG_SIZE
    if not (contiguous(q) and contiguous(v) and contiguous(tau)):
        return STRIDED
    return OK if aba(topology, params, gravity, q, v, tau, params[:0], qdd) else NONFINITE


@_single_state("crba_one", f"int64({VECTOR}, {VECTOR}, {MATRIX})", refcounts=False)
def _crba_one(packed, q, M):
    topology, params, _ = unpacked(packed)
    if not (sizes_fit(topology, q.shape[0], M.shape[0]) and M.shape[1] == M.shape[0]):
        return WRONG_SIZE
    if not contiguous(q):
        return STRIDED
    return OK if crba(topology, params, q, M) else NONFINITE


# Batched entry points: the loop over states runs in compiled code, in parallel.
@njit(cache=True, parallel=True)
def rnea_batch(topology, params, gravity, q, v, a, f_ext, tau):
    ok = np.empty(q.shape[0], dtype=np.bool_)
    for b in prange(q.shape[0]):
        ok[b] = rnea(topology, params, gravity, q[b], v[b], a[b], f_ext[b], tau[b])
    return ok.all()


@njit(cache=True, parallel=True)
def aba_batch(topology, params, gravity, q, v, tau, f_ext, qdd):
    ok = np.empty(q.shape[0], dtype=np.bool_)
    for b in prange(q.shape[0]):
        ok[b] = aba(topology, params, gravity, q[b], v[b], tau[b], f_ext[b], qdd[b])
    return ok.all()


@njit(cache=True, parallel=True)
def crba_batch(topology, params, q, M):
    ok = np.empty(q.shape[0], dtype=np.bool_)
    for b in prange(q.shape[0]):
        ok[b] = crba(topology, params, q[b], M[b])
    return ok.all()
