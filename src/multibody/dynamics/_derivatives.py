"""Compiled analytical derivatives of inverse and forward dynamics (Carpentier & Mansard, RSS 2018).

J. Carpentier and N. Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", Robotics: Science and
Systems, 2018: differentiating the RNEA recursions in world coordinates gives ∂τ/∂q, ∂τ/∂v and M in one O(n²)
sweep, and ∂q̈/∂x = −M⁻¹ ∂τ/∂x at q̈ = ABA(q, v, τ) (their eq. 2, from M q̈ + c = τ).

Everything is in world axes about the world origin ("o" quantities), where a perturbation δ of joint i's tangent
coordinates (those of :func:`~._configuration.integrate`: the body twist ``S_i δ`` in child axes, whatever the
joint type) moves the whole subtree of body i rigidly by the world twist ψ = ᵒS_i δ: motion vectors attached to it
change by ψ ×, forces by ψ ×*, inertias Y by ψ ×* Y − Y ψ ×. What does not move rigidly is what flows in from the
parent λ(i): with u = ᵒv_λ × ψ (the ∂v/∂q of Carpentier & Mansard, Table 1),

    δᵒv_k = ψ × ᵒv_k + u,      δᵒa_k = ψ × ᵒa_k + ᵒa_λ × ψ + u × (ᵒv_k − ᵒv_λ)        (k in the subtree of i)

and the body forces ᵒf_k = Y_k ᵒa_k + ᵒv_k ×* Y_k ᵒv_k change by ψ ×* ᵒf_k plus Y_k z + B_k u, with
z = ᵒa_λ × ψ + ᵒv_λ × u and B_k u = Y_k (u × ᵒv_k) + u ×* (Y_k ᵒv_k) + ᵒv_k ×* (Y_k u) (their B_i, the body's
Coriolis operator). Summed over a subtree these are composite sums, Y^c and B^c, so with F_j the subtree force:

    ∂τ_j/∂q_i = S_jᵀ (Y^c_j z_i + B^c_j u_i)             j in the subtree of i (S_jᵀ (ψ ×* F_j) = 0)
    ∂τ_j/∂q_i = S_jᵀ (ψ_i ×* F_i + Y^c_i z_i + B^c_i u_i)  j an ancestor of i

and for a velocity perturbation (δᵒv_k = ψ, δᵒa_k = y + ψ × ᵒv_k, y = u + ᵒv_i × ψ): ∂τ_j/∂v_i =
S_jᵀ (Y^c_m y_i + B^c_m ψ_i), m the deeper of i and j; M_ji = S_jᵀ Y^c_m S_i. The joints enter only through their
motion subspaces (world columns as :func:`._core.crba` builds them) and poses: no joint-specific derivative.
Layout: :mod:`._layout`; helpers: :mod:`._spatial_kernels`; equation references are to Featherstone, RBDA 2008.
"""
import numba
import numpy as np
from numba.extending import overload

from ._batch import inertia_times
from ._core import (NONFINITE, OK, STRIDED, VECTOR, WRONG_SIZE, _single_state, aba, contiguous, cross,
                    dot6, rotation_times, state_fits, world_frame_row)
from ._spatial_kernels import (CPU, IV, JTYPE, NVJ, PARENT, all_finite, armature, axis_frame, cross_force,
                               cross_motion, inline, motion_subspace, njit_without_refcounts, release, row6,
                               sines_cosines, unpacked, work)
from ._lanes import add_row, add_to_entry, lane_inertia, lane_vector
from ._claims import claim, finished, in_claimed_chunks
from ._threads import threads_for
from ._tree_factor import dof_parents, subtree_ends, tree_factor, tree_inverse, tree_solve

NOT_POSITIVE_DEFINITE = 4  # status of aba_derivatives_one besides _core's OK, NONFINITE, WRONG_SIZE, STRIDED
TENSOR = "float64[:, :, ::1]"
rotates_about_its_axis, world_origin_inertia = CPU.joints.rotates_about_its_axis, CPU.world_origin_inertia
placed_axis_frame = CPU.placed_axis_frame


@inline
def operator_times(B, m):
    """B m for a Coriolis operator B = [B_ω 0] (:func:`coriolis_operator`), B_ω given as a row-major 18-tuple (6 × 3),
    and a 6-tuple m (its linear half meets B's zero columns), as a 6-tuple."""
    return (B[0] * m[0] + B[1] * m[1] + B[2] * m[2], B[3] * m[0] + B[4] * m[1] + B[5] * m[2],
            B[6] * m[0] + B[7] * m[1] + B[8] * m[2], B[9] * m[0] + B[10] * m[1] + B[11] * m[2],
            B[12] * m[0] + B[13] * m[1] + B[14] * m[2], B[15] * m[0] + B[16] * m[1] + B[17] * m[2])


