"""Input checking shared by the public numeric functions: shapes, batches and the NaN guard."""
from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike

from ..model.joints import normalized_quaternions, quaternion_norms

_NO_FORCES = np.zeros((0, 6))


def as_state(x: ArrayLike, size: int, name: str) -> np.ndarray:
    """x as a float64 array of shape (size,) or (..., size); ValueError naming ``name`` otherwise (complex
    numbers included: numpy would drop their imaginary part with only a warning)."""
    arr = np.asarray(x)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: must be real, got complex entries")
    if arr.dtype.kind == "b":
        raise ValueError(f"{name}: must be numbers, got booleans")
    arr = arr.astype(np.float64, copy=False)
    if arr.ndim == 0 or arr.shape[-1] != size:
        raise ValueError(f"{name}: expected shape ({size},) or (..., {size}), got {arr.shape}")
    return arr


def unit_quaternions(model, q: np.ndarray, what: str, warn: str = "") -> np.ndarray:
    """q (..., nq) with every quaternion scaled to unit length; ValueError (naming ``what`` and the joint) for one
    of zero or non-finite norm, which has no direction, and with ``warn`` (the name of q, e.g. "simulate: q0") a
    warning, once per joint, for one whose norm is not 1 to 1e-3."""
    if not _has_quaternions(model):
        return q
    for joint, norm in quaternion_norms(model.joints, q).items():
        if not np.all(norm > 0) or not np.all(np.isfinite(norm)):
            bad = ~((norm > 0) & np.isfinite(norm))
            index = tuple(int(i) for i in np.argwhere(bad)[0]) if norm.ndim else ()
            raise ValueError(f"{what}: the quaternion of joint '{joint.name}'"
                             f"{f' in batch entry {index}' if index else ''} is {norm[index]:g} in norm "
                             f"(zero or not finite: it has no direction)")
        off = np.abs(norm - 1.0)
        if warn and np.any(off > 1e-3):
            warnings.warn(f"{warn}'s quaternion of joint '{joint.name}' has norm {np.ravel(norm)[np.argmax(off)]:g}, "
                          "not 1: it is normalized (the rotation it describes is kept)", stacklevel=4)
    return normalized_quaternions(model.joints, q)


def _has_quaternions(model) -> bool:
    """Whether the model has joints with a quaternion in q, kept with its compiled model when it has one (which any
    edit of the model drops)."""
    cm = getattr(model, "_compiled", None)
    if cm is None:
        return any(joint.quaternion_at is not None for joint in model.joints)
    kept = cm.derived.get("has_quaternions")
    if kept is None:
        kept = cm.derived["has_quaternions"] = any(joint.quaternion_at is not None for joint in model.joints)
    return kept


def batch_of(*arrays_and_names):
    """Broadcast (..., size_k) arrays to one batch; returns the batch shape and the (B, size_k) contiguous arrays."""
    shapes = [a.shape[:-1] for a, _ in arrays_and_names]
    try:
        batch = np.broadcast_shapes(*shapes)
    except ValueError:
        desc = ", ".join(f"{name} {a.shape}" for a, name in arrays_and_names)
        raise ValueError(f"batch shapes do not broadcast: {desc}") from None
    count = int(np.prod(batch)) if batch else 1
    flat = [np.ascontiguousarray((a if a.shape[:-1] == batch else np.broadcast_to(a, batch + a.shape[-1:]))
                                 .reshape(count, a.shape[-1])) for a, _ in arrays_and_names]
    # writeable arrays only: a read-only one (a broadcast view, or the caller's) is a separate numba specialization
    return batch, [f if f.flags.writeable else f.copy() for f in flat]


def external_forces(model, f_ext):
    """f_ext as an (nbodies, 6) array (or (..., nbodies, 6)), from None, an array, or {body name: 6-vector}.

    Each row is the external spatial force [moment; force] on a body, in body axes, about the body origin [N·m; N].
    """
    if f_ext is None:
        return _NO_FORCES
    n = model.nbodies
    if isinstance(f_ext, dict):
        forces = np.zeros((n, 6))
        for name, wrench in f_ext.items():
            w = np.asarray(wrench, dtype=np.float64)
            if w.shape != (6,):
                raise ValueError(f"f_ext['{name}']: expected shape (6,) [moment; force], got {w.shape}")
            forces[model.body_index(name)] += w
    else:
        forces = np.asarray(f_ext, dtype=np.float64)
        if forces.ndim < 2 or forces.shape[-2:] != (n, 6):
            raise ValueError(f"f_ext: expected shape ({n}, 6) (one [moment; force] row per body), got {forces.shape}")
    if not np.all(np.isfinite(forces)):
        raise ValueError(f"f_ext: must be finite, got non-finite entries at {np.argwhere(~np.isfinite(forces)).tolist()}")
    # writeable, as batch_of's arrays: a read-only one is a separate numba specialization of the kernels
    return forces if forces.flags.writeable else forces.copy()


def raise_nonfinite(model, what, **inputs):
    """Raise ValueError naming the first non-finite input entry (with its joint and body), or the output."""
    for name, arr in inputs.items():
        bad = ~np.isfinite(arr)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            entry = index[-1]
            describe = model.describe_q if name == "q" else model.describe_v
            label = describe(entry).replace(f"q[{entry}]", f"{name}[{entry}]").replace(f"v[{entry}]", f"{name}[{entry}]")
            where = f" in batch entry {index[:-1]}" if len(index) > 1 else ""
            raise ValueError(f"{what}: {label}{where} is {arr[index]} (inputs must be finite)")
    if "q" in inputs:
        check_quaternions(model, inputs["q"], what)
    raise FloatingPointError(f"{what}: produced a non-finite result from finite inputs (singular mass matrix or overflow)")


def check_quaternions(model, q, what):
    """ValueError naming the joint of a zero quaternion in q, or of one whose squared norm under- or overflows
    (the kernels normalize quaternions: such q have no rotation)."""
    for joint, norm in quaternion_norms(model.joints, np.asarray(q, dtype=np.float64)).items():
        bad = ~((norm > 1e-150) & (norm < 1e150))
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0]) if norm.ndim else ()
            where = f" in batch entry {index}" if index else ""
            raise ValueError(f"{what}: the quaternion of joint '{joint.name}'{where} has norm {norm[index]:g} "
                             f"(it must be non-zero, and of norm about 1)")
