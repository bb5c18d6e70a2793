"""Unilateral contact with Coulomb friction as Gauss's principle with inequality constraints (an LCP).

Gauss's principle holds for unilateral constraints too (Yao Wenli, "Modelling multi-rigid-body systems by Gauss's
principle of least constraint in generalized coordinates" (2016)): the true acceleration minimizes
G = ½ (a − a_free)ᵀ M (a − a_free) over the accelerations the contacts admit. For a touching contact i with
normal n (from B to A) and relative acceleration of the contact points, the normal part obeys the Signorini
condition and the tangential part Coulomb's law with a polyhedral cone of k edge directions d_j (a pyramid,
Stewart & Trinkle 1996):

    a_n,i = N_i a − γ_n,i ≥ 0  ⟂  λ_n,i ≥ 0
    D_i a − γ_D,i + e s_i ≥ 0  ⟂  β_i ≥ 0       (sticking contacts)
    μ_i λ_n,i − eᵀ β_i ≥ 0     ⟂  s_i ≥ 0

with M a = τ − c + Nᵀλ_n + Dᵀβ + (equality-constraint forces). A contact already sliding with tangential velocity
v_t gets the force (n − μ v̂_t) λ_n instead (kinetic friction opposes sliding). With a = a_eq + K F λ (K the
compliance of the equality-constrained system from :class:`~multibody.constraints.gauss.GaussSolver`), this is an
LCP in (λ_n, β, s), solved by Lemke's method. The same problem at the velocity level (a = (v⁺ − v)/h, γ from the
target velocities) gives the Stewart–Trinkle time step of :mod:`.integrate`.

A small diagonal ``regularization`` (relative to the mean diagonal, default 1e-10) makes redundant contact sets
(four box corners on a plane) well posed; it perturbs the forces by that relative amount.

Robustness (a robot's feet on the floor): Lemke's method runs with pivot tolerance 1e-9, then 1e-7 (the redundant
rows of several feet, each with its pyramid, can end the first on a false secondary ray), at most 5 (n + 1) pivots
each, and a solution counts only if it satisfies the LCP to 1e-6 of its right-hand side. If neither does (or the problem has no solution: kinetic
friction at a sliding contact can make the normal response negative, Painlevé's paradox), the contact forces come
from :func:`~multibody.constraints.lcp.projected_gauss_seidel` on the same contacts with a Coulomb disc, every
contact treated as sticking (friction opposes its tangential acceleration or velocity, bounded by μ λ_n) and a
constraint force mixing of 1e-6: an approximation, said once by an :class:`ApproximateContactWarning`.
"""
from __future__ import annotations

import functools
import warnings
from typing import NamedTuple

import numpy as np

from ..model.joints import Fixed
from ._kinematics import cross
from .geometry import Plane, collide, contact_coefficients, has_contact_model
from .lcp import LCPError, complementarity_error, lemke, projected_gauss_seidel
from .types import _perpendicular_pairs


class ApproximateContactWarning(UserWarning):
    """The contact forces come from the projected Gauss–Seidel fallback of :func:`solve_contacts`, not the LCP."""


PIVOT_TOLERANCES = (1e-9, 1e-7)  # Lemke's pivot tolerances, tried in turn
MAX_PIVOTS = 5  # Lemke's pivots per (n + 1) unknowns before it counts as failed
ACCEPTED_ERROR = 1e-6  # a Lemke solution must satisfy the LCP to this, relative to max(1, max|rhs|)
FALLBACK_CFM = 1e-6  # constraint force mixing of the Gauss–Seidel fallback, relative to the mean diagonal


class Contact(NamedTuple):
    """A contact between geometries ``a`` and ``b`` (model.geometries entries) with body indices (−1 = world)."""

    a: object
    b: object
    body_a: int
    body_b: int
    geometry: object  # ContactPoint
    friction: float
    restitution: float


class ContactRows(NamedTuple):
    """World-frame rows of one contact: N (nv,) normal, T (2, nv) tangential (basis t1, t2), relative normal and
    tangential velocity, the normal's bias acceleration and the tangential bias accelerations (2,)."""

    N: np.ndarray
    T: np.ndarray
    tangents: np.ndarray  # (2, 3)
    vn: float
    vt: np.ndarray
    bias_n: float
    bias_t: np.ndarray


