"""Work handed from a compiled step loop to a second thread: the slots of a single-producer ring, and the atomic
operations they are claimed with.

DOP853's dense output costs 3 more evaluations of the rates on every step that holds an output time (17 % of the
evaluations of a 10 s run of the 20-link chain with 1001 samples). They depend on the step's stages only, not on
the next step, so DOP853's loop (:func:`multibody.simulate.adaptive.dormand_prince`) can post them — the step's
start state x, new state y, stages K and span [t, t + h] — to a slot, and go on with the next step while a helper
thread on another core (:func:`multibody.simulate.adaptive.serve`) computes the dense output, the output samples and the accelerations
and applied forces there (those of the trajectory).

A slot is FREE, POSTED (its step's data written) or CLAIMED (being worked on). The step loop posts to the slots in
ring order; the helper claims any POSTED slot (compare-and-swap POSTED → CLAIMED) and frees it when its samples are
written. The loop never waits for the helper alone: a slot it needs that is still POSTED it claims and computes
itself (:func:`multibody.simulate.adaptive.wait_free`), and at its end it sets DONE, then computes every slot still
POSTED and waits only for those the helper holds. So a helper that never runs (its core busy elsewhere) costs only
the copies of each step's data, and the samples are the same, bit for bit, whichever thread computed them. A
helper that finds no work for ~0.1 ms (SPINS looks) stops: on a machine with more runnable threads than cores the
loop waits for a core between its posts, and a helper that spun or slept and woke meanwhile would only take time
from it and from other processes (two processes running 10 s runs of the 20-link chain side by side on two cores:
with helpers that yield their core between looks 10 % fewer runs per second than without helpers, with helpers that
sleep 50 µs between looks 30 % fewer, with helpers that stop as here the same).
"""
from __future__ import annotations

import platform

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

FREE, POSTED, CLAIMED = 0, 1, 2  # a slot's state
DONE = 1  # flags[R], past the R slots: the loop posts no more
SLOTS = 4  # slots in the ring: the helper may lag this many steps behind
SPINS = 4096  # looks for work (a pause between two) of a helper without work before it stops: ~0.1 ms, several
#               steps of the loop, which on a free core posts more often


def _element_pointer(context, builder, array_type, array, index):
    ary = context.make_array(array_type)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, array_type, ary, [index], wraparound=False)


@intrinsic
def load_acquire(typingctx, flags, index):
    """flags[index] of an int64 array, read atomically, with acquire order: what the thread that stored it wrote
    before is seen after."""
    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(pointer, "acquire", 8)
    return types.int64(flags, types.intp), codegen


@intrinsic
def store_release(typingctx, flags, index, value):
    """flags[index] = value in an int64 array, atomically, with release order: what this thread wrote before is
    seen by the thread that loads it (:func:`load_acquire`)."""
    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        value = context.cast(builder, args[2], signature.args[2], types.int64)
        builder.store_atomic(value, pointer, "release", 8)
        return context.get_dummy_value()
    return types.none(flags, types.intp, value), codegen


@intrinsic
def claim(typingctx, flags, index, expected, new):
    """Atomically flags[index] = new if it is ``expected`` (compare-and-swap, acquire and release order): True if
    it was, and this thread then holds the slot."""
    def codegen(context, builder, signature, args):
        pointer = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        expected = context.cast(builder, args[2], signature.args[2], types.int64)
        new = context.cast(builder, args[3], signature.args[3], types.int64)
        result = builder.cmpxchg(pointer, expected, new, "acq_rel", "acquire")
        return builder.extract_value(result, 1)
    return types.boolean(flags, types.intp, expected, new), codegen


_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def pause(typingctx):
    """A spin-wait hint to the core (x86 ``pause``, LLVM's ``llvm.x86.sse2.pause``; nothing elsewhere): the other
    hardware thread of the core runs meanwhile, and leaving the loop does not flush the pipeline."""
    def codegen(context, builder, signature, args):
        if _X86:
            builder.call(cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                        "llvm.x86.sse2.pause"), [])
        return context.get_dummy_value()
    return types.none(), codegen


def ring(nx, nv, samples, slots=SLOTS):
    """The arrays of a ring of ``slots`` slots for states of nx entries (nv velocities) and ``samples`` output
    times: (flags (slots + 1,) int64, spans (slots, 3) [t, h, t + h (the step's end as the loop rounds it)], outputs
    (slots, 2) int64 [first, end) of the output times each step holds, states (slots, 2, nx) [x, y], stages
    (slots, 16, nx), accelerations (samples, nv) and applied forces (samples, nv) at the output times);
    ``ring(nx, nv, 0, 0)``: no ring, the loop computes its dense output itself."""
    return (np.zeros(slots + 1, dtype=np.int64), np.zeros((slots, 3)), np.zeros((slots, 2), dtype=np.int64),
            np.zeros((slots, 2, nx)), np.zeros((slots, 16, nx)), np.empty((samples, nv)), np.empty((samples, nv)))
