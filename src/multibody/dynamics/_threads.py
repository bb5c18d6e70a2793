"""Batched calls shared out to threads: how many threads a batch's work is worth, and the pool that runs them.

A batch goes to more than one thread only when each thread's share outweighs what a thread costs to start and wait
for, so that more threads never cost: a share is at least MIN_SHARE_US of estimated one-core work. On the idle
2-vCPU Intel Xeon (a KVM guest) a kept pool thread starts 40–80 µs after it is handed work when calls follow each
other, 130–170 µs after 10 ms of idling (its vCPU woken), and now and then milliseconds later (its vCPU not given a
core); the hand-off itself (``ThreadPoolExecutor.submit``) takes the calling thread 7–35 µs. Two ways to share:
:func:`in_threads`, tasks each taken by the first thread to be free, and :func:`alongside`, one compiled share per
thread claiming the batch's chunks in compiled code (:mod:`._claims`), for the batched derivatives: one kernel call
per thread (each costs ~11 µs of Python with the GIL held) and no wait for a thread that starts late. There, on the
same host, Talos's ∂τ/∂x of 256 states takes 0.93–1.0 ms on two threads against 1.6–1.7 ms on one, called back to
back (the two threads' writes of the 8.9 MB of results share the cache's bandwidth: 1.5× for that part), and
Panda's ∂q̈/∂x 0.33–0.34 ms against 0.48–0.50 between other calls (benchmarks/bench_derivatives.py). On a busy machine, where the other threads wait for a core, a thread costs much more: there (load 6
on the 2 vCPUs) Panda's ∂τ/∂x of 256 states, ~0.25 ms of work, took 20 % longer on two threads than on one, and
150 µs is the share below which a second thread did not gain. The estimates are per state, from the model's size,
fitted on the same machine (they need only be right within a factor of about two).
"""
from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

MIN_SHARE_US = 150.0  # [µs] the least estimated work per thread worth a thread
ABA_US_PER_BODY = 0.07  # [µs] one state's ABA per body on the lanes (Intel Xeon, AVX-512, one core)

_POOLS: dict[int, ThreadPoolExecutor] = {}
_LATE: deque = deque()  # the pool's calls of alongside, oldest first, until seen done


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


def alongside(call: Callable[[], object], threads: int) -> None:
    """call() on this thread and, at the same time, on ``threads`` − 1 kept pool threads (made once per size), for
    a compiled share that claims its chunks of a batch from a shared counter and releases the GIL
    (:mod:`._claims`). Returns when this thread's call returns, waiting for no pool thread: the caller then waits
    for the chunks still held (:func:`._claims.wait_finished`); a pool thread that starts late finds nothing left.
    A pool thread's error is raised by the next call that hands it work, on the calling thread (the same compiled
    call with the same arguments raises it there first, as a rule)."""
    helpers = threads - 1
    if helpers > 0:
        if helpers not in _POOLS:
            _POOLS[helpers] = ThreadPoolExecutor(helpers, thread_name_prefix="multibody")
        for _ in range(helpers):
            _LATE.append(_POOLS[helpers].submit(call))
        while _LATE and _LATE[0].done():
            error = _LATE.popleft().exception()
            if error is not None:
                raise error
    call()
