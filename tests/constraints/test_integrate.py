"""Simulation of closed loops with drift control (mb.simulate's fixed-step methods with projection, and the old
entry point multibody.simulate.simulate.run): four-bar (drift, energy, reduced model), slider-crank (closed-form
kinematics, driving torque by virtual work), rolling disk (steady rolling)."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import multibody as mb
from mechanisms import (four_bar, four_bar_reduced, four_bar_state, piston_position, slider_crank,
                        slider_crank_torque)
from multibody.simulate.simulate import run


def _reduced_crank_angle(theta0, rate0, times):
    sol = solve_ivp(lambda t, x: [x[1], four_bar_reduced(x[0], x[1])], (0, times[-1]), [theta0, rate0],
                    method="DOP853", t_eval=times, rtol=1e-12, atol=1e-12)
    return sol.y[0]


def test_four_bar_follows_reduced_model():
    model = four_bar()
    q, v = four_bar_state(model)
    traj = mb.simulate(model, q, v, 1.0, method="RK4", dt=4e-3)
    np.testing.assert_allclose(traj.q[:, 0], _reduced_crank_angle(q[0], v[0], traj.t), atol=2e-6)  # RK4 error
    assert len(traj) == 251 and traj.drift[:, 0].max() < 1e-7  # every step, the drift before its projection
    assert traj.constraint_errors().max() < 1e-10  # after it


@pytest.mark.slow
def test_four_bar_ten_seconds():
    """10 s under gravity: loop closure < 1e-8 on the trajectory (projection), relative energy drift < 1e-6,
    crank angle close to the reduced model (RK4 phase error; measured 7e-5 rad at dt = 2.5 ms)."""
    model = four_bar()
    q, v = four_bar_state(model)
    traj = mb.simulate(model, q, v, 10.0, method="RK4", dt=3e-3)
    closure = max(np.abs(mb.body_pose(model, qq, "coupler")[1] + mb.body_pose(model, qq, "coupler")[0] @ (0.8, 0, 0)
                         - mb.body_pose(model, qq, "rocker")[1] - mb.body_pose(model, qq, "rocker")[0] @ (0.6, 0, 0)
                         ).max() for qq in traj.q)
    assert closure < 1e-8
    assert traj.drift[:, 0].max() < 1e-7  # per step, before projection
    E = traj.energy()
    assert np.abs(E - E[0]).max() / np.abs(E[0]) < 1e-6
    np.testing.assert_allclose(traj.q[:, 0], _reduced_crank_angle(q[0], v[0], traj.t), atol=5e-4)


@pytest.mark.parametrize("method, dt, order, energy", [("RK4", 4e-3, 4, 2e-9), ("Euler", 1e-3, 1, 1e-3)])
def test_four_bar_fixed_steps_with_projection_converge_on_the_manifold(method, dt, order, energy):
    """0.5 s at dt and dt/2: the crank angle converges to the reduced model at the scheme's order, the samples are
    on the manifold (< 1e-10 after projection), and the energy drifts at most by the scheme's error (relative)."""
    model = four_bar()
    q, v = four_bar_state(model)
    errors = []
    for h in (dt, dt / 2):
        traj = mb.simulate(model, q, v, 0.5, method=method, dt=h, samples=11)
        errors.append(np.abs(traj.q[:, 0] - _reduced_crank_angle(q[0], v[0], traj.t)).max())
        assert traj.constraint_errors().max() < 1e-10
        assert 0 < traj.drift[1:].min() and traj.drift.max() < 1e-4  # the steps' drift before projection
        E = traj.energy()
        assert np.abs(E - E[0]).max() < energy * np.abs(E[0]) * (h / dt) ** order
    assert 0.8 * order < np.log2(errors[0] / errors[1]) < 1.25 * order


def test_drift_survives_save_and_load_bit_for_bit(tmp_path):
    model = four_bar()
    q, v = four_bar_state(model)
    traj = mb.simulate(model, q, v, 0.2, method="RK4", dt=1e-2)
    assert traj.drift.shape == (21, 2) and traj.drift[1:].min() > 0
    loaded = mb.Trajectory.load(traj.save(tmp_path / "four_bar.npz"))
    assert loaded.drift.dtype == traj.drift.dtype and loaded.drift.tobytes() == traj.drift.tobytes()
    assert not np.array_equal(loaded.drift, loaded.constraint_errors())  # the drift before projection, kept


