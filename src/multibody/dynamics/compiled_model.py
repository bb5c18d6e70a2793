"""A model's compiled form, computed from the model by the numeric layer: the flat constant arrays the compiled
core works on (:func:`multibody.dynamics._layout.pack`), the beams' data for the Python path of models with flexible
beams, and why the mass matrix is singular where it is. ``Model.compile()`` calls :func:`compile_model`; the model
keeps the result until it changes.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError
from .flexible_tree import FlexibleTree
from ..model import CompiledModel
from ._layout import pack
from .algorithms import crba

if TYPE_CHECKING:
    from ..model import Model


def compile_model(model: Model) -> CompiledModel:
    """The :class:`~multibody.model.CompiledModel` of ``model``, kept in the model until it changes (its parts and
    lists drop it); ModelError for a model with symbolic parameters."""
    if model._compiled is not None:
        return model._compiled
    if model.symbolic:
        raise ModelError(f"model '{model.name}': has symbolic parameters; substitute numbers before numeric use")
    compiled = CompiledModel(*pack(model))  # (the arrays laid out as multibody.dynamics._layout says)
    if model.ne:
        compiled = dataclasses.replace(compiled, flexible=FlexibleTree(model, compiled))
    model._compiled = compiled
    if any(np.linalg.eigvalsh(body.inertia)[0] <= 0.0 for body in model.bodies if not body.ne):
        model._compiled = dataclasses.replace(compiled, singular=singular_mass_matrix(model))
    return model._compiled


def singular_mass_matrix(model: Model) -> str:
    """Why M(q) is singular, naming the joints of its null space, or "" if it is positive definite; needed
    only when some body has a singular inertia (massless bodies, point masses). Tested at a generic
    configuration (fixed seed), so that a singularity of one special pose is not taken for a structural one.
    Inverse dynamics and the mass matrix stay available; forward dynamics raises this as a ModelError."""
    M = crba(model, model.random_configuration(0))
    moments, modes = np.linalg.eigh(M)
    scale = max(moments[-1], 1e-300) if len(moments) else 1.0
    null = moments < 1e-12 * scale
    if not null.any():
        return ""
    involved = np.abs(modes[:, null]).max(axis=1) > 1e-6
    joint_of_v = [joint.name for joint in model.joints for _ in range(joint.nv)] + [
        body.name for body in model.bodies for _ in range(body.ne)]
    joints = dict.fromkeys(joint_of_v[k] for k in np.flatnonzero(involved))
    return (
        f"model '{model.name}': the mass matrix is singular (smallest eigenvalue {moments[0]:.3g}, largest "
        f"{moments[-1]:.3g}): nothing with mass moves along the joints {', '.join(map(repr, joints))}; give the "
        f"bodies these joints move mass or inertia, or fix the joints")
