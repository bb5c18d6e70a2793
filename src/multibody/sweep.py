"""Parameter sweeps: many simulations, on local processes or a Dask cluster, gathered into one table.

Point it at a real cluster by passing a connected client::

    from dask.distributed import Client
    client = Client("tcp://scheduler-host:8786")     # scheduler started with `dask scheduler`,
                                                     # workers with `dask worker tcp://scheduler-host:8786`
    table = mb.sweep(run, {"k": np.linspace(1, 10, 100)}, client=client)

Every worker needs multibody installed (same version) and, for a function, must be able to import it
(define it in a module, not in ``__main__``, or use ``client.upload_file``).

A point whose run raises is recorded, not fatal: its row holds the parameters and, in the column "error", the
exception's type and message; the other points are kept, and the table's ``attrs["failed"]`` counts the failures
(a RuntimeWarning says how many).

Local processes are started fresh ("spawn"), so they import the calling script again: a script must run its sweep
under ``if __name__ == "__main__":`` (sweep checks this and says so), or pass ``processes=0``.

A model sweep whose points differ only in their initial state ("initial." fields) and in model parameters —
masses, inertias, lengths (joint placements), spring and friction constants, anything that leaves the model's
structure as it is (:func:`multibody.simulate.lockstep.structure_difference`) — under the same simulation settings
runs as one batched :func:`multibody.simulate` of a model per point in this process, without processes: all the
runs together in the compiled loop (:func:`multibody.simulate.compiled.integrate_tree_batch`, across threads).
Sweeps of the initial state alone do so even where the compiled loop does not take the model (the runs then go
one after the other); a sweep that varies the model does so only where it does, and else runs on processes.
"""
from __future__ import annotations

import ast
import copy
import itertools
import multiprocessing
import os
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .simulate.progress import Progress

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    import pandas
    from dask.distributed import Client

    from .model import Model
    from .simulate.trajectory import Trajectory


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

    def setup(self, parameters):
        """The model file of one point: the description with its fields set."""
        from .io.files import file_from_dict
        data = copy.deepcopy(self.description)
        for path, value in parameters.items():
            _set_field(data, path, value.tolist() if isinstance(value, np.ndarray) else value)
        return file_from_dict(data, "<sweep>")

    def __call__(self, **parameters):
        from .simulate import simulate
        setup = self.setup(parameters)
        return self.summarize(simulate(setup.model, setup.q0, setup.v0, progress=False, **_settings(setup)))

    def batch(self, points):
        """(result, error) of every point at once — one :func:`multibody.simulate` of each point's model and initial
        state, all the runs together in the compiled loop where it takes them — or None if the points cannot run
        so: a point's model file is invalid, the points differ in simulation settings or in model structure
        (:func:`multibody.simulate.lockstep.structure_difference`), or they vary the model (fields other than
        "initial." and "simulation.") and the compiled loop does not take it."""
        from .errors import SimulationError
        from .simulate import simulate
        from .simulate.lockstep import structure_difference
        from .constraints.limits import stored_limits
        from .simulate.planning import in_compiled_loop
        try:
            setups = [self.setup(point) for point in points]
        except Exception:  # the points run one by one, each failure recorded with its point
            return None
        first, settings = setups[0], _settings(setups[0])
        if any(_settings(s) != settings or structure_difference(first.model, s.model) for s in setups[1:]):
            return None
        models_vary = any(not path.startswith(("initial.", "simulation.")) for point in points for path in point)
        if models_vary and not in_compiled_loop(first.model, settings.get("method", "DOP853"), True, False, False,
                                                None, None, (), None, settings.get("atol", 1e-10),
                                                stored_limits(first.model)):
            return None
        models = [s.model for s in setups] if models_vary else first.model
        try:
            runs, failures = simulate(models, np.array([s.q0 for s in setups]), np.array([s.v0 for s in setups]),
                                      progress=False, **settings), {}
        except SimulationError as exc:
            runs, failures = exc.trajectories, exc.failures
        return [(None, f"SimulationError: {failures[b]}") if b in failures else _call(self.summarize, {"traj": traj})
                for b, traj in enumerate(runs)]

    def summarize(self, traj):
        """``summary(traj)``, or by default the final q and v and the energy drift [J]."""
        if self.summary is not None:
            return self.summary(traj)
        energy = traj.energy()
        result = {f"q_final[{i}]": x for i, x in enumerate(traj.q[-1])}
        result.update({f"v_final[{i}]": x for i, x in enumerate(traj.v[-1])})
        result["energy_drift"] = float(energy[-1] - energy[0])
        return result


def _settings(setup):
    """The file's simulation settings, simulating 1 s where it gives no t_end."""
    return {"t_end": 1.0, **setup.simulation}


def _call(function, parameters):
    """(result dict, None), or (None, "Type: message") if the run raised (recorded, the sweep goes on)."""
    try:
        result = function(**parameters)
    except Exception as exc:
        return None, _describe(exc)
    return (result if isinstance(result, dict) else {"result": result}), None


def _describe(exc):
    from .errors import MAX_MESSAGE, printable
    public = next(kind for kind in type(exc).__mro__ if not kind.__name__.startswith("_"))  # not _FileError
    return printable(f"{public.__name__}: {exc}", MAX_MESSAGE)


