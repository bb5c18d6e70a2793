"""Fixed-tendon limits (MJCF ``<tendon><fixed limited="true" range="...">``, :class:`multibody.TendonLimit`): their
linear rows, their reading from MJCF as MuJoCo reads them, and their enforcement by the contact time stepper (the
same LCP as the contacts and joint limits) and by the event-driven methods (impact events, resting bounds), against
MuJoCo's ``mj_step`` and against each other."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.constraints.limits import bound_arrays, enforced_limits, limit_sides
from multibody.io import model_from_dict, model_to_dict

mujoco = pytest.importorskip("mujoco")

ARM = """
<mujoco model="tendon stop">
  <compiler angle="radian" AUTOLIMITS/>
  <option timestep="0.001" integrator="Euler"/>
  <worldbody>
    <body name="upper" pos="0 0 2">
      <joint name="shoulder" axis="0 1 0" range="-3 3"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.04" contype="0" conaffinity="0"/>
      <body name="lower" pos="0.5 0 0">
        <joint name="elbow" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="sum" LIMITED range="-0.3 0.8" SOLREF>
      <joint joint="shoulder" coef="1"/><joint joint="elbow" coef="0.5"/>
    </fixed>
  </tendon>
</mujoco>
"""
COEF, LOWER, UPPER, DT, STEPS = np.array([1.0, 0.5]), -0.3, 0.8, 0.001, 1000


def arm(limited='limited="true"', autolimits="", solref=""):
    return ARM.replace("AUTOLIMITS", autolimits).replace("LIMITED", limited).replace("SOLREF", solref)


def load(xml):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (nothing of the file is left out: no warning)
        return mb.Model.from_mjcf(xml)


def mujoco_run(xml):
    """qpos (STEPS + 1, 2) of mj_step from qpos0."""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    qs = [d.qpos.copy()]
    for _ in range(STEPS):
        mujoco.mj_step(m, d)
        qs.append(d.qpos.copy())
    return np.array(qs)


def test_bound_rows_of_joint_and_tendon_limits():
    """bound_arrays: g = G q − offset and ġ = N v for every finite bound, joints' and tendons' alike, equal to
    each limit's sides."""
    model = load(arm())
    limits = enforced_limits(model)
    assert [type(c).__name__ for c in limits] == ["JointLimit", "TendonLimit"]
    keys, G, offset, N, restitution = bound_arrays(model, limits)
    assert [(c.target, side) for c, side in keys] == [("shoulder", "lower"), ("shoulder", "upper"),
                                                      ("tendon sum", "lower"), ("tendon sum", "upper")]
    np.testing.assert_array_equal(G, [[1, 0], [-1, 0], COEF, -COEF])
    np.testing.assert_array_equal(N, G)  # (hinges: q̇ = v)
    np.testing.assert_array_equal(offset, [-3, -3, LOWER, -UPPER])
    np.testing.assert_array_equal(restitution, np.zeros(4))
    q, v = np.array([0.7, 0.4]), np.array([-1.0, 3.0])
    sides = limit_sides(model, q, v, limits)
    np.testing.assert_allclose(G @ q - offset, [s.gap for s in sides], rtol=0, atol=1e-15)
    np.testing.assert_allclose(N @ v, [s.rate for s in sides], rtol=0, atol=1e-15)
    np.testing.assert_allclose(sides[3].gap, UPPER - COEF @ q, rtol=0, atol=1e-15)


@pytest.mark.parametrize("limited, autolimits, read", [
    ('limited="true"', "", True), ('limited="false"', "", False), ("", "", True),
    ('limited="true"', 'autolimits="false"', True), ('limited="auto"', 'autolimits="true"', True)])
def test_tendon_range_is_read_as_mujoco_reads_it(limited, autolimits, read):
    xml = arm(limited, autolimits)
    if autolimits == 'autolimits="false"':
        xml = xml.replace('range="-3 3"', 'range="-3 3" limited="true"')
    model = load(xml)
    tendon, = (e for e in model.forces if isinstance(e, mb.FixedTendon))
    m = mujoco.MjModel.from_xml_string(xml)
    assert bool(m.tendon_limited[0]) == read
    assert tendon.limits == ((LOWER, UPPER) if read else None)


