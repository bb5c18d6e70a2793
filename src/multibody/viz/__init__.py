"""Pictures of trajectories: matplotlib plots and a self-contained 3D HTML animation; a model's and a
trajectory's tables in a notebook."""
from .._lent import lend
from .animation import animate
from .notebook import model_html, trajectory_html
from .plots import plot_trajectory

# Model._repr_html_, and Trajectory._repr_html_, .plot and .animate
lend(model_html=model_html, trajectory_html=trajectory_html, plot_trajectory=plot_trajectory, animate=animate)
