"""The thread count of batched calls (multibody.dynamics._threads): no more threads than the work is worth, every
task (or chunk of a batch, multibody.dynamics._claims) run once whatever the threads."""
import threading
import time

import numba
import numpy as np
import pytest

import multibody as mb

from multibody.dynamics import _claims, _derivatives_lanes, _threads
from multibody.dynamics.derivatives import per_state
from oracles import random_model, random_state


def drained(count):
    """Wait until the first ``count`` helper threads have run every call put to them so far."""
    marks = [threading.Event() for _ in range(count)]
    for helper, mark in zip(_threads.helpers(count), marks):
        helper.calls.put(mark.set)
    assert all(mark.wait(20) for mark in marks)


def test_a_thread_is_added_only_for_a_share_of_at_least_the_least_worth_a_thread():
    least = _threads.MIN_SHARE_US
    assert _threads.threads_for(0.0, 16) == 1
    assert _threads.threads_for(1.9 * least, 16) == 1
    assert _threads.threads_for(2.0 * least, 16) == 2
    assert _threads.threads_for(1000 * least, 16) == 16
    assert _threads.threads_for(1000 * least, 1) == 1



def test_every_chunk_is_claimed_once_and_counted_once_on_as_many_threads_as_asked():
    # a batch of 37 states in chunks of 16 (two whole, one short) on 1 and 2 threads, then a thread that starts
    # after the work is done: it finds nothing left
    rng = np.random.default_rng(3)
    model = random_model(rng, 5)
    cm = model.compile()
    count = 37
    q = np.array([random_state(rng, model)[0] for _ in range(count)])
    v, a = rng.normal(size=(2, count, model.nv))
    no_forces = np.zeros((1, 0, 6))
    for threads in (1, 2):
        dq, dv, M = np.full((3, count, model.nv, model.nv), np.nan)
        finite, counter = np.full(count, -1), _claims.claims()
        share = _derivatives_lanes.rnea_derivatives_lanes

        def call():
            share(cm.topology, cm.params, cm.gravity, q, v, a, no_forces, dq, dv, M, finite, counter)
        _threads.alongside(call, threads)
        _claims.wait_finished(counter, 3)
        assert (finite == 1).all() and np.isfinite(dq).all() and np.isfinite(dv).all()
        np.testing.assert_allclose(M, mb.crba(model, q), rtol=0, atol=1e-10)
        drained(threads - 1)  # (the helper's share done too: one last claim each, that found nothing)
        assert counter[_claims.FINISHED] == 3 and counter[_claims.NEXT] == 3 + threads
        M[:] = 0.0
        call()  # (late: claims nothing and writes nothing)
        assert counter[_claims.FINISHED] == 3 and counter[_claims.NEXT] == 4 + threads and not M.any()


def test_a_pool_thread_that_gets_no_core_is_not_waited_for_by_a_batch():
    # the pool's one thread held busy: the calling thread computes every chunk and returns without it
    rng = np.random.default_rng(4)
    model = random_model(rng, 4)
    q = np.array([random_state(rng, model)[0] for _ in range(64)])
    v = rng.normal(size=(64, model.nv))
    release = threading.Event()
    _threads.helpers(1)[0].calls.put(lambda: release.wait(30))
    results = []
    default = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        call = threading.Thread(target=lambda: results.append(mb.rnea_derivatives(model, q, v, v)))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_threads, "MIN_SHARE_US", 1e-9)  # (two threads, whatever the work)
            call.start()
            call.join(timeout=20)  # (it would wait for the pool's thread, held until release)
        returned = not call.is_alive()
    finally:
        release.set()
        numba.set_num_threads(default)
    assert returned and len(results) == 1
    np.testing.assert_allclose(results[0][2], mb.crba(model, q), rtol=0, atol=1e-10)


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
    release = threading.Event()
    _threads.helpers(1)[0].calls.put(lambda: release.wait(30))
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
    used, alongside = [], _threads.alongside

    def spy(call, threads):
        used.append(threads)
        alongside(call, threads)
    monkeypatch.setattr(_claims, "alongside", spy)  # (the pool that the batched derivatives hand their shares)
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


def test_an_error_on_a_pool_thread_is_raised_by_the_next_call_that_shares_work():
    def call():
        if threading.current_thread() is not threading.main_thread():
            raise ValueError("on the pool's thread")
    drained(1)
    _threads.alongside(call, 2)  # (the calling thread's call returns; the helper's raises there)
    drained(1)
    with pytest.raises(ValueError, match="on the pool's thread"):
        _threads.alongside(lambda: None, 2)  # (raised before any work is handed out)
    _threads.alongside(lambda: None, 2)  # (the error was raised once)
