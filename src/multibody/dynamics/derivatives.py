"""Analytical derivatives of inverse and forward dynamics (public API over :mod:`._derivatives`).

Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms", RSS 2018: ∂τ/∂q, ∂τ/∂v by
differentiating the recursive Newton–Euler algorithm (O(n²)), and ∂q̈/∂x = −M⁻¹ ∂τ/∂x at q̈ = ABA(q, v, τ).

Derivatives with respect to q are taken in the tangent space of the configuration manifold, in the local
coordinates of :func:`~multibody.integrate`: column k of ∂y/∂q is d/dε y(integrate(q, ε e_k, 1)) at ε = 0, an
nv-wide matrix whatever nq (for a quaternion joint, its angular velocity in child axes; for a free joint, the body
twist [ω; v] in child axes), as Pinocchio's ``computeRNEADerivatives`` and ``computeABADerivatives``.
"""
from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ModelError
from . import _core, _derivatives, _derivatives_lanes, _tree_factor
from ._lanes import MIN_BATCH
from ._core import FLOAT64, OK
from ._inputs import as_state, check_quaternions, external_forces, raise_nonfinite
from ._spatial_kernels import IV, NVJ, PARENT
from ._derivatives import batched
from ._threads import ABA_US_PER_BODY
from .kinematics import body_pose
from .algorithms import _batched, _in_batch_shape

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..model import Model


def _compiled_rigid(model, name):
    cm = model._compiled or model.compile()
    if cm.flexible:
        raise ModelError(f"{name}: '{model.name}' has flexible beams; analytical derivatives cover rigid trees only")
    return cm


