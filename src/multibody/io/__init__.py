"""Model files (YAML) and URDF import."""
from .files import ModelFile, file_from_dict, load, model_from_dict, model_to_dict, read_model_file
from .urdf import model_from_urdf
