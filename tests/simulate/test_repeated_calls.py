"""Repeated short calls of ``mb.simulate`` with one model and options (model-predictive control, reinforcement
learning): the plan kept with the compiled model (:class:`multibody.simulate.planning.KeptPlan`) gives each call the
trajectory, warnings and errors of a first call, and every edit of the model between two calls is seen."""
import warnings

import numpy as np
import pytest

import multibody as mb

DT = 2e-3
CALL = 20 * DT  # [s] one control period


def _sled():
    """A ball on a free joint just over a floor, moving sideways, and a capsule arm on a limited hinge swinging
    into its upper stop."""
    model = mb.Model("sled")
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 4e-3), joint=mb.Free())
    model.add_geometry("ball", mb.Sphere(0.1), friction=0.6, name="ball")
    model.add(mb.Body("arm", mass=0.5, inertia=np.eye(3) * 1e-3, com=[0, 0, -0.2]),
              joint=mb.Revolute(axis=[0, 1, 0], name="arm", limits=mb.JointLimits(-0.5, 0.5)),
              placement=mb.Transform(translation=[1.0, 0, 0.5]))
    model.add_geometry("arm", mb.Capsule(0.05, 0.1), placement=mb.Transform(translation=[0, 0, -0.3]))
    model.add_geometry("world", mb.Plane(), friction=0.8, name="floor")
    q0 = model.neutral()
    q0[2], q0[7] = 0.101, 0.45
    return model, q0, np.r_[0.0, 0.0, 0.0, 1.0, 0.0, -0.5, 3.0]


def _arm():
    """The arm of :func:`_sled` alone, a tree whose stored limits the compiled loop watches."""
    model = mb.Model("arm")
    model.add(mb.Body("arm", mass=0.5, inertia=np.eye(3) * 1e-3, com=[0, 0, -0.2]),
              joint=mb.Revolute(axis=[0, 1, 0], name="arm", limits=mb.JointLimits(-0.5, 0.5)))
    model.add(mb.Body("hand", mass=0.2, inertia=np.eye(3) * 1e-4, com=[0, 0, -0.1]),
              joint=mb.Revolute(axis=[0, 1, 0], name="wrist"), placement=mb.Transform(translation=[0, 0, -0.4]))
    return model, np.array([0.45, 0.1]), np.array([3.0, 0.0])


