"""Convex polytopes for contact: the hull of a point cloud (a robot's collision mesh), the few contact points
that stand for a face or edge resting on a plane, and the signed distance of two polytopes, one of them maybe
rounded (a sphere is a point, a capsule a segment, each with its radius).

Two polytopes A and B (vertex sets) are apart by the distance from the origin to their Minkowski difference
A − B = {a − b}, a polytope whose support point in a direction is A's support point minus B's in the opposite one.
Separated, that distance and the closest points come from the Gilbert–Johnson–Keerthi algorithm (Gilbert, Johnson
& Keerthi 1988, :func:`gjk_distance`); overlapping, the penetration depth is the distance from the origin to the
boundary of A − B (Cameron & Culley 1986: the minimum translation that separates them), the nearest of its facets
(:func:`penetration`, by the expanding polytope algorithm, EPA, van den Bergen 2001, from GJK's last simplex).
All of it is compiled, callable from the compiled narrow phase (:mod:`._narrow`).

A mesh touches a plane along a face, an edge or at a vertex; its vertices below the plane all touch, and a
flat face of a finely tessellated mesh puts dozens of them there at once. Those contacts are redundant for the
contact solver (their rows have rank ≤ 3 in the normal direction), so the set is cut to at most
:data:`MAX_PLANE_CONTACTS` points that span it, as MuJoCo keeps a few contacts per convex–plane pair (Todorov,
Erez & Tassa 2012): the deepest vertex, then each time the vertex farthest from those already kept (farthest-point
sampling, Gonzalez 1985, a 2-approximation of the set's spread).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from scipy.spatial import ConvexHull as _Qhull
from scipy.spatial import QhullError

MAX_PLANE_CONTACTS = 4


def hull_vertices(points: np.ndarray, source: str) -> np.ndarray:
    """The vertices (k, 3) of the convex hull of ``points`` (n, 3) [m] (Quickhull, Barber, Dobkin & Huhdanpaa
    1996, by qhull), in the order of ``points``. ``source`` names the points in errors (a mesh file)."""
    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or points.shape[1] != 3 or len(points) < 4 or not np.all(np.isfinite(points)):
        raise ValueError(f"{source}: a convex hull needs at least 4 finite points (n, 3), got shape "
                         f"{points.shape}")
    try:
        hull = _Qhull(points)
    except QhullError as exc:  # flat or degenerate: no volume
        raise ValueError(f"{source}: the points span no volume (flat or degenerate), no convex hull: "
                         f"{str(exc).splitlines()[0]}") from None
    return points[np.sort(hull.vertices)]


@njit(cache=True)
def spread_contacts(points: np.ndarray, gaps: np.ndarray, count: int = MAX_PLANE_CONTACTS) -> np.ndarray:
    """Indices of at most ``count`` of ``points`` (k, 3) that span them: the one of smallest gap (the deepest),
    then each time the point farthest from those chosen (farthest-point sampling; ties: the first). Compiled."""
    k = points.shape[0]
    chosen = np.empty(min(count, k), dtype=np.int64)
    chosen[0] = np.argmin(gaps)
    nearest = np.empty(k)
    for i in range(k):
        nearest[i] = _distance(points, i, chosen[0])
    kept = 1
    while kept < chosen.shape[0] and nearest.max() > 0.0:
        far = np.argmax(nearest)
        chosen[kept] = far
        kept += 1
        for i in range(k):
            nearest[i] = min(nearest[i], _distance(points, i, far))
    return chosen[:kept]


@njit(cache=True)
def _distance(points, i, j):
    """|points[i] − points[j]| (in scalars: no array per point)."""
    x, y, z = points[i, 0] - points[j, 0], points[i, 1] - points[j, 1], points[i, 2] - points[j, 2]
    return np.sqrt(x * x + y * y + z * z)


@njit(cache=True)
def _norm(x):
    return np.sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2])


@njit(cache=True)
def _cross(x, y):
    return np.array([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]])


@njit(cache=True)
def closest_on_simplex(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, weights): the point x of the simplex conv(points) ((k, 3), k ≤ 4) nearest the origin and its barycentric
    weights (k,) (zero on the points it does not need). Johnson's distance subalgorithm (Gilbert, Johnson & Keerthi
    1988, §4) by enumeration: of the faces of the simplex (the subsets of its points), the one whose affine hull's
    point nearest the origin has nonnegative weights, and is nearest. That point is p_0 + Σ μ_a e_a, e_a = p_a − p_0,
    with the normal equations G μ = −Eᵀ p_0, G = EᵀE, solved by Cramer's rule; a face whose Gram determinant is
    below 1e-12 of the product of its diagonal (a flat one) is left to its sub-faces. Compiled, in scalars."""
    k = points.shape[0]
    best, weights, x_best = np.inf, np.zeros(k), np.zeros(3)
    face, lam, E, G, r = np.empty(4, dtype=np.int64), np.empty(4), np.empty((3, 3)), np.empty((3, 3)), np.empty(3)
    for mask in range(1, 2 ** k):
        n = 0
        for i in range(k):
            if mask >> i & 1:
                face[n] = i
                n += 1
        f0 = face[0]
        lam[0] = 1.0
        if n > 1:
            m = n - 1
            for a in range(m):
                for c in range(3):
                    E[a, c] = points[face[a + 1], c] - points[f0, c]
                r[a] = -(E[a, 0] * points[f0, 0] + E[a, 1] * points[f0, 1] + E[a, 2] * points[f0, 2])
                for b in range(a + 1):
                    G[a, b] = G[b, a] = E[a, 0] * E[b, 0] + E[a, 1] * E[b, 1] + E[a, 2] * E[b, 2]
            if not _cramer(G, r, m, lam):
                continue
            for a in range(m):
                lam[0] -= lam[a + 1]
        x0 = x1 = x2 = 0.0
        smallest = np.inf
        for t in range(n):
            x0 += lam[t] * points[face[t], 0]
            x1 += lam[t] * points[face[t], 1]
            x2 += lam[t] * points[face[t], 2]
            smallest = min(smallest, lam[t])
        if smallest >= -1e-12 and x0 * x0 + x1 * x1 + x2 * x2 < best:
            best = x0 * x0 + x1 * x1 + x2 * x2
            x_best[0], x_best[1], x_best[2] = x0, x1, x2
            weights[:] = 0.0
            for t in range(n):
                weights[face[t]] = lam[t]
    return x_best, weights


