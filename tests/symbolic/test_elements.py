"""Force elements and loop constraints of a tree Model in its symbolic equations: against the simulated dynamics
(mb.aba with the elements' generalized forces) and the constrained forward dynamics (mb.forward_dynamics)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody import ModelError
from multibody import symbolic as sym
from symbolic_systems import chain_values, numeric_chain

sys.path.insert(0, str(Path(__file__).parents[1] / "constraints"))
from mechanisms import four_bar, four_bar_state, hanging_four_bar  # noqa: E402

ELEMENTS = {
    "joint spring": mb.JointSpring("link1", stiffness=3.0, rest=0.2, damping=0.4),
    "joint friction": mb.JointFriction("link2", friction=0.7, velocity_scale=0.5),
    "spring": mb.Spring("link3", (0.3, 0.05, 0), "world", (0.2, -0.4, 0.3), stiffness=20.0, rest_length=0.1,
                        damping=1.5),
    "spring between bodies": mb.Spring("link1", (0.1, 0.0, 0.05), "link3", (0.2, 0.0, 0.0), stiffness=8.0,
                                       rest_length=0.3),
    "gyrostat": mb.Gyrostat("link2", (0, 0.6, 0.8), polar_inertia=0.02, spin=40.0),
}


def chain_with(elements, seed=3):
    rng = np.random.default_rng(seed)
    _, symbols = sym.symbolic_chain(3)
    model = numeric_chain(symbols, 3, chain_values(symbols, 3, rng))
    for element in elements:
        model.add_force(element)
    return model


def simulated_rate(model, q, v):
    """The python path's rhs: mb.aba(q, v, Σ element.generalized_force)."""
    return mb.aba(model, q, v, sum(e.generalized_force(model, q, v) for e in model.forces))


@pytest.mark.parametrize("name", ELEMENTS)
def test_force_element_matches_the_simulated_dynamics(name):
    model = chain_with([ELEMENTS[name]])
    f = sym.equations_of_motion(model).to_numeric(backend="numpy")
    rng = np.random.default_rng(7)
    for _ in range(3):
        q, v = rng.uniform(-1.5, 1.5, 3), rng.uniform(-2, 2, 3)
        assert np.allclose(f.udot(q, v), simulated_rate(model, q, v), rtol=0, atol=1e-10)


def test_all_elements_together_with_intermediates_and_each_method():
    model = chain_with(ELEMENTS.values())
    rng = np.random.default_rng(8)
    q, v = rng.uniform(-1.5, 1.5, 3), rng.uniform(-2, 2, 3)
    expected = simulated_rate(model, q, v)
    for options in ({"intermediates": True}, {"method": "lagrange"}, {"method": "gauss"}):
        f = sym.equations_of_motion(model, **options).to_numeric(backend="numpy")
        assert np.allclose(f.udot(q, v), expected, rtol=0, atol=1e-10), options


def test_gyrostat_on_a_floating_carrier_with_body_speeds():
    model = mb.Model("satellite", gravity=(0, 0, 0))
    model.add(mb.Body("carrier", mass=50.0, com=(0.1, 0, 0), inertia=np.diag([40.0, 30.0, 25.0])), joint=mb.Free())
    model.add_force(mb.Gyrostat("carrier", (0, 0, 1), polar_inertia=0.9, spin=60.0))
    model.add_force(mb.Spring("carrier", (0.5, 0.2, 0), "world", (1.0, 0, 0), stiffness=5.0, damping=0.3))
    f = sym.equations_of_motion(model, speeds="body").to_numeric(backend="numpy")
    rng = np.random.default_rng(9)
    for _ in range(3):
        q, v = model.random_configuration(rng), rng.normal(size=6)
        assert np.allclose(f.udot(q, v), simulated_rate(model, q, v), rtol=0, atol=1e-10)


