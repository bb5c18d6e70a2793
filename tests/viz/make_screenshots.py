"""Screenshots (800 × 600 PNG) of the animation of every bundled example, as headless Chromium draws it, at frame 60
(2 s into the 30-per-second frames; 3 s for the 20 s satellite). Run from the repository root after changing the
animation, look at them, and commit them:

    python tests/viz/make_screenshots.py            # writes tests/viz/screenshots/<example>.png
"""
import sys
import tempfile
from pathlib import Path

from PIL import Image
from viz_browser import CHROMIUM, EXAMPLES, errors, example_trajectory, probed, screenshot

FRAME, SIZE = 60, (800, 600)
OUT = Path(__file__).parent / "screenshots"


def main(names=EXAMPLES):
    if CHROMIUM is None:
        sys.exit("make_screenshots: chromium is not installed (apt-get install chromium)")
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        for name in names:
            page = example_trajectory(name).animate(work / f"{name}.html", include_plotlyjs="directory")
            shot = OUT / f"{name}.png"
            console = screenshot(probed(page, work / f"{name}-probed.html", FRAME, SIZE), shot, work / "profile", SIZE)
            if errors(console):
                sys.exit(f"make_screenshots: {name}: {errors(console)}")
            Image.open(shot).convert("RGB").quantize(colors=128).save(shot, optimize=True)  # ~50 kB instead of ~100
            print(f"{shot} ({shot.stat().st_size // 1000} kB)")


if __name__ == "__main__":
    main(sys.argv[1:] or EXAMPLES)
