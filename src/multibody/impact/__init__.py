"""Impulses and impacts: the velocity jump under impulses (spatial and DH 4×4 methods), impulsive constraints
by Gauss's principle, and the collisions of an event-driven simulation with restitution and friction
(:func:`multibody.simulate_impacts` runs them)."""
from .dh_matrix import dh_impulse_response, dh_mass_matrix
from .impulse import ImpulseResponse, apply_impulse, impulse_response
from .constraints_impulse import Contact, FixPoint, ImpactResult, LockJoint, resolve_impact
from .events import Collisions, ImpactRecord
