"""Exceptions raised by multibody."""


class ModelError(ValueError):
    """Bad model data. The message names the body, joint or field and the offending value."""


class SimulationError(RuntimeError):
    """Time integration failed.

    Attributes
    ----------
    time : float
        Simulated time [s] at which the integration stopped.
    trajectory : multibody.Trajectory or None
        The part of the trajectory computed before the failure.
    """

    def __init__(self, message, time=None, trajectory=None):
        super().__init__(message)
        self.time = time
        self.trajectory = trajectory
