"""The GPU kernels (multibody.dynamics.gpu) against the CPU core, state by state, on random trees with every joint type.

Without a GPU they run in numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1, set here unless the environment says
otherwise): the same kernels, device functions and launches, executed by the CPU, on small batches. The device
functions are those of the CPU core's families (:mod:`multibody.dynamics._spatial_family`), so the results agree
to round-off.
"""
import os

import numba.core.config

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
numba.core.config.reload_config()

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from numba import cuda  # noqa: E402

import multibody as mb  # noqa: E402
from multibody.dynamics import _gpu_kernels  # noqa: E402
from multibody.dynamics._spatial_kernels import CPU  # noqa: E402
from oracles import JOINT_FACTORIES, random_inertia, random_model, random_rotation, random_state  # noqa: E402

ALL_KINDS = ("revolute", "prismatic", "spherical", "cylindrical", "planar", "fixed")
B = 5  # states per test (the simulator runs each thread in Python)


def assert_close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-12 * max(1.0, np.abs(expected).max()))


@pytest.fixture(scope="module")
def tree():
    """A random tree with every joint type under a free-floating base."""
    return random_model(np.random.default_rng(11), 6, kinds=ALL_KINDS, free_base=True)


@pytest.fixture(scope="module")
def states(tree):
    rng = np.random.default_rng(3)
    rows = [random_state(rng, tree) for _ in range(B)]
    return tuple(np.array([row[k] for row in rows]) for k in range(3))


def test_spatial_family_runs_as_device_functions():
    """Members of the one spatial family, compiled as CUDA device functions, give the CPU build's values."""
    out = cuda.to_device(np.zeros(12))

    @cuda.jit
    def kernel(angle, out):
        s, c = _gpu_kernels.GPU.sin_cos(angle)
        R = _gpu_kernels.GPU.rodrigues(0.0, 0.6, 0.8, s, c)
        w = _gpu_kernels.GPU.cross_motion((1.0, 2.0, 3.0, 4.0, 5.0, 6.0), (0.5, -1.0, 2.0, 0.1, 0.2, -0.3))
        out[0], out[1], out[2] = s, c, R[1]
        for k in range(6):
            out[3 + k] = w[k]
        out[9], out[10], out[11] = R[0], R[5], R[7]

    kernel[1, 1](0.7, out)
    s, c = CPU.sin_cos(0.7)
    R = CPU.rodrigues(0.0, 0.6, 0.8, s, c)
    w = CPU.cross_motion((1.0, 2.0, 3.0, 4.0, 5.0, 6.0), (0.5, -1.0, 2.0, 0.1, 0.2, -0.3))
    np.testing.assert_array_equal(out.copy_to_host(), [s, c, R[1], *w, R[0], R[5], R[7]])


def test_gpu_aba_rnea_crba_match_cpu_on_a_tree_with_every_joint_type(tree, states):
    Q, V, A = states
    Qd, Vd, Ad = (cuda.to_device(x) for x in (Q, V, A))
    tau = mb.rnea(tree, Qd, Vd, Ad)
    assert hasattr(tau, "copy_to_host") and tau.shape == (B, tree.nv)  # a device array, like the inputs
    assert_close(tau.copy_to_host(), mb.rnea(tree, Q, V, A))
    qdd = mb.aba(tree, Qd, Vd, tau)
    assert_close(qdd.copy_to_host(), mb.aba(tree, Q, V, tau.copy_to_host()))
    assert_close(qdd.copy_to_host(), A)  # ABA(RNEA(a)) = a
    M = mb.crba(tree, Qd)
    assert_close(M.copy_to_host(), mb.crba(tree, Q))


def revolute_tree(parents, seed):
    """Revolute bodies with random axes, inertias and placements on the given parent list (−1: the world)."""
    rng = np.random.default_rng(seed)
    model = mb.Model("tree", gravity=(0.0, 0.0, -9.81))
    for i, parent in enumerate(parents):
        mass = rng.uniform(0.5, 3.0)
        body = mb.Body(f"b{i}", mass=mass, com=rng.normal(size=3) * 0.2, inertia=random_inertia(rng, mass))
        model.add(body, parent="world" if parent < 0 else f"b{parent}", joint=JOINT_FACTORIES["revolute"](rng),
                  placement=mb.Transform(random_rotation(rng), rng.normal(size=3) * 0.3))
    return model


@pytest.mark.parametrize("parents", [list(range(-1, 7)),  # a chain: each body's parent the one before
                                     [-1, 0, 0, 1, 1, 2, 2, -1, 7]])  # breadth first, and a second root
def test_gpu_aba_matches_cpu_and_inverts_rnea_on_a_chain_and_a_breadth_first_tree(parents):
    """The ABA's passes hand each other values in registers when a body's parent is the body before, and through
    arrays at branch points: both paths, on the GPU and the CPU, give FD(ID(a)) = a."""
    model = revolute_tree(parents, seed=len(parents))
    rng = np.random.default_rng(5)
    Q, V, A = (np.array(x) for x in zip(*[random_state(rng, model) for _ in range(B)]))
    tau = mb.rnea(model, Q, V, A)
    qdd_gpu = mb.aba(model, cuda.to_device(Q), cuda.to_device(V), cuda.to_device(tau)).copy_to_host()
    qdd_cpu = np.array([mb.aba(model, q, v, t) for q, v, t in zip(Q, V, tau)])
    assert_close(qdd_gpu, qdd_cpu)
    assert_close(qdd_cpu, A)


def test_gpu_body_poses_match_cpu(tree, states):
    Q = states[0]
    R, p = mb.body_poses(tree, Q, device="cuda")  # NumPy in, NumPy out
    R_cpu, p_cpu = mb.body_poses(tree, Q)
    assert isinstance(R, np.ndarray)
    assert_close(R, R_cpu)
    assert_close(p, p_cpu)