def _same(a, b):
    for name in ("t", "q", "v", "a", "tau"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.events == b.events
    assert a.info == b.info


def _alike(build, edits, **options):
    """The run of a model called before each edit of ``edits`` and after it, each equal to the run of a freshly
    built model with the edits so far; returns the runs after each edit."""
    model, q0, v0 = build()
    runs = []
    for k, edit in enumerate(edits):
        mb.simulate(model, q0, v0, CALL, **options)  # (the plan of the model so far, kept)
        edit(model)
        fresh = build()[0]
        for each in edits[:k + 1]:
            each(fresh)
        kept, new = (mb.simulate(m, q0, v0, CALL, **options) for m in (model, fresh))
        _same(kept, new)
        runs.append(kept)
    return runs


def _pair_friction(model):
    model.pair_friction[frozenset(("ball", "floor"))] = 0.05  # (the dict edited in place)


def _limit(model):
    model.add_constraint(mb.JointLimit("arm", -0.5, 0.48))


def _limit_edited(model):
    model.constraints[-1].upper = 0.47  # (a constraint edited in place)


CONTACT_EDITS = {
    "nothing": lambda m: None,
    "gravity": lambda m: setattr(m, "gravity", (0.0, 0.0, -3.0)),
    "mass": lambda m: setattr(m.bodies[0], "mass", 4.0),
    "friction": lambda m: setattr(m.geometries[0], "friction", 0.1),
    "friction rule": lambda m: setattr(m, "friction_rule", "max"),
    "pair friction": _pair_friction,
    "new shape": lambda m: m.add_geometry("ball", mb.Sphere(0.12), name="shell"),
    "limit": _limit,
    "limit edited": _limit_edited,
}


def test_repeated_contact_calls_see_every_edit_of_the_model():
    """Short contact calls of a model edited between calls (its parts, its gravity, its contact rules, a limit
    constraint added and edited in place), each equal bit for bit to the call of a freshly built model with the
    same edits; each edit changes the motion."""
    runs = _alike(_sled, list(CONTACT_EDITS.values()), method="contact", dt=DT)
    for (name, _), before, after in zip(list(CONTACT_EDITS.items())[1:], runs, runs[1:]):
        assert not np.array_equal(before.q[-1], after.q[-1]), name


def test_repeated_contact_calls_follow_the_model_settings_and_the_step():
    """The contact pairs' parent filter and the step dt are read anew: a kept plan is not reused across them."""
    model, q0, v0 = _sled()
    model.add(mb.Body("hat", mass=0.1, inertia=np.eye(3) * 1e-4), parent="arm", joint=mb.Revolute(axis=[1, 0, 0]),
              placement=mb.Transform(translation=[0, 0, -0.3]))
    model.add_geometry("hat", mb.Sphere(0.06))  # (touches its parent's capsule)
    q0, v0 = np.r_[q0, 0.0], np.r_[v0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the shapes overlapping at the start)
        filtered = mb.simulate(model, q0, v0, CALL, dt=DT, method="contact")
        model.filter_parent = False
        unfiltered = mb.simulate(model, q0, v0, CALL, dt=DT, method="contact")
        model._compiled = None
        _same(unfiltered, mb.simulate(model, q0, v0, CALL, dt=DT, method="contact"))
        assert not np.array_equal(filtered.q[-1], unfiltered.q[-1])
        coarse = mb.simulate(model, q0, v0, CALL, dt=2 * DT, method="contact")
        assert len(coarse.t) == len(unfiltered.t) // 2 + 1


@pytest.mark.filterwarnings("ignore:simulate.*runs in the Python loop")  # (once a limit constraint is added)
@pytest.mark.parametrize("method", ["RK4", "DOP853"])
def test_repeated_tree_calls_see_every_edit_of_the_model(method):
    """Short calls of a tree whose stored limits the compiled loop watches (the arm reaches its stop, the Python
    loop resting it there), a body's mass, its joint's limits and a limit constraint edited between calls: each
    equal to the call of a freshly built model."""
    options = dict(method=method, dt=DT) if method == "RK4" else dict(method=method, rtol=1e-9)
    edits = [lambda m: None, lambda m: setattr(m.bodies[1], "mass", 1.0),
             lambda m: setattr(m.joints[0], "limits", mb.JointLimits(-0.5, 0.49)), _limit, _limit_edited]
    runs = _alike(_arm, edits, **options)
    assert any(name.startswith("limit arm upper") for name, _ in runs[0].events)
    for before, after in zip(runs, runs[1:]):
        assert not np.array_equal(before.q[-1], after.q[-1])


def test_each_call_checks_its_own_inputs():
    """The state, the span and the output times of each call are checked as on a first call."""
    model, q0, v0 = _arm()
    mb.simulate(model, q0, v0, CALL, dt=DT, method="RK4")
    with pytest.raises(ValueError, match=r"q0: expected shape \(2,\)"):
        mb.simulate(model, q0[:1], v0, CALL, dt=DT, method="RK4")
    with pytest.raises(ValueError, match="past its upper limit"):
        mb.simulate(model, np.array([0.6, 0.0]), v0, CALL, dt=DT, method="RK4")
    with pytest.raises(ValueError, match="must be greater than t_start"):
        mb.simulate(model, q0, v0, CALL, t_start=CALL, dt=DT, method="RK4")
    with pytest.raises(ValueError, match="t_eval must be finite increasing times"):
        mb.simulate(model, q0, v0, CALL, dt=DT, method="RK4", t_eval=[0.0, 2 * CALL])
    with pytest.raises(ValueError, match="takes fixed steps"):
        mb.simulate(model, q0, v0, CALL, method="RK4")


def test_repeated_calls_warn_as_a_first_call_does():
    """The warnings of what a run meets in the model come on every call as on the first (the ignored contact
    shapes), or once per initial state (shapes overlapping at the start), as without a kept plan."""
    model, q0, v0 = _sled()
    counts = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            mb.simulate(model, q0, v0, CALL, dt=DT, method="RK4")
        counts.append(sum("contact shapes, which this run ignores" in str(w.message) for w in seen))
    assert counts[1] == counts[0] >= 1
    deep = q0.copy()
    deep[:3] = 1.0 - 0.3 * np.sin(0.45), 0.0, 0.5 - 0.3 * np.cos(0.45)  # (the ball in the arm's capsule)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for start in (deep, deep, q0, deep):
            mb.simulate(model, start, v0, CALL, dt=DT, method="contact")
    assert sum("overlap at the start" in str(w.message) for w in seen) == 2


def test_a_call_returns_arrays_of_its_own():
    """The output times of a call are its own array: editing one trajectory leaves the next call's as they are."""
    model, q0, v0 = _sled()
    first = mb.simulate(model, q0, v0, CALL, dt=DT, method="contact")
    first.t[:] = -1.0
    second = mb.simulate(model, q0, v0, CALL, dt=DT, method="contact")
    np.testing.assert_allclose(second.t, DT * np.arange(21), rtol=0, atol=1e-15)


@pytest.mark.parametrize("build, method", [(_sled, "contact"), (_arm, "RK4")])
def test_each_call_takes_its_own_state_and_torque(build, method):
    """Calls with a new initial state and torque each (a control loop's), each equal to the same call on a freshly
    built model: the kept plan holds nothing of a call's inputs."""
    model, q0, v0 = build()
    rng = np.random.default_rng(3)
    for torque in (None, rng.normal(size=model.nv), rng.normal(size=model.nv), None):
        start = q0 + 0.01 * rng.normal(size=model.nq) * (np.arange(model.nq) >= model.nq - 1)
        kept = mb.simulate(model, start, v0, CALL, dt=DT, method=method, torque=torque)
        _same(kept, mb.simulate(build()[0], start, v0, CALL, dt=DT, method=method, torque=torque))


@pytest.mark.parametrize("method", ["RK4", "DOP853"])
def test_a_compiled_tree_runs_accelerations_are_its_samples_even_after_an_edit_of_q_in_place(method):
    """A compiled tree run computes ``a`` and ``tau`` when they are first read, from its samples as it wrote them:
    the trajectory's q and v are the user's to edit, and an edit in place before that read changes neither."""
    model, q0, v0 = _arm()
    options = dict(t_end=0.05, method=method, samples=11, torque=[0.3, -0.1], joint_limits=False,
                   **({"dt": 1e-3} if method == "RK4" else {}))
    edited, untouched = mb.simulate(model, q0, v0, **options), mb.simulate(model, q0, v0, **options)
    edited.q[:] = 0.0
    edited.v *= 10.0
    np.testing.assert_array_equal(edited.a, untouched.a)
    np.testing.assert_array_equal(edited.tau, untouched.tau)
    np.testing.assert_allclose(untouched.a[5], mb.aba(model, untouched.q[5], untouched.v[5], [0.3, -0.1]), rtol=0,
                               atol=1e-12)
