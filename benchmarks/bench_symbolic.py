"""Symbolic derivation of the 3D n-link pendulum: multibody.symbolic vs sympy.physics.mechanics.KanesMethod.

For each n (default 8, 16, 30), on the same kinematics and symbols:

* multibody with auxiliary symbols (``equations_of_motion(model, intermediates=True)``: Kane's equations
  summed over outboard bodies, every recursive intermediate named);
* multibody's expanded equations (``intermediates=False``) up to ``--expanded-max`` (default 8);
* sympy's KanesMethod up to ``--sympy-max`` (default 8: at n = 8 it takes minutes, n = 12 and beyond would not
  finish in 10 minutes);

the derivation time, the operation count (sympy.count_ops of X and Y and of the auxiliaries they need), the build
time of the numeric right-hand side (``to_numeric``: CSE, code generation, numba compilation, first call) and
its cost per call against mb.aba on the same chain (medians of interleaved rounds), after a warm-up build (n = 2)
that takes numba's one-time compilations out of the first row. Prints a Markdown table.

    python benchmarks/bench_symbolic.py [--sizes 8 16 30] [--sympy-max 8] [--expanded-max 8]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import sympy as sp

import multibody as mb
from multibody import symbolic as sym
from multibody.symbolic.auxiliary import needed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "symbolic"))
from symbolic_systems import chain_values, numeric_chain, sympy_chain  # noqa: E402  (the tests' systems)


def operations(eom):
    """count_ops of X, Y and of the auxiliaries they need."""
    program = needed(eom.auxiliaries, [*eom.mass_matrix, *eom.forcing])
    return sp.count_ops(eom.mass_matrix) + sp.count_ops(eom.forcing) + sum(sp.count_ops(e) for _, e in program)


def derive(kind, n, model, symbols):
    """(EquationsOfMotion, derivation time [s]) by ``kind``."""
    start = time.perf_counter()
    if kind == "sympy":
        km = sympy_chain(n, symbols)
        elapsed = time.perf_counter() - start
        zero = sp.zeros(n, 1)
        return sym.EquationsOfMotion(method="sympy", q=tuple(km.q), u=tuple(km.u), mass_matrix=km.mass_matrix,
                                     forcing=km.forcing, qdot=sp.Matrix(km.u), generalized_active_forces=zero,
                                     generalized_inertia_forces=zero), elapsed
    eom = sym.equations_of_motion(model, intermediates=kind == "intermediates")
    return eom, time.perf_counter() - start


def per_call(fn, calls, rounds):
    """Seconds per call of each of ``fn`` (a list of callables), medians over interleaved rounds."""
    times = [[] for _ in fn]
    for _ in range(rounds):
        for f, t in zip(fn, times):
            start = time.perf_counter()
            for _ in range(calls):
                f()
            t.append((time.perf_counter() - start) / calls)
    return [float(np.median(t)) for t in times]


def measure(kind, n, calls, rounds):
    model, symbols = sym.symbolic_chain(n)
    eom, derivation = derive(kind, n, model, symbols)
    ops = operations(eom)
    rng = np.random.default_rng(n)
    values = chain_values(symbols, n, rng)
    start = time.perf_counter()
    f = eom.to_numeric(values)
    x = rng.normal(size=2 * n)
    f.rhs(0.0, x)
    build = time.perf_counter() - start
    numeric = numeric_chain(symbols, n, values)
    q, v, tau = x[:n], x[n:], np.zeros(n)
    assert np.allclose(f.mass_matrix(q, v), mb.crba(numeric, q), rtol=1e-12, atol=1e-10)
    assert np.allclose(f.forcing(q, v), -mb.rnea(numeric, q, v, tau), rtol=1e-12, atol=1e-10)
    t_rhs, t_aba = per_call([lambda: f.rhs(0.0, x), lambda: mb.aba(numeric, q, v, tau)], calls, rounds)
    return derivation, ops, build, t_rhs, t_aba


LABELS = {"intermediates": "multibody, auxiliaries", "expanded": "multibody, expanded",
          "sympy": "sympy KanesMethod"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 16, 30])
    parser.add_argument("--sympy-max", type=int, default=8, help="largest n for sympy's KanesMethod")
    parser.add_argument("--expanded-max", type=int, default=8, help="largest n for intermediates=False")
    parser.add_argument("--calls", type=int, default=2000, help="calls per timing round")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timing rounds (median)")
    args = parser.parse_args(argv)
    measure("intermediates", 2, 1, 1)
    print("| n | equations | derivation [s] | ops (X, Y, auxiliaries) | build [s] | rhs [µs] | mb.aba [µs] "
          "| rhs / aba |")
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for kind, largest in (("intermediates", None), ("expanded", args.expanded_max), ("sympy", args.sympy_max)):
            if largest is not None and n > largest:
                flag = f"--{kind}-max"
                print(f"| {n} | {LABELS[kind]} | not run (n > {flag} {largest}) | | | | | |", flush=True)
                continue
            derivation, ops, build, t_rhs, t_aba = measure(kind, n, args.calls, args.rounds)
            print(f"| {n} | {LABELS[kind]} | {derivation:.2f} | {ops:,} | {build:.1f} | {t_rhs * 1e6:.2f} "
                  f"| {t_aba * 1e6:.2f} | {t_rhs / t_aba:.2f} |", flush=True)


if __name__ == "__main__":
    main()
