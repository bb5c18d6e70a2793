"""Simulation: time integration, trajectories, force elements and analyses about the equations of motion."""
from .actuators import Actuator, FixedTendon, actuator_force
from .analysis import inverse_dynamics, inverse_kinematics, linearize, natural_frequencies, static_equilibrium
from ..event import Event
from .events import JointValue, PointHeight
from .forces import JointFriction, JointSpring, Spring
from .simulate import simulate, simulate_impacts
from .torques import TorqueTable
from .trajectory import Trajectory
from .transition import transition_derivatives
