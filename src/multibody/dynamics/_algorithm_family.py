"""The recursive algorithms' passes, written once and compiled for each target (see :mod:`._spatial_family`).

:func:`algorithm_family` takes the decorator and the :func:`~._spatial_family.spatial_family` compiled with it, and
returns the passes of the recursive Newton–Euler, composite-rigid-body and articulated-body algorithms over the
bodies of one state, each taking its work arrays as arguments: the CPU kernels of :mod:`._core` hand them arrays on
their stack, the GPU kernels of :mod:`._gpu_kernels` arrays in each thread's local memory. Equation references are to
Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
import math
from types import SimpleNamespace

import numpy as np

from ._joint_family import IDENTITY, ORIGIN
from ._layout import IQ, IV, JTYPE, NSYM, NVJ, PARENT

ZERO6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  # a spatial vector at rest


class AlgorithmFamily(SimpleNamespace):
    """The members of :func:`algorithm_family`, compiled for one target, as attributes."""


def algorithm_family(compile, spatial, called=None):
    """The passes of the recursive algorithms compiled with ``compile`` (the decorator ``spatial`` was compiled
    with), calling the members of ``spatial``; returned as an :class:`AlgorithmFamily`. ``called``: the decorator of
    the rarely run members (the inverse of a multi-dof joint's D), default ``compile``: the CPU makes them ordinary
    calls, which keeps the inlined passes small."""
    called = called or compile
    rotates_about_its_axis = spatial.joints.rotates_about_its_axis
    (sines_cosines, rodrigues, motion_to_child, force_to_parent, row6, cross_motion, cross_force, subspace_times,
     rigid_inertia_times, subspace_column_in_world_axes, joint_pose, placed, axis_inertia_times, cross,
     rotation_times, axis_frame_placement, placed_axis_frame, world_frame_row, inertia_about_world_origin, dot6,
     translated, articulated_single_dof, compact_inertia_in_world_axes, joint_axis, armature, motion_subspace,
     axis_frame, rotation_row, child_axis_frame_pose, symmetric_sum, sum6, symmetric_of, symmetric_row,
     add_symmetric_row, symmetric_shifted, force_shifted, mass, axis_mass_center, axis_inertia,
     symmetric_product, symmetric_minus_outer) = (
        spatial.sines_cosines, spatial.rodrigues, spatial.motion_to_child, spatial.force_to_parent,
        spatial.row6, spatial.cross_motion, spatial.cross_force, spatial.subspace_times,
        spatial.rigid_inertia_times, spatial.subspace_column_in_world_axes, spatial.joint_pose, spatial.placed,
        spatial.axis_inertia_times, spatial.cross, spatial.rotation_times, spatial.axis_frame_placement,
        spatial.placed_axis_frame, spatial.world_frame_row, spatial.inertia_about_world_origin, spatial.dot6,
        spatial.translated, spatial.articulated_single_dof, spatial.compact_inertia_in_world_axes,
        spatial.joint_axis, spatial.armature, spatial.motion_subspace, spatial.axis_frame, spatial.rotation_row,
        spatial.child_axis_frame_pose, spatial.symmetric_sum, spatial.sum6, spatial.symmetric_of,
        spatial.symmetric_row, spatial.add_symmetric_row, spatial.symmetric_shifted, spatial.force_shifted,
        spatial.mass, spatial.axis_mass_center, spatial.axis_inertia, spatial.symmetric_product,
        spatial.symmetric_minus_outer)

    @compile
    def poses(topology, params, q, R, p, in_world):
        """R[i], p[i]: pose of body i in its parent body, placement ∘ joint: R_i = R_tree R_J, p_i = p_tree + R_tree p_J
        — or with ``in_world``, in the world: R0_i = R0_λ R_i, p0_i = p0_λ + R0_λ p_i.

        Revolute joints, the common case, skip the branches of :func:`joint_pose`: the general path also costs
        reference-count updates of the arrays it is handed (measured 1.5× slower for a chain of revolute joints)."""
        for i in range(topology.shape[0]):
            jtype, iq = topology[i, JTYPE], topology[i, IQ]
            if rotates_about_its_axis(jtype):
                ax, ay, az = joint_axis(params, i)
                RJ = rodrigues(ax, ay, az, math.sin(q[iq]), math.cos(q[iq]))
                pJ = (0.0, 0.0, 0.0)
            else:
                RJ, pJ = joint_pose(jtype, params, i, q, iq)
            Ri, pi = placed(params, i, RJ, pJ)
            lam = topology[i, PARENT]
            if in_world and lam >= 0:
                for r in range(3):
                    p[i, r] = p[lam, r] + R[lam, r, 0] * pi[0] + R[lam, r, 1] * pi[1] + R[lam, r, 2] * pi[2]
                    for c in range(3):
                        R[i, r, c] = R[lam, r, 0] * Ri[c] + R[lam, r, 1] * Ri[3 + c] + R[lam, r, 2] * Ri[6 + c]
            else:
                for r in range(3):
                    p[i, r] = pi[r]
                    for c in range(3):
                        R[i, r, c] = Ri[3 * r + c]

    @called
    def invert_spd(D, k, Dinv, i):
        """Dinv[i] = D⁻¹ for a small symmetric positive-definite k×k block D (Cholesky D = L Lᵀ, scalar fast path).
        D's lower triangle is overwritten with L, and each column of D⁻¹ is solved in place (L y = e_c, then
        Lᵀ x = y, y held in the column itself), so no scratch memory is needed on any target."""
        if k == 1:
            Dinv[i, 0, 0] = 1.0 / D[0, 0]
            return
        for j in range(k):  # L[j, j] = √(D_jj − Σ L_jm²) ;  L[r, j] = (D_rj − Σ L_rm L_jm) / L_jj
            s = D[j, j]
            for m in range(j):
                s -= D[j, m] * D[j, m]
            D[j, j] = math.sqrt(s)
            for r in range(j + 1, k):
                s = D[r, j]
                for m in range(j):
                    s -= D[r, m] * D[j, m]
                D[r, j] = s / D[j, j]
        for c in range(k):
            for r in range(k):  # L y = e_c
                s = 1.0 if r == c else 0.0
                for m in range(r):
                    s -= D[r, m] * Dinv[i, m, c]
                Dinv[i, r, c] = s / D[r, r]
            for r in range(k - 1, -1, -1):  # Lᵀ x = y
                s = Dinv[i, r, c]
                for m in range(r + 1, k):
                    s -= D[m, r] * Dinv[i, m, c]
                Dinv[i, r, c] = s / D[r, r]

    @compile
    def articulate(params, i, nvj, iv, tau, s, IA, PA, c, U, u, D, Dinv):
        """Pass 2 of the ABA at body i (RBDA Table 7.1), in world axes (:func:`aba_passes`), for a joint of nvj
        degrees of freedom (its motion subspace the rows iv.. of s): from its articulated inertia I^A (21-tuple,
        :func:`symmetric_row`), bias force p^A and velocity-product acceleration c (6-tuples), the quantities of its
        joint, U = I^A s, D⁻¹ (D = sᵀ U) and u = τ − sᵀ p^A, stored for pass 3; returns what it hands to its parent,
        (I^a, p^a). D: a (6, 6) scratch array (overwritten)."""
        # U = I^A s ;  D = sᵀ U + diag(armature) ;  u = τ − sᵀ p^A
        for k in range(nvj):
            Uk = symmetric_product(IA, row6(s, iv + k))
            for r in range(6):
                U[iv + k, r] = Uk[r]
            u[iv + k] = tau[iv + k] - dot6(row6(s, iv + k), PA)
            for m in range(nvj):
                D[m, k] = dot6(row6(s, iv + m), Uk)
            D[k, k] += armature(params, i, k)
        invert_spd(D, nvj, Dinv, i)
        # p^a = p^A + I^a c + U D⁻¹ u = p^A + I^A c + U D⁻¹ (u − Uᵀ c) ;  I^a = I^A − U D⁻¹ Uᵀ
        pa = sum6(PA, symmetric_product(IA, c))
        Ia = IA
        for k in range(nvj):
            w = 0.0
            y0 = y1 = y2 = y3 = y4 = y5 = 0.0
            for m in range(nvj):
                dkm = Dinv[i, k, m]
                w += dkm * (u[iv + m] - dot6(row6(U, iv + m), c))
                y0, y1, y2 = y0 + dkm * U[iv + m, 0], y1 + dkm * U[iv + m, 1], y2 + dkm * U[iv + m, 2]
                y3, y4, y5 = y3 + dkm * U[iv + m, 3], y4 + dkm * U[iv + m, 4], y5 + dkm * U[iv + m, 5]
            Uk = row6(U, iv + k)
            Ia = symmetric_minus_outer(Ia, Uk, (y0, y1, y2, y3, y4, y5))
            pa = (pa[0] + Uk[0] * w, pa[1] + Uk[1] * w, pa[2] + Uk[2] * w, pa[3] + Uk[3] * w, pa[4] + Uk[4] * w,
                  pa[5] + Uk[5] * w)
        return Ia, pa

    @compile
    def rnea_passes(topology, params, gravity, q, v, a, f_ext, tau, R, p, V, A, F, SC):
        """Recursive Newton–Euler inverse dynamics, τ = M(q) a + c(q, v) − Σ Jᵀ f_ext (RBDA Table 5.1), M including
        the joint armature (τ_k += armature_k a_k).

        Gravity enters as the fictitious base acceleration a_0 = [0; −g]. f_ext (n × 6, or 0 × 6 for none):
        external spatial force on each body, body axes, about the body origin. Writes tau (nv). Worked in the bodies'
        axis frames (:func:`~._layout.axis_frames`), where a revolute joint's motion subspace is e_z
        (v_J = q̇ e_z, τ = f_z) and its rotation R_z(θ); products may be fused (FMA, ``contract``).
        Returns True if every entry of tau is finite.
        """
        n = topology.shape[0]
        sines_cosines(q, SC)
        V[-1] = 0.0
        A[-1, :3] = 0.0
        for r in range(3):
            A[-1, 3 + r] = -gravity[r]
        for i in range(n):
            lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
            Ri, pi = axis_frame_placement(topology, params, i, q, SC)
            for r in range(3):
                p[i, r] = pi[r]
                for c in range(3):
                    R[i, r, c] = Ri[3 * r + c]
            # S q̇ and S q̈
            if rotates_about_its_axis(topology[i, JTYPE]):
                vJ, aJ = (0.0, 0.0, v[iv], 0.0, 0.0, 0.0), (0.0, 0.0, a[iv], 0.0, 0.0, 0.0)
            else:
                vJ, aJ = subspace_times(params, i, nvj, v, iv), subspace_times(params, i, nvj, a, iv)
            # v_i = X_i v_λ + S q̇
            motion_to_child(R, p, i, V, lam, V, i)
            for r in range(6):
                V[i, r] += vJ[r]
            vi = row6(V, i)
            # a_i = X_i a_λ + S q̈ + v_i ×m S q̇
            motion_to_child(R, p, i, A, lam, A, i)
            c = cross_motion(vi, vJ)
            for r in range(6):
                A[i, r] += aJ[r] + c[r]
            # f_i = I_i a_i + v_i ×* I_i v_i − f_ext,i  (f_ext,i turned from body to axis-frame axes)
            Ia, b = axis_inertia_times(params, i, row6(A, i)), cross_force(vi, axis_inertia_times(params, i, vi))
            for r in range(6):
                F[i, r] = Ia[r] + b[r]
            if f_ext.shape[0] > 0:
                Q = axis_frame(params, i)
                for r in range(3):
                    F[i, r] -= Q[r] * f_ext[i, 0] + Q[3 + r] * f_ext[i, 1] + Q[6 + r] * f_ext[i, 2]
                    F[i, 3 + r] -= Q[r] * f_ext[i, 3] + Q[3 + r] * f_ext[i, 4] + Q[6 + r] * f_ext[i, 5]
        finite = True
        for i in range(n - 1, -1, -1):
            # τ_i = S_iᵀ f_i + armature_i q̈_i ;  f_λ += X_iᵀ f_i
            nvj, iv = topology[i, NVJ], topology[i, IV]
            for c in range(nvj):
                if rotates_about_its_axis(topology[i, JTYPE]):  # S = e_z
                    acc = F[i, 2] + armature(params, i, 0) * a[iv]
                else:
                    S, acc = motion_subspace(params, i, c), armature(params, i, c) * a[iv + c]
                    for r in range(6):
                        acc += S[r] * F[i, r]
                tau[iv + c] = acc
                finite &= abs(acc) < np.inf
            force_to_parent(R, p, i, row6(F, i), F, topology[i, PARENT])
        return finite

    @compile
    def crba_passes(topology, params, q, M, R0, p0, Y, s, SC):
        """Composite-rigid-body algorithm: the joint-space inertia matrix M(q) (nv × nv) (RBDA Table 6.2).

        Worked in world coordinates (as Pinocchio does), so that neither the composite inertias nor the ancestor
        walk need transforms: Y^c_λ += Y^c_i (each kept about the world origin as (m, h, I), see
        :func:`inertia_about_world_origin`), F = Y^c_i s_i, and M_ji = s_jᵀ F for j = i and every ancestor, with s
        the motion-subspace columns in world coordinates. Body poses are those of the axis frames
        (:func:`axis_frame_pose`: a revolute joint's rotation and world axis cost least there); products may be
        fused (FMA, ``contract``). Returns True if every entry of M is finite (each checked where it is computed).
        """
        n, nv = topology.shape[0], M.shape[0]
        sines_cosines(q, SC)
        world_frame_row(R0, p0)
        for i in range(n):
            R, p = placed_axis_frame(topology, params, i, q, R0, p0, SC)
            inertia_about_world_origin(params, i, R, p, Y, i)
            # s = [ω; p0 × ω + v], with [ω; v] = R0 S (for a revolute joint, ω = R0 e_z and v = 0)
            iv = topology[i, IV]
            if rotates_about_its_axis(topology[i, JTYPE]):
                axis = (R[2], R[5], R[8])
                s[iv, 0], s[iv, 1], s[iv, 2] = axis
                s[iv, 3], s[iv, 4], s[iv, 5] = cross(p, axis)
                continue
            for k in range(topology[i, NVJ]):
                S = motion_subspace(params, i, k)
                w, v = rotation_times(R, S[0], S[1], S[2]), rotation_times(R, S[3], S[4], S[5])
                pw = cross(p, w)
                s[iv + k, 0], s[iv + k, 1], s[iv + k, 2] = w
                s[iv + k, 3], s[iv + k, 4], s[iv + k, 5] = v[0] + pw[0], v[1] + pw[1], v[2] + pw[2]
        M[:, :] = 0.0
        finite = True
        for i in range(n - 1, -1, -1):
            lam = topology[i, PARENT]
            if lam >= 0:  # Y^c_λ += Y^c_i
                for r in range(10):
                    Y[lam, r] += Y[i, r]
            nvi, ivi = topology[i, NVJ], topology[i, IV]
            for k in range(nvi):
                # F = Y^c_i s_i ;  M_ji = s_jᵀ F for j = i and every ancestor of i
                F = rigid_inertia_times(Y[i, 0], Y[i, 1], Y[i, 2], Y[i, 3], Y[i, 4], Y[i, 5], Y[i, 6], Y[i, 7], Y[i, 8],
                                        Y[i, 9], s[ivi + k, 0], s[ivi + k, 1], s[ivi + k, 2], s[ivi + k, 3],
                                        s[ivi + k, 4], s[ivi + k, 5])
                j = i
                while j >= 0:
                    ivj = topology[j, IV]
                    for m in range(topology[j, NVJ]):
                        Mji = dot6(row6(s, ivj + m), F)
                        M[ivj + m, ivi + k] = Mji
                        M[ivi + k, ivj + m] = Mji
                        finite &= abs(Mji) < np.inf
                    j = topology[j, PARENT]
                # M_ii += armature_i
                M[ivi + k, ivi + k] += armature(params, i, k)
                finite &= abs(M[ivi + k, ivi + k]) < np.inf
        return finite

    @compile
    def joint_velocity(topology, i, v, R0, s):
        """s_i q̇_i, body i's joint velocity in world axes about its origin, as a 6-tuple: a revolute joint's
        s = [R0_i e_z; 0] from its world rotation R0[i], other joints' columns from the rows of s (world axes,
        stored by pass 1 of :func:`aba_passes`)."""
        iv = topology[i, IV]
        if rotates_about_its_axis(topology[i, JTYPE]):
            qd = v[iv]
            return R0[i, 0, 2] * qd, R0[i, 1, 2] * qd, R0[i, 2, 2] * qd, 0.0, 0.0, 0.0
        vJ = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for k in range(topology[i, NVJ]):
            qd = v[iv + k]
            vJ = (vJ[0] + s[iv + k, 0] * qd, vJ[1] + s[iv + k, 1] * qd, vJ[2] + s[iv + k, 2] * qd,
                  vJ[3] + s[iv + k, 3] * qd, vJ[4] + s[iv + k, 4] * qd, vJ[5] + s[iv + k, 5] * qd)
        return vJ

    @compile
    def velocity_product(topology, i, vi, v, R0, s):
        """c_i = v_i ×m s_i q̇_i (RBDA Table 7.1, c_J = 0), world axes, as a 6-tuple (s q̇: :func:`joint_velocity`);
        for a revolute joint (s q̇ = [ω; 0]) [ω_v × ω; v_v × ω], half the products of :func:`cross_motion`."""
        if rotates_about_its_axis(topology[i, JTYPE]):
            qd = v[topology[i, IV]]
            w0, w1, w2 = R0[i, 0, 2] * qd, R0[i, 1, 2] * qd, R0[i, 2, 2] * qd
            return (vi[1] * w2 - vi[2] * w1, vi[2] * w0 - vi[0] * w2, vi[0] * w1 - vi[1] * w0,
                    vi[4] * w2 - vi[5] * w1, vi[5] * w0 - vi[3] * w2, vi[3] * w1 - vi[4] * w0)
        return cross_motion(vi, joint_velocity(topology, i, v, R0, s))

    @compile
    def aba_passes(topology, params, gravity, q, v, tau, f_ext, qdd, R0, p0, V, IA, PA, G, branch, s, U, u, Dinv, D,
                   A, SC):
        """Articulated-body algorithm, forward dynamics q̈ = M⁻¹(τ − c + Σ Jᵀ f_ext) in O(n) (RBDA Table 7.1).

        Worked in world axes about each body's own origin (Pinocchio's "local world-aligned" frames): the transform
        X_i from parent to body coordinates is then the translation by d_i = p0_i − p0_λ alone, which makes the
        articulated-inertia congruence X_iᵀ I^a X_i, the costliest step in body axes, a third as much work; each body's
        rigid inertia and motion subspace are rotated to world axes once per call instead. (Working about the world
        origin would drop the translation too, as fast, but loses digits: a body's own inertia is then the small
        difference of terms ~ m |p0|². On the 5000 rad/s spinning last link of a 2 m chain its accelerations were 2e-7
        off the body-axes ABA's, these 3e-9, and Pinocchio's 3e-11.) Body rotations are those of the axis frames
        (:func:`axis_frame_pose`), where a revolute joint's rotation is R_z(θ) and its world axis s the third column
        of the frame's world rotation. The velocity-product acceleration keeps its form c_i = v_i ×m s_i q̇_i.
        Articulated inertias are symmetric, 21 entries (:func:`symmetric_row`). Products may be fused (FMA,
        ``contract``).

        What one pass hands the next is kept small, since on a GPU it is what each thread moves through memory: pass
        1 stores each body's world pose and velocity (R0, p0, V; and s for joints other than revolute, whose s is the
        third column of R0) and passes 2 and 3 recompute from them what they need (c, the rigid inertia, the bias
        force). Along a path of the tree (the next body's parent the body just done, as everywhere on a chain) the
        running quantities — pose and velocity in passes 1 and 3, the articulated inertia and bias force handed to
        the parent in pass 2, the acceleration in pass 3 — stay in registers; a body with a child that does not
        follow it (``branch`` = 1) collects its other children's in IA and PA and keeps its velocity and
        acceleration in V and A. Pass 2 hands pass 3 G (joints of one degree of freedom) or U, u and D⁻¹ (several).

        Same gravity and f_ext conventions as :func:`rnea`. Writes qdd (nv).
        """
        n = topology.shape[0]
        sines_cosines(q, SC)
        # pass 1: poses and velocities, root to leaves (R, p, vi: those of the body before, then of body i)
        R, p, vi = IDENTITY, ORIGIN, ZERO6
        for i in range(n):
            lam = topology[i, PARENT]
            branch[i] = 0.0
            if lam != i - 1:  # the parent is not the body before: a branch point (or the world)
                if lam >= 0:
                    branch[lam] = 1.0
                    R, p, vi = rotation_row(R0, lam), (p0[lam, 0], p0[lam, 1], p0[lam, 2]), row6(V, lam)
                    for r in range(NSYM):  # its children's I^a and p^a are collected there in pass 2
                        IA[lam, r] = 0.0
                    for r in range(6):
                        PA[lam, r] = 0.0
                else:
                    R, p, vi = IDENTITY, ORIGIN, ZERO6
            p_parent = p
            R, p = child_axis_frame_pose(topology, params, i, q, R, p, SC)
            for r in range(3):
                p0[i, r] = p[r]
                for c in range(3):
                    R0[i, r, c] = R[3 * r + c]
            if not rotates_about_its_axis(topology[i, JTYPE]):  # s_i in world axes (a revolute joint's: R0_i e_z)
                for k in range(topology[i, NVJ]):
                    sk = subspace_column_in_world_axes(params, i, k, R0)
                    for r in range(6):
                        s[topology[i, IV] + k, r] = sk[r]
            # v_i = X_i v_λ + s_i q̇_i  (X_i: the translation by d_i = p0_i − p0_λ)
            vi = sum6(translated(vi, p[0] - p_parent[0], p[1] - p_parent[1], p[2] - p_parent[2]),
                      joint_velocity(topology, i, v, R0, s))
            for r in range(6):
                V[i, r] = vi[r]
        # pass 2: articulated inertias, leaves to root (Ic, pc: what the body after hands its parent, this body when
        # ``carried``)
        carried = False
        Ic, pc = symmetric_of((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)), ZERO6
        for i in range(n - 1, -1, -1):
            lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
            R, vi = rotation_row(R0, i), row6(V, i)
            # c_i = v_i ×m s_i q̇_i ;  I^A_i = I_i + Σ X_jᵀ I^a_j X_j ;  p^A_i = v_i ×* I_i v_i − f_ext,i + Σ X_jᵀ p^a_j
            c = velocity_product(topology, i, vi, v, R0, s)
            Y = compact_inertia_in_world_axes(mass(params, i), axis_mass_center(params, i), axis_inertia(params, i), R)
            IAi = symmetric_of(Y)
            PAi = cross_force(vi, rigid_inertia_times(Y[0], Y[1], Y[2], Y[3], Y[4], Y[5], Y[6], Y[7], Y[8], Y[9],
                                                      vi[0], vi[1], vi[2], vi[3], vi[4], vi[5]))
            if f_ext.shape[0] > 0:  # f_ext,i from body-i axes to world axes: R Qᵀ f (Q the axis frame's axes)
                Q = axis_frame(params, i)
                for o in (0, 3):
                    f = rotation_times(R, Q[0] * f_ext[i, o] + Q[3] * f_ext[i, o + 1] + Q[6] * f_ext[i, o + 2],
                                       Q[1] * f_ext[i, o] + Q[4] * f_ext[i, o + 1] + Q[7] * f_ext[i, o + 2],
                                       Q[2] * f_ext[i, o] + Q[5] * f_ext[i, o + 1] + Q[8] * f_ext[i, o + 2])
                    if o == 0:
                        PAi = (PAi[0] - f[0], PAi[1] - f[1], PAi[2] - f[2], PAi[3], PAi[4], PAi[5])
                    else:
                        PAi = (PAi[0], PAi[1], PAi[2], PAi[3] - f[0], PAi[4] - f[1], PAi[5] - f[2])
            if carried:
                IAi, PAi = symmetric_sum(IAi, Ic), sum6(PAi, pc)
            if branch[i] != 0.0:
                IAi, PAi = symmetric_sum(IAi, symmetric_row(IA, i)), sum6(PAi, row6(PA, i))
            if nvj == 1:  # I^a, p^a from registers; for pass 3: G = d⁻¹ X_iᵀ U (U moved to the parent's origin),
                # w = d⁻¹ (u − Uᵀ c)
                revolute = rotates_about_its_axis(topology[i, JTYPE])
                si = (R[2], R[5], R[8], 0.0, 0.0, 0.0) if revolute else row6(s, iv)
                IAi, PAi, Ui, dinv, w = articulated_single_dof(IAi, PAi, si, c, tau[iv], armature(params, i, 0),
                                                               revolute)
                dx, dy, dz = (p0[i, 0] - p0[lam, 0], p0[i, 1] - p0[lam, 1], p0[i, 2] - p0[lam, 2]) if lam >= 0 else (
                    p0[i, 0], p0[i, 1], p0[i, 2])
                G[i, 0] = dinv * (Ui[0] + dy * Ui[5] - dz * Ui[4])
                G[i, 1] = dinv * (Ui[1] + dz * Ui[3] - dx * Ui[5])
                G[i, 2] = dinv * (Ui[2] + dx * Ui[4] - dy * Ui[3])
                G[i, 3], G[i, 4], G[i, 5], G[i, 6] = dinv * Ui[3], dinv * Ui[4], dinv * Ui[5], w
            elif nvj > 1:
                IAi, PAi = articulate(params, i, nvj, iv, tau, s, IAi, PAi, c, U, u, D, Dinv)
            # I^A_λ += X_iᵀ I^a_i X_i ;  p^A_λ += X_iᵀ p^a_i  (in registers if λ is the next body, else in IA[λ], PA[λ])
            carried = lam == i - 1 and lam >= 0
            if lam >= 0:
                dx, dy, dz = p0[i, 0] - p0[lam, 0], p0[i, 1] - p0[lam, 1], p0[i, 2] - p0[lam, 2]
                Ic, pc = symmetric_shifted(IAi, dx, dy, dz), force_shifted(PAi, dx, dy, dz)
                if not carried:
                    add_symmetric_row(IA, lam, Ic)
                    for r in range(6):
                        PA[lam, r] += pc[r]
        # pass 3: accelerations, root to leaves (a_last, v_last, p_last: those of the body before; the velocities
        # as in pass 1, in registers rather than read back)
        a_world = (0.0, 0.0, 0.0, -gravity[0], -gravity[1], -gravity[2])
        a_last, v_last, p_last = a_world, ZERO6, ORIGIN
        for i in range(n):
            nvj, iv, lam = topology[i, NVJ], topology[i, IV], topology[i, PARENT]
            if lam == i - 1:
                al, vl, pl = a_last, v_last, p_last
            elif lam >= 0:
                al, vl, pl = row6(A, lam), row6(V, lam), (p0[lam, 0], p0[lam, 1], p0[lam, 2])
            else:
                al, vl, pl = a_world, ZERO6, ORIGIN
            # v_i = X_i v_λ + s_i q̇_i ;  a' = X_i a_λ + c ;  q̈ = D⁻¹ (u − Uᵀ a') ;  a = a' + s q̈
            p = (p0[i, 0], p0[i, 1], p0[i, 2])
            dx, dy, dz = p[0] - pl[0], p[1] - pl[1], p[2] - pl[2]
            vi = sum6(translated(vl, dx, dy, dz), joint_velocity(topology, i, v, R0, s))
            a = sum6(translated(al, dx, dy, dz), velocity_product(topology, i, vi, v, R0, s))
            if nvj == 1:  # one degree of freedom: q̈ = w − Gᵀ a_λ (pass 2), a short dependency chain from a_λ to q̈
                qddi = G[i, 6] - ((G[i, 0] * al[0] + G[i, 1] * al[1]) + (G[i, 2] * al[2] + G[i, 3] * al[3])
                                  + (G[i, 4] * al[4] + G[i, 5] * al[5]))
                qdd[iv] = qddi
                if rotates_about_its_axis(topology[i, JTYPE]):
                    si = (R0[i, 0, 2], R0[i, 1, 2], R0[i, 2, 2], 0.0, 0.0, 0.0)
                else:
                    si = row6(s, iv)
                a = (a[0] + si[0] * qddi, a[1] + si[1] * qddi, a[2] + si[2] * qddi, a[3] + si[3] * qddi,
                     a[4] + si[4] * qddi, a[5] + si[5] * qddi)
            elif nvj > 1:
                for k in range(nvj):  # u ← u − Uᵀ a'
                    u[iv + k] -= dot6(row6(U, iv + k), a)
                for k in range(nvj):
                    acc = 0.0
                    for m in range(nvj):
                        acc += Dinv[i, k, m] * u[iv + m]
                    qdd[iv + k] = acc
                for k in range(nvj):
                    a = (a[0] + s[iv + k, 0] * qdd[iv + k], a[1] + s[iv + k, 1] * qdd[iv + k],
                         a[2] + s[iv + k, 2] * qdd[iv + k], a[3] + s[iv + k, 3] * qdd[iv + k],
                         a[4] + s[iv + k, 4] * qdd[iv + k], a[5] + s[iv + k, 5] * qdd[iv + k])
            a_last, v_last, p_last = a, vi, p
            if branch[i] != 0.0:
                for r in range(6):
                    A[i, r] = a[r]

    return AlgorithmFamily(poses=poses, invert_spd=invert_spd, articulate=articulate, rnea_passes=rnea_passes,
                           crba_passes=crba_passes, joint_velocity=joint_velocity,
                           velocity_product=velocity_product, aba_passes=aba_passes)
