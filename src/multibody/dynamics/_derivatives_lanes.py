"""Batched derivatives of the dynamics in structure-of-arrays form: chunks of states held as lanes, SIMD across states.

The analytical derivatives of :mod:`._derivatives` (Carpentier & Mansard, RSS 2018) on a chunk of DERIVATIVE_LANES
states whose work arrays carry the state as their last, contiguous axis (:mod:`._lanes`). The forward sweep takes a
body at a time, a revolute or prismatic joint's in one loop over the lanes built from the functions of the single
state's (:func:`~._derivatives.forward_body`'s pose, subspace column, rates, motion, force and Coriolis operator), the
other joint types lane by lane through :func:`~._derivatives.forward_body` itself; the backward sweep (O(n·depth)
entries), the sparse LTL factorization of M and the solves ∂q̈/∂x = −M⁻¹ ∂τ/∂x and M⁻¹ (O(nv²·depth)) run on all
the lanes at once: they are the same functions as for one state, whose entry and row operations loop over the lanes
innermost (vector instructions across states). q̈ itself comes from the same factorization: the sweep runs first at
q̈ = 0 (the bias forces c), q̈ = M⁻¹ (τ − c), then the terms linear in q̈ are added (:func:`aba_derivatives_chunk`).
The lane count: a chunk's matrices (nv × nv × lanes, four of them) stay in the L2 cache for nv up to ~40 at 16
lanes; at 32 (the lanes' ABA's) Talos's (nv = 38) outgrew it and ran slower (measured, Intel Xeon with AVX-512).
"""
import numpy as np

from ._batch import axis_placement, inertia_times, turned_about_z
from ._derivatives import (INERTIA, NOT_POSITIVE_DEFINITE, RATES, WHOLE, add6, backward_sweep, body_force,
                           body_motion, column_about_world_origin, column_rates, coriolis_operator,
                           external_force_about_world_origin, forward_body)
from ._claims import claim, finished
from ._tree_factor import dof_parents, path_pairs, subtree_ends, tree_factor, tree_inverse, tree_solve
from ._core import NONFINITE, OK
from ._lanes import ROW_LANES, inline, lane_inertia, lane_sines_cosines, lane_vector, put, scatter_matrices
from ._spatial_kernels import (CPU, IQ, IV, JTYPE, NVJ, PARENT, cross_motion, joint_axis, motion_subspace,
                               njit_without_refcounts, release, wide_vectors, work)

rotation_product, rotation_times = CPU.rotation_product, CPU.rotation_times
world_origin_inertia, rotates_about_its_axis = CPU.world_origin_inertia, CPU.joints.rotates_about_its_axis
slides_along_its_axis = CPU.joints.slides_along_its_axis

DERIVATIVE_LANES = ROW_LANES  # states per chunk of the derivatives, one vector of the row operations of M's solves

# error_model "numpy" (x / 0 = inf, caught by the finiteness check) keeps the lane loops free of branches
lanes_kernel = njit_without_refcounts(cache=True, error_model="numpy", fastmath={"contract"})
lanes_share = njit_without_refcounts(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})


@lanes_kernel
def gathered(x, b0, nb, out):
    """out[j, b] = x[b0 + b, j] for the lanes b < nb of the chunk, lanes past nb repeating state b0 + nb − 1 (their
    values are computed and never read; the factorization of M needs them positive definite)."""
    wide_vectors()
    for b in range(DERIVATIVE_LANES):
        s = b0 + min(b, nb - 1)
        for j in range(x.shape[1]):
            out[j, b] = x[s, j]