@inline
def operator_transpose_times(B, m):
    """Bᵀ m = [B_ωᵀ m; 0] for a Coriolis operator B = [B_ω 0] as in :func:`operator_times`, as a 6-tuple."""
    return (B[0] * m[0] + B[3] * m[1] + B[6] * m[2] + B[9] * m[3] + B[12] * m[4] + B[15] * m[5],
            B[1] * m[0] + B[4] * m[1] + B[7] * m[2] + B[10] * m[3] + B[13] * m[4] + B[16] * m[5],
            B[2] * m[0] + B[5] * m[1] + B[8] * m[2] + B[11] * m[3] + B[14] * m[4] + B[17] * m[5], 0.0, 0.0, 0.0)


@inline
def add6(x, y):
    """x + y for 6-tuples."""
    return x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3], x[4] + y[4], x[5] + y[5]


@inline
def set_row(X, k, x):
    """X[k] = x for a 6-tuple x."""
    X[k, 0], X[k, 1], X[k, 2], X[k, 3], X[k, 4], X[k, 5] = x


@inline
def coriolis_operator(Y, vi):
    """B_ω (6 × 3, a row-major 18-tuple): Carpentier & Mansard's B_i, the derivative of the body force v ×* Y v along
    with the frame's own motion, u ↦ Y_i (u × v_i) + u ×* (Y_i v_i) + v_i ×* (Y_i u), is [B_ω 0]: its linear columns
    cancel. With v_i = [ω; v], Y_i = (m, h, I) (a compact 10-tuple, :func:`~._batch.inertia_times`) and
    Y_i v_i = [n; f], B_ω = [[ω×] I − I [ω×] + 2 (v·h) 1 − v hᵀ − h vᵀ − [n×];  −2 [f×]]
    ([ω×] I − I [ω×] = A + Aᵀ, A = [ω×] I)."""
    I00, I11, I22, I01, I02, I12 = Y[4], Y[5], Y[6], Y[7], Y[8], Y[9]
    h0, h1, h2 = Y[1], Y[2], Y[3]
    n0, n1, n2, f0, f1, f2 = inertia_times(Y, vi)
    w0, w1, w2, x0, x1, x2 = vi
    A00, A01, A02 = w1 * I02 - w2 * I01, w1 * I12 - w2 * I11, w1 * I22 - w2 * I12
    A10, A11, A12 = w2 * I00 - w0 * I02, w2 * I01 - w0 * I12, w2 * I02 - w0 * I22
    A20, A21, A22 = w0 * I01 - w1 * I00, w0 * I11 - w1 * I01, w0 * I12 - w1 * I02
    d = 2.0 * (x0 * h0 + x1 * h1 + x2 * h2)
    return (2.0 * (A00 - x0 * h0) + d, A01 + A10 - x0 * h1 - h0 * x1 + n2, A02 + A20 - x0 * h2 - h0 * x2 - n1,
            A10 + A01 - x1 * h0 - h1 * x0 - n2, 2.0 * (A11 - x1 * h1) + d, A12 + A21 - x1 * h2 - h1 * x2 + n0,
            A20 + A02 - x2 * h0 - h2 * x0 + n1, A21 + A12 - x2 * h1 - h2 * x1 - n0, 2.0 * (A22 - x2 * h2) + d,
            0.0, 2.0 * f2, -2.0 * f1, -2.0 * f2, 0.0, 2.0 * f0, 2.0 * f1, -2.0 * f0, 0.0)


@inline
def column_about_world_origin(w, lin, p):
    """ψ = [ω; p × ω + v]: a motion-subspace column [ω; v] in world axes about the axis frame's origin p, moved to
    the world origin (a 6-tuple)."""
    pw = cross(p, w)
    return w[0], w[1], w[2], lin[0] + pw[0], lin[1] + pw[1], lin[2] + pw[2]


@inline
def column_rates(psi, vl, al):
    """(u, z) of a subspace column ψ whose joint's parent moves with ᵒv_λ, ᵒa_λ: u = ᵒv_λ × ψ,
    z = ᵒa_λ × ψ + ᵒv_λ × u (module docstring)."""
    u = cross_motion(vl, psi)
    return u, add6(cross_motion(al, psi), cross_motion(vl, u))


