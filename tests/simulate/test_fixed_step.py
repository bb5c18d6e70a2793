"""mb.simulate's fixed-step methods (RK4, semi-implicit Euler, the contact stepper): accuracy against the analytic
pendulum and DOP853, energy drift, the compiled and Python loops agreeing, output times, events, user code,
failures and Ctrl-C as on the adaptive path, dt validation."""
import copy
import pickle

import numpy as np
import pytest

import multibody as mb

from sim_models import G, floating_tree, hanging_chain, point_pendulum

AMPLITUDE = 1e-6  # [rad] the pendulum's nonlinearity, a phase error θ₀² ω t/16, stays below 1e-12 relative


def test_rk4_pendulum_follows_the_small_angle_solution_at_fourth_order():
    """θ(t) = θ₀ cos(ω t), ω² = g L m/(m L² + I): RK4's error over 5 s is ω t (ω dt)⁴/120 relative (1.2e-11 at
    dt = 1 ms), 10⁴ times more at 10 ms."""
    model = point_pendulum()
    omega = np.sqrt(G / (1.0 + 1e-12))
    errors = []
    for dt in (1e-3, 1e-2):
        traj = mb.simulate(model, [AMPLITUDE], [0.0], t_end=5.0, method="RK4", dt=dt)
        assert len(traj) == round(5.0 / dt) + 1 and np.allclose(np.diff(traj.t), dt, rtol=1e-9, atol=0)
        errors.append(np.abs(traj.q[:, 0] - AMPLITUDE * np.cos(omega * traj.t)).max())
    assert errors[0] < 2e-11 * AMPLITUDE
    assert 0.5e4 < errors[1] / errors[0] < 2e4


@pytest.mark.parametrize("method, dt, atol", [("RK4", 1e-3, 1e-11), ("Euler", 1e-4, 1e-4), ("contact", 1e-4, 1e-4)])
def test_each_scheme_matches_dop853_on_a_pendulum(method, dt, atol):
    """A 0.5 rad pendulum (nonlinear) for 2 s, against DOP853 at tolerance 1e-12: RK4's error ~ (ω dt)⁴, the first
    order schemes' ~ ω dt."""
    model = point_pendulum()
    t_eval = np.linspace(0.0, 2.0, 21)
    reference = mb.simulate(model, [0.5], [0.0], t_end=2.0, t_eval=t_eval, rtol=1e-12, atol=1e-12)
    traj = mb.simulate(model, [0.5], [0.0], t_end=2.0, t_eval=t_eval, method=method, dt=dt)
    np.testing.assert_allclose(traj.q, reference.q, rtol=0, atol=atol)
    np.testing.assert_allclose(traj.v, reference.v, rtol=0, atol=10 * atol)
    assert np.abs(traj.q - reference.q).max() > atol / 100  # the bound is the scheme's error, not slack