@inline
def lane_body_rates(params, i, R, p, psi, vl, al, vk, ak, out, b):
    """Lane b's share of :func:`single_dof_body_rates` once the pose R, p of body i's axis frame and its subspace
    column ψ are known (those of its parent: ᵒv_λ = vl, ᵒa_λ = al; its joint's rate and acceleration vk, ak):
    rows 0–81 of ``out`` as there."""
    Yi = world_origin_inertia(params, i, R, p)
    u, z = column_rates(psi, vl, al)
    vi, ai = body_motion(vl, al, (psi[0] * vk, psi[1] * vk, psi[2] * vk, psi[3] * vk, psi[4] * vk, psi[5] * vk),
                         (psi[0] * ak, psi[1] * ak, psi[2] * ak, psi[3] * ak, psi[4] * ak, psi[5] * ak))
    put(out, 0, R, b)
    put(out, 9, p, b)
    put(out, 12, Yi, b)
    put(out, 22, psi, b)
    put(out, 28, u, b)
    put(out, 34, z, b)
    put(out, 40, vi, b)
    put(out, 46, ai, b)
    put(out, 52, add6(u, cross_motion(vi, psi)), b)
    put(out, 58, body_force(Yi, vi, ai), b)
    put(out, 64, coriolis_operator(Yi, vi), b)


@lanes_kernel
def single_dof_body_rates(params, i, lam, iq, iv, revolute, q, v, a, R0, p0, V, A, F, Y, B, S, U, Z, W):
    """:func:`~._derivatives.forward_body` (less f_ext) at body i, whose joint is revolute or prismatic, in one loop
    over the lanes, from the same functions: its world pose R0_i = R0_λ T R_J, p0_i = p0_λ + R0_λ (t + T p_J)
    (:func:`~._batch.axis_placement`; a revolute joint's R_J = R_z(θ), p_J = 0, a prismatic one's R_J = 1,
    p_J = axis · q); ψ = [ω; p0_i × ω + v] from its subspace column [ω; v] in world axes (a revolute joint's
    [R0_i e_z; 0]); u, z; ᵒv_i, ᵒa_i; y; the inertia about the world origin, the body force and B
    (:func:`lane_body_rates`). q, v, a: (nq or nv, lanes). Results through a stack array (the module docstring of
    :mod:`._lanes`): rows 0–8 R0_i, 9–11 p0_i, 12–21 Y, 22–27 ψ, 28–33 u, 34–39 z, 40–45 ᵒv_i, 46–51 ᵒa_i,
    52–57 y, 58–63 ᵒf_i, 64–81 B."""
    wide_vectors()
    L = DERIVATIVE_LANES
    sc, out = work((2, L)), work((82, L))
    T, t = axis_placement(params, i)
    if revolute:
        lane_sines_cosines(q, iq, sc, L)
        for b in range(L):
            P = (R0[lam, 0, 0, b], R0[lam, 0, 1, b], R0[lam, 0, 2, b], R0[lam, 1, 0, b], R0[lam, 1, 1, b],
                 R0[lam, 1, 2, b], R0[lam, 2, 0, b], R0[lam, 2, 1, b], R0[lam, 2, 2, b])
            R = rotation_product(P, turned_about_z(T, sc[0, b], sc[1, b]))
            Pt = rotation_times(P, t[0], t[1], t[2])
            p = (p0[lam, 0, b] + Pt[0], p0[lam, 1, b] + Pt[1], p0[lam, 2, b] + Pt[2])
            lane_body_rates(params, i, R, p, column_about_world_origin((R[2], R[5], R[8]), (0.0, 0.0, 0.0), p),
                            lane_vector(V, lam, b), lane_vector(A, lam, b), v[iv, b], a[iv, b], out, b)
    else:
        axis, column = joint_axis(params, i), motion_subspace(params, i, 0)
        for b in range(L):
            P = (R0[lam, 0, 0, b], R0[lam, 0, 1, b], R0[lam, 0, 2, b], R0[lam, 1, 0, b], R0[lam, 1, 1, b],
                 R0[lam, 1, 2, b], R0[lam, 2, 0, b], R0[lam, 2, 1, b], R0[lam, 2, 2, b])
            x = q[iq, b]
            pJ = rotation_times(T, axis[0] * x, axis[1] * x, axis[2] * x)
            R = rotation_product(P, T)
            Pt = rotation_times(P, t[0] + pJ[0], t[1] + pJ[1], t[2] + pJ[2])
            p = (p0[lam, 0, b] + Pt[0], p0[lam, 1, b] + Pt[1], p0[lam, 2, b] + Pt[2])
            psi = column_about_world_origin(rotation_times(R, column[0], column[1], column[2]),
                                            rotation_times(R, column[3], column[4], column[5]), p)
            lane_body_rates(params, i, R, p, psi, lane_vector(V, lam, b), lane_vector(A, lam, b), v[iv, b],
                            a[iv, b], out, b)
    for r in range(3):
        for c in range(3):
            for b in range(L):
                R0[i, r, c, b] = out[3 * r + c, b]
        for b in range(L):
            p0[i, r, b] = out[9 + r, b]
    for r in range(10):
        for b in range(L):
            Y[i, r, b] = out[12 + r, b]
    for r in range(6):
        for b in range(L):
            S[iv, r, b], U[iv, r, b], Z[iv, r, b] = out[22 + r, b], out[28 + r, b], out[34 + r, b]
            V[i, r, b], A[i, r, b], W[iv, r, b] = out[40 + r, b], out[46 + r, b], out[52 + r, b]
            F[i, r, b] = out[58 + r, b]
        for c in range(3):
            for b in range(L):
                B[i, r, c, b] = out[64 + 3 * r + c, b]
    release((sc, out))


