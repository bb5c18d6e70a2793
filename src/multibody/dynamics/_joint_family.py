"""The compiled half of the joint types (:mod:`multibody.model.joints` holds the Python half), written once for every
target: :func:`joint_family` takes a decorator and returns the members compiled with it (as
:mod:`._spatial_family`, which builds them into its family). One section per joint type — its pose in the joint
frame (RBDA Table 4.1), q̇ from v, q ⊕ v dt on its configuration manifold — then the one dispatch on the type code:
:func:`joint_pose`, :func:`configuration_rate`, :func:`integrate`, :func:`normalize_quaternions`, and the questions
the algorithms' fast paths ask of a type code instead of testing it themselves: :func:`rotates_about_its_axis`,
:func:`slides_along_its_axis` (compiled inline, they fold to the one comparison). Each type's members
take the state arrays and the joint's first entries iq of q and iv of v; poses are a rotation R_J (child axes →
joint axes) as a row-major 9-tuple and an origin p_J as a 3-tuple. Layout of the arrays: :mod:`._layout`.
"""
import math
from types import SimpleNamespace

import numpy as np

from ..model.joints import CYLINDRICAL, FREE, PLANAR, PRISMATIC, REVOLUTE, SPHERICAL
from ._layout import IQ, IV, JTYPE, NQJ

IDENTITY, ORIGIN = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0)


class JointFamily(SimpleNamespace):
    """The members of :func:`joint_family`, compiled for one target, as attributes."""


