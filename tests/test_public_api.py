"""The public API is typed: every function and class exported by multibody and multibody.symbolic, and the public
methods and properties of the exported classes, annotate their parameters and return values (PEP 561, py.typed)."""
import inspect
from pathlib import Path

import multibody as mb
from multibody import symbolic as sym


def _unannotated(function, name):
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # builtins and C extensions
        return []
    params = [p for p in signature.parameters.values()
              if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    missing = [f"{name}({p.name})" for p in params if p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty and not name.endswith("__init__"):
        missing.append(f"{name} -> ?")
    return missing


def _public_callables():
    for prefix, module in (("mb", mb), ("sym", sym)):
        for name in getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]):
            obj = getattr(module, name)
            if getattr(obj, "__module__", "").split(".")[0] != "multibody":
                continue
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if member.startswith("_") and member != "__init__":
                        continue
                    if isinstance(value, property):
                        value = value.fget
                    elif isinstance(value, (classmethod, staticmethod)):
                        value = value.__func__
                    if inspect.isfunction(value):
                        yield f"{prefix}.{name}.{member}", value
            elif inspect.isfunction(obj):
                yield f"{prefix}.{name}", obj


def test_every_public_function_and_method_is_annotated():
    missing = [m for name, function in _public_callables() for m in _unannotated(function, name)]
    assert not missing, f"{len(missing)} unannotated: {', '.join(missing[:40])}"


def test_the_package_ships_its_type_information():
    assert (Path(mb.__file__).parent / "py.typed").is_file()
