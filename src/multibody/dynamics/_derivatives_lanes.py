"""Batched derivatives of the dynamics in structure-of-arrays form: chunks of states held as lanes, SIMD across states.

The analytical derivatives of :mod:`._derivatives` (Carpentier & Mansard, RSS 2018) on a chunk of DERIVATIVE_LANES
states whose work arrays carry the state as their last, contiguous axis (:mod:`._lanes`). The forward sweep runs
state by state, writing straight into its lane of each array; the backward sweep (O(n·depth) entries), the sparse
LTL factorization of M and the solves ∂q̈/∂x = −M⁻¹ ∂τ/∂x and M⁻¹ (O(nv²·depth)) run on all the lanes at once: they
are the same functions as for one state, whose entry and row operations loop over the lanes innermost (vector
instructions across states). q̈ itself comes from the lanes' ABA of :mod:`._batch`, LANES states at a time.
The lane count: a chunk's matrices (nv × nv × lanes, four of them) stay in the L2 cache for nv up to ~40 at 16
lanes; at 32 (the lanes' ABA's) Talos's (nv = 38) outgrew it and ran slower (measured, Intel Xeon with AVX-512).
"""
from ._batch import LANES, aba_chunk
from ._derivatives import (NOT_POSITIVE_DEFINITE, backward_sweep, dof_parents, forward_sweep, subtree_ends,
                           tree_factor, tree_inverse, tree_solve)
from ._core import NONFINITE, OK
from ._spatial_kernels import NSYM, njit_without_refcounts, release, wide_vectors, work

DERIVATIVE_LANES = 16  # states per chunk of the derivatives (LANES, those of the lanes' ABA, is a multiple of it)

# error_model "numpy" (x / 0 = inf, caught by the finiteness check) keeps the lane loops free of branches
lanes_kernel = njit_without_refcounts(cache=True, error_model="numpy", fastmath={"contract"})
lanes_share = njit_without_refcounts(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})


@lanes_kernel
def states_in_lanes(topology, params, gravity, q, v, a, f_ext, b0, nb, F, Y, B, S, U, Z, W):
    """:func:`~._derivatives.forward_sweep` of the states b0 … b0 + nb − 1 of q (B, nq), v and a (B, nv), state by
    state, each into its lane b of F, Y, B (per body) and S, U, Z, W (per velocity); the lanes past nb repeat the
    last state (their values are computed and never read)."""
    n, nv = topology.shape[0], S.shape[0]
    R0, p0, V, A, SC = work((n + 1, 3, 3)), work((n + 1, 3)), work((n + 1, 6)), work((n + 1, 6)), work((2, q.shape[1]))
    for b in range(DERIVATIVE_LANES):
        s = b0 + min(b, nb - 1)
        forward_sweep(topology, params, gravity, q[s], v[s], a[s], f_ext[min(s, f_ext.shape[0] - 1)], R0, p0, V, A,
                      F[:, :, b], Y[:, :, b], B[:, :, :, b], S[:, :, b], U[:, :, b], Z[:, :, b], W[:, :, b], SC)
    release((R0, p0, V, A, SC))


@lanes_kernel
def scattered(X, out, b0, nb, nonfinite):
    """out[b0 + b] = X[:, :, b] for the lanes b < nb of a matrix of lanes X (nv, nv, lanes); nonfinite[b] turns NaN
    (and stays so) where lane b holds an entry that is not finite. X is read in its order (the lanes of an entry
    together), each lane's entries written to its own row of out: reading X lane by lane instead, a cache line for
    every entry, took 0.7 µs more per state and matrix for Talos (nv = 38), 14 % of rnea_derivatives (measured)."""
    wide_vectors()
    for r in range(X.shape[0]):
        for c in range(X.shape[1]):
            for b in range(DERIVATIVE_LANES):
                nonfinite[b] += X[r, c, b] * 0.0
            for b in range(nb):
                out[b0 + b, r, c] = X[r, c, b]


@lanes_kernel
def rnea_derivatives_chunk(topology, params, gravity, q, v, a, f_ext, b0, nb, F, Y, B, S, U, Z, W, G, dQ, dV, M):
    """:func:`~._derivatives.rnea_derivatives` of the states b0 … b0 + nb − 1 (nb ≤ DERIVATIVE_LANES) into the
    matrices of lanes dQ, dV, M (nv, nv, DERIVATIVE_LANES)."""
    wide_vectors()
    states_in_lanes(topology, params, gravity, q, v, a, f_ext, b0, nb, F, Y, B, S, U, Z, W)
    backward_sweep(topology, params, S, U, Z, W, F, Y, B, G, dQ, dV, M)


@lanes_kernel
def solved(dQ, dV, M, Minv, lam, last):
    """dQ ← −M⁻¹ dQ, dV ← −M⁻¹ dV and Minv = M⁻¹ in every lane (:func:`~._derivatives.tree_factor`, whose factor
    replaces M, :func:`~._derivatives.tree_solve`, :func:`~._derivatives.tree_inverse`); False if M is not positive
    definite in some lane."""
    wide_vectors()
    if not tree_factor(M, lam):
        return False
    tree_solve(M, lam, last, dQ, -1.0)
    tree_solve(M, lam, last, dV, -1.0)
    tree_inverse(M, lam, last, Minv)
    return True


