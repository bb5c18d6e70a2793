"""Euler–Bernoulli beams in a floating frame of reference, with the full rigid–elastic coupling and geometric
(centrifugal) stiffening.

Frames and symbols
------------------
B      the floating (body) frame, to which the beam root is clamped. The undeformed beam lies on B's x axis,
       from x = ``root`` (a hub radius) to x = ``root + length``; B's origin is the hub centre or joint point.
s      arc length along the undeformed beam from the root [m].
e      elastic coordinates (n,): nodal stretches, deflections and slopes of cubic Hermite / linear finite
       elements, or the amplitudes of the beam's lowest clamped modes (``discretize(..., modes=k)``).
u, v, w  displacement components along B's x, y, z axes (axial stretch and the two bending deflections).

A material point sits, in B axes, at (Kane, Ryan & Banerjee, J. Guidance 10(2), 1987, eqs. 1–4: the axial
variable is the *stretch*, and the foreshortening of a bent beam is kept)

    r(s, e) = r0(s) + Φ(s) e − ½ (eᵀ G(s) e) b_x,      G(s) = ∫₀ˢ (Φ'_vᵀ Φ'_v + Φ'_wᵀ Φ'_w) dσ.

The foreshortening term couples bending to the axial (centrifugal) inertia load: it is the geometric
stiffening that linear floating-frame theory (G = 0, ``stiffening=False``) misses. The equations of motion are
Kane's equations (T. R. Kane, "A new method for formulating equations of motion", eq. 14) for the beam's mass, sampled
at Gauss points: with generalized
speeds u = (ω, v, ė) — B's angular velocity and origin velocity in B axes, and the elastic rates —

    M(e) u̇ = f(e, ė, ω, v) + [N; F; 0],

where each mass element's acceleration is the covariant second derivative of the proceedings "Dynamics of Multibody
Systems — Theory, Computational Method and Application" (1992), eq. 3
(Euler ω̇ × r, Coriolis 2 ω × ṙ, centrifugal ω × (ω × r)), and [N; F] is the wrench on the beam about B's
origin in B axes (from its hub or joint). The angular rows are the generalized Euler equation of the 1992 proceedings,
eq. 19: I Ω̇ + Ω × I Ω + İ Ω + J̇ + Ω × J = N.

This module holds the beam and its discretization; the equations above are in
:mod:`multibody.dynamics.beam_equations` (:func:`~multibody.flexible.floating_frame_equations`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import ModelError, checked_number

# Gauss–Legendre rule on [0, 1]: 4 points integrate the consistent mass (degree 6) exactly.
_XI, _WEIGHT = np.polynomial.legendre.leggauss(4)
_XI, _WEIGHT = 0.5 * (_XI + 1.0), 0.5 * _WEIGHT

# nodal degree-of-freedom kinds: axial stretch, y deflection and slope, z deflection and slope
_KINDS = ("u", "v", "v'", "w", "w'")
_COMPONENT_KINDS = {"u": (0,), "v": (1, 2), "w": (3, 4)}


@dataclass(frozen=True)
class Beam:
    """A uniform, straight Euler–Bernoulli beam (physical data only; see :func:`discretize`).

    Parameters
    ----------
    length : float — L [m].
    mass_per_length : float — ρA [kg/m].
    EA : float — axial stiffness [N].
    EIv : float — bending stiffness for deflection v along B's y axis (E·I about z) [N·m²].
    EIw : float, optional — bending stiffness for deflection w along B's z axis (E·I about y) [N·m²];
        defaults to ``EIv``.
    root : float — distance of the clamped root from B's origin along x (hub radius) [m], ≥ 0.
    polar_inertia : float — ρJ, the cross-sections' moment of inertia per length about the beam axis [kg·m]
        (≥ 0). Torsion is not modelled: the cross-sections turn with B about x, adding the rigid inertia
        ρJ·L about B's x axis (without it a slender beam has none, and free rotation about its axis is singular).
    """

    length: float
    mass_per_length: float
    EA: float
    EIv: float
    EIw: float | None = None
    root: float = 0.0
    polar_inertia: float = 0.0

    def __post_init__(self):
        if self.EIw is None:
            object.__setattr__(self, "EIw", self.EIv)
        for field in ("length", "mass_per_length", "EA", "EIv", "EIw", "root", "polar_inertia"):
            positive = field not in ("root", "polar_inertia")  # (root and polar inertia may be zero)
            object.__setattr__(self, field, checked_number(getattr(self, field), f"Beam: {field}", positive=positive,
                                                           nonnegative=not positive))


class DiscretizedBeam:
    """A discretized :class:`Beam`: the constant arrays of its finite elements (or modes) at Gauss points.

    Attributes
    ----------
    beam : Beam; components : str ("u", "v", "w" present); boundary : "clamped" | "free".
    n : number of elastic coordinates.
    s : (N,) arc length of the Gauss points from the root [m]; mass : (N,) their masses ρA·ds [kg].
    r0 : (N, 3) undeformed positions in B [m].
    Phi, dPhi : (N, 3, n) displacement shape rows Φ and their arc-length derivatives Φ' [1, 1/m].
    M, K : (n, n) elastic mass [kg] and stiffness [N/m] matrices (in the elastic coordinates).
    tip : (3, n) displacement rows Φ at the free end.
    basis : (nfe, n) finite-element → elastic coordinates (identity, or mass-normalized clamped modes).
    """

    def __init__(self, beam, elements, boundary, components, basis_modes):
        self.beam, self.elements, self.boundary, self.components = beam, elements, boundary, components
        h = beam.length / elements
        dofs = _number_dofs(elements, boundary, components)
        nfe = int(dofs.max()) + 1
        rows = [_shape_rows(dofs, nfe, h, el, xi) for el in range(elements) for xi in _XI]
        Phi, dPhi, ddPhi = (np.array([r[k] for r in rows]) for k in range(3))
        self.s = np.array([(el + xi) * h for el in range(elements) for xi in _XI])
        ds = np.tile(_WEIGHT * h, elements)
        self.mass = beam.mass_per_length * ds
        # K = ∫ (EA u'² + EIv v''² + EIw w''²) ds — strain energy ½ eᵀ K e
        stiffness = np.array([beam.EA, beam.EIv, beam.EIw])
        K = np.einsum("g,gai,a,gaj->ij", ds, np.concatenate([dPhi[:, :1], ddPhi[:, 1:]], axis=1), stiffness,
                      np.concatenate([dPhi[:, :1], ddPhi[:, 1:]], axis=1))
        M = np.einsum("g,gai,gaj->ij", self.mass, Phi, Phi)
        basis = np.eye(nfe) if basis_modes is None else _clamped_modes(K, M, dofs, components, basis_modes)
        self.basis = basis
        self.Phi, self.dPhi = Phi @ basis, dPhi @ basis
        self.M, self.K = basis.T @ M @ basis, basis.T @ K @ basis
        self.tip = _shape_rows(dofs, nfe, h, elements - 1, 1.0)[0] @ basis
        self.r0 = np.zeros((self.s.size, 3))
        self.r0[:, 0] = beam.root + self.s
        self._dofs, self._h = dofs, h

    @property
    def n(self):
        return self.K.shape[0]

    @cached_property
    def G(self):
        """(N, n, n) foreshortening matrices G(s_g) = ∫₀^{s_g} (Φ'_vᵀΦ'_v + Φ'_wᵀΦ'_w) dσ at the Gauss points."""
        nfe = self.basis.shape[0]
        return np.array([self._slopes_before[el] + _slope_integral(self, nfe, el, xi)
                         for el in range(self.elements) for xi in _XI])

    @cached_property
    def _slopes_before(self):
        """(elements, n, n) ∫ (Φ'_vᵀΦ'_v + Φ'_wᵀΦ'_w) ds over the elements before each one."""
        nfe = self.basis.shape[0]
        whole = [_slope_integral(self, nfe, el, 1.0) for el in range(self.elements - 1)]
        return np.cumsum([np.zeros((self.n, self.n)), *whole], axis=0)

    @property
    def coordinate_kinds(self):
        """Per elastic coordinate: "L" (a stretch or deflection [m]), "A" (a slope [rad]) or "M" (a mass-normalized
        modal amplitude [√kg·m])."""
        if self.basis.shape[0] != self.n or not np.array_equal(self.basis, np.eye(self.n)):
            return "M" * self.n
        kind = np.empty(self.n, dtype=int)
        nodes, columns = np.nonzero(self._dofs >= 0)
        kind[self._dofs[nodes, columns]] = columns
        return "".join("LLALA"[k] for k in kind)

    def rows_at(self, s):
        """Φ(s) (3, n), Φ'(s) (3, n) [1, 1/m] and G(s) (n, n) [1/m] at arc length s [m] from the root, 0 ≤ s ≤ L."""
        el = min(int(s / self._h), self.elements - 1)
        xi = s / self._h - el
        Phi, dPhi, _ = _shape_rows(self._dofs, self.basis.shape[0], self._h, el, xi)
        return Phi @ self.basis, dPhi @ self.basis, self._slopes_before[el] + _slope_integral(
            self, self.basis.shape[0], el, xi)

    def displacement(self, e, s=None):
        """Displacement (3,) [m] in B axes of the point at arc length ``s`` (default: the tip), linear part Φ e."""
        return self.tip @ e if s is None else self.rows_at(s)[0] @ e

    def __repr__(self):
        return (f"DiscretizedBeam(L={self.beam.length} m, {self.elements} elements, components='{self.components}', "
                f"{self.boundary}, n={self.n})")


