"""The thread count of batched calls (multibody.dynamics._threads): no more threads than the work is worth, every
task run once whatever the threads."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

import multibody as mb
from multibody.dynamics import _derivatives, _threads
from multibody.dynamics.derivatives import per_state
from oracles import random_model, random_state


def test_a_thread_is_added_only_for_a_share_of_at_least_the_least_worth_a_thread():
    least = _threads.MIN_SHARE_US
    assert _threads.threads_for(0.0, 16) == 1
    assert _threads.threads_for(1.9 * least, 16) == 1
    assert _threads.threads_for(2.0 * least, 16) == 2
    assert _threads.threads_for(1000 * least, 16) == 16
    assert _threads.threads_for(1000 * least, 1) == 1



def test_a_batch_is_split_into_whole_chunks_of_enough_work_each():
    least = _threads.MIN_SHARE_US
    assert _threads.shares(256, 0.1 * least / 256, 2, 32, 16) == (1, 256)  # (too little work: one task)
    for count, per_state, most in ((256, least, 2), (1000, 3 * least, 4), (37, least, 2), (64, least, 8)):
        threads, size = _threads.shares(count, per_state, most, 32, 16)
        tasks = -(-count // size)
        assert 1 < threads <= most and threads <= tasks <= 4 * threads
        assert size % (32 if count >= 32 * most else 16) == 0
        assert size * per_state >= _threads.MIN_TASK_US or tasks == threads

def test_every_task_runs_once_on_as_many_threads_as_asked():
    for count, threads in ((1, 4), (7, 2), (40, 3)):
        seen, names = [], set()
        meet = threading.Barrier(min(count, threads), timeout=30)  # (the first tasks wait for each other: one a thread)

        def task(k):
            if k < meet.parties:
                meet.wait()
            time.sleep(0.001 * (k % 3))  # (uneven tasks: the free thread takes the next)
            seen.append(k)
            names.add(threading.current_thread().name)
        _threads.in_threads(task, count, threads)
        assert sorted(seen) == list(range(count))
        assert len(names) == min(count, threads)


def test_a_pool_thread_that_gets_no_core_is_not_waited_for():
    # the pool's one thread held busy: the calling thread runs every task and returns without it
    pool, release = _threads._POOLS.setdefault(1, ThreadPoolExecutor(1)), threading.Event()
    pool.submit(release.wait, 30)
    seen = []
    call = threading.Thread(target=_threads.in_threads, args=(seen.append, 5, 2))
    call.start()
    call.join(timeout=20)  # (it would wait for the pool's thread, held until release)
    returned = not call.is_alive()
    release.set()
    assert returned and seen == [0, 1, 2, 3, 4]


def test_a_failing_task_raises_after_the_others_have_run():
    seen = []

    def task(k):
        seen.append(k)
        if k == 2:
            raise ValueError("task 2")
    try:
        _threads.in_threads(task, 6, 2)
    except ValueError as error:
        assert str(error) == "task 2"
    else:
        raise AssertionError("in_threads swallowed the task's error")
    assert len(seen) >= 3


def test_the_derivatives_estimates_grow_with_the_tree_and_the_solves():
    rng = np.random.default_rng(1)
    small, large = random_model(rng, 3), random_model(rng, 30)
    (rnea_small, aba_small), (rnea_large, aba_large) = per_state(small.compile()), per_state(large.compile())
    assert 0 < rnea_small < aba_small and 0 < rnea_large < aba_large
    assert rnea_large > 5 * rnea_small and aba_large > 5 * aba_small


def test_a_small_batch_stays_on_the_calling_thread_and_a_large_one_does_not(monkeypatch):
    rng = np.random.default_rng(2)
    model = random_model(rng, 4)
    q, v = np.array([random_state(rng, model)[0] for _ in range(64)]), rng.normal(size=(64, model.nv))
    used, in_threads = [], _threads.in_threads

    def spy(task, count, threads):
        used.append(threads)
        in_threads(task, count, threads)
    monkeypatch.setattr(_derivatives, "in_threads", spy)  # (the pool that the batched derivatives hand their tasks)
    default, most = numba.get_num_threads(), min(2, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(most)
    try:
        mb.aba_derivatives(model, q, v, v)
        mb.rnea_derivatives(model, q, v, v)
        monkeypatch.setattr(_threads, "MIN_SHARE_US", 1e-9)  # (the same batch, as if each state took long)
        mb.aba_derivatives(model, q, v, v)
    finally:
        numba.set_num_threads(default)
    assert used == [1, 1, most]
