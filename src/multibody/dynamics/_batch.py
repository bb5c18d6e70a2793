"""Batched recursive algorithms in structure-of-arrays (SoA) form: one chunk of states at a time, SIMD across states.

The states of a chunk are held as lanes (:mod:`._lanes`: the lane axis last, every step one loop over the lanes, which
LLVM vectorizes across states). :func:`aba_lanes` is the algorithm on a chunk held as lanes (the lockstep rollouts of
:mod:`multibody.simulate.lockstep` keep their states so), :func:`aba_chunk` gathers a chunk of (B, n) arrays into
lanes for it, and :func:`aba_batch` shares the chunks out to threads, each claiming the next when it is free.

The lanes' ABA is RBDA Table 7.1 in the form of the scalar :func:`multibody.dynamics._core.aba`: world axes about
each body's origin, so that a body hands its articulated inertia to its parent by a translation alone, the inertias
held as 21 symmetric entries, the bodies posed by their axis frames (:func:`~._layout.axis_frames`: a
revolute joint turns about z, and its axis in world axes is a column of the frame's rotation); the two agree to
round-off, not bit for bit (fused multiply-adds here). Joints with one degree of freedom (revolute, prismatic: the
common case) take one lane loop per pass and body; the others go lane by lane, their poses through the scalar
kernels' ``axis_frame_placement``. The compiled model's layout: :mod:`._layout`.
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
import itertools
import threading

import numpy as np
from numba import njit

from ._core import _invert_spd, axis_frame_placement, dot6, translated
from ._lanes import (LANES, MIN_BATCH, inline, lane, lane_params, lane_rotation,  # noqa: F401
                     lane_sines_cosines, lane_symmetric, lane_vector, put, step, gather, scatter)
from ._spatial_kernels import njit_without_refcounts
from ._claims import claim, finished, in_claimed_chunks
from ._threads import aba_threads
from ._spatial_kernels import (CPU, IQ, IV, JTYPE, NSYM, NVJ, PARENT, armature, axis_frame, cross_force, cross_motion,
                               joint_axis, mass, motion_subspace, release, rigid_inertia_times, rotation_product,
                               wide_vectors, work)

# the spatial family's members used here besides those of _spatial_kernels (the lanes' values in tuples)
(axis_tree_rotation, axis_tree_translation, axis_mass_center, axis_inertia, rotation_times, symmetric_of,
 symmetric_product, symmetric_product_angular, symmetric_minus_outer, symmetric_shifted, force_shifted,
 compact_inertia_in_world_axes, rotates_about_its_axis, slides_along_its_axis) = (
    CPU.axis_tree_rotation, CPU.axis_tree_translation, CPU.axis_mass_center, CPU.axis_inertia, CPU.rotation_times,
    CPU.symmetric_of, CPU.symmetric_product, CPU.symmetric_product_angular, CPU.symmetric_minus_outer,
    CPU.symmetric_shifted, CPU.force_shifted, CPU.compact_inertia_in_world_axes, CPU.joints.rotates_about_its_axis,
    CPU.joints.slides_along_its_axis)


@step
def invert_spd_lanes(D, k, Dinv, iv, nb):
    """Dinv[iv + r, c, b] = (D⁻¹)_rc for the k×k block D[:k, :k, b] of each lane (the scalar ``_invert_spd`` lane by
    lane: multi-dof joints are the rare case)."""
    wide_vectors()
    Dl, Dinvl = work((k, k)), work((1, k, k))
    for b in range(nb):
        for r in range(k):
            for c in range(k):
                Dl[r, c] = D[r, c, b]
        _invert_spd(Dl, k, Dinvl, 0)
        for r in range(k):
            for c in range(k):
                Dinv[iv + r, c, b] = Dinvl[0, r, c]


@inline
def axis_placement(params, i):
    """Body i's placement in its parent's axis frame, both axis frames (:func:`~._layout.axis_frames`):
    (T row-major 9-tuple, t 3-tuple), numbers or lane arrays."""
    return axis_tree_rotation(params, i), axis_tree_translation(params, i)


@inline
def turned_about_z(T, s, c):
    """T R_z(θ) for T a row-major 9-tuple, from s = sin θ and c = cos θ: the columns (c T_x + s T_y, c T_y − s T_x,
    T_z)."""
    return (c * T[0] + s * T[1], c * T[1] - s * T[0], T[2], c * T[3] + s * T[4], c * T[4] - s * T[3], T[5],
            c * T[6] + s * T[7], c * T[7] - s * T[6], T[8])


@inline
def compose(R0_parent, Ri, pi, pose, b):
    """pose[:, b] = (R0_i row major, d_i): the rotation of body i's axis frame to world axes R0_i = R0_λ R_i and the
    offset of its origin from its parent's in world axes, d_i = p0_i − p0_λ = R0_λ p_i, from its pose in its
    parent's axis frame (R_i, p_i)."""
    put(pose, 0, rotation_product(R0_parent, Ri), b)
    put(pose, 9, rotation_times(R0_parent, pi[0], pi[1], pi[2]), b)