@lanes_kernel
def less_external_forces(params, i, f_ext, b0, nb, R0, p0, F):
    """F[i, :, b] −= f_ext of body i at lane b's state (:func:`~._derivatives.external_force_about_world_origin`)."""
    for b in range(DERIVATIVE_LANES):
        s = b0 + min(b, nb - 1)
        R = (R0[i, 0, 0, b], R0[i, 0, 1, b], R0[i, 0, 2, b], R0[i, 1, 0, b], R0[i, 1, 1, b], R0[i, 1, 2, b],
             R0[i, 2, 0, b], R0[i, 2, 1, b], R0[i, 2, 2, b])
        fe = external_force_about_world_origin(params, i, R, (p0[i, 0, b], p0[i, 1, b], p0[i, 2, b]),
                                               f_ext[min(s, f_ext.shape[0] - 1)])
        for r in range(6):
            F[i, r, b] -= fe[r]


@lanes_kernel
def other_body_rates(topology, params, i, q, v, a, f_ext, b0, nb, R0, p0, V, A, F, Y, B, S, U, Z, W):
    """:func:`~._derivatives.forward_body` at body i, whose joint is neither revolute nor prismatic, lane by lane
    (the rarer joint types), on the lane's views of the arrays."""
    SC = work((2, 1))  # (the sines and cosines of revolute joints only: none here)
    for b in range(DERIVATIVE_LANES):
        s = b0 + min(b, nb - 1)
        forward_body(topology, params, i, q[s], v[s], a[s], f_ext[min(s, f_ext.shape[0] - 1)], R0[:, :, :, b],
                     p0[:, :, b], V[:, :, b], A[:, :, b], F[:, :, b], Y[:, :, b], B[:, :, :, b], S[:, :, b],
                     U[:, :, b], Z[:, :, b], W[:, :, b], SC)
    release((SC,))


