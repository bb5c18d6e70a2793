"""Force elements: springs, dampers and joint friction that act in every simulation of the model they are added to.

Each element maps the state to generalized forces by the principle of virtual power (Kane's F_r = Σ v_r · R,
T. R. Kane, "A new method for formulating equations of motion" eq. 4): a force f applied at a point P gives Q = J_Pᵀ
f, with J_P the point's linear
Jacobian (3 × nv, world axes). Elements also report their elastic potential energy, so that
kinetic + gravitational + elastic energy is conserved when there is no damping.

The joint spring-damper and joint friction (:class:`JointSpring`, :class:`JointFriction`) are defined in
:mod:`multibody.model.joint_forces` and apply here with the rest. Add them with :meth:`multibody.Model.add_force`.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dynamics import body_pose, jacobian
from ..dynamics._spatial_kernels import body_velocities, local_poses, release, work, world_poses
from ..dynamics._spatial_kernels import njit_without_refcounts
from ..errors import ModelError, checked_number
from ..gyrostat import Gyrostat
from ..model.joint_forces import JointFriction, JointSpring, joint_force_rows
from ..model.part import ModelPart
from ..spatial import _as_vector3
from .actuators import Actuator, FixedTendon, actuation_force

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..model import Model


class Spring(ModelPart):
    """A linear spring-damper between point ``point_a`` of body ``a`` and point ``point_b`` of body ``b``.

    Tension T = k (L − L₀) + c L̇ along the line of the points, L = |p_b − p_a|; it pulls the points together
    when positive. Points are given in their body's frame [m]; a body may be "world" (point in world axes).

    Parameters
    ----------
    stiffness : k [N/m]; rest_length : L₀ [m]; damping : c [N·s/m] (a pure damper has k = 0).
    """

    kind = "spring"

    def __init__(self, a: str, point_a: ArrayLike, b: str, point_b: ArrayLike, stiffness: float,
                 rest_length: float = 0.0, damping: float = 0.0, name: str | None = None) -> None:
        self.a, self.b = a, b
        self.point_a = _as_vector3(point_a, "spring point_a")
        self.point_b = _as_vector3(point_b, "spring point_b")
        self.name = name or f"spring {a}-{b}"
        self.stiffness = checked_number(stiffness, f"{self.name}: stiffness", nonnegative=True)
        self.rest_length = checked_number(rest_length, f"{self.name}: rest_length", nonnegative=True)
        self.damping = checked_number(damping, f"{self.name}: damping", nonnegative=True)

    def check(self, model: Model) -> None:
        """Raise ModelError if a body name is unknown to ``model``."""
        for body in (self.a, self.b):
            if body != "world":
                model.body_index(body)

    def _point(self, model, q, body, point):
        """World position (3,) and linear Jacobian (3, nv) of a point fixed in ``body``."""
        if body == "world":
            return point, np.zeros((3, model.nv))
        R, p = body_pose(model, q, body)
        return p + R @ point, jacobian(model, q, body, point)[3:]

    def _geometry(self, model, q):
        pa, Ja = self._point(model, q, self.a, self.point_a)
        pb, Jb = self._point(model, q, self.b, self.point_b)
        return pb - pa, Jb - Ja

    def generalized_force(self, model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Q (nv,) = −T (J_b − J_a)ᵀ u, u the unit vector from a to b."""
        d, J = self._geometry(model, q)
        length = np.linalg.norm(d)
        if length == 0.0:
            if self.rest_length > 0.0:
                raise ValueError(f"{self.name}: the two points coincide, so the spring direction is undefined")
            return -(self.stiffness * d + self.damping * (J @ v)) @ J
        u = d / length
        tension = self.stiffness * (length - self.rest_length) + self.damping * (u @ (J @ v))
        return -tension * (u @ J)

    def potential_energy(self, model: Model, q: np.ndarray) -> float:
        """½ k (L − L₀)² [J]."""
        d, _ = self._geometry(model, q)
        return float(0.5 * self.stiffness * (np.linalg.norm(d) - self.rest_length) ** 2)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "name": self.name, "a": self.a, "point_a": self.point_a.tolist(),
                "b": self.b, "point_b": self.point_b.tolist(), "stiffness": self.stiffness,
                "rest_length": self.rest_length, "damping": self.damping}


