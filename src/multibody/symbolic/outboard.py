"""Kane's equations of a tree summed over outboard bodies, every intermediate quantity an auxiliary symbol.

Kane's equations F_r + F_r* = 0 (source document 000, eq. 14) sum over all bodies i,

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

import numpy as np
import sympy as sp

from .auxiliary import Auxiliaries
from .motion import cross, gyroscopic
from .tree import _carry, _carry_partials, _exact, _joint_step, _matrix, _skew


def outboard_kane(model, q, u, speeds, tau):
    """X u̇ = Y of a tree by Kane's equations summed over outboard bodies (module docstring).

    ``tau``: the joint generalized forces (n × 1). Returns (X, Y, F_r, partial velocities, q̇, auxiliaries):
    X (n × n), Y, F_r (n × 1, gravity and τ) in the auxiliary symbols; per body (ω_r, v*_r), 3 × n in body axes;
    the auxiliaries as ordered (z_k, definition) pairs. Units: those of the model (SI: X in kg m², Y in N m).
    """
    name = Auxiliaries(_parameter_names(model))
    vec = name.matrix
    n, parents = model.nv, model.parents
    gravity = _matrix(model.gravity)
    poses, subspaces, speed_cols, motions, gravities, origin_partials, partials, qdot = ([] for _ in range(8))
    iq = iv = 0
    # forward, parent before child: pose, ω, α, a of the body origin (u̇ = 0) and partial velocities, body axes
    for body, joint, parent, placement in zip(model.bodies, model.joints, parents, model.placements):
        qj, uj = q[iq:iq + joint.nq], u[iv:iv + joint.nv]
        R, r, S, Sdot_u, qdot_j = _joint_step(joint, placement, qj, uj, speeds, body.name)
        R, r, S, Sdot_u = vec(R), vec(r), vec(S), vec(Sdot_u)
        if parent < 0:  # the base accelerates at −g (RBDA §5.3)
            (w_p, al_p, a_p), g_p = (sp.zeros(3, 1), sp.zeros(3, 1), -gravity), gravity
            W_p, V_p = sp.zeros(3, n), sp.zeros(3, n)
        else:
            (w_p, al_p, a_p), g_p, (W_p, V_p) = motions[parent], gravities[parent], origin_partials[parent]
        motion, _ = _carry(R, r, S, Sdot_u, uj, w_p, al_p, a_p, vec)
        W, V = (vec(x) for x in _carry_partials(R, r, S, slice(iv, iv + joint.nv), W_p, V_p))
        poses.append((R, r))
        subspaces.append(S)
        speed_cols.append(range(iv, iv + joint.nv))
        motions.append(tuple(vec(x) for x in motion))
        gravities.append(vec(R.T * g_p))
        origin_partials.append((W, V))
        partials.append((W, vec(V - _skew(_matrix(body.com)) * W)))
        qdot.extend(qdot_j)
        iq, iv = iq + joint.nq, iv + joint.nv
    resultants = [_inertia_forces(body, motion, vec) for body, motion in zip(model.bodies, motions)]
    composites = [_own_composite(body) for body in model.bodies]
    # backward, child before parent: each body's outboard resultant and composite body, carried into its parent
    for i in reversed(range(len(model.bodies))):
        resultants[i] = [vec(x) for x in resultants[i]]
        m, h, J = composites[i]
        composites[i] = [name(m), vec(h), _symmetric(J, name)]
        if parents[i] >= 0:
            _add(resultants[parents[i]], _carry_force(*poses[i], *resultants[i], vec))
            _add(composites[parents[i]], _carry_composite(*poses[i], *composites[i], vec))
    X, Y, F = sp.zeros(n, n), sp.Matrix(tau), sp.Matrix(tau)
    for k, (S, cols) in enumerate(zip(subspaces, speed_cols)):
        R_bar, M_bar = resultants[k]
        m, h, _ = composites[k]
        for j, r_ in enumerate(cols):
            # F_r* = s_ω · M̄ + s_v · R̄ (u̇ = 0 part, gravity included); F_r = s_ω · (h̄ × g) + s_v · m̄ g
            Y[r_] += _dot(S[:, j], M_bar, R_bar)
            F[r_] += _dot(S[:, j], cross(h, gravities[k]), m * gravities[k])
    # X_rs: joint s's composite body's inertia force, carried inward joint by joint to each r of an inboard joint
    for j, (S, cols) in enumerate(zip(subspaces, speed_cols)):
        m, h, J = composites[j]
        for col, s in enumerate(cols):
            s_w, s_v = S[:3, col], S[3:, col]
            force, moment = vec(m * s_v + cross(s_w, h)), vec(J * s_w + cross(h, s_v))
            k = j
            while True:
                for row, r_ in enumerate(speed_cols[k]):
                    if r_ <= s:
                        X[r_, s] = X[s, r_] = name(_dot(subspaces[k][:, row], moment, force))
                if parents[k] < 0:
                    break
                force, moment = _carry_force(*poses[k], force, moment, vec)
                k = parents[k]
    return X, Y, F, partials, sp.Matrix(qdot), name.definitions


def _inertia_forces(body, motion, vec):
    """[R*, M*]: the body's inertia force R* = −m a* (document 000, eq. 7) and moment about its origin
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
