"""First contact: with an empty numba cache, importing multibody compiles nothing; the first compilation says so
on stderr, once; ``multibody compile`` is there to do it ahead."""
import os
import subprocess
import sys
import time


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
    code = ("import numpy as np, multibody as mb\n"
            "m = mb.Model('p'); m.add(mb.Body('b', 1.0, inertia=np.eye(3)), joint=mb.Revolute())\n"
            "mb.crba(m, np.zeros(1)); mb.rnea(m, np.zeros(1), np.zeros(1), np.zeros(1))\n")
    cold, _ = run(code, tmp_path)
    assert cold.stderr.count("multibody: compiling the dynamics kernels") == 1
    warm, _ = run(code, tmp_path)
    assert "compiling" not in warm.stderr


def test_compile_command_is_listed():
    from multibody.cli import build_parser
    assert "compile" in build_parser().format_help()
