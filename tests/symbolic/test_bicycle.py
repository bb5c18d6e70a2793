"""The Whipple bicycle benchmark (examples/bicycle.py): Kane's method with dependent speeds and a dependent
coordinate, linearized, against Meijaard et al. (2007) table 2 and against sympy's KanesMethod."""
import importlib.util
import time
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import KanesMethod

from multibody import symbolic as sym

_path = Path(__file__).resolve().parents[2] / "examples" / "bicycle.py"
_spec = importlib.util.spec_from_file_location("bicycle_example", _path)
bicycle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bicycle)


def _sorted(rows):
    return np.array([sorted(row, key=lambda z: (-round(z.real, 9), -z.imag)) for row in rows])


@pytest.fixture(scope="module", params=[(False, "u"), (False, "qdot"), (True, "u")],
                ids=["numeric", "numeric-qdot-constraint", "symbolic"])
def linearized(request):
    symbolic, constraints_in = request.param
    start = time.perf_counter()
    eom, A_of_v, _, _ = bicycle.derive_and_linearize(symbolic, constraints_in)
    return eom, A_of_v, time.perf_counter() - start, symbolic


def test_bicycle_eigenvalues_match_meijaard_table_2(linearized):
    _, A_of_v, _, _ = linearized
    ours = bicycle.eigenvalues(A_of_v, bicycle.MEIJAARD_SPEEDS)
    assert np.abs(ours - _sorted(bicycle.MEIJAARD_EIGENVALUES)).max() < 1e-10


def test_bicycle_weave_and_capsize_speeds(linearized):
    _, A_of_v, _, _ = linearized
    weave, capsize = bicycle.weave_and_capsize_speeds(A_of_v)
    # the paper's six decimals, rounded
    assert abs(weave - bicycle.WEAVE_SPEED) < 1e-6 and abs(capsize - bicycle.CAPSIZE_SPEED) < 1e-6


def test_bicycle_derivation_and_linearization_are_fast(linearized):
    _, _, seconds, symbolic = linearized
    assert seconds < (120.0 if symbolic else 30.0)


@pytest.mark.slow
def test_bicycle_equations_match_sympy_kanesmethod():
    """Same system, sympy's KanesMethod as the oracle: u̇ at random states (numeric parameters)."""
    system = bicycle.whipple_bicycle(symbolic=False)
    k = system["kane"]
    eom = sym.kane(**k)
    u_dep = list(k["dependent_speeds"])
    km = KanesMethod(k["frame"], q_ind=list(k["q"]), u_ind=list(eom.u), u_dependent=u_dep,
                     velocity_constraints=k["velocity_constraints"], kd_eqs=k["kinematic_equations"],
                     constraint_solver="CRAMER")
    km.kanes_equations(k["bodies"], k["loads"])
    ours = [sp.lambdify([eom.q, eom.u, u_dep], M, "numpy") for M in (eom.mass_matrix, eom.forcing)]
    theirs = [sp.lambdify([eom.q, eom.u, u_dep], M, "numpy") for M in (km.mass_matrix, km.forcing)]
    dependent = sp.lambdify([eom.q, eom.u], list(eom.dependent_speeds.values()), "numpy")
    rng = np.random.default_rng(2007)
    for _ in range(5):
        q, u = rng.uniform(-0.5, 0.5, 4), rng.uniform(-2.0, 2.0, 3)
        w = np.array(dependent(q, u), dtype=float).ravel()
        udot = np.linalg.solve(*(np.array(f(q, u, w), dtype=float) for f in ours)).ravel()
        M, F = (np.array(f(q, u, w), dtype=float) for f in theirs)
        reference = np.linalg.solve(M, F).ravel()[:3]   # sympy's rows: dynamics, then the constraints' rates
        assert np.allclose(udot, reference, rtol=1e-10, atol=1e-10)


def test_bicycle_numeric_rhs_keeps_the_contact_constraints():
    """The generated rhs computes the dependent speeds first: the front contact point stays at rest."""
    system = bicycle.whipple_bicycle(symbolic=False)
    eom = sym.kane(**system["kane"])
    f = eom.to_numeric(backend="numpy")
    q, u = np.array([0.0, 0.05, 0.0, 0.1]), np.array([0.2, 4.0 / 0.3, -0.1])
    x = f.rhs(0.0, np.r_[q, u])
    assert np.all(np.isfinite(x))
    g = sp.lambdify([eom.q, eom.u, list(eom.dependent_speeds)], eom.velocity_constraints, "numpy")
    w = [float(e.xreplace(dict(zip(eom.q, q))).xreplace(dict(zip(eom.u, u)))) for e in eom.dependent_speeds.values()]
    assert np.abs(np.array(g(q, u, w), dtype=float)).max() < 1e-12
