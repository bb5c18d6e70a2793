"""Symbolic derivation of the 3D n-link pendulum: multibody.symbolic vs sympy.physics.mechanics.KanesMethod.

For n = 2, 4, 6, 8: derivation time and operation count (sympy.count_ops) of the mass matrix X and forcing Y,
both ways, on the same kinematics and symbols; then, at the largest n, the evaluation time of the generated
numeric right-hand side against mb.aba. Prints a Markdown table.

    python benchmarks/bench_symbolic.py [--sizes 2 4 6 8]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "symbolic"))
from symbolic_systems import chain_values, numeric_chain, sympy_chain  # noqa: E402  (the tests' systems)


def derive(n):
    model, symbols = sym.symbolic_chain(n)
    start = time.perf_counter()
    eom = sym.equations_of_motion(model)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    km = sympy_chain(n, symbols)
    theirs = time.perf_counter() - start
    ops = lambda X, Y: sp.count_ops(X) + sp.count_ops(Y)  # noqa: E731
    return eom, symbols, ours, theirs, ops(eom.mass_matrix, eom.forcing), ops(km.mass_matrix, km.forcing)


def evaluation_times(eom, symbols, n, repeats=2000):
    rng = np.random.default_rng(0)
    values = chain_values(symbols, n, rng)
    start = time.perf_counter()
    f = eom.to_numeric(values)
    x = np.r_[rng.normal(size=n), rng.normal(size=n)]
    f.rhs(0.0, x)
    compile_time = time.perf_counter() - start
    model = numeric_chain(symbols, n, values)
    q, v, tau = x[:n], x[n:], np.zeros(n)
    mb.aba(model, q, v, tau)
    assert np.allclose(f.rhs(0.0, x)[n:], mb.aba(model, q, v, tau), atol=1e-9)
    timings = []
    for fn in (lambda: f.rhs(0.0, x), lambda: mb.aba(model, q, v, tau)):
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        timings.append((time.perf_counter() - start) / repeats)
    return compile_time, timings


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 4, 6, 8])
    args = parser.parse_args(argv)
    print("| n | multibody derivation [s] | KanesMethod derivation [s] | speed-up | ops X+Y multibody "
          "| ops X+Y KanesMethod | ops ratio |")
    print("|---|---|---|---|---|---|---|")
    for n in args.sizes:
        eom, symbols, ours, theirs, ops_ours, ops_theirs = derive(n)
        print(f"| {n} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.1f}× | {ops_ours:,} | {ops_theirs:,} "
              f"| {ops_ours / ops_theirs:.2f} |", flush=True)
    compile_time, (t_rhs, t_aba) = evaluation_times(eom, symbols, n)
    print(f"\nn = {n}: generated rhs (numba, CSE) {t_rhs * 1e6:.1f} µs per call vs mb.aba {t_aba * 1e6:.1f} µs "
          f"({t_rhs / t_aba:.2f}×); code generation + compile {compile_time:.1f} s")


if __name__ == "__main__":
    main()