@inline
def copy_pose(pose, i, R0, d):
    """R0[i] = pose rows 0–8 and d[i] = pose rows 9–11, for all lanes (the copy-out of a stack array of poses:
    :func:`compose`)."""
    for k in range(9):
        for b in range(LANES):
            R0[i, k, b] = pose[k, b]
    for k in range(3):
        for b in range(LANES):
            d[i, k, b] = pose[9 + k, b]


@step
def other_joint_poses(topology, params, i, q, nb, R0, pose):
    """:func:`world_pose` for a joint neither revolute nor prismatic, lane by lane through the scalar
    ``axis_frame_placement``: pose[:, b] = (R0_i row major, d_i)."""
    wide_vectors()
    lam = topology[i, PARENT]
    P = work((params.shape[0], params.shape[1]))  # lane b's params
    for b in range(nb):
        # (sines and cosines: those of revolute joints only, none here)
        Ri, pi = axis_frame_placement(topology, lane_params(params, b, P), i, q[:, b], P)
        compose(lane_rotation(R0, lam, b), Ri, pi, pose, b)
    release((P,))


@step
def world_pose(topology, params, i, q, nb, R0, d):
    """R0[i, :, b], d[i, :, b] for a joint that is not revolute (:func:`revolute_body` places those): body i's
    rotation to world axes and the offset d_i = p0_i − p0_λ of its origin from its parent's (:func:`compose`) at
    each lane, from its pose in its parent's axis frame (:func:`axis_placement`), placement ∘ joint (RBDA Table
    4.1): R_i = T R_J, p_i = t + T p_J (its own axis frame is its body frame). Prismatic joints are vectorized; the
    other joint types go lane by lane. Results go through a stack array (see the module docstring)."""
    wide_vectors()
    pose = work((12, LANES))
    iq, lam = topology[i, IQ], topology[i, PARENT]
    if slides_along_its_axis(topology[i, JTYPE]):
        axis = joint_axis(params, i)
        T, t = axis_placement(params, i)
        for b in range(nb):
            (ax, ay, az), Tb, p = lane(axis, b), lane(T, b), lane(t, b)
            pJ = rotation_times(Tb, ax * q[iq, b], ay * q[iq, b], az * q[iq, b])
            compose(lane_rotation(R0, lam, b), Tb, (p[0] + pJ[0], p[1] + pJ[1], p[2] + pJ[2]), pose, b)
    else:
        other_joint_poses(topology, params, i, q, nb, R0, pose)
    copy_pose(pose, i, R0, d)


@inline
def in_world_axes(R, s):
    """A spatial vector s = [ω; v] of body axes in world axes (same reference point), [R ω; R v], as a 6-tuple."""
    w, v = rotation_times(R, s[0], s[1], s[2]), rotation_times(R, s[3], s[4], s[5])
    return w[0], w[1], w[2], v[0], v[1], v[2]


@inline
def body_inertia(params, i):
    """Body i's inertia in its axis frame (:func:`~._layout.axis_frames`): mass, mass center (3) and rotational
    inertia about the body origin (row major), a 13-tuple (numbers or lane arrays)."""
    m, c, I = mass(params, i), axis_mass_center(params, i), axis_inertia(params, i)
    return m, c[0], c[1], c[2], I[0], I[1], I[2], I[3], I[4], I[5], I[6], I[7], I[8]


@inline
def rigid_inertia_in_world_axes(body, R):
    """A :func:`body_inertia` of numbers about the body origin in world axes (R: its axis frame's rotation to world
    axes), compactly (:func:`~._spatial_family.spatial_family`'s ``compact_inertia_in_world_axes``)."""
    m, c0, c1, c2, I0, I1, I2, I3, I4, I5, I6, I7, I8 = body
    return compact_inertia_in_world_axes(m, (c0, c1, c2), (I0, I1, I2, I3, I4, I5, I6, I7, I8), R)


