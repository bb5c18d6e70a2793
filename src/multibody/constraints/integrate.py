"""Steps of constrained and contact systems: projection onto the constraint manifold, and a time-stepping scheme
for contact. :func:`multibody.simulate` runs them (``method="RK4"`` or ``"Euler"`` with ``projection``,
``method="contact"``).

*Projection* (after each RK4 or Euler step of :func:`multibody.simulate` on a model with constraints): q onto
φ(q) = 0 (Newton, :func:`.assembly.assemble_positions`) and v onto J v = b in the kinetic-energy metric
(:func:`.assembly.assemble_velocities`). The drift max|φ| and max|J v − b| found *before* each projection is
recorded in ``Trajectory.drift``.

``"contact"`` (unilateral contact, Stewart & Trinkle 1996; Anitescu & Potra 1997): semi-implicit Euler at the
velocity level, M (v⁺ − v) = h (τ − c) + Jᵀλ (M + h D in place of M, D = −∂Q/∂q̇ the joint forces' slope: the
dampers' c, implicit as in MuJoCo's Euler, and the smoothed friction's F_c/v_s sech²(q̇/v_s); explicit, either
blows up on a small inertia once h·D/I > 2, as a URDF's joint friction does at rest), with J v⁺ = b − (erp/h) φ for
equality constraints and one LCP (:mod:`.contact`) for the contacts and the joint limits' bounds
(:mod:`.limits`, frictionless rows in generalized coordinates): n·v⁺ ≥ −gap/h (−erp·gap/h when penetrating),
the contacts' tangential velocity zero inside the friction pyramid. Only rows that close within the step take
part: those the free motion closes (n·(v + h a) < −gap/h, a the equality-constrained acceleration) or that
touch, then any the others' impulses close, re-solved until none is left out; so nothing gets an impulse at a
distance. A closing row approaching faster than ``bounce_velocity`` gets Newton's restitution, n·v⁺ ≥ −e n·v⁻.
Contacts are sought within ``margin`` + h · (a bound on the geometries' speed). Then q⁺ = q ⊕ h v⁺.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dynamics import aba, crba, integrate, nonlinear_effects
from ..dynamics._tree_factor import dof_parents
from ..model.joint_forces import joint_force_rows
from ._equality_rows import RCOND, constrained_motion
from ._kinematics import Snapshot
from ._narrow import speed_bound
from ._step import closing_velocity, free_acceleration
from .assembly import assemble_positions, assemble_velocities, constraint_drift
from .contact import (ACCEPTED_ERROR, MAX_PIVOTS, _TOLERANCES, _pyramid, coefficient_arrays, found_contacts,
                      geometry_arrays, point_rows, relaxed_forces)
from .gauss import free_compliance
from .limits import bound_arrays, enforced_limits
from .types import stack

if TYPE_CHECKING:
    from ..model import Model

EDGES = 8  # edges of the friction pyramid
REGULARIZATION = 1e-10  # the LCP's diagonal regularization, relative to its mean diagonal
MARGIN, ERP, BOUNCE_VELOCITY = 1e-3, 0.2, 0.1  # [m], the error reduction per step, [m/s]: contact_step's defaults


def project(model, q, v):
    """(q, v, position drift, velocity drift): the state projected onto the constraint manifold, and the
    max|φ|, max|J v − b| it had before."""
    drift = constraint_drift(model, q, v)
    q = assemble_positions(model, q)
    return q, assemble_velocities(model, q, v), *drift


def _speed_bound(model, s):
    """An upper bound [m/s] on the speed of any point of any geometry (to widen the contact search by h · speed):
    :func:`._narrow.speed_bound`."""
    index, _, origin, radius, _ = geometry_arrays(model)
    return speed_bound(index, origin, radius, s.dp, s.w)


def joint_force_slope(model, v):
    """D (nv,) = −∂Q/∂q̇ [N·m·s/rad or N·s/m] of the joint dampers and smoothed friction at the speeds v:
    c + F_c/v_s sech²(q̇/v_s) summed per joint (the Python twin of
    :func:`multibody.simulate.forces.add_joint_force_slope`), the matrix of the linearly implicit step."""
    rows, _ = joint_force_rows(model)
    iv, slope, rubbing = rows[:, 1].astype(np.int64), rows[:, 4].copy(), rows[:, 5] > 0.0
    scale = rows[rubbing, 6]
    slope[rubbing] += rows[rubbing, 5] / scale * (1.0 - np.tanh(v[iv[rubbing]] / scale) ** 2)
    D = np.zeros(model.nv)
    np.add.at(D, iv, slope)
    return D


def step_settings(margin, erp, bounce_velocity):
    """The compiled step's settings: (margin [m], erp, bounce_velocity [m/s], LCP regularization, accepted LCP
    error, Lemke's pivots per unknown), the pyramid's edge directions (edges, 2) and Lemke's pivot tolerances."""
    return (np.array([margin, erp, bounce_velocity, REGULARIZATION, ACCEPTED_ERROR, MAX_PIVOTS], dtype=float),
            _pyramid(EDGES), _TOLERANCES)


