"""The contact step with smoothed joint friction (JointFriction, URDF <dynamics friction>, MJCF frictionloss): the
friction's slope F_c/v_s at rest goes into the step's matrix with the dampers' (a linearly implicit step), so a
light link at a coarse step comes to the law's creeping speed instead of blowing up."""
import warnings

import numpy as np
import pytest

import multibody as mb


def _light_slider():
    """A 10 g block on a prismatic rail, friction F_c = 1 N smoothed over v_s = 0.1 mm/s: the slope F_c/v_s is
    1e4 N·s/m, so an explicit step of 1 ms multiplies a velocity error by h F_c/(v_s m) = 1e3."""
    model = mb.Model("light slider", gravity=(0, 0, 0))
    model.add(mb.Body("block", mass=0.01, inertia=np.eye(3) * 1e-6), joint=mb.Prismatic((1, 0, 0), name="rail"))
    model.add_force(mb.JointFriction("rail", friction=1.0, velocity_scale=1e-4))
    return model


@pytest.mark.parametrize("compiled", [True, False])
def test_light_block_creeps_at_the_smoothed_law_speed(compiled):
    """Pushed by τ = 0.5 N < F_c the block creeps at q̇ = v_s artanh(τ/F_c) (the fixed point of the step); pushed
    from 1 m/s it decelerates at F_c/m = 100 m/s² until it creeps."""
    model = _light_slider()
    creep = 1e-4 * np.arctanh(0.5)
    push = mb.simulate(model, [0.0], [0.0], t_end=0.05, dt=1e-3, method="contact", torque=[0.5], compiled=compiled,
                       progress=False)
    assert np.isfinite(push.v).all()
    np.testing.assert_allclose(push.v[-10:, 0], creep, rtol=1e-9, atol=0)
    slide = mb.simulate(model, [0.0], [1.0], t_end=0.05, dt=1e-3, method="contact", compiled=compiled,
                        progress=False)
    np.testing.assert_allclose(slide.v[1:6, 0], 1.0 - 100.0 * slide.t[1:6], rtol=0, atol=1e-12)
    assert np.abs(slide.v[-10:, 0]).max() < 1e-12


def test_compiled_and_python_steps_agree_with_friction_at_rest():
    """A two-link pendulum with a URDF-like joint friction (0.2 N·m, v_s 1e-3) and dampers: compiled = Python
    step, and a 1e-12 velocity perturbation decays rather than grows."""
    model = mb.Model("arm", gravity=(0, 0, -9.81))
    rod = np.diag([1e-6, 1e-4, 1e-4])
    model.add(mb.Body("upper", mass=0.05, com=(0.05, 0, 0), inertia=rod), joint=mb.Revolute((0, 1, 0), name="shoulder"))
    model.add(mb.Body("lower", mass=0.05, com=(0.05, 0, 0), inertia=rod), parent="upper",
              joint=mb.Revolute((0, 1, 0), name="elbow"), placement=mb.Transform(translation=(0.1, 0, 0)))
    for joint in ("shoulder", "elbow"):
        model.add_force(mb.JointFriction(joint, friction=0.2))
    model.add_force(mb.JointSpring("elbow", stiffness=0.0, damping=0.01))
    q0 = np.array([0.0, 0.3])
    runs = [mb.simulate(model, q0, v0, t_end=0.2, dt=2e-3, method="contact", compiled=compiled, progress=False)
            for v0, compiled in (([0.0, 0.0], True), ([0.0, 0.0], False), ([0.0, 1e-12], True))]
    np.testing.assert_allclose(runs[1].q, runs[0].q, rtol=0, atol=1e-13)
    np.testing.assert_allclose(runs[1].v, runs[0].v, rtol=0, atol=1e-11)
    assert np.abs(runs[2].v - runs[0].v)[-1].max() < 1e-12


@pytest.mark.parametrize("method", ["Euler", "RK4"])
def test_explicit_steps_too_coarse_for_the_friction_slope_are_named(method):
    """The explicit fixed steps take the friction explicitly: at h F_c/(v_s I) = 1e3 (1 ms) a run warns, naming the
    joint and its h D / I; at 1 µs (h D / I = 1) it does not."""
    model = _light_slider()
    with pytest.warns(UserWarning, match=r"too stiff for .* rail \(1e\+03\)"):
        mb.simulate(model, [0.0], [0.0], t_end=2e-3, dt=1e-3, method=method, torque=[0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mb.simulate(model, [0.0], [0.0], t_end=2e-5, dt=1e-6, method=method, torque=[0.5])