def joint_family(compile, layout):
    """The joint types' compiled functions, compiled with ``compile`` (``njit(inline="always")`` for the CPU,
    ``cuda.jit(device=True)`` for the GPU; ``layout``: the readers of the parameters, :func:`~._layout.accessors`,
    compiled with it), returned as a :class:`JointFamily`."""
    joint_axis = layout.joint_axis

    # --- Rotations ------------------------------------------------------------------------------------------------

    @compile
    def rodrigues(ax, ay, az, s, c):
        """R = I + sin θ [a]× + (1 − cos θ) [a]×² for a unit axis a, from s = sin θ and c = cos θ, as a row-major
        9-tuple."""
        t = 1.0 - c
        return (c + t * ax * ax, t * ax * ay - s * az, t * ax * az + s * ay,
                t * ax * ay + s * az, c + t * ay * ay, t * ay * az - s * ax,
                t * ax * az - s * ay, t * ay * az + s * ax, c + t * az * az)

    @compile
    def quaternion_rotation(q, o):
        """The rotation matrix of the quaternion q[o:o+4] = (w, x, y, z) as a row-major 9-tuple, normalized here so
        round-off in q does not scale it. A zero quaternion, or one whose squared norm overflows, gives NaN (which
        the callers' guard reports, naming the joint) rather than a division by zero or a wrong rotation."""
        w, x, y, z = q[o], q[o + 1], q[o + 2], q[o + 3]
        square = w * w + x * x + y * y + z * z
        s = 1.0 / math.sqrt(square) if 0.0 < square < np.inf else np.nan
        w, x, y, z = w * s, x * s, y * s, z * s
        return (1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))

    # --- Unit quaternions (w, x, y, z), of the spherical and free joints -------------------------------------------

    @compile
    def quaternion_product(a0, a1, a2, a3, b0, b1, b2, b3, out, off):
        """out[off:off+4] = a ⊗ b (Hamilton product, (w, x, y, z))."""
        out[off] = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
        out[off + 1] = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
        out[off + 2] = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
        out[off + 3] = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0

    @compile
    def normalize_quaternion(x, o):
        """x[o:o+4] /= |x[o:o+4]|."""
        norm = math.sqrt(x[o] ** 2 + x[o + 1] ** 2 + x[o + 2] ** 2 + x[o + 3] ** 2)
        for k in range(4):
            x[o + k] /= norm

    @compile
    def so3_exp_quaternion(wx, wy, wz):
        """Quaternion of the rotation vector φ = (wx, wy, wz): (cos |φ|/2, sin(|φ|/2) φ/|φ|), as a 4-tuple."""
        theta = math.sqrt(wx * wx + wy * wy + wz * wz)
        half = 0.5 * theta
        k = 0.5 - theta * theta / 48.0 if theta < 1e-6 else math.sin(half) / theta
        return math.cos(half), k * wx, k * wy, k * wz

    @compile
    def quaternion_rate(q, o, v, w, qdot):
        """qdot[o:o+4] = ½ q ⊗ (0, ω) for the quaternion q[o:o+4] and ω = v[w:w+3] in child axes."""
        quaternion_product(q[o], q[o + 1], q[o + 2], q[o + 3], 0.0, v[w], v[w + 1], v[w + 2], qdot, o)
        for k in range(4):
            qdot[o + k] *= 0.5

    @compile
    def quaternion_integrate(q, o, v, w, dt, q_out):
        """q_out[o:o+4] = q ⊗ exp(ω dt) (R⁺ = R exp([ω dt]×)), renormalized, for ω = v[w:w+3] in child axes."""
        d0, d1, d2, d3 = so3_exp_quaternion(v[w] * dt, v[w + 1] * dt, v[w + 2] * dt)
        quaternion_product(q[o], q[o + 1], q[o + 2], q[o + 3], d0, d1, d2, d3, q_out, o)
        normalize_quaternion(q_out, o)

    # --- Revolute, prismatic, cylindrical: q a vector of angles and lengths about and along the axis a, q̇ = v ------

    @compile
    def revolute_pose(params, i, q, iq):
        """R_J = exp([a]× θ), p_J = 0."""
        ax, ay, az = joint_axis(params, i)
        return rodrigues(ax, ay, az, math.sin(q[iq]), math.cos(q[iq])), ORIGIN

    @compile
    def prismatic_pose(params, i, q, iq):
        """R_J = 1, p_J = a d."""
        ax, ay, az = joint_axis(params, i)
        return IDENTITY, (ax * q[iq], ay * q[iq], az * q[iq])

    @compile
    def cylindrical_pose(params, i, q, iq):
        """R_J = exp([a]× θ), p_J = a d for q = (θ, d)."""
        ax, ay, az = joint_axis(params, i)
        return rodrigues(ax, ay, az, math.sin(q[iq]), math.cos(q[iq])), (ax * q[iq + 1], ay * q[iq + 1], az * q[iq + 1])

    @compile
    def vector_rate(v, iq, iv, nq, qdot):
        """q̇ = v."""
        for k in range(nq):
            qdot[iq + k] = v[iv + k]

    @compile
    def vector_integrate(q, v, iq, iv, nq, dt, q_out):
        """q⁺ = q + v dt."""
        for k in range(nq):
            q_out[iq + k] = q[iq + k] + v[iv + k] * dt

    # --- Spherical: q a unit quaternion, v = ω in child axes (rates: :func:`quaternion_rate`, :func:`quaternion_integrate`)

    @compile
    def spherical_pose(q, iq):
        """R_J = R(q), p_J = 0."""
        return quaternion_rotation(q, iq), ORIGIN

    # --- Free: q = (position, quaternion), v = [ω; v_origin] in child axes ---------------------------------------

    @compile
    def free_pose(q, iq):
        """R_J = R(q[iq+3:iq+7]), p_J = q[iq:iq+3]."""
        return quaternion_rotation(q, iq + 3), (q[iq], q[iq + 1], q[iq + 2])

    @compile
    def free_rate(q, v, iq, iv, qdot):
        """Quaternion rate ½ q ⊗ (0, ω); position rate R(q) v_origin."""
        o = iq + 3
        quaternion_rate(q, o, v, iv, qdot)
        Rq = quaternion_rotation(q, o)
        for r in range(3):
            qdot[iq + r] = Rq[3 * r] * v[iv + 3] + Rq[3 * r + 1] * v[iv + 4] + Rq[3 * r + 2] * v[iv + 5]

    @compile
    def free_integrate(q, v, iq, iv, dt, q_out):
        """The body-frame twist integrated on SE(3): p⁺ = p + R V(ω dt) v dt with
        V(φ) = I + (1 − cos θ)/θ² [φ]× + (θ − sin θ)/θ³ [φ]×², R⁺ = R exp([ω dt]×)."""
        o = iq + 3
        phx, phy, phz = v[iv] * dt, v[iv + 1] * dt, v[iv + 2] * dt
        Rq = quaternion_rotation(q, o)
        theta2 = phx * phx + phy * phy + phz * phz
        theta = math.sqrt(theta2)
        if theta < 1e-6:
            a_coef, b_coef = 0.5 - theta2 / 24.0, 1.0 / 6.0 - theta2 / 120.0
        else:
            a_coef = (1.0 - math.cos(theta)) / theta2
            b_coef = (theta - math.sin(theta)) / (theta2 * theta)
        lx, ly, lz = v[iv + 3] * dt, v[iv + 4] * dt, v[iv + 5] * dt
        # c1 = φ × l, c2 = φ × c1
        c1x, c1y, c1z = phy * lz - phz * ly, phz * lx - phx * lz, phx * ly - phy * lx
        c2x, c2y, c2z = phy * c1z - phz * c1y, phz * c1x - phx * c1z, phx * c1y - phy * c1x
        dx = lx + a_coef * c1x + b_coef * c2x
        dy = ly + a_coef * c1y + b_coef * c2y
        dz = lz + a_coef * c1z + b_coef * c2z
        for r in range(3):
            q_out[iq + r] = q[iq + r] + Rq[3 * r] * dx + Rq[3 * r + 1] * dy + Rq[3 * r + 2] * dz
        quaternion_integrate(q, o, v, iv, dt, q_out)

    # --- Planar: q = (x, y, θ), v = (vx, vy, ω) with (vx, vy) in child axes ---------------------------------------

    @compile
    def planar_pose(q, iq):
        """R_J = R_z(θ), p_J = (x, y, 0)."""
        return rodrigues(0.0, 0.0, 1.0, math.sin(q[iq + 2]), math.cos(q[iq + 2])), (q[iq], q[iq + 1], 0.0)

    @compile
    def planar_rate(q, v, iq, iv, qdot):
        """(ẋ, ẏ) = R_z(θ) (vx, vy), θ̇ = ω."""
        c, s = math.cos(q[iq + 2]), math.sin(q[iq + 2])
        qdot[iq] = c * v[iv] - s * v[iv + 1]
        qdot[iq + 1] = s * v[iv] + c * v[iv + 1]
        qdot[iq + 2] = v[iv + 2]

    @compile
    def planar_integrate(q, v, iq, iv, dt, q_out):
        """The body-frame twist integrated on SE(2): (x, y)⁺ = (x, y) + R_z(θ) V(ω dt) (vx, vy) dt with
        V(φ) = [[sin φ/φ, −(1 − cos φ)/φ], [(1 − cos φ)/φ, sin φ/φ]], θ⁺ = θ + ω dt."""
        th = v[iv + 2] * dt
        lx, ly = v[iv] * dt, v[iv + 1] * dt
        if abs(th) < 1e-6:
            s_coef, c_coef = 1.0 - th * th / 6.0, th / 2.0
        else:
            s_coef, c_coef = math.sin(th) / th, (1.0 - math.cos(th)) / th
        dx = s_coef * lx - c_coef * ly
        dy = c_coef * lx + s_coef * ly
        c, s = math.cos(q[iq + 2]), math.sin(q[iq + 2])
        q_out[iq] = q[iq] + c * dx - s * dy
        q_out[iq + 1] = q[iq + 1] + s * dx + c * dy
        q_out[iq + 2] = q[iq + 2] + th

    # --- The dispatch on the type code (fixed joints: nothing to do) ----------------------------------------------

    @compile
    def rotates_about_its_axis(jtype):
        """Whether the joint's one motion is a rotation θ about its axis (revolute): its axis frame's z is the
        axis, its pose there R_z(θ) and its motion subspace e_z, which the speed paths use without the dispatch."""
        return jtype == REVOLUTE

    @compile
    def slides_along_its_axis(jtype):
        """Whether the joint's one motion is a translation d along its axis (prismatic): its pose p_J = d a."""
        return jtype == PRISMATIC

    @compile
    def joint_pose(jtype, params, i, q, iq):
        """Pose of the child body in the joint frame (each type's ``*_pose``)."""
        if jtype == REVOLUTE:
            return revolute_pose(params, i, q, iq)
        if jtype == PRISMATIC:
            return prismatic_pose(params, i, q, iq)
        if jtype == CYLINDRICAL:
            return cylindrical_pose(params, i, q, iq)
        if jtype == SPHERICAL:
            return spherical_pose(q, iq)
        if jtype == FREE:
            return free_pose(q, iq)
        if jtype == PLANAR:
            return planar_pose(q, iq)
        return IDENTITY, ORIGIN

    @compile
    def configuration_rate(topology, q, v, qdot):
        """q̇ from v joint by joint (each type's ``*_rate``)."""
        for i in range(topology.shape[0]):
            jt, iq, iv = topology[i, JTYPE], topology[i, IQ], topology[i, IV]
            if jt == REVOLUTE or jt == PRISMATIC or jt == CYLINDRICAL:
                vector_rate(v, iq, iv, topology[i, NQJ], qdot)
            elif jt == SPHERICAL:
                quaternion_rate(q, iq, v, iv, qdot)
            elif jt == FREE:
                free_rate(q, v, iq, iv, qdot)
            elif jt == PLANAR:
                planar_rate(q, v, iq, iv, qdot)

    @compile
    def integrate(topology, q, v, dt, q_out):
        """q_out = q ⊕ v dt: the configuration reached moving at constant velocity v for dt [s], exact on each
        joint's manifold (each type's ``*_integrate``)."""
        for i in range(topology.shape[0]):
            jt, iq, iv = topology[i, JTYPE], topology[i, IQ], topology[i, IV]
            if jt == REVOLUTE or jt == PRISMATIC or jt == CYLINDRICAL:
                vector_integrate(q, v, iq, iv, topology[i, NQJ], dt, q_out)
            elif jt == SPHERICAL:
                quaternion_integrate(q, iq, v, iv, dt, q_out)
            elif jt == FREE:
                free_integrate(q, v, iq, iv, dt, q_out)
            elif jt == PLANAR:
                planar_integrate(q, v, iq, iv, dt, q_out)

    @compile
    def normalize_quaternions(topology, x):
        """Scale the quaternion of every spherical and free joint in x[:nq] to unit length."""
        for i in range(topology.shape[0]):
            jt = topology[i, JTYPE]
            if jt == SPHERICAL:
                normalize_quaternion(x, topology[i, IQ])
            elif jt == FREE:
                normalize_quaternion(x, topology[i, IQ] + 3)

    return JointFamily(rodrigues=rodrigues, quaternion_rotation=quaternion_rotation,
                       quaternion_product=quaternion_product, normalize_quaternion=normalize_quaternion,
                       so3_exp_quaternion=so3_exp_quaternion, quaternion_rate=quaternion_rate,
                       quaternion_integrate=quaternion_integrate, revolute_pose=revolute_pose,
                       prismatic_pose=prismatic_pose, cylindrical_pose=cylindrical_pose, vector_rate=vector_rate,
                       vector_integrate=vector_integrate, spherical_pose=spherical_pose, free_pose=free_pose,
                       free_rate=free_rate, free_integrate=free_integrate, planar_pose=planar_pose,
                       planar_rate=planar_rate, planar_integrate=planar_integrate, joint_pose=joint_pose,
                       rotates_about_its_axis=rotates_about_its_axis, slides_along_its_axis=slides_along_its_axis,
                       configuration_rate=configuration_rate, integrate=integrate,
                       normalize_quaternions=normalize_quaternions)
