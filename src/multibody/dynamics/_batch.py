"""Batched recursive algorithms in structure-of-arrays (SoA) form: one chunk of states at a time, SIMD across states.

A chunk holds up to ``LANES`` states. Every work array carries the state within the chunk (the *lane* b) as its
last, contiguous axis — ``V[i, r, b]``, ``IA[i, r, c, b]``, ``R[i, r, c, b]`` — and every operation loops over the
lanes innermost, so LLVM compiles it to vector instructions (AVX2 / AVX-512) across states, with no branch on the
state: the joint types and the tree are the same in every lane. The bodies' parameters (inertias, joint placements
and axes) are too, or, for runs of different models of the same structure, one set per lane (:func:`lane`).
:func:`aba_lanes` is the algorithm on a chunk held as lanes (the lockstep rollouts of
:mod:`multibody.simulate.lockstep` keep their states so), :func:`aba_chunk` gathers a chunk of (B, n) arrays into
lanes for it, and :func:`aba_batch` deals the chunks out to the threads round robin. In the hot steps (joint poses,
pass 1 and the articulation of single-dof joints, the inertia transform) one lane loop does the whole step with
its intermediate values in registers and writes its results to a stack array (``work``), which a second loop copies
out: LLVM vectorizes a loop only when it can rule out overlap between what it writes and what it reads, and among
the arguments' many rows it gives up ("too many memory checks"), while a stack array overlaps nothing. Measured
1.7× the states per second of the same steps writing their arguments directly.

The lanes' ABA is RBDA Table 7.1 in body coordinates (the form :mod:`multibody.dynamics._core` used before it moved
to world axes at each body origin, which saves the rotation of the articulated inertias); the two forms agree to
round-off, not bit for bit. The compiled-model layout is the
one documented in :mod:`multibody.dynamics._spatial_kernels`; ``S`` below is ``params[i, F_S:F_S + 36]`` (6 × 6,
row major, first nv columns used). The rare cases — poses of joints other than revolute and prismatic, the
inverse of multi-dof joint blocks D — go lane by lane through the scalar kernels' own functions.
Equation references are to Featherstone, *Rigid Body Dynamics Algorithms* (RBDA), 2008.
"""
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, types
from numba.extending import overload

from ._core import _invert_spd
from ..model.joints import PRISMATIC, REVOLUTE
from ._spatial_kernels import (F_ARMATURE, F_AXIS, F_COM, F_INERTIA, F_MASS, F_PTREE, F_RTREE, F_S, IQ, IV, JTYPE,
                               NVJ, PARENT, cross_force, cross_motion, inertia_blocks_to_parent, joint_pose,
                               motion_in_child, rigid_inertia_times, rodrigues, rotation_product, work)

LANES = 32  # states per chunk: 4 AVX2 (or 8 AVX-512) registers wide, with the work arrays of a chunk in L2
MIN_BATCH = 16  # smaller batches go state by state through the scalar kernels (less set-up)

inline = njit(cache=True, inline="always")  # the small helpers called inside a loop over the lanes
# A whole step over the lanes is an ordinary compiled call: inlining the steps as well made the kernel take about
# 5 min to compile (measured 107 s this way) for 0–10 % more speed.
# error_model "numpy": x / 0 gives inf (caught by the final finiteness check), not a raise: the check for it would be
# an early exit that keeps a lane loop from vectorizing. fastmath "contract" (only): a × b + c as one fused
# multiply-add, rounded once: 10–12 % fewer µs per RK4 step of the 7-link chain (measured), the results still within
# round-off of the scalar kernels' (which round twice; the tests hold them to 1e-12)
step = njit(cache=True, error_model="numpy", fastmath={"contract"})


def lane(x, b):
    """x at lane b: x itself where the lanes share it (a number, or a tuple of numbers), x[b] where it holds a
    value per lane (an array over the lanes, or a tuple of them). A body's parameters are ``params[i, k]``: a
    number of shared params (n, NPARAMS), the lanes' values of per-lane params (n, NPARAMS, LANES); numba
    compiles each kernel once per kind, the shared one exactly as if it read the number."""
    if isinstance(x, tuple):
        return tuple(lane(y, b) for y in x)
    return x[b] if isinstance(x, np.ndarray) else x


@overload(lane, inline="always")
def _lane(x, b):
    if isinstance(x, types.Array):
        return lambda x, b: x[b]
    if isinstance(x, types.BaseTuple) and any(isinstance(y, types.Array) for y in x):
        scope = {}
        exec("def at(x, b):\n    return (" + "".join(f"x[{k}][b], " for k in range(len(x))) + ")", scope)
        return scope["at"]
    return lambda x, b: x


