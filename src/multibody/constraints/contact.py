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
from ._kinematics import Snapshot, contact_rows
from ._narrow import BOX, CAPSULE, HULL, PLANE, SPHERE, contact_capacity, detect_contacts
from .geometry import (Box, Capsule, ContactPoint, ConvexHull, Plane, Sphere, contact_coefficients,
                       has_contact_model)
from .lcp import first_solution, projected_gauss_seidel, pyramid_lcp


class ApproximateContactWarning(UserWarning):
    """The contact forces come from the projected Gauss–Seidel fallback of :func:`solve_contacts`, not the LCP."""


PIVOT_TOLERANCES = (1e-9, 1e-7)  # Lemke's pivot tolerances, tried in turn
MAX_PIVOTS = 5  # Lemke's pivots per (n + 1) unknowns before it counts as failed
_TOLERANCES = np.array(PIVOT_TOLERANCES)
ACCEPTED_ERROR = 1e-6  # a Lemke solution must satisfy the LCP to this, relative to max(1, max|rhs|)
FALLBACK_CFM = 1e-6  # constraint force mixing of the Gauss–Seidel fallback, relative to the mean diagonal


class ContactPair(NamedTuple):
    """A touching pair found by :func:`detect`: geometries ``a`` and ``b`` (model.geometries entries) with body
    indices (−1 = world), the :class:`~multibody.constraints.geometry.ContactPoint` and the pair's friction and
    restitution. (The contact a user states for an impact, by body names and points, is
    :class:`multibody.impact.Contact`.)"""

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
    return _pairs_entry(model)[1:3]


def _pairs_entry(model):
    """(filter_parent, pairs, unsupported, pairs as an (m, 2) array), kept in ``CompiledModel.derived``."""
    derived = (model._compiled or model.compile()).derived
    if derived.get("contact_pairs", (None,))[0] != model.filter_parent:
        pairs, unsupported = _pairs_that_can_touch(model)
        derived["contact_pairs"] = (model.filter_parent, pairs, unsupported,
                                    np.array(pairs, dtype=np.int64).reshape(-1, 2))
    return derived["contact_pairs"]


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


class ContactArrays(NamedTuple):
    """k contacts as arrays, in the order of the pairs of :func:`contact_pairs`: the geometry indices ``first``
    (shape A) and ``second`` (shape B) (k,), and the fields of :class:`~.geometry.ContactPoint`: point, normal
    (from B towards A), anchor_a, anchor_b (k, 3) [m], world axes, and the signed gap (k,) [m]."""

    first: np.ndarray
    second: np.ndarray
    point: np.ndarray
    normal: np.ndarray
    gap: np.ndarray
    anchor_a: np.ndarray
    anchor_b: np.ndarray


def shape_arrays(model):
    """The geometries of ``model`` as the tuple of arrays of the compiled detection (:mod:`._narrow`'s module
    docstring): (kind, size, body, R_local, p_local, center, bound, vertices, first_vertex, vertex_count, extent).
    Found once per compiled model (kept in ``CompiledModel.derived``)."""
    derived = (model._compiled or model.compile()).derived
    if "shape_arrays" not in derived:
        body, R_local, p_local, bound, _ = geometry_arrays(model)
        shapes = [g.shape for g in model.geometries]
        codes = {Sphere: SPHERE, Capsule: CAPSULE, Box: BOX, Plane: PLANE, ConvexHull: HULL}
        size = np.zeros((len(shapes), 3))
        for k, s in enumerate(shapes):
            size[k] = s.half_extents if isinstance(s, Box) else (getattr(s, "radius", 0.0),
                                                                 getattr(s, "half_length", 0.0), 0.0)
        counts = np.array([len(s.vertices) if isinstance(s, ConvexHull) else 0 for s in shapes], dtype=np.int64)
        hulls = [s.vertices for s in shapes if isinstance(s, ConvexHull)]
        derived["shape_arrays"] = (
            np.array([codes.get(type(s), -1) for s in shapes], dtype=np.int64), size, body, R_local, p_local,
            np.array([s.bounding_center for s in shapes], dtype=float).reshape(-1, 3), bound,
            np.ascontiguousarray(np.concatenate(hulls) if hulls else np.zeros((0, 3))),
            np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)[:len(shapes)], counts,
            np.array([_extent(s) for s in shapes], dtype=float).reshape(-1, 3))
    return derived["shape_arrays"]


def _extent(shape):
    """The half extents (3,) [m] of the shape's bounding box about its ``bounding_center``, in its axes."""
    if isinstance(shape, Box):
        return shape.half_extents
    if isinstance(shape, (Sphere, Capsule)):
        return shape.radius + np.array([0.0, 0.0, getattr(shape, "half_length", 0.0)])
    if isinstance(shape, ConvexHull):
        return 0.5 * (shape.vertices.max(axis=0) - shape.vertices.min(axis=0))
    return np.full(3, np.inf)


