"""Motion on the configuration manifold for the CPU: q̇ from v, q ⊕ v dt and the quaternions' normalization, the
CPU's members of :func:`~._joint_family.joint_family` under their usual names, and their entry points from Python."""
from numba import njit

from ._spatial_kernels import CPU

CPU_CONFIGURATION = CPU.joints
configuration_rate = CPU_CONFIGURATION.configuration_rate
integrate = CPU_CONFIGURATION.integrate
normalize_quaternions = CPU_CONFIGURATION.normalize_quaternions


# Entry points for calls from Python, compiled into numba's cache: a member of a family, made inside its factory,
# is compiled afresh in each process when Python calls it directly.


@njit(cache=True)
def configuration_rate_of_state(topology, q, v, qdot):
    """qdot[:] = q̇ of one state (the family's :func:`configuration_rate`)."""
    configuration_rate(topology, q, v, qdot)


@njit(cache=True)
def integrate_state(topology, q, v, dt, q_out):
    """q_out[:] = q ⊕ v dt of one state (the family's :func:`integrate`)."""
    integrate(topology, q, v, dt, q_out)