@inline
def inertia_times(Y, m):
    """Y m for a compact rigid inertia Y = (m, h, I) (:func:`rigid_inertia_in_world_axes`) and a motion m, as a
    6-tuple (:func:`~._spatial_kernels.rigid_inertia_times`)."""
    return rigid_inertia_times(Y[0], Y[1], Y[2], Y[3], Y[4], Y[5], Y[6], Y[7], Y[8], Y[9], m[0], m[1], m[2], m[3], m[4],
                               m[5])


@inline
def velocity_and_bias(R, dx, dy, dz, v_parent, vJ, body):
    """Pass 1 of the ABA at a body (world axes, about its origin; R its axis frame's rotation to world axes, d its
    offset from its parent, vJ = S q̇ its joint's velocity): v = X_d v_λ + vJ ;  c = v ×m vJ ;  I (the body's
    inertia) ;  p^A = v ×* I v. Returns (v, c, I, p^A) as tuples (I a 21-tuple)."""
    x = translated(v_parent, dx, dy, dz)
    v = (x[0] + vJ[0], x[1] + vJ[1], x[2] + vJ[2], x[3] + vJ[3], x[4] + vJ[4], x[5] + vJ[5])
    Y = rigid_inertia_in_world_axes(body, R)
    return v, cross_motion(v, vJ), symmetric_of(Y), cross_force(v, inertia_times(Y, v))


@inline
def copy_body(result, k, i, V, C, IA, PA):
    """V[i], C[i], IA[i], PA[i] = the rows k … k + 38 of a stack array, v, c, I, p^A as :func:`velocity_and_bias`
    returns them, for all lanes."""
    for r in range(6):
        for b in range(LANES):
            V[i, r, b] = result[k + r, b]
            C[i, r, b] = result[k + 6 + r, b]
            PA[i, r, b] = result[k + 33 + r, b]
    for r in range(NSYM):
        for b in range(LANES):
            IA[i, r, b] = result[k + 12 + r, b]


@step
def revolute_body(params, i, lam, iq, iv, q, qd, R0, d, S, V, C, IA, PA, nb):
    """Pass 1 of the ABA at body i, whose joint is revolute, in one loop over the lanes, as the scalar ``aba``: the
    world pose of its axis frame, R0_i = R0_λ T R_z(θ) and d_i = R0_λ t (:func:`axis_placement`, :func:`compose`);
    its motion subspace s = [z; 0], z = R0_i e_z its axis in world axes (the body origin lies on it);
    v = X_d v_λ + s q̇ ;  c = v ×m s q̇ = [ω × z; v × z] q̇ ;  I (the body's inertia) ;  p^A = v ×* I v
    (:func:`velocity_and_bias`, less the products with the zeros of s). Results through a stack array: rows 0–8 R0_i,
    9–11 d_i, 12–17 v, 18–23 c, 24–44 I, 45–50 p^A; S[iv] = [z; 0] from rows 2, 5, 8."""
    wide_vectors()
    sc, result = work((2, LANES)), work((51, LANES))
    (T, t), body = axis_placement(params, i), body_inertia(params, i)
    lane_sines_cosines(q, iq, sc, nb)
    for b in range(nb):
        P, tb = lane_rotation(R0, lam, b), lane(t, b)
        R = rotation_product(P, turned_about_z(lane(T, b), sc[0, b], sc[1, b]))
        dx, dy, dz = rotation_times(P, tb[0], tb[1], tb[2])
        rate = qd[iv, b]
        w0, w1, w2 = R[2] * rate, R[5] * rate, R[8] * rate
        x = translated(lane_vector(V, lam, b), dx, dy, dz)
        v = (x[0] + w0, x[1] + w1, x[2] + w2, x[3], x[4], x[5])
        c = (v[1] * w2 - v[2] * w1, v[2] * w0 - v[0] * w2, v[0] * w1 - v[1] * w0, v[4] * w2 - v[5] * w1,
             v[5] * w0 - v[3] * w2, v[3] * w1 - v[4] * w0)
        Y = rigid_inertia_in_world_axes(lane(body, b), R)
        put(result, 0, R, b)
        put(result, 9, (dx, dy, dz), b)
        put(result, 12, v, b)
        put(result, 18, c, b)
        put(result, 24, symmetric_of(Y), b)
        put(result, 45, cross_force(v, inertia_times(Y, v)), b)
    copy_pose(result, i, R0, d)
    for r in range(3):
        for b in range(LANES):
            S[iv, r, b] = result[2 + 3 * r, b]
            S[iv, 3 + r, b] = 0.0
    copy_body(result, 12, i, V, C, IA, PA)