@inline
def body_motion(vl, al, vJ, aJ):
    """(ᵒv_i, ᵒa_i) = (ᵒv_λ + S v,  ᵒa_λ + S a + ᵒv_λ × S v) from the joint's vJ = S v and aJ = S a."""
    return add6(vl, vJ), add6(add6(al, aJ), cross_motion(vl, vJ))


@inline
def body_force(Y, vi, ai):
    """ᵒf_i = Y ᵒa + ᵒv ×* Y ᵒv for a compact inertia Y about the world origin (10-tuple)."""
    return add6(inertia_times(Y, ai), cross_force(vi, inertia_times(Y, vi)))


@inline
def external_force_about_world_origin(params, i, R, p, f_ext):
    """f_ext[i] (body axes, about the body origin) in world axes about the world origin, R, p the world pose of
    body i's axis frame (Q its axes in body axes): [R Qᵀ n + p × R Qᵀ f; R Qᵀ f], a 6-tuple."""
    Q = axis_frame(params, i)
    nw = rotation_times(R, Q[0] * f_ext[i, 0] + Q[3] * f_ext[i, 1] + Q[6] * f_ext[i, 2],
                        Q[1] * f_ext[i, 0] + Q[4] * f_ext[i, 1] + Q[7] * f_ext[i, 2],
                        Q[2] * f_ext[i, 0] + Q[5] * f_ext[i, 1] + Q[8] * f_ext[i, 2])
    fw = rotation_times(R, Q[0] * f_ext[i, 3] + Q[3] * f_ext[i, 4] + Q[6] * f_ext[i, 5],
                        Q[1] * f_ext[i, 3] + Q[4] * f_ext[i, 4] + Q[7] * f_ext[i, 5],
                        Q[2] * f_ext[i, 3] + Q[5] * f_ext[i, 4] + Q[8] * f_ext[i, 5])
    pf = cross(p, fw)
    return nw[0] + pf[0], nw[1] + pf[1], nw[2] + pf[2], fw[0], fw[1], fw[2]


@njit_without_refcounts(cache=True, fastmath={"contract"}, forceinline=True)  # (LLVM inlines it: see CPU_PASSES)
def forward_body(topology, params, i, q, v, a, f_ext, R0, p0, V, A, F, Y, B, S, U, Z, W, SC):
    """Body i's step of :func:`forward_sweep` (its parent's rows done): its world pose R0[i], p0[i]; per velocity
    of its joint ψ (S), u (U), z (Z), y (W); ᵒv (V), ᵒa (A), the inertia about the world origin (Y), the body
    force less f_ext (F) and the operator B."""
    lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
    R, p = placed_axis_frame(topology, params, i, q, R0, p0, SC)
    Yi = world_origin_inertia(params, i, R, p)
    Y[i, 0], Y[i, 1], Y[i, 2], Y[i, 3], Y[i, 4], Y[i, 5], Y[i, 6], Y[i, 7], Y[i, 8], Y[i, 9] = Yi
    vl, al = row6(V, lam), row6(A, lam)
    vJ = aJ = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for k in range(nvj):  # [ω; v] = R0 S (a revolute joint's ω = R0 e_z, v = 0)
        if rotates_about_its_axis(topology[i, JTYPE]):
            psi = column_about_world_origin((R[2], R[5], R[8]), (0.0, 0.0, 0.0), p)
        else:
            Sk = motion_subspace(params, i, k)
            psi = column_about_world_origin(rotation_times(R, Sk[0], Sk[1], Sk[2]),
                                            rotation_times(R, Sk[3], Sk[4], Sk[5]), p)
        u, z = column_rates(psi, vl, al)
        set_row(S, iv + k, psi)
        set_row(U, iv + k, u)
        set_row(Z, iv + k, z)
        vk, ak = v[iv + k], a[iv + k]
        vJ = (vJ[0] + psi[0] * vk, vJ[1] + psi[1] * vk, vJ[2] + psi[2] * vk, vJ[3] + psi[3] * vk,
              vJ[4] + psi[4] * vk, vJ[5] + psi[5] * vk)
        aJ = (aJ[0] + psi[0] * ak, aJ[1] + psi[1] * ak, aJ[2] + psi[2] * ak, aJ[3] + psi[3] * ak,
              aJ[4] + psi[4] * ak, aJ[5] + psi[5] * ak)
    vi, ai = body_motion(vl, al, vJ, aJ)
    set_row(V, i, vi)
    set_row(A, i, ai)
    for k in range(nvj):  # y = u + ᵒv_i × ψ
        set_row(W, iv + k, add6(row6(U, iv + k), cross_motion(vi, row6(S, iv + k))))
    f = body_force(Yi, vi, ai)
    if f_ext.shape[0] > 0:  # less f_ext (turned from body axes to world axes about the world origin)
        fe = external_force_about_world_origin(params, i, R, p, f_ext)
        f = (f[0] - fe[0], f[1] - fe[1], f[2] - fe[2], f[3] - fe[3], f[4] - fe[4], f[5] - fe[5])
    set_row(F, i, f)
    Bi = coriolis_operator(Yi, vi)
    (B[i, 0, 0], B[i, 0, 1], B[i, 0, 2], B[i, 1, 0], B[i, 1, 1], B[i, 1, 2], B[i, 2, 0], B[i, 2, 1], B[i, 2, 2],
     B[i, 3, 0], B[i, 3, 1], B[i, 3, 2], B[i, 4, 0], B[i, 4, 1], B[i, 4, 2], B[i, 5, 0], B[i, 5, 1], B[i, 5, 2]) = Bi


