"""A flexible beam as a body of a :class:`~multibody.Model` tree.

The body frame of a :class:`FlexibleBeam` is the beam's floating frame B (:mod:`.beam`): the root is clamped in B
and the undeformed beam lies on B's x axis from x = ``root`` to ``root + length``. Its joint moves B; its elastic
coordinates e (``ne`` of them) are extra coordinates of the model, after all joint coordinates:
q = [joint coordinates; e of each beam in body order], v = [joint velocities; ė of each beam].

A child body (or a named frame) of a beam is carried by the beam's cross-section at the station of its
placement: s = x − root (clamped to [0, L]) for the placement's x coordinate in B; see :mod:`.tree` for the
kinematics of that section.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..errors import ModelError
from ..model.body import Body
from .beam import Beam, discretize


class FlexibleBeam(Body):
    """A uniform Euler–Bernoulli beam in a floating frame B, as a body of a model tree (Kane, Ryan & Banerjee,
    J. Guidance 10(2), 1987: foreshortening kept, so geometric stiffening is on by default).

    As a :class:`~multibody.Body` it carries the rigid equivalent of the undeformed beam: mass ρAL, mass center at
    x = root + L/2, central inertia diag(ρJ L, ρA L³/12, ρA L³/12) (the inertia of its mass elements on the axis).

    Parameters
    ----------
    name : str — body name.
    length : float — L [m]; mass_per_length : ρA [kg/m]; EA : axial stiffness [N];
    EIv, EIw : bending stiffness for deflections along B's y and z axes [N·m²] (EIw defaults to EIv);
    root : distance of the clamped root from B's origin along x [m]; polar_inertia : ρJ [kg·m] (rigid inertia
        of the cross-sections about the beam axis; torsion is not modelled).
    elements : number of finite elements; modes : keep only this many lowest clamped modes per component
        (assumed modes), or None for the finite elements; components : which displacements to model, any of
        "u" (axial), "v" (along y), "w" (along z) — see :func:`~multibody.flexible.discretize`.
    stiffening : keep the foreshortening (geometric stiffening); False gives linear floating-frame theory.
    """

    def __init__(self, name: str, length: float, mass_per_length: float, EA: float, EIv: float,
                 EIw: float | None = None, root: float = 0.0, polar_inertia: float = 0.0, *, elements: int = 10,
                 modes: int | None = None, components: str = "uvw", stiffening: bool = True) -> None:
        try:
            beam = Beam(length, mass_per_length, EA, EIv, EIw, root, polar_inertia)
            discretization = discretize(beam, elements, "clamped", components, modes)
        except ModelError as exc:
            raise ModelError(f"beam '{name}': {exc}") from None
        if not isinstance(stiffening, (bool, np.bool_)):
            raise ModelError(f"beam '{name}': stiffening must be True or False, got {stiffening!r}")
        mass = beam.mass_per_length * beam.length
        inertia = np.diag([beam.polar_inertia * beam.length, mass * beam.length**2 / 12, mass * beam.length**2 / 12])
        super().__init__(name, mass=mass, com=(beam.root + beam.length / 2, 0.0, 0.0), inertia=inertia)
        self.beam, self.discretization, self.stiffening = beam, discretization, bool(stiffening)
        self.elements, self.modes, self.components = discretization.elements, modes, discretization.components
        self.ne = discretization.n

    def station(self, x: float) -> float:
        """Arc length s [m] of the cross-section that carries a point at x [m] along B's x axis: x − root,
        clamped to [0, L]."""
        return float(np.clip(x - self.beam.root, 0.0, self.beam.length))

    def to_dict(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this beam (all but its name): the ``beam`` entry of model files."""
        data = dataclasses.asdict(self.beam)
        data.update(elements=self.elements, components=self.components, stiffening=self.stiffening)
        return data if self.modes is None else {**data, "modes": self.modes}

    def __repr__(self) -> str:
        return (f"FlexibleBeam({self.name!r}, length={self.beam.length}, mass_per_length={self.beam.mass_per_length}, "
                f"{self.elements} elements, modes={self.modes}, components={self.components!r}, ne={self.ne}, "
                f"stiffening={self.stiffening})")