@step
def velocity_and_bias_single_dof(params, i, lam, iv, R0, d, qd, S, V, C, IA, PA, nb):
    """:func:`velocity_and_bias` at body i for a joint with one degree of freedom that is not revolute (prismatic;
    :func:`revolute_body` does those), whose motion subspace column s = [R0 S_ω; R0 S_v] goes to S[iv]; one loop
    over the lanes, results through a stack array (rows 0–5 s, 6–11 v_i, 12–17 c_i, 18–38 I_i, 39–44 p^A_i)."""
    wide_vectors()
    column, body = motion_subspace(params, i, 0), body_inertia(params, i)
    result = work((45, LANES))
    for b in range(nb):
        R = lane_rotation(R0, i, b)
        s, rate = in_world_axes(R, lane(column, b)), qd[iv, b]
        vJ = (s[0] * rate, s[1] * rate, s[2] * rate, s[3] * rate, s[4] * rate, s[5] * rate)
        vi, c, I, f = velocity_and_bias(R, d[i, 0, b], d[i, 1, b], d[i, 2, b], lane_vector(V, lam, b), vJ,
                                        lane(body, b))
        put(result, 0, s, b)
        put(result, 6, vi, b)
        put(result, 12, c, b)
        put(result, 18, I, b)
        put(result, 39, f, b)
    for r in range(6):
        for b in range(LANES):
            S[iv, r, b] = result[r, b]
    copy_body(result, 6, i, V, C, IA, PA)


@step
def velocity_and_bias_any(params, i, lam, nvj, iv, R0, d, qd, S, V, C, IA, PA, nb):
    """:func:`velocity_and_bias` at body i for a joint of nvj (≠ 1) degrees of freedom, lane by lane (the rare
    case): S[iv + k] = [R0 S_ω; R0 S_v] for its subspace columns k, vJ = Σ_k S[iv + k] q̇_k."""
    wide_vectors()
    body = body_inertia(params, i)
    for b in range(nb):
        R = lane_rotation(R0, i, b)
        vJ = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for k in range(nvj):
            s, rate = in_world_axes(R, lane(motion_subspace(params, i, k), b)), qd[iv + k, b]
            vJ = (vJ[0] + s[0] * rate, vJ[1] + s[1] * rate, vJ[2] + s[2] * rate, vJ[3] + s[3] * rate,
                  vJ[4] + s[4] * rate, vJ[5] + s[5] * rate)
            for r in range(6):
                S[iv + k, r, b] = s[r]
        vi, c, I, f = velocity_and_bias(R, d[i, 0, b], d[i, 1, b], d[i, 2, b], lane_vector(V, lam, b), vJ,
                                        lane(body, b))
        for r in range(6):
            V[i, r, b], C[i, r, b], PA[i, r, b] = vi[r], c[r], f[r]
        for r in range(NSYM):
            IA[i, r, b] = I[r]


@step
def subtract_external_forces(params, f_ext, i, b0, R0, PA, nb):
    """PA[i] −= f_ext,i at each lane, the force (body axes, about the body origin) in world axes, R Qᵀ f (R the
    axis frame's rotation to world axes, Q its axes in body axes); lane b's force is f_ext[b0 + b] (or
    f_ext[0] for all)."""
    wide_vectors()
    axes = axis_frame(params, i)
    for b in range(nb):
        f, R, Q = f_ext[0 if f_ext.shape[0] == 1 else b0 + b, i], lane_rotation(R0, i, b), lane(axes, b)
        for o in (0, 3):
            x, y, z = f[o], f[o + 1], f[o + 2]
            f_w = rotation_times(R, Q[0] * x + Q[3] * y + Q[6] * z, Q[1] * x + Q[4] * y + Q[7] * z,
                                 Q[2] * x + Q[5] * y + Q[8] * z)
            for r in range(3):
                PA[i, o + r, b] -= f_w[r]


