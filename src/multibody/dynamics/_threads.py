"""Batched calls shared out to threads: how many threads a batch's work is worth, and the pool that runs them.

A batch goes to more than one thread only when each thread's share outweighs what a thread costs to start and wait
for, so that more threads never cost: a share is at least MIN_SHARE_US of estimated one-core work. On the idle
2-vCPU Intel Xeon (a KVM guest) a kept pool thread starts its first task 40–70 µs after it is handed one when calls
follow each other, 130–170 µs after 10 ms of idling (its vCPU woken), ~6 µs more per further task; and while both
threads compute, each runs 1.2–1.45x slower than alone (Panda's tasks of 32 states of ∂q̈/∂x: 50–60 µs against
41), so that Panda's ∂q̈/∂x of 256 states (~0.33 ms on one core) gains ~15 % from a second thread, and
Talos's (~4 ms) ~1.7x. On a busy machine, where the other threads wait for a core, a thread costs much more: there
(load 6 on the 2 vCPUs) Panda's ∂τ/∂x of 256 states, ~0.25 ms of work, took 20 % longer on two threads than on
one, and 150 µs is the share below which a second thread did not gain. The estimates are per state, from the
model's size, fitted on the same machine (they need only be right within a factor of about two).
"""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

MIN_SHARE_US = 150.0  # [µs] the least estimated work per thread worth a thread
MIN_TASK_US = 50.0  # [µs] the least estimated work per task: a task costs some µs of Python (the call, its turn)
ABA_US_PER_BODY = 0.07  # [µs] one state's ABA per body on the lanes (Intel Xeon, AVX-512, one core)

_POOLS: dict[int, ThreadPoolExecutor] = {}


def threads_for(work_us: float, most: int) -> int:
    """The number of threads, 1 … most, for a batch of ``work_us`` µs of estimated one-core work: as many as give
    each at least MIN_SHARE_US."""
    return max(1, min(most, int(work_us // MIN_SHARE_US)))


def aba_threads(states: int, bodies: int, most: int) -> int:
    """:func:`threads_for` a batched ABA of ``states`` states of a model of ``bodies`` bodies (ABA_US_PER_BODY)."""
    return threads_for(states * bodies * ABA_US_PER_BODY, most)


def in_threads(task: Callable[[int], object], count: int, threads: int) -> None:
    """task(0), …, task(count − 1): in this thread if ``threads`` is 1, else on this thread and ``threads`` − 1 kept
    pool threads (made once per size; the tasks are compiled calls that release the GIL), each taking the next task
    when it is free (a thread slowed by another process on its core takes fewer). Returns when every task has run,
    without waiting for a pool thread that has taken none (on a busy machine one may not get a core for
    milliseconds: the calling thread then runs them all); raises the first error a task raised."""
    if threads == 1 or count == 1:
        for k in range(count):
            task(k)
        return
    helpers = min(threads, count) - 1
    if helpers not in _POOLS:
        _POOLS[helpers] = ThreadPoolExecutor(helpers, thread_name_prefix="multibody")
    tasks, done, errors = itertools.count(), threading.Semaphore(0), []  # (next() on a count is atomic under the GIL)

    def drain():
        k = next(tasks)
        while k < count:
            try:
                task(k)
            except BaseException as error:  # (handed to the calling thread)
                errors.append(error)
            finally:
                done.release()
            k = next(tasks)
    for _ in range(helpers):
        _POOLS[helpers].submit(drain)
    drain()
    for _ in range(count):
        done.acquire()
    if errors:
        raise errors[0]


def shares(count: int, work_us: float, most: int, multiple: int = 1,
           smaller: int | None = None) -> tuple[int, int]:
    """(threads, states per task) for a batch of ``count`` states of ``work_us`` µs each (estimated, one core) on at
    most ``most`` threads: tasks of a multiple of ``multiple`` states (the lanes of a compiled chunk), or of
    ``smaller``, if given, where those of ``multiple`` would leave threads idle; as many threads as give each a
    share of at least MIN_SHARE_US (:func:`threads_for`); on more than one, up to four tasks per thread and none
    below MIN_TASK_US, each taken by the first thread to be free (:func:`in_threads`: a thread slowed by another
    process on its core takes fewer)."""
    if smaller is not None and count < multiple * most:
        multiple = smaller
    chunks = -(-count // multiple)
    threads = threads_for(count * work_us, min(most, chunks))
    tasks = 1 if threads == 1 else min(chunks, 4 * threads, max(threads, int(count * work_us // MIN_TASK_US)))
    return threads, max(1, -(-chunks // tasks)) * multiple
