"""Physics identities of the recursive algorithms on random trees with every joint type."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.integrate import solve_ivp

import multibody as mb
from oracles import random_model, random_state

seeds = st.integers(min_value=0, max_value=2**32 - 1)
sizes = st.integers(min_value=1, max_value=12)


def _model_and_state(seed, n, free_base=False):
    rng = np.random.default_rng(seed)
    model = random_model(rng, n, free_base=free_base)
    return model, *random_state(rng, model)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=sizes, free_base=st.booleans())
def test_aba_inverts_rnea(seed, n, free_base):
    model, q, v, a = _model_and_state(seed, n, free_base)
    tau = mb.rnea(model, q, v, a)
    np.testing.assert_allclose(mb.aba(model, q, v, tau), a, atol=1e-9 * (1 + np.abs(a).max()))


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=sizes, free_base=st.booleans())
def test_crba_times_acceleration_plus_bias_is_rnea(seed, n, free_base):
    model, q, v, a = _model_and_state(seed, n, free_base)
    M = mb.crba(model, q)
    lhs = M @ a + mb.nonlinear_effects(model, q, v)
    np.testing.assert_allclose(lhs, mb.rnea(model, q, v, a), atol=1e-10 * (1 + np.abs(lhs).max()))


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=sizes, free_base=st.booleans())
def test_crba_is_symmetric_positive_definite_and_gives_kinetic_energy(seed, n, free_base):
    model, q, v, _ = _model_and_state(seed, n, free_base)
    M = mb.crba(model, q)
    np.testing.assert_array_equal(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0
    np.testing.assert_allclose(mb.kinetic_energy(model, q, v), 0.5 * v @ M @ v, rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, n=sizes)
def test_rnea_at_rest_is_gravity_and_minus_potential_gradient(seed, n):
    """g(q) = ∂V/∂q along every velocity direction: d/dh V(q ⊕ h e_k) = g_k."""
    model, q, _, _ = _model_and_state(seed, n)
    g = mb.generalized_gravity(model, q)
    h = 1e-6
    for k in range(model.nv):
        e = np.zeros(model.nv)
        e[k] = 1.0
        dV = (mb.potential_energy(model, mb.integrate(model, q, e, h))
              - mb.potential_energy(model, mb.integrate(model, q, e, -h))) / (2 * h)
        assert dV == pytest.approx(g[k], abs=1e-6 * (1 + abs(g[k])))


def test_power_balance_along_a_motion():
    """d(kinetic + potential)/dt = vᵀτ: integrate the motion under constant τ and compare the energy gain
    with the work ∫ vᵀτ dt (a free-floating base with spherical, planar and other joints included)."""
    rng = np.random.default_rng(7)
    model = random_model(rng, 8, free_base=True)
    q0, v0, _ = random_state(rng, model)
    tau = rng.normal(size=model.nv)

    def rhs(t, x):
        q, v = x[:model.nq], x[model.nq:model.nq + model.nv]
        return np.concatenate([mb.configuration_rate(model, q, v), mb.aba(model, q, v, tau), [v @ tau]])

    sol = solve_ivp(rhs, (0.0, 0.5), np.concatenate([q0, v0, [0.0]]), rtol=1e-11, atol=1e-11, method="DOP853")
    q1, v1, work = sol.y[:model.nq, -1], sol.y[model.nq:-1, -1], sol.y[-1, -1]
    energy0 = sum(mb.energy(model, q0, v0))
    energy1 = sum(mb.energy(model, mb.normalize(model, q1), v1))
    assert energy1 - energy0 == pytest.approx(work, abs=1e-7 * (1 + abs(energy0)))
    assert abs(work) > 1e-2  # the check has teeth: the torques do real work


def test_free_body_obeys_newton_euler():
    """A free body with its mass center at the body origin: I ω̇ + ω × Iω = N and m a_c = f (world frame)."""
    rng = np.random.default_rng(3)
    inertia = np.array([[2.0, 0.1, -0.2], [0.1, 3.0, 0.3], [-0.2, 0.3, 4.0]])
    model = mb.Model("free", gravity=(0, 0, -9.81))
    model.add(mb.Body("box", mass=5.0, com=(0, 0, 0), inertia=inertia), joint=mb.Free())
    q = mb.normalize(model, rng.normal(size=7))
    v = rng.normal(size=6)
    wrench = rng.normal(size=6)  # [moment; force] in body axes about the origin (= mass center)
    a = mb.aba(model, q, v, np.zeros(6), f_ext=wrench[None, :])
    omega, vel = v[:3], v[3:]
    omega_dot, vel_dot = a[:3], a[3:]
    # Euler's equation in body axes (the proceedings "Dynamics of Multibody Systems — Theory, Computational Method and
    # Application" (1992), eq. 16)
    np.testing.assert_allclose(inertia @ omega_dot + np.cross(omega, inertia @ omega), wrench[:3], atol=1e-12)
    # Newton: the origin's acceleration in body axes is v̇ + ω × v (body-fixed components)
    R, _ = mb.body_pose(model, q, "box")
    accel_world = R @ (vel_dot + np.cross(omega, vel))
    np.testing.assert_allclose(5.0 * accel_world, R @ wrench[3:] + 5.0 * model.gravity, atol=1e-12)


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=st.integers(1, 6))
def test_batched_calls_equal_single_calls(seed, n):
    rng = np.random.default_rng(seed)
    model = random_model(rng, n)
    states = [random_state(rng, model) for _ in range(5)]
    Q, V, A = (np.array(x) for x in zip(*states))
    tau = mb.rnea(model, Q, V, A)
    assert tau.shape == (5, model.nv)
    for b in range(5):
        np.testing.assert_array_equal(tau[b], mb.rnea(model, Q[b], V[b], A[b]))
        np.testing.assert_array_equal(mb.crba(model, Q)[b], mb.crba(model, Q[b]))
        np.testing.assert_array_equal(mb.aba(model, Q, V, tau)[b], mb.aba(model, Q[b], V[b], tau[b]))
    kinetic, potential = mb.energy(model, Q, V)
    assert kinetic.shape == (5,)
    assert kinetic[2] == mb.kinetic_energy(model, Q[2], V[2])
    # leading batch dimensions of any rank, with broadcasting of the unbatched arguments
    tau2 = mb.rnea(model, Q.reshape(5, 1, -1), V[0], A.reshape(5, 1, -1))
    assert tau2.shape == (5, 1, model.nv)
    np.testing.assert_allclose(tau2[3, 0], mb.rnea(model, Q[3], V[0], A[3]), rtol=1e-13, atol=1e-13)


def test_every_input_kind_gives_the_single_state_result():
    """The single-state fast path takes float64 vectors only; lists, float32, integer and byte-swapped arrays,
    strided and read-only views, batches and wrong sizes go through the general path, with the same numbers."""
    rng = np.random.default_rng(3)
    model = random_model(rng, 5)
    q, v, a = random_state(rng, model)
    tau, M = mb.rnea(model, q, v, a), mb.crba(model, q)
    qdd = mb.aba(model, q, v, tau)
    read_only = q.copy()
    read_only.flags.writeable = False
    strided = np.repeat(q, 2)[::2]
    for q_kind in (list(q), read_only, strided):
        np.testing.assert_array_equal(mb.rnea(model, q_kind, v, a), tau)
        np.testing.assert_array_equal(mb.crba(model, q_kind), M)
        np.testing.assert_array_equal(mb.aba(model, q_kind, v, tau), qdd)
    np.testing.assert_array_equal(mb.aba(model, strided, list(v), tau.astype(np.float32)), mb.aba(
        model, q, v, tau.astype(np.float32).astype(np.float64)))
    np.testing.assert_array_equal(mb.rnea(model, q, np.zeros(model.nv, dtype=int), a), mb.rnea(model, q, 0 * v, a))
    # The fast path calls the compiled code past numba's type checks (_core.__getattr__), so it tests dtype, ndim
    # and strides itself: an integer array must not be read as float64 bits, nor a byte-swapped one as native, nor
    # an (nq, nq) batch as one vector, nor a strided view as contiguous
    whole = np.arange(model.nq) % 3 - 1
    for kind in (whole.astype(np.int64), whole.astype(">f8"), whole.astype(np.float32)):
        np.testing.assert_array_equal(mb.crba(model, kind), mb.crba(model, whole.astype(np.float64)))
        np.testing.assert_array_equal(mb.rnea(model, q, kind[:model.nv], a), mb.rnea(model, q, 1.0 * kind[:model.nv], a))
        np.testing.assert_array_equal(mb.aba(model, q, v, kind[:model.nv]), mb.aba(model, q, v, 1.0 * kind[:model.nv]))
    batch = np.tile(q, (model.nq, 1))
    np.testing.assert_array_equal(mb.crba(model, batch), np.tile(M, (model.nq, 1, 1)))
    np.testing.assert_array_equal(mb.rnea(model, batch, v, a), np.tile(tau, (model.nq, 1)))
    np.testing.assert_array_equal(mb.aba(model, batch, v, tau), np.tile(qdd, (model.nq, 1)))
    np.testing.assert_array_equal(mb.rnea(model, q, np.repeat(v, 3)[::3], a), tau)
    np.testing.assert_array_equal(mb.aba(model, q, v, np.repeat(tau, 2)[::2]), qdd)
    with pytest.raises(ValueError, match=rf"v: expected shape \({model.nv},\)"):
        mb.rnea(model, q, v[:-1], a)
    with pytest.raises(ValueError, match=rf"q: expected shape \({model.nq},\)"):
        mb.crba(model, np.append(q, 0.0))


def test_external_force_enters_as_jacobian_transpose():
    """rnea with f_ext equals rnea without, minus Jᵀ of the wrench (world-frame Jacobian at the body origin)."""
    rng = np.random.default_rng(11)
    model = random_model(rng, 6)
    q, v, a = random_state(rng, model)
    wrench_body = rng.normal(size=6)
    body = model.bodies[4].name
    f_ext = {body: wrench_body}
    R, _ = mb.body_pose(model, q, body)
    J = mb.jacobian(model, q, body)
    wrench_world = np.concatenate([R @ wrench_body[:3], R @ wrench_body[3:]])
    expected = mb.rnea(model, q, v, a) - J.T @ wrench_world
    np.testing.assert_allclose(mb.rnea(model, q, v, a, f_ext=f_ext), expected, atol=1e-11)