def independent(eom):
    """Indices of the model's speeds that the equations keep (u_k(t) -> k)."""
    return [int(ui.func.__name__.split("_")[1]) for ui in eom.u]


@pytest.mark.parametrize("method", ["kane", "gauss"])
@pytest.mark.parametrize("build", ["yaml", "mechanisms"])
def test_four_bar_in_independent_speeds_matches_forward_dynamics(method, build):
    """Minimal equations: one independent speed, u_dep = A u_ind kept as symbols; its acceleration is that of
    Gauss's principle on the loop-closed tree."""
    model = mb.load("four_bar") if build == "yaml" else four_bar()
    eom = sym.equations_of_motion(model, method=method)
    assert len(eom.u) == 1 and len(eom.dependent_speeds) == 2
    assert len(eom.dependent_coordinates) == 2 and eom.configuration_constraints.shape == (2, 1)
    f = eom.to_numeric(backend="numpy")
    rng = np.random.default_rng(11)
    q0 = np.array([-1.5707963267948966, 1.047955403873148, -1.5311010051727896]) if build == "yaml" else None
    for rate in (2.0, -1.3, 0.4):
        if build == "yaml":
            q, v = mb.assemble(model, q0 + rng.uniform(-0.1, 0.1, 3), np.array([rate, 0.0, 0.0]))
        else:
            q, v = four_bar_state(model, rate)
        keep = independent(eom)
        assert np.allclose(f.udot(q, v[keep]), mb.forward_dynamics(model, q, v)[keep], rtol=0, atol=1e-10)


def test_four_bar_lagrange_multipliers_match_forward_dynamics():
    """X u̇ = Y + Bᵀλ, B u̇ = c (Mukharlyamov, "Equations of motion of mechanical systems in matrix form") with the
    independent rows of the Connect (the out-of-plane row,
    identically zero, is dropped)."""
    model = mb.load("four_bar")
    eom = sym.equations_of_motion(model, method="lagrange")
    assert len(eom.multipliers) == 2 and eom.constraint_matrix.shape == (2, 3)
    f = eom.to_numeric(backend="numpy")
    q0 = np.array([-1.5707963267948966, 1.047955403873148, -1.5311010051727896])
    for rate in (2.0, -0.7):
        q, v = mb.assemble(model, q0, np.array([rate, 0.0, 0.0]))
        assert np.allclose(f.udot(q, v), mb.forward_dynamics(model, q, v), rtol=0, atol=1e-10)


def test_unsupported_constraints_and_elements_are_named():
    with pytest.raises(ModelError, match="Align"):
        sym.equations_of_motion(four_bar(revolute_loop=True))
    model = mb.load("double_pendulum")
    model.add_constraint(mb.JointLimit(model.joints[0].name, -1.0, 1.0))
    with pytest.raises(ModelError, match="JointLimit"):
        sym.equations_of_motion(model)

    class Push:
        name = "push"

        def check(self, model):
            pass

        def generalized_force(self, model, q, v):
            return np.ones(model.nv)

    model = mb.load("double_pendulum")
    model.add_force(Push())
    with pytest.raises(ModelError, match="'push'"):
        sym.equations_of_motion(model)


def test_four_bar_linearized_in_its_independent_speed_swings_at_the_reduced_models_frequency():
    """linearize through the loop's configuration constraints (dependent coordinates q_0, q_2 of φ(q) = 0) at
    the hanging rest: one mode, ω² of the hand-written reduced model."""
    _, omega2, q = hanging_four_bar()
    eom = sym.equations_of_motion(four_bar())
    A, _ = eom.linearize({**dict(zip(eom.q, q)), eom.u[0]: 0.0})
    eigenvalues = np.linalg.eigvals(np.array(A, dtype=float))
    assert A.shape == (2, 2) and np.allclose(eigenvalues.real, 0.0, atol=1e-6)
    assert np.allclose(np.abs(eigenvalues.imag), np.sqrt(omega2), rtol=1e-6)