def test_tendon_limit_in_the_contact_step_follows_mujoco_to_its_stop():
    """Semi-implicit Euler at MuJoCo's step: the same motion to round-off until the tendon reaches its upper
    bound; after it, multibody's stop is rigid (violation ≤ 1e-9) while MuJoCo's is a spring-damper
    (``solreflimit``): stiffened to its shortest time constant (2 dt), overdamped so that it does not throw the arm
    back, it stays within 2e-2 rad of multibody's, its penetration 5e-3 (the compliance of MuJoCo's soft
    constraint in the step of arrival)."""
    model = load(arm())
    ours = mb.simulate(model, t_end=STEPS * DT, method="contact", dt=DT)
    length = ours.q @ COEF
    assert length.max() - UPPER <= 1e-9 and LOWER - length.min() <= 1e-9
    assert length.max() > UPPER - 1e-9 and length.min() < LOWER + 1e-9  # it reaches both bounds
    soft = mujoco_run(arm())
    stiff = mujoco_run(arm(solref='solreflimit="0.002 3" solimplimit="0.99 0.9999 0.001"'))
    arrival = int(np.argmax(soft @ COEF > UPPER))
    assert 300 < arrival == int(np.argmax(length > UPPER - 1e-9))
    np.testing.assert_allclose(ours.q[:arrival], soft[:arrival], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.q, stiff, rtol=0, atol=2e-2)
    assert 1e-3 < (stiff @ COEF).max() - UPPER < 1e-2


def test_event_driven_tendon_stop_and_the_contact_step_converge_to_each_other():
    """The event-driven run (DOPRI5, an impact event per bound, the resting bound held by the LCP) keeps the tendon
    within its event tolerance of its bounds; the contact time stepper's motion tends to it at first order in dt."""
    model = load(arm())
    exact = mb.simulate(model, t_end=1.0, samples=101, rtol=1e-10, atol=1e-12)
    assert [name for name, _ in exact.events] == ["limit tendon sum upper", "limit tendon sum lower"]
    length = exact.q @ COEF
    assert length.max() - UPPER <= 1e-9 and LOWER - length.min() <= 1e-9
    errors = [np.abs(mb.simulate(model, t_end=1.0, method="contact", dt=dt, t_eval=exact.t).q - exact.q).max()
              for dt in (1e-3, 2.5e-4)]
    assert errors[0] < 1e-2 and 3.5 < errors[0] / errors[1] < 4.5
    with pytest.warns(UserWarning, match=r"joints or tendons went past .*'tendon sum' reached \d\.\d+ \(limits "
                      r"\[-0\.3, 0\.8\]\)"):
        free = mb.simulate(model, t_end=1.0, samples=101, rtol=1e-10, atol=1e-12, joint_limits=False)
    assert (free.q @ COEF).max() > UPPER + 0.1  # (the stop acts: without it the tendon goes far past)


def test_tendon_limit_as_a_constraint_saves_and_checks():
    model = load(arm(limited='limited="false"'))
    limit = model.add_constraint(mb.TendonLimit("sum", upper=0.5, restitution=0.5))
    assert (limit.lower, limit.upper) == (-np.inf, 0.5)
    again = model_from_dict(model_to_dict(model))
    copy, = again.constraints
    assert isinstance(copy, mb.TendonLimit) and (copy.tendon, copy.upper, copy.restitution) == ("sum", 0.5, 0.5)
    with pytest.raises(mb.ModelError, match=r"TendonLimit\('sum'\): tendon 'sum' has no limits"):
        model.add_constraint(mb.TendonLimit("sum"))
    with pytest.raises(mb.ModelError, match=r"has no fixed tendon 'pulley' \(fixed tendons: sum\)"):
        model.add_constraint(mb.TendonLimit("pulley", lower=0.0))
    with pytest.raises(mb.ModelError, match=r"TendonLimit on tendon 'sum': restitution must be in \[0, 1\]"):
        mb.TendonLimit("sum", lower=0.0, restitution=2.0)
    with pytest.raises(ValueError, match=r"q0 puts the length of tendon 'sum' of model 'tendon stop' at 0\.6, past"):
        mb.simulate(model, [0.6, 0.0], t_end=0.1)