def sweep(function_or_model: Callable[..., Any] | Model | str | os.PathLike | Mapping[str, Any],
          parameter_grid: Mapping[str, Iterable[Any]] | Sequence[Mapping[str, Any]], *, client: Client | None = None,
          processes: int | None = None, summary: Callable[[Trajectory], Mapping[str, Any]] | None = None,
          progress: bool | None = None, rows: bool = False) -> pandas.DataFrame | list[dict[str, Any]]:
    """Run ``function(**parameters)`` for every point of ``parameter_grid`` and gather one table.

    Parameters
    ----------
    function_or_model : a picklable function returning a dict of results (or one value), or a model
        (:class:`Model`, model-file path or bundled example name, or its dictionary form) swept through
        :class:`ModelRun`
        (parameter names are dotted field paths such as "bodies.0.mass").
    parameter_grid : {name: values} (Cartesian product) or a list of {name: value} dicts.
    client : a ``dask.distributed.Client``: run on its cluster. Default: local processes (``processes`` of
        them, default all cores; ``processes=0`` runs in this process).
    summary : for a model, ``summary(trajectory) -> dict``.
    progress : show a progress bar (None: only on a terminal, for runs longer than a second).
    rows : return the list of row dicts instead of a DataFrame (no pandas needed).

    Returns
    -------
    pandas.DataFrame with one row per point, in grid order: the parameters, then the results. If some points
    failed, a column "error" holds "ExceptionType: message" for them (None for the others, whose results are
    kept; missing results are NaN), ``attrs["failed"]`` their number (0 when none failed), and a RuntimeWarning
    says how many failed. With ``rows=True`` the same rows as dicts (a failed one has only the parameters and
    "error").
    """
    if not rows:
        try:
            import pandas as pd
        except ImportError as exc:  # said before any point runs
            raise ImportError("mb.sweep returns a pandas DataFrame and pandas is not installed: pip install pandas, "
                              "or pass rows=True for a list of dicts") from exc
    function = _as_function(function_or_model, summary)
    points = _points(parameter_grid)
    results = None
    if client is None and isinstance(function, ModelRun) and len(points) > 1:
        results = function.batch(points)  # one batched simulate in this process, or None
    if results is None and client is None and (processes is None or int(processes) > 0) and len(points) > 1:
        _check_main_guard()
    if results is None:
        results = [None] * len(points)
        with Progress(len(points), "sweep", progress) as bar:
            for done, (index, result) in enumerate(_run(function, points, client, processes), start=1):
                results[index] = result
                bar.update(done)
    failed = sum(error is not None for _, error in results)
    table = [{**{k: _scalar(v) for k, v in point.items()}, **(result or {}), **({"error": error} if failed else {})}
             for point, (result, error) in zip(points, results)]
    if failed:
        first = next(error for _, error in results if error is not None)
        warnings.warn(f"sweep: {failed} of {len(points)} points failed (their errors are in the 'error' column; the "
                      f"first: {first})", RuntimeWarning, stacklevel=2)
    if rows:
        return table
    frame = pd.DataFrame(table)
    frame.attrs["failed"] = failed
    return frame


def _scalar(value):
    return value.item() if isinstance(value, np.generic) else value


def _as_function(function_or_model, summary):
    from .io.files import model_to_dict, read_model_file
    from .model import Model
    if isinstance(function_or_model, Model):
        return ModelRun(model_to_dict(function_or_model), summary)
    if isinstance(function_or_model, dict):
        from .io.files import file_from_dict
        file_from_dict(copy.deepcopy(function_or_model), "<sweep>")  # a bad description raises once, here
        return ModelRun(function_or_model, summary)
    if isinstance(function_or_model, (str, os.PathLike)):
        from .io.yaml_safe import yaml_load
        setup = read_model_file(function_or_model)  # validate once, with the file's name in any error
        if setup.source.lower().endswith((".urdf", ".xml")):
            return ModelRun(model_to_dict(setup.model), summary)
        return ModelRun(yaml_load(setup.source), summary)  # a bundled example's name too
    if not callable(function_or_model):
        raise ValueError(f"sweep: expected a function, a Model, a model file or its dictionary, got {function_or_model!r}")
    return function_or_model


def _is_main_test(test):
    """Whether an ``if`` test is ``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
            and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides))


def _check_main_guard():
    """Raise RuntimeError if this sweep runs from the top level of a script outside ``if __name__ == "__main__":``.

    The local worker processes are started fresh ("spawn") and import the script again; without the guard each
    would run the sweep again (multiprocessing then fails with a BrokenProcessPool). The script's top-level
    statement running now is found on the call stack and looked up in the script's syntax tree."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "<module>" and frame.f_globals is vars(main)):
        frame = frame.f_back
    if frame is None or not path or not os.path.isfile(path):
        return  # not during the script's top level (interactive, -c, a notebook, or after the script ran)
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError, ValueError):
        return
    line = frame.f_lineno
    if any(isinstance(node, ast.If) and _is_main_test(node.test) and node.lineno <= line <= node.end_lineno
           for node in ast.walk(tree)):
        return
    raise RuntimeError(f"mb.sweep runs its points in new Python processes, and each imports your script "
                       f"{os.path.basename(path)!r} again, which would run this sweep again (line {line}). Put the code "
                       f"that runs the sweep under\n    if __name__ == \"__main__\":\nat the end of the script, or pass "
                       f"processes=0 to run the points in this process.")


def _run(function, points, client, processes):
    """Yield (index, result dict) as the runs finish."""
    if client is not None:
        from dask.distributed import as_completed as dask_completed
        futures = client.map(_call, [function] * len(points), points, pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        for future in dask_completed(futures):
            yield index[future.key], _outcome(future)
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
            yield futures[future], _outcome(future)


def _outcome(future):
    """The (result, error) of a finished task; a failure outside the run itself (the function or a result could
    not be pickled, a worker died) is recorded as that point's error too."""
    try:
        return future.result()
    except Exception as exc:
        return None, _describe(exc)
