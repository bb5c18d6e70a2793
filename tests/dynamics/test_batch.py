"""The structure-of-arrays batched kernels (multibody.dynamics._batch) against the scalar kernels, state by state.

The SoA kernel must give the scalar kernel's numbers (same equations, same order of operations) for every joint
type, every batch size (partial chunks), broadcast inputs, external forces, and keep the NaN guard.
"""
import numba
import numpy as np
import pytest

import multibody as mb
from multibody.dynamics import _batch, _lanes, _threads
from multibody.dynamics._spatial_kernels import sines_cosines
from oracles import random_model, random_state

ALL_KINDS = ("revolute", "prismatic", "spherical", "cylindrical", "planar", "fixed")


def states(rng, model, count):
    Q = np.array([random_state(rng, model)[0] for _ in range(count)])
    return Q, rng.normal(size=(count, model.nv)), rng.normal(size=(count, model.nv)) * 5.0


def scalar_aba(model, Q, V, T, forces=None):
    """The scalar kernel, one state at a time (forces: None, one (n, 6) array, or one per state)."""
    per_state = forces is not None and np.ndim(forces) == 3
    return np.array([mb.aba(model, Q[b], V[b], T[b], f_ext=forces[b] if per_state else forces)
                     for b in range(len(Q))])


def assert_close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(expected).max()))


@pytest.fixture(scope="module")
def tree():
    """A random tree with every joint type, under a free-floating base."""
    return random_model(np.random.default_rng(7), 9, kinds=ALL_KINDS, free_base=True)


def test_soa_aba_matches_scalar_on_random_trees():
    rng = np.random.default_rng(11)
    for free_base in (False, True):
        model = random_model(rng, 10, kinds=ALL_KINDS, free_base=free_base)
        Q, V, T = states(rng, model, _batch.LANES + 5)
        assert_close(mb.aba(model, Q, V, T), scalar_aba(model, Q, V, T))


@pytest.mark.parametrize("count", [1, 3, _batch.LANES + 1])
def test_soa_aba_handles_partial_chunks(tree, count):
    """Batch sizes that leave a partial chunk, called on the SoA kernel directly (mb.aba sends batches below
    MIN_BATCH to the scalar kernels)."""
    cm = tree.compile()
    Q, V, T = states(np.random.default_rng(count), tree, count)
    qdd = np.full((count, cm.nv), np.nan)
    assert _batch.aba_batch(cm.topology, cm.params, cm.gravity, Q, V, T, np.zeros((1, 0, 6)), qdd, 2)
    assert_close(qdd, scalar_aba(tree, Q, V, T))


def test_soa_aba_is_the_same_on_one_and_two_threads(tree, monkeypatch):
    monkeypatch.setattr(_threads, "MIN_SHARE_US", 1e-9)  # (a small batch: on every thread it is given)
    Q, V, T = states(np.random.default_rng(3), tree, 3 * _batch.LANES)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = mb.aba(tree, Q, V, T)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(mb.aba(tree, Q, V, T), one)


def test_soa_aba_broadcasts_batch_dimensions(tree):
    rng = np.random.default_rng(5)
    Q, V, T = states(rng, tree, 2 * 20)
    qdd = mb.aba(tree, Q.reshape(2, 20, -1), V[0], T[:20])
    assert qdd.shape == (2, 20, tree.nv)
    expected = scalar_aba(tree, Q, np.broadcast_to(V[0], V.shape), np.tile(T[:20], (2, 1)))
    assert_close(qdd.reshape(40, -1), expected)


def test_soa_aba_applies_external_forces(tree):
    rng = np.random.default_rng(9)
    Q, V, T = states(rng, tree, 24)
    shared = rng.normal(size=(tree.nbodies, 6))
    per_state = rng.normal(size=(24, tree.nbodies, 6))
    assert_close(mb.aba(tree, Q, V, T, f_ext=shared), scalar_aba(tree, Q, V, T, shared))
    assert_close(mb.aba(tree, Q, V, T, f_ext=per_state), scalar_aba(tree, Q, V, T, per_state))
    by_name = {"b3": shared[3]}
    assert_close(mb.aba(tree, Q, V, T, f_ext=by_name), scalar_aba(tree, Q, V, T, by_name))
    # a force per state broadcasts against a batch of shape (2, 12)
    qdd = mb.aba(tree, Q.reshape(2, 12, -1), V.reshape(2, 12, -1), T.reshape(2, 12, -1),
                 f_ext=per_state.reshape(2, 12, tree.nbodies, 6))
    assert_close(qdd.reshape(24, -1), scalar_aba(tree, Q, V, T, per_state))


def test_soa_aba_nan_guard_names_the_batch_entry(tree):
    Q, V, T = states(np.random.default_rng(2), tree, 40)
    T[21, 4] = np.nan
    with pytest.raises(ValueError, match=r"tau\[4\].*batch entry \(21,\) is nan"):
        mb.aba(tree, Q, V, T)


