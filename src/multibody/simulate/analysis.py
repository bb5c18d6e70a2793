"""Analyses around the equations of motion M(q) v̇ + c(q, v) = τ + Q(q, v): inverse dynamics along a trajectory,
static equilibrium, linearization and natural frequencies, and inverse kinematics.

Q(q, v) is the generalized force of the model's force elements (springs, dampers). Configurations are varied
in local coordinates, q = q* ⊕ δ (:func:`multibody.integrate`), so quaternion joints are handled: δ has nv
entries.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg, optimize

from ..dynamics import aba, aba_derivatives, body_pose, crba, generalized_gravity, integrate, jacobian, rnea
from ..dynamics._inputs import as_state
from ..errors import SimulationError
from ..spatial import rotation_to_quat
from .forces import elements_force, elements_force_derivatives

if TYPE_CHECKING:
    from ..model import Model
    from .trajectory import Trajectory


def inverse_dynamics(trajectory: Trajectory) -> np.ndarray:
    """Generalized forces (T, nv) that produce the trajectory's motion besides its force elements:
    τ = M(q) a + c(q, v) − Q(q, v), by the RNEA at every sample."""
    model = trajectory.model
    tau = rnea(model, trajectory.q, trajectory.v, trajectory.a)
    return tau - np.array([elements_force(model, q, v) for q, v in zip(trajectory.q, trajectory.v)])


def _static_residual(model, q, tau):
    """g(q) − Q(q, 0) − τ: the generalized force left unbalanced at rest (zero at a static equilibrium)."""
    return generalized_gravity(model, q) - elements_force(model, q, np.zeros(model.nv)) - tau


def static_equilibrium(model: Model, q_guess: ArrayLike | None = None, torque: ArrayLike | None = None,
                       tol: float = 1e-10) -> np.ndarray:
    """A configuration q near ``q_guess`` where the model rests: g(q) = Q(q, 0) + τ (Kane's statics
    equations F_r = 0, T. R. Kane, "A new method for formulating equations of motion"). ``torque`` (nv,) is a constant
    applied generalized force.

    Raises SimulationError if the Newton-type solve (scipy.optimize.root) does not converge.
    """
    q_star = model.neutral() if q_guess is None else as_state(q_guess, model.nq, "q_guess")
    tau = np.zeros(model.nv) if torque is None else as_state(torque, model.nv, "torque")
    result = optimize.root(lambda d: _static_residual(model, integrate(model, q_star, d), tau),
                           np.zeros(model.nv), method="hybr", tol=tol)
    q = integrate(model, q_star, result.x)
    residual = np.abs(_static_residual(model, q, tau)).max(initial=0.0)
    scale = max(1.0, np.abs(generalized_gravity(model, q_star)).max(initial=0.0))
    if not result.success or residual > 1e3 * tol * scale:
        raise SimulationError(f"static_equilibrium: no equilibrium found near the guess ({result.message.strip()}; "
                              f"largest unbalanced force {residual:.3g})")
    return q


# The step of a central difference that balances its truncation error, ~h² f‴/6, against round-off, ~ε f / h: the
# cube root of the machine epsilon ε (Press et al., Numerical Recipes, 3rd ed. 2007, §5.7), about 6.1e-6.
CENTRAL_DIFFERENCE_STEP = float(np.finfo(float).eps ** (1.0 / 3.0))


def _jacobian_fd(function, size, eps, scale=None):
    """Central-difference Jacobian of ``function`` at 0, columns ∂f/∂δ_j, with step h_j = eps·max(1, |scale_j|)
    (``scale``: the values of the varied quantities, so that the step is relative for large ones; None: all 1)."""
    steps = np.full(size, float(eps)) if scale is None else eps * np.maximum(1.0, np.abs(scale))
    columns = []
    for j in range(size):
        step = np.zeros(size)
        step[j] = steps[j]
        columns.append((function(step) - function(-step)) / (2.0 * steps[j]))
    return np.array(columns).T


def linearize(model: Model, q: ArrayLike, v: ArrayLike | None = None, torque: ArrayLike | None = None,
              eps: float | None = None, *, bases: bool = False) -> tuple[np.ndarray, ...]:
    """State-space matrices of ẋ ≈ A x + B u about (q, v, τ), with u = δτ.

    Without constraints x = [δ; δv] (2 nv): δ (nv,) are local coordinates about q, q = q* ⊕ δ (δ̇ = δv exactly
    for scalar joints, to first order about v = 0 for quaternion joints); A = [[0, I], [∂v̇/∂δ, ∂v̇/∂v]],
    B = [[0], [M(q)⁻¹]].

    With constraints (loop closures, rolling, ...) the linearization is on the constraint manifold, in minimal
    coordinates x = [y; w] (n_y + n_w entries): (q, v) must satisfy the constraints (:func:`multibody.assemble`).
    From the SVD of the constraint Jacobian at (q, v),

    * y (n_y = nv − rank of the holonomic rows) are independent coordinates: δ = N_h y + (a correction in the row
      space of the holonomic Jacobian J_h, solved by Newton so that φ(q* ⊕ δ) = 0), N_h an orthonormal basis of
      the null space of J_h;
    * w (n_w = nv − rank of all rows, the degrees of freedom) are independent speeds: w = Nᵀ (v − v*), N an
      orthonormal basis of the null space of J (nonholonomic rows make n_w < n_y); v follows from J(q) v = b(q)
      and Nᵀ v = Nᵀ v* + w;

    ẏ = N_hᵀ v and ẇ = Nᵀ v̇ with v̇ from :func:`multibody.forward_dynamics` (Gauss's principle), so
    A = ∂(ẏ, ẇ)/∂(y, w) and B = [[0], [Nᵀ ∂v̇/∂τ]] (nv columns). The eigenvalues of A are the reduced system's:
    the four-bar's one oscillation mode, the upright rolling disk's wobble. ``bases=True`` also returns
    (N_h, N), each (nv, n), to map x back: δ ≈ N_h y, δv ≈ N w. Derivatives by central differences: the step of
    x_j is ``eps``·max(1, |x*_j|), x* = [0; Nᵀ v] the point's values of the varied quantities (y are local
    coordinates about q), so that the step is relative for fast speeds. ``eps=None`` (default) is the step that
    balances a central difference's truncation error (~h²) against round-off (~ε/h), the cube root of the machine
    epsilon ε, about 6.1e-6: the eigenvalues of the Meijaard et al. (2007) benchmark bicycle come out to 7e-10
    (a step of 1e-6: 1.5e-8).

    Without constraints or flexible beams A and B are exact: the analytical derivatives of the ABA
    (:func:`multibody.aba_derivatives`, Carpentier & Mansard 2018) and of the joint springs and friction; ``eps``
    is then only the difference step of point-to-point springs and gyrostats, whose generalized forces go through
    body Jacobians (:func:`acceleration_derivatives`), and of flexible beams.

    About a state that is not at rest (steady rolling, spinning), A is the Jacobian of the vector field in these
    coordinates; its eigenvalues are those of the motion when the coordinates that change along it are cyclic
    (the equations do not depend on them), as with scalar joints for x, y, yaw, lean and spin of a rolling disk.
    The local coordinates of a free or spherical joint are not carried along by its rotation: about a state in
    which one rotates, the eigenvalues depend on that choice, and a RuntimeWarning says so.
    """
    q = as_state(q, model.nq, "q")
    v = np.zeros(model.nv) if v is None else as_state(v, model.nv, "v")
    tau = np.zeros(model.nv) if torque is None else as_state(torque, model.nv, "torque")
    nv = model.nv
    eps = CENTRAL_DIFFERENCE_STEP if eps is None else float(eps)
    _warn_rotating_quaternion_joints(model, v)
    from ..constraints.types import equality_constraints
    if equality_constraints(model):
        return _linearize_constrained(model, q, v, tau, eps, bases)

    A = np.zeros((2 * nv, 2 * nv))
    A[:nv, nv:] = np.eye(nv)
    if (model._compiled or model.compile()).flexible:  # (beams: the analytical derivatives cover rigid trees)
        def accel(qq, vv):
            return aba(model, qq, vv, tau + elements_force(model, qq, vv))
        A[nv:, :nv] = _jacobian_fd(lambda d: accel(integrate(model, q, d), v), nv, eps)
        A[nv:, nv:] = _jacobian_fd(lambda dv: accel(q, v + dv), nv, eps)
        Minv = np.linalg.inv(crba(model, q))
    else:
        A[nv:, :nv], A[nv:, nv:], Minv = acceleration_derivatives(model, q, v, tau, eps)
    B = np.vstack([np.zeros((nv, nv)), Minv])
    if bases:
        return A, B, np.eye(nv), np.eye(nv)
    return A, B


def acceleration_derivatives(model: Model, q: np.ndarray, v: np.ndarray, tau: np.ndarray,
                             eps: float = 1e-6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(∂v̇/∂q, ∂v̇/∂v, ∂v̇/∂τ = M⁻¹) of a tree's v̇ = ABA(q, v, τ + Q(q, v)), Q the force elements' generalized force:
    the analytical derivatives of :func:`multibody.aba_derivatives` at τ + Q, plus M⁻¹ ∂Q/∂(q, v)
    (:func:`~.forces.elements_force_derivatives`; ``eps``: its difference step for point-to-point springs and
    gyrostats). ∂/∂q in the local coordinates of :func:`multibody.integrate`."""
    ddq_dq, ddq_dv, Minv = aba_derivatives(model, q, v, tau + elements_force(model, q, v))
    if getattr(model, "forces", ()):
        dQ_dq, dQ_dv = elements_force_derivatives(model, q, v, eps)
        ddq_dq, ddq_dv = ddq_dq + Minv @ dQ_dq, ddq_dv + Minv @ dQ_dv
    return ddq_dq, ddq_dv, Minv


