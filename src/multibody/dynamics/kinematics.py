"""Kinematics: poses, velocities, Jacobians, mass center, momentum, and motion on the configuration manifold (with
the first-order form ẋ = f(t, x) of the equations of motion that ODE solvers take).

World axes throughout unless a function says otherwise. Bodies and named frames (``Model.add_frame``) are
accepted wherever a ``name`` is taken. Functions accept leading batch dimensions on q and v.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from numpy.typing import ArrayLike

from . import _configuration, _quantities, gpu
from ._spatial_kernels import all_finite, world_poses
from ._inputs import as_state, batch_of, raise_nonfinite, unit_quaternions

if TYPE_CHECKING:
    from ..model import Model


def _beams():
    """multibody.dynamics.flexible_tree: the Python path of the kinematics for models with flexible beams."""
    from . import flexible_tree as tree
    return tree


def _batched(function, arrays, out_rank, model):
    """Apply ``function`` to each state of a batch (a Python loop for the light kinematic queries). An empty
    batch gives empty results of the right shape (from one call at the neutral state and zero speeds)."""
    batch, flat = batch_of(*arrays)
    if flat[0].shape[0] == 0:
        stand_in = function(*(model.neutral() if name == "q" else np.zeros(f.shape[1])
                              for f, (_, name) in zip(flat, arrays)))
        if isinstance(stand_in, tuple):
            return tuple(np.empty(batch + np.shape(r)) for r in stand_in)
        return np.empty(batch + (np.shape(stand_in) if out_rank else ()))
    results = [function(*(f[b] for f in flat)) for b in range(flat[0].shape[0])]
    if isinstance(results[0], tuple):
        return tuple(np.stack([r[k] for r in results]).reshape(batch + np.shape(results[0][k]))
                     for k in range(len(results[0])))
    return np.stack(results).reshape(batch + np.shape(results[0])) if out_rank else np.array(results).reshape(batch)


def body_poses(model: Model, q: ArrayLike, device: str | None = None) -> tuple[Any, Any]:
    """World poses of all bodies: R (..., n, 3, 3) body axes → world axes, and origins p (..., n, 3) [m] (of a
    flexible beam: its floating frame B). ``device``: "cuda" to run on an NVIDIA GPU; q on a GPU runs there
    without it (:mod:`multibody.dynamics.gpu`), the results the same kind of array as q."""
    if device is not None or gpu.on_device(q):
        return gpu.body_poses(model, q, device)
    cm = model._compiled or model.compile()
    if cm.flexible:
        return _beams().body_poses(model, q)
    q = as_state(q, cm.nq, "q")
    if q.ndim > 1:
        return _batched(lambda qq: body_poses(model, qq), [(q, "q")], 1, model)
    n = model.nbodies
    R0, p0 = np.empty((n, 3, 3)), np.empty((n, 3))
    world_poses(cm.topology, cm.params, q, R0, p0)
    if not all_finite(p0):
        raise_nonfinite(model, "body_poses", q=q)
    return R0, p0


def body_pose(model: Model, q: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    """World pose of a body or named frame: rotation R (3, 3) (frame axes → world axes) and origin p (3,) [m]
    (a frame on a flexible beam is carried by the beam's cross-section at its station)."""
    index, origin, rotation = model.locate(name)
    q = np.asarray(q, dtype=np.float64)
    if q.ndim > 1:
        return _batched(lambda qq: body_pose(model, qq, name), [(q, "q")], 1, model)
    cm = model._compiled or model.compile()
    if cm.flexible:
        return _beams().body_pose(model, as_state(q, cm.nq, "q"), name)
    if index < 0:  # a frame fixed in the world
        return rotation.copy(), origin.copy()
    R0, p0 = body_poses(model, q)
    return R0[index] @ rotation, p0[index] + R0[index] @ origin


def jacobian(model: Model, q: ArrayLike, name: str, point: ArrayLike = (0.0, 0.0, 0.0),
             axes: str = "world") -> np.ndarray:
    """Jacobian J (6 × nv) with [ω; v_P] = J v for the point ``point`` (coordinates in the body or frame
    ``name``) fixed in that body; rows [angular; linear].

    ``axes="world"`` (default) expresses both in world axes; ``axes="local"`` in the body's or frame's axes.
    A point of a flexible beam is the material point carried by the beam's cross-section at its station.
    """
    if axes not in ("world", "local"):
        raise ValueError(f"jacobian: axes must be 'world' or 'local', got {axes!r}")
    cm = model._compiled or model.compile()
    index, point_body, rotation = model.locate(name, point)
    q = as_state(q, cm.nq, "q")
    if q.ndim > 1:
        return _batched(lambda qq: jacobian(model, qq, name, point, axes), [(q, "q")], 1, model)
    J = np.zeros((6, cm.nv))
    if index < 0:  # a point fixed in the world does not move
        return J
    if cm.flexible:
        J = _beams().jacobian(model, q, name, point)
    else:
        _quantities.jacobian(cm.topology, cm.params, q, index, point_body, J)
    if not all_finite(J):
        raise_nonfinite(model, "jacobian", q=q)
    if axes == "local":
        Rw = body_pose(model, q, name)[0]
        J = np.vstack([Rw.T @ J[:3], Rw.T @ J[3:]])
    return J


def point_velocity(model: Model, q: ArrayLike, v: ArrayLike, name: str,
                   point: ArrayLike = (0.0, 0.0, 0.0)) -> np.ndarray:
    """Velocity (..., 3) [m/s] in world axes of a point fixed in a body (coordinates in the body or frame);
    q (..., nq) and v (..., nv) broadcast against each other."""
    return body_velocity(model, q, v, name, point)[..., 3:]


def body_velocity(model: Model, q: ArrayLike, v: ArrayLike, name: str,
                  point: ArrayLike = (0.0, 0.0, 0.0)) -> np.ndarray:
    """Spatial velocity [ω; v_P] (..., 6) in world axes of a body or frame, v_P the velocity of the point
    ``point`` of it (default its origin); q (..., nq) and v (..., nv) broadcast against each other."""
    cm = model._compiled or model.compile()
    q, v = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v")
    batch, (qb, vb) = batch_of((q, "q"), (v, "v"))
    J = jacobian(model, qb if batch else qb[0], name, point)  # (B, 6, nv), or (6, nv) for one state
    return (J @ vb[..., None])[..., 0].reshape(batch + (6,)) if batch else J @ vb[0]


def center_of_mass(model: Model, q: ArrayLike) -> np.ndarray:
    """Mass center (3,) [m] of the whole system in world coordinates."""
    return _momentum_data(model, q, None)[..., 6:]


def momentum(model: Model, q: ArrayLike, v: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(angular momentum about the world origin [kg·m²/s], linear momentum [kg·m/s]), world axes, each (..., 3)."""
    out = _momentum_data(model, q, v)
    return out[..., :3], out[..., 3:6]


def _momentum_data(model, q, v):
    cm = model._compiled or model.compile()
    q = as_state(q, cm.nq, "q")
    v = np.zeros(q.shape[:-1] + (cm.nv,)) if v is None else as_state(v, cm.nv, "v")
    if q.ndim > 1 or v.ndim > 1:
        return _batched(lambda qq, vv: _momentum_data(model, qq, vv), [(q, "q"), (v, "v")], 1, model)
    if cm.flexible:
        return _beams().momentum_data(model, q, v)
    out = np.empty(9)
    _quantities.momentum(cm.topology, cm.params, q, v, out)
    if not all_finite(out):
        raise_nonfinite(model, "momentum", q=q, v=v)
    return out


def configuration_rate(model: Model, q: ArrayLike, v: ArrayLike) -> np.ndarray:
    """q̇ (..., nq) from v: equal to v for scalar joints and elastic coordinates; quaternion and free/planar
    position rates otherwise."""
    cm = model._compiled or model.compile()
    q, v = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v")
    if q.ndim > 1 or v.ndim > 1:
        return _batched(lambda qq, vv: configuration_rate(model, qq, vv), [(q, "q"), (v, "v")], 1, model)
    qdot = np.empty(cm.nq)
    configuration_rate_into(model, q, v, qdot)
    return qdot


def configuration_rate_into(model: Model, q: np.ndarray, v: np.ndarray, qdot: np.ndarray) -> None:
    """qdot[:] = q̇ of one state (float64 vectors of the model's nq and nv, unchecked): the inner loop of
    :func:`configuration_rate`, for callers that check their inputs once (simulate's right-hand side)."""
    cm = model._compiled or model.compile()
    _configuration.configuration_rate_of_state(cm.topology, q, v, qdot)
    if cm.flexible:  # ė = the elastic rates, last in q and v
        qdot[cm.nq - model.ne:] = v[cm.nv - model.ne:]


def vector_field(model: Model, accel: Callable[[float, np.ndarray, np.ndarray, np.ndarray], Any],
                 tau: Callable[[float, np.ndarray, np.ndarray], Any],
                 normalized: Callable[[np.ndarray], np.ndarray]) -> Callable[[float, np.ndarray], np.ndarray]:
    """f(t, x) = ẋ of the equations of motion in first-order form, x = [q; v] (nq + nv): q̇ = ½ q ⊗ ω on the
    quaternions as x holds them (:func:`configuration_rate_into`: the compiled loop's vector field), v̇ =
    ``accel(t, q, v, tau(t, q, v))`` at ``normalized(q)`` (q with unit quaternions), for an ODE solver."""
    nq, nv = model.nq, model.nv

    def rhs(t: float, x: np.ndarray) -> np.ndarray:
        q, v = x[:nq], x[nq:]
        x_dot = np.empty(nq + nv)
        configuration_rate_into(model, q, v, x_dot[:nq])
        q = normalized(q)
        x_dot[nq:] = accel(t, q, v, tau(t, q, v))
        return x_dot
    return rhs


def integrate(model: Model, q: ArrayLike, v: ArrayLike, dt: float = 1.0) -> np.ndarray:
    """The configuration reached from q moving at constant velocity v for dt [s] (q ⊕ v·dt).

    Quaternion-correct: rotations are composed with exp(ω dt) and stay unit; free and planar joints follow
    the constant body twist exactly.
    """
    cm = model._compiled or model.compile()
    q, v = as_state(q, cm.nq, "q"), as_state(v, cm.nv, "v")
    if q.ndim > 1 or v.ndim > 1:
        return _batched(lambda qq, vv: integrate(model, qq, vv, dt), [(q, "q"), (v, "v")], 1, model)
    dt = float(dt)
    if not np.isfinite(dt):
        raise ValueError(f"integrate: dt must be finite, got {dt}")
    q_out = np.empty(cm.nq)
    _configuration.integrate_state(cm.topology, q, v, dt, q_out)
    if cm.flexible:  # e + ė dt, last in q and v
        q_out[cm.nq - model.ne:] = q[cm.nq - model.ne:] + v[cm.nv - model.ne:] * dt
    if not all_finite(q_out):
        raise_nonfinite(model, "integrate", q=q, v=v)
    return q_out


def normalize(model: Model, q: ArrayLike) -> np.ndarray:
    """q with every quaternion (Spherical and Free joints) scaled to unit length (without overflow; ValueError
    naming the joint of a zero quaternion)."""
    cm = model._compiled or model.compile()
    return unit_quaternions(model, np.array(as_state(q, cm.nq, "q"), dtype=np.float64), "normalize")