def test_soa_aba_flags_a_non_finite_result_from_finite_inputs():
    model = mb.Model.chain(3)
    V = np.full((20, 3), 1e200)  # the velocity products overflow
    with pytest.raises(FloatingPointError, match="aba: produced a non-finite result"):
        mb.aba(model, np.zeros((20, 3)), V, np.zeros((20, 3)))


def test_soa_aba_agrees_with_rnea_on_the_benchmark_chain():
    """FD(ID(a)) = a on the 20-link chain of the benchmark, through the batched path."""
    model = mb.Model.chain(20)
    rng = np.random.default_rng(0)
    Q, V, A = rng.normal(size=(3, 50, 20))
    T = mb.rnea(model, Q, V, A)
    np.testing.assert_allclose(mb.aba(model, Q, V, T), A, atol=1e-8)


def test_soa_aba_includes_armature():
    rng = np.random.default_rng(23)
    model = random_model(rng, 10, kinds=ALL_KINDS, free_base=True)
    for joint in model.joints:
        joint.armature = rng.uniform(0.0, 0.5, size=joint.nv)
    model._compiled = None
    Q, V, T = states(rng, model, _batch.LANES + 5)
    assert_close(mb.aba(model, Q, V, T), scalar_aba(model, Q, V, T))
    a = scalar_aba(model, Q, V, T)
    np.testing.assert_allclose(mb.rnea(model, Q, V, a), T, atol=1e-9 * (1 + np.abs(T).max()))


@numba.njit
def lane_sines_cosines(q, sc):
    """The lane kernels' sin and cos of q[0] (lanes of any length; the kernels' are chunks of LANES)."""
    _batch.lane_sines_cosines(q, 0, sc, q.shape[1])


@numba.njit
def vector_sines_cosines(x, sc):
    """The single-state kernels' sin and cos of a vector."""
    sines_cosines(x, sc)


def test_vectorized_sine_and_cosine_are_libm_to_2_ulp_and_large_angles_fall_back():
    """The vectorized sin and cos of the revolute joint poses (lanes and single states) against NumPy's (libm),
    across the reduction range, and a chunk with an angle beyond it (np.sin and np.cos for the whole chunk) still
    matches the scalar kernel."""
    x = np.concatenate([np.linspace(-7.0, 7.0, 100001), np.random.default_rng(4).uniform(-1e5, 1e5, 100000),
                        np.pi / 4 * np.arange(-400, 401), [0.0, -0.0, 1e-300]])
    sc = np.empty((2, len(x)))
    lane_sines_cosines(x[None], sc)
    np.testing.assert_allclose(sc[0], np.sin(x), rtol=0, atol=2.3e-16)
    np.testing.assert_allclose(sc[1], np.cos(x), rtol=0, atol=2.3e-16)
    vector = np.empty((2, len(x)))
    vector_sines_cosines(x, vector)
    np.testing.assert_array_equal(vector, sc)
    model = mb.Model.chain(3)
    Q, V, T = states(np.random.default_rng(6), model, 40)
    Q[5, 1] = 3e5
    assert_close(mb.aba(model, Q, V, T), scalar_aba(model, Q, V, T))


@numba.njit
def scattered_matrices(X, out, b0, nonfinite, on_path):
    """The lanes' matrices X (n, m, ROW_LANES) scattered to the states b0 … of out (B, n, m)."""
    _lanes.scatter_matrices(X, out, b0, nonfinite, on_path)


@pytest.mark.parametrize("paths", [False, True], ids=["every-block", "blocks-off-the-paths"])
@pytest.mark.parametrize("shape", [(3, 3), (8, 8), (13, 13), (32, 32), (5, 17), (6, 38)])
def test_scattered_matrices_are_each_lanes_matrix_and_flag_each_lane_that_is_not_finite(shape, paths):
    """The lanes' matrices to the batch's (whole blocks of columns transposed in registers, the last columns as one
    more block or lane by lane), each lane's matrix written to its own state and nothing else written; a NaN or an
    infinity in a lane flags that lane alone. With the entries that may be nonzero (on_path), the blocks of zeros
    written as zeros: the same results."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=shape + (_lanes.ROW_LANES,))
    on_path = np.zeros((0, shape[1]))
    if paths:  # zeros off the paths, whole blocks of them in every other row (the last block too, where it overlaps)
        on_path = (rng.random(shape) < 0.6).astype(float)
        on_path[::2, 8:] = 0.0
        on_path[shape[0] - 1, shape[1] - 1] = on_path[0, 0] = 1.0
        X *= on_path[:, :, None]
    X[shape[0] - 1, shape[1] - 1, 3], X[0, 0, 12] = np.nan, np.inf
    out, nonfinite = np.full((2 * _lanes.ROW_LANES + 1,) + shape, 7.0), np.zeros(_lanes.ROW_LANES)
    scattered_matrices(X, out, _lanes.ROW_LANES, nonfinite, on_path)
    np.testing.assert_array_equal(out[_lanes.ROW_LANES:-1], np.moveaxis(X, 2, 0))
    assert (out[:_lanes.ROW_LANES] == 7.0).all() and (out[-1] == 7.0).all()
    np.testing.assert_array_equal(np.flatnonzero(np.isnan(nonfinite)), [3, 12])