def _poses(model, snapshot):
    """(index (g,), R (g, 3, 3), p (g, 3)) of every geometry: its body index (−1 for the world) and its frame's
    world pose."""
    index, R, p, _, _ = geometry_arrays(model)
    moving = index >= 0
    R, p = R.copy(), p.copy()
    R0 = snapshot.R0[index[moving]]
    R[moving] = R0 @ R[moving]
    p[moving] = snapshot.p0[index[moving]] + (R0 @ p[moving, :, None])[..., 0]
    return index, R, p


def geometry_arrays(model):
    """:func:`geometry_frames` as arrays (index (g,), R (g, 3, 3), p (g, 3)), with each geometry's bounding radius
    (g,) [m] and whether it is a plane (g,). Found once per compiled model (kept in ``CompiledModel.derived``)."""
    derived = (model._compiled or model.compile()).derived
    if "geometry_arrays" not in derived:
        frames = geometry_frames(model)
        derived["geometry_arrays"] = (
            np.array([i for i, _, _ in frames], dtype=np.int64).reshape(-1),
            np.array([R for _, R, _ in frames], dtype=float).reshape(-1, 3, 3),
            np.array([p for _, _, p in frames], dtype=float).reshape(-1, 3),
            np.array([g.shape.bounding_radius for g in model.geometries], dtype=float),
            np.array([isinstance(g.shape, Plane) for g in model.geometries], dtype=bool))
    return derived["geometry_arrays"]


def geometry_frames(model):
    """[(index, R, p)] of every geometry: its body index (−1 for the world) and its frame's pose in that body's
    axes (rotation, origin). Found once per compiled model (kept in ``CompiledModel.derived``)."""
    derived = (model._compiled or model.compile()).derived
    if "geometry_frames" not in derived:
        frames = []
        for g in model.geometries:
            if g.body == "world":
                frames.append((-1, g.placement.rotation, g.placement.translation))
            else:
                index, origin, rotation = model.locate(g.body, g.placement.translation)
                frames.append((index, rotation @ g.placement.rotation, origin))
        derived["geometry_frames"] = frames
    return derived["geometry_frames"]


def contact_pairs(model):
    """The pairs (i, j), i < j, of the model's geometries that can touch (:func:`candidate_pairs`) and of shape types
    :func:`~multibody.constraints.geometry.collide` has a contact model for; the other pairs are left out with a
    warning naming them (once per compiled model, when a contact simulation first asks)."""
    pairs, unsupported = pairs_and_unsupported(model)
    if unsupported:
        warnings.warn(f"model '{model.name}': no contact model for {len(unsupported)} pairs of shapes, which never "
                      f"touch: {', '.join(unsupported[:10])}{' …' if len(unsupported) > 10 else ''}", stacklevel=3)
        unsupported.clear()
    return pairs


def pairs_and_unsupported(model):
    """(pairs that can touch as in :func:`contact_pairs`, the names of the pairs left out for want of a contact
    model, not yet warned about), without a warning. Found once per compiled model (kept in
    ``CompiledModel.derived``, found again when ``model.filter_parent`` changes)."""
    derived = (model._compiled or model.compile()).derived
    if derived.get("contact_pairs", (None,))[0] != model.filter_parent:
        derived["contact_pairs"] = (model.filter_parent, *_pairs_that_can_touch(model))
    return derived["contact_pairs"][1:]