@njit_without_refcounts(cache=True)
def add_joint_forces(joint_forces, q, v, tau):
    """tau += Q of the joint springs and friction given as rows (iq, iv, k, q₀, c, F_c, v_s)
    (:func:`joint_force_rows`): Q[iv] = −k (q[iq] − q₀) − c v[iv]
    − F_c tanh(v[iv]/v_s), the compiled twin of :meth:`JointSpring.generalized_force` and
    :meth:`JointFriction.generalized_force`."""
    for e in range(joint_forces.shape[0]):
        iq, iv = int(joint_forces[e, 0]), int(joint_forces[e, 1])
        force = -joint_forces[e, 2] * (q[iq] - joint_forces[e, 3]) - joint_forces[e, 4] * v[iv]
        if joint_forces[e, 5] > 0.0:
            force -= joint_forces[e, 5] * np.tanh(v[iv] / joint_forces[e, 6])
        tau[iv] += force


@njit_without_refcounts(cache=True)
def add_joint_force_slope(joint_forces, v, h, M):
    """M[iv, iv] += h (c + F_c/v_s sech²(v[iv]/v_s)) for the rows (iq, iv, k, q₀, c, F_c, v_s) of
    :func:`add_joint_forces`: h times the joint forces' slope −∂Q/∂q̇ (dampers and smoothed friction), which a
    linearly implicit Euler step (M + h D)(v⁺ − v) = h (τ − c) takes into its matrix, so that neither a stiff damper
    nor the friction's slope F_c/v_s at rest limits the step. True when it added anything."""
    added = False
    for e in range(joint_forces.shape[0]):
        iv = int(joint_forces[e, 1])
        slope = joint_forces[e, 4]
        if joint_forces[e, 5] > 0.0:
            t = np.tanh(v[iv] / joint_forces[e, 6])
            slope += joint_forces[e, 5] / joint_forces[e, 6] * (1.0 - t * t)
        if slope != 0.0:
            M[iv, iv] += h * slope
            added = True
    return added


@njit_without_refcounts(cache=True)
def element_body_forces(topology, params, springs, rotors, q, v, f_ext):
    """f_ext (n, 6) = the forces of the springs and spinning rotors given as rows (:func:`body_force_rows`) on the
    bodies, each [moment; force] in body axes about the body origin (as the ABA takes them): the compiled twins
    of :meth:`Spring.generalized_force` and :meth:`~multibody.Gyrostat.generalized_force` (Q = Σ Jᵀ f).

    A spring (a, b, r_a (3), r_b (3), k, L₀, c): tension T = k (L − L₀) + c L̇ along u = (P_b − P_a) / L; the
    force −T u acts at P_b, +T u at P_a (points at rest in the world for body −1). Points that coincide with
    L₀ > 0 give NaN forces (no direction). A rotor (carrier, c (3), J Ω): the moment n = −J Ω ω × c on its
    carrier (Kane eq. 12 at constant spin; ω and c in carrier axes)."""
    n = topology.shape[0]
    R, p, R0, p0, V = work((n, 3, 3)), work((n, 3)), work((n, 3, 3)), work((n, 3)), work((n + 1, 6))
    local_poses(topology, params, q, R, p)
    world_poses(topology, params, q, R0, p0)
    body_velocities(topology, params, R, p, v, V)
    f_ext[:] = 0.0
    for e in range(rotors.shape[0]):
        i, h = int(rotors[e, 0]), rotors[e, 4]
        c0, c1, c2 = rotors[e, 1], rotors[e, 2], rotors[e, 3]
        f_ext[i, 0] -= h * (V[i, 1] * c2 - V[i, 2] * c1)
        f_ext[i, 1] -= h * (V[i, 2] * c0 - V[i, 0] * c2)
        f_ext[i, 2] -= h * (V[i, 0] * c1 - V[i, 1] * c0)
    for e in range(springs.shape[0]):
        Pa, va = spring_end(springs, e, 0, R0, p0, V)
        Pb, vb = spring_end(springs, e, 1, R0, p0, V)
        d0, d1, d2 = Pb[0] - Pa[0], Pb[1] - Pa[1], Pb[2] - Pa[2]
        w0, w1, w2 = vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]
        stiffness, rest, damping = springs[e, 8], springs[e, 9], springs[e, 10]
        length = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
        if length > 0.0:
            u0, u1, u2 = d0 / length, d1 / length, d2 / length
            tension = stiffness * (length - rest) + damping * (u0 * w0 + u1 * w1 + u2 * w2)
            force = (-tension * u0, -tension * u1, -tension * u2)
        elif rest > 0.0:
            force = (np.nan, np.nan, np.nan)
        else:  # (as Spring.generalized_force: −(k d + c ḋ) with d = 0)
            force = (-(stiffness * d0 + damping * w0), -(stiffness * d1 + damping * w1),
                     -(stiffness * d2 + damping * w2))
        push_at_end(f_ext, springs, e, 1, R0, force)
        push_at_end(f_ext, springs, e, 0, R0, (-force[0], -force[1], -force[2]))
    release((R, p, R0, p0, V))


