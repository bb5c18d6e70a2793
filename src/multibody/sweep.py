"""Parameter sweeps: many simulations, on local processes or a Dask cluster, gathered into one table.

Point it at a real cluster by passing a connected client::

    from dask.distributed import Client
    client = Client("tcp://scheduler-host:8786")     # scheduler started with `dask scheduler`,
                                                     # workers with `dask worker tcp://scheduler-host:8786`
    table = mb.sweep(run, {"k": np.linspace(1, 10, 100)}, client=client)

Every worker needs multibody installed (same version) and, for a function, must be able to import it
(define it in a module, not in ``__main__``, or use ``client.upload_file``).
"""
from __future__ import annotations

import copy
import itertools
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

from .simulate.progress import Progress


def _points(grid):
    """The list of parameter dicts: the Cartesian product of a {name: values} grid, or a list of dicts."""
    if isinstance(grid, dict):
        names = list(grid)
        values = [list(np.atleast_1d(grid[name])) if not isinstance(grid[name], (list, tuple)) else list(grid[name])
                  for name in names]
        return [dict(zip(names, combo)) for combo in itertools.product(*values)]
    points = list(grid)
    if not all(isinstance(p, dict) for p in points):
        raise ValueError("sweep: parameter_grid must be {name: values} or a list of {name: value} dicts")
    return points


def _set_field(data, path, value):
    """Set ``data[a][b][2]...`` from a dotted path "a.b.2" (list indices as integers)."""
    keys = path.split(".")
    target = data
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target.setdefault(key, {})
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


class ModelRun:
    """A sweep task over a model description: set the dotted fields of the model file's dictionary form
    (e.g. "bodies.1.mass", "forces.0.stiffness", "initial.q", "simulation.t_end"), simulate, and summarize with
    ``summary(trajectory) -> dict`` (default: final q and v, energy drift, time)."""

    def __init__(self, description, summary=None):
        self.description = description
        self.summary = summary

    def __call__(self, **parameters):
        from .io.files import file_from_dict
        from .simulate import simulate
        data = copy.deepcopy(self.description)
        for path, value in parameters.items():
            _set_field(data, path, value.tolist() if isinstance(value, np.ndarray) else value)
        setup = file_from_dict(data, "<sweep>")
        settings = {"t_end": 1.0, **setup.simulation}
        traj = simulate(setup.model, setup.q0, setup.v0, progress=False, **settings)
        if self.summary is not None:
            return self.summary(traj)
        energy = traj.energy()
        result = {f"q_final[{i}]": x for i, x in enumerate(traj.q[-1])}
        result.update({f"v_final[{i}]": x for i, x in enumerate(traj.v[-1])})
        result["energy_drift"] = float(energy[-1] - energy[0])
        return result


def _call(function, parameters):
    result = function(**parameters)
    return result if isinstance(result, dict) else {"result": result}


def sweep(function_or_model, parameter_grid, *, client=None, processes=None, summary=None, progress=None):
    """Run ``function(**parameters)`` for every point of ``parameter_grid`` and gather one table.

    Parameters
    ----------
    function_or_model : a picklable function returning a dict of results (or one value), or a model
        (:class:`Model`, model-file path, or its dictionary form) swept through :class:`ModelRun`
        (parameter names are dotted field paths such as "bodies.0.mass").
    parameter_grid : {name: values} (Cartesian product) or a list of {name: value} dicts.
    client : a ``dask.distributed.Client``: run on its cluster. Default: local processes (``processes`` of
        them, default all cores; ``processes=0`` runs in this process).
    summary : for a model, ``summary(trajectory) -> dict``.
    progress : show a progress bar (None: only on a terminal, for runs longer than a second).

    Returns
    -------
    pandas.DataFrame with one row per point, in grid order: the parameters, then the results.
    """
    import pandas as pd
    function = _as_function(function_or_model, summary)
    points = _points(parameter_grid)
    results = [None] * len(points)
    with Progress(len(points), "sweep", progress) as bar:
        for done, (index, result) in enumerate(_run(function, points, client, processes), start=1):
            results[index] = result
            bar.update(done)
    rows = [{**{k: _scalar(v) for k, v in point.items()}, **result} for point, result in zip(points, results)]
    return pd.DataFrame(rows)


def _scalar(value):
    return value.item() if isinstance(value, np.generic) else value


def _as_function(function_or_model, summary):
    from .io.files import model_to_dict, read_model_file
    from .model import Model
    if isinstance(function_or_model, Model):
        return ModelRun(model_to_dict(function_or_model), summary)
    if isinstance(function_or_model, dict):
        return ModelRun(function_or_model, summary)
    if isinstance(function_or_model, (str, os.PathLike)):
        import yaml
        setup = read_model_file(function_or_model)  # validate once, with the file's name in any error
        if str(function_or_model).lower().endswith(".urdf"):
            return ModelRun(model_to_dict(setup.model), summary)
        with open(function_or_model) as handle:
            return ModelRun(yaml.safe_load(handle), summary)
    if not callable(function_or_model):
        raise ValueError(f"sweep: expected a function, a Model, a model file or its dictionary, got {function_or_model!r}")
    return function_or_model


def _run(function, points, client, processes):
    """Yield (index, result dict) as the runs finish."""
    if client is not None:
        from dask.distributed import as_completed as dask_completed
        futures = client.map(_call, [function] * len(points), points, pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        for future in dask_completed(futures):
            yield index[future.key], future.result()
        return
    workers = os.cpu_count() if processes is None else int(processes)
    if workers <= 0 or len(points) == 1:
        for i, point in enumerate(points):
            yield i, _call(function, point)
        return
    # fresh interpreters ("spawn"): forking a process whose compiled kernels already started threads is unsafe
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(points)), mp_context=context) as pool:
        futures = {pool.submit(_call, function, point): i for i, point in enumerate(points)}
        for future in as_completed(futures):
            yield futures[future], future.result()