@inline
def articulated_single_dof(I, P, c, U, sU, sP, tau, armature, dx, dy, dz, result, b):
    """Pass 2 of the ABA at one lane of a body whose joint has one degree of freedom (I = I^A, P = p^A, c its
    velocity-product acceleration, U = I^A s, sU = sᵀ U and sP = sᵀ p^A for its subspace column s; tuples and
    numbers): D = sᵀ U + armature ;  u = τ − sᵀ p^A ;  I^a = I^A − U D⁻¹ Uᵀ ;
    p^a = p^A + I^a c + U D⁻¹ u = p^A + I^A c + U D⁻¹ (u − Uᵀ c); and the parent's shares X_dᵀ I^a X_d and
    X_dᵀ p^a (d its offset from the parent). Writes result[:, b]: rows 0–5 U, 6 D⁻¹, 7 u, 8–28 and 29–34 the
    parent's shares."""
    Ic = symmetric_product(I, c)
    dinv = 1.0 / (sU + armature)
    u = tau - sP
    w = (u - dot6(U, c)) * dinv
    pa = (P[0] + Ic[0] + U[0] * w, P[1] + Ic[1] + U[1] * w, P[2] + Ic[2] + U[2] * w, P[3] + Ic[3] + U[3] * w,
          P[4] + Ic[4] + U[4] * w, P[5] + Ic[5] + U[5] * w)
    Ia = symmetric_minus_outer(I, U, (U[0] * dinv, U[1] * dinv, U[2] * dinv, U[3] * dinv, U[4] * dinv, U[5] * dinv))
    put(result, 0, U, b)
    result[6, b], result[7, b] = dinv, u
    put(result, 8, symmetric_shifted(Ia, dx, dy, dz), b)
    put(result, 29, force_shifted(pa, dx, dy, dz), b)


@step
def articulate_single_dof(params, i, lam, iv, revolute, d, S, IA, PA, C, U, u, Dinv, nb):
    """:func:`articulated_single_dof` at body i and its hand-over to the parent, I^A_λ += X_dᵀ I^a X_d,
    p^A_λ += X_dᵀ p^a (d = d_i), in one loop over the lanes; u[iv] = τ − sᵀ p^A over τ. A ``revolute`` joint's
    s = [z; 0] takes the products with its angular half alone. Results go through a stack array (rows as
    :func:`articulated_single_dof` writes them)."""
    wide_vectors()
    reflected = armature(params, i, 0)
    result = work((35, LANES))
    if revolute:
        for b in range(nb):
            I, P, z0, z1, z2 = lane_symmetric(IA, i, b), lane_vector(PA, i, b), S[iv, 0, b], S[iv, 1, b], S[iv, 2, b]
            Ui = symmetric_product_angular(I, z0, z1, z2)
            articulated_single_dof(I, P, lane_vector(C, i, b), Ui, z0 * Ui[0] + z1 * Ui[1] + z2 * Ui[2],
                                   z0 * P[0] + z1 * P[1] + z2 * P[2], u[iv, b], lane(reflected, b), d[i, 0, b],
                                   d[i, 1, b], d[i, 2, b], result, b)
    else:
        for b in range(nb):
            I, P, s = lane_symmetric(IA, i, b), lane_vector(PA, i, b), lane_vector(S, iv, b)
            Ui = symmetric_product(I, s)
            articulated_single_dof(I, P, lane_vector(C, i, b), Ui, dot6(s, Ui), dot6(s, P), u[iv, b],
                                   lane(reflected, b), d[i, 0, b], d[i, 1, b], d[i, 2, b], result, b)
    for b in range(LANES):
        Dinv[iv, 0, b], u[iv, b] = result[6, b], result[7, b]
    for r in range(6):
        for b in range(LANES):
            U[iv, r, b] = result[r, b]
            PA[lam, r, b] += result[29 + r, b]
    for r in range(NSYM):
        for b in range(nb):
            IA[lam, r, b] += result[8 + r, b]