def discretize(beam, elements=10, boundary="clamped", components="uvw", modes=None):
    """Finite-element model of ``beam``: linear axial and cubic Hermite bending elements.

    Parameters
    ----------
    elements : int — number of equal elements.
    boundary : "clamped" (root clamped in B: the floating-frame reference condition) or "free".
    components : str — which displacements to model: any of "u" (axial), "v" (y bending), "w" (z bending);
        "u" alone is a rod, "uv" a beam moving in B's x–y plane.
    modes : int, optional — keep only the ``modes`` lowest clamped modes of each component (assumed-modes
        discretization; the modes come from the finite elements).
    """
    if not isinstance(elements, (int, np.integer)) or elements < 1:
        raise ModelError(f"discretize: elements must be a positive integer, got {elements!r}")
    if boundary not in ("clamped", "free"):
        raise ModelError(f"discretize: boundary must be 'clamped' or 'free', got {boundary!r}")
    if not components or set(components) - set("uvw") or len(set(components)) != len(components):
        raise ModelError(f"discretize: components must be distinct letters of 'uvw', got {components!r}")
    if modes is not None:
        if boundary != "clamped":
            raise ModelError("discretize: modes (assumed modes) need boundary='clamped'")
        per_node = {"u": 1, "v": 2, "w": 2}
        if not isinstance(modes, (int, np.integer)) or not 1 <= modes <= min(per_node[c] * elements for c in components):
            raise ModelError(f"discretize: modes must be an integer from 1 to the number of element dofs of a "
                             f"component, got {modes!r}")
    return DiscretizedBeam(beam, int(elements), boundary, "".join(c for c in "uvw" if c in components), modes)


