"""First contact: with an empty numba cache, importing multibody compiles nothing; the first compilation says so
on stderr, once; ``multibody compile`` is there to do it ahead."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest


def run(code, cache):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return result, time.monotonic() - start


def test_import_with_a_cold_cache_compiles_nothing(tmp_path):
    result, seconds = run("import multibody", tmp_path)
    assert "compiling" not in result.stderr
    assert seconds < 15  # ~1.3 s on the project's machine (was ~20 s: kernels compiled at import)


def test_first_compilation_prints_one_notice(tmp_path):
    # two of the smallest kernels (q̇ and q ⊕ v dt), compiled cold: one notice for both
    code = ("import numpy as np, multibody as mb\n"
            "m = mb.Model('p'); m.add(mb.Body('b', 1.0, inertia=np.eye(3)), joint=mb.Revolute())\n"
            "mb.configuration_rate(m, np.zeros(1), np.ones(1)); mb.integrate(m, np.zeros(1), np.ones(1), 0.1)\n")
    cold, _ = run(code, tmp_path)
    assert cold.stderr.count("multibody: compiling the dynamics kernels") == 1
    warm, _ = run(code, tmp_path)
    assert "compiling" not in warm.stderr


def test_compile_command_is_listed():
    from multibody.cli import build_parser
    assert "compile" in build_parser().format_help()


COUNT_COMPILES = """
import sys
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        f = getattr(ev.data.get("dispatcher"), "py_func", None)
        compiled.append(f"{getattr(f, '__module__', '?')}.{getattr(f, '__qualname__', '?')}")
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
"""


@pytest.mark.slow
def test_compile_command_gives_one_notice_and_leaves_nothing_to_compile(tmp_path):
    """`multibody compile` (here in the test suite's own cache, which CI warms the same way before the suite) says
    so once and finishes; after it, the README's calls, `multibody simulate` of a URDF, `multibody demo`,
    `mb.integrate`, `mb.configuration_rate`, the derivatives of a batch of states and a batch of runs with a model
    each compile nothing: numba's compile event never fires."""
    warm = subprocess.run([sys.executable, "-m", "multibody.cli", "compile"], capture_output=True, text=True,
                          timeout=1800)
    assert warm.returncode == 0, warm.stderr
    output = warm.stdout + warm.stderr
    assert output.count("compiling") == 1 and "done in" in output
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    first_block = readme.split("```python\n")[1].split("```")[0]
    code = COUNT_COMPILES + (
        "import os\n"
        f"os.chdir({str(tmp_path)!r})\n"
        f"exec({first_block!r})\n"
        "from multibody.cli import main\n"
        "from multibody.io.files import example_path\n"
        "assert main(['simulate', str(example_path('humanoid')), '--t-end', '1', '--no-progress']) == 0\n"
        "assert main(['demo', '--t-end', '1', '--out-dir', 'demo']) == 0\n"
        "import numpy as np, multibody as mb\n"
        "chain = mb.Model.chain(3)\n"
        "mb.integrate(chain, np.zeros(3), np.ones(3), 0.1), mb.configuration_rate(chain, np.zeros(3), np.ones(3))\n"
        "states = np.random.default_rng(0).normal(size=(16, 3))\n"
        "mb.rnea_derivatives(chain, states, states, states), mb.aba_derivatives(chain, states, states, states)\n"
        "mb.simulate([chain, chain], states[:2], states[2:4], 0.01, method='RK4', dt=1e-3, progress=False)\n"
        "print('COMPILED', compiled)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "COMPILED []" in result.stdout, result.stdout[-2000:]
    assert "compiling" not in result.stderr


def test_a_long_compilation_names_what_compiles(monkeypatch, capsys):
    """Beyond the first notice, a line every PERIOD seconds names the kernel being compiled (a first run is never
    silent for long); between compilations nothing is said."""
    import time
    from types import SimpleNamespace

    from multibody.dynamics import _compile_notice
    monkeypatch.setattr(_compile_notice, "PERIOD", 0.3)
    notice = _compile_notice._Notice()

    def kernel():
        pass
    kernel.__module__ = "multibody.simulate.steppers"
    kernel.__qualname__ = "run_with_events"
    ev = SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=kernel)})
    notice.on_start(ev)
    time.sleep(3.0)
    notice.on_end(ev)
    time.sleep(0.6)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == _compile_notice.NOTICE
    assert len(lines) >= 3 and all(line.startswith("multibody: compiling simulate.steppers.run_with_events (")
                                   for line in lines[1:])
    time.sleep(1.5)
    assert capsys.readouterr().err == ""  # silent once nothing compiles


def test_compile_workers_cover_every_part_once():
    """`multibody compile` runs each part of the warm-up in exactly one of its processes, `calls` after them."""
    from multibody._warmup import PARTS, WORKERS
    parts = [part for worker in WORKERS for part in worker]
    assert sorted(parts) == sorted(set(PARTS) - {"calls"}) and len(parts) == len(set(parts))


def test_one_state_and_batched_calls_share_the_kernels():
    """rnea and aba of a few states, with or without external forces, call the one-state kernels with the same
    argument types as a single state does (a read-only f_ext would be a second specialization, compiled again)."""
    import numpy as np
    from numba import types

    import multibody as mb
    from multibody.dynamics import _core
    model = mb.Model.chain(2)
    q, v = np.array([0.3, -0.2]), np.zeros(2)
    for forces in (None, np.ones((2, 6))):
        mb.rnea(model, q, v, v, f_ext=forces), mb.rnea(model, [q, q], v, v, f_ext=forces)
        mb.aba(model, q, v, v, f_ext=forces), mb.aba(model, [q, q], v, v, f_ext=forces)
    for kernel in (_core.rnea, _core.aba):
        readonly = [sig for sig in kernel.signatures
                    if any(isinstance(t, types.Array) and not t.mutable for t in sig)]
        assert readonly == [], readonly
