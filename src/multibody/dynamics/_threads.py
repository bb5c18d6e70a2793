"""Batched calls shared out to threads: how many threads a batch's work is worth, and the helper threads that run them.

A batch goes to more than one thread only when each thread's share outweighs what a thread costs to start and wait
for, so that more threads never cost: a share is at least MIN_SHARE_US of estimated one-core work. On the idle
2-vCPU Intel Xeon (a KVM guest) a kept helper thread starts 14–38 µs (medians) after it is handed work, the hand-off
taking the calling thread 4–22 µs (:class:`Helper`), later after an idle spell (its vCPU woken) and now and then
milliseconds later (its vCPU not given a core). Two ways to share: :func:`in_threads`, tasks each taken by the first
thread to be free, and :func:`alongside`, one compiled share per thread claiming the batch's chunks in compiled code
(:mod:`._claims`), for the batched derivatives and ABA: one kernel call per thread (each costs ~11 µs of Python with
the GIL held) and no wait for a thread that starts late. Two threads compute Talos's ∂τ/∂x of 256 states there
1.8× faster than one (their writes of the 8.9 MB of results share the cache's bandwidth: 1.5× for that part), and
Panda's ∂q̈/∂x 1.4–1.5× (benchmarks/bench_derivatives.py). On a busy machine, where the other threads wait for a
core, a thread costs much more: there (load 6 on the 2 vCPUs) Panda's ∂τ/∂x of 256 states, ~0.25 ms of work, took
20 % longer on two threads than on one, and 150 µs is the share below which a second thread did not gain. The
estimates are per state, from the model's size, fitted on the same machine (they need only be right within a
factor of about two).
"""
from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable

MIN_SHARE_US = 150.0  # [µs] the least estimated work per thread worth a thread
ABA_US_PER_BODY = 0.07  # [µs] one state's ABA per body on the lanes (Intel Xeon, AVX-512, one core)


class Helper:
    """A kept daemon thread that runs the calls put to its queue in turn and keeps the errors they raise. The
    hand-off is a ``queue.SimpleQueue`` put: 4–22 µs of the calling thread on the 2-vCPU host, the helper running
    14–38 µs after it, against 28–68 µs and 50–100 µs through ``ThreadPoolExecutor.submit`` (medians, gaps of
    0.2–10 ms between calls)."""

    def __init__(self, name: str) -> None:
        self.calls: queue.SimpleQueue[Callable[[], object]] = queue.SimpleQueue()
        self.errors: list[BaseException] = []
        threading.Thread(target=self._serve, name=name, daemon=True).start()

    def _serve(self) -> None:
        while True:
            call = self.calls.get()
            try:
                call()
            except BaseException as error:  # (raised on a calling thread: in_threads, alongside)
                self.errors.append(error)


_HELPERS: list[Helper] = []


def helpers(count: int) -> list[Helper]:
    """The first ``count`` kept helper threads, started when first asked for."""
    while len(_HELPERS) < count:
        _HELPERS.append(Helper(f"multibody-{len(_HELPERS)}"))
    return _HELPERS[:count]


def threads_for(work_us: float, most: int) -> int:
    """The number of threads, 1 … most, for a batch of ``work_us`` µs of estimated one-core work: as many as give
    each at least MIN_SHARE_US."""
    return max(1, min(most, int(work_us // MIN_SHARE_US)))


def aba_threads(states: int, bodies: int, most: int) -> int:
    """:func:`threads_for` a batched ABA of ``states`` states of a model of ``bodies`` bodies (ABA_US_PER_BODY)."""
    return threads_for(states * bodies * ABA_US_PER_BODY, most)


def in_threads(task: Callable[[int], object], count: int, threads: int) -> None:
    """task(0), …, task(count − 1): in this thread if ``threads`` is 1, else on this thread and ``threads`` − 1 kept
    helper threads (the tasks are compiled calls that release the GIL), each taking the next task when it is free (a
    thread slowed by another process on its core takes fewer). Returns when every task has run, without waiting for
    a helper that has taken none (on a busy machine one may not get a core for milliseconds: the calling thread then
    runs them all); raises the first error a task raised."""
    if threads == 1 or count == 1:
        for k in range(count):
            task(k)
        return
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
    for helper in helpers(min(threads, count) - 1):
        helper.calls.put(drain)
    drain()
    for _ in range(count):
        done.acquire()
    if errors:
        raise errors[0]


def alongside(call: Callable[[], object], threads: int) -> None:
    """call() on this thread and, at the same time, on ``threads`` − 1 kept helper threads, for a compiled share
    that claims its chunks of a batch from a shared counter and releases the GIL (:mod:`._claims`). Returns when
    this thread's call returns, waiting for no helper: the caller then waits for the chunks still held
    (:func:`._claims.wait_finished`); a helper that starts late finds nothing left. A helper's error is raised by
    the next call that would hand it work, before any work is handed out (the same compiled call with the same
    arguments raises it on the calling thread first, as a rule)."""
    chosen = helpers(threads - 1)
    for helper in chosen:
        if helper.errors:
            raise helper.errors.pop(0)
    for helper in chosen:
        helper.calls.put(call)
    call()
