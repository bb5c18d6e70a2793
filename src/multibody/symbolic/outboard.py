"""Kane's equations of a tree summed over outboard bodies, every intermediate quantity an auxiliary symbol.

Kane's equations F_r + F_r* = 0 (T. R. Kane, "A new method for formulating equations of motion", eq. 14) sum over all
bodies i,

    F_r* = Σ_i ω_i,r · T_i* + v_i,r · R_i*                                   (eqs. 5, 7–9)

The speeds u_r of joint k move every body outboard of k rigidly about the joint's origin O_k:
ω_i,r = s_ω,r and v_i,r = s_v,r + s_ω,r × (p_i − O_k), with (s_ω,r; s_v,r) the column of the joint's motion
subspace S_k. The sum collapses onto the resultant inertia force and moment of the outboard bodies about O_k,

    F_r* = s_ω,r · M̄_k + s_v,r · R̄_k,
    R̄_k = R_k* + Σ_c R_c R̄_c,     M̄_k = M_k* + Σ_c (R_c M̄_c + r_c × R_c R̄_c),

summed from the tips inward (c: the children of k, at r_c with rotation R_c). The part of F_r* linear in u̇
gives the mass matrix X_rs = Σ_i m_i v_i,r · v_i,s + ω_i,r · I_i ω_i,s on composite bodies: joint s moving
alone moves the composite body outboard of it (mass m̄, first moment h̄ and inertia J̄ about its joint's origin),
whose inertia force (F, N) = (m̄ s_v + s_ω × h̄, J̄ s_ω + h̄ × s_v) is carried inward to joint r,
X_rs = s_ω,r · N + s_v,r · F. This is the recursive Kane formulation of Rosenthal & Sherman (J. Astronaut.
Sci. 34, 1986), the composite bodies those of the CRBA (Featherstone, RBDA §6.2).

Each ω, α, a, partial velocity, resultant, composite body and carried (F, N) is named as an auxiliary symbol
(:mod:`.auxiliary`), so that X and Y of an n-link chain are short expressions in O(n²) auxiliaries.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from .auxiliary import Auxiliaries
from .motion import cross, gyroscopic
from .tree import _carry, _carry_partials, _exact, _joint_step, _matrix, _skew


@dataclass
class _Record:
    """One body's quantities in its own axes, as sympy matrices of auxiliary symbols (a workspace)."""

    R: sp.Matrix       # rotation, body axes -> parent axes
    r: sp.Matrix       # origin in the parent's axes
    S: sp.Matrix       # motion subspace (6 × nv), [angular; linear]
    cols: range        # the joint's speeds
    motion: tuple      # ω, α, a of the origin with u̇ = 0
    gravity: sp.Matrix
    W: sp.Matrix       # partial angular velocities (3 × n)
    V: sp.Matrix       # partial velocities of the origin (3 × n)
    resultant: list = field(default_factory=list)   # [R̄, M̄]: outboard inertia force and moment about the origin
    composite: list = field(default_factory=list)   # [m̄, h̄, J̄]: outboard mass, first moment, inertia about it


def outboard_kane(model, q, u, speeds, tau):
    """X u̇ = Y of a tree by Kane's equations summed over outboard bodies (module docstring).

    ``tau``: the joint generalized forces (n × 1). Returns (X, Y, F_r, partial velocities, q̇, auxiliaries):
    X (n × n), Y, F_r (n × 1, gravity and τ) in the auxiliary symbols; per body (ω_r, v*_r), 3 × n in body axes;
    the auxiliaries as ordered (z_k, definition) pairs. Units: those of the model (SI: X in kg m², Y in N m).
    """
    name = Auxiliaries(_parameter_names(model))
    records, qdot = _forward(model, q, u, speeds, name)
    _inward(model, records, name)
    Y, F = sp.Matrix(tau), sp.Matrix(tau)
    for b in records:
        (R_bar, M_bar), (m, h, _) = b.resultant, b.composite
        for j, r in enumerate(b.cols):
            # F_r* = s_ω · M̄ + s_v · R̄ (u̇ = 0 part, gravity included); F_r = s_ω · (h̄ × g) + s_v · m̄ g
            Y[r] += _dot(b.S[:, j], M_bar, R_bar)
            F[r] += _dot(b.S[:, j], cross(h, b.gravity), m * b.gravity)
    partials = [(b.W, name.matrix(b.V - _skew(_matrix(body.com)) * b.W)) for body, b in zip(model.bodies, records)]
    return _mass_matrix(model.parents, records, model.nv, name), Y, F, partials, qdot, name.definitions


def _forward(model, q, u, speeds, name):
    """Parent before child: each body's pose, ω, α, a of its origin (u̇ = 0) and partial velocities, body axes
    (the recursion of :mod:`.tree`); and q̇ = f(q, u)."""
    vec, n = name.matrix, model.nv
    gravity = _matrix(model.gravity)
    records, qdot = [], []
    iq = iv = 0
    for body, joint, parent, placement in zip(model.bodies, model.joints, model.parents, model.placements):
        qj, uj = q[iq:iq + joint.nq], u[iv:iv + joint.nv]
        R, r, S, Sdot_u, qdot_j = _joint_step(joint, placement, qj, uj, speeds, body.name)
        R, r, S, Sdot_u = vec(R), vec(r), vec(S), vec(Sdot_u)
        if parent < 0:  # the base accelerates at −g (RBDA §5.3)
            motion_p, g_p = (sp.zeros(3, 1), sp.zeros(3, 1), -gravity), gravity
            W_p, V_p = sp.zeros(3, n), sp.zeros(3, n)
        else:
            p = records[parent]
            motion_p, g_p, W_p, V_p = p.motion, p.gravity, p.W, p.V
        motion, _ = _carry(R, r, S, Sdot_u, uj, *motion_p, vec)
        W, V = _carry_partials(R, r, S, slice(iv, iv + joint.nv), W_p, V_p)
        records.append(_Record(R, r, S, range(iv, iv + joint.nv), tuple(vec(x) for x in motion), vec(R.T * g_p),
                               vec(W), vec(V)))
        qdot.extend(qdot_j)
        iq, iv = iq + joint.nq, iv + joint.nv
    return records, sp.Matrix(qdot)