@step
def articulate_any(params, i, lam, nvj, iv, d, S, IA, PA, C, U, u, D, Dinv, nb):
    """Pass 2 of the ABA at body i for a joint of nvj (≠ 1) degrees of freedom, lane by lane (the rare case), as
    :func:`articulated_single_dof` with U and D⁻¹ matrices: U = I^A S ;  D = Sᵀ U + diag(armature) ;
    u = τ − Sᵀ p^A ;  I^a = I^A − U D⁻¹ Uᵀ ;  p^a = p^A + I^A c + U D⁻¹ (u − Uᵀ c); then the hand-over to the
    parent as there. D: a (6, 6, LANES) work array."""
    wide_vectors()
    for k in range(nvj):
        for b in range(nb):
            Uk = symmetric_product(lane_symmetric(IA, i, b), lane_vector(S, iv + k, b))
            for r in range(6):
                U[iv + k, r, b] = Uk[r]
            u[iv + k, b] -= dot6(lane_vector(S, iv + k, b), lane_vector(PA, i, b))
            for m in range(nvj):
                D[m, k, b] = dot6(lane_vector(S, iv + m, b), Uk)
            D[k, k, b] += lane(armature(params, i, k), b)
    if nvj > 0:
        invert_spd_lanes(D, nvj, Dinv, iv, nb)
    for b in range(nb):
        I, c = lane_symmetric(IA, i, b), lane_vector(C, i, b)
        f = symmetric_product(I, c)
        f = (PA[i, 0, b] + f[0], PA[i, 1, b] + f[1], PA[i, 2, b] + f[2], PA[i, 3, b] + f[3], PA[i, 4, b] + f[4],
             PA[i, 5, b] + f[5])
        for k in range(nvj):
            w, y = 0.0, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
            for m in range(nvj):
                dkm, Um = Dinv[iv + k, m, b], lane_vector(U, iv + m, b)
                w += dkm * (u[iv + m, b] - dot6(Um, c))
                y = (y[0] + dkm * Um[0], y[1] + dkm * Um[1], y[2] + dkm * Um[2], y[3] + dkm * Um[3],
                     y[4] + dkm * Um[4], y[5] + dkm * Um[5])
            Uk = lane_vector(U, iv + k, b)
            I = symmetric_minus_outer(I, Uk, y)
            f = (f[0] + Uk[0] * w, f[1] + Uk[1] * w, f[2] + Uk[2] * w, f[3] + Uk[3] * w, f[4] + Uk[4] * w,
                 f[5] + Uk[5] * w)
        dx, dy, dz = d[i, 0, b], d[i, 1, b], d[i, 2, b]
        I2, f2 = symmetric_shifted(I, dx, dy, dz), force_shifted(f, dx, dy, dz)
        for r in range(NSYM):
            IA[lam, r, b] += I2[r]
        for r in range(6):
            PA[lam, r, b] += f2[r]


@step
def accelerate_single_dof(i, lam, iv, d, S, C, U, u, Dinv, A, qdd, nb):
    """Pass 3 of the ABA at body i for a joint with one degree of freedom, one loop over the lanes:
    a' = X_d a_λ + c ;  q̈ = D⁻¹ (u − Uᵀ a') ;  a = a' + s q̈. Results through a stack array (rows 0–5 a, 6 q̈)."""
    wide_vectors()
    result = work((7, LANES))
    for b in range(nb):
        x, c = translated(lane_vector(A, lam, b), d[i, 0, b], d[i, 1, b], d[i, 2, b]), lane_vector(C, i, b)
        a = (x[0] + c[0], x[1] + c[1], x[2] + c[2], x[3] + c[3], x[4] + c[4], x[5] + c[5])
        acc = Dinv[iv, 0, b] * (u[iv, b] - dot6(lane_vector(U, iv, b), a))
        s = lane_vector(S, iv, b)
        put(result, 0, (a[0] + s[0] * acc, a[1] + s[1] * acc, a[2] + s[2] * acc, a[3] + s[3] * acc, a[4] + s[4] * acc,
                        a[5] + s[5] * acc), b)
        result[6, b] = acc
    for r in range(6):
        for b in range(LANES):
            A[i, r, b] = result[r, b]
    for b in range(LANES):
        qdd[iv, b] = result[6, b]