def test_gpu_takes_numpy_with_device_and_single_states(tree, states):
    Q, V, A = states
    assert_close(mb.aba(tree, Q[0], V[0], A[0], device="cuda"), mb.aba(tree, Q[0], V[0], A[0]))
    state_fastest = cuda.to_device(np.asfortranarray(Q))  # (nq, B) memory seen as (B, nq)
    assert_close(mb.crba(tree, state_fastest).copy_to_host(), mb.crba(tree, Q))


def test_gpu_model_per_state_and_errors(tree, states):
    Q, V, A = states
    with pytest.raises(ValueError, match="device must be"):
        mb.aba(tree, Q, V, A, device="tpu")
    with pytest.raises(ValueError, match="as many"):
        mb.aba(tree, cuda.to_device(Q), cuda.to_device(V[:2]), cuda.to_device(A))
    with pytest.raises(TypeError, match="float64"):
        mb.crba(tree, cuda.to_device(Q.astype(np.float32)))
    bad = V.copy()
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"aba: v\[0\] .* batch entry \(1,\) is nan"):  # the CPU path's error
        mb.aba(tree, Q, bad, A, device="cuda")


@pytest.mark.slow
@pytest.mark.parametrize("method", ["RK4", "Euler"])
def test_gpu_rollouts_match_the_cpu_loop(tree, states, method):
    """Every joint type (quaternions too), a torque per run: the GPU's runs are the CPU compiled loop's."""
    Q, V, _ = states
    torque = np.random.default_rng(5).normal(size=(3, tree.nv))
    options = dict(method=method, dt=0.01, t_eval=[0.0, 0.02, 0.05], torque=torque)
    cpu = mb.simulate(tree, Q[:3], V[:3], 0.05, **options)
    gpu = mb.simulate(tree, Q[:3], V[:3], 0.05, device="cuda", **options)
    for run_cpu, run_gpu in zip(cpu, gpu):
        assert_close(run_gpu.q, run_cpu.q)
        assert_close(run_gpu.v, run_cpu.v)
    rollouts = mb.simulate(tree, cuda.to_device(Q[:3]), V[:3], 0.05, **options)  # device arrays in and out
    assert_close(rollouts.q.copy_to_host(), np.array([run.q for run in cpu]))
    assert_close(rollouts.v.copy_to_host(), np.array([run.v for run in cpu]))


@pytest.mark.slow
def test_gpu_rollouts_take_a_model_per_run_and_refuse_what_they_cannot_run():
    models = [mb.Model.chain(3, mass=m, length=l) for m, l in ((1.0, 0.3), (2.0, 0.5))]
    q0, torque = np.array([0.3, -0.2, 0.1]), np.array([[0.5, 0.0, -0.5], [0.0, 1.0, 0.0]])
    options = dict(method="RK4", dt=0.01, t_eval=[0.0, 0.03], torque=torque)
    cpu = mb.simulate(models, q0, None, 0.03, **options)
    gpu = mb.simulate(models, q0, None, 0.03, device="cuda", **options)
    for run_cpu, run_gpu in zip(cpu, gpu):
        assert_close(run_gpu.q, run_cpu.q)
        assert_close(run_gpu.a, run_cpu.a)
    with pytest.raises(NotImplementedError, match="method 'DOP853'"):
        mb.simulate(models[0], q0, None, 0.03, device="cuda")
    spring = mb.Model.chain(3)
    spring.add_force(mb.JointSpring(spring.joints[0].name, stiffness=1.0))
    with pytest.raises(NotImplementedError, match="force elements"):
        mb.simulate(spring, q0, None, 0.03, method="Euler", dt=0.01, device="cuda")


def test_gpu_rollouts_name_the_failed_runs_and_refuse_stored_limits():
    """A run whose state became non-finite fails alone: one SimulationError carrying every run (the others with the
    accelerations of the CPU's loop); a joint's stored limits are refused unless joint_limits=False."""
    from multibody.simulate import gpu as gpu_runs
    model, q0 = mb.Model.chain(2), np.array([0.3, -0.2])
    options = dict(method="RK4", dt=0.01, t_eval=[0.0, 0.02, 0.04])
    cpu = mb.simulate(model, q0, None, 0.04, torque=[0.5, -0.5], **options)
    X = np.array([np.c_[cpu.q, cpu.v], np.c_[cpu.q, cpu.v]])  # the GPU's output (B, T, nq + nv)
    X[1, 2:] = np.nan  # the second run's state non-finite from t = 0.04 s
    with pytest.raises(mb.SimulationError, match="1 of 2 runs failed") as failed:
        gpu_runs._trajectories([model] * 2, cpu.t, X, 2, np.array([[0.5, -0.5]]), {"method": "RK4"})
    assert set(failed.value.failures) == {1} and len(failed.value.trajectories[1]) == 2
    assert_close(failed.value.trajectories[0].a, cpu.a)
    model.joints[0].limits = mb.JointLimits(lower=-1.0, upper=1.0)
    with pytest.raises(NotImplementedError, match="joint limits"):
        mb.simulate(model, q0, None, 0.04, device="cuda", **options)
    model.joints[0].limits = mb.JointLimits()  # no finite bound: nothing to enforce
    assert len(mb.simulate(model, q0, None, 0.04, device="cuda", **options)) == 1


def test_without_a_gpu_the_error_says_what_is_missing(tree, states, monkeypatch):
    monkeypatch.setattr(cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="needs an NVIDIA GPU and its CUDA driver.*NUMBA_ENABLE_CUDASIM"):
        mb.aba(tree, *states, device="cuda")