def _inward(model, records, name):
    """Child before parent: each body's outboard resultant [R̄, M̄] and composite body [m̄, h̄, J̄] about its
    origin, carried into its parent's."""
    vec = name.matrix
    for body, b in zip(model.bodies, records):
        b.resultant, b.composite = _inertia_forces(body, b.motion, vec), _own_composite(body)
    for i in reversed(range(len(records))):
        b = records[i]
        m, h, J = b.composite
        b.resultant, b.composite = [vec(x) for x in b.resultant], [name(m), vec(h), _symmetric(J, name)]
        if model.parents[i] >= 0:
            parent = records[model.parents[i]]
            _add(parent.resultant, _carry_force(b.R, b.r, *b.resultant, vec))
            _add(parent.composite, _carry_composite(b.R, b.r, *b.composite, vec))


def _mass_matrix(parents, records, n, name):
    """X_rs = s_ω,r · N + s_v,r · F: joint s's composite body's inertia force (F, N) = (m̄ s_v + s_ω × h̄,
    J̄ s_ω + h̄ × s_v), carried inward joint by joint to each speed r of an inboard joint (or of joint s)."""
    X = sp.zeros(n, n)
    for j, b in enumerate(records):
        m, h, J = b.composite
        for col, s in enumerate(b.cols):
            s_w, s_v = b.S[:3, col], b.S[3:, col]
            force, moment = name.matrix(m * s_v + cross(s_w, h)), name.matrix(J * s_w + cross(h, s_v))
            k = j
            while True:
                for row, r in enumerate(records[k].cols):
                    if r <= s:
                        X[r, s] = X[s, r] = name(_dot(records[k].S[:, row], moment, force))
                if parents[k] < 0:
                    break
                force, moment = _carry_force(records[k].R, records[k].r, force, moment, name.matrix)
                k = parents[k]
    return X


def _inertia_forces(body, motion, vec):
    """[R*, M*]: the body's inertia force R* = −m a* (Kane, eq. 7) and moment about its origin
    M* = T* + c × R*, T* = −(I α + ω × I ω) (eq. 8), with the u̇ = 0 parts of α and a* = a + α × c + ω × (ω × c)."""
    omega, alpha, accel = motion
    m, c, I = _exact(body.mass), _matrix(body.com), _matrix(body.inertia)
    R_star = vec(-m * vec(accel + cross(alpha, c) + cross(omega, cross(omega, c))))
    T_star = vec(-(I * alpha + gyroscopic(I, omega)))
    return [R_star, T_star + cross(c, R_star)]


def _own_composite(body):
    """[m, h, J]: mass, first moment m c and inertia about the body's origin, J = I − m [c]×[c]× (body axes)."""
    m, c = _exact(body.mass), _matrix(body.com)
    return [m, m * c, _matrix(body.inertia) - m * _skew(c) * _skew(c)]


def _carry_force(R, r, force, moment, vec):
    """A force and a moment about a body's origin (body axes) as the same about its parent's origin (parent
    axes): R F, R M + r × R F."""
    force = vec(R * force)
    return force, vec(R * moment + cross(r, force))


def _carry_composite(R, r, m, h, J, vec):
    """A composite body (m, h, J about the body's origin, body axes) about its parent's origin, parent axes:
    h' = R h, J' = R J Rᵀ shifted by r, J' − m [r]×[r]× − [r]×[h']× − [h']×[r]×, h' + m r."""
    h = vec(R * h)
    return [m, h + m * r, R * J * R.T - m * _skew(r) * _skew(r) - _skew(r) * _skew(h) - _skew(h) * _skew(r)]


def _add(total, terms):
    for i, term in enumerate(terms):
        total[i] = total[i] + term


def _symmetric(J, name):
    """A symmetric 3 × 3 matrix from the named upper triangle of ``J``."""
    return sp.Matrix(3, 3, lambda i, j: name(J[min(i, j), max(i, j)]))


def _dot(s, moment, force):
    """s_ω · M + s_v · F for a 6 × 1 motion column s = (s_ω; s_v)."""
    return (s[:3, :].T * moment + s[3:, :].T * force)[0]


def _parameter_names(model):
    """Names of the symbols in the model's parameters (the auxiliary symbols avoid them)."""
    values = [model.gravity]
    for body, joint, placement in zip(model.bodies, model.joints, model.placements):
        values += [body.mass, body.com, body.inertia, placement.rotation, placement.translation,
                   getattr(joint, "axis", ())]
    entries = [x for v in values for x in np.asarray(v, dtype=object).ravel()]
    return {str(s) for x in entries if isinstance(x, sp.Basic) for s in x.free_symbols}