@njit_without_refcounts(cache=True, inline="always")
def spring_end(springs, e, end, R0, p0, V):
    """World position P = p0 + R0 r and velocity v_P = R0 (v_O + ω × r) of end 0 (a) or 1 (b) of spring row e
    (V: body velocities in body axes), as two 3-tuples; a world point (body −1) is at rest."""
    i, k = int(springs[e, end]), 2 + 3 * end
    r0, r1, r2 = springs[e, k], springs[e, k + 1], springs[e, k + 2]
    if i < 0:
        return (r0, r1, r2), (0.0, 0.0, 0.0)
    w0, w1, w2, o0, o1, o2 = V[i, 0], V[i, 1], V[i, 2], V[i, 3], V[i, 4], V[i, 5]
    m0, m1, m2 = o0 + w1 * r2 - w2 * r1, o1 + w2 * r0 - w0 * r2, o2 + w0 * r1 - w1 * r0
    return ((p0[i, 0] + R0[i, 0, 0] * r0 + R0[i, 0, 1] * r1 + R0[i, 0, 2] * r2,
             p0[i, 1] + R0[i, 1, 0] * r0 + R0[i, 1, 1] * r1 + R0[i, 1, 2] * r2,
             p0[i, 2] + R0[i, 2, 0] * r0 + R0[i, 2, 1] * r1 + R0[i, 2, 2] * r2),
            (R0[i, 0, 0] * m0 + R0[i, 0, 1] * m1 + R0[i, 0, 2] * m2,
             R0[i, 1, 0] * m0 + R0[i, 1, 1] * m1 + R0[i, 1, 2] * m2,
             R0[i, 2, 0] * m0 + R0[i, 2, 1] * m1 + R0[i, 2, 2] * m2))


@njit_without_refcounts(cache=True, inline="always")
def push_at_end(f_ext, springs, e, end, R0, force):
    """f_ext[i] += [r × f; f], f = R0ᵀ force: a world force acting at end ``end`` of spring row e (body i, point r
    in body axes), as a body force (body axes, about the body origin); nothing for a world point."""
    i, k = int(springs[e, end]), 2 + 3 * end
    if i < 0:
        return
    r0, r1, r2 = springs[e, k], springs[e, k + 1], springs[e, k + 2]
    f0 = R0[i, 0, 0] * force[0] + R0[i, 1, 0] * force[1] + R0[i, 2, 0] * force[2]
    f1 = R0[i, 0, 1] * force[0] + R0[i, 1, 1] * force[1] + R0[i, 2, 1] * force[2]
    f2 = R0[i, 0, 2] * force[0] + R0[i, 1, 2] * force[1] + R0[i, 2, 2] * force[2]
    f_ext[i, 0] += r1 * f2 - r2 * f1
    f_ext[i, 1] += r2 * f0 - r0 * f2
    f_ext[i, 2] += r0 * f1 - r1 * f0
    f_ext[i, 3] += f0
    f_ext[i, 4] += f1
    f_ext[i, 5] += f2