def _warn_rotating_quaternion_joints(model, v):
    """RuntimeWarning if a free or spherical joint rotates at v (see :func:`linearize`)."""
    import warnings
    for joint in model.joints:
        if joint.quaternion_at is not None:
            rate = np.linalg.norm(v[model.v_slice(joint.name)][:3])
            if rate > 1e-12:
                warnings.warn(f"linearize: {type(joint).__name__.lower()} joint '{joint.name}' rotates at "
                              f"{rate:.4g} rad/s at this state; its local coordinates (body-axis rotation vector and "
                              f"speeds) are not carried along by the rotation, so the eigenvalues of A depend on "
                              f"them and need not be the motion's. Model the rotation with scalar joints (e.g. yaw, "
                              f"lean, spin) whose angles do not enter the equations", RuntimeWarning, stacklevel=3)


def _null_and_range(J, scale, rcond=1e-10):
    """(N, U): orthonormal bases of the null space of J (nv, n) and of its range (m, rank), by SVD; singular
    values below rcond·scale are zero (scale: the largest singular value of the whole constraint Jacobian, so that
    rows that vanish at q, like the contact height of a disk on a lean joint, count as zero)."""
    nv = J.shape[1]
    if J.shape[0] == 0:
        return np.eye(nv), np.zeros((0, 0))
    U, s, Vt = np.linalg.svd(J)
    rank = int(np.sum(s > rcond * scale))
    return Vt[rank:].T, U[:, :rank]


