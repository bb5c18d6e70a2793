"""Flexible bodies in large overall motion: Euler–Bernoulli beams in a floating frame (:mod:`.beam`; their equations:
:mod:`multibody.dynamics.beam_equations`), beams as bodies of a Model tree (:class:`FlexibleBeam`, :mod:`.body`; its
algorithms: :mod:`multibody.dynamics.flexible_tree`), their natural
frequencies at rest and spinning (:mod:`.modal`), and a beam on a rigid hub with the Kane–Ryan–Banerjee spin-up
manoeuvre (:mod:`.spinup`; :func:`multibody.simulate.spin_up.simulate_spin_up` runs it). See docs/flexible.md."""
from ..dynamics.beam_equations import deformed_kinematics, floating_frame_equations, momentum_and_energy
from ..dynamics.flexible_tree import deformed_axis
from .beam import Beam, DiscretizedBeam, discretize
from .body import FlexibleBeam
from .modal import (centrifugal_stiffness, euler_bernoulli_frequencies, natural_frequencies,
                    rotating_eigenvalues)
from .spinup import (SIMO_VU_QUOC_1988_TIP, free_hub_accelerations, hub_momentum_and_energy, kane_ryan_banerjee_beam,
                     prescribed_hub_accelerations, spin_up_model,
                     spin_up_profile, tip_displacement)

__all__ = ["Beam", "DiscretizedBeam", "FlexibleBeam", "deformed_axis", "SIMO_VU_QUOC_1988_TIP",
           "centrifugal_stiffness", "deformed_kinematics", "discretize",
           "euler_bernoulli_frequencies", "floating_frame_equations", "free_hub_accelerations",
           "hub_momentum_and_energy", "kane_ryan_banerjee_beam", "momentum_and_energy", "natural_frequencies",
           "prescribed_hub_accelerations", "rotating_eigenvalues", "spin_up_model",
           "spin_up_profile", "tip_displacement"]