@njit_without_refcounts(cache=True, fastmath={"contract"}, forceinline=True)  # (LLVM inlines it: see CPU_PASSES)
def forward_sweep(topology, params, gravity, q, v, a, f_ext, R0, p0, V, A, F, Y, B, S, U, Z, W, SC):
    """The forward pass of :func:`rnea_derivatives`, root to leaves (:func:`forward_body` at each body): world poses
    R0, p0 of the axis frames; per velocity the subspace column ψ (S), u = ᵒv_λ × ψ (U), z = ᵒa_λ × ψ + ᵒv_λ × u
    (Z), y = u + ᵒv_i × ψ (W); per body ᵒv (V), ᵒa (A, the world's −g at row −1), the inertia about the world origin
    (Y), the body force Y ᵒa + ᵒv ×* Y ᵒv − f_ext (F) and the operator B (module docstring)."""
    sines_cosines(q, SC)
    world_frame_row(R0, p0)
    V[-1] = 0.0
    A[-1, :3] = 0.0
    for r in range(3):
        A[-1, 3 + r] = -gravity[r]
    for i in range(topology.shape[0]):
        forward_body(topology, params, i, q, v, a, f_ext, R0, p0, V, A, F, Y, B, S, U, Z, W, SC)


@inline
def column_terms(Y, B, F, psi, z, u, y):
    """For a motion-subspace column ψ of body j, with its z, u and y (:func:`forward_sweep`) and the composite
    inertia Y (compact 10-tuple), Coriolis operator B (B_ω as a row-major 18-tuple) and force F of j's subtree: the factors
    of the entries of j's rows and of its ancestors' rows (module docstring), as four 6-tuples
    (Y ψ, Bᵀ ψ, ψ ×* F + Y z + B u, Y y + B ψ)."""
    return (inertia_times(Y, psi), operator_transpose_times(B, psi),
            add6(add6(cross_force(psi, F), inertia_times(Y, z)), operator_times(B, u)),
            add6(inertia_times(Y, y), operator_times(B, psi)))


@inline
def pair_rates(Ya, Bs, z, u, y, psi):
    """(∂τ_j/∂q_i, ∂τ_j/∂v_i) for a column of body j (Ya = Y^c_j ψ_j, Bs = B^cᵀ_j ψ_j: :func:`column_terms`) and a
    column ψ_i of an ancestor i (itself included) with its z, u, y: ψ_jᵀ (Y^c_j z_i + B^c_j u_i) and
    ψ_jᵀ (Y^c_j y_i + B^c_j ψ_i)."""
    return dot6(Ya, z) + dot6(Bs, u), dot6(Ya, y) + dot6(Bs, psi)


def store_column_terms(Y, B, F, j, S, Z, U, W, k, G, c, rates):
    """G[0 … 3, c] = :func:`column_terms` of velocity k (a column of body j) from the rows of the arrays (in every
    lane, for the lanes' arrays: their last axis); unless ``rates``, the lanes' G[0, c] = Y ψ alone (all M needs)."""


