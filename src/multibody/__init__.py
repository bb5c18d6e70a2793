"""multibody: dynamics of multibody systems.

Build a :class:`Model` of rigid bodies joined by joints, then compute its kinematics and dynamics with the
compiled recursive algorithms (:func:`rnea`, :func:`crba`, :func:`aba`), or derive its equations of motion
symbolically (:mod:`multibody.symbolic`).
"""
from . import _numba_cache  # noqa: F401  (first: the kernels' numba cache stamped with all the kernel sources)
from .errors import ModelError, SimulationError, SimulationInterrupted
from .spatial import Transform, quat_to_rotation, rotation_about, rotation_to_quat
from .model import Body, Cylindrical, Fixed, Free, Joint, JointLimits, Model, Planar, Prismatic, Revolute, Spherical
from .dynamics import (aba, aba_derivatives, body_pose, body_poses, body_velocity, center_of_mass, configuration_rate,
                       crba, energy, generalized_gravity, integrate, jacobian, kinematics_derivatives, kinetic_energy,
                       momentum, nonlinear_effects, normalize, point_velocity, potential_energy, rnea, rnea_derivatives)
from .impact import ImpulseResponse, apply_impulse, impulse_response, resolve_impact
from .simulate import (Actuator, Event, FixedTendon, JointFriction, JointSpring, JointValue, PointHeight, Spring,
                       TorqueTable, Trajectory, actuator_force, inverse_dynamics, inverse_kinematics, linearize,
                       natural_frequencies, simulate, simulate_impacts, static_equilibrium,
                       transition_derivatives)
from .io import load, read_model_file
from .sweep import sweep
from .gyrostat import Gyrostat, add_rotor, dual_spin_stability, rotor_forces, rotor_wrench
from . import flexible, viz
from .flexible import FlexibleBeam
from .constraints import (Align, Box, Capsule, Connect, ConvexHull, Holonomic, JointLimit, KnifeEdge, LinearCoupling,
                          Mimic, Nonholonomic, Plane, PointOnPlane, RollingDisk, RollingSphere, Sphere, TendonLimit, Weld,
                          assemble, constraint_forces, forward_dynamics)

__version__ = "0.1.0"
