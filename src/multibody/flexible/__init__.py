"""Flexible bodies in large overall motion: Euler–Bernoulli beams in a floating frame (:mod:`.beam`), beams as
bodies of a Model tree (:class:`FlexibleBeam`, :mod:`.body`; its algorithms: :mod:`.tree`), their natural
frequencies at rest and spinning (:mod:`.modal`), and a beam on a rigid hub with the Kane–Ryan–Banerjee spin-up
manoeuvre (:mod:`.spinup`; :func:`multibody.simulate.spin_up.simulate_spin_up` runs it). See docs/flexible.md."""
from .beam import (Beam, DiscretizedBeam, deformed_kinematics, discretize, floating_frame_equations,
                   momentum_and_energy)
from .body import FlexibleBeam
from .tree import deformed_axis
from .modal import (centrifugal_stiffness, euler_bernoulli_frequencies, natural_frequencies,
                    rotating_eigenvalues)
from .spinup import (SIMO_VU_QUOC_1988_TIP, free_hub_accelerations, hub_momentum_and_energy, kane_ryan_banerjee_beam,
                     prescribed_hub_accelerations, prescribed_joint_torque, spin_up_model,
                     spin_up_profile, tip_displacement)

__all__ = ["Beam", "DiscretizedBeam", "FlexibleBeam", "deformed_axis", "SIMO_VU_QUOC_1988_TIP",
           "centrifugal_stiffness", "deformed_kinematics", "discretize",
           "euler_bernoulli_frequencies", "floating_frame_equations", "free_hub_accelerations",
           "hub_momentum_and_energy", "kane_ryan_banerjee_beam", "momentum_and_energy", "natural_frequencies",
           "prescribed_hub_accelerations", "prescribed_joint_torque", "rotating_eigenvalues", "spin_up_model",
           "spin_up_profile", "tip_displacement"]
