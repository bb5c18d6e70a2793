"""Model description: bodies, joints, the tree, and builders (DH tables)."""
from .body import Body
from .joints import Cylindrical, Fixed, Free, Joint, JointLimits, Planar, Prismatic, Revolute, Spherical
from .model import CompiledModel, Model

__all__ = ["Body", "Joint", "JointLimits", "Revolute", "Prismatic", "Cylindrical", "Spherical", "Planar", "Free", "Fixed",
           "Model", "CompiledModel"]
