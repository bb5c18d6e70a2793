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

from ._batch import in_threads
from ._core import (NONFINITE, OK, STRIDED, VECTOR, WRONG_SIZE, _single_state, aba, axis_frame_pose, contiguous, cross,
                    dot6, inertia_about_world_origin, rotation_times, state_fits, world_frame_row)
from ._spatial_kernels import (CPU, IV, JTYPE, NVJ, PARENT, armature, axis_frame, cross_force, cross_motion, inline,
                               motion_subspace, njit_without_refcounts, release, rigid_inertia_times, row6,
                               sines_cosines, unpacked, work)

NOT_POSITIVE_DEFINITE = 4  # status of aba_derivatives_one besides _core's OK, NONFINITE, WRONG_SIZE, STRIDED
TENSOR = "float64[:, :, ::1]"
rotates_about_its_axis = CPU.joints.rotates_about_its_axis


@inline
def compact_times(Y, i, m):
    """Y[i] m for a rigid (or composite) inertia about the world origin held as (m, h, I) (10 entries,
    :func:`._core.inertia_about_world_origin`) and a motion vector m (6-tuple)."""
    return rigid_inertia_times(Y[i, 0], Y[i, 1], Y[i, 2], Y[i, 3], Y[i, 4], Y[i, 5], Y[i, 6], Y[i, 7], Y[i, 8],
                               Y[i, 9], m[0], m[1], m[2], m[3], m[4], m[5])


@inline
def matrix_times(B, i, m):
    """B[i] m for a 6 × 6 matrix B[i] and a 6-tuple m, as a 6-tuple."""
    return (B[i, 0, 0] * m[0] + B[i, 0, 1] * m[1] + B[i, 0, 2] * m[2] + B[i, 0, 3] * m[3] + B[i, 0, 4] * m[4]
            + B[i, 0, 5] * m[5],
            B[i, 1, 0] * m[0] + B[i, 1, 1] * m[1] + B[i, 1, 2] * m[2] + B[i, 1, 3] * m[3] + B[i, 1, 4] * m[4]
            + B[i, 1, 5] * m[5],
            B[i, 2, 0] * m[0] + B[i, 2, 1] * m[1] + B[i, 2, 2] * m[2] + B[i, 2, 3] * m[3] + B[i, 2, 4] * m[4]
            + B[i, 2, 5] * m[5],
            B[i, 3, 0] * m[0] + B[i, 3, 1] * m[1] + B[i, 3, 2] * m[2] + B[i, 3, 3] * m[3] + B[i, 3, 4] * m[4]
            + B[i, 3, 5] * m[5],
            B[i, 4, 0] * m[0] + B[i, 4, 1] * m[1] + B[i, 4, 2] * m[2] + B[i, 4, 3] * m[3] + B[i, 4, 4] * m[4]
            + B[i, 4, 5] * m[5],
            B[i, 5, 0] * m[0] + B[i, 5, 1] * m[1] + B[i, 5, 2] * m[2] + B[i, 5, 3] * m[3] + B[i, 5, 4] * m[4]
            + B[i, 5, 5] * m[5])


@inline
def add6(x, y):
    """x + y for 6-tuples."""
    return x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3], x[4] + y[4], x[5] + y[5]


@inline
def set_row(X, k, x):
    """X[k] = x for a 6-tuple x."""
    X[k, 0], X[k, 1], X[k, 2], X[k, 3], X[k, 4], X[k, 5] = x


@inline
def coriolis_operator(Y, i, vi, B):
    """B[i] = the 6 × 6 matrix of u ↦ Y_i (u × v_i) + u ×* (Y_i v_i) + v_i ×* (Y_i u) (Carpentier & Mansard's B_i,
    the derivative of the body force v ×* Y v along with the frame's own motion), column by column."""
    h = compact_times(Y, i, vi)
    for k in range(6):
        e = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0, 1.0 if k == 3 else 0.0,
             1.0 if k == 4 else 0.0, 1.0 if k == 5 else 0.0)
        col = add6(add6(compact_times(Y, i, cross_motion(e, vi)), cross_force(e, h)),
                   cross_force(vi, compact_times(Y, i, e)))
        for r in range(6):
            B[i, r, k] = col[r]