def lane_params(params, b):
    """Lane b's params (n, NPARAMS): ``params`` itself when shared, params[:, :, b] of per-lane params."""
    return params if params.ndim == 2 else params[:, :, b]


@overload(lane_params, inline="always")
def _lane_params(params, b):
    if params.ndim == 2:
        return lambda params, b: params
    return lambda params, b: params[:, :, b]


# sin and cos of a lane loop (np.sin and np.cos are library calls, lane by lane: ~12 ns a pair, 14 % of the ABA of
# the 7-link chain), here by Cody–Waite reduction x = n π/2 + r, |r| ≤ π/4, with π/2 split in three parts
# (33 + 33 + 53 bits, so that n π/2 is exact for |n| < 2²⁰), and fdlibm's minimax polynomials of sin and cos on
# [−π/4, π/4] (error < 1 ulp); the quadrant n mod 4 picks ±sin r or ±cos r. Branch-free, so the loop vectorizes
# (1.3 ns a pair); within 2 ulp of libm, measured on 10⁶ angles in [−10⁵, 10⁵].
SIN_POLY = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
            2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
COS_POLY = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
            -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)
PIO2 = (1.57079632673412561417e+00, 6.07710050630396597660e-11, 2.02226624871116645580e-21)
SINCOS_RANGE = 1e5  # [rad] larger angles (in any lane of a chunk) go through np.sin and np.cos


@inline
def sin_cos(x):
    """(sin x, cos x) for |x| < SINCOS_RANGE, branch-free (see SIN_POLY)."""
    n = np.floor(x * (2.0 / np.pi) + 0.5)
    r = ((x - n * PIO2[0]) - n * PIO2[1]) - n * PIO2[2]
    z = r * r
    S, C = SIN_POLY, COS_POLY
    s = r + r * z * (S[0] + z * (S[1] + z * (S[2] + z * (S[3] + z * (S[4] + z * S[5])))))
    c = 1.0 - 0.5 * z + z * z * (C[0] + z * (C[1] + z * (C[2] + z * (C[3] + z * (C[4] + z * C[5])))))
    k = np.int64(n) & 3  # sin x = s, c, −s, −c and cos x = c, −s, −c, s in quadrants k = 0, 1, 2, 3
    sine, cosine = (c, s) if k & 1 else (s, c)
    return (-sine if k & 2 else sine), (-cosine if (k + 1) & 2 else cosine)


@inline
def sines_cosines(q, iq, sc, nb):
    """sc[0, b], sc[1, b] = sin q[iq, b], cos q[iq, b] (:func:`sin_cos`; np.sin and np.cos if any angle is
    beyond SINCOS_RANGE)."""
    largest = 0.0
    for b in range(nb):
        largest = max(largest, abs(q[iq, b]))
    if largest < SINCOS_RANGE:
        for b in range(nb):
            sc[0, b], sc[1, b] = sin_cos(q[iq, b])
    else:
        for b in range(nb):
            sc[0, b], sc[1, b] = np.sin(q[iq, b]), np.cos(q[iq, b])


@step
def gather(x, b0, nb, out):
    """out[j, b] = x[b0 + b, j]: a chunk of states (B, size) as SoA (size, LANES)."""
    for b in range(nb):
        for j in range(x.shape[1]):
            out[j, b] = x[b0 + b, j]


@step
def scatter(x, b0, nb, out):
    """out[b0 + b, j] = x[j, b]: the inverse of :func:`gather`."""
    for b in range(nb):
        for j in range(x.shape[0]):
            out[b0 + b, j] = x[j, b]


@inline
def place(T, pt, RJ, pJ, pose, b):
    """pose[:, b] = (T R_J row major, pt + T p_J): lane b's joint pose (R_J 9-tuple, p_J 3-tuple) composed with
    its joint placement (T row-major 9-tuple, pt 3-tuple), as the scalar kernels' ``placed``."""
    Ri = rotation_product(T, RJ)
    for k in range(9):
        pose[k, b] = Ri[k]
    for k in range(3):
        pose[9 + k, b] = pt[k] + T[3 * k] * pJ[0] + T[3 * k + 1] * pJ[1] + T[3 * k + 2] * pJ[2]


@inline
def placement(params, i):
    """Body i's joint placement: (R_tree row-major 9-tuple, p_tree 3-tuple), numbers or lane arrays."""
    return ((params[i, F_RTREE], params[i, F_RTREE + 1], params[i, F_RTREE + 2], params[i, F_RTREE + 3],
             params[i, F_RTREE + 4], params[i, F_RTREE + 5], params[i, F_RTREE + 6], params[i, F_RTREE + 7],
             params[i, F_RTREE + 8]), (params[i, F_PTREE], params[i, F_PTREE + 1], params[i, F_PTREE + 2]))


