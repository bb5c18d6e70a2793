"""Compiled quantities of a state beyond the recursive algorithms of :mod:`._core`: world kinematics, kinetic and
potential energy, momentum, and the Jacobian of a body point (numba, ``cache=True``; the model layout is
:mod:`._layout`'s)."""
import numpy as np
from numba import njit, prange

from ._spatial_kernels import (IV, NVJ, PARENT, all_finite, armature, body_velocities, force_to_parent, inertia_times,
                               local_poses, mass, mass_center, row6, subspace_column_in_world_axes, world_poses)


@njit(cache=True)
def world_kinematics(topology, params, q, v):
    """World poses R0 (n, 3, 3), p0 (n, 3); body velocities V (n + 1, 6) in body axes (row −1 the world);
    mass centers c0 (n, 3) in world coordinates."""
    n = topology.shape[0]
    R = np.empty((n, 3, 3))
    p = np.empty((n, 3))
    R0 = np.empty((n, 3, 3))
    p0 = np.empty((n, 3))
    local_poses(topology, params, q, R, p)
    world_poses(topology, params, q, R0, p0)
    V = np.empty((n + 1, 6))
    body_velocities(topology, params, R, p, v, V)
    c0 = np.empty((n, 3))
    for i in range(n):
        c = mass_center(params, i)
        for r in range(3):
            c0[i, r] = p0[i, r] + R0[i, r, 0] * c[0] + R0[i, r, 1] * c[1] + R0[i, r, 2] * c[2]
    return R0, p0, V, c0


@njit(cache=True)
def energy(topology, params, gravity, q, v, out):
    """out[0] = kinetic energy ½ Σ v_iᵀ I_i v_i + ½ Σ armature_k q̇_k² [J];  out[1] = potential energy
    −Σ m_i g · c_i [J] (c_i the mass center in world coordinates)."""
    R0, p0, V, c0 = world_kinematics(topology, params, q, v)
    kinetic = 0.0
    potential = 0.0
    for i in range(topology.shape[0]):
        h = inertia_times(params, i, row6(V, i))
        for r in range(6):
            kinetic += 0.5 * V[i, r] * h[r]
        for k in range(topology[i, NVJ]):
            kinetic += 0.5 * armature(params, i, k) * v[topology[i, IV] + k] ** 2
        for r in range(3):
            potential -= mass(params, i) * gravity[r] * c0[i, r]
    out[0] = kinetic
    out[1] = potential


@njit(cache=True)
def momentum(topology, params, q, v, out):
    """out[0:3] angular momentum about the world origin, out[3:6] linear momentum (world axes);
    out[6:9] the system's mass center in world coordinates."""
    R0, p0, V, c0 = world_kinematics(topology, params, q, v)
    total = np.zeros((1, 6))
    out[:] = 0.0
    total_mass = 0.0
    for i in range(topology.shape[0]):
        # h_i = I_i v_i (body axes, about the body origin), moved to the world origin: X0_iᵀ h_i
        force_to_parent(R0, p0, i, inertia_times(params, i, row6(V, i)), total, 0)
        total_mass += mass(params, i)
        for r in range(3):
            out[6 + r] += mass(params, i) * c0[i, r]
    for r in range(6):
        out[r] = total[0, r]
    for r in range(3):
        out[6 + r] /= total_mass


@njit(cache=True)
def jacobian(topology, params, q, body, point, J):
    """J (6 × nv): [ω; v_P] = J v in world axes for a point P fixed in ``body`` (body coordinates)
    (:func:`jacobian_at_poses` at the poses of q)."""
    n = topology.shape[0]
    R0 = np.empty((n, 3, 3))
    p0 = np.empty((n, 3))
    world_poses(topology, params, q, R0, p0)
    jacobian_at_poses(topology, params, R0, p0, body, point, J)


@njit(cache=True, inline="always")
def point_column(params, R0, j, k, d0, d1, d2):
    """(s, x, y, z): the k-th motion column of joint j in world axes, s = [R0_j S_ω; R0_j S_v] (6,), and the linear
    velocity (x, y, z) it gives the point P = p0_j + d: R0_j S_v + (R0_j S_ω) × d (a column of a point Jacobian)."""
    s = subspace_column_in_world_axes(params, j, k, R0)
    return s, s[3] + (s[1] * d2 - s[2] * d1), s[4] + (s[2] * d0 - s[0] * d2), s[5] + (s[0] * d1 - s[1] * d0)


@njit(cache=True)
def jacobian_at_poses(topology, params, R0, p0, body, point, J):
    """:func:`jacobian` given the world poses R0 (n, 3, 3), p0 (n, 3) of the bodies.

    Column of joint j (an ancestor of body): ω = R0_j S_ω,  v = R0_j S_v + ω × (P − p0_j).
    """
    P = np.empty(3)
    for r in range(3):
        P[r] = p0[body, r] + R0[body, r, 0] * point[0] + R0[body, r, 1] * point[1] + R0[body, r, 2] * point[2]
    J[:, :] = 0.0
    j = body
    while j >= 0:
        iv = topology[j, IV]
        d0, d1, d2 = P[0] - p0[j, 0], P[1] - p0[j, 1], P[2] - p0[j, 2]
        for k in range(topology[j, NVJ]):
            s, x, y, z = point_column(params, R0, j, k, d0, d1, d2)
            J[0, iv + k], J[1, iv + k], J[2, iv + k] = s[0], s[1], s[2]
            J[3, iv + k], J[4, iv + k], J[5, iv + k] = x, y, z
        j = topology[j, PARENT]


@njit(cache=True, parallel=True)
def energy_batch(topology, params, gravity, q, v, out):
    for b in prange(q.shape[0]):
        energy(topology, params, gravity, q[b], v[b], out[b])
    return all_finite(out)