@overload(store_column_terms, inline="always")
def _store_column_terms(Y, B, F, j, S, Z, U, W, k, G, c, rates):
    if G.ndim == 3:
        def one(Y, B, F, j, S, Z, U, W, k, G, c, rates):
            terms = column_terms((Y[j, 0], Y[j, 1], Y[j, 2], Y[j, 3], Y[j, 4], Y[j, 5], Y[j, 6], Y[j, 7], Y[j, 8],
                                  Y[j, 9]),
                                 (B[j, 0, 0], B[j, 0, 1], B[j, 0, 2], B[j, 1, 0], B[j, 1, 1], B[j, 1, 2], B[j, 2, 0],
                                  B[j, 2, 1], B[j, 2, 2], B[j, 3, 0], B[j, 3, 1], B[j, 3, 2], B[j, 4, 0], B[j, 4, 1],
                                  B[j, 4, 2], B[j, 5, 0], B[j, 5, 1], B[j, 5, 2]),
                                 row6(F, j), row6(S, k), row6(Z, k), row6(U, k), row6(W, k))
            for t in range(4):
                for r in range(6):
                    G[t, c, r] = terms[t][r]
        return one

    def lanes(Y, B, F, j, S, Z, U, W, k, G, c, rates):
        if not rates:  # (Y ψ alone: the entries of M)
            for b in range(G.shape[3]):
                Ya = inertia_times(lane_inertia(Y, j, b), lane_vector(S, k, b))
                for r in range(6):
                    G[0, c, r, b] = Ya[r]
            return
        for b in range(G.shape[3]):
            terms = column_terms(lane_inertia(Y, j, b),
                                 (B[j, 0, 0, b], B[j, 0, 1, b], B[j, 0, 2, b], B[j, 1, 0, b], B[j, 1, 1, b],
                                  B[j, 1, 2, b], B[j, 2, 0, b], B[j, 2, 1, b], B[j, 2, 2, b], B[j, 3, 0, b],
                                  B[j, 3, 1, b], B[j, 3, 2, b], B[j, 4, 0, b], B[j, 4, 1, b], B[j, 4, 2, b],
                                  B[j, 5, 0, b], B[j, 5, 1, b], B[j, 5, 2, b]),
                                 lane_vector(F, j, b), lane_vector(S, k, b), lane_vector(Z, k, b),
                                 lane_vector(U, k, b), lane_vector(W, k, b))
            for t in range(4):
                for r in range(6):
                    G[t, c, r, b] = terms[t][r]
    return lanes


def store_pair_rates(G, c, S, Z, U, W, k, dQ, dV, row, T):
    """dQ[row, k], dV[row, k] = :func:`pair_rates` of the column c of G (:func:`store_column_terms`) and velocity k
    (in every lane, through the scratch rows T (3, lanes): see :func:`backward_sweep`)."""


@overload(store_pair_rates, inline="always")
def _store_pair_rates(G, c, S, Z, U, W, k, dQ, dV, row, T):
    if G.ndim == 3:
        def one(G, c, S, Z, U, W, k, dQ, dV, row, T):
            dQ[row, k], dV[row, k] = pair_rates(row6(G[0], c), row6(G[1], c), row6(Z, k), row6(U, k), row6(W, k),
                                                row6(S, k))
        return one

    def lanes(G, c, S, Z, U, W, k, dQ, dV, row, T):
        for b in range(G.shape[3]):
            T[0, b], T[1, b] = pair_rates(
                (G[0, c, 0, b], G[0, c, 1, b], G[0, c, 2, b], G[0, c, 3, b], G[0, c, 4, b], G[0, c, 5, b]),
                (G[1, c, 0, b], G[1, c, 1, b], G[1, c, 2, b], G[1, c, 3, b], G[1, c, 4, b], G[1, c, 5, b]),
                lane_vector(Z, k, b), lane_vector(U, k, b), lane_vector(W, k, b), lane_vector(S, k, b))
        for b in range(G.shape[3]):
            dQ[row, k, b], dV[row, k, b] = T[0, b], T[1, b]
    return lanes


def store_ancestor_entries(S, k, G, c, M, dQ, dV, col, mass, rates, T):
    """If ``mass``, M[k, col] = M[col, k] = ψ_kᵀ G[0, c] (= ψ_kᵀ Y^c ψ_col); if ``rates``, the ancestor's
    derivatives dQ[k, col] = ψ_kᵀ G[2, c], dV[k, col] = ψ_kᵀ G[3, c] (module docstring), for velocity k of an
    ancestor of velocity col's body, c its column in G (in every lane, through the scratch rows T (3, lanes))."""


