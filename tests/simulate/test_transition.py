"""Exact one-step transition Jacobians against MuJoCo's (``mjd_transitionFD``, and central differences of its RK4
``mj_step``) on the same MJCF model and step, and linearize's analytical A against its former central differences."""
import re

import numpy as np
import pytest

import multibody as mb
from oracles import random_model, random_state

mujoco = pytest.importorskip("mujoco")
XML = """<mujoco><option timestep="{dt}" integrator="{method}"/><worldbody>
<body name="a"><joint name="j0" type="hinge" axis="0 1 0"/>
<inertial pos="0.1 0 -0.2" mass="1.5" diaginertia="0.1 0.2 0.3"/>
<body name="b" pos="0.2 0 -0.4"><joint name="j1" type="hinge" axis="1 0 0"/>
<inertial pos="0 0.1 -0.2" mass="1" diaginertia="0.05 0.08 0.1"/>
<body name="c" pos="0 0.1 -0.3"><joint name="j2" type="{third}"/>
<inertial pos="0.05 0 -0.1" mass="0.7" diaginertia="0.02 0.03 0.04"/>
</body></body></body></worldbody><actuator><motor joint="j0"/><motor joint="j1"/>{motor}</actuator></mujoco>"""


def _twins(method, third, dt=0.01):
    xml = XML.format(dt=dt, method=method, third=third, motor='<motor joint="j2"/>' if third == "hinge" else "")
    m = mujoco.MjModel.from_xml_string(xml)
    model = mb.Model.from_mjcf(re.sub(r"<actuator>.*</actuator>", "", xml))  # (motors of gear 1: ctrl = τ, given)
    rng = np.random.default_rng(1)
    q, v = mb.normalize(model, rng.normal(size=model.nq)), rng.normal(size=model.nv)
    tau = np.r_[rng.normal(size=m.nu), np.zeros(model.nv - m.nu)]
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:], d.ctrl[:] = q, v, tau[:m.nu]
    return m, d, model, q, v, tau


def test_semi_implicit_euler_transition_matches_mujocos_mjd_transitionfd_with_a_ball_joint():
    m, d, model, q, v, tau = _twins("Euler", "ball")
    A, B = np.zeros((2 * m.nv, 2 * m.nv)), np.zeros((2 * m.nv, m.nu))
    mujoco.mjd_transitionFD(m, d, 1e-6, 1, A, B, None, None)
    ours_A, ours_B = mb.transition_derivatives(model, q, v, tau, dt=0.01, method="Euler")
    np.testing.assert_allclose(ours_A, A, rtol=0, atol=1e-8)  # MuJoCo's central differences: ~1e-10
    np.testing.assert_allclose(ours_B[:, :m.nu], B, rtol=0, atol=1e-8)


def test_rk4_transition_matches_differences_of_mujocos_rk4_step():
    m, d, model, q, v, tau = _twins("RK4", "hinge")
    x, h = np.concatenate([q, v, tau]), 1e-5

    def step(y):  # (qpos, qvel, ctrl) -> (qpos⁺, qvel⁺) by MuJoCo's RK4 (hinges: q is its own tangent)
        d.qpos[:], d.qvel[:], d.ctrl[:] = y[:3], y[3:6], y[6:]
        d.time = 0.0
        mujoco.mj_step(m, d)
        return np.concatenate([d.qpos, d.qvel])

    J = np.stack([(step(x + h * e) - step(x - h * e)) / (2 * h) for e in np.eye(9)], axis=1)
    ours_A, ours_B = mb.transition_derivatives(model, q, v, tau, dt=0.01, method="RK4")
    np.testing.assert_allclose(ours_A, J[:, :6], rtol=0, atol=1e-8)
    np.testing.assert_allclose(ours_B, J[:, 6:], rtol=0, atol=1e-8)


