"""Analytical derivatives of inverse and forward dynamics against Pinocchio's, high-order finite differences in the
tangent space, and the Jacobian of the symbolic equations of motion."""
import numba
import numpy as np
import pytest
import sympy as sp

import multibody as mb
from multibody import symbolic as sym
from multibody.dynamics import _threads
from multibody.dynamics import derivatives as derivatives_module
from oracles import PinocchioTwin, random_model, random_state

pin = pytest.importorskip("pinocchio")
ALL_JOINTS = ("revolute", "prismatic", "spherical", "cylindrical", "planar", "fixed", "free")


def _tangent_fd(model, f, q, h=1e-3):
    """Columns d/dε f(integrate(q, ε e_k)) by the 6th-order central difference (error ~h⁶ and 1e-16/h)."""
    weights = ((1, 45.0), (2, -9.0), (3, 1.0))
    columns = []
    for k in range(model.nv):
        e = np.zeros(model.nv)
        e[k] = h
        columns.append(sum(w * (f(mb.integrate(model, q, m * e)) - f(mb.integrate(model, q, -m * e)))
                           for m, w in weights) / (60.0 * h))
    return np.stack(columns, axis=-1)


def _central_fd(f, x, h=1e-3):
    weights = ((1, 45.0), (2, -9.0), (3, 1.0))
    columns = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        columns.append(sum(w * (f(x + m * e) - f(x - m * e)) for m, w in weights) / (60.0 * h))
    return np.stack(columns, axis=-1)


@pytest.mark.parametrize("seed,free_base", [(0, False), (1, True), (2, False), (3, True)])
def test_derivatives_agree_with_pinocchio_on_random_trees_of_every_joint_type(seed, free_base):
    rng = np.random.default_rng(seed)
    model = random_model(rng, 10, kinds=ALL_JOINTS, free_base=free_base)
    twin = PinocchioTwin(model)
    perm = np.ix_(twin.v_perm, twin.v_perm)

    def ours(X):  # Pinocchio's (nv, nv) matrix in our order of v
        out = np.empty_like(X)
        out[perm] = X
        return out

    for _ in range(2):
        q, v, a = random_state(rng, model)
        dq, dv, M = mb.rnea_derivatives(model, q, v, a)
        pin.computeRNEADerivatives(twin.pm, twin.data, twin.q(q), twin.v(v), twin.v(a))
        scale = 1.0 + np.abs(dq).max()
        np.testing.assert_allclose(dq, ours(twin.data.dtau_dq), rtol=0, atol=1e-11 * scale)
        np.testing.assert_allclose(dv, ours(twin.data.dtau_dv), rtol=0, atol=1e-11 * scale)
        np.testing.assert_allclose(M, mb.crba(model, q), rtol=0, atol=1e-12 * scale)
        tau = mb.rnea(model, q, v, a)
        ddq, ddv, Minv = mb.aba_derivatives(model, q, v, tau)
        pin.computeABADerivatives(twin.pm, twin.data, twin.q(q), twin.v(v), twin.v(tau))
        Minv_pin = np.triu(twin.data.Minv) + np.triu(twin.data.Minv, 1).T
        cond = np.linalg.cond(M)
        np.testing.assert_allclose(Minv, ours(Minv_pin), rtol=0, atol=1e-13 * cond * np.abs(Minv).max())
        np.testing.assert_allclose(ddq, ours(twin.data.ddq_dq), rtol=0, atol=1e-13 * cond * (1 + np.abs(ddq).max()))
        np.testing.assert_allclose(ddv, ours(twin.data.ddq_dv), rtol=0, atol=1e-13 * cond * (1 + np.abs(ddv).max()))


def test_derivatives_with_external_forces_match_sixth_order_differences_in_the_tangent_space():
    rng = np.random.default_rng(7)
    model = random_model(rng, 7, kinds=ALL_JOINTS, free_base=True)
    q, v, a = random_state(rng, model)
    f_ext = rng.normal(size=(model.nbodies, 6))
    dq, dv, M = mb.rnea_derivatives(model, q, v, a, f_ext=f_ext)
    np.testing.assert_allclose(dq, _tangent_fd(model, lambda qq: mb.rnea(model, qq, v, a, f_ext=f_ext), q),
                               rtol=0, atol=1e-8 * (1 + np.abs(dq).max()))
    np.testing.assert_allclose(dv, _central_fd(lambda vv: mb.rnea(model, q, vv, a, f_ext=f_ext), v),
                               rtol=0, atol=1e-8 * (1 + np.abs(dv).max()))
    tau = rng.normal(size=model.nv)
    ddq, ddv, Minv = mb.aba_derivatives(model, q, v, tau, f_ext=f_ext)
    np.testing.assert_allclose(ddq, _tangent_fd(model, lambda qq: mb.aba(model, qq, v, tau, f_ext=f_ext), q),
                               rtol=0, atol=1e-7 * (1 + np.abs(ddq).max()))
    np.testing.assert_allclose(ddv, _central_fd(lambda vv: mb.aba(model, q, vv, tau, f_ext=f_ext), v),
                               rtol=0, atol=1e-7 * (1 + np.abs(ddv).max()))
    np.testing.assert_allclose(Minv @ mb.crba(model, q), np.eye(model.nv), rtol=0, atol=1e-10)


