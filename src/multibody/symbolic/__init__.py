"""Symbolic equations of motion: Kane's method, Lagrange's equations, Gauss's principle, code generation.

    from multibody import symbolic as sym
    eom = sym.kane(frame=A, q=q, u=u, kinematic_equations=kd, bodies=bodies, loads=loads)
    eom.mass_matrix, eom.forcing            # X u̇ = Y (T. R. Kane, "A new method for formulating equations of
    motion", eq. 35)
    f = eom.to_numeric(params)              # compiled X, Y, q̇ and rhs(t, x)

From a tree :class:`multibody.Model`: ``sym.equations_of_motion(model)``.
"""
from .dh import lagrange_dh
from .eom import EquationsOfMotion
from .gauss import gauss, transfer
from .kane import Gyrostat, kane
from .lagrange import Hamiltonian, hamilton, lagrange
from .numeric import NumericEquations
from .equations import equations_of_motion
from .tree import symbolic_chain

__all__ = ["EquationsOfMotion", "NumericEquations", "Gyrostat", "Hamiltonian", "kane", "lagrange", "hamilton",
           "gauss", "transfer", "lagrange_dh", "equations_of_motion", "symbolic_chain"]