def test_the_contact_stepper_without_contacts_is_semi_implicit_euler():
    """(Without joint dampers and joint friction, whose slopes it takes implicitly: below.)"""
    model, q0, v0 = floating_tree(damping=0.0, friction=0.0)
    euler = mb.simulate(model, q0, v0, t_end=0.2, method="Euler", dt=1e-3)
    contact = mb.simulate(model, q0, v0, t_end=0.2, method="contact", dt=1e-3)
    np.testing.assert_allclose(contact.q, euler.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(contact.v, euler.v, rtol=0, atol=1e-11)


def test_energy_drift_of_each_scheme_on_a_conservative_pendulum():
    """Double point pendulum at 1 rad for 10 s: RK4 drifts by its O(dt⁴) error; semi-implicit Euler's energy error
    stays O(dt) and oscillates, with no secular growth on a single pendulum (constant mass matrix: symplectic)."""
    double = point_pendulum(links=2)
    rk4 = mb.simulate(double, [1.0, 0.0], [0.0, 0.0], t_end=10.0, method="RK4", dt=1e-3).energy()
    scale = 2 * G  # [J] the potential energy scale m g L of the two bobs
    assert np.abs(rk4 - rk4[0]).max() < 1e-9 * scale
    single = point_pendulum()
    for dt in (1e-3, 5e-4):
        euler = mb.simulate(single, [1.0], [0.0], t_end=20.0, method="Euler", dt=dt).energy()
        error = np.abs(euler - euler[0])
        assert error.max() < 2 * dt * G  # O(dt): ½ ω dt of the swing energy
        quarter = len(error) // 4
        assert error[-quarter:].max() < 1.05 * error[:quarter].max()  # bounded, no drift
    assert np.abs(euler - euler[0]).max() > 1e-5  # (the bound is not slack)


@pytest.mark.parametrize("make", [lambda: hanging_chain(7, swing=0.5), floating_tree], ids=["chain7", "floating_tree"])
@pytest.mark.parametrize("method", ["RK4", "Euler"])
def test_compiled_and_python_loops_agree(make, method):
    """The same scheme, steps and output times in the compiled loop and in Python (springs and friction on the
    floating tree, quaternions renormalized)."""
    model, q0, v0 = make()
    tau = np.linspace(-0.5, 0.5, model.nv)
    t_eval = np.linspace(0.0, 1.0, 41)  # 25 ms apart: 9 equal steps of 2.78 ms between samples
    fast = mb.simulate(model, q0, v0, t_end=1.0, t_eval=t_eval, method=method, dt=3e-3, torque=tau)
    slow = mb.simulate(model, q0, v0, t_end=1.0, t_eval=t_eval, method=method, dt=3e-3, torque=tau, compiled=False)
    assert fast.info["compiled"] and "compiled" not in slow.info
    assert fast.info["steps"] == slow.info["steps"] == 360
    np.testing.assert_allclose(slow.q, fast.q, rtol=0, atol=1e-10)
    np.testing.assert_allclose(slow.v, fast.v, rtol=0, atol=1e-10 * max(1.0, np.abs(fast.v).max()))
    np.testing.assert_allclose(slow.a, fast.a, rtol=0, atol=1e-10 * max(1.0, np.abs(fast.a).max()))
    # a torque callable takes the Python loop: the same numbers
    called = mb.simulate(model, q0, v0, t_end=1.0, t_eval=t_eval, method=method, dt=3e-3, torque=lambda t, q, v: tau)
    np.testing.assert_array_equal(called.q, slow.q)


def test_output_times_and_steps():
    model, q0, v0 = hanging_chain(3)
    every = mb.simulate(model, q0, v0, t_end=1.0, method="RK4", dt=3e-3)  # every step, the last one shortened
    assert len(every) == 335 and every.t[-1] == 1.0 and every.info["steps"] == 334
    np.testing.assert_allclose(np.diff(every.t)[:-1], 3e-3, rtol=1e-12)
    t_eval = np.array([0.0, 0.0, 0.013, 0.1, 0.25])  # off the grid: steps of at most dt landing on each
    traj = mb.simulate(model, q0, v0, t_end=0.25, t_eval=t_eval, method="RK4", dt=0.01, compiled=False)
    assert np.array_equal(traj.t, t_eval) and traj.info["steps"] == 2 + 9 + 15
    fine = mb.simulate(model, q0, v0, t_end=0.25, t_eval=t_eval, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(traj.q, fine.q, rtol=0, atol=1e-6)
    sampled = mb.simulate(model, q0, v0, t_end=1.0, samples=11, method="Euler", dt=1e-3)
    assert len(sampled) == 11 and sampled.info["steps"] == 1000
    shown = mb.simulate(model, q0, v0, t_end=1.0, samples=11, method="Euler", dt=1e-3, progress=True)
    assert "compiled" not in shown.info  # a progress bar takes the Python loop: the same steps
    np.testing.assert_allclose(shown.q, sampled.q, rtol=0, atol=1e-12)



@pytest.mark.parametrize("method, evaluations", [("RK4", 4), ("Euler", 1)])
def test_python_loop_counts_the_rates_evaluations_and_takes_any_torque_vector(method, evaluations):
    """info["nfev"]: the scheme's evaluations per step (outputs on the steps need no interpolation); a torque
    callable's result as a float64 vector, an int array or a list gives the same states to the last digit, and one
    of the wrong length names its shape."""
    model, q0, v0 = hanging_chain(3)
    runs = [mb.simulate(model, q0, v0, t_end=0.05, t_eval=[0.0, 0.02, 0.02, 0.05], method=method, dt=1e-3,
                        torque=torque)
            for torque in (lambda t, q, v: np.array([1.0, -2.0, 0.5]) * np.cos(t) ** 0,
                           lambda t, q, v: np.array([1, -2, 0]) + np.array([0, 0, 0.5]),
                           lambda t, q, v: [1.0, -2.0, 0.5])]
    assert "compiled" not in runs[0].info  # (a torque callable: the Python loop)
    assert runs[0].info["steps"] == 50 and runs[0].info["nfev"] == evaluations * 50
    assert np.array_equal(runs[0].t, [0.0, 0.02, 0.02, 0.05])
    for other in runs[1:]:
        assert np.array_equal(other.q, runs[0].q) and np.array_equal(other.v, runs[0].v)
    with pytest.raises(mb.SimulationError, match=r"torque: expected shape \(3,\) or \(\.\.\., 3\), got \(4,\)"):
        mb.simulate(model, q0, v0, t_end=0.01, method=method, dt=1e-3, torque=lambda t, q, v: np.ones(4))

def test_events_f_ext_and_actions_on_the_fixed_step_path():
    """A ball dropped from 1 m bouncing elastically: RK4 is exact for constant gravity, so the impacts are at
    √(2h/g) and 3√(2h/g) to round-off (located on the cubic interpolant between steps); gravity cancelled by a
    body force leaves it floating."""
    model = mb.Model("ball", gravity=(0, 0, -G))
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3) * 1e-3), joint=mb.Prismatic((0, 0, 1)))
    hit = mb.Event(lambda t, q, v: q[0], name="floor", direction=-1, action=lambda t, q, v: (q, -v))
    traj = mb.simulate(model, [1.0], [0.0], t_end=2.0, events=[hit], method="RK4", dt=1e-2)
    t_hit = np.sqrt(2.0 / G)
    assert [name for name, _ in traj.events] == ["floor", "floor"]
    np.testing.assert_allclose([t for _, t in traj.events], [t_hit, 3 * t_hit], rtol=1e-12)
    assert traj.q.min() > -1e-12 and abs(traj.q[:, 0].max() - 1.0) < 1e-12
    floating = mb.simulate(model, [1.0], [0.0], t_end=1.0, method="Euler", dt=1e-2,
                           f_ext=lambda t, q, v: {"ball": [0, 0, 0, 0, 0, G]})
    np.testing.assert_allclose(floating.q, 1.0, rtol=0, atol=1e-14)