def detection_arrays(model):
    """(shapes, pairs (m, 2), capacity): the arguments of :func:`._narrow.detect_contacts` for ``model``'s contact
    pairs (:func:`contact_pairs`) and the rows its output needs for every contact they can give
    (:func:`._narrow.contact_capacity`). Found once per compiled model and ``filter_parent``."""
    derived = (model._compiled or model.compile()).derived
    entry = _pairs_entry(model)
    if derived.get("detection_arrays", (None,))[0] is not entry:
        contact_pairs(model)  # (its warning, once)
        shapes, pairs = shape_arrays(model), entry[3]
        derived["detection_arrays"] = (entry, shapes, pairs, int(contact_capacity(shapes[0], pairs)))
    return derived["detection_arrays"][1:]


def found_contacts(model, snapshot, margin=0.0):
    """:func:`detect` as :class:`ContactArrays`: the broad and narrow phase of every pair in one compiled call
    (:func:`._narrow.detect_contacts`)."""
    shapes, pairs, capacity = detection_arrays(model)
    out = np.empty((capacity, 14))
    count = detect_contacts(shapes, pairs, snapshot.R0, snapshot.p0, float(margin), out)
    rows = out[:count]
    first, second = pairs[rows[:, 13].astype(np.int64)].T
    return ContactArrays(first, second, rows[:, :3], rows[:, 3:6], rows[:, 6], rows[:, 7:10], rows[:, 10:13])


OVERLAP = 1e-3  # [m] how deep two moving bodies' shapes may overlap at the start of a run without a warning


def warn_overlapping_shapes(model, q, stacklevel=2):
    """Warn (once per model and configuration q (nq,)) naming the shapes of two moving bodies that overlap by more
    than :data:`OVERLAP` at q: the contact step pushes them apart from the first step (at ``erp``/h times the depth),
    which is rarely meant. Hulls of neighbouring links often overlap in a robot's standing pose; an SRDF lists
    such pairs as disabled (:func:`multibody.io.srdf.disable_collisions`), or ``a.exclude_contacts(b)`` leaves one out.
    ``stacklevel``: the warning's, counted from this function."""
    derived = (model._compiled or model.compile()).derived
    key = np.asarray(q, dtype=float).tobytes()
    if derived.get("overlaps_checked") == key:
        return
    derived["overlaps_checked"] = key
    found = found_contacts(model, Snapshot(model, q, np.zeros(model.nv)), 0.0)
    index, geometries = geometry_arrays(model)[0], model.geometries
    deepest: dict[tuple[str, str], float] = {}
    for i, j, gap in zip(found.first.tolist(), found.second.tolist(), found.gap.tolist()):
        if gap < -OVERLAP and index[i] >= 0 and index[j] >= 0:
            pair = (geometries[i].name, geometries[j].name)
            deepest[pair] = max(deepest.get(pair, 0.0), -gap)
    if deepest:
        named = ", ".join(f"{a}–{b} ({1e3 * depth:.1f} mm)" for (a, b), depth in sorted(deepest.items()))
        warnings.warn(f"model '{model.name}': shapes of moving bodies overlap at the start: {named}; the contact step "
                      "pushes them apart from its first step. If they are meant to overlap, leave the pairs out "
                      "(an SRDF's disabled pairs, or geometry.exclude_contacts(other))", stacklevel=stacklevel)


def coefficient_arrays(model, first, second):
    """(friction μ (k,), restitution e (k,)) of the contacts between geometries first[k] and second[k]
    (:func:`~.geometry.contact_coefficients`, once per pair)."""
    geometries, known = model.geometries, {}
    mu, e = np.empty(len(first)), np.empty(len(first))
    for k, pair in enumerate(zip(first.tolist(), second.tolist())):
        if pair not in known:
            known[pair] = contact_coefficients(model, geometries[pair[0]], geometries[pair[1]])
        mu[k], e[k] = known[pair]
    return mu, e


def pair_coefficients(model, pairs):
    """(friction (m,), restitution (m,)) of the candidate ``pairs`` (m, 2) (:func:`coefficient_arrays`), kept with the
    compiled model while what they come from is unchanged: the pairs, the friction rule and the pairs' own friction
    (the model's settings, compared here); the geometries' names and coefficients are parts of the model, whose
    edits drop the compiled model and all it keeps (:class:`~multibody.model.part.ModelPart`)."""
    derived = (model._compiled or model.compile()).derived
    sources = (model.friction_rule, tuple(sorted((tuple(sorted(k)), v) for k, v in model.pair_friction.items())))
    kept = derived.get("pair_coefficients")
    if kept is None or kept[0] is not pairs or kept[1] != sources:
        kept = derived["pair_coefficients"] = (pairs, sources, coefficient_arrays(model, pairs[:, 0], pairs[:, 1]))
    return kept[2]