@njit(cache=True)
def _cramer(G, r, m, lam):
    """lam[1:m + 1] = the solution μ of G μ = r (the leading m × m block of a Gram matrix, m ≤ 3) by Cramer's rule;
    False, and lam untouched, where det G is below 1e-12 of the product of its diagonal (a flat face)."""
    if m == 1:
        det = G[0, 0]
    elif m == 2:
        det = G[0, 0] * G[1, 1] - G[0, 1] * G[1, 0]
    else:
        det = _det3(G[0, 0], G[0, 1], G[0, 2], G[1, 0], G[1, 1], G[1, 2], G[2, 0], G[2, 1], G[2, 2])
    if not abs(det) > 1e-12 * G[0, 0] * (G[1, 1] if m > 1 else 1.0) * (G[2, 2] if m > 2 else 1.0):
        return False
    if m == 1:
        lam[1] = r[0] / det
    elif m == 2:
        lam[1], lam[2] = (r[0] * G[1, 1] - G[0, 1] * r[1]) / det, (G[0, 0] * r[1] - r[0] * G[1, 0]) / det
    else:
        lam[1] = _det3(r[0], G[0, 1], G[0, 2], r[1], G[1, 1], G[1, 2], r[2], G[2, 1], G[2, 2]) / det
        lam[2] = _det3(G[0, 0], r[0], G[0, 2], G[1, 0], r[1], G[1, 2], G[2, 0], r[2], G[2, 2]) / det
        lam[3] = _det3(G[0, 0], G[0, 1], r[0], G[1, 0], G[1, 1], r[1], G[2, 0], G[2, 1], r[2]) / det
    return True


@njit(cache=True)
def _det3(a, b, c, d, e, f, g, h, i):
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


@njit(cache=True)
def _farthest(P, d0, d1, d2):
    """The index of the point of P (n, 3) farthest along (d0, d1, d2) (the first of equals)."""
    best, far = -np.inf, 0
    for i in range(P.shape[0]):
        along = P[i, 0] * d0 + P[i, 1] * d1 + P[i, 2] * d2
        if along > best:
            best, far = along, i
    return far