@pytest.mark.parametrize("method", ["Euler", "RK4"])
def test_transition_of_a_tree_with_force_elements_matches_differences_of_the_step(method):
    from multibody.simulate.fixed_step import euler_step, rk4_step
    from multibody.simulate.forces import elements_force
    rng = np.random.default_rng(5)
    kinds = ("revolute", "prismatic", "cylindrical", "fixed") if method == "RK4" else \
        ("revolute", "prismatic", "spherical", "cylindrical", "planar", "fixed")
    model = random_model(rng, 5, kinds=kinds, free_base=method == "Euler")
    one_dof = [j.name for j in model.joints if j.code in (0, 1)]  # revolute, prismatic
    model.add_force(mb.JointSpring(one_dof[0], stiffness=3.0, rest=0.2, damping=0.4))
    model.add_force(mb.JointFriction(one_dof[-1], friction=0.5, velocity_scale=0.3))
    q, v, _ = random_state(rng, model)
    tau, dt, nq, nv = rng.normal(size=model.nv), 0.02, model.nq, model.nv
    A, B = mb.transition_derivatives(model, q, v, tau, dt=dt, method=method)

    def step(dq, dv, dtau):
        def f(t, x):
            qq, vv = x[:nq], x[nq:]
            return np.concatenate([mb.configuration_rate(model, qq, vv),
                                   mb.aba(model, qq, vv, tau + dtau + elements_force(model, qq, vv))])
        x0 = np.concatenate([mb.integrate(model, q, dq), v + dv])
        x1 = np.concatenate(euler_step(model, f, 0.0, x0, dt)) if method == "Euler" else rk4_step(f, 0.0, x0, dt)
        return x1

    nominal = step(np.zeros(nv), np.zeros(nv), np.zeros(nv))
    h = 1e-6

    def difference(f, size):
        return np.stack([(f(h * e) - f(-h * e)) / (2 * h) for e in np.eye(size)], axis=1)

    # the step's Jacobian in coordinates (nq + nv rows) = [∂q⁺/∂δ⁺ (the chart of integrate at q⁺), 1] [A B]
    J = difference(lambda e: step(*np.split(e, 3)), 3 * nv)
    chart = difference(lambda d: mb.integrate(model, nominal[:nq], d), nv)
    ours = np.vstack([chart @ np.hstack([A, B])[:nv], np.hstack([A, B])[nv:]])
    np.testing.assert_allclose(ours, J, rtol=0, atol=1e-7 * (1 + np.abs(J).max()))


def test_linearize_of_a_tree_is_exact_where_its_former_central_differences_were_off():
    from oracles import PinocchioTwin
    pin = pytest.importorskip("pinocchio")
    rng = np.random.default_rng(11)
    model = random_model(rng, 6, free_base=True)
    q, v, _ = random_state(rng, model)
    v[:3] = 0.0  # the free joint not rotating (linearize warns otherwise)
    tau, nv = rng.normal(size=model.nv), model.nv
    A, B = mb.linearize(model, q, v, tau)
    twin = PinocchioTwin(model)
    pin.computeABADerivatives(twin.pm, twin.data, twin.q(q), twin.v(v), twin.v(tau))
    reference = np.empty((nv, nv))
    reference[np.ix_(twin.v_perm, twin.v_perm)] = twin.data.ddq_dq

    def accel(dq):
        return mb.aba(model, mb.integrate(model, q, dq), v, tau)

    # what linearize computed before: central differences of step 1e-6
    differences = np.stack([(accel(e) - accel(-e)) / 2e-6 for e in np.eye(nv) * 1e-6], axis=1)
    scale = np.abs(reference).max()
    assert np.abs(A[nv:, :nv] - reference).max() < 1e-12 * scale
    assert np.abs(differences - reference).max() > 1e-10 * scale  # round-off of the differences, ~1e-16 / 1e-6
    np.testing.assert_allclose(B[nv:] @ mb.crba(model, q), np.eye(nv), rtol=0, atol=1e-10)


def test_a_point_to_point_spring_is_differenced_and_says_so():
    model = mb.Model.chain(2)
    model.add_force(mb.Spring("world", [0.3, 0.0, 0.2], model.bodies[1].name, [0.1, 0.0, 0.0], stiffness=40.0,
                              rest_length=0.1, damping=2.0))
    q, v = np.array([0.3, -0.5]), np.array([0.2, 0.4])
    with pytest.warns(RuntimeWarning, match=r"\['spring world-.*'\] are differentiated by central differences"):
        A, _ = mb.linearize(model, q, v)
    from multibody.simulate.forces import elements_force

    def accel(x):
        return mb.aba(model, x[:2], x[2:], elements_force(model, x[:2], x[2:]))

    x = np.r_[q, v]
    reference = np.stack([(accel(x + e) - accel(x - e)) / 2e-6 for e in np.eye(4) * 1e-6], axis=1)
    np.testing.assert_allclose(A[2:], reference, rtol=0, atol=1e-6)