@lanes_kernel
def states_in_lanes(topology, params, gravity, q, v, a, f_ext, b0, nb, qs, vs, as_, R0, p0, V, A, F, Y, B, S, U, Z,
                    W):
    """:func:`~._derivatives.forward_sweep` of the states b0 … b0 + nb − 1 of q (B, nq), v and a (B, nv) held as
    lanes (gathered into qs, vs, as_), root to leaves: a revolute or prismatic joint's body in one loop over the
    lanes (:func:`single_dof_body_rates`), the others lane by lane (:func:`other_body_rates`); the lanes past nb repeat
    the last state. R0 (n + 1, 3, 3, lanes), p0 (n + 1, 3, lanes), V and A (n + 1, 6, lanes): the world poses,
    velocities and accelerations, row −1 the world's."""
    wide_vectors()
    gathered(q, b0, nb, qs)
    gathered(v, b0, nb, vs)
    gathered(a, b0, nb, as_)
    for r in range(3):
        for c in range(3):
            for b in range(DERIVATIVE_LANES):
                R0[-1, r, c, b] = 1.0 if r == c else 0.0
        for b in range(DERIVATIVE_LANES):
            p0[-1, r, b] = 0.0
    for r in range(6):
        for b in range(DERIVATIVE_LANES):
            V[-1, r, b] = 0.0
            A[-1, r, b] = 0.0 if r < 3 else -gravity[r - 3]
    for i in range(topology.shape[0]):
        revolute = rotates_about_its_axis(topology[i, JTYPE])
        if revolute or slides_along_its_axis(topology[i, JTYPE]):
            single_dof_body_rates(params, i, topology[i, PARENT], topology[i, IQ], topology[i, IV], revolute, qs, vs,
                                  as_, R0, p0, V, A, F, Y, B, S, U, Z, W)
            if f_ext.shape[1] > 0:
                less_external_forces(params, i, f_ext, b0, nb, R0, p0, F)
        else:
            other_body_rates(topology, params, i, q, v, a, f_ext, b0, nb, R0, p0, V, A, F, Y, B, S, U, Z, W)


@lanes_kernel
def scattered(X, out, b0, nb, nonfinite, on_path):
    """out[b0 + b] = X[:, :, b] for the lanes b < nb of a matrix of lanes X (nv, nv, lanes); nonfinite[b] turns NaN
    (and stays so) where lane b holds an entry that is not finite. X is read in its order (the lanes of an entry
    together), each lane's entries written to its own row of out: reading X lane by lane instead, a cache line for
    every entry, took 0.7 µs more per state and matrix for Talos (nv = 38), 14 % of rnea_derivatives (measured).
    A full chunk's entries go as vectors of the lanes (:func:`~._lanes.scatter_matrices`, the blocks of zeros off
    ``on_path`` without reading X; ``on_path`` of no rows: none skipped)."""
    wide_vectors()
    if nb == DERIVATIVE_LANES and X.shape[2] == ROW_LANES and nonfinite.shape[0] == ROW_LANES:
        scatter_matrices(X, out, b0, nonfinite, on_path)
        return
    for r in range(X.shape[0]):
        for c in range(X.shape[1]):
            for b in range(DERIVATIVE_LANES):
                nonfinite[b] += X[r, c, b] * 0.0
            for b in range(nb):
                out[b0 + b, r, c] = X[r, c, b]


@lanes_kernel
def rnea_derivatives_chunk(topology, params, gravity, q, v, a, f_ext, b0, nb, qs, vs, as_, R0, p0, V, A, F, Y, B, S,
                           U, Z, W, dQ, dV, M):
    """:func:`~._derivatives.rnea_derivatives` of the states b0 … b0 + nb − 1 (nb ≤ DERIVATIVE_LANES) into the
    matrices of lanes dQ, dV, M (nv, nv, DERIVATIVE_LANES), whose entries off the tree's paths must hold zeros (the
    sweep leaves them: :func:`~._derivatives.backward_sweep`). The backward sweep's G and T are this kernel's
    own."""
    wide_vectors()
    G, T = work((4, 6, 6, DERIVATIVE_LANES)), work((3, DERIVATIVE_LANES))
    states_in_lanes(topology, params, gravity, q, v, a, f_ext, b0, nb, qs, vs, as_, R0, p0, V, A, F, Y, B, S, U, Z, W)
    backward_sweep(topology, params, S, U, Z, W, F, Y, B, G, dQ, dV, M, T, WHOLE)
    release((G, T))