def test_derivatives_are_the_jacobian_of_the_symbolic_equations_of_motion():
    model = mb.Model.chain(3)
    eom = sym.equations_of_motion(model)
    n = model.nv
    qs, us, accels = sp.symbols(f"q:{n}"), sp.symbols(f"u:{n}"), sp.Matrix(sp.symbols(f"a:{n}"))
    plain = dict(zip(eom.q, qs)) | dict(zip(eom.u, us))
    tau = (eom.mass_matrix * accels - eom.forcing).xreplace(plain)
    jacobians = [sp.lambdify([qs, us, list(accels)], tau.jacobian(list(x)), "numpy") for x in (qs, us)]
    rng = np.random.default_rng(3)
    q, v, a = rng.normal(size=(3, n))
    dq, dv, M = mb.rnea_derivatives(model, q, v, a)
    np.testing.assert_allclose(dq, jacobians[0](q, v, a), rtol=0, atol=1e-12)
    np.testing.assert_allclose(dv, jacobians[1](q, v, a), rtol=0, atol=1e-12)


@pytest.mark.parametrize("threads", [1, 2])
def test_batched_derivatives_equal_the_state_by_state_ones(threads, monkeypatch):
    monkeypatch.setattr(_threads, "MIN_SHARE_US", 1e-9)  # (a small batch: on every thread it is given)
    rng = np.random.default_rng(4)
    model = random_model(rng, 6, kinds=ALL_JOINTS, free_base=True)
    count = 37  # several chunks of states per thread, the last one short
    states = [random_state(rng, model) for _ in range(count)]
    q, v, a = (np.array(x) for x in zip(*states))
    shared, each = rng.normal(size=(model.nbodies, 6)), rng.normal(size=(count, model.nbodies, 6))
    default = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        batched = {"none": (mb.rnea_derivatives(model, q, v, a), mb.aba_derivatives(model, q, v, a)),
                   "shared": (mb.rnea_derivatives(model, q, v, a, f_ext=shared),
                              mb.aba_derivatives(model, q, v, a, f_ext=shared)),
                   "each": (mb.rnea_derivatives(model, q, v, a, f_ext=each),
                            mb.aba_derivatives(model, q, v, a, f_ext=each))}
        grid = mb.aba_derivatives(model, q[:6].reshape(2, 3, -1), v[:6].reshape(2, 3, -1), a[:6].reshape(2, 3, -1))
    finally:
        numba.set_num_threads(default)
    assert batched["none"][0][0].shape == (count, model.nv, model.nv)
    assert mb.aba_derivatives(model, q[:0], v[:0], a[:0])[2].shape == (0, model.nv, model.nv)
    assert grid[2].shape == (2, 3, model.nv, model.nv)
    for b in range(count):
        for forces, f_ext in (("none", None), ("shared", shared), ("each", each[b])):
            one = (mb.rnea_derivatives(model, q[b], v[b], a[b], f_ext=f_ext),
                   mb.aba_derivatives(model, q[b], v[b], a[b], f_ext=f_ext))
            for ours, theirs in zip(batched[forces][0] + batched[forces][1], one[0] + one[1]):
                np.testing.assert_allclose(ours[b], theirs, rtol=0, atol=1e-12 * (1 + np.abs(theirs).max()))
        if b < 6:
            for ours, theirs in zip(grid, mb.aba_derivatives(model, q[b], v[b], a[b])):
                np.testing.assert_allclose(ours[np.unravel_index(b, (2, 3))], theirs, rtol=0,
                                           atol=1e-12 * (1 + np.abs(theirs).max()))


