"""GPU kernels (numba-cuda): the recursive algorithms and fixed-step rollouts, one CUDA thread per state.

The kernels are loops around the same functions as the CPU core: the spatial and joint functions
(:mod:`._spatial_family`), the passes of RNEA, CRBA and ABA (:mod:`._algorithm_family`) and the motion on the
configuration manifold (:mod:`._configuration`), each compiled here as CUDA device functions. The arrays' shapes are
compile-time constants, so a kernel is built per model size (:func:`kernels`: n bodies, nq, nv, the largest joint nv)
and cached.

What lives in thread-local memory, and why. A thread's local arrays are far larger than its share of the on-chip
caches (a few hundred resident threads per SM against ~224 KB of L1, and 50 MB of L2 for the whole GPU), so every
value one pass stores and a later pass reads goes out to DRAM and back: those bytes, not the arithmetic, set the
rate. The hardware interleaves a warp's local memory word by word, so the accesses coalesce, but each still costs
bandwidth. The ABA and RNEA kernels therefore read the state from and write their outputs to the batch's rows
directly (no local copies), and the ABA's passes (``aba_passes``) hand each other only each body's world pose and
velocity (R0, p0, V: 18 numbers) and, for pass 3, G (7): everything else is recomputed from them or carried in
registers along a path of the tree. On the N = 20 chain the ABA touches ~4.5 KB of local memory per state (it was
13.9 KB, each entry of the articulated inertias stored and reloaded several times). IA, PA and A are touched only
at branch points, s only by joints other than revolute, U, u, D and D⁻¹ only by joints of several degrees of
freedom (Talos's free flyer): the stack frame (``cuda.local.array``) reserves them all, which costs address space,
not traffic. The rollouts keep their state and stages (x, y, K) in local memory too.

State arrays are (B, nq), (B, nv) in any strides; when the state index is the fastest (an (nq, B) array seen
transposed, or Fortran order) a warp's loads and stores of them coalesce too. ``params`` is (P, n, NPARAMS): P = 1 for
states that share a model, P = B for a model per state. ``status[0]`` is set to 1 by a thread whose output is not
finite (the host raises the error the CPU path raises).
"""
import functools
import inspect
import math

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 registers an overload of np.row_stack, which numpy 2.5 removed
    def _row_stack_removed(tup):
        raise AttributeError("numpy.row_stack was removed in numpy 2.5: use numpy.vstack")
    setattr(np, "row_stack", _row_stack_removed)

from numba import cuda, float64  # noqa: E402
from numba.core import config  # noqa: E402

from ._algorithm_family import algorithm_family  # noqa: E402
from ._layout import NSYM  # noqa: E402
from ._spatial_family import spatial_family  # noqa: E402
from ._stepper_family import on_the_manifold, stepper_family  # noqa: E402

# Device functions inlined into the kernels, and kernels whose on-chip memory is all L1 cache, which holds the
# threads' local arrays (they use no shared memory): each option where this numba-cuda takes it (the simulator
# takes neither).
_OPTIONS = inspect.signature(cuda.jit).parameters
SIMULATOR = bool(getattr(config, "ENABLE_CUDASIM", False))
INLINE = {"forceinline": True} if "forceinline" in _OPTIONS and not SIMULATOR else {}
KERNEL = {"shared_memory_carveout": "MaxL1"} if "shared_memory_carveout" in _OPTIONS and not SIMULATOR else {}
# Registers an ABA thread may use: 168 lets 6 blocks of 64 threads share an SM (the compiler's own choice, ~250, lets
# 4), a few values spill to L1. N = 20 chain ABA on an H200: 151M evaluations/s at 168, 148M at 144 (Talos 56M, 55M);
# with the sines still in a thread-local array, 147M at 168, 144M at 128, 134M with no limit. The rollouts keep the
# compiler's choice: capped, their RK4 step (the ABA four times) spills ~2 KB a thread (ptxas), not ~0.4 KB.
ABA_REGISTERS = 168
device = cuda.jit(device=True, **INLINE)
kernel = cuda.jit(**KERNEL)
aba_kernel = cuda.jit(**KERNEL, **({} if SIMULATOR else {"max_registers": ABA_REGISTERS}))
GPU = spatial_family(device, sines_ahead=False)  # (SC left untouched: see the module)
GPU_PASSES = algorithm_family(device, GPU)
GPU_CONFIGURATION = GPU.joints
THREADS = 64  # threads per block (benchmarks/bench_gpu.py compares 32 to 256)


