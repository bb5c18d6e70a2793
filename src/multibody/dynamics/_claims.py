"""A batch's chunks claimed one by one by the threads that share it, in compiled code.

Each thread runs one compiled share of the batch (:func:`in_claimed_chunks`), which takes the next chunk from a
shared counter (:func:`claim`) until none is left and counts each chunk it has finished (:func:`finished`); the
calling thread, once its own share returns, waits for the chunks other threads still hold (:func:`wait_finished`),
not for threads: a helper thread that starts late (a woken vCPU can take milliseconds) finds every chunk taken and
returns at once, and one slowed by another process takes fewer. One call per thread, not per
task: each call of a compiled kernel with a batch's ~17 array arguments costs ~11 µs of Python with the GIL held,
and each share sets up its work arrays once. The counter: an int64 array of CLAIMS entries, zeros to start
(:func:`claims`); the claim and the count are atomic read-modify-writes (LLVM ``atomicrmw``), the count and the wait
a release–acquire pair, so that what a thread wrote for its chunks is seen by the caller once they are counted.
"""
import platform
import time
from collections.abc import Callable

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._threads import alongside

NEXT, FINISHED = 0, 8  # entries of the counter: the next chunk to take, the chunks finished (a cache line apart)
CLAIMS = 16


def claims() -> np.ndarray:
    """A fresh counter for one batch: no chunk taken, none finished."""
    return np.zeros(CLAIMS, dtype=np.int64)


def _entry(context, builder, array_type, array, index):
    """A pointer to the int64 entry ``index`` (a Python int) of a counter array."""
    counter = context.make_array(array_type)(context, builder, array)
    return cgutils.get_item_pointer2(context, builder, counter.data, cgutils.unpack_tuple(builder, counter.shape),
                                     cgutils.unpack_tuple(builder, counter.strides), array_type.layout,
                                     [ir.Constant(ir.IntType(64), index)])


def _is_counter(counter) -> bool:
    """Whether a numba type is a counter's (:func:`claims`): an int64 array. The intrinsics below type nothing else."""
    return isinstance(counter, types.Array) and counter.dtype == types.int64


@intrinsic
def claim(typingctx, counter):
    """The index of the next chunk, taken by this thread (an atomic fetch-and-add of the counter's NEXT)."""
    if not _is_counter(counter):
        return None

    def codegen(context, builder, signature, args):
        return builder.atomic_rmw("add", _entry(context, builder, counter, args[0], NEXT),
                                  ir.Constant(ir.IntType(64), 1), "monotonic")
    return types.int64(counter), codegen


@intrinsic
def finished(typingctx, counter):
    """Count one more chunk finished (an atomic add with release order: the chunk's results are written first)."""
    if not _is_counter(counter):
        return None

    def codegen(context, builder, signature, args):
        builder.atomic_rmw("add", _entry(context, builder, counter, args[0], FINISHED), ir.Constant(ir.IntType(64), 1),
                           "release")
        return context.get_dummy_value()
    return types.none(counter), codegen


@intrinsic
def finished_count(typingctx, counter):
    """The chunks finished so far (an atomic load with acquire order: their results are seen after it)."""
    if not _is_counter(counter):
        return None

    def codegen(context, builder, signature, args):
        return builder.load_atomic(_entry(context, builder, counter, args[0], FINISHED), "acquire", 8)
    return types.int64(counter), codegen


@intrinsic
def pause(typingctx):
    """A spin-wait hint to the processor: x86's PAUSE (on a virtual machine it also lets the hypervisor run another
    vCPU, by pause-loop exiting), ARM's YIELD; nothing on other architectures."""
    def codegen(context, builder, signature, args):
        machine = platform.machine().lower()
        if machine in ("x86_64", "amd64"):
            builder.call(cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                        "llvm.x86.sse2.pause"), [])
        elif machine in ("aarch64", "arm64"):  # (HINT #1: YIELD)
            builder.call(cgutils.get_or_insert_function(builder.module, ir.FunctionType(
                ir.VoidType(), [ir.IntType(32)]), "llvm.aarch64.hint"), [ir.Constant(ir.IntType(32), 1)])
        return context.get_dummy_value()
    return types.none(), codegen


SPINS = 16384  # spin-wait rounds, a PAUSE each (~0.23 ms on the 2-vCPU Xeon), before the waiting thread sleeps
SLEEP_S = 50e-6  # [s] the sleep between spins


@njit(cache=True, nogil=True)
def finished_within(counter, chunks, spins):
    """Whether ``chunks`` chunks are finished, spinning on atomic loads (and PAUSE) for up to ``spins`` rounds,
    without the GIL."""
    for _ in range(spins):
        if finished_count(counter) >= chunks:
            return True
        pause()
    return finished_count(counter) >= chunks


def wait_finished(counter: np.ndarray, chunks: int) -> None:
    """Return once ``chunks`` chunks are finished: as long as the other threads still compute the chunks they took
    (at most one each), a spin of SPINS rounds, then a sleep of SLEEP_S, and again. The sleep gives up the core: a
    thread that spins on where the threads share a core (a busy host, a process held to fewer CPUs than numba's
    thread count) keeps the thread it waits for from running. The spin covers the usual wait, the rest of one
    chunk (Talos's ∂q̈/∂x: ~0.25 ms on one core)."""
    while not finished_within(counter, chunks, SPINS):
        time.sleep(SLEEP_S)


def in_claimed_chunks(share: Callable[[np.ndarray], object], chunks: int, threads: int) -> None:
    """share(counter) on ``threads`` threads at once (:func:`~._threads.alongside`), a compiled share that claims the
    chunks 0 … chunks − 1 from one fresh counter (:func:`claims`); returns once every chunk is finished
    (:func:`wait_finished`)."""
    counter = claims()
    alongside(lambda: share(counter), threads)
    wait_finished(counter, chunks)