@njit_without_refcounts(cache=True, fastmath={"contract"}, forceinline=True)  # (LLVM inlines it: see CPU_PASSES)
def forward_sweep(topology, params, gravity, q, v, a, f_ext, R0, p0, V, A, F, Y, B, S, U, Z, W, SC):
    """The forward pass of :func:`rnea_derivatives`, root to leaves: world poses R0, p0 of the axis frames; per
    velocity the subspace column ψ (S), u = ᵒv_λ × ψ (U), z = ᵒa_λ × ψ + ᵒv_λ × u (Z), y = u + ᵒv_i × ψ (W); per
    body ᵒv (V), ᵒa (A, the world's −g at row −1), the inertia about the world origin (Y), the body force
    Y ᵒa + ᵒv ×* Y ᵒv − f_ext (F) and the operator B (module docstring)."""
    n = topology.shape[0]
    sines_cosines(q, SC)
    world_frame_row(R0, p0)
    V[-1] = 0.0
    A[-1, :3] = 0.0
    for r in range(3):
        A[-1, 3 + r] = -gravity[r]
    # forward: poses, subspace columns, velocities, accelerations, body forces and operators
    for i in range(n):
        lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
        R, p = axis_frame_pose(topology, params, i, q, R0, p0, SC)
        for r in range(3):
            p0[i, r] = p[r]
            for c in range(3):
                R0[i, r, c] = R[3 * r + c]
        inertia_about_world_origin(params, i, R, p, Y, i)
        vl, al = row6(V, lam), row6(A, lam)
        vJ = aJ = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for k in range(nvj):  # ψ = [ω; p0 × ω + v] with [ω; v] = R0 S (a revolute joint's ω = R0 e_z, v = 0)
            if rotates_about_its_axis(topology[i, JTYPE]):
                w, lin = (R[2], R[5], R[8]), (0.0, 0.0, 0.0)
            else:
                Sk = motion_subspace(params, i, k)
                w, lin = rotation_times(R, Sk[0], Sk[1], Sk[2]), rotation_times(R, Sk[3], Sk[4], Sk[5])
            pw = cross(p, w)
            psi = (w[0], w[1], w[2], lin[0] + pw[0], lin[1] + pw[1], lin[2] + pw[2])
            set_row(S, iv + k, psi)
            u = cross_motion(vl, psi)
            set_row(U, iv + k, u)
            set_row(Z, iv + k, add6(cross_motion(al, psi), cross_motion(vl, u)))
            vk, ak = v[iv + k], a[iv + k]
            vJ = (vJ[0] + psi[0] * vk, vJ[1] + psi[1] * vk, vJ[2] + psi[2] * vk, vJ[3] + psi[3] * vk,
                  vJ[4] + psi[4] * vk, vJ[5] + psi[5] * vk)
            aJ = (aJ[0] + psi[0] * ak, aJ[1] + psi[1] * ak, aJ[2] + psi[2] * ak, aJ[3] + psi[3] * ak,
                  aJ[4] + psi[4] * ak, aJ[5] + psi[5] * ak)
        # ᵒv_i = ᵒv_λ + S v ;  ᵒa_i = ᵒa_λ + S a + ᵒv_λ × S v
        vi = add6(vl, vJ)
        ai = add6(add6(al, aJ), cross_motion(vl, vJ))
        set_row(V, i, vi)
        set_row(A, i, ai)
        for k in range(nvj):
            set_row(W, iv + k, add6(row6(U, iv + k), cross_motion(vi, row6(S, iv + k))))
        # ᵒf_i = Y ᵒa + ᵒv ×* Y ᵒv − f_ext (turned from body axes to world axes about the world origin)
        f = add6(compact_times(Y, i, ai), cross_force(vi, compact_times(Y, i, vi)))
        if f_ext.shape[0] > 0:
            Q = axis_frame(params, i)
            nw = rotation_times(R, Q[0] * f_ext[i, 0] + Q[3] * f_ext[i, 1] + Q[6] * f_ext[i, 2],
                                Q[1] * f_ext[i, 0] + Q[4] * f_ext[i, 1] + Q[7] * f_ext[i, 2],
                                Q[2] * f_ext[i, 0] + Q[5] * f_ext[i, 1] + Q[8] * f_ext[i, 2])
            fw = rotation_times(R, Q[0] * f_ext[i, 3] + Q[3] * f_ext[i, 4] + Q[6] * f_ext[i, 5],
                                Q[1] * f_ext[i, 3] + Q[4] * f_ext[i, 4] + Q[7] * f_ext[i, 5],
                                Q[2] * f_ext[i, 3] + Q[5] * f_ext[i, 4] + Q[8] * f_ext[i, 5])
            pf = cross(p, fw)
            f = (f[0] - nw[0] - pf[0], f[1] - nw[1] - pf[1], f[2] - nw[2] - pf[2], f[3] - fw[0], f[4] - fw[1],
                 f[5] - fw[2])
        set_row(F, i, f)
        coriolis_operator(Y, i, vi, B)