def _number_dofs(elements, boundary, components):
    """(nodes, 5) index of each nodal dof kind (−1 if absent); the clamped root node has none."""
    dofs = -np.ones((elements + 1, len(_KINDS)), dtype=int)
    active = sorted(k for c in components for k in _COMPONENT_KINDS[c])
    first = 1 if boundary == "clamped" else 0
    dofs[first:, active] = np.arange((elements + 1 - first) * len(active)).reshape(-1, len(active))
    return dofs


def _shape_rows(dofs, nfe, h, el, xi):
    """Φ, Φ', Φ'' (each (3, nfe)) at local coordinate xi ∈ [0, 1] of element ``el`` of length h:
    linear axial and cubic Hermite bending shape functions, derivatives with respect to arc length."""
    rows = np.zeros((3, 3, nfe))
    linear = [(1 - xi, -1 / h, 0.0), (xi, 1 / h, 0.0)]
    hermite = [(1 - 3 * xi**2 + 2 * xi**3, (-6 * xi + 6 * xi**2) / h, (-6 + 12 * xi) / h**2),
               (h * (xi - 2 * xi**2 + xi**3), 1 - 4 * xi + 3 * xi**2, (-4 + 6 * xi) / h),
               (3 * xi**2 - 2 * xi**3, (6 * xi - 6 * xi**2) / h, (6 - 12 * xi) / h**2),
               (h * (-xi**2 + xi**3), -2 * xi + 3 * xi**2, (-2 + 6 * xi) / h)]
    for node, values in zip((el, el + 1), linear):
        if dofs[node, 0] >= 0:
            rows[:, 0, dofs[node, 0]] = values
    for component, (value_kind, slope_kind) in ((1, (1, 2)), (2, (3, 4))):
        for k, (node, kind) in enumerate(((el, value_kind), (el, slope_kind), (el + 1, value_kind), (el + 1, slope_kind))):
            if dofs[node, kind] >= 0:
                rows[:, component, dofs[node, kind]] = hermite[k]
    return rows[0], rows[1], rows[2]


def _slope_integral(fb, nfe, el, xi):
    """∫ (Φ'_vᵀΦ'_v + Φ'_wᵀΦ'_w) ds over element ``el`` from its start to local coordinate xi (Gauss rule)."""
    total = np.zeros((fb.n, fb.n))
    for x, wt in zip(xi * _XI, xi * _WEIGHT):
        slope = _shape_rows(fb._dofs, nfe, fb._h, el, x)[1][1:] @ fb.basis
        total += wt * fb._h * slope.T @ slope
    return total


def _clamped_modes(K, M, dofs, components, count):
    """(nfe, k) mass-normalized lowest ``count`` modes of each component (they decouple when not rotating)."""
    from scipy.linalg import eigh
    columns = []
    for c in components:
        idx = np.sort(dofs[:, list(_COMPONENT_KINDS[c])].ravel())
        idx = idx[idx >= 0]
        _, vectors = eigh(K[np.ix_(idx, idx)], M[np.ix_(idx, idx)], subset_by_index=[0, count - 1])
        block = np.zeros((K.shape[0], count))
        block[idx] = vectors
        columns.append(block)
    return np.hstack(columns)