@overload(store_ancestor_entries, inline="always")
def _store_ancestor_entries(S, k, G, c, M, dQ, dV, col, mass, rates, T):
    if G.ndim == 3:
        def one(S, k, G, c, M, dQ, dV, col, mass, rates, T):
            psi = row6(S, k)
            if mass:
                M[k, col] = M[col, k] = dot6(psi, row6(G[0], c))
            if rates:
                dQ[k, col], dV[k, col] = dot6(psi, row6(G[2], c)), dot6(psi, row6(G[3], c))
        return one

    def lanes(S, k, G, c, M, dQ, dV, col, mass, rates, T):
        if mass:
            for b in range(G.shape[3]):
                T[0, b] = dot6(lane_vector(S, k, b), (G[0, c, 0, b], G[0, c, 1, b], G[0, c, 2, b], G[0, c, 3, b],
                                                      G[0, c, 4, b], G[0, c, 5, b]))
            for b in range(G.shape[3]):
                M[k, col, b] = M[col, k, b] = T[0, b]
        if rates:
            for b in range(G.shape[3]):
                psi = lane_vector(S, k, b)
                T[1, b] = dot6(psi, (G[2, c, 0, b], G[2, c, 1, b], G[2, c, 2, b], G[2, c, 3, b], G[2, c, 4, b],
                                     G[2, c, 5, b]))
                T[2, b] = dot6(psi, (G[3, c, 0, b], G[3, c, 1, b], G[3, c, 2, b], G[3, c, 3, b], G[3, c, 4, b],
                                     G[3, c, 5, b]))
            for b in range(G.shape[3]):
                dQ[k, col, b], dV[k, col, b] = T[1, b], T[2, b]
    return lanes


WHOLE, INERTIA, RATES = 0, 1, 2  # the parts of backward_sweep: all of it; M and the composite sums; ∂τ/∂x alone


@inline
def backward_sweep(topology, params, S, U, Z, W, F, Y, B, G, dQ, dV, M, T, part):
    """The backward pass of :func:`rnea_derivatives`, leaves to root, after :func:`forward_sweep`: composite sums
    Y^c, B^c, F in place of Y, B, F; each body j fills its entries with every ancestor i (itself included) of
    ∂τ/∂q (dQ), ∂τ/∂v (dV) and M. On the arrays of one state, or on those of a chunk of states held as lanes (the
    state last: :mod:`._lanes`), through the ``store_`` operations. G: (4, 6, 6) (lanes last) work array. For the
    lanes, G and T (3, lanes) are the caller's own ``work`` arrays, which LLVM knows to overlap no argument: each
    lane loop then writes them alone and a plain copy moves T's rows into the matrices (:mod:`._lanes`' stack
    arrays; writing the matrices in the loop, LLVM found too many possible overlaps to check and ran it lane by lane:
    6 of the 7.5 µs per state of Talos's ∂τ/∂x). One state: T unused. Writes every entry whose row and column
    velocities lie on one path of the tree, and no other: the caller zeroes dQ, dV and M first (work arrays of a
    chunk once for all its chunks, as far as nothing else writes them: 0.9 µs per state of Talos's ∂τ/∂x, nv = 38,
    zeroed again for every chunk). ``part``: WHOLE; INERTIA, M and the composite sums only; RATES, ∂τ/∂q and
    ∂τ/∂v only, from composite sums Y^c, B^c, F already in Y, B, F (:func:`~._derivatives_lanes.rates_at`)."""
    for j in range(topology.shape[0] - 1, -1, -1):
        nvj, jv = topology[j, NVJ], topology[j, IV]
        for c in range(nvj):
            store_column_terms(Y, B, F, j, S, Z, U, W, jv + c, G, c, part != INERTIA)
        i = j
        while i >= 0:
            nvi, iv = topology[i, NVJ], topology[i, IV]
            if part != INERTIA:
                for r in range(nvj):  # rows of j, columns of its ancestor i
                    for c in range(nvi):
                        store_pair_rates(G, r, S, Z, U, W, iv + c, dQ, dV, jv + r, T)
            if part != RATES or i != j:
                for r in range(nvi):  # rows of i, columns of j (for i = j: M only)
                    for c in range(nvj):
                        store_ancestor_entries(S, iv + r, G, c, M, dQ, dV, jv + c, part != RATES,
                                               i != j and part != INERTIA, T)
            i = topology[i, PARENT]
        if part == RATES:
            continue
        for c in range(nvj):
            add_to_entry(M, jv + c, jv + c, armature(params, j, c))
        # Y^c_λ += Y^c_j ;  B^c_λ += B^c_j ;  F_λ += F_j  (λ = −1: the unused world row)
        lam = topology[j, PARENT]
        add_row(Y, lam, j)
        add_row(B, lam, j)
        add_row(F, lam, j)


