"""Inverse and forward dynamics, the mass matrix and energies (public API over the compiled core).

Every function takes the :class:`~multibody.Model` and state arrays, and accepts leading batch dimensions:
q of shape (..., nq), v and a of shape (..., nv); the batch loop runs in compiled code, in parallel.
Units are SI; τ holds joint torques [N·m] and forces [N].
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numba
import numpy as np
from numpy.typing import ArrayLike

from ..errors import ModelError
from . import _batch, _core, _quantities, gpu
from ._core import FLOAT64, OK
from ._inputs import as_state, batch_of, check_quaternions, external_forces, raise_nonfinite

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..model import Model


def _beams():
    """multibody.dynamics.flexible_tree: the Python path of the algorithms for models with flexible beams."""
    from . import flexible_tree as tree
    return tree


def _batched(forces, *arrays_and_names):
    """Broadcast the state arrays and f_ext to one batch: (batch shape, [(B, size) arrays], forces), the forces as
    (1, n, 6) when shared by every state (or (1, 0, 6) for none), else (B, n, 6)."""
    if forces.ndim == 2:
        batch, flat = batch_of(*arrays_and_names)
        return batch, flat, forces[None]
    n = forces.shape[-2]
    batch, flat = batch_of(*arrays_and_names, (forces.reshape(forces.shape[:-2] + (6 * n,)), "f_ext"))
    return batch, flat[:-1], flat[-1].reshape(-1, n, 6)


def _per_state(forces, count):
    """(count, n, 6) forces for the per-state kernels of _core (f_ext[b] for state b), always a new writeable
    C-contiguous array: a read-only one (a broadcast view, even of no forces at all) would be another numba
    specialization of the kernels, compiled again."""
    per_state = np.empty((count,) + forces.shape[1:])
    per_state[...] = forces
    return per_state


def _in_batch_shape(batch, **flat):
    """The (B, size) arrays of a batched call back in the caller's batch shape, so that errors name the entry
    as the caller indexes it (no batch index at all for a single state)."""
    return {name: x.reshape(batch + x.shape[-1:]) for name, x in flat.items()}


def rnea(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike, f_ext: ArrayLike | Mapping[str, ArrayLike] | None = None,
         device: str | None = None) -> Any:
    """Inverse dynamics by the recursive Newton–Euler algorithm: τ = M(q) a + c(q, v) − Σ Jᵢᵀ f_ext,i.

    Parameters
    ----------
    q : (..., nq) configuration; v : (..., nv) velocity; a : (..., nv) acceleration.
    f_ext : optional external spatial forces, (nbodies, 6) or {body: [moment; force]}, body axes, about the
        body origin.
    device : "cuda" to run on an NVIDIA GPU (:mod:`multibody.dynamics.gpu`); arrays on a GPU (numba, CuPy,
        PyTorch) run there without it, and the result is the same kind of array.

    Returns
    -------
    τ : (..., nv) generalized forces.
    """
    cm = model._compiled or model.compile()
    # One state given as float64 vectors and no forces: the fast path, past numba's type dispatch (so the dtype and
    # ndim tests here, see _core.__getattr__); anything else, or a model with flexible beams (its q is longer than
    # its rigid tree's: the kernel finds WRONG_SIZE), takes the general path below; so do arrays on a GPU, which the
    # entry point refuses (TypeError: it takes NumPy arrays only). Written out here and in aba and crba rather than
    # shared: a helper's Python call would add ~0.1 µs to the ~1 µs this path takes.
    try:
        fast = (f_ext is None and device is None and q.dtype is v.dtype is a.dtype is FLOAT64  # type: ignore[union-attr]
                and q.ndim == v.ndim == a.ndim == 1)  # type: ignore[union-attr]
    except AttributeError:  # not arrays
        fast = False
    if fast:
        tau = np.empty(cm.nv)
        try:
            if _core.rnea_one_entry(cm.packed, q, v, a, tau) == OK:
                return tau
        except TypeError:  # not NumPy arrays
            pass
    if device is not None or gpu.on_device(q, v, a):
        return gpu.rnea(model, q, v, a, f_ext, device)
    if cm.flexible:
        return _beams().rnea(model, as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v"), as_state(a, cm.nv, "a"),
                             external_forces(model, f_ext))
    q, v, a = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v"), as_state(a, cm.nv, "a")
    forces = external_forces(model, f_ext)
    batch, (qb, vb, ab), fb = _batched(forces, (q, "q"), (v, "v"), (a, "a"))
    tau = np.empty((qb.shape[0], cm.nv))
    if qb.shape[0] == 1:  # one state, with external forces or not given as float64 vectors
        ok = _core.rnea(cm.topology, cm.params, cm.gravity, qb[0], vb[0], ab[0], fb[0], tau[0])
    else:
        ok = _core.rnea_batch(cm.topology, cm.params, cm.gravity, qb, vb, ab, _per_state(fb, qb.shape[0]), tau)
    if not ok:
        raise_nonfinite(model, "rnea", **_in_batch_shape(batch, q=qb, v=vb, a=ab))
    return tau.reshape(batch + (cm.nv,))


def aba(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike, f_ext: ArrayLike | Mapping[str, ArrayLike] | None = None,
        device: str | None = None) -> Any:
    """Forward dynamics by the articulated-body algorithm: a = M(q)⁻¹ (τ − c(q, v) + Σ Jᵢᵀ f_ext,i).

    Same arguments as :func:`rnea` with τ (..., nv) in place of a; returns a (..., nv).
    """
    cm = model._compiled or model.compile()
    try:  # one state as float64 vectors: the fast path (see rnea)
        fast = (f_ext is None and device is None and q.dtype is v.dtype is tau.dtype is FLOAT64  # type: ignore[union-attr]
                and q.ndim == v.ndim == tau.ndim == 1)  # type: ignore[union-attr]
    except AttributeError:
        fast = False
    if fast:
        qdd = np.empty(cm.nv)
        try:
            if _core.aba_one_entry(cm.packed, q, v, tau, qdd) == OK:
                return qdd
        except (TypeError, ZeroDivisionError):  # not NumPy arrays; a singular M (cm.singular, below)
            pass
    if device is not None or gpu.on_device(q, v, tau):
        return gpu.aba(model, q, v, tau, f_ext, device)
    if cm.flexible:
        return _beams().aba(model, as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v"), as_state(tau, cm.nv, "tau"),
                            external_forces(model, f_ext))
    if cm.singular:
        raise ModelError(cm.singular)
    forces = external_forces(model, f_ext)
    q, v, tau = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v"), as_state(tau, cm.nv, "tau")
    batch, (qb, vb, tb), fb = _batched(forces, (q, "q"), (v, "v"), (tau, "tau"))
    qdd = np.empty((qb.shape[0], cm.nv))
    if qb.shape[0] == 1:  # one state, with external forces or not given as float64 vectors
        ok = _core.aba(cm.topology, cm.params, cm.gravity, qb[0], vb[0], tb[0], fb[0], qdd[0])
    elif qb.shape[0] >= _batch.MIN_BATCH:  # structure-of-arrays kernel, SIMD across states
        if cm.nq != cm.nv:  # its quaternion normalization overflows silently: check them here
            check_quaternions(model, qb, "aba")
        qb, vb, tb, fb = (x if x.flags.writeable else x.copy() for x in (qb, vb, tb, fb))  # one specialization
        ok = _batch.aba_batch(cm.topology, cm.params, cm.gravity, qb, vb, tb, fb, qdd, numba.get_num_threads())
    else:
        ok = _core.aba_batch(cm.topology, cm.params, cm.gravity, qb, vb, tb, _per_state(fb, qb.shape[0]), qdd)
    if not ok:
        raise_nonfinite(model, "aba", **_in_batch_shape(batch, q=qb, v=vb, tau=tb))
    return qdd.reshape(batch + (cm.nv,))


def crba(model: Model, q: ArrayLike, device: str | None = None) -> Any:
    """Joint-space inertia (mass) matrix M(q) by the composite-rigid-body algorithm: (..., nv, nv),
    symmetric positive definite, with kinetic energy ½ vᵀ M v. ``device``: as for :func:`rnea`."""
    cm = model._compiled or model.compile()
    try:  # one state as a float64 vector: the fast path (see rnea)
        fast = device is None and q.dtype is FLOAT64 and q.ndim == 1  # type: ignore[union-attr]
    except AttributeError:
        fast = False
    if fast:
        M = np.empty((cm.nv, cm.nv))
        try:
            if _core.crba_one_entry(cm.packed, q, M) == OK:
                return M
        except TypeError:  # not a NumPy array
            pass
    if device is not None or gpu.on_device(q):
        return gpu.crba(model, q, device)
    if cm.flexible:
        return _beams().crba(model, as_state(q, cm.nq, "q"))
    q = as_state(q, cm.nq, "q")
    batch, (qb,) = batch_of((q, "q"))
    M = np.empty((qb.shape[0], cm.nv, cm.nv))
    ok = (_core.crba(cm.topology, cm.params, qb[0], M[0]) if qb.shape[0] == 1
          else _core.crba_batch(cm.topology, cm.params, qb, M))
    if not ok:
        raise_nonfinite(model, "crba", **_in_batch_shape(batch, q=qb))
    return M.reshape(batch + (cm.nv, cm.nv))


def nonlinear_effects(model: Model, q: ArrayLike, v: ArrayLike) -> np.ndarray:
    """Bias forces c(q, v) = C(q, v) v + g(q): Coriolis, centrifugal and gravity terms (rnea with a = 0)."""
    v = np.asarray(v, dtype=np.float64)
    return rnea(model, q, v, np.zeros_like(v))


def generalized_gravity(model: Model, q: ArrayLike) -> np.ndarray:
    """Gravity term g(q) of M a + c = τ (rnea with v = a = 0)."""
    cm = model._compiled or model.compile()
    q = as_state(q, cm.nq, "q")
    zero = np.zeros(q.shape[:-1] + (cm.nv,))
    return rnea(model, q, zero, zero)


def energy(model: Model, q: ArrayLike, v: ArrayLike) -> tuple[float | np.ndarray, float | np.ndarray]:
    """(kinetic, potential) energy [J], each of shape q.shape[:-1]. Potential energy is −Σ mᵢ g·cᵢ,
    zero with every mass center at the world origin, plus the strain energy ½ eᵀ K e of flexible beams."""
    cm = model._compiled or model.compile()
    q, v = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v")
    if cm.flexible:
        return _beams().energy(model, q, v)
    if q.ndim == v.ndim == 1:
        out = np.empty(2)
        _quantities.energy(cm.topology, cm.params, cm.gravity, q, v, out)
        if not np.isfinite(out).all():
            raise_nonfinite(model, "energy", q=q, v=v)
        return out[0], out[1]
    batch, (qb, vb) = batch_of((q, "q"), (v, "v"))
    out = np.empty((qb.shape[0], 2))
    if not _quantities.energy_batch(cm.topology, cm.params, cm.gravity, qb, vb, out):
        raise_nonfinite(model, "energy", q=qb, v=vb)
    return out[:, 0].reshape(batch), out[:, 1].reshape(batch)


def kinetic_energy(model: Model, q: ArrayLike, v: ArrayLike) -> float | np.ndarray:
    """Kinetic energy ½ Σ vᵢᵀ Iᵢ vᵢ = ½ vᵀ M(q) v [J]."""
    return energy(model, q, v)[0]


def potential_energy(model: Model, q: ArrayLike) -> float | np.ndarray:
    """Gravitational potential energy −Σ mᵢ g · cᵢ [J]."""
    cm = model._compiled or model.compile()
    q = as_state(q, cm.nq, "q")
    return energy(model, q, np.zeros(q.shape[:-1] + (cm.nv,)))[1]
