"""Write the gallery (docs/gallery.md and its pictures in docs/gallery/): every bundled model file simulated and
plotted with ``Trajectory.plot``, and every script of examples/ run for its own figure.

Run from the repository root after changing an example:  python docs/make_gallery.py  (about a minute)
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import multibody as mb
from multibody.io.files import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
PICTURES = ROOT / "docs" / "gallery"
WIDTH, COLORS = 480, 64         # small pictures: 480 px wide, 64 colours
T_END = {"humanoid": 1.0}       # [s] where the file sets none (the default is 5 s): the humanoid falls
# how each script is told where to write its figure
SCRIPTS = {"bicycle.py": ["--out"], "bicycle_model.py": ["--out"], "spinup_beam.py": []}


def model_entry(path: Path) -> str:
    """Simulate the model file at ``path``, plot q, v and the energy, and return its gallery section."""
    name = path.stem
    setup = mb.read_model_file(path)
    settings = {"t_end": T_END.get(name, 5.0), **setup.simulation}
    traj = mb.simulate(setup.model, setup.q0, setup.v0, progress=False, **settings)
    traj.plot(path=PICTURES / f"{name}.png")
    compress(PICTURES / f"{name}.png")
    t_end = f" --t-end {T_END[name]:g}" if name in T_END else ""
    command = f"multibody simulate {name}{t_end} --plot {name}.png"
    return section(name, description(path), command, f"gallery/{name}.png")


def script_entry(path: Path) -> str:
    """Run the example script at ``path`` for its figure and return its gallery section."""
    picture = PICTURES / f"{path.stem}.png"
    subprocess.run([sys.executable, str(path), *SCRIPTS[path.name], str(picture)], check=True, cwd=ROOT)
    compress(picture)
    docstring = re.search(r'"""(.*?)"""', path.read_text(encoding="utf-8"), re.S).group(1)
    first = docstring.strip().split("\n\n")[0].replace("\n", " ")
    return section(path.stem, first, f"python examples/{path.name}", f"gallery/{path.stem}.png")


def description(path: Path) -> str:
    """The comment at the top of a model file, as one paragraph."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".urdf":
        lines = re.search(r"<!--(.*?)-->", text, re.S).group(1).split("\n")
    else:
        lines = [line[1:] for line in text.split("\n") if line.startswith("#")]
    return " ".join(line.strip() for line in lines if line.strip())


def section(name: str, text: str, command: str, picture: str) -> str:
    return f"## {name}\n\n{text}\n\n```bash\n{command}\n```\n\n![{name}]({picture})\n"


def compress(picture: Path) -> None:
    """Scale a picture to WIDTH pixels (never up) and to a palette of COLORS colours: a few tens of kB each."""
    from PIL import Image
    with Image.open(picture) as image:
        image = image.convert("RGB")
        if image.width > WIDTH:
            image = image.resize((WIDTH, round(image.height * WIDTH / image.width)), Image.LANCZOS)
        image.quantize(COLORS).save(picture, optimize=True)


def main() -> None:
    PICTURES.mkdir(exist_ok=True)
    models = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".yaml", ".urdf"))
    scripts = sorted((ROOT / "examples").glob("*.py"))
    sections = [model_entry(p) for p in models] + [script_entry(p) for p in scripts]
    header = ("# Gallery\n\nThe bundled model files (`multibody info --list`; load one by name with "
              "`mb.load(\"double_pendulum\")`), each simulated with the settings it carries and plotted with "
              "`Trajectory.plot`, and the scripts of `examples/`. `python docs/make_gallery.py` redraws them.\n")
    (ROOT / "docs" / "gallery.md").write_text("\n".join([header, *sections]), encoding="utf-8")


if __name__ == "__main__":
    main()