@njit_without_refcounts(cache=True, fastmath={"contract"})  # (no reference counts: see _spatial_kernels.work)
def rnea_derivatives(topology, params, gravity, q, v, a, f_ext, dtau_dq, dtau_dv, M):
    """∂τ/∂q (tangent space), ∂τ/∂v and M = ∂τ/∂a of τ = RNEA(q, v, a) − Σ Jᵀ f_ext (Carpentier & Mansard, RSS 2018,
    Algorithm 1, in the form of the module docstring). Same gravity, armature and f_ext conventions as
    :func:`._core.rnea`. Writes the (nv, nv) matrices; returns True if every entry is finite."""
    n, nv = topology.shape[0], M.shape[0]
    R0 = work((n + 1, 3, 3))   # world rotations of the axis frames; row −1: the world
    p0 = work((n + 1, 3))
    V = work((n + 1, 6))       # ᵒv_i; row −1: the world
    A = work((n + 1, 6))       # ᵒa_i (gravity as the world's acceleration −g)
    F = work((n + 1, 6))       # subtree forces; row −1 collects the world's (unused)
    Y = work((n + 1, 10))      # composite inertias (m, h, I) about the world origin
    B = work((n + 1, 6, 3))    # composite Coriolis operators B^c (their angular columns B_ω)
    S = work((nv, 6))          # ψ: motion-subspace columns, world axes about the world origin
    U = work((nv, 6))          # u = ᵒv_λ × ψ
    Z = work((nv, 6))          # z = ᵒa_λ × ψ + ᵒv_λ × u
    W = work((nv, 6))          # y = u + ᵒv_i × ψ
    G = work((4, 6, 6))        # for the body j at hand, per column: Y^c ψ, B^cᵀ ψ, ∂F/∂q, ∂F/∂v
    SC = work((2, q.shape[0]))
    forward_sweep(topology, params, gravity, q, v, a, f_ext, R0, p0, V, A, F, Y, B, S, U, Z, W, SC)
    dtau_dq[:] = 0.0  # (entries of bodies on different branches: backward_sweep leaves them)
    dtau_dv[:] = 0.0
    M[:] = 0.0
    backward_sweep(topology, params, S, U, Z, W, F, Y, B, G, dtau_dq, dtau_dv, M, G, WHOLE)
    release((R0, p0, V, A, F, Y, B, S, U, Z, W, G, SC))
    return all_finite(dtau_dq) and all_finite(dtau_dv) and all_finite(M)


@njit_without_refcounts(cache=True, fastmath={"contract"})
def aba_derivatives(topology, params, gravity, q, v, tau, f_ext, ddq_dq, ddq_dv, Minv, qdd):
    """∂q̈/∂q (tangent space), ∂q̈/∂v and M⁻¹ of q̈ = ABA(q, v, τ) (forward dynamics with f_ext), and q̈ itself:
    ∂q̈/∂x = −M⁻¹ ∂τ/∂x evaluated at a = q̈ (Carpentier & Mansard, RSS 2018, Section IV), ∂τ/∂x written into the
    outputs and solved there in place with the sparse factor M = Lᵀ L (:func:`~._tree_factor.tree_solve`), M⁻¹
    from the identity (:func:`~._tree_factor.tree_inverse`). Returns OK, NONFINITE (an entry is not finite) or
    NOT_POSITIVE_DEFINITE (M is not)."""
    nv = qdd.shape[0]
    ok = aba(topology, params, gravity, q, v, tau, f_ext, qdd)
    M = work((nv, nv))   # M, then its factor L
    lam = work((nv,))
    last = work((nv,))
    ok &= rnea_derivatives(topology, params, gravity, q, v, qdd, f_ext, ddq_dq, ddq_dv, M)
    dof_parents(topology, lam)
    subtree_ends(lam, last)
    status = NOT_POSITIVE_DEFINITE
    if tree_factor(M, lam):
        status = OK if ok else NONFINITE
        tree_solve(M, lam, last, ddq_dq, -1.0)
        tree_solve(M, lam, last, ddq_dv, -1.0)
        tree_inverse(M, lam, last, Minv)
    release((M, lam, last))
    return status