@lanes_kernel
def bias_removed(topology, S, F, taus, x):
    """x[k, 0] = τ_k − c_k in every lane, c_k = ψ_kᵀ F_j the bias force of velocity k of body j (gravity, Coriolis
    and f_ext: F_j its subtree's force at q̈ = 0, after the INERTIA part of the backward sweep)."""
    for j in range(topology.shape[0]):
        for c in range(topology[j, NVJ]):
            k = topology[j, IV] + c
            for b in range(taus.shape[1]):
                psi, f = lane_vector(S, k, b), lane_vector(F, j, b)
                x[k, 0, b] = taus[k, b] - (psi[0] * f[0] + psi[1] * f[1] + psi[2] * f[2] + psi[3] * f[3]
                                           + psi[4] * f[4] + psi[5] * f[5])


@lanes_kernel
def rates_at(topology, S, Y, qdd, Z, F, D, P):
    """The terms of the forward sweep linear in the joint accelerations, added for q̈ (qdd (nv, 1, lanes)) to a
    sweep made at q̈ = 0 and summed by the INERTIA part of the backward sweep (Y, F the composite sums): with
    δ_i = Σ ψ_k q̈_k over body i's velocities and Δa_i = Δa_λ + δ_i (D) the change of ᵒa_i, z_k += Δa_λ × ψ_k
    (z = ᵒa_λ × ψ + ᵒv_λ × u) and the subtree force F_j += Σ_{k in the subtree} Y_k Δa_k = Y^c_j Δa_λ + P_j,
    P_j = Σ_{m in the subtree} Y^c_m δ_m (Featherstone 2008, eqs. 5.7–5.9: RNEA's a_i and f_i; Carpentier &
    Mansard 2018 evaluate ∂τ/∂x at a = q̈)."""
    n = topology.shape[0]
    for r in range(6):
        for b in range(qdd.shape[2]):
            D[-1, r, b] = 0.0
    for i in range(n):
        lam, iv = topology[i, PARENT], topology[i, IV]
        for b in range(qdd.shape[2]):
            dl = lane_vector(D, lam, b)
            d = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
            for c in range(topology[i, NVJ]):
                psi, a = lane_vector(S, iv + c, b), qdd[iv + c, 0, b]
                dz = cross_motion(dl, psi)
                for r in range(6):
                    Z[iv + c, r, b] += dz[r]
                d = (d[0] + psi[0] * a, d[1] + psi[1] * a, d[2] + psi[2] * a, d[3] + psi[3] * a,
                     d[4] + psi[4] * a, d[5] + psi[5] * a)
            p = inertia_times(lane_inertia(Y, i, b), d)
            for r in range(6):
                D[i, r, b] = dl[r] + d[r]
                P[i, r, b] = p[r]
    for j in range(n - 1, -1, -1):  # (a body's children come after it)
        lam = topology[j, PARENT]
        for b in range(qdd.shape[2]):
            f = inertia_times(lane_inertia(Y, j, b), lane_vector(D, lam, b))
            for r in range(6):
                F[j, r, b] += f[r] + P[j, r, b]
                P[lam, r, b] += P[j, r, b]


