"""Beam on a rigid hub: conservation with a free hub, prescribed/free consistency, and the Kane–Ryan–Banerjee
spin-up (short version; examples/spinup_beam.py runs the full manoeuvre and plots it)."""
import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp

from multibody import ModelError
from multibody.flexible import (Beam, discretize, free_hub_accelerations, hub_momentum_and_energy,
                                kane_ryan_banerjee_beam, prescribed_hub_accelerations, simulate_spin_up,
                                spin_up_profile)

HUB = discretize(Beam(1.0, 1.0, EA=200.0, EIv=1.0, root=0.3), elements=2, components="uv", modes=2)


def test_spin_up_profile_is_smooth_and_consistent():
    Ts, Ws = 15.0, 6.0
    angle, rate, accel = spin_up_profile(Ts, Ws, Ts)
    assert rate == Ws and accel == 0.0
    before = spin_up_profile(Ts - 1e-9, Ws, Ts)
    np.testing.assert_allclose(before, (angle, rate, accel), atol=1e-7)
    np.testing.assert_allclose(quad(lambda t: spin_up_profile(t, Ws, Ts)[2], 0, 7.0)[0], spin_up_profile(7.0, Ws, Ts)[1])
    np.testing.assert_allclose(quad(lambda t: spin_up_profile(t, Ws, Ts)[1], 0, 7.0)[0], spin_up_profile(7.0, Ws, Ts)[0])
    with pytest.raises(ModelError, match="duration"):
        spin_up_profile(1.0, Ws, 0.0)


def test_free_hub_conserves_angular_momentum_and_energy():
    """Full rigid–elastic coupling: a free hub and its vibrating beam exchange angular momentum exactly."""
    n, hub_inertia = HUB.n, 0.05

    def rhs(t, y):
        rate_dot, e_ddot = free_hub_accelerations(HUB, hub_inertia, y[0], y[1:n + 1], y[n + 1:])
        return np.r_[rate_dot, y[n + 1:], e_ddot]

    y0 = np.r_[2.0, 0.01 * np.ones(n), 0.1 * np.ones(n)]
    sol = solve_ivp(rhs, (0.0, 1.0), y0, method="DOP853", rtol=1e-10, atol=1e-12)
    H0, E0 = hub_momentum_and_energy(HUB, hub_inertia, y0[0], y0[1:n + 1], y0[n + 1:])
    H1, E1 = hub_momentum_and_energy(HUB, hub_inertia, sol.y[0, -1], sol.y[1:n + 1, -1], sol.y[n + 1:, -1])
    assert abs(H1 - H0) < 1e-8 * abs(H0) and abs(E1 - E0) < 1e-8 * E0
    assert abs(sol.y[0, -1] - y0[0]) > 1e-3  # the hub rate did change


def test_prescribed_hub_torque_reproduces_the_motion_when_the_hub_is_free():
    e, e_dot = 0.02 * np.arange(HUB.n), -0.05 * np.ones(HUB.n)
    e_ddot, torque = prescribed_hub_accelerations(HUB, 1.5, 0.7, e, e_dot)
    rate_dot, e_ddot_free = free_hub_accelerations(HUB, 0.0, 1.5, e, e_dot, torque=torque)
    np.testing.assert_allclose(rate_dot, 0.7, rtol=1e-10)
    np.testing.assert_allclose(e_ddot_free, e_ddot, rtol=1e-9, atol=1e-12)


@pytest.fixture(scope="module")
def krb():
    return discretize(kane_ryan_banerjee_beam(), elements=6, components="uv", modes=2)


def test_spin_up_with_geometric_stiffening_stays_bounded(krb):
    """Kane, Ryan & Banerjee (1987), Ωs = 6 rad/s, Ts = 15 s, first 8 s: the in-plane tip deflection peaks near
    −2.2 m (≈ 22 % of L) around t ≈ 6 s and recovers as the centrifugal tension stiffens the beam."""
    result = simulate_spin_up(krb, final_rate=6.0, duration=15.0, t_end=8.0, stiffening=True, samples=81)
    assert result.diverged_at is None
    tip = result.tip[:, 1]
    assert -2.5 < tip.min() < -1.9 and 5.0 < result.t[np.argmin(tip)] < 7.0
    assert tip[-1] > 0.8 * tip.min()  # recovering


def test_spin_up_without_geometric_stiffening_diverges(krb):
    """Linear floating-frame theory: once Ω exceeds the first in-plane frequency (0.59 rad/s) the in-plane
    stiffness K − Ω²M turns negative and the tip runs away (here past the beam length)."""
    result = simulate_spin_up(krb, final_rate=6.0, duration=15.0, t_end=8.0, stiffening=False, samples=81)
    assert result.diverged_at is not None and 5.0 < result.diverged_at < 8.0


def test_spinup_example_writes_its_plot(tmp_path):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parents[2] / "examples" / "spinup_beam.py"
    spec = importlib.util.spec_from_file_location("spinup_beam", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    stiffened, linear = example.main(str(tmp_path / "spinup.png"), t_end=7.0)
    assert (tmp_path / "spinup.png").stat().st_size > 10_000
    assert stiffened.diverged_at is None and linear.diverged_at is not None
