"""The contact time step compiled, and its loop through the output times: no Python per step.

The step of :func:`multibody.constraints.integrate.contact_step` for a model whose equality constraints have arrays
(:func:`~multibody.constraints.types.equality_arrays`) and whose
contact pairs the compiled detection takes (:func:`~multibody.constraints._narrow.detect_contacts`), under a torque
table and the compiled force elements, actuators at a control table included (:mod:`.tree_rates`), from the same compiled pieces as the Python step:

    kinematics        R0, p0, (ω, ṗ)                                  (:func:`~..constraints._kinematics.world_motion`)
    free motion       (M + h D) a = τ − c by the sparse factorization M + h D = Lᵀ L (RBDA Tables 6.3–6.4; ABA
                      when D = 0; D the joint dampers, implicit)      (:func:`~..constraints._step.free_acceleration`)
    equalities        a, K ← Gauss's principle with J (v + h a) = −(erp/h) φ, K = (M + h D)⁻¹ formed only then
                                                    (:func:`~..constraints._equality_rows.equality_motion`)
    detection         pairs within margin + h (speed bound + h |g|)    (:func:`~..constraints._narrow.detect_contacts`)
    rows              contacts' N, T, v_n, v_t; bounds' g = G q − offset, ġ = N v  (:func:`~..constraints._kinematics.contact_rows`)
    velocity          v⁺ of the rows that close, by Lemke's method       (:func:`~..constraints._step.closing_velocity`)
                      on their compliance columns K Nᵀ, K Tᵀ, from L or K
                                                    (:func:`~..constraints._step.compliance_columns`)
                      or, first, in contact coordinates from the rows' states at the last step
                                         (:func:`~..constraints._contact_states.contact_acceleration`), then
                      from the last step's LCP basis                     (:func:`~..constraints.lcp.basis_solution`)
    position          q⁺ = q ⊕ h v⁺, quaternions normalized

The loop cuts each interval between output times into equal steps of at most dt (the rule of
:class:`multibody.simulate.fixed_step.FixedStep`), writes the state at each output time, and stops at a non-finite
state, at Ctrl-C (``stats[STOP]`` set by another thread), or at a step whose LCP Lemke's method cannot solve (the
Python step takes that one, with its Gauss–Seidel fallback, and the loop goes on).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..constraints._equality_rows import equality_motion
from ..constraints._kinematics import contact_rows, world_motion
from ..constraints._narrow import detect_contacts_in, detection_work, speed_bound
from ..constraints._step import closing_velocity, free_acceleration
from ..constraints.lcp import dot
from ..dynamics._configuration import integrate, normalize_quaternions
from ..dynamics._core import aba, crba, rnea
from ..dynamics._tree_factor import dof_parents, subtree_ends, tree_factor, tree_inverse
from ..dynamics._spatial_kernels import IV, NVJ
from .actuators import add_actuation
from .forces import add_joint_force_slope, add_joint_forces, element_body_forces
from .tree_rates import INTERRUPTED, NONFINITE, OK, STEPS, STOP, T_REACHED, body_force_work, finite, torque_at

UNSOLVED = 6  # a step whose contact LCP Lemke's method found no solution for (the Python step takes it)
# clock entries: time [s], step [s], steps left to the next output time, index of the next output time, and whether
# ``given`` holds the state after the next step (computed by the Python step)
TIME, STEP, LEFT, NEXT, GIVEN = range(5)
# settings entries (:func:`multibody.constraints.integrate.step_settings`, then dt and |g|)
MARGIN, ERP, BOUNCE, REGULARIZATION, ACCEPTED, PIVOTS, DT, GRAVITY = range(8)


@njit(cache=True, nogil=True)
def contact_run(model, tau, forces, shapes, limits, settings, cone, tolerances, equalities, x, clock, given,
                t_eval, x_out, stats, basis):
    """Step x = (q, v) from the clock's time through the output times t_eval, writing the state at each to x_out;
    returns the status (OK, NONFINITE, INTERRUPTED or UNSOLVED: x and the clock are then at the step's start).

    model = (topology, params, gravity); tau = (times, values), the torque table; forces = (joint rows, spring rows,
    rotor rows, actuation, control table) (:func:`multibody.simulate.compiled.force_arrays`);
    shapes = (the geometries' arrays of :mod:`~..constraints._narrow` (kind, size, body, R_local, p_local, center,
    bound, vertices, first_vertex, vertex_count), pairs (m, 2), the most contacts they give at once, friction (m,),
    restitution (m,)); limits = (G (nb, nq), offset (nb,), N (nb, nv), restitution (nb,)); settings (8,) as the
    entries above; cone (edges, 2) the friction pyramid; tolerances Lemke's pivot tolerances; equalities the
    equality constraints' arrays (:func:`multibody.constraints.types.equality_arrays`); clock (5,) as above;
    stats as the compiled tree loop's (:mod:`.tree_rates`); basis = (keys (r,) int, basic (r, edges + 2) bool,
    count (1,) int) the last step's rows and their LCP variables that were basic (:func:`contact_step`), r = the most
    contacts + nb, kept from call to call (count 0: none)."""
    topology, params, gravity = model
    n = topology.shape[0]
    nv = topology[n - 1, IV] + topology[n - 1, NVJ]
    nq = x.shape[0] - nv
    capacity, rows = shapes[2], shapes[2] + limits[1].shape[0]
    lam, last = np.empty(nv), np.empty(nv)  # M's tree sparsity (:func:`~..dynamics._tree_factor.dof_parents`)
    dof_parents(topology, lam)
    subtree_ends(lam, last)
    # (motion: (ω, ṗ, α⁰, p̈⁰), of which the step computes and reads ω, ṗ alone: α⁰, p̈⁰ stay zero)
    work = (np.empty((n, 3, 3)), np.empty((n, 3)), np.zeros((4, n, 3)), np.empty((capacity, 14)), np.empty((nv, nv)),
            np.empty(nv), np.empty(nv), np.empty(nv), body_force_work(topology, forces), np.zeros(nv), np.empty(nq),
            np.empty(nv), np.empty((nv, nv)), lam, last, detection_work(shapes[0][0], shapes[1]))
    # the rows' arrays, for the most contacts and every bound (a step uses their first rows)
    row_work = (np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64),
                np.empty((capacity, 3)), np.empty((capacity, 3)), np.empty((capacity, 3)), np.empty((capacity, 3)),
                np.empty((capacity, 2, 3)), np.empty((capacity, 3)),
                np.empty((rows, nv)), np.empty((rows, 2, nv)), np.empty((rows, 2)), np.empty(rows), np.empty(rows),
                np.empty(rows), np.empty(rows), np.empty(rows, dtype=np.int64),
                np.empty((rows, cone.shape[0] + 2), dtype=np.bool_), np.empty(rows, dtype=np.bool_), np.empty(nv),
                np.empty(rows), np.empty(rows), np.empty((rows, 2)))
    t, h, left, j = clock[TIME], clock[STEP], int(clock[LEFT]), int(clock[NEXT])
    while j < t_eval.shape[0]:
        if left == 0:  # the next output time, in equal steps of at most dt
            left = max(1, int(np.ceil((t_eval[j] - t) / settings[DT] * (1.0 - 1e-12))))
            h = (t_eval[j] - t) / left
        if clock[GIVEN] != 0.0:
            x[:] = given
            clock[GIVEN] = 0.0
        elif not contact_step(model, tau, forces, shapes, limits, settings, cone, tolerances, equalities, x, t,
                              h, work, row_work, basis):
            clock[TIME], clock[STEP], clock[LEFT], clock[NEXT] = t, h, left, j
            return UNSOLVED
        left -= 1
        t = t_eval[j] if left == 0 else t + h
        stats[STEPS] += 1
        stats[T_REACHED] = t
        if not finite(x):
            return NONFINITE
        while left == 0 and j < t_eval.shape[0] and t_eval[j] <= t:
            x_out[j] = x
            j += 1
        if stats[STOP] != 0.0:
            clock[TIME], clock[STEP], clock[LEFT], clock[NEXT] = t, h, left, j
            return INTERRUPTED
    clock[TIME], clock[STEP], clock[LEFT], clock[NEXT] = t, h, left, j
    return OK


@njit(cache=True, nogil=True, inline="always")  # (inlined: compiled once, within contact_run)
def contact_step(model, tau, forces, shapes, limits, settings, cone, tolerances, equalities, x, t, h, work,
                 row_work, basis):
    """x = (q, v) ← (q⁺, v⁺) after one step h [s] from time t (the module docstring); False (x untouched) when
    Lemke's method finds no solution of the step's LCP. ``work``, ``row_work``: the loop's scratch arrays;
    ``basis``: the last step's LCP basis (:func:`contact_run`), updated."""
    topology, params, gravity = model
    geometries, pairs, capacity, pair_mu, pair_e = shapes
    index, p_local, bound = geometries[2], geometries[4], geometries[6]
    G, offset, N_limits, e_limits = limits
    R0, p0, motion, out, M, Q, c, a, body_forces, zero, q, v, K, lam, last, found_work = work
    last_keys, last_basic, last_count = basis
    nv = v.shape[0]
    nq = x.shape[0] - nv
    q[:] = x[:nq]
    normalize_quaternions(topology, q)
    v[:] = x[nq:]
    if not world_motion(topology, params, q, v, R0, p0, motion, False):  # (ω, ṗ: a velocity-level step)
        x[0] = np.nan
        return True
    # the applied forces: τ(t), the joint springs and friction, the tendons and actuators at the controls u(t),
    # the springs' and rotors' body forces
    torque_at(tau, t, Q)
    add_joint_forces(forces[0], q, v, Q)
    add_actuation(forces[3], forces[4], t, q, v, Q)
    if body_forces.shape[0] > 0:
        element_body_forces(topology, params, forces[1], forces[2], q, v, body_forces)
    # the free motion, implicit in the joint forces' slope D = −∂Q/∂q̇ (dampers, smoothed friction): (M + h D) a = τ − c,
    # by the sparse factorization M + h D = Lᵀ L (RBDA Tables 6.3–6.4), which also gives the compliance
    # K = (M + h D)⁻¹ of the rows: the contacts take only K Nᵀ, K Tᵀ of the rows that close
    # (:func:`~..constraints._step.compliance_columns`), from L
    crba(topology, params, q, M)
    if add_joint_force_slope(forces[0], v, h, M):
        rnea(topology, params, gravity, q, v, zero, body_forces, c)
        for k in range(nv):
            c[k] = Q[k] - c[k]
        factored = free_acceleration(M, lam, c, a)
    else:
        aba(topology, params, gravity, q, v, Q, body_forces, a)
        factored = tree_factor(M, lam)
    if not factored:
        x[0] = np.nan
        return True
    compliance, parents = M, lam
    if equalities[3].shape[0] > 0:
        # the equality rows held: J (v + h a) = −(erp/h) φ, by Gauss's principle on the free acceleration a (nv,) and
        # the compliance K (nv, nv); the rows below are solved with the constrained a and K
        tree_inverse(M, lam, last, K)
        equality_motion(topology, params, R0, p0, q, v, h, settings[ERP], equalities, a, K)
        compliance, parents = K, lam[:0]
    # the contacts within reach of the step
    speed = speed_bound(index, p_local, bound, motion[1], motion[0])
    reach = settings[MARGIN] + h * (speed + h * settings[GRAVITY])
    nc = detect_contacts_in(geometries, pairs, R0, p0, reach, out, found_work)
    nb = offset.shape[0]
    rows = nc + nb
    if rows == 0:
        last_count[0] = 0
        for k in range(nv):
            x[nq + k] = v[k] + h * a[k]
        integrate(topology, q, x[nq:], h, x[:nq])
        normalize_quaternions(topology, x)
        return True
    # the rows: the contacts', then every finite bound's (frictionless, no tangents)
    (body_a, body_b, found, point, normal, anchor_a, anchor_b, tangents, velocities, N, T, vt, vn, mu, e, gaps, keys,
     basic, chosen, v_new, target, gamma_n, gamma_t) = row_work
    for k in range(nc):
        found[k] = int(out[k, 13])  # the contacts' pairs
        body_a[k], body_b[k] = index[pairs[found[k], 0]], index[pairs[found[k], 1]]
        point[k], normal[k], anchor_a[k], anchor_b[k] = out[k, 0:3], out[k, 3:6], out[k, 7:10], out[k, 10:13]
    contact_rows(topology, params, R0, p0, motion, body_a[:nc], body_b[:nc], point[:nc], normal[:nc], anchor_a[:nc],
                 anchor_b[:nc], N[:nc], T[:nc], tangents[:nc], velocities[:nc])
    for k in range(nc):
        vn[k], vt[k, 0], vt[k, 1] = velocities[k, 0], velocities[k, 1], velocities[k, 2]
        mu[k], e[k], gaps[k] = pair_mu[found[k]], pair_e[found[k]], out[k, 6]
    for b in range(nb):
        r = nc + b
        N[r], vt[r], mu[r] = N_limits[b], 0.0, 0.0  # (its T is not read: μ = 0)
        e[r], gaps[r], vn[r] = e_limits[b], dot(G[b], q) - offset[b], dot(N_limits[b], v)
    # the LCP's basis guessed from the last step's: a row is the same contact (pair, its k-th contact) or bound
    for k in range(nc):
        keys[k] = found[k] * capacity
        for j in range(k):
            if found[j] == found[k]:
                keys[k] += 1
    for b in range(nb):
        keys[nc + b] = -1 - b
    basic[:rows] = False
    for r in range(rows):
        for p in range(last_count[0]):
            if last_keys[p] == keys[r]:
                basic[r] = last_basic[p]
                break
    last_count[0] = 0
    chosen[:rows] = False
    if not closing_velocity(compliance, parents, a, v, h, N[:rows], T[:rows], vt[:rows], vn[:rows], mu[:rows],
                            e[:rows], gaps[:rows], settings[ERP], settings[BOUNCE], cone, settings[REGULARIZATION],
                            tolerances, int(settings[PIVOTS]), settings[ACCEPTED], chosen[:rows], basic[:rows], v_new,
                            target[:rows], gamma_n[:rows], gamma_t[:rows]):
        return False
    last_keys[:rows], last_basic[:rows], last_count[0] = keys[:rows], basic[:rows], rows
    x[nq:] = v_new
    integrate(topology, q, v_new, h, x[:nq])
    normalize_quaternions(topology, x)
    return True
