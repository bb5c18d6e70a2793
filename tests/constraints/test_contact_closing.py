"""The contact stepper gives a contact an impulse only in the step in which it closes: a ball falling from just
above a plane moves exactly as in free fall until the step that reaches the plane, even when another body of the
model moves fast enough to widen the contact search far beyond the ball's reach."""
import numpy as np
import pytest

import multibody as mb
from multibody.constraints.integrate import contact_step

G = 9.81
RADIUS, GAP, SPEED, DT = 0.1, 3.0e-3, 0.24, 5e-3  # 3 mm above the plane at 0.24 m/s: ~1.4 mm per 5 ms step


def _ball_and_spinner(restitution):
    """A ball over the plane z = 0 and, 5 m away, a sphere spinning at 50 rad/s (10 m/s at its surface: the search
    radius of the step is then 5 cm), both free bodies."""
    model = mb.Model("drop", gravity=(0, 0, -G))
    for name, radius in (("ball", RADIUS), ("spinner", 0.2)):
        model.add(mb.Body(name, mass=1.0, inertia=np.eye(3) * 0.4 * radius**2), joint=mb.Free())
        model.add_geometry(name, mb.Sphere(radius), restitution=restitution, friction=0.5)
    model.add_geometry("world", mb.Plane(), restitution=restitution, friction=0.5)
    q = np.concatenate([[0, 0, RADIUS + GAP, 1, 0, 0, 0], [5, 0, 1, 1, 0, 0, 0]])
    v = np.zeros(12)
    v[5], v[8] = -SPEED, 50.0  # the ball's vz; the spinner's ω_z
    return model, q, v


@pytest.mark.parametrize("e", [0.0, 0.5])
def test_no_impulse_before_the_step_in_which_the_ball_reaches_the_plane(e):
    """Step by step: the ball's velocity gains exactly h g (no impulse, to 1e-12 m/s) in every step before the
    first one whose free motion reaches the plane (from the gap and speed: the 2nd step here); in that step it
    gets its impulse, and ends it on the plane (e = 0, to 1e-12 m) or leaves at e times its arrival speed
    (e = 0.5)."""
    model, q, v = _ball_and_spinner(e)
    gap, vz, reached = GAP, -SPEED, None
    for step in range(4):
        if reached is None and gap + DT * (vz - DT * G) <= 0:
            reached = step
        q_new, v_new = contact_step(model, q, v, DT, np.zeros(12))
        impulse = v_new[3:6] - v[3:6] - DT * np.array([0, 0, -G])
        if reached is None:
            np.testing.assert_allclose(impulse, 0.0, rtol=0, atol=1e-12)
            gap, vz = gap + DT * v_new[5], v_new[5]
            np.testing.assert_allclose(q_new[2] - RADIUS, gap, rtol=0, atol=1e-12)
        elif step == reached:
            assert impulse[2] > 0.01
            if e == 0:
                assert q_new[2] - RADIUS == pytest.approx(0.0, abs=1e-12)
            else:
                assert v_new[5] == pytest.approx(-e * v[5], rel=1e-8)  # (the LCP's 1e-10 regularization)
        q, v = q_new, v_new
    assert reached == 1