@functools.lru_cache(maxsize=None)
def kernels(n, nq, nv, mv):
    """The kernels for models of n bodies, nq coordinates, nv velocities and joints of at most mv velocities, as a
    dict: "aba", "rnea", "crba", "poses" and "rollout" (see each)."""
    aba_passes, rnea_passes, crba_passes = GPU_PASSES.aba_passes, GPU_PASSES.rnea_passes, GPU_PASSES.crba_passes
    poses = GPU_PASSES.poses
    configuration_rate = GPU_CONFIGURATION.configuration_rate
    N1, NX, MV, NV = n + 1, nq + nv, max(mv, 1), max(nv, 1)

    @device
    def load(x, b, out):
        """out = x[b] (a row of a (B, m) array) in thread-local memory."""
        for k in range(out.shape[0]):
            out[k] = x[b, k]

    @device
    def forward_dynamics(topology, params, gravity, q, v, tau, f_ext, qdd):
        """qdd = ABA(q, v, tau) with thread-local work arrays (see the module: a chain touches R0, p0, V, G and branch
        alone)."""
        R0 = cuda.local.array((n, 3, 3), float64)
        p0 = cuda.local.array((n, 3), float64)
        V = cuda.local.array((n, 6), float64)
        IA = cuda.local.array((n, NSYM), float64)
        PA = cuda.local.array((n, 6), float64)
        G = cuda.local.array((n, 7), float64)
        branch = cuda.local.array(n, float64)
        s = cuda.local.array((NV, 6), float64)
        U = cuda.local.array((NV, 6), float64)
        u = cuda.local.array(NV, float64)
        Dinv = cuda.local.array((n, MV, MV), float64)
        D = cuda.local.array((MV, MV), float64)
        A = cuda.local.array((n, 6), float64)
        SC = cuda.local.array((2, nq), float64)
        aba_passes(topology, params, gravity, q, v, tau, f_ext, qdd, R0, p0, V, IA, PA, G, branch, s, U, u, Dinv, D, A,
                   SC)

    @aba_kernel
    def aba(topology, params, gravity, q, v, tau, f_ext, qdd, status):
        """qdd[b] = M⁻¹ (τ − c) at state b (:func:`~._algorithm_family.algorithm_family`'s ``aba_passes``), read
        from and written to the batch's rows in place (no thread-local copies)."""
        b = cuda.grid(1)
        if b >= q.shape[0]:
            return
        forward_dynamics(topology, params[min(b, params.shape[0] - 1)], gravity, q[b], v[b], tau[b], f_ext, qdd[b])
        for k in range(qdd.shape[1]):
            if not math.isfinite(qdd[b, k]):
                status[0] = 1

    @kernel
    def rnea(topology, params, gravity, q, v, a, f_ext, tau, status):
        """tau[b] = M a + c at state b (``rnea_passes``), read from and written to the batch's rows in place."""
        b = cuda.grid(1)
        if b >= q.shape[0]:
            return
        R = cuda.local.array((n, 3, 3), float64)
        p = cuda.local.array((n, 3), float64)
        V = cuda.local.array((N1, 6), float64)
        A = cuda.local.array((N1, 6), float64)
        F = cuda.local.array((N1, 6), float64)
        SC = cuda.local.array((2, nq), float64)
        if not rnea_passes(topology, params[min(b, params.shape[0] - 1)], gravity, q[b], v[b], a[b], f_ext, tau[b], R,
                           p, V, A, F, SC):
            status[0] = 1

    @kernel
    def crba(topology, params, q, M, status):
        """M[b] = M(q_b) (``crba_passes``), written straight to the output."""
        b = cuda.grid(1)
        if b >= q.shape[0]:
            return
        qb = cuda.local.array(nq, float64)
        load(q, b, qb)
        R0 = cuda.local.array((N1, 3, 3), float64)
        p0 = cuda.local.array((N1, 3), float64)
        Y = cuda.local.array((n, 10), float64)
        s = cuda.local.array((NV, 6), float64)
        SC = cuda.local.array((2, nq), float64)
        if not crba_passes(topology, params[min(b, params.shape[0] - 1)], qb, M[b], R0, p0, Y, s, SC):
            status[0] = 1

    @kernel
    def world_poses(topology, params, q, R0, p0, status):
        """R0[b, i], p0[b, i]: body i's world pose at state b (``poses``), written straight to the outputs."""
        b = cuda.grid(1)
        if b >= q.shape[0]:
            return
        qb = cuda.local.array(nq, float64)
        load(q, b, qb)
        poses(topology, params[min(b, params.shape[0] - 1)], qb, R0[b], p0[b], True)
        for i in range(n):
            if not math.isfinite(p0[b, i, 0] + p0[b, i, 1] + p0[b, i, 2] + R0[b, i, 0, 0] + R0[b, i, 1, 1]
                                 + R0[b, i, 2, 2]):
                status[0] = 1

    @device
    def rates(topology, params, gravity, tau, f_ext, x, dx):
        """dx = ẋ = (q̇, v̇) at x = (q, v) with constant joint forces tau (the CPU loop's ``rates``, no force
        elements)."""
        configuration_rate(topology, x[:nq], x[nq:], dx[:nq])
        forward_dynamics(topology, params, gravity, x[:nq], x[nq:], tau, f_ext, dx[nq:])

    @device
    def step_rates(args, t, x, dx):
        """:func:`rates` with args = (topology, params, gravity, tau, f_ext) (the stepper family's rates)."""
        topology, params, gravity, tau, f_ext = args
        rates(topology, params, gravity, tau, f_ext, x, dx)

    rk4_step, euler_step = stepper_family(device, step_rates, *on_the_manifold(device, GPU_CONFIGURATION))

    @kernel
    def rollout(topology, params, gravity, euler, tau, f_ext, Q0, V0, t0, t_eval, dt, X_out, status):
        """Run b from (Q0[b], V0[b]) (or row 0 of either for all runs) at t0 through t_eval by RK4 (or semi-implicit
        Euler if ``euler``; the steps of :mod:`._stepper_family`) with the constant joint forces tau[b] (or tau[0]
        for all), each interval between output times in equal steps of at most dt, X_out[b, j] the state at
        t_eval[j]: the steps of the CPU loop (:func:`multibody.simulate.steppers.fixed_step`), all in thread-local
        memory."""
        b = cuda.grid(1)
        if b >= X_out.shape[0]:
            return
        prm = params[min(b, params.shape[0] - 1)]  # its own model, or the shared one
        x, y = cuda.local.array(NX, float64), cuda.local.array(NX, float64)
        K = cuda.local.array((4, NX), float64)
        tb = cuda.local.array(NV, float64)
        load(Q0, min(b, Q0.shape[0] - 1), x[:nq])
        load(V0, min(b, V0.shape[0] - 1), x[nq:])
        load(tau, min(b, tau.shape[0] - 1), tb)
        args = (topology, prm, gravity, tb, f_ext)
        t = t0
        finite = True
        for j in range(t_eval.shape[0]):
            span = t_eval[j] - t
            steps = int(math.ceil(span / dt * (1.0 - 1e-12))) if span > 0.0 else 0
            h = span / steps if steps > 0 else 0.0
            for _ in range(steps):
                if euler:
                    euler_step(args, t, x, h, nq, K, y)
                else:
                    rk4_step(args, t, x, h, nq, K, y)
                for i in range(NX):
                    x[i] = y[i]
            t = t_eval[j]
            for i in range(NX):
                X_out[b, j, i] = x[i] if finite else math.nan
                finite = finite and math.isfinite(x[i])
        if not finite:
            status[0] = 1

    return {"aba": aba, "rnea": rnea, "crba": crba, "poses": world_poses, "rollout": rollout}