@njit_without_refcounts(cache=True, fastmath={"contract"})  # (no reference counts: see _spatial_kernels.work)
def rnea_derivatives(topology, params, gravity, q, v, a, f_ext, dtau_dq, dtau_dv, M, tau):
    """∂τ/∂q (tangent space), ∂τ/∂v and M = ∂τ/∂a of τ = RNEA(q, v, a) − Σ Jᵀ f_ext, and τ itself
    (Carpentier & Mansard, RSS 2018, Algorithm 1, in the form of the module docstring). Same gravity, armature
    and f_ext conventions as :func:`._core.rnea`. Writes the (nv, nv) matrices and tau (nv); returns True if every
    entry is finite."""
    n, nv = topology.shape[0], tau.shape[0]
    R0 = work((n + 1, 3, 3))   # world rotations of the axis frames; row −1: the world
    p0 = work((n + 1, 3))
    V = work((n + 1, 6))       # ᵒv_i; row −1: the world
    A = work((n + 1, 6))       # ᵒa_i (gravity as the world's acceleration −g)
    F = work((n + 1, 6))       # subtree forces; row −1 collects the world's (unused)
    Y = work((n + 1, 10))      # composite inertias (m, h, I) about the world origin
    B = work((n + 1, 6, 6))    # composite Coriolis operators B^c
    S = work((nv, 6))          # ψ: motion-subspace columns, world axes about the world origin
    U = work((nv, 6))          # u = ᵒv_λ × ψ
    Z = work((nv, 6))          # z = ᵒa_λ × ψ + ᵒv_λ × u
    W = work((nv, 6))          # y = u + ᵒv_i × ψ
    GY = work((6, 6))          # for the body j at hand, per column: Y^c ψ, B^cᵀ ψ, ∂F/∂q, ∂F/∂v
    GB = work((6, 6))
    GQ = work((6, 6))
    GV = work((6, 6))
    SC = work((2, q.shape[0]))
    dtau_dq[:, :] = 0.0  # (entries of bodies on different branches stay zero)
    dtau_dv[:, :] = 0.0
    M[:, :] = 0.0
    forward_sweep(topology, params, gravity, q, v, a, f_ext, R0, p0, V, A, F, Y, B, S, U, Z, W, SC)
    # backward: composite sums; each body j fills its entries with every ancestor i (itself included)
    finite = True
    for j in range(n - 1, -1, -1):
        nvj, jv = topology[j, NVJ], topology[j, IV]
        for c in range(nvj):
            psi = row6(S, jv + c)
            Ya = compact_times(Y, j, psi)
            set_row(GY, c, Ya)
            for k in range(6):
                GB[c, k] = (B[j, 0, k] * psi[0] + B[j, 1, k] * psi[1] + B[j, 2, k] * psi[2] + B[j, 3, k] * psi[3]
                              + B[j, 4, k] * psi[4] + B[j, 5, k] * psi[5])
            set_row(GQ, c, add6(add6(cross_force(psi, row6(F, j)), compact_times(Y, j, row6(Z, jv + c))),
                                  matrix_times(B, j, row6(U, jv + c))))
            set_row(GV, c, add6(compact_times(Y, j, row6(W, jv + c)), matrix_times(B, j, psi)))
            t = dot6(psi, row6(F, j)) + armature(params, j, c) * a[jv + c]
            tau[jv + c] = t
            finite &= np.abs(t) < np.inf
        i = j
        while i >= 0:
            nvi, iv = topology[i, NVJ], topology[i, IV]
            for r in range(nvj):  # rows of j, columns of its ancestor i
                Ya, Bs = row6(GY, r), row6(GB, r)
                for c in range(nvi):
                    dq = dot6(Ya, row6(Z, iv + c)) + dot6(Bs, row6(U, iv + c))
                    dv = dot6(Ya, row6(W, iv + c)) + dot6(Bs, row6(S, iv + c))
                    dtau_dq[jv + r, iv + c] = dq
                    dtau_dv[jv + r, iv + c] = dv
                    finite &= np.abs(dq) < np.inf and np.abs(dv) < np.inf
            for r in range(nvi):  # rows of i, columns of j (for i = j: M only)
                psi = row6(S, iv + r)
                for c in range(nvj):
                    m = dot6(psi, row6(GY, c))
                    M[iv + r, jv + c] = m
                    M[jv + c, iv + r] = m
                    if i != j:
                        dq = dot6(psi, row6(GQ, c))
                        dv = dot6(psi, row6(GV, c))
                        dtau_dq[iv + r, jv + c] = dq
                        dtau_dv[iv + r, jv + c] = dv
                        finite &= np.abs(dq) < np.inf and np.abs(dv) < np.inf
                    finite &= np.abs(m) < np.inf
            i = topology[i, PARENT]
        for c in range(nvj):
            M[jv + c, jv + c] += armature(params, j, c)
        # Y^c_λ += Y^c_j ;  B^c_λ += B^c_j ;  F_λ += F_j  (λ = −1: the unused world row)
        lam = topology[j, PARENT]
        for r in range(10):
            Y[lam, r] += Y[j, r]
        for r in range(6):
            F[lam, r] += F[j, r]
            for c in range(6):
                B[lam, r, c] += B[j, r, c]
    release((R0, p0, V, A, F, Y, B, S, U, Z, W, GY, GB, GQ, GV, SC))
    return finite