@lanes_share
def rnea_derivatives_lanes(topology, params, gravity, q, v, a, f_ext, dtau_dq, dtau_dv, Mout, finite, first, last):
    """:func:`~._derivatives.rnea_derivatives_share` in chunks of DERIVATIVE_LANES states held as lanes."""
    n, nv, L = topology.shape[0], Mout.shape[1], DERIVATIVE_LANES
    F, Y, B = work((n + 1, 6, L)), work((n + 1, 10, L)), work((n + 1, 6, 3, L))
    S, U, Z, W = work((nv, 6, L)), work((nv, 6, L)), work((nv, 6, L)), work((nv, 6, L))
    G, nonfinite = work((4, 6, 6, L)), work((L,))
    dQ, dV, M = work((nv, nv, L)), work((nv, nv, L)), work((nv, nv, L))
    for b0 in range(first, last, L):
        nb = min(L, last - b0)
        rnea_derivatives_chunk(topology, params, gravity, q, v, a, f_ext, b0, nb, F, Y, B, S, U, Z, W, G, dQ, dV, M)
        nonfinite[:] = 0.0
        scattered(dQ, dtau_dq, b0, nb, nonfinite)
        scattered(dV, dtau_dv, b0, nb, nonfinite)
        scattered(M, Mout, b0, nb, nonfinite)
        for b in range(nb):
            finite[b0 + b] = nonfinite[b] == 0.0
    release((F, Y, B, S, U, Z, W, G, nonfinite, dQ, dV, M))


@lanes_share
def aba_derivatives_lanes(topology, params, gravity, q, v, tau, f_ext, ddq_dq, ddq_dv, Minv, qdd, status, first,
                          last):
    """:func:`~._derivatives.aba_derivatives_share` in chunks of states held as lanes: q̈ by the lanes' ABA
    (:func:`~._batch.aba_chunk`) LANES states at a time, then the derivatives at a = q̈ DERIVATIVE_LANES states at a
    time (:func:`rnea_derivatives_chunk`, :func:`solved`). status[b]: OK, NONFINITE or NOT_POSITIVE_DEFINITE (of
    its chunk)."""
    n, nq, nv, L = topology.shape[0], q.shape[1], qdd.shape[1], DERIVATIVE_LANES
    F, Y, B = work((n + 1, 6, L)), work((n + 1, 10, L)), work((n + 1, 6, 3, L))
    S, U, Z, W = work((nv, 6, L)), work((nv, 6, L)), work((nv, 6, L)), work((nv, 6, L))
    G, nonfinite = work((4, 6, 6, L)), work((L,))
    dQ, dV, M, Mi = work((nv, nv, L)), work((nv, nv, L)), work((nv, nv, L)), work((nv, nv, L))
    lam, ends = work((nv,)), work((nv,))
    # the work arrays of the lanes' ABA (:func:`~._batch.chunk_workspaces`)
    qs, qd, u, out = work((nq, LANES)), work((nv, LANES)), work((nv, LANES)), work((nv, LANES))
    R0, d, Sa, V, C = (work((n + 1, 9, LANES)), work((n, 3, LANES)), work((nv, 6, LANES)), work((n + 1, 6, LANES)),
                       work((n, 6, LANES)))
    IA, PA, Ua, D, Dinv, A = (work((n + 1, NSYM, LANES)), work((n + 1, 6, LANES)), work((nv, 6, LANES)),
                              work((6, 6, LANES)), work((nv, 6, LANES)), work((n + 1, 6, LANES)))
    dof_parents(topology, lam)
    subtree_ends(lam, ends)
    for a0 in range(first, last, LANES):
        aba_chunk(topology, params, gravity, q, v, tau, f_ext, qdd, a0, min(LANES, last - a0), qs, qd, u, out, R0, d,
                  Sa, V, C, IA, PA, Ua, D, Dinv, A)
        for b0 in range(a0, min(a0 + LANES, last), L):
            nb = min(L, last - b0)
            rnea_derivatives_chunk(topology, params, gravity, q, v, qdd, f_ext, b0, nb, F, Y, B, S, U, Z, W, G, dQ,
                                   dV, M)
            code = NOT_POSITIVE_DEFINITE
            if solved(dQ, dV, M, Mi, lam, ends):
                nonfinite[:] = 0.0
                scattered(dQ, ddq_dq, b0, nb, nonfinite)
                scattered(dV, ddq_dv, b0, nb, nonfinite)
                scattered(Mi, Minv, b0, nb, nonfinite)
                finite = True
                for b in range(nb):
                    finite &= nonfinite[b] == 0.0
                code = OK if finite else NONFINITE
            for b in range(nb):
                status[b0 + b] = code
    release((F, Y, B, S, U, Z, W, G, nonfinite, dQ, dV, M, Mi, lam, ends, qs, qd, u, out, R0, d, Sa, V, C, IA, PA, Ua,
             D, Dinv, A))