def candidate_pairs(model) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, of the model's geometries that can touch, as MuJoCo filters them:

    * not on one weld group: the bodies welded together by Fixed joints (the world and the bodies fixed to it are
      one), whose shapes never move against each other;
    * not on a weld group and its parent's, when ``model.filter_parent`` (MuJoCo's ``filterparent``, on by
      default): the shapes of two links meet at their joint. The parent is the weld group the group's root hangs
      from, past the massless, shapeless bodies of a compound joint (an MJCF body with several joints); the world
      is nobody's parent here;
    * not excluded by either (``Geometry.exclude``: MJCF's contype/conaffinity and ``<contact><exclude>``, a
      robot's SRDF :func:`multibody.io.srdf.disable_collisions`);

    and, whatever these say, the pairs either includes (``Geometry.include``: MJCF's ``<contact><pair>``)."""
    weld, parent = _weld_groups(model)
    group = [weld[b] if b >= 0 else -1 for b in _geometry_bodies(model)]
    geometries = model.geometries
    pairs = []
    for i in range(len(geometries)):
        for j in range(i + 1, len(geometries)):
            a, b, one, other = group[i], group[j], geometries[i], geometries[j]
            welded = a == b or (model.filter_parent and a >= 0 and b >= 0 and (parent[a] == b or parent[b] == a))
            excluded = other.name in one.exclude or one.name in other.exclude
            if other.name in one.include or one.name in other.include or not (welded or excluded):
                pairs.append((i, j))
    return pairs


def _geometry_bodies(model):
    return [-1 if g.body == "world" else model.locate(g.body)[0] for g in model.geometries]


def _weld_groups(model):
    """(weld, parent) per body index: the root of the body's weld group (the body reached up its Fixed joints; −1:
    the world) and the weld group the body hangs from, past the groups without mass or shapes (the links of a
    compound joint; −1: the world)."""
    weld = []
    for i, (joint, up) in enumerate(zip(model.joints, model.parents)):
        weld.append((weld[up] if up >= 0 else -1) if isinstance(joint, Fixed) else i)
    solid = {weld[i] for i, body in enumerate(model.bodies) if not body.massless} | {
        weld[i] for i in _geometry_bodies(model) if i >= 0}
    parent = []
    for up in model.parents:
        group = weld[up] if up >= 0 else -1
        while group >= 0 and group not in solid:
            up = model.parents[group]
            group = weld[up] if up >= 0 else -1
        parent.append(group)
    return weld, parent


def _pairs_that_can_touch(model):
    geometries = model.geometries
    pairs, unsupported = [], []
    for i, j in candidate_pairs(model):
        if has_contact_model(type(geometries[i].shape), type(geometries[j].shape)):
            pairs.append((i, j))
        else:
            kinds = f"{type(geometries[i].shape).__name__}–{type(geometries[j].shape).__name__}"
            unsupported.append(f"{geometries[i].name}–{geometries[j].name} ({kinds})")
    return pairs, unsupported


def detect(model, snapshot, margin=0.0):
    """All contacts (list of :class:`Contact`) between the geometries of :func:`contact_pairs` with gap ≤
    ``margin`` [m]. Pairs whose bounding spheres (``Shape.bounding_center``, ``bounding_radius``) are farther
    apart than ``margin`` are skipped before any shape test, and so are the pairs of a plane and a shape whose bounding sphere is farther than ``margin`` above it."""
    pairs = contact_pairs(model)
    if not pairs:
        return []
    _, _, _, radii, plane = geometry_arrays(model)
    index, R, p = _poses(model, snapshot)
    centers = p + (R @ np.array([g.shape.bounding_center for g in model.geometries])[..., None])[..., 0]
    pairs = np.array(pairs)
    first, second = pairs.T
    apart = np.linalg.norm(centers[first] - centers[second], axis=1) - radii[first] - radii[second]
    # a plane (normal R[:, 2] through p) against a bounding sphere: the sphere's height above it
    for one, other in ((first, second), (second, first)):
        on_plane = plane[one] & ~plane[other]
        i, j = one[on_plane], other[on_plane]
        apart[on_plane] = np.einsum("ki,ki->k", centers[j] - p[i], R[i, :, 2]) - radii[j]
    contacts = []
    for i, j in pairs[apart <= margin].tolist():
        ga, gb = model.geometries[i], model.geometries[j]
        mu, e = contact_coefficients(model, ga, gb)
        contacts += [Contact(ga, gb, int(index[i]), int(index[j]), c, mu, e)
                     for c in collide(ga.shape, (R[i], p[i]), gb.shape, (R[j], p[j]), margin)]
    return contacts


def contacts_rows(snapshot, contacts):
    """:class:`ContactRows` of each contact. The normal bias treats n as fixed in body B (exact for planes and box
    faces): g̈ = n·(a⁰_A − a⁰_B) + 2 ṅ·(v_A − v_B) + n̈·(r_A − r_B), ṅ = ω_B × n, n̈ = α_B × n + ω_B × ṅ, evaluated at
    the anchors; the tangential rows use the material points at the contact point. The point kinematics of all
    contacts come in one batch (:meth:`~._kinematics.Snapshot.motions`)."""
    if not contacts:
        return []
    s = snapshot
    body_a = np.array([c.body_a for c in contacts])
    body_b = np.array([c.body_b for c in contacts])
    point = np.array([c.geometry.point for c in contacts])
    normal = np.array([c.geometry.normal for c in contacts])
    anchor_a = np.array([c.geometry.anchor_a for c in contacts])
    anchor_b = np.array([c.geometry.anchor_b for c in contacts])
    # the anchors and the contact point on A and on B, in one batch
    k = len(contacts)
    r, w, v, dw, a = s.motions(np.concatenate([body_a, body_b, body_a, body_b]),
                               np.concatenate([anchor_a, anchor_b, point, point]))
    va_n, vb_n, va_p, vb_p = v.reshape(4, k, 3)
    aa_n, ab_n, aa_p, ab_p = a.reshape(4, k, 3)
    wb, ab, ra_p, rb_p = w[k:2 * k], dw[k:2 * k], r[2 * k:3 * k], r[3 * k:]
    # ṅ = ω_B × n, n̈ = α_B × n + ω_B × ṅ and the normal bias, columns over the contacts
    dn = cross(wb.T, normal.T)
    ddn = cross(ab.T, normal.T) + cross(wb.T, dn)
    bias_n = _dots(normal.T, (aa_n - ab_n).T) + 2 * _dots(dn, (va_n - vb_n).T) + _dots(ddn, (anchor_a - anchor_b).T)
    # the rows at the contact points: J_P = J_A(P) − J_B(P) (linear part), n and the tangents on it, all at once
    tangents = np.stack(_perpendicular_pairs(normal), axis=1)  # (k, 2, 3)
    J = s.jacobians(np.concatenate([body_a, body_b]), np.concatenate([ra_p, rb_p]))[:, 3:]
    J = J[:k] - J[k:]
    N, T = (normal[:, None] @ J)[:, 0], tangents @ J
    v_rel = va_p - vb_p
    vn, vt = _dots(normal.T, v_rel.T), (tangents @ v_rel[..., None])[..., 0]
    bias_t = (tangents @ (aa_p - ab_p)[..., None])[..., 0]
    return [ContactRows(*row) for row in zip(N, T, tangents, vn, vt, bias_n, bias_t)]


def _dots(x, y):
    """x · y column by column of (3, k) arrays."""
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]


class ContactSolution(NamedTuple):
    """a (nv,); generalized contact force Q (nv,); forces (list of (3,) world forces on A at each contact point,
    the opposite acting on B); status ("stick", "slip", "separate") per contact."""

    a: np.ndarray
    Q: np.ndarray
    forces: list
    status: list


def solve_contacts(solver, a_eq, contacts, rows, gamma_n, gamma_t, sliding, edges=8, regularization=1e-10):
    """Solve the contact LCP around the equality-constrained acceleration ``a_eq``.

    A contact whose ``geometry`` is None is a frictionless generalized row (a joint limit, :mod:`.limits`): its
    entry in ``forces`` is the scalar multiplier λ_n (a generalized force [N·m or N]) instead of a 3-vector.

    ``gamma_n`` (nc,) and ``gamma_t`` (nc, 2) are the right-hand sides (N a ≥ γ_n, tangential target T a = γ_t);
    ``sliding`` (nc,) bool marks contacts that slide (kinetic friction along −v̂_t); the others get a pyramid of
    ``edges`` directions. Returns a :class:`ContactSolution`.
    """
    nc = len(contacts)
    K = solver.compliance()
    cone = _pyramid(edges)
    N = np.array([r.N for r in rows])
    Fn = N.T.copy()  # (nv, nc) normal force columns, with kinetic friction folded in for sliding contacts
    mu = np.array([c.friction for c in contacts])
    for i in np.flatnonzero(sliding):
        Fn[:, i] -= mu[i] * (rows[i].vt / np.linalg.norm(rows[i].vt)) @ rows[i].T
    owner = [i for i in range(nc) if not sliding[i] and mu[i] > 0]
    ns = len(owner)
    # the pyramid's edge directions on each sticking contact's tangent rows, contact after contact
    D = (cone @ np.array([rows[i].T for i in owner]).reshape(ns, 2, N.shape[1])).reshape(edges * ns, N.shape[1])
    gamma_d = (np.asarray(gamma_t).reshape(nc, 2)[owner] @ cone.T).ravel()
    E = np.repeat(np.eye(ns), edges, axis=0)  # (edges·ns, ns): edges ones per sticking contact
    Mu = np.zeros((ns, nc))
    Mu[np.arange(ns), owner] = mu[owner]
    rows_nd = np.vstack([N, D])
    forces_nd = np.hstack([Fn, D.T])
    A = rows_nd @ K @ forces_nd
    diagonal = A.reshape(-1)[::A.shape[0] + 1]  # (a view)
    diagonal += regularization * max(np.mean(np.abs(diagonal)), 1e-300)
    # [[A, (0; E)], [(Mu, −Eᵀ), 0]]
    m = nc + edges * ns
    lcp = np.zeros((m + ns, m + ns))
    lcp[:m, :m], lcp[nc:m, m:], lcp[m:, :nc], lcp[m:, nc:m] = A, E, Mu, -E.T
    rhs = np.concatenate([rows_nd @ a_eq - np.concatenate([gamma_n, gamma_d]), np.zeros(ns)])
    z = _lemke_solution(lcp, rhs)
    if z is None:
        return _relaxed_contacts(K, a_eq, contacts, rows, gamma_n, gamma_t)
    lam_n, beta = z[:nc], z[nc:nc + edges * ns]
    Q = forces_nd @ z[:nc + edges * ns]
    forces, status = [], []
    beta_of = dict(zip(owner, beta.reshape(ns, edges)))
    for i, (r, c) in enumerate(zip(rows, contacts)):
        f = lam_n[i] * (1.0 if c.geometry is None else c.geometry.normal)
        if sliding[i]:
            f = f - c.friction * lam_n[i] * (r.vt / np.linalg.norm(r.vt)) @ r.tangents
        elif i in beta_of:
            f = f + (beta_of[i] @ cone) @ r.tangents
        forces.append(f)
        status.append("separate" if lam_n[i] <= 0 else "slip" if sliding[i] or _at_cone_edge(z, nc, ns, edges, owner, i)
                      else "stick")
    return ContactSolution(a_eq + K @ Q, Q, forces, status)


def _lemke_solution(lcp, rhs):
    """z of LCP(lcp, rhs) by Lemke's method at each of :data:`PIVOT_TOLERANCES` until one satisfies it to
    :data:`ACCEPTED_ERROR`; None if none does. Each run stops after :data:`MAX_PIVOTS` (n + 1) pivots (Lemke's
    method takes about n on contact problems; round-off on a collapsed robot's 28 contacts, n = 280, had it
    cycling for 14,000 pivots, 99 s)."""
    for tol in PIVOT_TOLERANCES:
        try:
            z = lemke(lcp, rhs, tol=tol, max_pivots=MAX_PIVOTS * (len(rhs) + 1))
        except LCPError:
            continue
        if complementarity_error(lcp, rhs, z) <= ACCEPTED_ERROR * max(1.0, np.abs(rhs).max()):
            return z
    return None


def _relaxed_contacts(K, a_eq, contacts, rows, gamma_n, gamma_t):
    """The :class:`ContactSolution` of projected Gauss–Seidel (the fallback of :func:`solve_contacts`): rows
    W = (N_i; T_i) per contact, relative response W K Wᵀ f + W a_eq − (γ_n,i; γ_t,i), every contact sticking
    within its Coulomb disc, constraint force mixing :data:`FALLBACK_CFM`. Warns (once) that it is approximate."""
    warnings.warn("contact forces approximate: Lemke's method found no solution of the contact LCP (round-off on "
                  "redundant contacts, or Painlevé's paradox of sliding friction); projected Gauss–Seidel used "
                  f"instead, every contact sticking within its Coulomb disc, constraint force mixing {FALLBACK_CFM:g}",
                  ApproximateContactWarning, stacklevel=2)
    W = np.vstack([np.vstack([r.N, r.T]) for r in rows])  # (3 nc, nv)
    b = W @ a_eq - np.column_stack([gamma_n, gamma_t]).ravel()
    f = projected_gauss_seidel(W @ K @ W.T, b, np.array([c.friction for c in contacts]), cfm=FALLBACK_CFM)
    forces, status = [], []
    for (lam_n, *lam_t), r, c in zip(f.reshape(-1, 3), rows, contacts):
        lam_t = np.array(lam_t)
        forces.append(lam_n if c.geometry is None else lam_n * c.geometry.normal + lam_t @ r.tangents)
        slipping = np.linalg.norm(lam_t) >= (1 - 1e-6) * c.friction * lam_n
        status.append("separate" if lam_n <= 0 else "slip" if slipping else "stick")
    Q = W.T @ f
    return ContactSolution(a_eq + K @ Q, Q, forces, status)


@functools.lru_cache(maxsize=None)
def _pyramid(edges):
    """The friction pyramid's ``edges`` unit directions (edges, 2) in a contact's tangent basis (t1, t2), at angles
    2π k / edges."""
    angles = 2 * np.pi * np.arange(edges) / edges
    cone = np.column_stack([np.cos(angles), np.sin(angles)])
    cone.flags.writeable = False
    return cone


def _at_cone_edge(z, nc, ns, edges, owner, i, tol=1e-9):
    """True if the sticking contact i's friction saturates: its slack s_i (the tangential acceleration or
    velocity change it would need) exceeds ``tol``, so sliding starts."""
    return i in owner and z[nc + edges * ns + owner.index(i)] > tol