@inline
def dof_parents(topology, lam):
    """lam[k] = the velocity index whose joint moves the body before velocity k's along the tree (the previous entry
    of the same joint, else the last of the nearest ancestor joint with velocities), −1 at a root: the sparsity of
    M, which couples two velocities only when one's joint is an ancestor of (or is) the other's (RBDA §6.5).
    Stored as float64 (a :func:`~._spatial_kernels.work` array)."""
    for i in range(topology.shape[0]):
        above = topology[i, PARENT]
        while above >= 0 and topology[above, NVJ] == 0:
            above = topology[above, PARENT]
        last = topology[above, IV] + topology[above, NVJ] - 1 if above >= 0 else -1
        for k in range(topology[i, NVJ]):
            lam[topology[i, IV] + k] = last if k == 0 else topology[i, IV] + k - 1


@inline
def subtree_ends(lam, last):
    """last[k] = the largest velocity index among k and its descendants (lam: :func:`dof_parents`; a descendant's
    index is above its ancestors'). Row k of ∂τ/∂x is zero past it: τ_k couples only to velocities on one path
    with k (its ancestors, below k, and its subtree)."""
    for k in range(lam.shape[0]):
        last[k] = k
    for k in range(lam.shape[0] - 1, -1, -1):
        p = int(lam[k])
        if p >= 0 and last[k] > last[p]:
            last[p] = last[k]


@inline
def tree_factor(M, lam):
    """M = Lᵀ L by the sparse LTL factorization (RBDA Table 6.3: L lower triangular with M's tree sparsity, no
    fill-in), in place in M's lower triangle; only entries on one path of the tree are written (the callers read no
    others). Returns False if M is not positive definite."""
    for k in range(M.shape[0] - 1, -1, -1):
        if not M[k, k] > 0.0:
            return False
        d = np.sqrt(M[k, k])
        M[k, k] = d
        r = 1.0 / d
        i = int(lam[k])
        while i >= 0:
            M[k, i] *= r
            i = int(lam[i])
        i = int(lam[k])
        while i >= 0:
            j = i
            while j >= 0:
                M[i, j] -= M[k, i] * M[k, j]
                j = int(lam[j])
            i = int(lam[i])
    return True


