"""The spatial and joint functions of the recursive algorithms, written once and compiled for each target.

:func:`spatial_family` takes a decorator and returns the whole family compiled with it: ``njit(inline="always")``
for the CPU kernels (:mod:`._spatial_kernels` and :mod:`._core` bind its members under their usual names; the lanes
of :mod:`._batch` and the lockstep rollouts call them too) and ``cuda.jit(device=True)`` for the GPU kernels of
:mod:`multibody.gpu`. In numba a compiled function can only call functions compiled for its own target, so each
member calls its siblings through the family it belongs to (the closure), never through a module global: one body
per function, every target.

What lives here is the pure per-body math: joint poses (those of :mod:`._joint_family`, RBDA Table 4.1), motion
subspace products, spatial cross products, motion and force transforms, rigid and articulated inertias (21-entry
symmetric storage), the ABA's per-body articulation step, and a small SPD inverse. The loops around it (over bodies
for one state, over lanes, over GPU threads) and their memory (stack arrays, lanes, thread-local arrays) belong to
each target. Values travel as tuples (registers) or as rows of arrays given with their row index (no array views:
a view costs a reference-count round trip in CPU code).

Layout of the arrays: :mod:`._layout`. Equation references are to Featherstone, *Rigid Body Dynamics Algorithms*
(RBDA), 2008.
"""
import math
from types import SimpleNamespace

import numpy as np

from ._joint_family import joint_family
from ._layout import IQ, JTYPE, PARENT, accessors

# sin and cos in a vectorized loop (math.sin and math.cos are library calls: ~12 ns a pair, 14 % of the lanes' ABA of
# the 7-link chain; in the single-state kernels each call also spills the floating-point registers), here by
# Cody–Waite reduction x = n π/2 + r, |r| ≤ π/4, with π/2 split in three parts
# (33 + 33 + 53 bits, so that n π/2 is exact for |n| < 2²⁰), and fdlibm's minimax polynomials of sin and cos on
# [−π/4, π/4] (error < 1 ulp); the quadrant n mod 4 picks ±sin r or ±cos r. Branch-free, so the loop vectorizes
# (1.3 ns a pair); within 2 ulp of libm, measured on 10⁶ angles in [−10⁵, 10⁵].
SIN_POLY = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
            2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
COS_POLY = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
            -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)
PIO2 = (1.57079632673412561417e+00, 6.07710050630396597660e-11, 2.02226624871116645580e-21)
SINCOS_RANGE = 1e5  # [rad] past it (any angle of a loop), math.sin and math.cos


class SpatialFamily(SimpleNamespace):
    """The members of :func:`spatial_family`, compiled for one target, as attributes."""