@pytest.mark.parametrize("method", ["RK4", "Euler", "contact"])
def test_failures_and_ctrl_c_keep_the_partial_trajectory(method):
    model = point_pendulum()
    full = mb.simulate(model, [0.3], [0.0], t_end=2.0, method=method, dt=1e-3)
    for after, error in (([np.nan], mb.SimulationError), (None, mb.SimulationInterrupted)):
        def torque(t, q, v):
            if t > 0.5 and after is None:
                raise KeyboardInterrupt
            return after if t > 0.5 else [0.0]
        with pytest.raises(error) as info:
            mb.simulate(model, [0.3], [0.0], t_end=2.0, torque=torque, method=method, dt=1e-3)
        partial = info.value.trajectory
        assert 0.5 <= info.value.time < 0.502 and 500 <= len(partial) <= 502
        np.testing.assert_array_equal(partial.q, full.q[:len(partial)])
    assert partial.info["interrupted"]


def test_dt_is_required_by_the_fixed_step_methods_and_refused_by_the_others():
    model = point_pendulum()
    for method in ("RK4", "Euler", "contact"):
        with pytest.raises(ValueError, match=f"method '{method}' takes fixed steps: give the step dt > 0"):
            mb.simulate(model, [0.1], [0.0], t_end=1.0, method=method)
        for dt in (0.0, -1e-3, np.inf, np.nan):
            with pytest.raises(ValueError, match="dt > 0"):
                mb.simulate(model, [0.1], [0.0], t_end=1.0, method=method, dt=dt)
    for method in ("DOP853", "RK45", "Radau"):
        with pytest.raises(ValueError, match="dt is the step of the fixed-step methods.*max_step"):
            mb.simulate(model, [0.1], [0.0], t_end=1.0, method=method, dt=1e-3)