@inline
def tree_solve(L, lam, last, X, sign):
    """X ← sign · M⁻¹ X for M = Lᵀ L (:func:`tree_factor`), sign ±1, in place, by the two sparse triangular solves of
    RBDA Table 6.4 applied to X's rows: Lᵀ Z = X from the leaves (z_i = x_i / L_ii, then x_j −= L_ij z_i for the
    ancestors j of i), then L Y = Z from the root (y_i = (z_i − Σ L_ij y_j) / L_ii). Each step is a row times a
    number added to another row of the same array (vector instructions along the row). X has the sparsity of ∂τ/∂x
    (row i zero past last[i], :func:`subtree_ends`), which the first solve keeps: it works on columns 0 … last[i].
    The sign enters the first solve (z_i = sign x_i / L_ii, x_j −= sign L_ij z_i: exact for ±1), so that −M⁻¹ X
    costs no extra pass."""
    nv = X.shape[1]
    for i in range(nv - 1, -1, -1):
        end = int(last[i]) + 1
        d = sign / L[i, i]
        for c in range(end):
            X[i, c] *= d
        j = int(lam[i])
        while j >= 0:
            lij = sign * L[i, j]
            for c in range(end):
                X[j, c] -= lij * X[i, c]
            j = int(lam[j])
    for i in range(nv):
        j = int(lam[i])
        while j >= 0:
            lij = L[i, j]
            for c in range(nv):
                X[i, c] -= lij * X[j, c]
            j = int(lam[j])
        d = 1.0 / L[i, i]
        for c in range(nv):
            X[i, c] *= d


@inline
def tree_inverse(L, lam, last, Minv):
    """Minv = M⁻¹ for M = Lᵀ L: the solves of :func:`tree_solve` on the identity, upper triangle only, then the
    lower by symmetry. Lᵀ Z = 1 leaves row i of Z nonzero in the columns of i's subtree only (i … last[i]); in
    L Y = Z each column is solved on its own, and row i's columns c ≥ i need only its ancestors' (rows j < i) columns
    c ≥ i, in their upper triangles too."""
    nv = Minv.shape[0]
    for r in range(nv):
        Minv[r, r] = 1.0
        for c in range(r + 1, nv):
            Minv[r, c] = 0.0
    for i in range(nv - 1, -1, -1):
        end = int(last[i]) + 1
        d = 1.0 / L[i, i]
        for c in range(i, end):
            Minv[i, c] *= d
        j = int(lam[i])
        while j >= 0:
            lij = L[i, j]
            for c in range(i, end):
                Minv[j, c] -= lij * Minv[i, c]
            j = int(lam[j])
    for i in range(nv):
        j = int(lam[i])
        while j >= 0:
            lij = L[i, j]
            for c in range(i, nv):
                Minv[i, c] -= lij * Minv[j, c]
            j = int(lam[j])
        d = 1.0 / L[i, i]
        for c in range(i, nv):
            Minv[i, c] *= d
        for c in range(i):
            Minv[i, c] = Minv[c, i]


@njit_without_refcounts(cache=True, fastmath={"contract"})
def aba_derivatives(topology, params, gravity, q, v, tau, f_ext, ddq_dq, ddq_dv, Minv, qdd):
    """∂q̈/∂q (tangent space), ∂q̈/∂v and M⁻¹ of q̈ = ABA(q, v, τ) (forward dynamics with f_ext), and q̈ itself:
    ∂q̈/∂x = −M⁻¹ ∂τ/∂x evaluated at a = q̈ (Carpentier & Mansard, RSS 2018, Section IV), ∂τ/∂x written into the
    outputs and solved there in place with the sparse factor M = Lᵀ L (:func:`tree_solve`), M⁻¹ from the identity
    (:func:`tree_inverse`). Returns OK, NONFINITE (an entry is not finite) or NOT_POSITIVE_DEFINITE (M is not)."""
    nv = qdd.shape[0]
    ok = aba(topology, params, gravity, q, v, tau, f_ext, qdd)
    M = work((nv, nv))   # M, then its factor L
    t = work((nv,))
    lam = work((nv,))
    last = work((nv,))
    ok &= rnea_derivatives(topology, params, gravity, q, v, qdd, f_ext, ddq_dq, ddq_dv, M, t)
    dof_parents(topology, lam)
    subtree_ends(lam, last)
    status = NOT_POSITIVE_DEFINITE
    if tree_factor(M, lam):
        status = OK if ok else NONFINITE
        tree_solve(M, lam, last, ddq_dq, -1.0)
        tree_solve(M, lam, last, ddq_dv, -1.0)
        tree_inverse(M, lam, last, Minv)
    release((M, t, lam, last))
    return status