def body_force_rows(model):
    """(springs (s, 11), rotors (g, 5)): the model's :class:`Spring` elements as rows (a, b, r_a (3), r_b (3), k,
    L₀, c), a and b body indices (−1 for the world, its point in world coordinates), and its gyrostats with a
    constant spin as rows (carrier, c (3), J Ω), for :func:`element_body_forces`. Found once per compiled model
    (``CompiledModel.derived``, dropped by any edit of the model or its elements)."""
    derived = (model._compiled or model.compile()).derived
    if "body_forces" not in derived:
        elements = getattr(model, "forces", ())
        springs = [(-1 if e.a == "world" else model.body_index(e.a), -1 if e.b == "world" else model.body_index(e.b),
                    *e.point_a, *e.point_b, e.stiffness, e.rest_length, e.damping)
                   for e in elements if isinstance(e, Spring)]
        rotors = [(model.body_index(e.carrier), *e.axis, e.polar_inertia * e.spin)
                  for e in elements if isinstance(e, Gyrostat)]
        derived["body_forces"] = (np.array(springs, dtype=float).reshape(len(springs), 11),
                                  np.array(rotors, dtype=float).reshape(len(rotors), 5))
    return derived["body_forces"]


FORCE_TYPES = {cls.kind: cls for cls in (Spring, JointSpring, JointFriction, Gyrostat, FixedTendon, Actuator)}
COMPILED = (JointSpring, JointFriction, Spring, Gyrostat, FixedTendon, Actuator)  # those the compiled loop applies


def elements_force(model, q, v, ctrl=None):
    """Σ Q of the model's force elements (nv,): the joint springs and friction in one compiled call
    (:func:`add_joint_forces`: a Python call per element was a tenth of a contact step of the dm_control cheetah),
    the fixed tendons and the actuators at controls ``ctrl`` (nu,) (None: zero) in another
    (:func:`multibody.simulate.actuators.add_actuation`, the compiled loop's), the others by their
    ``generalized_force``."""
    rows, others = joint_force_rows(model)
    Q = np.zeros(model.nv)
    if rows.shape[0]:
        add_joint_forces(rows, np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float), Q)
    actuation = False
    for element in others:
        if isinstance(element, (FixedTendon, Actuator)):
            actuation = True
        else:
            Q += element.generalized_force(model, q, v)
    if actuation or ctrl is not None:
        Q += actuation_force(model, q, v, ctrl)
    return Q


def elements_force_derivatives(model, q, v, eps=1e-6):
    """(∂Q/∂q, ∂Q/∂v), each (nv, nv), of the force elements' generalized force :func:`elements_force`, ∂/∂q in the
    local coordinates of :func:`multibody.integrate`. Joint springs and friction exactly: ∂Q/∂q = −k and
    ∂Q/∂q̇ = −c − (F_c / v_s) (1 − tanh²(q̇ / v_s)) on their diagonal entries. The other elements (point-to-point
    springs, gyrostats, tendons, actuators at zero control), whose forces go through body Jacobians or joint
    couplings, by central differences of step ``eps`` of their generalized forces (round-off and truncation ~1e-8 of
    their scale), with a RuntimeWarning naming them."""
    from ..dynamics import integrate
    rows, others = joint_force_rows(model)
    nv = model.nv
    dq, dv = np.zeros((nv, nv)), np.zeros((nv, nv))
    for iq, iv, k, _, c, friction, scale in rows:
        iq, iv = int(iq), int(iv)
        dq[iv, iv] -= k
        dv[iv, iv] -= c + (friction / scale * (1.0 - np.tanh(v[iv] / scale) ** 2) if friction > 0.0 else 0.0)
    if others:
        warnings.warn(f"derivatives of '{model.name}': the force elements {[e.name for e in others]} are "
                      f"differentiated by central differences of step {eps:g} (error ~1e-8 of their scale); the rest "
                      f"is exact", RuntimeWarning, stacklevel=3)

        def force(qq, vv):  # Q of the other elements: all of them less the joint springs and friction
            joints = np.zeros(nv)
            if rows.shape[0]:
                add_joint_forces(rows, np.ascontiguousarray(qq, dtype=float), np.ascontiguousarray(vv, dtype=float),
                                 joints)
            return elements_force(model, qq, vv) - joints
        for j in range(nv):
            step = np.zeros(nv)
            step[j] = eps
            dq[:, j] += (force(integrate(model, q, step), v) - force(integrate(model, q, -step), v)) / (2 * eps)
            dv[:, j] += (force(q, v + step) - force(q, v - step)) / (2 * eps)
    return dq, dv


def elastic_energy(model, q):
    """Σ potential energy of the model's force elements [J]."""
    return float(sum(element.potential_energy(model, q) for element in getattr(model, "forces", ())))
