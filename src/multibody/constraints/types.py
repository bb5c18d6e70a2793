"""Constraint types: loop closures, point-on-plane, rolling, knife edge, mimic joints, joint and tendon limits
(user rows, :class:`Holonomic` and :class:`Nonholonomic`, are in :mod:`.user`).

Every constraint contributes m rows at a state (q, v), all in world axes (see :class:`Rows`):

    position level    φ(q) = 0                (holonomic rows only; nonholonomic rows report 0)
    velocity level    J(q) v = b(q)
    acceleration      J(q) v̇ = γ(q, v)         with γ = ḃ − J̇ v

Body names may be bodies, named frames (``Model.add_frame``) or ``"world"``. Points and axes are given in the
coordinates of that body or frame [m]. Equations follow Mukharlyamov, "Equations of motion of mechanical systems in
matrix form" (B(q) q̇ + b = 0 in matrix form) and
the derivative identities ṙ = ω × r for vectors fixed in a body.

The built-in types describe themselves with ``to_dict()`` (the ``constraints`` entries of a model file,
docs/files.md; :data:`CONSTRAINT_TYPES` maps the ``type`` key back to the class). User callables
(:class:`Holonomic`, :class:`Nonholonomic`) cannot be written to a file.

:class:`~.bounds.JointLimit` and :class:`~.bounds.TendonLimit` (:mod:`.bounds`) are the unilateral types: they
have no equality rows (``unilateral = True``, empty :class:`Rows`); forward dynamics and :func:`multibody.simulate`
treat their bounds as inequalities (:mod:`.limits`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple

import numpy as np

from ..errors import ModelError, checked_number
from ..spatial import Transform, _as_vector3
from ._equality_rows import ALIGN, CONNECT, CONSTANT, PLANE, SIZES, WELD
from ._equality_rows import rotation_vector as compiled_rotation_vector
from ._kinematics import cross
# (_perpendicular_pairs and _perpendicular_pair: also for .contact and multibody.impact, which take them from here)
from ._vectors import _dot, _perpendicular_pair, _perpendicular_pairs, _rim_direction, _unit  # noqa: F401
from .geometry import placement_to_dict

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..model import Model
    from ._kinematics import Snapshot


class Rows(NamedTuple):
    """Constraint rows at one state: φ (m,), J (m, nv), b (m,), γ (m,), holonomic (m,) bool."""

    phi: np.ndarray
    J: np.ndarray
    b: np.ndarray
    gamma: np.ndarray
    holonomic: np.ndarray


class SymbolicRows(NamedTuple):
    """Constraint rows as sympy expressions: ``position`` φ(q) (holonomic rows, = 0) and ``velocity`` (nonholonomic
    rows A(q) u − b(q), = 0, linear in the speeds); either may be empty."""

    position: list
    velocity: list


class Constraint:
    """Base class. Subclasses set ``size`` and implement ``rows(snapshot, located)``."""

    size = 0

    def __init__(self, bodies: tuple[str, ...], name: str | None = None) -> None:
        self.bodies = tuple(bodies)
        self.name = name

    def check(self, model: Model) -> None:
        """Raise ModelError if a body or frame name is unknown in ``model``."""
        for body in self.bodies:
            if body != "world":
                try:
                    model.body_index(body) if body not in model.frames else None
                except ModelError as exc:
                    raise ModelError(f"{self!r}: {exc}") from None

    def locate(self, model: Model, body: str, point: ArrayLike = (0.0, 0.0, 0.0),
               axis: np.ndarray | None = None) -> tuple[int, np.ndarray, np.ndarray | None]:
        """(body index or −1, point and axis in body coordinates) for a point and direction given in ``body``."""
        if body == "world":
            return -1, np.asarray(point, dtype=float), axis
        index, r, rotation = model.locate(body, point)
        return index, r, None if axis is None else rotation @ axis

    def locate_axis(self, model: Model, body: str, axis: ArrayLike,
                    point: ArrayLike = (0.0, 0.0, 0.0)) -> tuple[int, np.ndarray, np.ndarray]:
        """:meth:`locate` of a point and a direction (or the columns of a matrix) that is given."""
        index, r, rotated = self.locate(model, body, point, np.asarray(axis, dtype=float))
        assert rotated is not None
        return index, r, rotated

    def evaluate(self, snapshot: Snapshot) -> Rows:
        """The constraint's :class:`Rows` at the snapshot's state."""
        raise NotImplementedError

    def export(self, model: Model) -> tuple | None:
        """The constraint as arrays for the compiled rows (:func:`equality_arrays`), or None where it has no
        compiled form (its rows are evaluated in Python)."""
        return None

    def symbolic(self, k: Any) -> SymbolicRows:
        """The constraint's rows as sympy expressions, on the symbolic kinematics ``k`` of
        :class:`multibody.symbolic.constrained.Kinematics` (world positions, axes and velocities of body points)."""
        kinds = [t.__name__ for t in CONSTRAINT_TYPES.values() if not getattr(t, "unilateral", False)] + ["Holonomic", "Nonholonomic"]
        raise ModelError(f"constraint {self!r}: {type(self).__name__} has no symbolic form; the symbolic equations "
                         f"take {', '.join(kinds)} (Holonomic and Nonholonomic given as sympy expressions)")

    def to_dict(self) -> dict[str, Any]:
        """The dictionary form (``type`` and the constructor's arguments; YAML and JSON ready)."""
        raise ModelError(f"{self!r}: this constraint cannot be saved to a file (only the built-in types "
                         f"{', '.join(CONSTRAINT_TYPES)} can; user callables such as Holonomic and Nonholonomic "
                         "cannot be written out)")

    def _described(self, **fields):
        """{type, **fields, name} with arrays as lists of floats."""
        plain = {key: value.tolist() if isinstance(value, np.ndarray) else value for key, value in fields.items()}
        return {"type": self.kind, **plain, "name": self.name}

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return f"{type(self).__name__}{label}({', '.join(map(repr, self.bodies))})"


def _relative(s, ia, ra, ib, rb):
    """Positions, velocities, bias accelerations and Jacobians of points A (on body a) and B (on body b)."""
    return (s.point(ia, ra), s.point(ib, rb), s.motion(ia, ra), s.motion(ib, rb), s.jacobian(ia, ra),
            s.jacobian(ib, rb))


class Connect(Constraint):
    """Point ``point_a`` of ``body_a`` coincides with point ``point_b`` of ``body_b`` (a spherical loop joint).

    φ = p_A − p_B,  J = J_A,lin − J_B,lin,  γ = −(a⁰_A − a⁰_B)   (3 rows, world axes).
    """

    size = 3
    kind = "connect"

    def __init__(self, body_a: str, point_a: ArrayLike, body_b: str = "world", point_b: ArrayLike = (0.0, 0.0, 0.0),
                 name: str | None = None) -> None:
        super().__init__((body_a, body_b), name)
        self.point_a = _as_vector3(point_a, "Connect point_a")
        self.point_b = _as_vector3(point_b, "Connect point_b")

    def to_dict(self) -> dict[str, Any]:
        return self._described(body_a=self.bodies[0], point_a=self.point_a, body_b=self.bodies[1],
                               point_b=self.point_b)

    def evaluate(self, s: Snapshot) -> Rows:
        ia, ra, _ = self.locate(s.model, self.bodies[0], self.point_a)
        ib, rb, _ = self.locate(s.model, self.bodies[1], self.point_b)
        pa, pb, ma, mb_, Ja, Jb = _relative(s, ia, ra, ib, rb)
        return Rows(pa - pb, Ja[3:] - Jb[3:], np.zeros(3), -(ma[3] - mb_[3]), np.ones(3, bool))

    def export(self, model: Model) -> tuple:
        """(CONNECT, (body a, point a, frame), (body b, point b, frame)), body axes."""
        ia, ra, _ = self.locate(model, self.bodies[0], self.point_a)
        ib, rb, _ = self.locate(model, self.bodies[1], self.point_b)
        return CONNECT, (ia, ra, np.eye(3)), (ib, rb, np.eye(3))

    def symbolic(self, k: Any) -> SymbolicRows:
        """φ = p_A − p_B."""
        return SymbolicRows(list(k.point(self.bodies[0], self.point_a) - k.point(self.bodies[1], self.point_b)), [])


class Weld(Constraint):
    """Full 6-DOF loop closure: the frame of ``body_b`` keeps the pose ``relative`` (a Transform, default identity)
    in the frame of ``body_a``.

    Rows [angular; linear]: ω_a − ω_b = 0 with φ_rot the rotation vector of R_a R_rel R_bᵀ, and the point
    coincidence of Connect(body_a, relative.translation, body_b, 0).
    """

    size = 6
    kind = "weld"

    def __init__(self, body_a: str, body_b: str = "world", relative: Transform | None = None,
                 name: str | None = None) -> None:
        super().__init__((body_a, body_b), name)
        self.relative = Transform() if relative is None else relative
        if not isinstance(self.relative, Transform):
            raise ModelError(f"Weld relative must be a multibody.Transform, got {relative!r}")

    def to_dict(self) -> dict[str, Any]:
        return self._described(body_a=self.bodies[0], body_b=self.bodies[1],
                               relative=placement_to_dict(self.relative))

    def evaluate(self, s: Snapshot) -> Rows:
        ia, ra, _ = self.locate(s.model, self.bodies[0], self.relative.translation)
        ib, rb, _ = self.locate(s.model, self.bodies[1])
        pa, pb, ma, mb_, Ja, Jb = _relative(s, ia, ra, ib, rb)
        rot_a = s.rotation(ia) @ self.locate(s.model, self.bodies[0], axis=np.eye(3))[2]
        rot_b = s.rotation(ib) @ self.locate(s.model, self.bodies[1], axis=np.eye(3))[2]
        phi_rot = rotation_vector(rot_a @ self.relative.rotation @ rot_b.T)
        J = np.vstack([Ja[:3] - Jb[:3], Ja[3:] - Jb[3:]])
        gamma = -np.concatenate([ma[2] - mb_[2], ma[3] - mb_[3]])
        return Rows(np.concatenate([phi_rot, pa - pb]), J, np.zeros(6), gamma, np.ones(6, bool))

    def export(self, model: Model) -> tuple:
        """(WELD, (body a, the relative origin, frame a · relative rotation), (body b, its origin, frame b)), body
        axes: φ_rot = θ(R_a E_a (R_b E_b)ᵀ) as :meth:`evaluate`."""
        ia, ra, _ = self.locate(model, self.bodies[0], self.relative.translation)
        ib, rb, _ = self.locate(model, self.bodies[1])
        frame_a = self.locate_axis(model, self.bodies[0], np.eye(3))[2]
        frame_b = self.locate_axis(model, self.bodies[1], np.eye(3))[2]
        return WELD, (ia, ra, frame_a @ self.relative.rotation), (ib, rb, frame_b)

    def symbolic(self, k: Any) -> SymbolicRows:
        """φ_rot = vee of the skew part of E = R_a R_rel R_bᵀ (the rotation vector to first order about E = I, where
        both have the rates ω_a − ω_b), and p_A − p_B."""
        E = k.rotation(self.bodies[0]) * k.matrix(self.relative.rotation) * k.rotation(self.bodies[1]).T
        rotation = [(E[2, 1] - E[1, 2]) / 2, (E[0, 2] - E[2, 0]) / 2, (E[1, 0] - E[0, 1]) / 2]
        offset = k.point(self.bodies[0], self.relative.translation) - k.point(self.bodies[1], (0.0, 0.0, 0.0))
        return SymbolicRows(rotation + list(offset), [])


def rotation_vector(R):
    """The rotation vector θ·u (3,) of a rotation matrix (the inverse of Rodrigues' formula): the compiled rows'
    :func:`._equality_rows.rotation_vector`, so that both steps take the same φ of a weld."""
    return np.array(compiled_rotation_vector(np.ascontiguousarray(R, dtype=float)))


class Align(Constraint):
    """Axis ``axis_b`` of ``body_b`` stays parallel to axis ``axis_a`` of ``body_a`` (2 rows). With
    :class:`Connect` on the axis this closes a loop with a revolute joint.

    With u₁, u₂ ⟂ axis_a fixed in a and n = axis_b fixed in b: φ_k = u_k · n,
    φ̇_k = (ω_a − ω_b) · (u_k × n),  φ̈_k = (α_a − α_b) · (u_k × n) + (ω_a − ω_b) · ((ω_a × u_k) × n + u_k × (ω_b × n)).
    """

    size = 2
    kind = "align"

    def __init__(self, body_a: str, axis_a: ArrayLike, body_b: str = "world", axis_b: ArrayLike | None = None,
                 name: str | None = None) -> None:
        super().__init__((body_a, body_b), name)
        self.axis_a = _unit(axis_a, "Align axis_a")
        self.axis_b = self.axis_a if axis_b is None else _unit(axis_b, "Align axis_b")

    def to_dict(self) -> dict[str, Any]:
        return self._described(body_a=self.bodies[0], axis_a=self.axis_a, body_b=self.bodies[1], axis_b=self.axis_b)

    def evaluate(self, s: Snapshot) -> Rows:
        ia, _, axis_a = self.locate(s.model, self.bodies[0], axis=self.axis_a)
        ib, _, axis_b = self.locate(s.model, self.bodies[1], axis=self.axis_b)
        wa, _, aa, _ = s.motion(ia, np.zeros(3))
        wb, _, ab, _ = s.motion(ib, np.zeros(3))
        Jw = s.jacobian(ia, np.zeros(3))[:3] - s.jacobian(ib, np.zeros(3))[:3]
        n = s.rotation(ib) @ axis_b
        rows = []
        for u_body in _perpendicular_pair(axis_a):
            u = s.rotation(ia) @ u_body
            c = cross(u, n)
            dc = cross(cross(wa, u), n) + cross(u, cross(wb, n))
            rows.append((u @ n, c @ Jw, -((aa - ab) @ c + (wa - wb) @ dc)))
        phi, J, gamma = (np.array(x) for x in zip(*rows))
        return Rows(phi, J, np.zeros(2), gamma, np.ones(2, bool))

    def export(self, model: Model) -> tuple:
        """(ALIGN, (body a, origin, (u_1, u_2, axis a) as columns), (body b, origin, axis b as first column)), body
        axes."""
        ia, _, axis_a = self.locate_axis(model, self.bodies[0], self.axis_a)
        ib, _, axis_b = self.locate_axis(model, self.bodies[1], self.axis_b)
        return (ALIGN, (ia, np.zeros(3), np.column_stack([*_perpendicular_pair(axis_a), axis_a])),
                (ib, np.zeros(3), np.column_stack([axis_b, np.zeros(3), np.zeros(3)])))

    def symbolic(self, k: Any) -> SymbolicRows:
        """φ_k = u_k · n (world axes)."""
        n = k.axis(self.bodies[1], self.axis_b)
        return SymbolicRows([_dot(k.axis(self.bodies[0], u), n) for u in _perpendicular_pair(self.axis_a)], [])


class PointOnPlane(Constraint):
    """Point ``point`` of ``body`` stays on the plane through ``origin`` with ``normal``, both fixed in
    ``plane_body`` (a prismatic/planar loop closure; 1 row).

    φ = n · (p − o),  φ̇ = n · (v_p − v_o) + ω_b · (n × (p − o)),
    φ̈ = n̈ · (p − o) + 2 ṅ · (v_p − v_o) + n · (a_p − a_o)
    with ṅ = ω_b × n and n̈ = α_b × n + ω_b × ṅ.
    """

    size = 1
    kind = "point_on_plane"

    def __init__(self, body: str, point: ArrayLike, plane_body: str = "world", origin: ArrayLike = (0.0, 0.0, 0.0),
                 normal: ArrayLike = (0.0, 0.0, 1.0), name: str | None = None) -> None:
        super().__init__((body, plane_body), name)
        self.point = _as_vector3(point, "PointOnPlane point")
        self.origin = _as_vector3(origin, "PointOnPlane origin")
        self.normal = _unit(normal, "PointOnPlane normal")

    def to_dict(self) -> dict[str, Any]:
        return self._described(body=self.bodies[0], point=self.point, plane_body=self.bodies[1], origin=self.origin,
                               normal=self.normal)

    def evaluate(self, s: Snapshot) -> Rows:
        ia, ra, _ = self.locate(s.model, self.bodies[0], self.point)
        ib, ro, nb = self.locate(s.model, self.bodies[1], self.origin, self.normal)
        p, o, (_, vp, _, ap), (wb, vo, ab, ao), Jp, Jo = _relative(s, ia, ra, ib, ro)
        n = s.rotation(ib) @ nb
        dn = cross(wb, n)
        ddn = cross(ab, n) + cross(wb, dn)
        J = n @ (Jp[3:] - Jo[3:]) + cross(n, p - o) @ Jo[:3]
        gamma = -(ddn @ (p - o) + 2 * dn @ (vp - vo) + n @ (ap - ao))
        return Rows(np.array([n @ (p - o)]), J[None, :], np.zeros(1), np.array([gamma]), np.ones(1, bool))

    def export(self, model: Model) -> tuple:
        """(PLANE, (body, point, identity), (plane body, origin, normal as first column)), body axes."""
        ia, ra, _ = self.locate(model, self.bodies[0], self.point)
        ib, ro, nb = self.locate_axis(model, self.bodies[1], self.normal, self.origin)
        return PLANE, (ia, ra, np.eye(3)), (ib, ro, np.column_stack([nb, np.zeros(3), np.zeros(3)]))

    def symbolic(self, k: Any) -> SymbolicRows:
        """φ = n · (p − o)."""
        body, plane = self.bodies
        gap = k.point(body, self.point) - k.point(plane, self.origin)
        return SymbolicRows([_dot(k.axis(plane, self.normal), gap)], [])


class RollingDisk(Constraint):
    """A disk (``radius``, ``center`` and ``axis`` in ``body``) rolls without slipping on the world plane
    n · x = ``height`` (3 rows, nonholonomic).

    Contact point P = c + d, d = r u, u = unit(−n + (n·a) a) (the lowest rim point). The material point of the
    body at P has zero velocity: J = J_lin(P). Rows are (t₁, t₂, n) in world axes; the normal row is holonomic
    with φ = n · P − height. γ = −(a⁰_c + α⁰ × d + ω × ḋ) with ḋ = r u̇, u̇ = (I − u uᵀ)(n·ȧ a + (n·a) ȧ)/|u_raw|,
    ȧ = ω × a. ``axis=None`` gives a rolling sphere (d = −r n, ḋ = 0).
    """

    size = 3
    kind = "rolling_disk"

    def __init__(self, body: str, radius: float, axis: ArrayLike | None = (0.0, 0.0, 1.0),
                 center: ArrayLike = (0.0, 0.0, 0.0), normal: ArrayLike = (0.0, 0.0, 1.0), height: float = 0.0,
                 name: str | None = None) -> None:
        super().__init__((body,), name)
        self.radius = float(radius)
        if not np.isfinite(self.radius) or self.radius <= 0:
            raise ModelError(f"{type(self).__name__} radius must be finite and positive, got {radius!r}")
        self.axis = None if axis is None else _unit(axis, f"{type(self).__name__} axis")
        self.center = _as_vector3(center, f"{type(self).__name__} center")
        self.normal = _unit(normal, f"{type(self).__name__} normal")
        self.height = float(height)

    def to_dict(self) -> dict[str, Any]:
        return self._described(body=self.bodies[0], radius=self.radius, axis=self.axis, center=self.center,
                               normal=self.normal, height=self.height)

    def contact_offset(self, s: Snapshot, i: int, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(d, ḋ): contact point relative to the center and its rate, world axes."""
        n, r = self.normal, self.radius
        if self.axis is None:
            return -r * n, np.zeros(3)
        _, _, axis = self.locate(s.model, self.bodies[0], axis=self.axis)
        a = s.rotation(i) @ axis
        u_raw, length = _rim_direction(n, a, np.sqrt)
        if length < 1e-9:
            raise ModelError(f"{self!r}: the disk lies flat on the plane (axis parallel to the normal); the "
                             "contact point is undefined")
        u = np.array(u_raw) / length
        da = cross(w, a)
        du_raw = (n @ da) * a + (n @ a) * da
        du = (du_raw - u * (u @ du_raw)) / length
        return r * u, r * du

    def evaluate(self, s: Snapshot) -> Rows:
        i, rc, _ = self.locate(s.model, self.bodies[0], self.center)
        w, _, al, ac = s.motion(i, rc)
        c = s.point(i, rc)
        d, dd = self.contact_offset(s, i, w)
        basis = np.array([*_perpendicular_pair(self.normal), self.normal])
        J = basis @ s.jacobian(i, s.body_coordinates(i, c + d))[3:]
        gamma = -basis @ (ac + cross(al, d) + cross(w, dd))
        phi = np.array([0.0, 0.0, self.normal @ (c + d) - self.height])
        return Rows(phi, J, np.zeros(3), gamma, np.array([False, False, True]))

    def symbolic(self, k: Any) -> SymbolicRows:
        """The rows of :meth:`evaluate`: t₁ · v_P, t₂ · v_P (nonholonomic; v_P = v_c + ω × d, the velocity of the
        body's material point at the contact) and φ = n · (c + d) − height (holonomic)."""
        body, n = self.bodies[0], self.normal
        c, r = k.point(body, self.center), self.radius
        if self.axis is None:
            d = k.matrix(-r * n)
        else:
            u_raw, length = _rim_direction(n, k.axis(body, self.axis), k.sqrt)
            d = (r / length) * k.matrix(u_raw)
        v_contact = k.velocity(body, self.center) + k.cross(k.omega(body), d)
        return SymbolicRows([_dot(n, c + d) - self.height], [_dot(t, v_contact) for t in _perpendicular_pair(n)])


class RollingSphere(RollingDisk):
    """A sphere (``radius``, ``center`` in ``body``) rolls without slipping on the world plane n · x = height."""

    kind = "rolling_sphere"

    def __init__(self, body: str, radius: float, center: ArrayLike = (0.0, 0.0, 0.0),
                 normal: ArrayLike = (0.0, 0.0, 1.0), height: float = 0.0, name: str | None = None) -> None:
        super().__init__(body, radius, axis=None, center=center, normal=normal, height=height, name=name)

    def to_dict(self) -> dict[str, Any]:
        return self._described(body=self.bodies[0], radius=self.radius, center=self.center, normal=self.normal,
                               height=self.height)


class KnifeEdge(Constraint):
    """Knife edge (Chaplygin sleigh): point ``point`` of ``body`` has no velocity across the blade ``direction``
    (in body axes) within the world plane of ``normal`` (1 nonholonomic row).

    With e the blade direction in world axes and w = n × e:  w · v_P = 0,  γ = −(ẇ · v_P + w · a⁰_P), ẇ = n × (ω × e).
    """

    size = 1
    kind = "knife_edge"

    def __init__(self, body: str, point: ArrayLike = (0.0, 0.0, 0.0), direction: ArrayLike = (1.0, 0.0, 0.0),
                 normal: ArrayLike = (0.0, 0.0, 1.0), name: str | None = None) -> None:
        super().__init__((body,), name)
        self.point = _as_vector3(point, "KnifeEdge point")
        self.direction = _unit(direction, "KnifeEdge direction")
        self.normal = _unit(normal, "KnifeEdge normal")

    def to_dict(self) -> dict[str, Any]:
        return self._described(body=self.bodies[0], point=self.point, direction=self.direction, normal=self.normal)

    def evaluate(self, s: Snapshot) -> Rows:
        i, r, e_body = self.locate(s.model, self.bodies[0], self.point, self.direction)
        w, vp, _, ap = s.motion(i, r)
        e = s.rotation(i) @ e_body
        across = cross(self.normal, e)
        J = across @ s.jacobian(i, r)[3:]
        gamma = -(cross(self.normal, cross(w, e)) @ vp + across @ ap)
        return Rows(np.zeros(1), J[None, :], np.zeros(1), np.array([gamma]), np.zeros(1, bool))

    def symbolic(self, k: Any) -> SymbolicRows:
        """(n × e) · v_P = 0."""
        body = self.bodies[0]
        across = k.cross(k.matrix(self.normal), k.axis(body, self.direction))
        return SymbolicRows([], [_dot(across, k.velocity(body, self.point))])


class Mimic(Constraint):
    """Mimic joint (URDF ``<mimic>``): q_joint = multiplier · q_master + offset, both one-dof joints (a gear
    train, a parallel gripper's second finger). One holonomic row with a constant Jacobian:

        φ = q_j − m q_m − o,   J = e_j − m e_m,   b = 0,   γ = 0

    (e_k the unit row of the joint's velocity). The multiplier is the force ratio too: the constraint applies
    λ to the joint and −m λ to the master.
    """

    size = 1
    kind = "mimic"

    def __init__(self, joint: str, master: str, multiplier: float = 1.0, offset: float = 0.0,
                 name: str | None = None) -> None:
        super().__init__((), name)
        self.joint, self.master = joint, master
        label = f"Mimic joint {joint!r}"
        self.multiplier = checked_number(multiplier, f"{label}: multiplier")
        self.offset = checked_number(offset, f"{label}: offset")
        if joint == master:
            raise ModelError(f"{label}: a joint cannot mimic itself")

    def check(self, model: Model) -> None:
        """Raise ModelError unless both names are distinct one-dof joints of ``model``."""
        joint = model.one_dof_joint(self.joint, f"{self!r}")[0]
        master = model.one_dof_joint(self.master, f"{self!r} master")[0]
        if joint is master:
            raise ModelError(f"{self!r}: joint and master are the same joint '{joint.name}'")

    def to_dict(self) -> dict[str, Any]:
        return self._described(joint=self.joint, master=self.master, multiplier=self.multiplier, offset=self.offset)

    def evaluate(self, s: Snapshot) -> Rows:
        return constant_rows(s, self.export(s.model))

    def export(self, model: Model) -> tuple:
        """(CONSTANT, J (nv,), A (nq,), offset): φ = A q − offset."""
        return constant_row(model, (self.joint, self.master), (1.0, -self.multiplier), self.offset, repr(self))

    def symbolic(self, k: Any) -> SymbolicRows:
        """φ = q_j − m q_m − o."""
        return SymbolicRows([k.coordinate(self.joint) - k.number(self.multiplier) * k.coordinate(self.master)
                             - k.number(self.offset)], [])

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return f"Mimic{label}({self.joint!r}, master={self.master!r})"


CONSTRAINT_TYPES: dict[str, type[Constraint]] = {
    cls.kind: cls for cls in (Connect, Weld, Align, PointOnPlane, RollingDisk, RollingSphere, KnifeEdge, Mimic)}


def equality_constraints(model: Model) -> list[Constraint]:
    """The model's equality constraints (loops, rolling, mimic, user rows): all but the unilateral
    :class:`~.bounds.JointLimit` and :class:`~.bounds.TendonLimit` ones
    (:func:`multibody.constraints.limits.joint_limits`), in ``model.constraints`` order."""
    return [c for c in getattr(model, "constraints", ()) if not getattr(c, "unilateral", False)]


def constant_row(model: Model, joints, coefficients, offset: float, owner: str) -> tuple:
    """(CONSTANT, J (nv,), A (nq,), offset) of the row Σⱼ cⱼ qⱼ = offset over one-dof joints: φ = A q − offset."""
    J, A = np.zeros(model.nv), np.zeros(model.nq)
    for joint, c in zip(joints, coefficients):
        _, iq, iv = model.one_dof_joint(joint, owner)
        J[iv] += c
        A[iq] += c
    return CONSTANT, J, A, float(offset)


def constant_rows(s: Snapshot, exported: tuple) -> Rows:
    """The :class:`Rows` at the snapshot's q of a row exported by :func:`constant_row`."""
    _, J, A, offset = exported
    return Rows(np.array([A @ s.q - offset]), J[None, :], np.zeros(1), np.zeros(1), np.ones(1, bool))


def uncompiled_equalities(model: Model) -> list[Constraint]:
    """The model's equality constraints without a compiled form (:meth:`Constraint.export` None)."""
    return [c for c in equality_constraints(model) if c.export(model) is None]


def equality_arrays(model: Model) -> tuple:
    """The model's equality constraints with a compiled form as the arrays of
    :func:`._equality_rows.equality_rows`, rows in ``model.constraints`` order: (kinds (k, 4) int64: kind, first
    row, body a, body b; points (k, 2, 3); frames (k, 2, 3, 3); J_constant (ne, nv); A (ne, nq); offset (ne,))."""
    exported = [e for e in (c.export(model) for c in equality_constraints(model)) if e is not None]
    sizes = [SIZES[e[0]] for e in exported]
    ne, k = sum(sizes), len(exported)
    kinds, points, frames = np.zeros((k, 4), dtype=np.int64), np.zeros((k, 2, 3)), np.zeros((k, 2, 3, 3))
    J, A, offset = np.zeros((ne, model.nv)), np.zeros((ne, model.nq)), np.zeros(ne)
    row = 0
    for i, (e, size) in enumerate(zip(exported, sizes)):
        kinds[i, :2] = e[0], row
        if e[0] == CONSTANT:
            J[row], A[row], offset[row] = e[1:]
        else:
            for side, (body, point, frame) in enumerate(e[1:]):
                kinds[i, 2 + side], points[i, side], frames[i, side] = body, point, frame
        row += size
    return kinds, points, frames, J, A, offset


def stack(model, snapshot, constraints=None):
    """All rows of ``constraints`` (default: the model's) stacked, and the row slice of each constraint."""
    constraints = model.constraints if constraints is None else constraints
    parts, slices, start = [], [], 0
    for c in constraints:
        rows = c.evaluate(snapshot)
        parts.append(rows)
        slices.append(slice(start, start + rows.J.shape[0]))
        start += rows.J.shape[0]
    if not parts:
        nv = snapshot.nv
        return Rows(np.zeros(0), np.zeros((0, nv)), np.zeros(0), np.zeros(0), np.zeros(0, bool)), slices
    return Rows(*(np.concatenate(x) for x in zip(*parts))), slices
