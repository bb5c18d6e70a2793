"""Trees with flexible beams: the recursive kinematics and Kane's equations of a :class:`~multibody.Model` whose
bodies include :class:`~multibody.FlexibleBeam`. ``mb.rnea``, ``crba``, ``aba``, ``energy``,
``momentum`` and the kinematic queries take this path (NumPy) for such models; rigid trees keep the compiled core.

Forward pass (parent before child). Each body frame i gets its world pose (R_i, p_i), its body Jacobian J_i
(6 × nv, body axes, [ω; v_origin], so V_i = J_i v) and its velocity-product acceleration A_i (6,): the spatial
acceleration at v̇ = 0, gravity entering as the base acceleration [0; −g] (Featherstone, RBDA §5.3):

    J_i = X_i J_λ + S_i,     A_i = X_i A_λ + V_i ×ₘ (S_i v) + S̊_i v             (RBDA eqs. 5.7–5.8),

once for the joint (S_i constant: S̊_i = 0) and, for a body carried by a beam, first for the beam's cross-section.

Kane's equations (T. R. Kane, "A new method for formulating equations of motion", eq. 14) summed over the bodies then
give M v̇ + c = τ + Σ J_iᵀ f_ext,i with

    M = Σ_rigid J_iᵀ I_i J_i + Σ_beams T_bᵀ M_b T_b,                     T_b = [J_b; E_b]  (6 + n_b, nv),
    c = Σ_rigid J_iᵀ (I_i A_i + V_i ×* I_i V_i) + Σ_beams T_bᵀ (M_b [A_b; 0] − f_b),

where M_b(e), f_b are the beam's floating-frame equations (:func:`~multibody.flexible.floating_frame_equations`:
its mass elements at Gauss points, foreshortening, −K e) at B's velocity V_b, and E_b picks the beam's ė out of v.
This is the documented equivalent of condensing the elastic coordinates in the ABA: aba solves M v̇ = τ − c by
Cholesky, O(nv³) for the few tens of coordinates of such models. The strain force K e sits in c like gravity, so
generalized_gravity, potential_energy (gravity + ½ eᵀ K e), static_equilibrium and natural_frequencies include it.

Cross-section at station s (B axes). Origin r = r0(s) + Φ(s) e − ½ (eᵀ G(s) e) b_x (the foreshortening with
stiffening only); rotation by the slopes θ_z = v'(s) = Φ'_v e and θ_y = −w'(s) = −Φ'_w e,
R = Rz(θ_z) Ry(θ_y): Euler–Bernoulli's section rotation, exact to first order in the slopes, written as a
product of rotations so that its rates are exact (no torsion). Then ω = b_z θ̇_z + (Rz b_y) θ̇_y, whose
velocity-product part of ω̇ is θ̇_z θ̇_y b_z × Rz b_y, and the section's relative motion in its own axes is
S_s v = [Rᵀ ω; Rᵀ ṙ] with S̊_s v = [Rᵀ ω̇; Rᵀ (r̈ − ω × ṙ)] at ë = 0.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg

from ..errors import ModelError
from ..spatial import cross, skew
from ._inputs import as_state, batch_of, raise_nonfinite
from ._layout import IV, NVJ, field
from ._spatial_kernels import local_poses
from .beam_equations import deformed_kinematics, floating_frame_equations, momentum_and_energy

if TYPE_CHECKING:
    from ..model import CompiledModel, Model

_BZ = np.array([0.0, 0.0, 1.0])


class BeamBody(Protocol):
    """What the tree reads of a flexible beam body (:class:`multibody.FlexibleBeam`): its ``beam`` and
    ``discretization`` (:class:`~multibody.flexible.Beam`, :class:`~multibody.flexible.DiscretizedBeam`), ``ne``
    elastic coordinates, ``stiffening``, and the arc length ``station(x)`` [m] that carries a point at x."""

    name: str
    mass: float
    com: np.ndarray
    ne: int
    stiffening: bool
    beam: Any
    discretization: Any

    def station(self, x: float) -> float: ...


class Station(NamedTuple):
    """A beam's cross-section at arc length s: ``origin`` (3,) its undeformed centre in B [m], ``Phi`` (3, n) Φ(s),
    ``slope_v``, ``slope_w`` (n,) the rows Φ'_v(s), Φ'_w(s) [1/m], ``G`` (n, n) the foreshortening G(s) [1/m]."""

    origin: np.ndarray
    Phi: np.ndarray
    slope_v: np.ndarray
    slope_w: np.ndarray
    G: np.ndarray


class Frame(NamedTuple):
    """A moving frame: world pose ``R`` (3, 3), ``p`` (3,) [m]; body Jacobian ``J`` (6, nv), velocity ``V`` (6,)
    and velocity-product acceleration ``A`` (6,), all in its own axes, [angular; linear]."""

    R: np.ndarray
    p: np.ndarray
    J: np.ndarray
    V: np.ndarray
    A: np.ndarray


class Slot(NamedTuple):
    """A beam of the tree: its ``body`` and the slices ``q``, ``v`` of its elastic coordinates and rates."""

    body: BeamBody
    q: slice
    v: slice


def station(body: BeamBody, x: float) -> Station:
    """The cross-section of ``body`` that carries a point at x [m] along B's x axis (s = x − root, clamped)."""
    s = body.station(x)
    Phi, dPhi, G = body.discretization.rows_at(s)
    return Station(np.array([body.beam.root + s, 0.0, 0.0]), Phi, dPhi[1], dPhi[2], G)


