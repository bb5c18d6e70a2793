"""Constrained systems by Gauss's principle: loop closures, rolling, user constraints, and contact with friction.

Constraint types (:mod:`.types`) add rows J a = γ (joint limits, :mod:`.limits`, add inequalities); :func:`forward_dynamics` minimizes Gauss's function subject to
them (:mod:`.gauss`, checked by :mod:`.udwadia_kalaba`) and to the unilateral contacts between shapes
(:mod:`.geometry`, :mod:`.contact`). :mod:`.assembly` finds consistent states; :mod:`.integrate` steps constrained
and contact systems in time with drift control.
"""
from .._lent import lend
from .coupling import LinearCoupling
from .assembly import assemble, assemble_positions, assemble_velocities
from .forward import ConstrainedDynamics, constraint_forces, forward_dynamics
from .geometry import Box, Capsule, ConvexHull, Geometry, Plane, Sphere
from .bounds import JointLimit, TendonLimit
from .types import Align, Connect, Constraint, KnifeEdge, Mimic, PointOnPlane, RollingDisk, RollingSphere, Weld
from .user import Holonomic, Nonholonomic

__all__ = ["Align", "Box", "Capsule", "ConstrainedDynamics", "Connect", "ConvexHull", "Constraint", "Geometry", "Holonomic",
           "JointLimit", "KnifeEdge", "LinearCoupling", "Mimic", "Nonholonomic", "Plane", "PointOnPlane", "RollingDisk",
           "RollingSphere", "Sphere", "TendonLimit", "Weld", "assemble", "assemble_positions", "assemble_velocities",
           "constraint_forces", "forward_dynamics"]

lend(joint_limit=JointLimit)  # Model.enforce_joint_limits
