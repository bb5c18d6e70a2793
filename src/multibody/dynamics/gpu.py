"""Many states at once on an NVIDIA GPU: the host side of the GPU kernels (:mod:`._gpu_kernels`).

:func:`multibody.aba`, :func:`multibody.rnea`, :func:`multibody.crba` and :func:`multibody.body_poses` come here
when given arrays that live on a GPU (anything with ``__cuda_array_interface__``: numba device arrays, CuPy arrays,
PyTorch CUDA tensors) or ``device="cuda"``; the results come back as the same kind (NumPy arrays for NumPy inputs
with ``device="cuda"``). States are (B, nq), (B, nv) float64 arrays, or single states (nq,), (nv,); an (nq, B) array
seen transposed (state index fastest, e.g. ``cupy.asarray(Q.T)``... ``.T``) makes a warp's loads coalesce, and the
outputs take the layout of q. Every joint type of the CPU core runs there, in float64.

Needs numba-cuda (``pip install "multibody[gpu]"``) and a CUDA GPU with its driver; without them the calls raise
an error saying which is missing. numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) runs the same kernels on the
CPU, slowly: the tests use it on small batches.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ModelError
from ._inputs import raise_nonfinite
from ._layout import NPARAMS, NVJ

DEVICES = ("cuda",)


def on_device(*arrays: Any) -> bool:
    """True if any of the arrays lives on a GPU: has ``__cuda_array_interface__``, or is a numba device array
    (``__cuda_ndarray__``: in numba-cuda's simulator too)."""
    return any(hasattr(x, "__cuda_array_interface__") or hasattr(x, "__cuda_ndarray__") for x in arrays)


def _cuda():
    """numba.cuda with the kernels' module, or an ImportError / RuntimeError saying what is missing."""
    try:
        from numba import cuda
    except ImportError as exc:  # pragma: no cover (numba-cuda is a test dependency)
        raise ImportError("multibody on a GPU needs numba-cuda: pip install \"multibody[gpu]\"") from exc
    if not cuda.is_available():
        raise RuntimeError("multibody on a GPU needs an NVIDIA GPU and its CUDA driver, and numba-cuda finds none "
                           f"({_why_no_gpu(cuda)}); run without device=... and CPU arrays to use the CPU, or set "
                           "NUMBA_ENABLE_CUDASIM=1 to run the GPU kernels in numba-cuda's simulator")
    from . import _gpu_kernels
    return cuda, _gpu_kernels


def _why_no_gpu(cuda) -> str:
    """numba-cuda's reason for finding no GPU, in a few words."""
    try:
        cuda.detect()
    except Exception as exc:  # noqa: BLE001 (any driver error is the reason)
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return "cuda.is_available() is False"


def _check_device(device: str | None, what: str) -> None:
    if device is not None and device not in DEVICES:
        raise ValueError(f"{what}: device must be None or one of {DEVICES}, got {device!r}")


class _Call:
    """One GPU call's inputs on the device, the kind of array to give back, and the batch size."""

    def __init__(self, what: str, model, arrays, device, broadcast=False):
        _check_device(device, what)
        self.what, self.model = what, model
        self.cuda, self.kernels_module = _cuda()
        cm = model._compiled or model.compile()
        self.cm = cm
        self.like = next((x for x, _, _ in arrays if on_device(x)), None)
        self.single = False
        self.inputs = []
        sizes = set()
        for x, size, name in arrays:
            d = self._to_device(x, size, name)
            sizes.add(d.shape[0])
            self.inputs.append(d)
        if len(sizes - ({1} if broadcast else set())) > 1:  # (broadcast: single states go with every run)
            shapes = ", ".join(f"{name} {tuple(d.shape)}" for d, (_, _, name) in zip(self.inputs, arrays))
            raise ValueError(f"{what} on the GPU: the states must be as many in every array: {shapes}")
        self.B = max(sizes)
        first = self.inputs[0]
        self.order = "F" if first.shape[0] > 1 and first.strides[0] < first.strides[1] else "C"
        self.topology, self.params, self.gravity, self.no_forces = self._model_arrays(cm)
        mv = int(cm.topology[:, NVJ].max()) if cm.topology.shape[0] else 1
        self.kernels = self.kernels_module.kernels(cm.topology.shape[0], cm.nq, cm.nv, mv)
        self.status = self.cuda.to_device(np.zeros(1, dtype=np.int32))

    def _to_device(self, x, size: int, name: str):
        """x as a (B, size) float64 device array (a view of a device input; a copy of a host one)."""
        cuda = self.cuda
        if on_device(x):
            d = x if hasattr(x, "__cuda_ndarray__") else cuda.as_cuda_array(x)
            if d.dtype != np.float64:
                raise TypeError(f"{self.what} on the GPU: {name} must be float64, got {d.dtype}")
        else:
            d = cuda.to_device(np.ascontiguousarray(np.asarray(x, dtype=np.float64)))
        if d.ndim == 1:
            self.single = True
            d = d.reshape(1, d.shape[0])
        if d.ndim != 2 or d.shape[1] != size:
            raise ValueError(f"{self.what} on the GPU: {name} must have shape ({size},) or (B, {size}), got "
                             f"{tuple(d.shape)}")
        return d

    def _model_arrays(self, cm):
        """The compiled model's arrays on the GPU, uploaded once per compiled model."""
        arrays = cm.derived.get("cuda")
        if arrays is None:
            cuda = self.cuda
            arrays = (cuda.to_device(np.ascontiguousarray(cm.topology)),
                      cuda.to_device(np.ascontiguousarray(cm.params).reshape(1, -1, NPARAMS)),
                      cuda.to_device(np.ascontiguousarray(cm.gravity)), cuda.to_device(np.zeros((0, 6))))
            cm.derived["cuda"] = arrays
        return arrays

    @property
    def grid(self):
        threads = self.kernels_module.THREADS
        return (max(1, math.ceil(self.B / threads)), threads)

    def output(self, *shape):
        """A (B, *shape) device array in the inputs' layout."""
        return self.cuda.device_array((self.B,) + shape, order=self.order)

    def check(self, **host_inputs):
        """Raise the CPU path's error if a thread found a non-finite output."""
        if self.status.copy_to_host()[0]:
            raise_nonfinite(self.model, self.what, **{name: self.host(x) for name, x in host_inputs.items()})

    def host(self, d):
        return d.copy_to_host()

    def give_back(self, out):
        """out (a device array) as the kind of the inputs: the same framework's array, or NumPy."""
        if self.single:
            out = out[0]
        like = self.like
        if like is None:
            return out.copy_to_host()
        module = type(like).__module__.split(".")[0]
        if module == "cupy":
            import cupy
            return cupy.asarray(out)
        if module == "torch":
            import torch
            return torch.as_tensor(out, device=like.device)
        return out


def aba(model, q, v, tau, f_ext=None, device=None):
    """:func:`multibody.aba` on the GPU (see the module)."""
    cm = model._compiled or model.compile()
    if cm.singular and not cm.flexible:
        raise ModelError(cm.singular)
    return _dynamics("aba", model, q, v, tau, "tau", f_ext, device)


def rnea(model, q, v, a, f_ext=None, device=None):
    """:func:`multibody.rnea` on the GPU (see the module)."""
    return _dynamics("rnea", model, q, v, a, "a", f_ext, device)


def _dynamics(what, model, q, v, x, x_name, f_ext, device):
    """aba or rnea (``what``, its third state array x named ``x_name``) on the GPU: (B, nv) out."""
    _no_forces(f_ext, what)
    cm = model._compiled or model.compile()
    _rigid(cm, what)
    call = _Call(what, model, [(q, cm.nq, "q"), (v, cm.nv, "v"), (x, cm.nv, x_name)], device)
    qd, vd, xd = call.inputs
    out = call.output(cm.nv)
    call.kernels[what][call.grid](call.topology, call.params, call.gravity, qd, vd, xd, call.no_forces, out,
                                  call.status)
    call.check(**{"q": qd, "v": vd, x_name: xd})
    return call.give_back(out)


def crba(model, q, device=None):
    """:func:`multibody.crba` on the GPU (see the module): M (B, nv, nv)."""
    (M,) = _of_configuration("crba", "crba", model, q, device, lambda nv, n: [(nv, nv)])
    return M


def body_poses(model, q, device=None):
    """:func:`multibody.body_poses` on the GPU (see the module): R (B, n, 3, 3), p (B, n, 3)."""
    return _of_configuration("body_poses", "poses", model, q, device, lambda nv, n: [(n, 3, 3), (n, 3)])


def _of_configuration(what, kernel, model, q, device, shapes):
    """The outputs of a kernel of q alone (``shapes(nv, n)``: the shape of each output per state) on the GPU."""
    cm = model._compiled or model.compile()
    _rigid(cm, what)
    call = _Call(what, model, [(q, cm.nq, "q")], device)
    (qd,) = call.inputs
    outputs = [call.cuda.device_array((call.B,) + shape) for shape in shapes(cm.nv, cm.topology.shape[0])]
    call.kernels[kernel][call.grid](call.topology, call.params, qd, *outputs, call.status)
    call.check(q=qd)
    return tuple(call.give_back(x) for x in outputs)


def _no_forces(f_ext, what):
    if f_ext is not None:
        raise NotImplementedError(f"{what} on the GPU takes no f_ext: apply body forces on the CPU path")


def _rigid(cm, what):
    if cm.flexible:
        raise NotImplementedError(f"{what} on the GPU: models with flexible beams run on the CPU only")