def test_the_contact_stepper_takes_joint_damping_implicitly():
    """A wheel on a damped revolute joint, h c / I = 5: explicit damping would flip the velocity's sign and grow
    it (v⁺ = (1 − h c/I) v); the contact stepper, implicit in the damper as MuJoCo's Euler, gives
    v⁺ = v / (1 + h c/I) exactly."""
    inertia, damping, dt = 1e-4, 0.5, 1e-3
    model = mb.Model("wheel", gravity=(0, 0, 0))
    model.add(mb.Body("wheel", mass=1.0, inertia=np.diag([1.0, 1.0, inertia])),
              joint=mb.Revolute([0, 0, 1], name="axle"))
    model.add_force(mb.JointSpring("axle", 0.0, damping=damping))
    run = mb.simulate(model, [0.0], [1.0], t_end=10 * dt, method="contact", dt=dt, progress=False)
    np.testing.assert_allclose(run.v[:, 0], (1 + dt * damping / inertia) ** -np.arange(11.0), rtol=1e-12, atol=0)


def test_a_damper_added_after_a_first_contact_simulation_acts_in_the_next():
    """The contact stepper keeps the joint dampers per compiled model; add_force drops them: a wheel spinning freely
    in a first run is damped as v⁺ = v / (1 + h c/I) in the next, once a damper is added between the runs."""
    inertia, damping, dt = 1e-4, 0.5, 1e-3
    model = mb.Model("wheel", gravity=(0, 0, 0))
    model.add(mb.Body("wheel", mass=1.0, inertia=np.diag([1.0, 1.0, inertia])),
              joint=mb.Revolute([0, 0, 1], name="axle"))
    free = mb.simulate(model, [0.0], [1.0], t_end=10 * dt, method="contact", dt=dt, progress=False)
    np.testing.assert_allclose(free.v[:, 0], 1.0, rtol=0, atol=1e-15)
    model.add_force(mb.JointSpring("axle", 0.0, damping=damping))
    run = mb.simulate(model, [0.0], [1.0], t_end=10 * dt, method="contact", dt=dt, progress=False)
    np.testing.assert_allclose(run.v[:, 0], (1 + dt * damping / inertia) ** -np.arange(11.0), rtol=1e-12, atol=0)


def _wheel_damped_after(edit):
    """A free wheel simulated once by the contact stepper (which keeps the joint dampers per compiled model), then
    ``edit(model)``, then again: the second run's velocities."""
    model = mb.Model("wheel", gravity=(0, 0, 0))
    model.add(mb.Body("wheel", mass=1.0, inertia=np.diag([1.0, 1.0, 1e-4])), joint=mb.Revolute([0, 0, 1], name="axle"))
    spring = mb.JointSpring("axle", 0.0, damping=0.0)
    model.add_force(spring)
    first = mb.simulate(model, [0.0], [1.0], t_end=0.01, method="contact", dt=1e-3, progress=False)
    np.testing.assert_allclose(first.v[:, 0], 1.0, rtol=0, atol=1e-15)
    edit(model, spring)
    return mb.simulate(model, [0.0], [1.0], t_end=0.01, method="contact", dt=1e-3, progress=False).v[:, 0]