@step
def accelerate_any(i, lam, nvj, iv, d, S, C, U, u, Dinv, A, qdd, nb):
    """Pass 3 of the ABA at body i for a joint of nvj (≠ 1) degrees of freedom, lane by lane (the rare case), as
    :func:`accelerate_single_dof`: q̈ = D⁻¹ (u − Uᵀ a') ;  a = a' + S q̈."""
    wide_vectors()
    for b in range(nb):
        x, c = translated(lane_vector(A, lam, b), d[i, 0, b], d[i, 1, b], d[i, 2, b]), lane_vector(C, i, b)
        a = (x[0] + c[0], x[1] + c[1], x[2] + c[2], x[3] + c[3], x[4] + c[4], x[5] + c[5])
        for k in range(nvj):
            acc = 0.0
            for m in range(nvj):
                acc += Dinv[iv + k, m, b] * (u[iv + m, b] - dot6(lane_vector(U, iv + m, b), a))
            qdd[iv + k, b] = acc
        for r in range(6):
            A[i, r, b] = a[r]
            for k in range(nvj):
                A[i, r, b] += S[iv + k, r, b] * qdd[iv + k, b]


@step
def aba_chunk(topology, params, gravity, q, v, tau, f_ext, qdd, b0, nb, qs, qd, u, out, R0, d, S, V, C, IA, PA, U,
              D, Dinv, A):
    """:func:`aba_lanes` for the states b0 … b0 + nb − 1 of q (B, nq), v and tau (B, nv): gathered into the lanes
    qs, qd, u, and q̈ scattered from ``out`` to qdd (B, nv)."""
    wide_vectors()
    gather(q, b0, nb, qs)
    gather(v, b0, nb, qd)
    gather(tau, b0, nb, u)
    aba_lanes(topology, params, gravity, qs, qd, u, f_ext, b0, nb, out, R0, d, S, V, C, IA, PA, U, D, Dinv, A)
    scatter(out, b0, nb, qdd)


@step
def aba_lanes(topology, params, gravity, q, qd, u, f_ext, b0, nb, out, R0, d, S, V, C, IA, PA, U, D, Dinv, A):
    """Articulated-body algorithm (RBDA Table 7.1), as ``_core.aba`` (world axes about each body's origin), for the
    nb states held in lanes: q (nq, LANES), q̇ = qd and τ = u (nv, LANES); writes q̈ to out (nv, LANES) and
    u = τ − Sᵀ p^A over τ. ``params``: the bodies' parameters, shared (n, NPARAMS) or per lane
    (n, NPARAMS, LANES) (:func:`lane`); f_ext (B or 1, n, 6) or (·, 0, 6) for none: lane b's body forces are
    row b0 + b.

    The work arrays (lane axis last, LANES long; rows −1 of R0, V, IA, PA and A: the world): R0 (n + 1, 9) the
    rotations of the bodies' axis frames to world axes (row major) and d (n, 3) the offsets of their origins from
    their parents'; S (nv, 6) the motion subspace columns in world axes; V (n + 1, 6) body velocities; C (n, 6)
    velocity-product accelerations c_i = v_i ×m S q̇; IA (n + 1, 21) and PA (n + 1, 6) articulated-body inertias
    (21-entry symmetric storage) and bias forces; U (nv, 6) with U[iv + k] = I^A_i S[iv + k]; D (6, 6) and
    Dinv (nv, 6) with Dinv[iv + k, m] = (D_i⁻¹)_km; A (n + 1, 6) accelerations.
    """
    wide_vectors()
    n = topology.shape[0]
    for k in range(9):
        for b in range(nb):
            R0[n, k, b] = 1.0 if k % 4 == 0 else 0.0
    for r in range(6):
        for b in range(nb):
            V[n, r, b] = 0.0
            A[n, r, b] = 0.0 if r < 3 else -gravity[r - 3]
    # pass 1: poses, velocities, bias accelerations and bias forces, root to leaves
    for i in range(n):
        lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
        if rotates_about_its_axis(topology[i, JTYPE]):
            revolute_body(params, i, lam, topology[i, IQ], iv, q, qd, R0, d, S, V, C, IA, PA, nb)
        else:
            world_pose(topology, params, i, q, nb, R0, d)
            if nvj == 1:
                velocity_and_bias_single_dof(params, i, lam, iv, R0, d, qd, S, V, C, IA, PA, nb)
            else:
                velocity_and_bias_any(params, i, lam, nvj, iv, R0, d, qd, S, V, C, IA, PA, nb)
        if f_ext.shape[1] > 0:
            subtract_external_forces(params, f_ext, i, b0, R0, PA, nb)
    # pass 2: articulated inertias, leaves to root, each handed to its parent (λ = −1: the discarded world row)
    for i in range(n - 1, -1, -1):
        lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
        if nvj == 1:
            revolute = rotates_about_its_axis(topology[i, JTYPE])
            articulate_single_dof(params, i, lam, iv, revolute, d, S, IA, PA, C, U, u, Dinv, nb)
        else:
            articulate_any(params, i, lam, nvj, iv, d, S, IA, PA, C, U, u, D, Dinv, nb)
    # pass 3: accelerations, root to leaves
    for i in range(n):
        lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
        if nvj == 1:
            accelerate_single_dof(i, lam, iv, d, S, C, U, u, Dinv, A, out, nb)
        else:
            accelerate_any(i, lam, nvj, iv, d, S, C, U, u, Dinv, A, out, nb)