@lanes_kernel
def aba_derivatives_chunk(topology, params, gravity, q, v, tau, f_ext, qdd, b0, nb, lam, ends, qs, vs, as_, taus, x,
                          R0, p0, V, A, F, Y, B, S, U, Z, W, D, P, dQ, dV, M, Minv):
    """q̈ = M⁻¹ (τ − c), ∂q̈/∂q and ∂q̈/∂v (into dQ, dV, zero off the tree's paths) and M⁻¹ of the states
    b0 … b0 + nb − 1, in lanes, without a separate ABA: the forward sweep at q̈ = 0 (qdd's rows zeroed) gives the
    bias forces c (:func:`bias_removed`), the INERTIA part of the backward sweep M, factored as Lᵀ L
    (:func:`~._tree_factor.tree_factor`), whose solve gives q̈ (written to qdd's rows; NaN if M is not positive
    definite); :func:`rates_at` moves the sweep to a = q̈, where the RATES part gives ∂τ/∂x, then
    ∂q̈/∂x = −M⁻¹ ∂τ/∂x (Carpentier & Mansard 2018, Section IV) and M⁻¹ by the same factor. Returns False if M is
    not positive definite in some lane."""
    wide_vectors()
    G, T = work((4, 6, 6, DERIVATIVE_LANES)), work((3, DERIVATIVE_LANES))
    for b in range(nb):
        for k in range(qdd.shape[1]):
            qdd[b0 + b, k] = 0.0
    states_in_lanes(topology, params, gravity, q, v, qdd, f_ext, b0, nb, qs, vs, as_, R0, p0, V, A, F, Y, B, S, U, Z,
                    W)
    backward_sweep(topology, params, S, U, Z, W, F, Y, B, G, dQ, dV, M, T, INERTIA)
    ok = tree_factor(M, lam)
    if ok:
        gathered(tau, b0, nb, taus)
        bias_removed(topology, S, F, taus, x)
        tree_solve(M, lam, ends, x, 1.0)
        rates_at(topology, S, Y, x, Z, F, D, P)
        backward_sweep(topology, params, S, U, Z, W, F, Y, B, G, dQ, dV, M, T, RATES)
        tree_solve(M, lam, ends, dQ, -1.0)
        tree_solve(M, lam, ends, dV, -1.0)
        tree_inverse(M, lam, ends, Minv)
    for b in range(nb):
        for k in range(qdd.shape[1]):
            qdd[b0 + b, k] = x[k, 0, b] if ok else np.nan
    release((G, T))
    return ok


@lanes_share
def rnea_derivatives_lanes(topology, params, gravity, q, v, a, f_ext, dtau_dq, dtau_dv, Mout, finite, counter):
    """:func:`~._derivatives.rnea_derivatives_share` in chunks of DERIVATIVE_LANES states held as lanes, chunk k
    the states k·DERIVATIVE_LANES onwards, claimed from ``counter`` (:mod:`._claims`)."""
    n, nv, L, count = topology.shape[0], Mout.shape[1], DERIVATIVE_LANES, q.shape[0]
    k = claim(counter)
    if k * L >= count:  # (nothing left: no work arrays to set up)
        return
    F, Y, B = work((n + 1, 6, L)), work((n + 1, 10, L)), work((n + 1, 6, 3, L))
    S, U, Z, W = work((nv, 6, L)), work((nv, 6, L)), work((nv, 6, L)), work((nv, 6, L))
    qs, vs, as_ = work((q.shape[1], L)), work((nv, L)), work((nv, L))
    R0f, p0, Vf, Af = work((n + 1, 3, 3, L)), work((n + 1, 3, L)), work((n + 1, 6, L)), work((n + 1, 6, L))
    nonfinite = work((L,))
    dQ, dV, M = work((nv, nv, L)), work((nv, nv, L)), work((nv, nv, L))
    lam, on_path = work((nv,)), work((nv, nv))
    dof_parents(topology, lam)
    path_pairs(lam, on_path)  # (the entries the sweep writes: the others are zeros, stored as such)
    dQ[:] = 0.0  # (once: the entries off the tree's paths, which no chunk writes)
    dV[:] = 0.0
    M[:] = 0.0
    while k * L < count:
        b0 = k * L
        nb = min(L, count - b0)
        rnea_derivatives_chunk(topology, params, gravity, q, v, a, f_ext, b0, nb, qs, vs, as_, R0f, p0, Vf, Af, F, Y,
                               B, S, U, Z, W, dQ, dV, M)
        nonfinite[:] = 0.0
        scattered(dQ, dtau_dq, b0, nb, nonfinite, on_path)
        scattered(dV, dtau_dv, b0, nb, nonfinite, on_path)
        scattered(M, Mout, b0, nb, nonfinite, on_path)
        for b in range(nb):
            finite[b0 + b] = nonfinite[b] == 0.0
        finished(counter)
        k = claim(counter)
    release((F, Y, B, S, U, Z, W, qs, vs, as_, R0f, p0, Vf, Af, nonfinite, dQ, dV, M, lam, on_path))