@pytest.mark.parametrize("edit", [
    lambda model, spring: model.forces.append(mb.JointSpring("axle", 0.0, damping=0.5)),
    lambda model, spring: model.forces.extend([mb.JointSpring("axle", 0.0, damping=0.5)]),
    lambda model, spring: model.forces.__setitem__(0, mb.JointSpring("axle", 0.0, damping=0.5)),
    lambda model, spring: setattr(model, "forces", [mb.JointSpring("axle", 0.0, damping=0.5)]),
    lambda model, spring: setattr(spring, "damping", 0.5),
], ids=["append", "extend", "item", "assign list", "element attribute"])
def test_every_edit_of_the_force_elements_reaches_the_next_simulation(edit):
    """Not only add_force: appending to model.forces, replacing an item or the list, or setting an element's
    attribute after a first simulation all act in the next one (the compiled model is dropped), never silently
    ignored."""
    np.testing.assert_allclose(_wheel_damped_after(edit), (1 + 1e-3 * 0.5 / 1e-4) ** -np.arange(11.0), rtol=1e-12,
                               atol=0)


def test_removing_a_damper_from_model_forces_reaches_the_next_simulation():
    v = _wheel_damped_after(lambda model, spring: (setattr(spring, "damping", 0.5), model.forces.remove(spring)))
    np.testing.assert_allclose(v, 1.0, rtol=0, atol=1e-15)


@pytest.mark.parametrize("clone", [lambda m: pickle.loads(pickle.dumps(m)), copy.deepcopy], ids=["pickle", "deepcopy"])
def test_a_copied_model_is_its_own_parts_owner(clone):
    """A pickled or deep-copied model works and its parts clear its compiled form, not the original's, when edited
    (the parts hold weak references to their models)."""
    model = mb.Model.chain(3)
    model.add_force(mb.JointSpring(model.joints[0].name, 1.0))
    model.add_geometry("world", mb.Plane())
    model.compile()
    copy_ = clone(model)
    q, v = np.full(3, 0.3), np.zeros(3)
    np.testing.assert_array_equal(mb.aba(copy_, q, v, np.zeros(3)), mb.aba(model, q, v, np.zeros(3)))
    for edit in (lambda m: setattr(m.forces[0], "stiffness", 2.0), lambda m: setattr(m.bodies[0], "mass", 2.0),
                 lambda m: m.geometries.append(m.geometries[0]), lambda m: m.constraints.clear()):
        copy_.compile()
        edit(copy_)
        assert copy_._compiled is None and model._compiled is not None


def test_each_edit_of_a_part_list_records_only_the_parts_it_adds(monkeypatch):
    """Building a model part by part costs time linear in its parts: an edit records the parts it adds, not the whole
    list again (3000 add_geometry calls took 2 s, quadratic, before). Parts set by slice or extend are recorded."""
    from multibody.model.part import ModelPart
    model = mb.Model.chain(1)
    recorded = []
    monkeypatch.setattr(ModelPart, "_added_to", lambda part, model: recorded.append(part))
    springs = [mb.JointSpring(model.joints[0].name, 1.0) for _ in range(6)]
    for spring in springs[:3]:
        model.add_force(spring)
    model.forces.extend(iter(springs[3:4]))
    model.forces[1:2] = iter(springs[4:5])
    model.forces.insert(0, springs[5])
    model.forces.remove(springs[0])
    model.forces.sort(key=id)
    assert recorded == springs
    assert len(model.forces) == 4 and model._compiled is None