class FlexibleTree:
    """The constant data of a model with beams (part of its :class:`~multibody.model.model.CompiledModel`):
    parents, motion subspaces S_i placed in v's columns (6, nv), rigid spatial inertias, joint armature, the beams'
    coordinate slots and the stations of the bodies they carry."""

    def __init__(self, model: Model, cm: CompiledModel) -> None:
        nv = cm.nv
        self.parents = list(model.parents)
        self.S, self.inertia = [], []
        self.armature = np.zeros(nv)
        for i, row in enumerate(cm.topology):
            S = np.zeros((6, nv))
            S[:, row[IV]:row[IV] + row[NVJ]] = field(cm.params, i, "motion_subspace")[:, :row[NVJ]]
            self.S.append(S)
            self.inertia.append(field(cm.params, i, "spatial_inertia"))
            self.armature[row[IV]:row[IV] + row[NVJ]] = field(cm.params, i, "armature")[:row[NVJ]]
        self.beams = {}
        iq, iv = cm.nq - model.ne, nv - model.ne
        for i, body in enumerate(model.bodies):
            if body.ne:
                self.beams[i] = Slot(cast("BeamBody", body), slice(iq, iq + body.ne), slice(iv, iv + body.ne))
                iq, iv = iq + body.ne, iv + body.ne
        self._sections: dict[tuple[int, float], Station] = {}  # (beam index, x) -> Station, filled as asked for
        self.stations = {i: self.station(parent, float(model.placements[i].translation[0]))
                         for i, parent in enumerate(self.parents) if parent in self.beams}
        self.gravity = np.asarray(model.gravity, dtype=float)

    def station(self, index: int, x: float) -> Station:
        """The cross-section of beam ``index`` carrying the points at x [m] along its B's x axis (cached)."""
        key = (index, x)
        if key not in self._sections:
            self._sections[key] = station(self.beams[index].body, x)
        return self._sections[key]


def _tree(model):
    return (model._compiled or model.compile()).flexible