def contact_step(model, q, v, dt, tau=None, margin=MARGIN, erp=ERP, bounce_velocity=BOUNCE_VELOCITY, limits=None):
    """One velocity-level time step with contacts, joint limits and constraints (see module docstring); returns
    (q⁺, v⁺). ``limits``: the :class:`~multibody.JointLimit` s and :class:`~multibody.TendonLimit` s to enforce
    (default :func:`~multibody.constraints.limits.enforced_limits`, the model's and the joints' and tendons' stored
    limits)."""
    h = dt
    s = Snapshot(model, q, v)
    rows, _ = stack(model, s)
    slope = joint_force_slope(model, v)
    if slope.any():  # implicit in the joint forces' slope D: (M + h D)(v⁺ − v) = h (τ − c)
        M = crba(model, q)
        M[np.diag_indices_from(M)] += h * slope
        a_free, lam = np.empty(model.nv), np.empty(model.nv)
        dof_parents((model._compiled or model.compile()).topology, lam)
        if not free_acceleration(M.copy(), lam, tau - nonlinear_effects(model, q, v), a_free):
            raise np.linalg.LinAlgError(f"model '{model.name}': M + h D is not positive definite")
    else:
        M, a_free = crba(model, q), aba(model, q, v, tau)
    # Gauss's principle with J (v + h a) = b − (erp/h) φ: the acceleration a and the compliance K of the contacts
    K, a = free_compliance(M), np.array(a_free, dtype=float)
    constrained_motion(a, K, np.ascontiguousarray(rows.J), (rows.b - rows.J @ v - erp / h * rows.phi) / h, RCOND)
    g = model.gravity
    found = found_contacts(model, s, margin + h * (_speed_bound(model, s) + h * np.sqrt(g @ g)))
    keys, G, offset, N_limits, e_limits = bound_arrays(model, enforced_limits(model) if limits is None else limits)
    nc, nb = len(found.gap), len(keys)
    if not (nc or nb):
        v_new = v + h * a
        return integrate(model, q, v_new, h), v_new
    # the rows: the contacts', then every finite bound's (g = G q − offset, ġ = N v, frictionless, no tangents)
    index = geometry_arrays(model)[0]
    c_rows = point_rows(s, index[found.first], index[found.second], found.point, found.normal, found.anchor_a,
                        found.anchor_b)
    mu, restitution = coefficient_arrays(model, found.first, found.second)
    N = np.vstack([c_rows.N, N_limits])
    T = np.concatenate([c_rows.T, np.zeros((nb, 2, model.nv))])
    vt = np.concatenate([c_rows.vt, np.zeros((nb, 2))])
    mu = np.concatenate([mu, np.zeros(nb)])
    restitution = np.concatenate([restitution, e_limits])
    gaps = np.concatenate([found.gap, G @ q - offset])
    vn = np.concatenate([c_rows.vn, N_limits @ v])
    n = nc + nb
    chosen, v_new, target, gamma_n, gamma_t = (np.zeros(n, dtype=bool), np.empty(model.nv), np.empty(n),
                                               np.empty(n), np.empty((n, 2)))
    while not closing_velocity(K, np.empty(0), a, v, h, N, T, vt, vn, mu, restitution, gaps, erp, bounce_velocity,
                               _pyramid(EDGES), REGULARIZATION, _TOLERANCES, MAX_PIVOTS, ACCEPTED_ERROR, chosen,
                               np.zeros((n, EDGES + 2), dtype=bool), v_new, target,
                               gamma_n, gamma_t):
        # Lemke's method failed on the rows chosen: their forces by projected Gauss–Seidel, then any rows these close
        k = np.flatnonzero(chosen)
        v_new = v + h * (a + K @ relaxed_forces(K, a, N[k], T[k], mu[k], gamma_n[k], gamma_t[k])[1])
        late = ~chosen & (N @ v_new < target - 1e-12 * np.maximum(1.0, np.abs(target)))
        if not late.any():
            break
        chosen |= late
    return integrate(model, q, v_new, h), v_new
