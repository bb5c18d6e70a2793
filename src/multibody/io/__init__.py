"""Model files (YAML), URDF and MJCF import."""
from .._lent import lend
from .files import ModelFile, file_from_dict, load, model_from_dict, model_to_dict, read_model_file
from .mjcf import model_from_mjcf
from .urdf import model_from_urdf

# Model.from_urdf and .from_mjcf; the model description in Trajectory.save and .load
lend(read_urdf=model_from_urdf, read_mjcf=model_from_mjcf, model_to_dict=model_to_dict, model_from_dict=model_from_dict)