def _linearize_constrained(model, q, v, tau, eps, bases):
    """:func:`linearize` in minimal coordinates on the constraint manifold (see its docstring)."""
    from ..constraints._kinematics import Snapshot
    from ..constraints.assembly import check_consistent
    from ..constraints.forward import forward_dynamics
    from ..constraints.types import equality_constraints, stack

    check_consistent(model, q, v)
    equality = equality_constraints(model)

    def rows(qq, vv):
        return stack(model, Snapshot(model, qq, vv), equality)[0]
    star = rows(q, v)
    scale = np.linalg.norm(star.J, 2) if star.J.size else 1.0
    N_h, U_h = _null_and_range(star.J[star.holonomic], scale)
    N, U = _null_and_range(star.J, scale)
    R_h = _null_and_range(N_h.T, 1.0)[0]  # the row space of J_h: where the position correction goes
    w_star = N.T @ v

    def configuration(y):
        """q* ⊕ (N_h y + R_h z) with z solving the independent holonomic rows Uᵀ φ = 0 by Newton."""
        z = np.zeros(R_h.shape[1])
        for _ in range(50):
            qq = integrate(model, q, N_h @ y + R_h @ z)
            if not R_h.shape[1]:
                return qq
            r = rows(qq, np.zeros(model.nv))
            phi, J_h = U_h.T @ r.phi[r.holonomic], U_h.T @ r.J[r.holonomic]
            if np.max(np.abs(phi)) < 1e-14:
                return qq
            z -= np.linalg.solve(J_h @ R_h, phi)
        raise SimulationError(f"linearize: the constraints of '{model.name}' cannot be closed near the given q "
                              f"(largest position error {np.max(np.abs(phi)):.3g} after 50 Newton steps)")

    def velocity(qq, w):
        """v with J(q) v = b(q) (the rows independent at q*) and Nᵀ v = w* + w."""
        r = rows(qq, np.zeros(model.nv))
        return np.linalg.solve(np.vstack([U.T @ r.J, N.T]), np.concatenate([U.T @ r.b, w_star + w]))

    def rates(x, force=tau):
        y, w = x[:N_h.shape[1]], x[N_h.shape[1]:]
        qq = configuration(y)
        vv = velocity(qq, w)
        a = forward_dynamics(model, qq, vv, force + elements_force(model, qq, vv))
        return np.concatenate([N_h.T @ vv, N.T @ a])

    size = N_h.shape[1] + N.shape[1]
    A = _jacobian_fd(rates, size, eps, np.r_[np.zeros(N_h.shape[1]), w_star])
    B = np.zeros((size, model.nv))
    B[N_h.shape[1]:] = (_jacobian_fd(lambda u: rates(np.zeros(size), tau + u), model.nv, 1.0))[N_h.shape[1]:]
    if bases:
        return A, B, N_h, N
    return A, B