@pytest.mark.parametrize("seed,free_base", [(16, False), (16, True)])
def test_derivatives_of_states_held_as_lanes_equal_the_state_by_state_ones_and_pinocchios(seed, free_base):
    # a random tree (several roots) of every joint type; 45 states: chunks of 16 lanes, the last with 13 states;
    # forces on every body, one set per state
    rng = np.random.default_rng(seed)
    model = random_model(rng, 12, kinds=ALL_JOINTS, free_base=free_base)
    assert {type(j).__name__.lower() for j in model.joints} == set(ALL_JOINTS)
    count = 45
    q, v, a = (np.array(x) for x in zip(*(random_state(rng, model) for _ in range(count))))
    f_ext = rng.normal(size=(count, model.nbodies, 6))
    batched = mb.rnea_derivatives(model, q, v, a, f_ext=f_ext) + mb.aba_derivatives(model, q, v, a, f_ext=f_ext)
    for b in range(count):
        one = (mb.rnea_derivatives(model, q[b], v[b], a[b], f_ext=f_ext[b])
               + mb.aba_derivatives(model, q[b], v[b], a[b], f_ext=f_ext[b]))
        for ours, theirs in zip(batched, one):
            np.testing.assert_allclose(ours[b], theirs, rtol=0, atol=1e-12 * (1 + np.abs(theirs).max()))
    batched = mb.rnea_derivatives(model, q, v, a) + mb.aba_derivatives(model, q, v, a)
    twin = PinocchioTwin(model)
    perm = np.ix_(twin.v_perm, twin.v_perm)
    for b in (0, 31, 32, 44):
        pin.computeRNEADerivatives(twin.pm, twin.data, twin.q(q[b]), twin.v(v[b]), twin.v(a[b]))
        for ours, theirs in zip(batched[:2], (twin.data.dtau_dq, twin.data.dtau_dv)):
            expected = np.empty_like(ours[b])
            expected[perm] = theirs
            np.testing.assert_allclose(ours[b], expected, rtol=0, atol=1e-9 * (1 + np.abs(expected).max()))
        pin.computeABADerivatives(twin.pm, twin.data, twin.q(q[b]), twin.v(v[b]), twin.v(a[b]))
        for ours, theirs in zip(batched[3:5], (twin.data.ddq_dq, twin.data.ddq_dv)):
            expected = np.empty_like(ours[b])
            expected[perm] = theirs
            np.testing.assert_allclose(ours[b], expected, rtol=0, atol=1e-9 * (1 + np.abs(expected).max()))


@pytest.mark.parametrize("count", [None, 1, 5, 37])  # one state, a batch of one, state by state, lanes
def test_derivatives_written_into_given_arrays_equal_new_ones_and_bad_ones_are_refused(count):
    rng = np.random.default_rng(21)
    model = random_model(rng, 7, kinds=ALL_JOINTS, free_base=True)
    states = [random_state(rng, model) for _ in range(count or 1)]
    q, v, a = (np.array(x) if count else np.array(x[0]) for x in zip(*states))
    shape = q.shape[:-1] + (model.nv, model.nv)
    for derivatives in (mb.rnea_derivatives, mb.aba_derivatives):
        out = tuple(np.full(shape, np.nan) for _ in range(3))
        written = derivatives(model, q, v, a, out=out)
        assert all(x is y for x, y in zip(written, out))
        for ours, new in zip(out, derivatives(model, q, v, a)):
            np.testing.assert_array_equal(ours, new)
    bad = {"a list": [np.zeros(shape)] * 3, "two arrays": (np.zeros(shape),) * 2,
           "float32": (np.zeros(shape, np.float32), np.zeros(shape), np.zeros(shape)),
           "a wrong shape": (np.zeros(shape), np.zeros(shape[:-1] + (model.nv + 1,)), np.zeros(shape)),
           "a strided view": (np.zeros(shape), np.zeros(shape), np.zeros(shape[:-1] + (2 * model.nv,))[..., ::2]),
           "the same array twice": (lambda x: (x, np.zeros(shape), x))(np.zeros(shape))}
    messages = {"a list": "a tuple of three arrays, got list", "two arrays": "three arrays, got tuple of 2",
                "float32": r"out\[0\] must be .* got float32", "a wrong shape": r"out\[1\] .* got float64 array of",
                "a strided view": r"out\[2\] .* not C-contiguous", "the same array twice": "must not overlap"}
    for what, out in bad.items():
        with pytest.raises(ValueError, match=messages[what]):
            mb.aba_derivatives(model, q, v, a, out=out)
    memory = np.zeros(q.size + int(np.prod(shape)) - 1)  # q's last entry is the first of out[2]
    q_in_memory = memory[:q.size].reshape(q.shape)
    q_in_memory[...] = q
    with pytest.raises(ValueError, match="out must not share memory with the arguments"):
        mb.rnea_derivatives(model, q_in_memory, v, a, out=(np.zeros(shape), np.zeros(shape),
                                                           memory[q.size - 1:].reshape(shape)))


