"""The README's usage examples run as written and do what their comments say."""
import contextlib
import io
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.slow
def test_readme_python_examples_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    namespace = {}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)
    assert abs(float(output.getvalue().split()[0])) < 1e-7  # the printed energy change
    assert (tmp_path / "arm.png").stat().st_size > 10_000
    assert (tmp_path / "arm.html").stat().st_size > 10_000
    assert namespace["eom"].mass_matrix.shape == (2, 2)
