"""The DH matrix method of Zhang Dingguo, "Lagrange equations of multi-rigid-body systems under external impact"
against the numeric core on Model.from_dh."""
import numpy as np
import pytest
import sympy as sp

import multibody as mb
from multibody import ModelError
from multibody import symbolic as sym

ROWS = [dict(theta=0.3, d=0.1, a=0.4, alpha=np.pi / 2, joint="revolute", mass=2.0, com=(-0.2, 0.01, 0.02),
             inertia=np.diag([0.01, 0.02, 0.025])),
        dict(theta=0.0, d=0.2, a=0.0, alpha=-np.pi / 2, joint="prismatic", mass=1.0, com=(0.0, 0.0, -0.1),
             inertia=np.diag([0.02, 0.02, 0.001])),
        dict(theta=-0.5, d=0.0, a=0.3, alpha=0.0, joint="revolute", mass=0.5, com=(-0.15, 0, 0),
             inertia=np.diag([0.001, 0.004, 0.004]))]


def test_dh_matrix_method_matches_crba_and_rnea():
    eom = sym.lagrange_dh(ROWS)
    f = eom.to_numeric({sp.Symbol("g"): 9.81}, backend="numpy")
    model = mb.Model.from_dh(ROWS, gravity=(0, 0, -9.81))
    rng = np.random.default_rng(2)
    for _ in range(3):
        q, v = rng.normal(size=3), rng.normal(size=3)
        assert np.allclose(f.mass_matrix(q, v), mb.crba(model, q), atol=1e-12)
        assert np.allclose(f.forcing(q, v), -mb.rnea(model, q, v, np.zeros(3)), atol=1e-12)


def test_dh_pseudo_inertia_has_the_mass_and_first_moments():
    m, c = sp.Symbol("m"), (sp.Symbol("cx"), 0, 0)
    J = sym.dh.pseudo_inertia(m, c, sp.zeros(3, 3))
    assert J[3, 3] == m and J[0, 3] == m * c[0] and J[0, 0] == m * c[0] ** 2


def test_dh_rows_are_checked():
    with pytest.raises(ModelError, match="joint"):
        sym.lagrange_dh([{**ROWS[0], "joint": "helical"}])
    with pytest.raises(ModelError, match="missing"):
        sym.lagrange_dh([{"theta": 0}])


def test_dh_speeds_have_the_form_of_the_other_formulations():
    """u_k(t) = q̇_k, as from sym.equations_of_motion: no Derivative objects in X, Y or q̇."""
    eom = sym.lagrange_dh(ROWS)
    tree = sym.equations_of_motion(mb.Model.from_dh(ROWS, gravity=(0, 0, -9.81)))
    assert [str(u) for u in eom.u] == [str(u) for u in tree.u] == ["u_0(t)", "u_1(t)", "u_2(t)"]
    assert not any(M.has(sp.Derivative) for M in (eom.mass_matrix, eom.forcing, eom.qdot))