def test_new_results_reuse_a_kept_block_only_once_the_caller_has_dropped_every_array_of_it(monkeypatch):
    rng = np.random.default_rng(22)
    model = random_model(rng, 6, free_base=True)
    states = [np.array(x) for x in zip(*(random_state(rng, model) for _ in range(40)))]
    other = [np.array(x) for x in zip(*(random_state(rng, model) for _ in range(40)))]

    def address(x):
        return x.__array_interface__["data"][0]
    for derivatives in (mb.rnea_derivatives, mb.aba_derivatives):
        first = derivatives(model, *states)
        expected, held = [x.copy() for x in first], first[2][3:7]  # (a view of a view of the block)
        where = address(first[0])
        del first
        for _ in range(3):  # (the two kept blocks both busy or of other calls: never the held one)
            results = derivatives(model, *other)
            assert address(results[0]) != where
        np.testing.assert_array_equal(held, expected[2][3:7])
        del held, results
        addresses = []
        for _ in range(4):  # the loop's way: the last results still bound while the next call runs
            results = derivatives(model, *states)
            addresses.append(address(results[0]))
        assert addresses[2:] == addresses[:2] and addresses[0] != addresses[1]  # (two blocks in turn)
        for ours, new in zip(results, expected):
            np.testing.assert_array_equal(ours, new)
    # blocks beyond the budget of kept bytes are not kept
    monkeypatch.setattr(derivatives_module, "KEPT_BYTES", results[0].nbytes * 3 - 1)
    del results
    mb.rnea_derivatives(model, *states)
    assert derivatives_module._kept == []


def test_a_batch_with_a_state_that_is_not_finite_or_a_zero_quaternion_is_refused_naming_it():
    rng = np.random.default_rng(8)
    model = random_model(rng, 5, free_base=True)
    q, v, a = (np.array(x) for x in zip(*(random_state(rng, model) for _ in range(20))))
    v[7, 0] = np.nan
    for derivatives in (mb.rnea_derivatives, mb.aba_derivatives):
        with pytest.raises(ValueError, match=r"v\[0\] .* in batch entry \(7,\) is nan"):
            derivatives(model, q, v, a)
    v[7, 0] = 0.0
    q[3, model.q_slice(model.joints[0].name)][3:] = 0.0
    with pytest.raises(ValueError, match=f"quaternion of joint '{model.joints[0].name}' in batch entry \\(3,\\)"):
        mb.aba_derivatives(model, q, v, a)


def test_models_the_derivatives_do_not_cover_raise_naming_the_reason():
    model = mb.Model("beam")
    model.add(mb.Body("a", mass=1.0, inertia=np.eye(3)), parent="world", joint=mb.Revolute())
    model.add(mb.Body("massless", mass=0.0, inertia=np.zeros((3, 3))), parent="a", joint=mb.Revolute())
    with pytest.raises(mb.ModelError, match="singular"):
        mb.aba_derivatives(model, np.zeros(2), np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match=r"q: expected shape \(2,\)"):
        mb.rnea_derivatives(model, np.zeros(3), np.zeros(2), np.zeros(2))


def test_kinematics_derivatives_agree_with_pinocchios_forward_kinematics_derivatives():
    rng = np.random.default_rng(2)
    model = random_model(rng, 8, kinds=ALL_JOINTS, free_base=True)
    twin = PinocchioTwin(model)
    q, v, a = random_state(rng, model)
    pin.computeForwardKinematicsDerivatives(twin.pm, twin.data, twin.q(q), twin.v(v), twin.v(a))
    local = pin.ReferenceFrame.LOCAL
    checked = 0
    for k, joint in enumerate(model.joints):
        jid, offset = twin.body_joint[k]
        if not offset.isIdentity():  # a body welded to its parent: not a joint frame of Pinocchio's
            continue
        v_dq, v_dv = pin.getJointVelocityDerivatives(twin.pm, twin.data, jid, local)
        _, a_dq, a_dv, _ = pin.getJointAccelerationDerivatives(twin.pm, twin.data, jid, local)
        for ours, theirs in zip(mb.kinematics_derivatives(model, q, v, a, model.bodies[k].name),
                                (v_dq, v_dv, a_dq, a_dv)):
            theirs = np.asarray(theirs)[np.r_[3:6, 0:3]]  # Pinocchio's rows [linear; angular]
            expected = np.empty_like(theirs)
            expected[:, twin.v_perm] = theirs
            np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-12 * (1 + np.abs(expected).max()))
        checked += 1
    assert checked >= 4