def spatial_family(compile, sines_ahead=True):
    """The spatial and joint functions compiled with ``compile`` (a decorator: ``njit(inline="always")`` for the
    CPU, ``cuda.jit(device=True)`` for the GPU), returned as a :class:`SpatialFamily`, with the readers of the
    model's parameters (:func:`~._layout.accessors`) and the joint types' members (:func:`~._joint_family.joint_family`,
    all of them also as ``joints``) compiled likewise among its members. ``sines_ahead``: the sines and cosines of q
    computed ahead into an array by one vectorized loop (:func:`sines_cosines`: the CPU), or else each where it is
    used (the GPU, where the array would be thread-local memory)."""
    layout = accessors(compile)
    (tree_rotation, tree_translation, joint_axis, mass, mass_center, armature, motion_subspace, spatial_inertia,
     axis_tree_rotation, axis_tree_translation, axis_central_inertia, axis_mass_center, axis_inertia) = (
        layout.tree_rotation, layout.tree_translation, layout.joint_axis, layout.mass, layout.mass_center,
        layout.armature, layout.motion_subspace, layout.spatial_inertia, layout.axis_tree_rotation,
        layout.axis_tree_translation, layout.axis_central_inertia, layout.axis_mass_center, layout.axis_inertia)
    joints = joint_family(compile, layout)
    quaternion_rotation, rodrigues, joint_pose = joints.quaternion_rotation, joints.rodrigues, joints.joint_pose
    rotates_about_its_axis = joints.rotates_about_its_axis

    @compile
    def sin_cos(x):
        """(sin x, cos x) for |x| < SINCOS_RANGE, branch-free (see SIN_POLY)."""
        n = math.floor(x * (2.0 / np.pi) + 0.5)
        r = ((x - n * PIO2[0]) - n * PIO2[1]) - n * PIO2[2]
        z = r * r
        S, C = SIN_POLY, COS_POLY
        s = r + r * z * (S[0] + z * (S[1] + z * (S[2] + z * (S[3] + z * (S[4] + z * S[5])))))
        c = 1.0 - 0.5 * z + z * z * (C[0] + z * (C[1] + z * (C[2] + z * (C[3] + z * (C[4] + z * C[5])))))
        k = int(n) & 3  # sin x = s, c, −s, −c and cos x = c, −s, −c, s in quadrants k = 0, 1, 2, 3
        sine, cosine = (c, s) if k & 1 else (s, c)
        return (-sine if k & 2 else sine), (-cosine if (k + 1) & 2 else cosine)

    @compile
    def sines_cosines(x, SC):
        """SC[0, k], SC[1, k] = sin x_k, cos x_k for each entry of the vector x, in one vectorized loop
        (:func:`sin_cos`; math.sin and math.cos if any |x_k| is beyond SINCOS_RANGE); nothing unless ``sines_ahead``."""
        if not sines_ahead:
            return
        largest = 0.0
        for k in range(x.shape[0]):
            largest = max(largest, abs(x[k]))
        if largest < SINCOS_RANGE:
            for k in range(x.shape[0]):
                SC[0, k], SC[1, k] = sin_cos(x[k])
        else:
            for k in range(x.shape[0]):
                SC[0, k], SC[1, k] = math.sin(x[k]), math.cos(x[k])

    @compile
    def motion_to_child(R, p, i, m, j, out, k):
        """out[k] = X_i m[j]: motion vector from parent to body-i coordinates.

        ω_i = Rᵀ ω, v_i = Rᵀ (v + ω × p)  (RBDA eq. 2.24 with E = Rᵀ, r = p).
        """
        w0, w1, w2 = m[j, 0], m[j, 1], m[j, 2]
        v0 = m[j, 3] + w1 * p[i, 2] - w2 * p[i, 1]
        v1 = m[j, 4] + w2 * p[i, 0] - w0 * p[i, 2]
        v2 = m[j, 5] + w0 * p[i, 1] - w1 * p[i, 0]
        for c in range(3):
            out[k, c] = R[i, 0, c] * w0 + R[i, 1, c] * w1 + R[i, 2, c] * w2
            out[k, 3 + c] = R[i, 0, c] * v0 + R[i, 1, c] * v1 + R[i, 2, c] * v2

    @compile
    def force_to_parent(R, p, i, f, out, k):
        """out[k] += X_iᵀ f: the force f (6-tuple) from body-i to parent coordinates.

        f_λ = R f_i, n_λ = R n_i + p × f_λ  (RBDA eq. 2.25).
        """
        fx = R[i, 0, 0] * f[3] + R[i, 0, 1] * f[4] + R[i, 0, 2] * f[5]
        fy = R[i, 1, 0] * f[3] + R[i, 1, 1] * f[4] + R[i, 1, 2] * f[5]
        fz = R[i, 2, 0] * f[3] + R[i, 2, 1] * f[4] + R[i, 2, 2] * f[5]
        for r in range(3):
            out[k, r] += R[i, r, 0] * f[0] + R[i, r, 1] * f[1] + R[i, r, 2] * f[2]
        out[k, 0] += p[i, 1] * fz - p[i, 2] * fy
        out[k, 1] += p[i, 2] * fx - p[i, 0] * fz
        out[k, 2] += p[i, 0] * fy - p[i, 1] * fx
        out[k, 3] += fx
        out[k, 4] += fy
        out[k, 5] += fz

    @compile
    def row6(X, i):
        """Row i of an (n, 6) array of spatial vectors as a 6-tuple (values in registers)."""
        return X[i, 0], X[i, 1], X[i, 2], X[i, 3], X[i, 4], X[i, 5]

    @compile
    def cross_motion(v, m):
        """v ×m m = [ω × m_ω; ω × m_v + v × m_ω] for spatial motion vectors given as 6-tuples (RBDA eq. 2.31)."""
        return (v[1] * m[2] - v[2] * m[1],
                v[2] * m[0] - v[0] * m[2],
                v[0] * m[1] - v[1] * m[0],
                v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1],
                v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2],
                v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0])

    @compile
    def cross_force(v, f):
        """v ×* f = [ω × n + v × f; ω × f] for a motion v and a force f given as 6-tuples (RBDA eq. 2.32)."""
        return (v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4],
                v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5],
                v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3],
                v[1] * f[5] - v[2] * f[4],
                v[2] * f[3] - v[0] * f[5],
                v[0] * f[4] - v[1] * f[3])

    @compile
    def subspace_times(params, i, nvj, x, iv):
        """S_i x[iv:iv+nvj] as a 6-tuple: joint velocity (or acceleration) as a spatial vector in body axes."""
        s0 = s1 = s2 = s3 = s4 = s5 = 0.0
        for c in range(nvj):
            xc, S = x[iv + c], motion_subspace(params, i, c)
            s0 += S[0] * xc
            s1 += S[1] * xc
            s2 += S[2] * xc
            s3 += S[3] * xc
            s4 += S[4] * xc
            s5 += S[5] * xc
        return s0, s1, s2, s3, s4, s5

    @compile
    def rigid_inertia_times(mass, h0, h1, h2, I00, I11, I22, I01, I02, I12, w0, w1, w2, v0, v1, v2):
        """The spatial inertia of a rigid body in compact form — mass M, first moment h = M c (c the mass center) and
        rotational inertia I about the reference point — times the motion vector [ω; v]:
        [I ω + h × v; M v − h × ω] (RBDA eq. 2.63), 24 products instead of the 36 of the 6 × 6 matrix."""
        return (I00 * w0 + I01 * w1 + I02 * w2 + h1 * v2 - h2 * v1,
                I01 * w0 + I11 * w1 + I12 * w2 + h2 * v0 - h0 * v2,
                I02 * w0 + I12 * w1 + I22 * w2 + h0 * v1 - h1 * v0,
                mass * v0 - h1 * w2 + h2 * w1,
                mass * v1 - h2 * w0 + h0 * w2,
                mass * v2 - h0 * w1 + h1 * w0)

    @compile
    def inertia_times(params, i, m):
        """I_i m for body i's spatial inertia (about its origin, body axes) and a motion vector m (6-tuple)."""
        M, c = mass(params, i), mass_center(params, i)
        I0, I1, I2 = spatial_inertia(params, i, 0), spatial_inertia(params, i, 1), spatial_inertia(params, i, 2)
        return rigid_inertia_times(M, M * c[0], M * c[1], M * c[2], I0[0], I1[1], I2[2], I1[0], I2[0], I2[1],
                                   m[0], m[1], m[2], m[3], m[4], m[5])

    @compile
    def rotation_product(A, B):
        """A B for 3×3 matrices given as row-major 9-tuples."""
        return (A[0] * B[0] + A[1] * B[3] + A[2] * B[6], A[0] * B[1] + A[1] * B[4] + A[2] * B[7],
                A[0] * B[2] + A[1] * B[5] + A[2] * B[8], A[3] * B[0] + A[4] * B[3] + A[5] * B[6],
                A[3] * B[1] + A[4] * B[4] + A[5] * B[7], A[3] * B[2] + A[4] * B[5] + A[5] * B[8],
                A[6] * B[0] + A[7] * B[3] + A[8] * B[6], A[6] * B[1] + A[7] * B[4] + A[8] * B[7],
                A[6] * B[2] + A[7] * B[5] + A[8] * B[8])

    @compile
    def rotated(M, R):
        """R M Rᵀ for 3×3 matrices given as row-major 9-tuples (values in registers), through W = M Rᵀ."""
        W = (M[0] * R[0] + M[1] * R[1] + M[2] * R[2], M[0] * R[3] + M[1] * R[4] + M[2] * R[5],
             M[0] * R[6] + M[1] * R[7] + M[2] * R[8], M[3] * R[0] + M[4] * R[1] + M[5] * R[2],
             M[3] * R[3] + M[4] * R[4] + M[5] * R[5], M[3] * R[6] + M[4] * R[7] + M[5] * R[8],
             M[6] * R[0] + M[7] * R[1] + M[8] * R[2], M[6] * R[3] + M[7] * R[4] + M[8] * R[5],
             M[6] * R[6] + M[7] * R[7] + M[8] * R[8])
        return rotation_product(R, W)

    @compile
    def rotated_to_world(R0, i, x, y, z):
        """R0[i] (x, y, z): a 3-vector of body-i axes in world axes, as a 3-tuple."""
        return (R0[i, 0, 0] * x + R0[i, 0, 1] * y + R0[i, 0, 2] * z, R0[i, 1, 0] * x + R0[i, 1, 1] * y + R0[i, 1, 2] * z,
                R0[i, 2, 0] * x + R0[i, 2, 1] * y + R0[i, 2, 2] * z)

    @compile
    def subspace_column_in_world_axes(params, i, k, R0):
        """Column k of body i's motion subspace in world axes about the body origin, [R0 S_ω; R0 S_v], as a 6-tuple."""
        S = motion_subspace(params, i, k)
        w, v = rotated_to_world(R0, i, S[0], S[1], S[2]), rotated_to_world(R0, i, S[3], S[4], S[5])
        return w[0], w[1], w[2], v[0], v[1], v[2]

    @compile
    def symmetric_row(S, i):
        """S[i], a symmetric 6×6 matrix [[A, B], [Bᵀ, C]] in 21-entry storage (A and C as xx, yy, zz, xy, xz, yz, B
        row major between them), as a 21-tuple (values in registers)."""
        return (S[i, 0], S[i, 1], S[i, 2], S[i, 3], S[i, 4], S[i, 5], S[i, 6], S[i, 7], S[i, 8], S[i, 9], S[i, 10],
                S[i, 11], S[i, 12], S[i, 13], S[i, 14], S[i, 15], S[i, 16], S[i, 17], S[i, 18], S[i, 19], S[i, 20])

    @compile
    def set_symmetric_row(out, k, T):
        """out[k] = T for a 21-tuple T (:func:`symmetric_row`)."""
        out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 4], out[k, 5] = T[0], T[1], T[2], T[3], T[4], T[5]
        out[k, 6], out[k, 7], out[k, 8], out[k, 9], out[k, 10], out[k, 11] = T[6], T[7], T[8], T[9], T[10], T[11]
        out[k, 12] = T[12]
        out[k, 13], out[k, 14], out[k, 15], out[k, 16] = T[13], T[14], T[15], T[16]
        out[k, 17], out[k, 18], out[k, 19], out[k, 20] = T[17], T[18], T[19], T[20]

    @compile
    def symmetric_sum(S, T):
        """S + T for symmetric 6×6 matrices as 21-tuples (:func:`symmetric_row`)."""
        return (S[0] + T[0], S[1] + T[1], S[2] + T[2], S[3] + T[3], S[4] + T[4], S[5] + T[5], S[6] + T[6],
                S[7] + T[7], S[8] + T[8], S[9] + T[9], S[10] + T[10], S[11] + T[11], S[12] + T[12], S[13] + T[13],
                S[14] + T[14], S[15] + T[15], S[16] + T[16], S[17] + T[17], S[18] + T[18], S[19] + T[19],
                S[20] + T[20])

    @compile
    def add_symmetric_row(out, k, T):
        """out[k] += T for a 21-tuple T (:func:`symmetric_row`)."""
        set_symmetric_row(out, k, symmetric_sum(symmetric_row(out, k), T))

    @compile
    def symmetric_product(S, m):
        """S m = [A ω + B v; Bᵀ ω + C v] for a symmetric 6×6 matrix S as a 21-tuple (:func:`symmetric_row`) and a
        motion vector m = [ω; v] (6-tuple), as a 6-tuple."""
        w0, w1, w2, v0, v1, v2 = m
        return (S[0] * w0 + S[3] * w1 + S[4] * w2 + S[6] * v0 + S[7] * v1 + S[8] * v2,
                S[3] * w0 + S[1] * w1 + S[5] * w2 + S[9] * v0 + S[10] * v1 + S[11] * v2,
                S[4] * w0 + S[5] * w1 + S[2] * w2 + S[12] * v0 + S[13] * v1 + S[14] * v2,
                S[6] * w0 + S[9] * w1 + S[12] * w2 + S[15] * v0 + S[18] * v1 + S[19] * v2,
                S[7] * w0 + S[10] * w1 + S[13] * w2 + S[18] * v0 + S[16] * v1 + S[20] * v2,
                S[8] * w0 + S[11] * w1 + S[14] * w2 + S[19] * v0 + S[20] * v1 + S[17] * v2)

    @compile
    def symmetric_product_angular(S, w0, w1, w2):
        """S [ω; 0] = [A ω; Bᵀ ω] for a symmetric 6×6 matrix S (21-tuple, :func:`symmetric_product`) and a motion
        with no linear part, as a 6-tuple."""
        return (S[0] * w0 + S[3] * w1 + S[4] * w2, S[3] * w0 + S[1] * w1 + S[5] * w2,
                S[4] * w0 + S[5] * w1 + S[2] * w2, S[6] * w0 + S[9] * w1 + S[12] * w2,
                S[7] * w0 + S[10] * w1 + S[13] * w2, S[8] * w0 + S[11] * w1 + S[14] * w2)

    @compile
    def symmetric_minus_outer(S, x, y):
        """S − x yᵀ as a 21-tuple, for x yᵀ symmetric (6-tuples x, y; only the stored entries are computed)."""
        return (S[0] - x[0] * y[0], S[1] - x[1] * y[1], S[2] - x[2] * y[2], S[3] - x[0] * y[1], S[4] - x[0] * y[2],
                S[5] - x[1] * y[2], S[6] - x[0] * y[3], S[7] - x[0] * y[4], S[8] - x[0] * y[5], S[9] - x[1] * y[3],
                S[10] - x[1] * y[4], S[11] - x[1] * y[5], S[12] - x[2] * y[3], S[13] - x[2] * y[4],
                S[14] - x[2] * y[5], S[15] - x[3] * y[3], S[16] - x[4] * y[4], S[17] - x[5] * y[5],
                S[18] - x[3] * y[4], S[19] - x[3] * y[5], S[20] - x[4] * y[5])

    @compile
    def symmetric_shifted(S, dx, dy, dz):
        """X_dᵀ S X_d as a 21-tuple, for a symmetric 6×6 matrix S (21-tuple) and X_d the translation of the reference
        point by d = (dx, dy, dz), axes unchanged (an inertia about the point d moved to the origin): with
        S = [[A, B], [Bᵀ, C]], C'' = C,  B'' = B + [d]× C,  A'' = A + [d]× Bᵀ − B'' [d]×  (RBDA eq. 2.66, R = 1)."""
        A00, A11, A22, A01, A02, A12 = S[0], S[1], S[2], S[3], S[4], S[5]
        B00, B01, B02, B10, B11, B12, B20, B21, B22 = S[6], S[7], S[8], S[9], S[10], S[11], S[12], S[13], S[14]
        C00, C11, C22, C01, C02, C12 = S[15], S[16], S[17], S[18], S[19], S[20]
        # B'' = B + [d]× C  (column c of [d]× C is d × C[:, c])
        E00, E01, E02 = B00 + dy * C02 - dz * C01, B01 + dy * C12 - dz * C11, B02 + dy * C22 - dz * C12
        E10, E11, E12 = B10 + dz * C00 - dx * C02, B11 + dz * C01 - dx * C12, B12 + dz * C02 - dx * C22
        E20, E21, E22 = B20 + dx * C01 - dy * C00, B21 + dx * C11 - dy * C01, B22 + dx * C12 - dy * C02
        # A'' = A + [d]× Bᵀ − B'' [d]×  (entry (r, c): (d × B[c, :])_r − (B''[r, :] × d)_c; the upper triangle)
        return (A00 + (dy * B02 - dz * B01) - (E01 * dz - E02 * dy),
                A11 + (dz * B10 - dx * B12) - (E12 * dx - E10 * dz),
                A22 + (dx * B21 - dy * B20) - (E20 * dy - E21 * dx),
                A01 + (dy * B12 - dz * B11) - (E02 * dx - E00 * dz),
                A02 + (dy * B22 - dz * B21) - (E00 * dy - E01 * dx),
                A12 + (dz * B20 - dx * B22) - (E10 * dy - E11 * dx),
                E00, E01, E02, E10, E11, E12, E20, E21, E22, C00, C11, C22, C01, C02, C12)

    @compile
    def force_shifted(f, dx, dy, dz):
        """X_dᵀ f = [n + d × f; f]: the force f = [n; f] (6-tuple) about the point d, about the origin."""
        return (f[0] + dy * f[5] - dz * f[4], f[1] + dz * f[3] - dx * f[5], f[2] + dx * f[4] - dy * f[3], f[3], f[4],
                f[5])

    @compile
    def symmetric_of(Y):
        """The compact rigid inertia Y = (m, h, I) (:func:`rigid_inertia_times`'s first ten arguments) as a 21-tuple
        (:func:`symmetric_row`): [[I, [h]×], [[h]×ᵀ, m 1]]."""
        m, hx, hy, hz, I00, I11, I22, I01, I02, I12 = Y
        return (I00, I11, I22, I01, I02, I12, 0.0, -hz, hy, hz, 0.0, -hx, -hy, hx, 0.0, m, m, m, 0.0, 0.0, 0.0)

    @compile
    def placed(params, i, RJ, pJ):
        """The joint pose (R_J row-major 9-tuple, p_J 3-tuple) composed with body i's joint placement: the pose of body i
        in its parent, (R_tree R_J, p_tree + R_tree p_J)."""
        T, t = tree_rotation(params, i), tree_translation(params, i)
        return rotation_product(T, RJ), (t[0] + T[0] * pJ[0] + T[1] * pJ[1] + T[2] * pJ[2],
                                         t[1] + T[3] * pJ[0] + T[4] * pJ[1] + T[5] * pJ[2],
                                         t[2] + T[6] * pJ[0] + T[7] * pJ[1] + T[8] * pJ[2])

    @compile
    def axis_inertia_times(params, i, m):
        """I_i m for body i's spatial inertia (about its origin, axis-frame axes) and a motion vector m (6-tuple)."""
        M, c, I = mass(params, i), axis_mass_center(params, i), axis_inertia(params, i)
        return rigid_inertia_times(M, M * c[0], M * c[1], M * c[2], I[0], I[4], I[8], I[1], I[2], I[5],
                                   m[0], m[1], m[2], m[3], m[4], m[5])

    @compile
    def cross(a, b):
        """a × b for 3-tuples."""
        return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]

    @compile
    def rotation_times(R, x, y, z):
        """R (x, y, z) for a rotation R given as a row-major 9-tuple, as a 3-tuple."""
        return R[0] * x + R[1] * y + R[2] * z, R[3] * x + R[4] * y + R[5] * z, R[6] * x + R[7] * y + R[8] * z

    @compile
    def axis_frame_placement(topology, params, i, q, SC):
        """Pose of body i's axis frame (:func:`~._layout.axis_frames`) in its parent's: R_i = T R_J,
        p_i = t + T p_J, with (T, t) the placement between the two axis frames and (R_J, p_J) the joint pose
        (:func:`joint_pose`), for a revolute joint R_z(θ) and 0, with sin θ and cos θ from SC (sines and cosines of the
        entries of q, :func:`~._spatial_kernels.sines_cosines`). Returns R_i (row-major 9-tuple) and p_i (3-tuple)."""
        jtype, iq = topology[i, JTYPE], topology[i, IQ]
        T, t = axis_tree_rotation(params, i), axis_tree_translation(params, i)
        if rotates_about_its_axis(jtype):  # T R_z(θ): columns (c T_x + s T_y, c T_y − s T_x, T_z)
            if sines_ahead:
                sn, cs = SC[0, iq], SC[1, iq]
            else:
                sn, cs = sin_cos(q[iq]) if abs(q[iq]) < SINCOS_RANGE else (math.sin(q[iq]), math.cos(q[iq]))
            return (cs * T[0] + sn * T[1], cs * T[1] - sn * T[0], T[2], cs * T[3] + sn * T[4], cs * T[4] - sn * T[3], T[5],
                    cs * T[6] + sn * T[7], cs * T[7] - sn * T[6], T[8]), t
        RJ, pJ = joint_pose(jtype, params, i, q, iq)
        TpJ = rotation_times(T, pJ[0], pJ[1], pJ[2])
        return rotation_product(T, RJ), (t[0] + TpJ[0], t[1] + TpJ[1], t[2] + TpJ[2])

    @compile
    def rotation_row(R0, i):
        """R0[i], a 3×3 rotation of an (n, 3, 3) array, as a row-major 9-tuple (values in registers)."""
        return (R0[i, 0, 0], R0[i, 0, 1], R0[i, 0, 2], R0[i, 1, 0], R0[i, 1, 1], R0[i, 1, 2], R0[i, 2, 0], R0[i, 2, 1],
                R0[i, 2, 2])

    @compile
    def child_axis_frame_pose(topology, params, i, q, P, p_parent, SC):
        """World pose of body i's axis frame from its parent's, given as the rotation P (row-major 9-tuple) and the
        origin p_parent (3-tuple): R0_i = P R_i and p0_i = p_parent + P p_i (:func:`axis_frame_placement`), as a
        row-major 9-tuple and a 3-tuple."""
        R, p = axis_frame_placement(topology, params, i, q, SC)
        Pp = rotation_times(P, p[0], p[1], p[2])
        return rotation_product(P, R), (p_parent[0] + Pp[0], p_parent[1] + Pp[1], p_parent[2] + Pp[2])

    @compile
    def axis_frame_pose(topology, params, i, q, R0, p0, SC):
        """World pose of body i's axis frame from its parent's (row −1: the world), R0_i = R0_λ R_i and
        p0_i = p0_λ + R0_λ p_i (:func:`child_axis_frame_pose`), as a row-major 9-tuple and a 3-tuple."""
        lam = topology[i, PARENT]
        return child_axis_frame_pose(topology, params, i, q, rotation_row(R0, lam),
                                     (p0[lam, 0], p0[lam, 1], p0[lam, 2]), SC)

    @compile
    def placed_axis_frame(topology, params, i, q, R0, p0, SC):
        """:func:`axis_frame_pose` of body i, stored as R0[i] (3 × 3) and p0[i] too; returns it (R, p)."""
        R, p = axis_frame_pose(topology, params, i, q, R0, p0, SC)
        for r in range(3):
            p0[i, r] = p[r]
            for c in range(3):
                R0[i, r, c] = R[3 * r + c]
        return R, p

    @compile
    def world_frame_row(R0, p0):
        """Row −1 of the world poses of :func:`axis_frame_pose`: the world itself, R0 = 1 and p0 = 0."""
        for r in range(3):
            p0[-1, r] = 0.0
            for c in range(3):
                R0[-1, r, c] = 1.0 if r == c else 0.0

    @compile
    def world_origin_inertia(params, i, R, p):
        """(m, h, I): body i's rigid-body inertia about the world origin in world axes, compactly: mass m, first
        moment h = m c (c the mass center), rotational inertia I = R Ī Rᵀ + m [c]×ᵀ[c]× as (Ixx, Iyy, Izz, Ixy, Ixz,
        Iyz) (parallel axes, RBDA eq. 2.63); R, p the world pose of its axis frame, in which Ī (the central inertia)
        and the mass center are stored (:func:`~._layout.axis_frames`). A 10-tuple."""
        m = mass(params, i)
        I = rotated(axis_central_inertia(params, i), R)
        # c = p + R c_b
        cb0, cb1, cb2 = axis_mass_center(params, i)
        c0 = p[0] + R[0] * cb0 + R[1] * cb1 + R[2] * cb2
        c1 = p[1] + R[3] * cb0 + R[4] * cb1 + R[5] * cb2
        c2 = p[2] + R[6] * cb0 + R[7] * cb1 + R[8] * cb2
        cc = c0 * c0 + c1 * c1 + c2 * c2
        return (m, m * c0, m * c1, m * c2, I[0] + m * (cc - c0 * c0), I[4] + m * (cc - c1 * c1),
                I[8] + m * (cc - c2 * c2), I[1] - m * c0 * c1, I[2] - m * c0 * c2, I[5] - m * c1 * c2)

    @compile
    def inertia_about_world_origin(params, i, R, p, Y, k):
        """Y[k] = :func:`world_origin_inertia` of body i (R, p the world pose of its axis frame)."""
        Y[k, 0], Y[k, 1], Y[k, 2], Y[k, 3], Y[k, 4], Y[k, 5], Y[k, 6], Y[k, 7], Y[k, 8], Y[k, 9] = (
            world_origin_inertia(params, i, R, p))

    @compile
    def dot6(x, y):
        """xᵀ y for 6-tuples (a force on a motion: power)."""
        return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5]

    @compile
    def translated(m, dx, dy, dz):
        """X_d m = [ω; v + ω × d]: the motion m = [ω; v] (6-tuple) with its reference point moved by d, axes unchanged
        (RBDA eq. 2.24 with E = 1)."""
        return m[0], m[1], m[2], m[3] + m[1] * dz - m[2] * dy, m[4] + m[2] * dx - m[0] * dz, m[5] + m[0] * dy - m[1] * dx

    @compile
    def sum6(x, y):
        """x + y for 6-tuples."""
        return x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3], x[4] + y[4], x[5] + y[5]

    @compile
    def articulated_single_dof(IA, PA, s, c, tau, armature, revolute):
        """The articulation step of the ABA (RBDA Table 7.1) for a joint with one degree of freedom (motion
        subspace a single column s), on values in registers: the articulated inertia I^A (21-tuple,
        :func:`symmetric_row`), bias force p^A, s and the velocity-product acceleration c (6-tuples), the joint force
        τ and the joint's armature: U = I^A s ;  d = sᵀ U + armature ;  u = τ − sᵀ p^A ;
        p^a = p^A + I^A c + U (u − Uᵀ c) / d ;  I^a = I^A − U Uᵀ / d. A ``revolute`` joint's s = [ω; 0] (world axes at
        the body origin, which lies on the axis) takes the products with its angular half alone. Returns (I^a, p^a,
        U, d⁻¹, (u − Uᵀ c) / d), the last three for pass 3."""
        if revolute:  # U = [A ω; Bᵀ ω] ;  sᵀ x = ω · x_ω
            U = symmetric_product_angular(IA, s[0], s[1], s[2])
            sU = s[0] * U[0] + s[1] * U[1] + s[2] * U[2]
            sp = s[0] * PA[0] + s[1] * PA[1] + s[2] * PA[2]
        else:
            U = symmetric_product(IA, s)
            sU, sp = dot6(s, U), dot6(s, PA)
        Ic = symmetric_product(IA, c)
        dinv = 1.0 / (sU + armature)
        w = (tau - sp - dot6(U, c)) * dinv
        pa = (PA[0] + Ic[0] + U[0] * w, PA[1] + Ic[1] + U[1] * w, PA[2] + Ic[2] + U[2] * w,
              PA[3] + Ic[3] + U[3] * w, PA[4] + Ic[4] + U[4] * w, PA[5] + Ic[5] + U[5] * w)
        Ia = symmetric_minus_outer(IA, U, (U[0] * dinv, U[1] * dinv, U[2] * dinv, U[3] * dinv, U[4] * dinv,
                                           U[5] * dinv))
        return Ia, pa, U, dinv, w

    @compile
    def compact_inertia_in_world_axes(m, c, I, R):
        """A rigid body's inertia — mass m, mass center c (3-tuple) and rotational inertia I about its origin
        (row-major 9-tuple), both in the axes R (row-major 9-tuple) turns to world axes — about the same origin in
        world axes, compactly: (m, h, I') with h = m R c the first moment and I' = R I Rᵀ as (xx, yy, zz, xy, xz, yz)
        (RBDA eqs. 2.63, 2.66 with p = 0), the ten values :func:`rigid_inertia_times` takes first."""
        Iw = rotated(I, R)
        hx, hy, hz = rotation_times(R, m * c[0], m * c[1], m * c[2])
        return m, hx, hy, hz, Iw[0], Iw[4], Iw[8], Iw[1], Iw[2], Iw[5]

    @compile
    def rigid_inertia_in_world_axes(params, i, R, IA, k):
        """IA[k] = body i's spatial inertia about its origin in world axes, in 21-entry storage (:func:`symmetric_of`),
        R the world rotation of its axis frame (row-major 9-tuple) (:func:`compact_inertia_in_world_axes` of its
        mass, mass center and rotational inertia in axis-frame axes, :func:`~._layout.axis_frames`). Returns the
        same inertia compactly, (m, h, I) as :func:`rigid_inertia_times` takes it."""
        Y = compact_inertia_in_world_axes(mass(params, i), axis_mass_center(params, i), axis_inertia(params, i), R)
        set_symmetric_row(IA, k, symmetric_of(Y))
        return Y

    return SpatialFamily(sin_cos=sin_cos, sines_cosines=sines_cosines, quaternion_rotation=quaternion_rotation,
                         rodrigues=rodrigues, motion_to_child=motion_to_child, force_to_parent=force_to_parent,
                         row6=row6, cross_motion=cross_motion, cross_force=cross_force,
                         subspace_times=subspace_times, rigid_inertia_times=rigid_inertia_times,
                         inertia_times=inertia_times, rotation_product=rotation_product, rotated=rotated,
                         rotated_to_world=rotated_to_world,
                         subspace_column_in_world_axes=subspace_column_in_world_axes, symmetric_row=symmetric_row,
                         set_symmetric_row=set_symmetric_row, add_symmetric_row=add_symmetric_row,
                         symmetric_product=symmetric_product, symmetric_product_angular=symmetric_product_angular,
                         symmetric_minus_outer=symmetric_minus_outer, symmetric_shifted=symmetric_shifted,
                         force_shifted=force_shifted, symmetric_of=symmetric_of, joint_pose=joint_pose, placed=placed,
                         axis_inertia_times=axis_inertia_times, cross=cross,
                         rotation_times=rotation_times, axis_frame_placement=axis_frame_placement,
                         axis_frame_pose=axis_frame_pose, placed_axis_frame=placed_axis_frame,
                         world_frame_row=world_frame_row,
                         world_origin_inertia=world_origin_inertia,
                         inertia_about_world_origin=inertia_about_world_origin, dot6=dot6, translated=translated,
                         symmetric_sum=symmetric_sum, sum6=sum6,
                         articulated_single_dof=articulated_single_dof, rotation_row=rotation_row,
                         child_axis_frame_pose=child_axis_frame_pose,
                         compact_inertia_in_world_axes=compact_inertia_in_world_axes,
                         rigid_inertia_in_world_axes=rigid_inertia_in_world_axes, joints=joints, **vars(layout))