# ------------------------------------------------------------------------------------------------
# Kinematics
# ------------------------------------------------------------------------------------------------
def motion_transform(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """X (6, 6): motion vectors from parent to child coordinates for a child frame at pose (R, p) in the parent,
    X = [[E, 0], [−E [p]×, E]] with E = Rᵀ (RBDA eq. 2.24)."""
    X = np.zeros((6, 6))
    X[:3, :3] = X[3:, 3:] = R.T
    X[3:, :3] = -R.T @ skew(p)
    return X


def cross_motion(V, m):
    """V ×ₘ m for spatial vectors [ω; v] (RBDA eq. 2.31)."""
    return np.concatenate([cross(V[:3], m[:3]), cross(V[:3], m[3:]) + cross(V[3:], m[:3])])


def cross_force(V, f):
    """V ×* f for a spatial velocity and a force [n; f] (RBDA eq. 2.32)."""
    return np.concatenate([cross(V[:3], f[:3]) + cross(V[3:], f[3:]), cross(V[:3], f[3:])])


def attached(frame: Frame, R: np.ndarray, p: np.ndarray, S: np.ndarray, v: np.ndarray,
             bias: np.ndarray | None = None) -> Frame:
    """The frame at pose (R, p) in ``frame`` moving relative to it with velocity S v (its own axes, S (6, nv))
    and velocity-product acceleration ``bias`` = S̊ v: J = X J_λ + S, V = X V_λ + S v,
    A = X A_λ + V ×ₘ S v + S̊ v."""
    X = motion_transform(R, p)
    vJ = S @ v
    V = X @ frame.V + vJ
    A = X @ frame.A + cross_motion(V, vJ) + (0.0 if bias is None else bias)
    return Frame(frame.R @ R, frame.p + frame.R @ p, X @ frame.J + S, V, A)


def section(frame: Frame, slot: Slot, st: Station, q: np.ndarray, v: np.ndarray) -> Frame:
    """The frame of the cross-section ``st`` of the beam in ``slot`` whose floating frame B is ``frame`` (see the
    module docstring for its pose R = Rz(θ_z) Ry(θ_y), r(s) and rates)."""
    e, e_dot = q[slot.q], v[slot.v]
    r, Psi, r_ddot = st.origin + st.Phi @ e, st.Phi.copy(), np.zeros(3)
    if slot.body.stiffening:
        # foreshortening: r_x −= ½ eᵀG e, so ∂r_x/∂e = −(G e)ᵀ and r̈_x gains −ėᵀ G ė
        Ge = st.G @ e
        r[0] -= 0.5 * Ge @ e
        Psi[0] -= Ge
        r_ddot[0] = -(st.G @ e_dot) @ e_dot
    theta_z, theta_y = st.slope_v @ e, -st.slope_w @ e
    Rz, Ry = _rotation_z(theta_z), _rotation_y(theta_y)
    # ω = b_z θ̇_z + (Rz b_y) θ̇_y  →  ω = Θ ė;  ω̇ at ë = 0: θ̇_z θ̇_y b_z × (Rz b_y)
    Theta = np.outer(_BZ, st.slope_v) - np.outer(Rz[:, 1], st.slope_w)
    omega, r_dot = Theta @ e_dot, Psi @ e_dot
    omega_dot = (st.slope_v @ e_dot) * (-st.slope_w @ e_dot) * cross(_BZ, Rz[:, 1])
    R = Rz @ Ry
    S = np.zeros((6, v.size))
    S[:3, slot.v], S[3:, slot.v] = R.T @ Theta, R.T @ Psi
    bias = np.concatenate([R.T @ omega_dot, R.T @ (r_ddot - cross(omega, r_dot))])
    return attached(frame, R, r, S, v, bias)


def _rotation_z(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rotation_y(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def frames(model: Model, q: np.ndarray, v: np.ndarray, gravity: bool = True) -> list[Frame]:
    """The :class:`Frame` of every body (a beam's: its floating frame B) at state (q, v); with ``gravity`` the
    accelerations A_i include the base acceleration [0; −g]."""
    cm = model._compiled or model.compile()
    tree = cm.flexible
    n = len(tree.parents)
    R, p = np.empty((n, 3, 3)), np.empty((n, 3))
    local_poses(cm.topology, cm.params, q, R, p)
    base = np.concatenate([np.zeros(3), -tree.gravity if gravity else np.zeros(3)])
    world = Frame(np.eye(3), np.zeros(3), np.zeros((6, cm.nv)), np.zeros(6), base)
    out: list[Frame] = []
    for i, parent in enumerate(tree.parents):
        frame = world if parent < 0 else out[parent]
        if i in tree.stations:  # carried by the cross-section of a beam: the placement is relative to it
            st = tree.stations[i]
            frame, p[i] = section(frame, tree.beams[parent], st, q, v), p[i] - st.origin
        out.append(attached(frame, R[i], p[i], tree.S[i], v))
    return out


def point_frame(model: Model, q: np.ndarray, v: np.ndarray, name: str, point: ArrayLike = (0.0, 0.0, 0.0)
                ) -> tuple[Frame, np.ndarray, np.ndarray] | None:
    """(frame, offset, rotation) of a point of a body or named frame: the frame that carries it (a beam's
    cross-section at the point's station, or the rigid body), the point's coordinates in it [m] and the rotation
    named frame → carrying frame; None for a frame fixed in the world."""
    index, local, rotation = model.locate(name, point)
    if index < 0:
        return None
    tree = _tree(model)
    frame = frames(model, q, v, gravity=False)[index]
    if index in tree.beams:
        st = tree.station(index, float(local[0]))
        frame, local = section(frame, tree.beams[index], st, q, v), local - st.origin
    return frame, local, rotation


def body_poses(model: Model, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """World poses of all bodies (a beam's: its floating frame B): R (..., n, 3, 3), p (..., n, 3) [m]."""
    cm = model._compiled or model.compile()
    q = _finite(model, as_state(q, cm.nq, "q"), "q", "body_poses")
    batch, (qb,) = batch_of((q, "q"))
    zero = np.zeros(cm.nv)
    poses = [frames(model, x, zero, gravity=False) for x in qb]
    R = np.array([[f.R for f in fs] for fs in poses]).reshape(batch + (model.nbodies, 3, 3))
    p = np.array([[f.p for f in fs] for fs in poses]).reshape(batch + (model.nbodies, 3))
    return R, p


def body_pose(model: Model, q: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """World pose (R (3, 3), p (3,)) of a body or named frame; on a beam, carried by its cross-section."""
    carried = point_frame(model, _finite(model, q, "q", "body_pose"), np.zeros(model.nv), name)
    if carried is None:
        index, origin, rotation = model.locate(name)
        return rotation.copy(), origin.copy()
    frame, offset, rotation = carried
    return frame.R @ rotation, frame.p + frame.R @ offset


def jacobian(model: Model, q: np.ndarray, name: str, point: ArrayLike = (0.0, 0.0, 0.0)) -> np.ndarray:
    """J (6, nv), world axes: [ω; v_P] = J v for the point ``point`` of a body or named frame (on a beam, the
    material point carried by its cross-section): J = [R J_ω; R (J_v − [r]× J_ω)]."""
    carried = point_frame(model, _finite(model, q, "q", "jacobian"), np.zeros(model.nv), name, point)
    if carried is None:
        return np.zeros((6, model.nv))
    frame, offset, _ = carried
    J = frame.J
    return np.vstack([frame.R @ J[:3], frame.R @ (J[3:] - skew(offset) @ J[:3])])


def deformed_axis(model: Model, q: ArrayLike, name: str, points: int = 21) -> np.ndarray:
    """World coordinates (..., points, 3) [m] of ``points`` evenly spaced stations along the deformed axis of the
    beam ``name``, root to tip (for drawing)."""
    found = model.body(name)
    if not found.ne:
        raise ModelError(f"deformed_axis: body '{found.name}' is not a flexible beam")
    body = cast("BeamBody", found)
    cm = model._compiled or model.compile()
    q = _finite(model, as_state(q, cm.nq, "q"), "q", "deformed_axis")
    R, p = body_poses(model, q)
    index, slot = model.body_index(name), cm.flexible.beams[model.body_index(name)]
    local = []
    for x in body.beam.root + np.linspace(0.0, body.beam.length, points):
        st = cm.flexible.station(index, float(x))
        r = st.origin + np.einsum("ij,...j->...i", st.Phi, q[..., slot.q])
        if body.stiffening:
            r[..., 0] -= 0.5 * np.einsum("...i,ij,...j->...", q[..., slot.q], st.G, q[..., slot.q])
        local.append(r)
    return p[..., index, None, :] + np.einsum("...ij,...kj->...ki", R[..., index, :, :], np.stack(local, axis=-2))


def beam_segments(model: Model, Q: ArrayLike, points: int = 21) -> list[np.ndarray]:
    """Per beam of ``model``, the segments (F, points − 1, 2, 3) [m] of its deformed axis, world coordinates, for
    configurations Q (F, nq): the hook through which the animation draws beams bent (no beams: an empty list)."""
    Q = np.atleast_2d(Q)
    segments = []
    for body in model.bodies:
        if body.ne:
            axis = deformed_axis(model, Q, body.name, points)
            segments.append(np.stack([axis[:, :-1], axis[:, 1:]], axis=2))
    return segments


# ------------------------------------------------------------------------------------------------
# Dynamics
# ------------------------------------------------------------------------------------------------
def mass_and_bias(model: Model, q: np.ndarray, v: np.ndarray, gravity: bool = True
                  ) -> tuple[np.ndarray, np.ndarray, list[Frame]]:
    """M (nv, nv), c (nv,) of M v̇ + c = τ (Kane's equations over the tree, module docstring) and the frames."""
    tree = _tree(model)
    fs = frames(model, q, v, gravity)
    M, c = np.diag(tree.armature), np.zeros(v.size)
    for i, f in enumerate(fs):
        slot = tree.beams.get(i)
        if slot is None:
            # rigid body: Jᵀ I J and Jᵀ (I A + V ×* I V)
            I = tree.inertia[i]
            M += f.J.T @ I @ f.J
            c += f.J.T @ (I @ f.A + cross_force(f.V, I @ f.V))
            continue
        # beam: Tᵀ M_b T and Tᵀ (M_b [A; 0] − f_b), T = [J; E_b]
        Mb, fb = floating_frame_equations(slot.body.discretization, q[slot.q], v[slot.v], f.V[:3], f.V[3:],
                                          stiffening=slot.body.stiffening)
        T = np.zeros((Mb.shape[0], v.size))
        T[:6], T[6:, slot.v] = f.J, np.eye(slot.body.ne)
        M += T.T @ Mb @ T
        c += T.T @ (Mb[:, :6] @ f.A - fb)
    return M, c, fs


def _applied(fs, forces):
    """Σ J_iᵀ f_ext,i (nv,) of body forces (n, 6) [moment; force] in body axes about the body origins."""
    return sum((f.J.T @ w for f, w in zip(fs, forces)), np.zeros(fs[0].J.shape[1])) if len(forces) else 0.0


def rnea(model: Model, q: np.ndarray, v: np.ndarray, a: np.ndarray, forces: np.ndarray) -> np.ndarray:
    """Inverse dynamics τ (..., nv) = M a + c − Σ J_iᵀ f_ext,i of a tree with beams; q, v, a already checked,
    ``forces`` (n, 6), (0, 6) for none, or (..., n, 6)."""
    def one(q, v, a, forces):
        M, c, fs = mass_and_bias(model, q, v)
        return M @ a + c - _applied(fs, forces)
    return _each(model, "rnea", one, dict(q=q, v=v, a=a), forces)


def aba(model: Model, q: np.ndarray, v: np.ndarray, tau: np.ndarray, forces: np.ndarray) -> np.ndarray:
    """Forward dynamics v̇ (..., nv) = M⁻¹ (τ − c + Σ J_iᵀ f_ext,i) of a tree with beams, by Cholesky."""
    def one(q, v, tau, forces):
        M, c, fs = mass_and_bias(model, q, v)
        try:
            return linalg.cho_solve(linalg.cho_factor(M), tau - c + _applied(fs, forces))
        except linalg.LinAlgError:
            raise ModelError(f"model '{model.name}': the mass matrix is not positive definite at this q (bodies "
                             "without mass or inertia moved by joints?)") from None
    return _each(model, "aba", one, dict(q=q, v=v, tau=tau), forces)


def crba(model: Model, q: np.ndarray) -> np.ndarray:
    """Mass matrix M(q) (..., nv, nv) of a tree with beams."""
    zero = np.zeros(model.nv)
    return _each(model, "crba", lambda q: mass_and_bias(model, q, zero, gravity=False)[0], dict(q=q))


def energy(model: Model, q: np.ndarray, v: np.ndarray) -> tuple[float | np.ndarray, float | np.ndarray]:
    """(kinetic, potential) energy [J] of a tree with beams, each (...,): kinetic ½ Σ Vᵀ I V + the beams' mass
    elements + ½ Σ armature v²; potential −Σ m g·c over bodies and mass elements + Σ ½ eᵀ K e (strain)."""
    tree = _tree(model)
    g = tree.gravity

    def one(q, v):
        kinetic, potential = 0.5 * tree.armature @ v**2, 0.0
        for i, (f, body) in enumerate(zip(frames(model, q, v, gravity=False), model.bodies)):
            slot = tree.beams.get(i)
            if slot is None:
                kinetic += 0.5 * f.V @ tree.inertia[i] @ f.V
                potential -= body.mass * g @ (f.p + f.R @ body.com)
                continue
            fd, e, e_dot = body.discretization, q[slot.q], v[slot.v]
            _, _, T, strain = momentum_and_energy(fd, e, e_dot, f.V[:3], f.V[3:], body.stiffening)
            r = deformed_kinematics(fd, e, e_dot, body.stiffening)[0]
            kinetic += T
            potential += strain - fd.mass @ ((f.p + r @ f.R.T) @ g)
        return np.array([kinetic, potential])
    out = _each(model, "energy", one, dict(q=q, v=v))
    return (out[0], out[1]) if out.ndim == 1 else (out[..., 0], out[..., 1])


def strain_energy(model: Model, q: ArrayLike) -> np.ndarray:
    """Σ ½ eᵀ K e [J] over the model's beams, (...,) for q (..., nq); 0 without beams."""
    q = np.asarray(q, dtype=float)
    total = np.zeros(q.shape[:-1])
    for slot in _tree(model).beams.values():
        e = q[..., slot.q]
        total = total + 0.5 * np.einsum("...i,ij,...j->...", e, slot.body.discretization.K, e)
    return total


def momentum_data(model: Model, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """[angular momentum about the world origin (3) [kg·m²/s]; linear momentum (3) [kg·m/s]; mass centre (3) [m]],
    world axes, of one state of a tree with beams."""
    tree = _tree(model)
    q, v = _finite(model, q, "q", "momentum"), _finite(model, v, "v", "momentum")
    angular, linear, first_moment = np.zeros(3), np.zeros(3), np.zeros(3)
    for i, (f, body) in enumerate(zip(frames(model, q, v, gravity=False), model.bodies)):
        slot = tree.beams.get(i)
        if slot is None:
            h = tree.inertia[i] @ f.V  # [angular about the origin; linear], body axes
            centre = f.p + f.R @ body.com
        else:
            body = slot.body  # the same body, as the beam it is
            fd, e, e_dot = body.discretization, q[slot.q], v[slot.v]
            h_linear, h_angular, _, _ = momentum_and_energy(fd, e, e_dot, f.V[:3], f.V[3:], body.stiffening)
            h = np.r_[h_angular, h_linear]
            centre = f.p + f.R @ (fd.mass @ deformed_kinematics(fd, e, e_dot, body.stiffening)[0]) / body.mass
        # about the world origin: H = R h_O + p × L
        L = f.R @ h[3:]
        angular += f.R @ h[:3] + cross(f.p, L)
        linear += L
        first_moment += body.mass * centre
    return np.r_[angular, linear, first_moment / model.total_mass()]


def _finite(model: Model, x: ArrayLike, name: str, what: str) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise_nonfinite(model, what, **{name: x})
    return x


def _each(model, what, one, arrays, forces=None):
    """``one`` applied to every state of a batch: arrays {name: (..., size)} broadcast together (and ``forces``
    (n, 6) shared or (..., n, 6) per state); the result in the batch's shape. Non-finite inputs raise, naming the
    entry."""
    for name, x in arrays.items():
        _finite(model, x, name, what)
    extra = () if forces is None else (forces,)
    if all(x.ndim == 1 for x in arrays.values()) and (forces is None or forces.ndim == 2):
        return one(*arrays.values(), *extra)
    if forces is not None and forces.ndim > 2:
        n = forces.shape[-2]
        arrays = {**arrays, "f_ext": forces.reshape(forces.shape[:-2] + (6 * n,))}
    batch, flat = batch_of(*((x, name) for name, x in arrays.items()))
    if forces is not None and forces.ndim > 2:
        flat, per_state = flat[:-1], flat[-1].reshape(-1, n, 6)
    else:
        per_state = None if forces is None else np.broadcast_to(forces, (flat[0].shape[0],) + forces.shape)
    results = [one(*(x[b] for x in flat), *(() if per_state is None else (per_state[b],)))
               for b in range(flat[0].shape[0])]
    return np.array(results).reshape(batch + np.shape(results[0]))