@njit(cache=True)
def gjk_distance(A: np.ndarray, B: np.ndarray, max_iterations: int = 64) -> tuple[float, np.ndarray, np.ndarray]:
    """(distance, a, b): the distance [m] between the convex hulls of vertex sets A (n, 3) and B (m, 3) and their
    closest points a on A and b on B (Gilbert, Johnson & Keerthi 1988): the simplex of support points
    w = s_A(−x) − s_B(x) of A − B closes on the origin until w brings x no nearer (|x|² − x·w ≤ 1e-12 |x|², or w
    is in the simplex already).
    Distance 0: the hulls overlap or touch (a and b are then not meaningful: :func:`penetration`). Compiled."""
    simplex, on_a, on_b, weights = np.empty((4, 3)), np.empty((4, 3)), np.empty((4, 3)), np.ones(4)
    count, x = gjk_simplex(A, B, simplex, on_a, on_b, weights, max_iterations)
    return np.sqrt(x @ x), weights[:count] @ on_a[:count], weights[:count] @ on_b[:count]


@njit(cache=True)
def gjk_simplex(A, B, simplex, on_a, on_b, weights, max_iterations=64):
    """The iteration of :func:`gjk_distance`: (count, x), x the point of A − B nearest the origin, the convex
    combination of the first ``count`` points of ``simplex`` (4, 3) with ``weights`` (4,) (their parts of A and B in
    ``on_a``, ``on_b``); count 4 or x = 0: the hulls overlap or touch (the simplex starts :func:`penetration`)."""
    simplex[0], on_a[0], on_b[0], weights[0] = A[0] - B[0], A[0], B[0], 1.0
    count, x = 1, A[0] - B[0]
    for _ in range(max_iterations):
        if x @ x < 1e-24:
            break
        a, b = A[_farthest(A, -x[0], -x[1], -x[2])], B[_farthest(B, x[0], x[1], x[2])]
        if x @ x - x @ (a - b) <= 1e-12 * (x @ x) or _kept(simplex, count, a - b):
            break
        simplex[count], on_a[count], on_b[count] = a - b, a, b
        x, lam = closest_on_simplex(simplex[:count + 1].copy())
        count = 0
        for i in range(len(lam)):  # keep the points x needs
            if lam[i] > 0.0:
                simplex[count], on_a[count], on_b[count], weights[count] = simplex[i], on_a[i], on_b[i], lam[i]
                count += 1
        if count == 4:
            x = np.zeros(3)
            break
    return count, x


@njit(cache=True)
def _kept(simplex, count, w):
    """Whether w is one of the first ``count`` points of ``simplex`` already (no progress: x is the nearest)."""
    for i in range(count):
        if simplex[i, 0] == w[0] and simplex[i, 1] == w[1] and simplex[i, 2] == w[2]:
            return True
    return False


MAX_POLYTOPE_VERTICES = 128  # the expanding polytope's vertices (support points of A − B) at most
_MAX_FACES = 8 * MAX_POLYTOPE_VERTICES


