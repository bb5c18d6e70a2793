"""Compiled motion on the configuration manifold: q̇ from v, and q ⊕ v dt joint by joint, written once for every
target (:func:`configuration_family`, as :mod:`._spatial_family`); the CPU's members under their usual names."""
import math
from types import SimpleNamespace

from numba import njit

from ..model.joints import CYLINDRICAL, FREE, PLANAR, PRISMATIC, REVOLUTE, SPHERICAL
from ._layout import IQ, IV, JTYPE, NQJ
from ._spatial_kernels import CPU, inline


class ConfigurationFamily(SimpleNamespace):
    """The members of :func:`configuration_family`, compiled for one target, as attributes."""


def configuration_family(compile, spatial):
    """q̇ from v, q ⊕ v dt and the quaternions' normalization compiled with ``compile`` (the decorator ``spatial``,
    a :func:`~._spatial_family.spatial_family`, was compiled with); returned as a :class:`ConfigurationFamily`."""
    quaternion_rotation = spatial.quaternion_rotation

    @compile
    def quaternion_product(a0, a1, a2, a3, b0, b1, b2, b3, out, off):
        """out[off:off+4] = a ⊗ b (Hamilton product, (w, x, y, z))."""
        out[off] = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
        out[off + 1] = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
        out[off + 2] = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
        out[off + 3] = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0

    @compile
    def configuration_rate(topology, q, v, qdot):
        """q̇ from v joint by joint: q̇ = v for scalar joints; quaternion rate ½ q ⊗ (0, ω) with ω in child axes;
        free-joint position rate R(q) v_origin; planar (ẋ, ẏ) = Rz(θ)(vx, vy)."""
        for i in range(topology.shape[0]):
            jt, iq, iv = topology[i, JTYPE], topology[i, IQ], topology[i, IV]
            if jt == REVOLUTE or jt == PRISMATIC:
                qdot[iq] = v[iv]
            elif jt == CYLINDRICAL:
                qdot[iq], qdot[iq + 1] = v[iv], v[iv + 1]
            elif jt == SPHERICAL or jt == FREE:
                o = iq + 3 if jt == FREE else iq
                quaternion_product(q[o], q[o + 1], q[o + 2], q[o + 3], 0.0, v[iv], v[iv + 1], v[iv + 2], qdot, o)
                for k in range(4):
                    qdot[o + k] *= 0.5
                if jt == FREE:
                    Rq = quaternion_rotation(q, o)
                    for r in range(3):
                        qdot[iq + r] = Rq[3 * r] * v[iv + 3] + Rq[3 * r + 1] * v[iv + 4] + Rq[3 * r + 2] * v[iv + 5]
            elif jt == PLANAR:
                c, s = math.cos(q[iq + 2]), math.sin(q[iq + 2])
                qdot[iq] = c * v[iv] - s * v[iv + 1]
                qdot[iq + 1] = s * v[iv] + c * v[iv + 1]
                qdot[iq + 2] = v[iv + 2]

    @compile
    def so3_exp_quaternion(wx, wy, wz):
        """Quaternion of the rotation vector φ = (wx, wy, wz): (cos |φ|/2, sin(|φ|/2) φ/|φ|), as a 4-tuple."""
        theta = math.sqrt(wx * wx + wy * wy + wz * wz)
        half = 0.5 * theta
        k = 0.5 - theta * theta / 48.0 if theta < 1e-6 else math.sin(half) / theta
        return math.cos(half), k * wx, k * wy, k * wz

    @compile
    def integrate(topology, q, v, dt, q_out):
        """q_out = q ⊕ v dt: the configuration reached moving at constant velocity v for dt [s].

        Exact on each joint manifold: R⁺ = R exp([ω dt]) for rotations (quaternions renormalized), and for the
        free and planar joints the body-frame twist is integrated on SE(3) / SE(2):
        p⁺ = p + R V(ω dt) v dt with V(φ) = I + (1 − cos θ)/θ² [φ]× + (θ − sin θ)/θ³ [φ]×².
        """
        for i in range(topology.shape[0]):
            jt, iq, iv = topology[i, JTYPE], topology[i, IQ], topology[i, IV]
            if jt == REVOLUTE or jt == PRISMATIC or jt == CYLINDRICAL:
                for k in range(topology[i, NQJ]):
                    q_out[iq + k] = q[iq + k] + v[iv + k] * dt
            elif jt == SPHERICAL or jt == FREE:
                o = iq + 3 if jt == FREE else iq
                w = iv  # ω comes first in v for both (FREE: v = [ω; v_origin])
                phx, phy, phz = v[w] * dt, v[w + 1] * dt, v[w + 2] * dt
                if jt == FREE:
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
                d0, d1, d2, d3 = so3_exp_quaternion(phx, phy, phz)
                quaternion_product(q[o], q[o + 1], q[o + 2], q[o + 3], d0, d1, d2, d3, q_out, o)
                norm = math.sqrt(q_out[o] ** 2 + q_out[o + 1] ** 2 + q_out[o + 2] ** 2 + q_out[o + 3] ** 2)
                for k in range(4):
                    q_out[o + k] /= norm
            elif jt == PLANAR:
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

    @compile
    def normalize_quaternions(topology, x):
        """Scale the quaternion of every spherical and free joint in x[:nq] to unit length."""
        for i in range(topology.shape[0]):
            jt = topology[i, JTYPE]
            if jt == SPHERICAL or jt == FREE:
                o = topology[i, IQ] + (3 if jt == FREE else 0)
                norm = math.sqrt(x[o] ** 2 + x[o + 1] ** 2 + x[o + 2] ** 2 + x[o + 3] ** 2)
                for k in range(4):
                    x[o + k] /= norm

    return ConfigurationFamily(quaternion_product=quaternion_product, configuration_rate=configuration_rate,
                               so3_exp_quaternion=so3_exp_quaternion, integrate=integrate,
                               normalize_quaternions=normalize_quaternions)


CPU_CONFIGURATION = configuration_family(inline, CPU)
configuration_rate = CPU_CONFIGURATION.configuration_rate
integrate = CPU_CONFIGURATION.integrate
normalize_quaternions = CPU_CONFIGURATION.normalize_quaternions


# Entry points for calls from Python, compiled into numba's cache: a member of a family, made inside its factory,
# is compiled afresh in each process when Python calls it directly.


@njit(cache=True)
def configuration_rate_of_state(topology, q, v, qdot):
    """qdot[:] = q̇ of one state (the family's :func:`configuration_rate`)."""
    configuration_rate(topology, q, v, qdot)


@njit(cache=True)
def integrate_state(topology, q, v, dt, q_out):
    """q_out[:] = q ⊕ v dt of one state (the family's :func:`integrate`)."""
    integrate(topology, q, v, dt, q_out)