def detect(model, snapshot, margin=0.0):
    """All contacts (list of :class:`ContactPair`) between the geometries of :func:`contact_pairs` with gap ≤
    ``margin`` [m]. Pairs whose bounding spheres (``Shape.bounding_center``, ``bounding_radius``) or bounding boxes
    are farther apart than ``margin`` are skipped before any shape test, and so are the pairs of a plane and a
    shape whose bounding sphere or box is farther than ``margin`` above it (:func:`found_contacts`)."""
    found = found_contacts(model, snapshot, margin)
    index, geometries = geometry_arrays(model)[0], model.geometries
    mu, e = coefficient_arrays(model, found.first, found.second)
    return [ContactPair(geometries[i], geometries[j], int(index[i]), int(index[j]),
                        ContactPoint(found.point[k], found.normal[k], float(found.gap[k]), found.anchor_a[k],
                                     found.anchor_b[k]), float(mu[k]), float(e[k]))
            for k, (i, j) in enumerate(zip(found.first.tolist(), found.second.tolist()))]


class PointRows(NamedTuple):
    """The rows of k contacts as arrays (the fields of :class:`ContactRows`, stacked): N (k, nv), T (k, 2, nv),
    tangents (k, 2, 3), vn (k,), vt (k, 2), bias_n (k,), bias_t (k, 2)."""

    N: np.ndarray
    T: np.ndarray
    tangents: np.ndarray
    vn: np.ndarray
    vt: np.ndarray
    bias_n: np.ndarray
    bias_t: np.ndarray


def contacts_rows(snapshot, contacts):
    """:class:`ContactRows` of each contact (:func:`point_rows`)."""
    if not contacts:
        return []
    rows = point_rows(snapshot, np.array([c.body_a for c in contacts]), np.array([c.body_b for c in contacts]),
                      np.array([c.geometry.point for c in contacts]), np.array([c.geometry.normal for c in contacts]),
                      np.array([c.geometry.anchor_a for c in contacts]),
                      np.array([c.geometry.anchor_b for c in contacts]))
    return [ContactRows(*row) for row in zip(*rows)]


def point_rows(snapshot, body_a, body_b, point, normal, anchor_a, anchor_b):
    """:class:`PointRows` of k contacts between bodies body_a and body_b (k,) (−1: the world) at the world points
    ``point`` with normals ``normal`` (from B to A) and anchors (k, 3). The normal bias treats n as fixed in body B
    (exact for planes and box faces): g̈ = n·(a⁰_A − a⁰_B) + 2 ṅ·(v_A − v_B) + n̈·(r_A − r_B), ṅ = ω_B × n,
    n̈ = α_B × n + ω_B × ṅ, evaluated at the anchors; the tangential rows use the material points at the contact
    point. All contacts in one compiled call (:func:`._kinematics.contact_rows`)."""
    s = snapshot
    cm = s.model._compiled or s.model.compile()
    k, nv = len(body_a), s.nv
    N, T, tangents, out = np.empty((k, nv)), np.empty((k, 2, nv)), np.empty((k, 2, 3)), np.empty((k, 6))
    contact_rows(cm.topology, cm.params, s.R0, s.p0, s.motion_array, np.asarray(body_a, dtype=np.int64),
                 np.asarray(body_b, dtype=np.int64), *(np.ascontiguousarray(x, dtype=float).reshape(k, 3)
                                                       for x in (point, normal, anchor_a, anchor_b)),
                 N, T, tangents, out)
    return PointRows(N, T, tangents, out[:, 0], out[:, 1:3], out[:, 3], out[:, 4:6])


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
    N = np.array([r.N for r in rows]).reshape(nc, K.shape[0])
    T = np.array([r.T for r in rows]).reshape(nc, 2, K.shape[0])
    Fn = N.T.copy()  # (nv, nc) normal force columns, with kinetic friction folded in for sliding contacts
    mu = np.array([c.friction for c in contacts], dtype=float)
    for i in np.flatnonzero(sliding):
        Fn[:, i] -= mu[i] * (rows[i].vt / np.linalg.norm(rows[i].vt)) @ rows[i].T
    sticking = ~np.asarray(sliding, dtype=bool) & (mu > 0)
    owner = np.flatnonzero(sticking).tolist()
    ns = len(owner)
    z, forces_nd = contact_lcp(K, a_eq, N, Fn, T, mu, sticking, gamma_n, gamma_t, edges, regularization)
    if z is None:
        f, Q = relaxed_forces(K, a_eq, N, T, mu, gamma_n, gamma_t)
        return _relaxed_solution(a_eq + K @ Q, Q, f, rows, contacts)
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