@njit_without_refcounts(cache=True, nogil=True, fastmath={"contract"})
def rnea_derivatives_share(topology, params, gravity, q, v, a, f_ext, dtau_dq, dtau_dv, M, tau, finite, first, last):
    """:func:`rnea_derivatives` of the states first … last − 1 of a batch (q (B, nq), v and a (B, nv); f_ext
    (B, n, 6) one per state, or (1, ·, 6) shared), into the batch's outputs; finite[b]: its return. Releases the GIL
    (one thread's share of :func:`batched`)."""
    for b in range(first, last):
        finite[b] = rnea_derivatives(topology, params, gravity, q[b], v[b], a[b], f_ext[min(b, f_ext.shape[0] - 1)],
                                     dtau_dq[b], dtau_dv[b], M[b], tau[b])


@njit_without_refcounts(cache=True, nogil=True, fastmath={"contract"})
def aba_derivatives_share(topology, params, gravity, q, v, tau, f_ext, ddq_dq, ddq_dv, Minv, qdd, status, first,
                          last):
    """:func:`aba_derivatives` of the states first … last − 1 of a batch (as :func:`rnea_derivatives_share`);
    status[b]: its return."""
    for b in range(first, last):
        status[b] = aba_derivatives(topology, params, gravity, q[b], v[b], tau[b], f_ext[min(b, f_ext.shape[0] - 1)],
                                    ddq_dq[b], ddq_dv[b], Minv[b], qdd[b])


def batched(share, count, *args):
    """share(*args, result, first, last) over the states 0 … count − 1 in chunks, each chunk a task for the first of
    numba's thread count (``numba.set_num_threads``) of Python threads to be free (:func:`._batch.in_threads`, as the
    lockstep runs: a thread slowed by another process on its core takes fewer chunks). About four chunks per thread
    (at least 8 states each: a task costs some µs of Python). Returns the (count,) int64 results."""
    result = np.empty(count, dtype=np.int64)
    threads = max(1, min(numba.get_num_threads(), count // 8))
    size = max(1, count) if threads == 1 else max(8, -(-count // (4 * threads)))
    chunks = -(-count // size)
    in_threads(lambda k: share(*args, result, k * size, min(count, (k + 1) * size)), chunks, threads)
    return result


# Single-state entry points (see _core._single_state): the three matrices in one (3, nv, nv) array, no forces.
@_single_state("rnea_derivatives_one", f"int64({VECTOR}, {VECTOR}, {VECTOR}, {VECTOR}, {TENSOR})")
def _rnea_derivatives_one(packed, q, v, a, out):
    topology, params, gravity = unpacked(packed)
    if not (state_fits(topology, q, v, a, a) and out.shape[1] == out.shape[2] == a.shape[0] and out.shape[0] == 3):
        return WRONG_SIZE
    if not (contiguous(q) and contiguous(v) and contiguous(a)):
        return STRIDED
    tau = np.empty(a.shape[0])
    ok = rnea_derivatives(topology, params, gravity, q, v, a, params[:0], out[0], out[1], out[2], tau)
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
    B = work((n + 1, 6, 6))
    SC = work((2, q.shape[0]))
    gravity = work((3,))
    gravity[:] = 0.0
    forward_sweep(topology, params, gravity, q, v, a, params[:0], R0, p0, V, A, F, Y, B, S, U, Z, W, SC)
    release((R0, p0, F, Y, B, SC, gravity))