@lanes_kernel
def off_paths_zeroed(X, on_path):
    """X[r, c] = 0 in every lane where velocities r and c lie on no one path of the tree (on_path:
    :func:`~._tree_factor.path_pairs`): the entries that the backward sweep leaves and the solves read."""
    for r in range(X.shape[0]):
        for c in range(X.shape[1]):
            if on_path[r, c] == 0.0:
                for b in range(X.shape[2]):
                    X[r, c, b] = 0.0


@lanes_share
def aba_derivatives_lanes(topology, params, gravity, q, v, tau, f_ext, ddq_dq, ddq_dv, Minv, qdd, status, counter):
    """:func:`~._derivatives.aba_derivatives_share` in chunks of DERIVATIVE_LANES states held as lanes
    (:func:`aba_derivatives_chunk`), claimed as in :func:`rnea_derivatives_lanes`. status[b]: OK, NONFINITE or
    NOT_POSITIVE_DEFINITE (of its chunk)."""
    n, nq, nv, L, count = topology.shape[0], q.shape[1], qdd.shape[1], DERIVATIVE_LANES, q.shape[0]
    k = claim(counter)
    if k * L >= count:
        return
    F, Y, B = work((n + 1, 6, L)), work((n + 1, 10, L)), work((n + 1, 6, 3, L))
    S, U, Z, W = work((nv, 6, L)), work((nv, 6, L)), work((nv, 6, L)), work((nv, 6, L))
    qs, vs, as_, taus, x = work((nq, L)), work((nv, L)), work((nv, L)), work((nv, L)), work((nv, 1, L))
    R0, p0, V, A = work((n + 1, 3, 3, L)), work((n + 1, 3, L)), work((n + 1, 6, L)), work((n + 1, 6, L))
    D, P = work((n + 1, 6, L)), work((n + 1, 6, L))
    nonfinite = work((L,))
    dQ, dV, M, Mi = work((nv, nv, L)), work((nv, nv, L)), work((nv, nv, L)), work((nv, nv, L))
    lam, ends, on_path = work((nv,)), work((nv,)), work((nv, nv))
    dof_parents(topology, lam)
    subtree_ends(lam, ends)
    path_pairs(lam, on_path)
    M[:] = 0.0  # (once: the entries off the tree's paths, which neither the sweep nor the factorization writes)
    while k * L < count:
        b0 = k * L
        nb = min(L, count - b0)
        off_paths_zeroed(dQ, on_path)  # (the solves fill them; the sweep writes the others)
        off_paths_zeroed(dV, on_path)
        code = NOT_POSITIVE_DEFINITE
        if aba_derivatives_chunk(topology, params, gravity, q, v, tau, f_ext, qdd, b0, nb, lam, ends, qs, vs, as_,
                                 taus, x, R0, p0, V, A, F, Y, B, S, U, Z, W, D, P, dQ, dV, M, Mi):
            nonfinite[:] = 0.0
            scattered(dQ, ddq_dq, b0, nb, nonfinite, on_path[:0])  # (dense: every block read)
            scattered(dV, ddq_dv, b0, nb, nonfinite, on_path[:0])
            scattered(Mi, Minv, b0, nb, nonfinite, on_path[:0])
            finite = True
            for b in range(nb):
                finite &= nonfinite[b] == 0.0
            code = OK if finite else NONFINITE
        for b in range(nb):
            status[b0 + b] = code
        finished(counter)
        k = claim(counter)
    release((F, Y, B, S, U, Z, W, qs, vs, as_, taus, x, R0, p0, V, A, D, P, nonfinite, dQ, dV, M, Mi, lam, ends,
             on_path))