def natural_frequencies(model: Model, q: ArrayLike, eps: float = 1e-6,
                        tol: float = 1e-8) -> tuple[np.ndarray, np.ndarray]:
    """Undamped natural frequencies ω [rad/s] (ascending) and mass-normalized mode shapes (nv, nv, columns)
    about a static equilibrium q: K φ = ω² M φ with M = M(q) and stiffness K = ∂(g − Q)/∂δ.

    Raises ValueError if q is not an equilibrium or the equilibrium is unstable (K not positive semidefinite).
    """
    q = as_state(q, model.nq, "q")
    tau0 = np.zeros(model.nv)
    residual = np.abs(_static_residual(model, q, tau0)).max(initial=0.0)
    scale = max(1.0, np.abs(generalized_gravity(model, model.neutral())).max(initial=0.0))
    if residual > tol * scale:
        raise ValueError(f"natural_frequencies: q is not a static equilibrium (unbalanced generalized force "
                         f"{residual:.3g}); find one with static_equilibrium()")
    K = _jacobian_fd(lambda d: _static_residual(model, integrate(model, q, d), tau0), model.nv, eps)
    K = 0.5 * (K + K.T)
    omega_squared, modes = linalg.eigh(K, crba(model, q))
    if omega_squared[0] < -tol * max(1.0, abs(omega_squared[-1])):
        raise ValueError(f"natural_frequencies: the equilibrium is unstable (ω² = {omega_squared[0]:.4g}); "
                         f"use the eigenvalues of linearize()'s A")
    return np.sqrt(np.clip(omega_squared, 0.0, None)), modes


def _rotation_error(R_target, R):
    """Rotation vector φ (world axes) with exp([φ]×) R = R_target."""
    w, x, y, z = rotation_to_quat(R_target @ R.T)
    if w < 0:
        w, x, y, z = -w, -x, -y, -z
    sine = np.sqrt(x * x + y * y + z * z)
    angle = 2.0 * np.arctan2(sine, w)
    return np.zeros(3) if sine < 1e-15 else angle / sine * np.array([x, y, z])


def inverse_kinematics(model: Model, name: str, position: ArrayLike | None = None, rotation: ArrayLike | None = None,
                       q0: ArrayLike | None = None, point: ArrayLike = (0.0, 0.0, 0.0), damping: float = 1e-3,
                       tol: float = 1e-10, max_iter: int = 500) -> np.ndarray:
    """A configuration placing ``point`` of body/frame ``name`` at ``position`` (world, [m]) and/or the
    frame's axes at ``rotation`` (3×3, frame → world), by damped least squares (Levenberg–Marquardt):
    δ = Jᵀ (J Jᵀ + λ² I)⁻¹ e, q ← q ⊕ δ, with e the position and rotation-vector errors.

    Raises SimulationError if the error does not fall below ``tol`` within ``max_iter`` iterations
    (an unreachable target).
    """
    if position is None and rotation is None:
        raise ValueError("inverse_kinematics: give a target position, rotation, or both")
    q = model.neutral() if q0 is None else as_state(q0, model.nq, "q0").copy()
    point = np.asarray(point, dtype=float)
    rows = ([0, 1, 2] if rotation is not None else []) + ([3, 4, 5] if position is not None else [])
    for _ in range(max_iter):
        R, p = body_pose(model, q, name)
        error = []
        if rotation is not None:
            error.append(_rotation_error(np.asarray(rotation, dtype=float), R))
        if position is not None:
            error.append(np.asarray(position, dtype=float) - (p + R @ point))
        e = np.concatenate(error)
        if np.linalg.norm(e) < tol:
            return q
        J = jacobian(model, q, name, point)[rows]
        q = integrate(model, q, J.T @ np.linalg.solve(J @ J.T + damping**2 * np.eye(len(rows)), e))
    raise SimulationError(f"inverse_kinematics: target for '{name}' not reached in {max_iter} iterations "
                          f"(remaining error {np.linalg.norm(e):.3g}); it may be out of reach")