def contact_lcp(K, a_eq, N, Fn, T, mu, sticking, gamma_n, gamma_t, edges=8, regularization=1e-10):
    """(z, F): the contact LCP of the module docstring for nc rows around ``a_eq``, solved by Lemke's method
    (:func:`_lemke_solution`), z = (λ_n (nc,), β (edges · ns,), s (ns,)) for the ns ``sticking`` contacts (their
    pyramids of ``edges`` directions on the tangent rows T (nc, 2, nv)), and the force columns F (nv, nc + edges · ns)
    with the generalized contact force Q = F z[:nc + edges · ns]; z None if Lemke's method fails.

    K (nv, nv): the compliance; N (nc, nv) the normal rows, Fn (nv, nc) the normal force columns (Nᵀ, with kinetic
    friction folded in for sliding contacts); μ (nc,); right-hand sides N a ≥ γ_n (nc,), T a = γ_t (nc, 2)."""
    nc, nv = N.shape
    owner = np.flatnonzero(sticking)
    m = nc + edges * len(owner)
    lcp, rhs, forces = np.zeros((m + len(owner),) * 2), np.empty(m + len(owner)), np.empty((nv, m))
    pyramid_lcp(np.ascontiguousarray(K, dtype=float), np.asarray(a_eq, dtype=float), np.ascontiguousarray(N),
                np.ascontiguousarray(Fn), np.ascontiguousarray(T), np.asarray(mu, dtype=float), owner,
                np.asarray(gamma_n, dtype=float), np.ascontiguousarray(np.reshape(gamma_t, (nc, 2)), dtype=float),
                _pyramid(edges), regularization, lcp, rhs, forces)
    return _lemke_solution(lcp, rhs), forces


def _lemke_solution(lcp, rhs):
    """z of LCP(lcp, rhs) by Lemke's method at each of :data:`PIVOT_TOLERANCES` until one satisfies it to
    :data:`ACCEPTED_ERROR` (:func:`~.lcp.first_solution`); None if none does. Each run stops after
    :data:`MAX_PIVOTS` (n + 1) pivots (Lemke's method takes about n on contact problems; round-off on a collapsed
    robot's 28 contacts, n = 280, had it cycling for 14,000 pivots, 99 s)."""
    z = np.empty(len(rhs))
    return z if first_solution(lcp, rhs, _TOLERANCES, MAX_PIVOTS, ACCEPTED_ERROR, z) else None


def relaxed_forces(K, a_eq, N, T, mu, gamma_n, gamma_t):
    """(f (nc, 3), Q (nv,)): projected Gauss–Seidel (the fallback of :func:`solve_contacts`): rows
    W = (N_i; T_i) per contact, relative response W K Wᵀ f + W a_eq − (γ_n,i; γ_t,i), every contact sticking
    within its Coulomb disc, constraint force mixing :data:`FALLBACK_CFM`; f per contact (λ_n, λ_t1, λ_t2) and the
    generalized force Q = Wᵀ f. Warns (once) that it is approximate."""
    warnings.warn("contact forces approximate: Lemke's method found no solution of the contact LCP (round-off on "
                  "redundant contacts, or Painlevé's paradox of sliding friction); projected Gauss–Seidel used "
                  f"instead, every contact sticking within its Coulomb disc, constraint force mixing {FALLBACK_CFM:g}",
                  ApproximateContactWarning, stacklevel=3)
    W = np.concatenate([N[:, None], T], axis=1).reshape(-1, N.shape[1])  # (3 nc, nv)
    b = W @ a_eq - np.column_stack([gamma_n, np.reshape(gamma_t, (-1, 2))]).ravel()
    f = projected_gauss_seidel(W @ K @ W.T, b, np.asarray(mu, dtype=float), cfm=FALLBACK_CFM)
    return f.reshape(-1, 3), W.T @ f


def _relaxed_solution(a, Q, f, rows, contacts):
    """The :class:`ContactSolution` of the Gauss–Seidel forces f (nc, 3) (:func:`relaxed_forces`)."""
    forces, status = [], []
    for (lam_n, *lam_t), r, c in zip(f, rows, contacts):
        lam_t = np.array(lam_t)
        forces.append(lam_n if c.geometry is None else lam_n * c.geometry.normal + lam_t @ r.tangents)
        slipping = np.linalg.norm(lam_t) >= (1 - 1e-6) * c.friction * lam_n
        status.append("separate" if lam_n <= 0 else "slip" if slipping else "stick")
    return ContactSolution(a, Q, forces, status)


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
