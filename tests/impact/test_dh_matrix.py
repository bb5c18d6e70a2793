"""DH 4×4 matrix method (Zhang Dingguo, "Lagrange equations of multi-rigid-body systems under external impact")
against the spatial method, CRBA and Pinocchio."""
import numpy as np
import pytest

import multibody as mb
from multibody.impact import dh_impulse_response, dh_mass_matrix, impulse_response
from multibody.impact.dh_matrix import pseudo_inertia
from oracles import PinocchioTwin

from ._helpers import random_dh_rows


@pytest.mark.parametrize("seed", range(5))
def test_dh_and_spatial_impulse_responses_agree(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    rows = random_dh_rows(rng, n)
    rows[0]["joint"], rows[-1]["joint"] = "revolute", "prismatic"  # both kinds in every chain
    model = mb.Model.from_dh(rows)
    q, qdot = rng.normal(size=n), rng.normal(size=n)
    hits = [(int(rng.integers(1, n + 1)), rng.normal(size=3), rng.normal(size=3)) for _ in range(3)]
    dh = dh_impulse_response(rows, q, qdot, hits)
    spatial = impulse_response(model, q, qdot, [(f"frame{j}", p, P) for j, p, P in hits])
    np.testing.assert_allclose(dh.v, spatial.v, atol=1e-10)
    assert dh.kinetic_energy_change == pytest.approx(spatial.kinetic_energy_change, abs=1e-10)
    twin = PinocchioTwin(model)
    J = [twin.jacobian(q, model.frames[f"frame{j}"][0], model.locate(f"frame{j}", p)[1]) for j, p, _ in hits]
    B = sum(Jk[3:].T @ P for Jk, (_, _, P) in zip(J, hits))
    np.testing.assert_allclose(dh.v, qdot + np.linalg.solve(twin.crba(q), B), atol=1e-10)


def test_dh_mass_matrix_matches_crba_and_kinetic_energy():
    rng = np.random.default_rng(7)
    rows = random_dh_rows(rng, 5)
    model = mb.Model.from_dh(rows)
    q, qdot = rng.normal(size=5), rng.normal(size=5)
    M = dh_mass_matrix(rows, q)
    np.testing.assert_allclose(M, mb.crba(model, q), atol=1e-12)
    assert 0.5 * qdot @ M @ qdot == pytest.approx(mb.kinetic_energy(model, q, qdot), rel=1e-12)


def test_pseudo_inertia_of_a_point_mass_is_m_rbar_rbarT():
    # a (nearly) point mass m at c: J = m r̄ r̄ᵀ with r̄ = (c, 1)
    body = mb.Body("p", mass=2.0, com=(0.3, -0.1, 0.2), inertia=np.eye(3) * 1e-12)
    rbar = np.r_[body.com, 1.0]
    np.testing.assert_allclose(pseudo_inertia(body), 2.0 * np.outer(rbar, rbar), atol=1e-11)


def test_single_revolute_link_closed_form():
    # one link rotating about z with a point impulse P ŷ at (L, 0, 0) in frame 1 at q = 0:
    # I_z Δθ̇ = L P with I_z = I_czz + m (c_x² + c_y²)
    row = dict(theta=0.0, d=0.0, a=0.0, alpha=0.0, joint="revolute", mass=2.0, com=(0.25, 0.0, 0.0),
               inertia=np.diag([0.01, 0.04, 0.05]))
    out = dh_impulse_response([row], [0.0], [0.0], [(1, (0.5, 0.0, 0.0), (0.0, 3.0, 0.0))])
    assert out.v[0] == pytest.approx(0.5 * 3.0 / (0.05 + 2.0 * 0.25**2), rel=1e-14)


def test_bad_dh_input():
    rows = random_dh_rows(np.random.default_rng(0), 2)
    with pytest.raises(mb.ModelError, match="link index must be an integer in 1..2"):
        dh_impulse_response(rows, [0, 0], [0, 0], [(3, (0, 0, 0), (1, 0, 0))])
    with pytest.raises(ValueError, match="impulse 0: impulse"):
        dh_impulse_response(rows, [0, 0], [0, 0], [(1, (0, 0, 0), (np.nan, 0, 0))])
    with pytest.raises(ValueError, match="qdot"):
        dh_impulse_response(rows, [0, 0], [0, 0, 0], [(1, (0, 0, 0), (1, 0, 0))])
    rows[1]["joint"] = "helical"
    with pytest.raises(mb.ModelError, match="DH row 2: joint"):
        dh_mass_matrix(rows, [0, 0])