@step
def chunk_poses(topology, params, q, nb, R, p):
    """R[i, :, :, b], p[i, :, b]: pose of body i in its parent at lane b, q (nq, LANES) (RBDA Table 4.1, as the
    scalar ``local_poses``). Revolute and prismatic joints are vectorized; the other joint types go lane by lane
    through the scalar ``joint_pose``. The lanes' poses go through a stack array, as in
    :func:`inertia_to_parent`."""
    sc, pose = work((2, LANES)), work((12, LANES))
    for i in range(topology.shape[0]):
        jtype, iq = topology[i, JTYPE], topology[i, IQ]
        axis = (params[i, F_AXIS], params[i, F_AXIS + 1], params[i, F_AXIS + 2])
        T, pt = placement(params, i)
        if jtype == REVOLUTE:
            sines_cosines(q, iq, sc, nb)
            for b in range(nb):
                ax, ay, az = lane(axis, b)
                place(lane(T, b), lane(pt, b), rodrigues(ax, ay, az, sc[0, b], sc[1, b]), (0.0, 0.0, 0.0), pose, b)
        elif jtype == PRISMATIC:
            for b in range(nb):
                x, (ax, ay, az) = q[iq, b], lane(axis, b)
                place(lane(T, b), lane(pt, b), (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (ax * x, ay * x, az * x),
                      pose, b)
        else:
            for b in range(nb):
                RJ, pJ = joint_pose(jtype, lane_params(params, b), i, q[:, b], iq)
                place(lane(T, b), lane(pt, b), RJ, pJ, pose, b)
        for r in range(3):
            for b in range(nb):
                p[i, r, b] = pose[9 + r, b]
            for c in range(3):
                for b in range(nb):
                    R[i, r, c, b] = pose[3 * r + c, b]


@step
def invert_spd_lanes(D, k, Dinv, iv, nb):
    """Dinv[iv + r, c, b] = (D⁻¹)_rc for the k×k block D[:k, :k, b] of each lane (the scalar ``_invert_spd`` lane by
    lane: multi-dof joints are the rare case)."""
    Dl, Dinvl = np.empty((k, k)), np.empty((1, k, k))
    for b in range(nb):
        for r in range(k):
            for c in range(k):
                Dl[r, c] = D[r, c, b]
        _invert_spd(Dl, k, Dinvl, 0)
        for r in range(k):
            for c in range(k):
                Dinv[iv + r, c, b] = Dinvl[0, r, c]


@inline
def lane_pose(R, p, i, b):
    """Body i's pose in its parent at lane b: (R row-major 9-tuple, p 3-tuple)."""
    return ((R[i, 0, 0, b], R[i, 0, 1, b], R[i, 0, 2, b], R[i, 1, 0, b], R[i, 1, 1, b], R[i, 1, 2, b], R[i, 2, 0, b],
             R[i, 2, 1, b], R[i, 2, 2, b]), (p[i, 0, b], p[i, 1, b], p[i, 2, b]))


@inline
def lane_vector(x, j, b):
    """x[j, :, b], a spatial vector of lane b, as a 6-tuple."""
    return x[j, 0, b], x[j, 1, b], x[j, 2, b], x[j, 3, b], x[j, 4, b], x[j, 5, b]


@step
def motion_to_child(R, p, i, m, j, out, k, nb):
    """out[k] = X_i m[j] per lane (:func:`motion_in_child`)."""
    for b in range(nb):
        Rb, pb = lane_pose(R, p, i, b)
        x = motion_in_child(Rb, pb, lane_vector(m, j, b))
        for r in range(6):
            out[k, r, b] = x[r]


@inline
def subspace_column(params, i):
    """The motion subspace of body i's single-dof joint, S[:, 0], as a 6-tuple (numbers or lane arrays)."""
    return (params[i, F_S], params[i, F_S + 6], params[i, F_S + 12], params[i, F_S + 18], params[i, F_S + 24],
            params[i, F_S + 30])


@inline
def body_inertia(params, i):
    """Body i's inertia (mass, mass center (3), I00, I11, I22, I01, I02, I12; about the body origin, body axes)
    as a 10-tuple (numbers or lane arrays), the scalar kernels' compact form."""
    return (params[i, F_MASS], params[i, F_COM], params[i, F_COM + 1], params[i, F_COM + 2], params[i, F_INERTIA],
            params[i, F_INERTIA + 7], params[i, F_INERTIA + 14], params[i, F_INERTIA + 1], params[i, F_INERTIA + 2],
            params[i, F_INERTIA + 8])


@inline
def inertia_product(body, m):
    """I m for a body's inertia (a :func:`body_inertia` of numbers) and a motion vector m (6-tuple), as the scalar
    kernels' ``inertia_times``."""
    mass, c0, c1, c2, I00, I11, I22, I01, I02, I12 = body
    return rigid_inertia_times(mass, mass * c0, mass * c1, mass * c2, I00, I11, I22, I01, I02, I12,
                               m[0], m[1], m[2], m[3], m[4], m[5])


@step
def velocity_and_bias_single_dof(params, i, lam, iv, R, p, qd, V, C, PA, nb):
    """Pass 1 of the ABA at body i for a joint with one degree of freedom (motion subspace a single column s),
    fused into one loop over the lanes with the intermediate values in registers: v_i = X_i v_λ + s q̇ ;
    c_i = v_i ×m s q̇ ;  p^A_i = v_i ×* I_i v_i. Results go through a stack array, as in
    :func:`inertia_to_parent`: rows 0–5 v_i, 6–11 c_i, 12–17 p^A_i."""
    column, body = subspace_column(params, i), body_inertia(params, i)
    result = work((18, LANES))
    for b in range(nb):
        Rb, pb = lane_pose(R, p, i, b)
        x = motion_in_child(Rb, pb, lane_vector(V, lam, b))
        rate, s = qd[iv, b], lane(column, b)
        vJ = (s[0] * rate, s[1] * rate, s[2] * rate, s[3] * rate, s[4] * rate, s[5] * rate)
        vi = (x[0] + vJ[0], x[1] + vJ[1], x[2] + vJ[2], x[3] + vJ[3], x[4] + vJ[4], x[5] + vJ[5])
        c = cross_motion(vi, vJ)
        f = cross_force(vi, inertia_product(lane(body, b), vi))
        for r in range(6):
            result[r, b] = vi[r]
            result[6 + r, b] = c[r]
            result[12 + r, b] = f[r]
    for r in range(6):
        for b in range(nb):
            V[i, r, b] = result[r, b]
            C[i, r, b] = result[6 + r, b]
            PA[i, r, b] = result[12 + r, b]


@step
def force_to_parent(R, p, i, f, j, out, k, nb):
    """out[k] += X_iᵀ f[j] per lane: f_λ = R f_i, n_λ = R n_i + p × f_λ  (RBDA eq. 2.25)."""
    for b in range(nb):
        fx = R[i, 0, 0, b] * f[j, 3, b] + R[i, 0, 1, b] * f[j, 4, b] + R[i, 0, 2, b] * f[j, 5, b]
        fy = R[i, 1, 0, b] * f[j, 3, b] + R[i, 1, 1, b] * f[j, 4, b] + R[i, 1, 2, b] * f[j, 5, b]
        fz = R[i, 2, 0, b] * f[j, 3, b] + R[i, 2, 1, b] * f[j, 4, b] + R[i, 2, 2, b] * f[j, 5, b]
        n0 = R[i, 0, 0, b] * f[j, 0, b] + R[i, 0, 1, b] * f[j, 1, b] + R[i, 0, 2, b] * f[j, 2, b]
        n1 = R[i, 1, 0, b] * f[j, 0, b] + R[i, 1, 1, b] * f[j, 1, b] + R[i, 1, 2, b] * f[j, 2, b]
        n2 = R[i, 2, 0, b] * f[j, 0, b] + R[i, 2, 1, b] * f[j, 1, b] + R[i, 2, 2, b] * f[j, 2, b]
        out[k, 0, b] = out[k, 0, b] + n0 + (p[i, 1, b] * fz - p[i, 2, b] * fy)
        out[k, 1, b] = out[k, 1, b] + n1 + (p[i, 2, b] * fx - p[i, 0, b] * fz)
        out[k, 2, b] = out[k, 2, b] + n2 + (p[i, 0, b] * fy - p[i, 1, b] * fx)
        out[k, 3, b] += fx
        out[k, 4, b] += fy
        out[k, 5, b] += fz


@step
def cross_motion_add(v, i, m, j, out, k, nb):
    """out[k] += v[i] ×m m[j] per lane = [ω × m_ω; ω × m_v + v × m_ω]  (RBDA eq. 2.31)."""
    for b in range(nb):
        w0, w1, w2, u0, u1, u2 = v[i, 0, b], v[i, 1, b], v[i, 2, b], v[i, 3, b], v[i, 4, b], v[i, 5, b]
        m0, m1, m2, m3, m4, m5 = m[j, 0, b], m[j, 1, b], m[j, 2, b], m[j, 3, b], m[j, 4, b], m[j, 5, b]
        out[k, 0, b] += w1 * m2 - w2 * m1
        out[k, 1, b] += w2 * m0 - w0 * m2
        out[k, 2, b] += w0 * m1 - w1 * m0
        out[k, 3, b] += w1 * m5 - w2 * m4 + u1 * m2 - u2 * m1
        out[k, 4, b] += w2 * m3 - w0 * m5 + u2 * m0 - u0 * m2
        out[k, 5, b] += w0 * m4 - w1 * m3 + u0 * m1 - u1 * m0


@step
def cross_force_add(v, i, f, j, out, k, nb):
    """out[k] += v[i] ×* f[j] per lane = [ω × n + v × f; ω × f]  (RBDA eq. 2.32)."""
    for b in range(nb):
        w0, w1, w2, u0, u1, u2 = v[i, 0, b], v[i, 1, b], v[i, 2, b], v[i, 3, b], v[i, 4, b], v[i, 5, b]
        n0, n1, n2, f0, f1, f2 = f[j, 0, b], f[j, 1, b], f[j, 2, b], f[j, 3, b], f[j, 4, b], f[j, 5, b]
        out[k, 0, b] += w1 * n2 - w2 * n1 + u1 * f2 - u2 * f1
        out[k, 1, b] += w2 * n0 - w0 * n2 + u2 * f0 - u0 * f2
        out[k, 2, b] += w0 * n1 - w1 * n0 + u0 * f1 - u1 * f0
        out[k, 3, b] += w1 * f2 - w2 * f1
        out[k, 4, b] += w2 * f0 - w0 * f2
        out[k, 5, b] += w0 * f1 - w1 * f0


@step
def subspace_times(params, i, nvj, x, iv, out, k, nb):
    """out[k] = S_i x[iv:iv+nvj] per lane (x: (nv, LANES))."""
    for r in range(6):
        for b in range(nb):
            out[k, r, b] = 0.0
        for c in range(nvj):
            s = params[i, F_S + 6 * r + c]
            for b in range(nb):
                out[k, r, b] += lane(s, b) * x[iv + c, b]


@step
def inertia_times(params, i, m, j, out, k, nb):
    """out[k] = I_i m[j] per lane, with body i's spatial inertia (about its origin, body axes)."""
    for r in range(6):
        for b in range(nb):
            out[k, r, b] = 0.0
        for c in range(6):
            s = params[i, F_INERTIA + 6 * r + c]
            for b in range(nb):
                out[k, r, b] += lane(s, b) * m[j, c, b]


@inline
def lane_block(I, s, r0, c0, b):
    """The 3×3 block I[s, r0:r0 + 3, c0:c0 + 3] of lane b as a row-major 9-tuple."""
    return (I[s, r0, c0, b], I[s, r0, c0 + 1, b], I[s, r0, c0 + 2, b], I[s, r0 + 1, c0, b], I[s, r0 + 1, c0 + 1, b],
            I[s, r0 + 1, c0 + 2, b], I[s, r0 + 2, c0, b], I[s, r0 + 2, c0 + 1, b], I[s, r0 + 2, c0 + 2, b])


@step
def inertia_to_parent(R, p, i, I, s, out, d, nb):
    """out[d] += X_iᵀ I[s] X_i per lane for a symmetric inertia I[s] in body-i axes (RBDA eq. 2.66): the scalar
    kernels' :func:`inertia_blocks_to_parent` on each lane's blocks, held in registers.

    The lanes' blocks go through a stack array first: a loop that only reads the arguments and writes its own
    array vectorizes, where one that also wrote ``out`` would need more run-time overlap checks than LLVM makes."""
    blocks = work((27, LANES))
    for b in range(nb):
        Rb = (R[i, 0, 0, b], R[i, 0, 1, b], R[i, 0, 2, b], R[i, 1, 0, b], R[i, 1, 1, b], R[i, 1, 2, b], R[i, 2, 0, b],
              R[i, 2, 1, b], R[i, 2, 2, b])
        A2, B2, C2 = inertia_blocks_to_parent(lane_block(I, s, 0, 0, b), lane_block(I, s, 0, 3, b),
                                              lane_block(I, s, 3, 3, b), Rb, p[i, 0, b], p[i, 1, b], p[i, 2, b])
        for k in range(9):
            blocks[k, b] = A2[k]
            blocks[9 + k, b] = B2[k]
            blocks[18 + k, b] = C2[k]
    for r in range(3):
        for c in range(3):
            for b in range(nb):
                out[d, r, c, b] += blocks[3 * r + c, b]
                out[d, r, 3 + c, b] += blocks[9 + 3 * r + c, b]
                out[d, 3 + c, r, b] += blocks[9 + 3 * r + c, b]
                out[d, 3 + r, 3 + c, b] += blocks[18 + 3 * r + c, b]


@inline
def row_times(M, i, r, b, s):
    """Σ_c M[i, r, c, b] s[c]: row r of lane b's 6×6 matrix M[i] times a 6-tuple."""
    return (M[i, r, 0, b] * s[0] + M[i, r, 1, b] * s[1] + M[i, r, 2, b] * s[2] + M[i, r, 3, b] * s[3]
            + M[i, r, 4, b] * s[4] + M[i, r, 5, b] * s[5])


@step
def articulate_single_dof(params, i, iv, IA, PA, C, U, u, Dinv, Ia, pa, nb):
    """Pass 2 of the ABA for a joint with one degree of freedom (motion subspace a single column s), the steps
    of the general case fused into one loop over the lanes, intermediate values in registers:
    U = I^A s ;  D = sᵀ U + armature ;  u = τ − sᵀ p^A ;  I^a = I^A − U D⁻¹ Uᵀ ;
    p^a = p^A + U D⁻¹ u + I^a c.
    Results go through a stack array, as in :func:`inertia_to_parent`: rows 0–35 I^a, 36–41 p^a, 42–47 U, 48 u,
    49 D⁻¹."""
    column, armature = subspace_column(params, i), params[i, F_ARMATURE]
    result = work((50, LANES))
    for b in range(nb):
        s = lane(column, b)
        Ui = (row_times(IA, i, 0, b, s), row_times(IA, i, 1, b, s), row_times(IA, i, 2, b, s),
              row_times(IA, i, 3, b, s), row_times(IA, i, 4, b, s), row_times(IA, i, 5, b, s))
        d = s[0] * Ui[0] + s[1] * Ui[1] + s[2] * Ui[2] + s[3] * Ui[3] + s[4] * Ui[4] + s[5] * Ui[5] + lane(armature, b)
        ui = (u[iv, b] - s[0] * PA[i, 0, b] - s[1] * PA[i, 1, b] - s[2] * PA[i, 2, b] - s[3] * PA[i, 3, b]
              - s[4] * PA[i, 4, b] - s[5] * PA[i, 5, b])
        dinv = 1.0 / d
        result[48, b] = ui
        result[49, b] = dinv
        for r in range(6):
            result[42 + r, b] = Ui[r]
            urk = Ui[r] * dinv
            acc = 0.0
            for c in range(6):
                ia = IA[i, r, c, b] - urk * Ui[c]
                result[6 * r + c, b] = ia
                acc += ia * C[i, c, b]
            result[36 + r, b] = PA[i, r, b] + urk * ui + acc
    for b in range(nb):
        u[iv, b] = result[48, b]
        Dinv[iv, 0, b] = result[49, b]
    for r in range(6):
        for b in range(nb):
            U[iv, r, b] = result[42 + r, b]
            pa[0, r, b] = result[36 + r, b]
        for c in range(6):
            for b in range(nb):
                Ia[0, r, c, b] = result[6 * r + c, b]


@step
def aba_chunk(topology, params, gravity, q, v, tau, f_ext, qdd, b0, nb,
              qs, qd, u, out, R, p, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A):
    """:func:`aba_lanes` for the states b0 … b0 + nb − 1 of q (B, nq), v and tau (B, nv): gathered into the lanes
    qs, qd, u, and q̈ scattered from ``out`` to qdd (B, nv)."""
    gather(q, b0, nb, qs)
    gather(v, b0, nb, qd)
    gather(tau, b0, nb, u)
    aba_lanes(topology, params, gravity, qs, qd, u, f_ext, b0, nb, out, R, p, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa,
              h, A)
    scatter(out, b0, nb, qdd)


@step
def aba_lanes(topology, params, gravity, q, qd, u, f_ext, b0, nb, out, R, p, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa,
              h, A):
    """Articulated-body algorithm (RBDA Table 7.1), as ``_core.aba``, for the nb states held in lanes: q (nq, LANES),
    q̇ = qd and τ = u (nv, LANES); writes q̈ to out (nv, LANES) and u = τ − Sᵀ p^A over τ. ``params``: the bodies'
    parameters, shared (n, NPARAMS) or per lane (n, NPARAMS, LANES) (:func:`lane`); f_ext (B or 1, n, 6) or
    (·, 0, 6) for none: lane b's body forces are row b0 + b.

    The work arrays (lane axis last, LANES long; rows −1 of V, IA, PA and A: the world) are those of the
    scalar kernel: R (n, 3, 3), p (n, 3) joint poses; V (n + 1, 6) body velocities; C (n, 6) velocity-product
    accelerations c_i = v_i ×m S q̇; IA (n + 1, 6, 6) and PA (n + 1, 6) articulated-body inertias and bias forces;
    U (nv, 6) with U[iv + k] column k of U_i = I^A_i S_i; D (6, 6) and Dinv (nv, 6) with
    Dinv[iv + k, m] = (D_i⁻¹)_km; A (n + 1, 6) accelerations. Scratch: vJ, pa (1, 6), Ia (1, 6, 6), h (6).
    """
    n = topology.shape[0]
    chunk_poses(topology, params, q, nb, R, p)
    V[n] = 0.0
    C[:] = 0.0
    PA[:] = 0.0
    # pass 1: velocities, bias accelerations and bias forces, root to leaves
    for i in range(n):
        lam, nvj, iv = topology[i, PARENT], topology[i, NVJ], topology[i, IV]
        if nvj == 1:
            velocity_and_bias_single_dof(params, i, lam, iv, R, p, qd, V, C, PA, nb)
        else:
            subspace_times(params, i, nvj, qd, iv, vJ, 0, nb)
            motion_to_child(R, p, i, V, lam, V, i, nb)
            for r in range(6):
                for b in range(nb):
                    V[i, r, b] += vJ[0, r, b]
            cross_motion_add(V, i, vJ, 0, C, i, nb)
            # p^A_i = v_i ×* I_i v_i
            inertia_times(params, i, V, i, vJ, 0, nb)
            cross_force_add(V, i, vJ, 0, PA, i, nb)
        for r in range(6):
            for c in range(6):
                s = params[i, F_INERTIA + 6 * r + c]
                for b in range(nb):
                    IA[i, r, c, b] = lane(s, b)
        if f_ext.shape[1] > 0:  # p^A_i −= f_ext,i
            for r in range(6):
                for b in range(nb):
                    PA[i, r, b] -= f_ext[0 if f_ext.shape[0] == 1 else b0 + b, i, r]
    # pass 2: articulated inertias, leaves to root
    for i in range(n - 1, -1, -1):
        nvj, iv = topology[i, NVJ], topology[i, IV]
        if nvj == 1:
            articulate_single_dof(params, i, iv, IA, PA, C, U, u, Dinv, Ia, pa, nb)
        else:
            # U = I^A S ;  D = Sᵀ U + diag(armature) ;  u = τ − Sᵀ p^A
            for k in range(nvj):
                for r in range(6):
                    for b in range(nb):
                        U[iv + k, r, b] = 0.0
                    for c in range(6):
                        s = params[i, F_S + 6 * c + k]
                        for b in range(nb):
                            U[iv + k, r, b] += IA[i, r, c, b] * lane(s, b)
            for k in range(nvj):
                for r in range(6):
                    s = params[i, F_S + 6 * r + k]
                    for b in range(nb):
                        u[iv + k, b] -= lane(s, b) * PA[i, r, b]
                for m in range(nvj):
                    for b in range(nb):
                        D[m, k, b] = 0.0
                    for r in range(6):
                        s = params[i, F_S + 6 * r + m]
                        for b in range(nb):
                            D[m, k, b] += lane(s, b) * U[iv + k, r, b]
                armature = params[i, F_ARMATURE + k]
                for b in range(nb):
                    D[k, k, b] += lane(armature, b)
            if nvj > 1:
                invert_spd_lanes(D, nvj, Dinv, iv, nb)
            # I^a = I^A − U D⁻¹ Uᵀ ;  p^a = p^A + I^a c + U D⁻¹ u
            for r in range(6):
                for b in range(nb):
                    pa[0, r, b] = PA[i, r, b]
                for c in range(6):
                    for b in range(nb):
                        Ia[0, r, c, b] = IA[i, r, c, b]
            for k in range(nvj):
                for m in range(nvj):
                    for r in range(6):
                        for b in range(nb):
                            pa[0, r, b] += U[iv + k, r, b] * Dinv[iv + k, m, b] * u[iv + m, b]
                        for c in range(6):
                            for b in range(nb):
                                Ia[0, r, c, b] -= U[iv + k, r, b] * Dinv[iv + k, m, b] * U[iv + m, c, b]
            for r in range(6):
                for b in range(nb):
                    h[r, b] = 0.0
                for c in range(6):
                    for b in range(nb):
                        h[r, b] += Ia[0, r, c, b] * C[i, c, b]
                for b in range(nb):
                    pa[0, r, b] += h[r, b]
        # I^A_λ += Xᵀ I^a X ;  p^A_λ += Xᵀ p^a   (λ = −1 lands in the discarded world row)
        lam = topology[i, PARENT]
        inertia_to_parent(R, p, i, Ia, 0, IA, lam, nb)
        force_to_parent(R, p, i, pa, 0, PA, lam, nb)
    # pass 3: accelerations, root to leaves
    for r in range(3):
        for b in range(nb):
            A[n, r, b] = 0.0
            A[n, 3 + r, b] = -gravity[r]
    for i in range(n):
        nvj, iv = topology[i, NVJ], topology[i, IV]
        # a' = X a_λ + c ;  q̈ = D⁻¹ (u − Uᵀ a') ;  a = a' + S q̈
        motion_to_child(R, p, i, A, topology[i, PARENT], A, i, nb)
        for r in range(6):
            for b in range(nb):
                A[i, r, b] += C[i, r, b]
        for k in range(nvj):
            for b in range(nb):
                h[k, b] = u[iv + k, b]
            for r in range(6):
                for b in range(nb):
                    h[k, b] -= U[iv + k, r, b] * A[i, r, b]
        for k in range(nvj):
            for b in range(nb):
                out[iv + k, b] = 0.0
            for m in range(nvj):
                for b in range(nb):
                    out[iv + k, b] += Dinv[iv + k, m, b] * h[m, b]
        for r in range(6):
            for k in range(nvj):
                s = params[i, F_S + 6 * r + k]
                for b in range(nb):
                    A[i, r, b] += lane(s, b) * out[iv + k, b]


@njit(cache=True)
def chunk_workspaces(T, n, nq, nv):
    """The work arrays of :func:`aba_chunk` for T threads (the leading axis; lanes last): qs, qd, u, out, R, p, V,
    C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A for n bodies, nq coordinates and nv velocities (from R on, those of
    :func:`aba_lanes`)."""
    L = LANES
    return (np.empty((T, nq, L)), np.empty((T, nv, L)), np.empty((T, nv, L)), np.empty((T, nv, L)),
            np.empty((T, n, 3, 3, L)), np.empty((T, n, 3, L)), np.empty((T, n + 1, 6, L)), np.empty((T, n, 6, L)),
            np.empty((T, n + 1, 6, 6, L)),
            np.empty((T, n + 1, 6, L)), np.empty((T, nv, 6, L)), np.empty((T, 6, 6, L)), np.empty((T, nv, 6, L)),
            np.empty((T, 1, 6, L)), np.empty((T, 1, 6, 6, L)), np.empty((T, 1, 6, L)), np.empty((T, 6, L)),
            np.empty((T, n + 1, 6, L)))


@njit(cache=True, nogil=True)
def aba_chunks(topology, params, gravity, q, v, tau, f_ext, qdd, first, stride,
               qs, qd, u, out, R, p, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A):
    """:func:`aba_chunk` over the chunks first, first + stride, first + 2 stride, … of LANES states: one thread's
    share, in that thread's own work arrays. Releases the GIL."""
    L = LANES
    for b0 in range(first * L, q.shape[0], stride * L):
        aba_chunk(topology, params, gravity, q, v, tau, f_ext, qdd, b0, min(L, q.shape[0] - b0),
                  qs, qd, u, out, R, p, V, C, IA, PA, U, D, Dinv, vJ, Ia, pa, h, A)


def aba_batch(topology, params, gravity, q, v, tau, f_ext, qdd, threads):
    """:func:`aba_chunk` over every chunk of LANES states, the chunks dealt out round robin to ``threads`` Python
    threads (the compiled share, :func:`aba_chunks`, releases the GIL). q (B, nq), v and tau (B, nv), f_ext
    (B or 1, n, 6) or (·, 0, 6) for none; writes qdd (B, nv) and returns True when it is finite.

    Threads from Python rather than numba's ``prange``: the parallel loop made LLVM optimize the whole kernel a
    second time, half of its cold compilation (31 of 51 s measured).
    """
    T = max(1, min(threads, (q.shape[0] + LANES - 1) // LANES))
    work = thread_workspaces(T, topology.shape[0], q.shape[1], qdd.shape[1])

    in_threads(lambda t: aba_chunks(topology, params, gravity, q, v, tau, f_ext, qdd, t, T, *work[t]), T, T)
    return bool(np.isfinite(qdd).all())


_POOLS, _LOCAL = {}, threading.local()


def thread_workspaces(T, n, nq, nv):
    """The :func:`chunk_workspaces` of T threads as T tuples of arrays, kept per calling thread and size, so that
    a call allocates nothing (~10 µs of a 16-state call saved) and concurrent callers never share arrays."""
    kept = _LOCAL.__dict__.setdefault("workspaces", {})
    if (T, n, nq, nv) not in kept:
        kept[(T, n, nq, nv)] = list(zip(*chunk_workspaces(T, n, nq, nv)))
    return kept[(T, n, nq, nv)]


def in_threads(task, count, threads):
    """task(0), …, task(count − 1): in this thread if ``threads`` is 1, else on a kept pool of ``threads`` worker
    threads (made once per size; the tasks are compiled calls that release the GIL)."""
    if threads == 1:
        for k in range(count):
            task(k)
        return
    if threads not in _POOLS:
        _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="multibody")
    list(_POOLS[threads].map(task, range(count)))