def rnea_derivatives(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike,
                     f_ext: ArrayLike | Mapping[str, ArrayLike] | None = None, *,
                     out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Derivatives of inverse dynamics τ = M(q) a + c(q, v) − Σ Jᵢᵀ f_ext,i (:func:`~multibody.rnea`).

    Parameters as :func:`~multibody.rnea` (q (..., nq), v and a (..., nv), f_ext in body axes about the body
    origins, held fixed to the bodies); ``out``: three arrays to write the results into (:func:`given_outputs`),
    returned, as Pinocchio writes into its ``Data``.

    Returns
    -------
    (∂τ/∂q, ∂τ/∂v, M): each (..., nv, nv); ∂τ/∂q in the tangent space of q (module docstring), ∂τ/∂a = M the
    mass matrix (armature included). Units: N·m (or N) per rad (or m), per rad/s (or m/s), and kg·m² (or kg).
    """
    cm = model._compiled or model.compile()
    # one state as NumPy float64 vectors, no forces: the fast path, as in multibody.dynamics.algorithms.rnea (the
    # entry point reads its arguments unchecked: the type test comes first, so a GPU array never gets there)
    if (f_ext is None and out is None and type(q) is type(v) is type(a) is np.ndarray
            and q.dtype is v.dtype is a.dtype is FLOAT64 and q.ndim == v.ndim == a.ndim == 1):
        one = np.empty((3, cm.nv, cm.nv))
        if _core.rnea_derivatives_one_entry(cm.packed, q, v, a, one) == OK:
            return one[0], one[1], one[2]
    cm = _compiled_rigid(model, "rnea_derivatives")
    batch, (qb, vb, ab), fb = _batch_inputs(model, cm, q, v, a, "a", f_ext)
    count, nv = qb.shape[0], cm.nv
    dq, dv, M = _outputs(out, batch, count, nv, "rnea_derivatives", (q, v, a, f_ext))
    args = (cm.topology, cm.params, cm.gravity)
    if count == 1:
        ok = _derivatives.rnea_derivatives(*args, qb[0], vb[0], ab[0], fb[0], dq[0], dv[0], M[0])
    elif count >= MIN_BATCH:  # chunks of states as lanes (SIMD across states), on as many threads as they are worth
        ok = np.count_nonzero(batched(_derivatives_lanes.rnea_derivatives_lanes, count, per_state(cm)[0], *args, qb,
                                      vb, ab, fb, dq, dv, M, chunk=_derivatives_lanes.DERIVATIVE_LANES)) == count
    else:  # compiled over the batch state by state
        ok = np.count_nonzero(batched(_derivatives.rnea_derivatives_share, count, per_state(cm)[0], *args, qb, vb,
                                      ab, fb, dq, dv, M)) == count
    if not ok:
        raise_nonfinite(model, "rnea_derivatives", **_in_batch_shape(batch, q=qb, v=vb, a=ab))
    return out or _in_shape(batch, nv, dq, dv, M)


def aba_derivatives(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike,
                    f_ext: ArrayLike | Mapping[str, ArrayLike] | None = None, *,
                    out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Derivatives of forward dynamics q̈ = M(q)⁻¹ (τ − c(q, v) + Σ Jᵢᵀ f_ext,i) (:func:`~multibody.aba`).

    Parameters as :func:`~multibody.aba`; ``out`` as in :func:`rnea_derivatives`.

    Returns
    -------
    (∂q̈/∂q, ∂q̈/∂v, M⁻¹): each (..., nv, nv); ∂q̈/∂q in the tangent space of q (module docstring), and
    ∂q̈/∂τ = M⁻¹. Computed as −M⁻¹ ∂τ/∂(q, v) at a = q̈ (Carpentier & Mansard, RSS 2018).
    """
    cm = model._compiled or model.compile()
    if (f_ext is None and out is None and type(q) is type(v) is type(tau) is np.ndarray  # (as rnea_derivatives)
            and q.dtype is v.dtype is tau.dtype is FLOAT64 and q.ndim == v.ndim == tau.ndim == 1):
        one = np.empty((3, cm.nv, cm.nv))
        try:
            if _core.aba_derivatives_one_entry(cm.packed, q, v, tau, one) == OK:
                return one[0], one[1], one[2]
        except ZeroDivisionError:  # a singular M (cm.singular, below)
            pass
    cm = _compiled_rigid(model, "aba_derivatives")
    if cm.singular:
        raise ModelError(cm.singular)
    batch, (qb, vb, tb), fb = _batch_inputs(model, cm, q, v, tau, "tau", f_ext)
    count, nv = qb.shape[0], cm.nv
    (dq, dv, Minv), qdd = _outputs(out, batch, count, nv, "aba_derivatives", (q, v, tau, f_ext)), np.empty((count, nv))
    args = (cm.topology, cm.params, cm.gravity)
    if count == 1:
        status = _derivatives.aba_derivatives(*args, qb[0], vb[0], tb[0], fb[0], dq[0], dv[0], Minv[0], qdd[0])
    elif count >= MIN_BATCH:  # chunks of states as lanes, q̈ from their factor of M (SIMD across states)
        if cm.nq != cm.nv:  # (its quaternion normalization overflows silently: checked here, as mb.aba does)
            check_quaternions(model, qb, "aba_derivatives")
        qb, vb, tb, fb = (x if x.flags.writeable else x.copy() for x in (qb, vb, tb, fb))  # (one specialization)
        status = _worst(batched(_derivatives_lanes.aba_derivatives_lanes, count, per_state(cm)[1], *args, qb, vb,
                                tb, fb, dq, dv, Minv, qdd, chunk=_derivatives_lanes.DERIVATIVE_LANES))
    else:
        status = _worst(batched(_derivatives.aba_derivatives_share, count, per_state(cm)[1], *args, qb, vb, tb, fb,
                                dq, dv, Minv, qdd))
    if status == _derivatives.NOT_POSITIVE_DEFINITE:
        raise ModelError(f"aba_derivatives: the mass matrix of '{model.name}' is not positive definite at the "
                         f"given q")
    if status:
        raise_nonfinite(model, "aba_derivatives", **_in_batch_shape(batch, q=qb, v=vb, tau=tb))
    return out or _in_shape(batch, nv, dq, dv, Minv)


def _worst(status):
    """The worst of the batch's statuses (OK, NONFINITE, NOT_POSITIVE_DEFINITE): OK when none is set (a count of the
    nonzero entries: with cold caches a third of the cost of a reduction such as ``max``)."""
    return status.max() if np.count_nonzero(status) else OK


def _in_shape(batch, nv, *matrices):
    """The (count, nv, nv) results in the caller's batch shape (as they are for a batch of one axis)."""
    return matrices if len(batch) == 1 else tuple(x.reshape(batch + (nv, nv)) for x in matrices)


def _outputs(out, batch, count, nv, name, inputs):
    """The three (count, nv, nv) arrays a batched derivative writes: those given as ``out`` (:func:`given_outputs`;
    ``inputs`` the call's arguments) seen as such, else the three of one block (:func:`_results_block`)."""
    if out is None:
        return _results_block(count, nv)
    return [x.reshape(count, nv, nv) for x in given_outputs(out, batch + (nv, nv), name, inputs)]


KEPT_BLOCKS, KEPT_BYTES = 2, 128 << 20  # result blocks kept for reuse, and the most bytes they may hold together
_kept: list[np.ndarray] = []  # (most recent last)
_kept_lock = threading.Lock()


def _results_block(count, nv):
    """A (3, count, nv, nv) block for the results of a call (one block: above 4 MB NumPy asks for huge pages, ~10x
    fewer page faults): one of the last KEPT_BLOCKS blocks (KEPT_BYTES together at most) when nothing refers to it any
    more (the caller has dropped every array of those results: no other reference to the block than the list's), else
    a new one. New memory is mapped and zeroed by the operating system when first written, during the call: glibc
    maps every block above 32 MB afresh, and one of the size of the last large block it freed too, so a process that
    allocates and frees results of one size can get new pages on every call. On two threads of the 2-vCPU Xeon,
    Talos's ∂τ/∂x took 6.9 µs a state for 1024 states (35.5 MB) into new memory against 3.2 into a kept block, and
    8.8 against 4.0–4.4 for 256 states (8.9 MB) in such a process."""
    shape = (3, count, nv, nv)
    with _kept_lock:  # (a block is handed to one call only)
        for k in range(len(_kept) - 1, -1, -1):  # (the most recent first: its memory the most likely in cache)
            block = _kept[k]
            if block.shape == shape and sys.getrefcount(block) == 3:  # (the list's, this name's, the argument's)
                del _kept[k]
                break
        else:
            block = np.empty(shape)
        _kept.append(block)
        while len(_kept) > KEPT_BLOCKS or sum(kept.nbytes for kept in _kept) > KEPT_BYTES:
            del _kept[0]
    return block


def given_outputs(out, shape, name, inputs=()):
    """``out`` of rnea_derivatives and aba_derivatives, checked: three separate float64 NumPy arrays of the results'
    shape (..., nv, nv), C-contiguous, aligned and writeable, sharing no memory with each other or with the
    ``inputs`` (the call's arguments, read while the results are written), written in place. Calls into the same
    arrays each time allocate nothing, whether or not the caller keeps earlier results (new results reuse a block
    only once the caller has dropped it: :func:`_results_block`)."""
    if not (isinstance(out, tuple) and len(out) == 3):
        raise ValueError(f"{name}: out must be a tuple of three arrays, got {type(out).__name__}"
                         f"{f' of {len(out)}' if isinstance(out, tuple) else ''}")
    first, second, third = out
    # one test of all three (with cold caches each attribute read costs ~1 µs); carray: C-contiguous, aligned, writeable
    if not (type(first) is type(second) is type(third) is np.ndarray
            and first.dtype is second.dtype is third.dtype is FLOAT64
            and first.shape == second.shape == third.shape == shape
            and first.flags.carray and second.flags.carray and third.flags.carray):
        for k, x in enumerate(out):
            if not (type(x) is np.ndarray and x.dtype == FLOAT64 and x.shape == shape and x.flags.carray):
                what = (f"{x.dtype} array of shape {x.shape}{'' if x.flags.c_contiguous else ', not C-contiguous'}"
                        f"{'' if x.flags.writeable else ', read-only'}{'' if x.flags.aligned else ', not aligned'}"
                        if isinstance(x, np.ndarray) else type(x).__name__)
                raise ValueError(f"{name}: out[{k}] must be a writeable C-contiguous float64 NumPy array of shape "
                                 f"{shape}, got {what}")
    if (np.may_share_memory(first, second) or np.may_share_memory(first, third)
            or np.may_share_memory(second, third)):
        raise ValueError(f"{name}: the three arrays of out must not overlap")
    for x in inputs:
        if isinstance(x, np.ndarray) and (np.may_share_memory(x, first) or np.may_share_memory(x, second)
                                          or np.may_share_memory(x, third)):
            raise ValueError(f"{name}: out must not share memory with the arguments it is computed from")
    return out


def _batch_inputs(model, cm, q, v, x, name, f_ext):
    """(batch shape, (q (B, nq), v (B, nv), x (B, nv)), f_ext (B, n, 6)): the states as the batched kernels take
    them (:func:`~.algorithms._batched`; ``x`` is a or τ, named ``name`` in errors), or as given when they already
    are (:func:`_one_batch`)."""
    if f_ext is None and _one_batch(cm, q, v, x):
        qb, vb, xb = cast(np.ndarray, q), cast(np.ndarray, v), cast(np.ndarray, x)
        return qb.shape[:1], (qb, vb, xb), _NO_FORCES
    q, v, x = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v"), as_state(x, cm.nv, name)
    return _batched(external_forces(model, f_ext), (q, "q"), (v, "v"), (x, name))


_NO_FORCES = np.zeros((1, 0, 6))  # (no external forces, as the batched kernels take them)


def _one_batch(cm, q, v, x) -> bool:
    """Whether q, v and x (a or τ) are already the one batch the batched kernels take: float64 NumPy arrays (B, nq),
    (B, nv), (B, nv), C-contiguous and writeable (what :func:`~.algorithms._batched` would make of them, given no
    f_ext: its broadcasting and copies skipped, ~15 µs a call, 5 % of Panda's 256 states of rnea_derivatives)."""
    return (type(q) is type(v) is type(x) is np.ndarray and q.dtype is v.dtype is x.dtype is FLOAT64
            and q.ndim == v.ndim == x.ndim == 2 and q.shape == (v.shape[0], cm.nq) and v.shape == x.shape
            and v.shape[1] == cm.nv and q.flags.c_contiguous and v.flags.c_contiguous and x.flags.c_contiguous
            and q.flags.writeable and v.flags.writeable and x.flags.writeable)


# [µs] per state on one core (Intel Xeon, AVX-512; fitted on Panda, UR5 and Talos): ∂τ/∂x per body and per entry of
# a velocity with an ancestor (the backward sweep's pairs), ∂q̈/∂x's solves per entry row operation
RNEA_US_PER_BODY, RNEA_US_PER_PAIR, SOLVE_US_PER_ENTRY = 0.01, 0.022, 0.0001


def per_state(cm):
    """The estimated µs per state on one core of the batched rnea_derivatives and aba_derivatives of a compiled
    model (for the thread count: :func:`._derivatives.batched`), worked out on first use and kept in
    ``cm.derived``."""
    if "derivatives_us" not in cm.derived:
        cm.derived["derivatives_us"] = _per_state(cm.topology)
    return cm.derived["derivatives_us"]


def _per_state(topology):
    """:func:`per_state` of the tree of this topology (n, NTOPOLOGY) int64 array."""
    n = topology.shape[0]
    lam = np.empty(int(topology[:, NVJ].sum()))
    _tree_factor.dof_parents.py_func(topology, lam)  # (in Python: once per model)
    nv, depth, last = lam.shape[0], np.ones(lam.shape[0]), np.arange(lam.shape[0])
    for k in range(nv):  # (the parent's index is below k's)
        if lam[k] >= 0:
            depth[k] = depth[int(lam[k])] + 1
    for k in range(nv - 1, -1, -1):
        if lam[k] >= 0:
            last[int(lam[k])] = max(last[int(lam[k])], last[k])
    pairs = depth.sum()
    # the row operations of tree_solve (twice) and tree_inverse, per entry of a row
    columns = np.arange(nv)
    entries = 2 * (depth @ (last + 1) + nv * pairs) + depth @ (last + 1 - columns) + depth @ (nv - columns)
    rnea = RNEA_US_PER_BODY * n + RNEA_US_PER_PAIR * pairs
    return float(rnea), float(rnea + ABA_US_PER_BODY * n + SOLVE_US_PER_ENTRY * entries)


def kinematics_derivatives(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike,
                           body: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Derivatives of a body's spatial velocity and acceleration (forward kinematics), the terms the dynamics
    derivatives are made of (Carpentier & Mansard, RSS 2018, Table 1).

    The body's velocity v_b = [ω; v_O] and spatial acceleration a_b = d/dt v_b (no gravity), both in its own axes
    about its origin, as functions of one state: q (nq,), v and a (nv,).

    Returns
    -------
    (∂v_b/∂q, ∂v_b/∂v, ∂a_b/∂q, ∂a_b/∂v), each (6, nv), ∂/∂q in the tangent space of q (module docstring);
    ∂v_b/∂v = ∂a_b/∂a is the body Jacobian. A perturbation ψ = ᵒS_i δ of an ancestor joint i moves the body with
    its subtree, so that in body axes only what flows in from the parent λ remains: ∂v_b/∂q_i = X_b (ᵒv_λ × ψ),
    ∂a_b/∂q_i = X_b (z_i + u_i × ᵒv_b), ∂a_b/∂v_i = X_b (y_i + ψ × ᵒv_b), with u, z, y as in
    :mod:`._derivatives` and X_b from world-origin to body coordinates.
    """
    cm = _compiled_rigid(model, "kinematics_derivatives")
    q, v, a = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v"), as_state(a, cm.nv, "a")
    if not q.ndim == v.ndim == a.ndim == 1:
        raise ValueError("kinematics_derivatives: one state at a time (q (nq,), v and a (nv,))")
    k = model.body_index(body)
    n, nv = cm.topology.shape[0], cm.nv
    S, U, Z, W = (np.empty((nv, 6)) for _ in range(4))
    V, A = np.empty((n + 1, 6)), np.empty((n + 1, 6))
    _derivatives.motion_terms(cm.topology, cm.params, q, v, a, S, U, Z, W, V, A)
    R, p = body_pose(model, q, body)
    X = np.zeros((6, 6))  # world-origin motion -> body axes about the body origin: [Rᵀ ω; Rᵀ (v₀ + ω × p)]
    X[:3, :3] = X[3:, 3:] = R.T
    X[3:, :3] = -R.T @ np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])
    vb = V[k]
    dv_dq, dv_dv, da_dq, da_dv = (np.zeros((6, nv)) for _ in range(4))
    i = k
    while i >= 0:
        for c in range(cm.topology[i, IV], cm.topology[i, IV] + cm.topology[i, NVJ]):
            dv_dq[:, c] = X @ U[c]
            dv_dv[:, c] = X @ S[c]
            da_dq[:, c] = X @ (Z[c] + _cross_motion(U[c], vb))
            da_dv[:, c] = X @ (W[c] + _cross_motion(S[c], vb))
        i = cm.topology[i, PARENT]
    return dv_dq, dv_dv, da_dq, da_dv


def _cross_motion(x, m):
    """x ×m m for spatial motion vectors [ω; v] (RBDA eq. 2.31)."""
    return np.r_[np.cross(x[:3], m[:3]), np.cross(x[:3], m[3:]) + np.cross(x[3:], m[:3])]
