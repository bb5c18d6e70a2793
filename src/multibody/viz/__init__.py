"""Pictures of trajectories: matplotlib plots and a self-contained 3D HTML animation."""
from .animation import animate
from .plots import plot_trajectory