@njit_without_refcounts(cache=True, nogil=True, fastmath={"contract"})
def rnea_derivatives_share(topology, params, gravity, q, v, a, f_ext, dtau_dq, dtau_dv, M, finite, counter):
    """:func:`rnea_derivatives` of the states of a batch (q (B, nq), v and a (B, nv); f_ext (B, n, 6) one per
    state, or (1, ·, 6) shared) that this thread claims one by one from ``counter`` (:mod:`._claims`), into the
    batch's outputs; finite[b]: its return. Releases the GIL (one thread's share of :func:`batched`)."""
    b = claim(counter)
    while b < q.shape[0]:
        finite[b] = rnea_derivatives(topology, params, gravity, q[b], v[b], a[b], f_ext[min(b, f_ext.shape[0] - 1)],
                                     dtau_dq[b], dtau_dv[b], M[b])
        finished(counter)
        b = claim(counter)


@njit_without_refcounts(cache=True, nogil=True, fastmath={"contract"})
def aba_derivatives_share(topology, params, gravity, q, v, tau, f_ext, ddq_dq, ddq_dv, Minv, qdd, status, counter):
    """:func:`aba_derivatives` of the states of a batch that this thread claims (as :func:`rnea_derivatives_share`);
    status[b]: its return."""
    b = claim(counter)
    while b < q.shape[0]:
        status[b] = aba_derivatives(topology, params, gravity, q[b], v[b], tau[b], f_ext[min(b, f_ext.shape[0] - 1)],
                                    ddq_dq[b], ddq_dv[b], Minv[b], qdd[b])
        finished(counter)
        b = claim(counter)


def batched(share, count, work_us, *args, chunk=1):
    """share(*args, result, counter) over the states 0 … count − 1 of a batch, a compiled share that releases the
    GIL and claims chunks of ``chunk`` states (:func:`rnea_derivatives_share`, :func:`aba_derivatives_share` or
    their lanes' forms), called once on each of as many of numba's thread count (``numba.set_num_threads``) of
    threads as the work is worth (:func:`~._threads.threads_for`, ``work_us`` the estimated µs per state on one
    core), each taking the next chunk when it is free (:func:`~._claims.in_claimed_chunks`). Returns the (count,)
    int64 results."""
    result, chunks = np.empty(count, dtype=np.int64), -(-count // chunk)
    in_claimed_chunks(lambda counter: share(*args, result, counter), chunks,
                      threads_for(count * work_us, min(numba.get_num_threads(), chunks)))
    return result


# Single-state entry points (see _core._single_state): the three matrices in one (3, nv, nv) array, no forces.
@_single_state("rnea_derivatives_one", f"int64({VECTOR}, {VECTOR}, {VECTOR}, {VECTOR}, {TENSOR})")
def _rnea_derivatives_one(packed, q, v, a, out):
    topology, params, gravity = unpacked(packed)
    if not (state_fits(topology, q, v, a, a) and out.shape[1] == out.shape[2] == a.shape[0] and out.shape[0] == 3):
        return WRONG_SIZE
    if not (contiguous(q) and contiguous(v) and contiguous(a)):
        return STRIDED
    ok = rnea_derivatives(topology, params, gravity, q, v, a, params[:0], out[0], out[1], out[2])
    return OK if ok else NONFINITE


@_single_state("aba_derivatives_one", f"int64({VECTOR}, {VECTOR}, {VECTOR}, {VECTOR}, {TENSOR})")
def _aba_derivatives_one(packed, q, v, tau, out):
    topology, params, gravity = unpacked(packed)
    if not (state_fits(topology, q, v, tau, tau) and out.shape[1] == out.shape[2] == tau.shape[0]
            and out.shape[0] == 3):
        return WRONG_SIZE
    if not (contiguous(q) and contiguous(v) and contiguous(tau)):
        return STRIDED
    qdd = np.empty(tau.shape[0])
    return aba_derivatives(topology, params, gravity, q, v, tau, params[:0], out[0], out[1], out[2], qdd)


@njit_without_refcounts(cache=True, fastmath={"contract"})
def motion_terms(topology, params, q, v, a, S, U, Z, W, V, A):
    """The kinematic quantities of :func:`forward_sweep` without gravity, for the derivatives of body motion
    (:func:`multibody.kinematics_derivatives`): ψ, u, z, y per velocity and ᵒv, ᵒa per body (rows n + 1)."""
    n = topology.shape[0]
    R0 = work((n + 1, 3, 3))
    p0 = work((n + 1, 3))
    F = work((n + 1, 6))
    Y = work((n + 1, 10))
    B = work((n + 1, 6, 3))
    SC = work((2, q.shape[0]))
    gravity = work((3,))
    gravity[:] = 0.0
    forward_sweep(topology, params, gravity, q, v, a, params[:0], R0, p0, V, A, F, Y, B, S, U, Z, W, SC)
    release((R0, p0, F, Y, B, SC, gravity))