@njit(cache=True)
def chunk_workspaces(T, n, nq, nv):
    """The work arrays of :func:`aba_chunk` for T threads (the leading axis; lanes last): qs, qd, u, out, R0, d, S,
    V, C, IA, PA, U, D, Dinv, A for n bodies, nq coordinates and nv velocities (from R0 on, those of
    :func:`aba_lanes`)."""
    L = LANES
    return (np.empty((T, nq, L)), np.empty((T, nv, L)), np.empty((T, nv, L)), np.empty((T, nv, L)),
            np.empty((T, n + 1, 9, L)), np.empty((T, n, 3, L)), np.empty((T, nv, 6, L)), np.empty((T, n + 1, 6, L)),
            np.empty((T, n, 6, L)), np.empty((T, n + 1, NSYM, L)), np.empty((T, n + 1, 6, L)),
            np.empty((T, nv, 6, L)), np.empty((T, 6, 6, L)), np.empty((T, nv, 6, L)), np.empty((T, n + 1, 6, L)))


@njit_without_refcounts(cache=True, nogil=True)
def aba_chunks(topology, params, gravity, q, v, tau, f_ext, qdd, counter, qs, qd, u, out, R0, d, S, V, C, IA, PA, U,
               D, Dinv, A):
    """:func:`aba_chunk` over the chunks of LANES states that this thread claims one by one from ``counter``
    (:mod:`._claims`: chunk k the states k·LANES onwards): one thread's share, in that thread's own work arrays.
    Releases the GIL."""
    L = LANES
    k = claim(counter)
    while k * L < q.shape[0]:
        aba_chunk(topology, params, gravity, q, v, tau, f_ext, qdd, k * L, min(L, q.shape[0] - k * L),
                  qs, qd, u, out, R0, d, S, V, C, IA, PA, U, D, Dinv, A)
        finished(counter)
        k = claim(counter)


def aba_batch(topology, params, gravity, q, v, tau, f_ext, qdd, threads):
    """:func:`aba_chunk` over every chunk of LANES states, on ``threads`` Python threads at most, each running one
    compiled share (:func:`aba_chunks`, which releases the GIL) that claims the next chunk when it is free
    (:func:`~._claims.in_claimed_chunks`). q (B, nq), v and tau (B, nv), f_ext (B or 1, n, 6) or (·, 0, 6) for none;
    writes qdd (B, nv) and returns True when it is finite.

    Threads from Python rather than numba's ``prange``: the parallel loop made LLVM optimize the whole kernel a
    second time, half of its cold compilation (31 of 51 s measured), and waits at its end for every thread, one
    that starts milliseconds late included. No more threads than the batch's work is worth
    (:func:`~._threads.aba_threads`).
    """
    chunks = (q.shape[0] + LANES - 1) // LANES
    T = aba_threads(q.shape[0], topology.shape[0], min(threads, chunks))
    work, taken = thread_workspaces(T, topology.shape[0], q.shape[1], qdd.shape[1]), itertools.count()

    def share(counter):  # (each thread its own work arrays: the next unused, next() on a count being atomic)
        aba_chunks(topology, params, gravity, q, v, tau, f_ext, qdd, counter, *work[next(taken)])
    in_claimed_chunks(share, chunks, T)
    return bool(np.isfinite(qdd).all())


_LOCAL = threading.local()


def thread_workspaces(T, n, nq, nv):
    """The :func:`chunk_workspaces` of T threads as T tuples of arrays, kept per calling thread and size, so that
    a call allocates nothing (~10 µs of a 16-state call saved) and concurrent callers never share arrays."""
    kept = _LOCAL.__dict__.setdefault("workspaces", {})
    if (T, n, nq, nv) not in kept:
        kept[(T, n, nq, nv)] = list(zip(*chunk_workspaces(T, n, nq, nv)))
    return kept[(T, n, nq, nv)]