@njit(cache=True)
def penetration(A: np.ndarray, B: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """(depth, u, a, b) of overlapping convex hulls of vertex sets A (n, 3) and B (m, 3): the distance [m] from the
    origin to the boundary of A − B, the outward unit normal u of the facet where it is nearest (Cameron & Culley
    1986: moving A by −depth u separates them), and the points a of A and b of B with a − b = depth u, the origin's
    projection on that facet. The facet is found by the expanding polytope algorithm (EPA, van den Bergen 2001)
    from GJK's last simplex (:func:`gjk_simplex`): exact for polytopes, its faces being triangles of vertices of
    A − B. Compiled."""
    simplex, on_a, on_b, weights = np.empty((4, 3)), np.empty((4, 3)), np.empty((4, 3)), np.ones(4)
    count, _ = gjk_simplex(A, B, simplex, on_a, on_b, weights, 64)
    return expanded_polytope(A, B, simplex, on_a, on_b, count)


@njit(cache=True)
def _support(A, B, d):
    """The support point of A − B along d and its parts (w, a, b): a maximizes d·a over A, b minimizes d·b over B."""
    a, b = A[_farthest(A, d[0], d[1], d[2])], B[_farthest(B, -d[0], -d[1], -d[2])]
    return a - b, a, b


@njit(cache=True)
def _add_face(F, N, D, alive, faces, V, i, j, k):
    """Face (i, j, k) of vertices V, counter-clockwise seen from outside: its unit normal and the origin's signed
    distance below its plane n·v_i."""
    n = _cross(V[j] - V[i], V[k] - V[i])
    n = n / max(_norm(n), 1e-300)
    F[faces, 0], F[faces, 1], F[faces, 2] = i, j, k
    N[faces], D[faces], alive[faces] = n, n @ V[i], True
    return faces + 1


@njit(cache=True)
def expanded_polytope(A, B, simplex, on_a, on_b, count):
    """(depth, u, a, b) of :func:`penetration` from GJK's last simplex (``count`` points of ``simplex`` (4, 3),
    their parts ``on_a``, ``on_b``). The simplex is first grown to a tetrahedron of support points around the
    origin (:func:`_tetrahedron`); then each time the face nearest the origin is pushed out to the support point
    along its normal (:func:`_expanded`), until the support point is no farther than the face (1e-13 of the size);
    the answer is read on the nearest face (:func:`_nearest_face`)."""
    scale = 1.0 + np.abs(A).max() + np.abs(B).max()
    eps, tol = 1e-10 * scale, 1e-13 * scale
    V, Va, Vb = np.empty((MAX_POLYTOPE_VERTICES, 3)), np.empty((MAX_POLYTOPE_VERTICES, 3)), \
        np.empty((MAX_POLYTOPE_VERTICES, 3))
    V[:count], Va[:count], Vb[:count] = simplex[:count], on_a[:count], on_b[:count]
    count = _tetrahedron(A, B, V, Va, Vb, count, eps)
    if count < 4 or abs(_cross(V[1] - V[0], V[2] - V[0]) @ (V[3] - V[0])) < eps ** 3:
        return 0.0, np.array([0.0, 0.0, 1.0]), Va[0].copy(), Vb[0].copy()  # A − B flat: no depth
    F, N = np.empty((_MAX_FACES, 3), dtype=np.int64), np.empty((_MAX_FACES, 3))
    D, alive = np.empty(_MAX_FACES), np.zeros(_MAX_FACES, dtype=np.bool_)
    faces = _expanded(A, B, V, Va, Vb, F, N, D, alive, tol)
    return _nearest_face(V, Va, Vb, F, N, D, alive, faces, tol)


@njit(cache=True)
def _tetrahedron(A, B, V, Va, Vb, count, eps):
    """The number of points of the simplex in V (its parts in Va, Vb) once grown to a tetrahedron of support
    points of A − B: a degenerate simplex first loses its last point (a flat tetrahedron, a thin triangle, a point
    twice); then a second point along ±x, ±y, ±z, a third around the segment, a fourth to the side of the triangle's
    plane that A − B reaches beyond it. Fewer than 4 where A − B is flat."""
    if count == 4 and abs(_cross(V[1] - V[0], V[2] - V[0]) @ (V[3] - V[0])) < eps ** 3:
        count = 3
    if count == 3 and _norm(_cross(V[1] - V[0], V[2] - V[0])) < eps ** 2:
        count = 2
    if count == 2 and _norm(V[1] - V[0]) < eps:
        count = 1
    if count == 1:  # a second point: the first support point along ±x, ±y, ±z away from the first
        for k in range(6):
            d = np.zeros(3)
            d[k // 2] = 1.0 if k % 2 == 0 else -1.0
            w, a, b = _support(A, B, d)
            if _norm(w - V[0]) > eps:
                V[1], Va[1], Vb[1] = w, a, b
                count = 2
                break
    if count == 2:  # a third: around the segment, in six directions perpendicular to it
        axis = V[1] - V[0]
        e = np.zeros(3)
        e[np.argmin(np.abs(axis))] = 1.0
        u = _cross(axis, e)
        u = u / _norm(u)
        v = _cross(axis / _norm(axis), u)
        for k in range(6):
            d = np.cos(k * np.pi / 3.0) * u + np.sin(k * np.pi / 3.0) * v
            w, a, b = _support(A, B, d)
            if _norm(_cross(w - V[0], axis)) > eps * _norm(axis):
                V[2], Va[2], Vb[2] = w, a, b
                count = 3
                break
    if count == 3:  # a fourth: to the side of the triangle's plane that A − B reaches beyond it
        n = _cross(V[1] - V[0], V[2] - V[0])
        n = n / _norm(n)
        w, a, b = _support(A, B, n)
        if (w - V[0]) @ n <= eps:
            w, a, b = _support(A, B, -n)
        V[3], Va[3], Vb[3] = w, a, b
        count = 4
    return count


@njit(cache=True)
def _expanded(A, B, V, Va, Vb, F, N, D, alive, tol):
    """The number of faces (F: vertex indices, N: outward unit normals, D: distances from the origin, alive) of the
    polytope grown from the tetrahedron V[:4] (EPA): each time the face nearest the origin is pushed out to the
    support point w along its normal, the faces w sees (grown from the nearest over shared edges) replaced by the
    fan from their horizon (their edges not shared among them) to w, until w is no farther than the face."""
    faces = 0
    inside = 0.25 * (V[0] + V[1] + V[2] + V[3])
    for i, j, k in ((0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2)):
        if _cross(V[j] - V[i], V[k] - V[i]) @ (V[i] - inside) < 0.0:
            j, k = k, j
        faces = _add_face(F, N, D, alive, faces, V, i, j, k)
    vertices = 4
    visible = np.empty(_MAX_FACES, dtype=np.int64)
    horizon = np.empty((3 * _MAX_FACES, 2), dtype=np.int64)
    while True:
        nearest, best = -1, np.inf
        for f in range(faces):
            if alive[f] and D[f] < best:
                nearest, best = f, D[f]
        w, a, b = _support(A, B, N[nearest])
        if w @ N[nearest] - D[nearest] <= tol or vertices == MAX_POLYTOPE_VERTICES or faces + 64 > _MAX_FACES:
            return faces
        V[vertices], Va[vertices], Vb[vertices] = w, a, b
        seen = 0
        visible[seen] = nearest
        seen += 1
        alive[nearest] = False
        grown = 0
        while grown < seen:
            f = visible[grown]
            grown += 1
            for g in range(faces):
                if alive[g] and _above(N, V, F[g, 0], g, w) > tol and _shares_edge(F, f, g):
                    alive[g] = False
                    visible[seen] = g
                    seen += 1
        edges = 0
        for s in range(seen):
            f = visible[s]
            for e in range(3):
                i, j = F[f, e], F[f, (e + 1) % 3]
                shared = False
                for t in range(seen):
                    g = visible[t]
                    if t != s and ((F[g, 0] == j and F[g, 1] == i) or (F[g, 1] == j and F[g, 2] == i)
                                   or (F[g, 2] == j and F[g, 0] == i)):
                        shared = True
                        break
                if not shared:
                    horizon[edges, 0], horizon[edges, 1] = i, j
                    edges += 1
        for e in range(edges):
            faces = _add_face(F, N, D, alive, faces, V, horizon[e, 0], horizon[e, 1], vertices)
        vertices += 1


@njit(cache=True)
def _nearest_face(V, Va, Vb, F, N, D, alive, faces, tol):
    """(depth, u, a, b) on the polytope's nearest face: of the faces as near as the nearest (a facet of A − B cut
    in triangles), the one holding the origin's foot (its barycentric weights' least the largest), with the points
    a on A and b on B at the foot's weights."""
    nearest, most = -1, np.inf
    for f in range(faces):
        if alive[f] and D[f] < most:
            nearest, most = f, D[f]
    best, depth, u = -np.inf, most, N[nearest].copy()  # (a degenerate face's weights are not finite: skipped)
    a, b = Va[F[nearest, 0]].copy(), Vb[F[nearest, 0]].copy()
    for f in range(faces):
        if alive[f] and D[f] <= most + tol:
            foot = D[f] * N[f]
            i, j, k = F[f, 0], F[f, 1], F[f, 2]
            area = N[f] @ _cross(V[j] - V[i], V[k] - V[i])
            lam = np.array([N[f] @ _cross(V[j] - foot, V[k] - foot), N[f] @ _cross(V[k] - foot, V[i] - foot),
                            N[f] @ _cross(V[i] - foot, V[j] - foot)]) / area
            if lam.min() > best:
                best, depth, u = lam.min(), D[f], N[f].copy()
                a = lam[0] * Va[i] + lam[1] * Va[j] + lam[2] * Va[k]
                b = lam[0] * Vb[i] + lam[1] * Vb[j] + lam[2] * Vb[k]
    return depth, u, a, b


@njit(cache=True)
def _above(N, V, i, f, w):
    """The height of w above the plane of face f (unit normal N[f], through vertex V[i])."""
    return N[f, 0] * (w[0] - V[i, 0]) + N[f, 1] * (w[1] - V[i, 1]) + N[f, 2] * (w[2] - V[i, 2])


@njit(cache=True)
def _shares_edge(F, f, g):
    """Whether faces f and g of F have two vertices in common."""
    common = 0
    for x in range(3):
        for y in range(3):
            if F[f, x] == F[g, y]:
                common += 1
    return common >= 2