def test_baumgarte_alone_keeps_the_loop_closed():
    """Without projection, Baumgarte terms hold the drift small where plain integration drifts more."""
    model = four_bar()
    q, v = four_bar_state(model)
    plain = mb.simulate(model, q, v, 1.0, method="RK4", dt=1e-2, projection=False)
    stabilized = mb.simulate(model, q, v, 1.0, method="RK4", dt=1e-2, projection=False, stabilization=(10.0, 10.0))
    assert stabilized.drift[:, 0].max() < 1e-5
    assert stabilized.drift[:, 0].max() < 0.2 * plain.drift[:, 0].max()
    np.testing.assert_array_equal(plain.drift, plain.constraint_errors())  # without projection: the samples' own


def test_slider_crank_kinematics_and_driving_torque():
    speed = 4.0
    model = slider_crank(speed)
    q, v = mb.assemble(model, np.array([0.3, -0.3, 0.75]), np.array([speed, 0, 0]))
    traj = run(model, q, v, 0.5, 5e-3)  # the old entry point: simulate(method="RK4", dt=5e-3)
    assert np.array_equal(traj.t, 5e-3 * np.arange(101)) and traj.info["method"] == "RK4"
    np.testing.assert_allclose(traj.q[:, 0], q[0] + speed * traj.t, atol=1e-9)
    np.testing.assert_allclose(traj.q[:, 2], piston_position(traj.q[:, 0]), atol=1e-9)
    torque = slider_crank_torque(speed)
    for qq, vv in zip(traj.q[::10], traj.v[::10]):
        drive = mb.constraint_forces(model, qq, vv).multipliers[1][0]
        assert drive == pytest.approx(torque(qq[0]), rel=1e-7, abs=1e-7)


def _steady_rolling_disk(m=1.0, r=0.5, lean=0.3, rho=1.0, g=9.81):
    """A thin disk rolling steadily on a circle, leaning by ``lean`` into the turn, its centre circling a vertical
    axis at horizontal distance ``rho``. With k = (sin α, 0, cos α) (contact → centre), axis n = (cos α, 0, −sin α),
    ω = Ω z + s n: rolling gives s = Ω sin α + ρΩ/r, and the moment balance about the centre,
    Ω ẑ × L = (P − c) × F with F = m Ω² ρ x̂ + m g ẑ, gives Ω² = r m g sin α / (cos α (A sin α + C ρ/r + m r ρ))."""
    A, C = m * r**2 / 4, m * r**2 / 2
    Omega = np.sqrt(r * m * g * np.sin(lean) / (np.cos(lean) * (A * np.sin(lean) + C * rho / r + m * r * rho)))
    spin = Omega * np.sin(lean) + rho * Omega / r
    k = np.array([np.sin(lean), 0, np.cos(lean)])
    n = np.array([np.cos(lean), 0, -np.sin(lean)])
    R = np.column_stack([k, [0, -1, 0], n])
    model = mb.Model("disk", gravity=(0, 0, -g))
    model.add(mb.Body("disk", mass=m, inertia=np.diag([A, A, C])), joint=mb.Free())
    model.add_constraint(mb.RollingDisk("disk", r, axis=(0, 0, 1)))
    q = np.array([*(r * k), *mb.rotation_to_quat(R)])
    w = Omega * np.array([0, 0, 1.0]) + spin * n
    v = np.concatenate([R.T @ w, R.T @ (-rho * Omega * np.array([0, 1.0, 0]))])
    return model, q, v, Omega


def test_rolling_disk_steady_circle():
    """The analytic steady state stays steady (lean, centre height and speed, precession), the contact point
    does not slip, and the energy is conserved."""
    model, q, v, Omega = _steady_rolling_disk()
    traj = mb.simulate(model, q, v, 2.0, method="RK4", dt=5e-3)
    lean = np.array([np.arcsin(-mb.body_pose(model, qq, "disk")[0][2, 2]) for qq in traj.q])
    np.testing.assert_allclose(lean, 0.3, atol=1e-6)
    np.testing.assert_allclose(traj.q[:, 2], traj.q[0, 2], atol=1e-6)
    speed = np.linalg.norm(traj.v[:, 3:], axis=1)
    np.testing.assert_allclose(speed, speed[0], rtol=1e-6)
    heading = np.unwrap([np.arctan2(*mb.body_pose(model, qq, "disk")[0][:2, 2][::-1]) for qq in traj.q])
    np.testing.assert_allclose(heading - heading[0], Omega * traj.t, atol=1e-5)
    assert traj.drift[:, 1].max() < 1e-8  # contact point velocity before each projection
    E = traj.energy()
    assert np.abs(E - E[0]).max() < 1e-7 * np.abs(E).max()
