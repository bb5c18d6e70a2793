"""Serial chains from standard Denavit–Hartenberg rows (Zhang Dingguo, "Lagrange equations of multi-rigid-body systems
under external impact", eq. 3.3).

Each row i gives the transform from link frame i−1 to link frame i,

    ⁱ⁻¹Aᵢ = Rz(θᵢ) Tz(dᵢ) Tx(aᵢ) Rx(αᵢ),

where the joint variable adds to θ (revolute) or to d (prismatic). The joint axis is z of frame i−1.

In a :class:`Model` a body frame coincides with its joint frame at zero, so body ``link{i}`` is placed at
frame i−1 moved by its joint (Rz(θᵢ + q) or Rz(θᵢ) Tz(dᵢ + q)), and the rest of the row, Cᵢ, is a constant
offset. The DH frame i itself is kept as the named frame ``frame{i}`` on body ``link{i}``, and the row's
``com`` and ``inertia`` (given in frame i) are moved into the body frame.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..spatial import Transform, rotation_about
from .body import Body
from .exact import parse_number
from .joints import Prismatic, Revolute

_REQUIRED = ("theta", "d", "a", "alpha")


def dh_transform(theta, d, a, alpha):
    """ⁱ⁻¹Aᵢ = Rz(θ) Tz(d) Tx(a) Rx(α) as a 4×4 matrix (Zhang, eq. 3.3)."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([
        [ct, -st * ca, st * sa, a * ct],
        [st, ct * ca, -ct * sa, a * st],
        [0.0, sa, ca, d],
        [0.0, 0.0, 0.0, 1.0],
    ])


def _row_value(row, key, i):
    """A row's number: a float, or exact when given as an expression of π ("pi/2", "90 deg") or a sympy number,
    so that quarter turns give exact rotations (see :mod:`.exact`)."""
    if key not in row:
        raise ModelError(f"DH row {i}: missing field '{key}' (each row needs {', '.join(_REQUIRED)}, joint, mass, com, inertia)")
    value = row[key]
    try:
        value = parse_number(value) if isinstance(value, str) else value
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"DH row {i}: field '{key}' must be a number or an expression of pi such as 'pi/2', "
                         f"got {row[key]!r}") from exc
    if not np.isfinite(number):
        raise ModelError(f"DH row {i}: field '{key}' must be finite, got {row[key]!r}")
    return value if hasattr(value, "free_symbols") else number


def model_from_dh(model, rows):
    """Build the chain in ``model`` (an empty :class:`Model`) and return it. ``rows``: sequence of dicts with ``theta, d, a, alpha`` [rad, m] (numbers, or exact:
    expressions of π such as ``"pi/2"`` or sympy numbers, which keep quarter turns exact), ``joint``
    ("revolute" or "prismatic", default revolute), ``mass`` [kg], ``com`` [m] and ``inertia`` [kg·m², about
    the mass center] in link frame i, and optionally ``name`` (default ``link{i}``)."""
    if len(rows) == 0:
        raise ModelError("DH table has no rows")
    offset = Transform()  # C_{i-1}: from the previous body frame to DH frame i-1
    parent = "world"
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise ModelError(f"DH row {i}: must be a mapping with {', '.join(_REQUIRED)}, got {row!r}")
        theta, d, a, alpha = (_row_value(row, key, i) for key in _REQUIRED)
        kind = str(row.get("joint", "revolute")).lower()
        body_name = row.get("name", f"link{i}")
        if kind == "revolute":
            joint = Revolute((0, 0, 1))
            placement = offset @ Transform(rotation_about((0, 0, 1), theta))
            rest = Transform(translation=(0, 0, d)) @ Transform(rotation_about((1, 0, 0), alpha), (a, 0, 0))
        elif kind == "prismatic":
            joint = Prismatic((0, 0, 1))
            placement = offset @ Transform(rotation_about((0, 0, 1), theta), (0, 0, d))
            rest = Transform(rotation_about((1, 0, 0), alpha), (a, 0, 0))
        else:
            raise ModelError(f"DH row {i}: joint must be 'revolute' or 'prismatic', got {row.get('joint')!r}")
        for key in ("mass", "com", "inertia"):
            if key not in row:
                raise ModelError(f"DH row {i}: missing field '{key}'")
        link = Body(body_name, mass=row["mass"], com=row["com"], inertia=row["inertia"])
        # mass data given in DH frame i -> body frame: c_b = C c_i, I_b = R_C I_i R_Cᵀ
        body = Body(body_name, mass=link.mass, com=rest.apply(link.com),
                    inertia=rest.rotation @ link.inertia @ rest.rotation.T)
        model.add(body, parent=parent, joint=joint, placement=placement)
        model.add_frame(f"frame{i}", body_name, rest)
        offset = rest
        parent = body_name
    return model
