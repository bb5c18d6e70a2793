"""Numeric kinematics and dynamics (compiled core with NumPy-facing wrappers)."""
from .._lent import lend
from . import _compile_notice  # noqa: F401  (a notice on stderr when the kernels compile)
from .algorithms import aba, crba, energy, generalized_gravity, kinetic_energy, nonlinear_effects, potential_energy, rnea
from .derivatives import aba_derivatives, kinematics_derivatives, rnea_derivatives
from .kinematics import (body_pose, body_poses, body_velocity, center_of_mass, configuration_rate, integrate,
                         jacobian, momentum, normalize, point_velocity)
from .compiled_model import compile_model

lend(compile=compile_model)  # Model.compile
