"""mb.linearize on the constraint manifold: minimal coordinates for loops (holonomic) and rolling
(nonholonomic), checked against a hand-written reduced model, a small-amplitude simulation, the analytic
wobble of the upright rolling disk and the symbolic Kane equations."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from mechanisms import G, four_bar, hanging_four_bar


def test_four_bar_has_one_mode_at_the_reduced_models_frequency():
    model = four_bar()
    theta, omega2, q = hanging_four_bar()
    assert omega2 > 0 and mb.constraints.assembly.constraint_drift(model, q, np.zeros(3))[0] < 1e-12
    A, B, N_h, N = mb.linearize(model, q, bases=True)
    assert A.shape == (2, 2) and B.shape == (2, 3) and N_h.shape == N.shape == (3, 1)
    eig = np.linalg.eigvals(A)
    np.testing.assert_allclose(eig.real, 0.0, atol=1e-6)
    np.testing.assert_allclose(np.abs(eig.imag), np.sqrt(omega2), rtol=1e-6)


def test_four_bar_frequency_matches_a_small_amplitude_simulation():
    model = four_bar()
    _, _, q_rest = hanging_four_bar()
    A, _, N_h, N = mb.linearize(model, q_rest, bases=True)
    omega = np.abs(np.linalg.eigvals(A).imag).max()
    # a small push along the mode (the one free speed) and the time between upward zero crossings of the crank rate
    v0 = mb.constraints.assemble_velocities(model, q_rest, 1e-4 * N[:, 0])
    events = mb.Event(lambda t, q, v: v[0], name="up", direction=1.0)
    traj = mb.simulate(model, q_rest, v0, t_end=6 * 2 * np.pi / omega, events=[events], rtol=1e-11, atol=1e-13)
    crossings = np.array([t for _, t in traj.events])
    period = np.diff(crossings).mean()
    assert len(crossings) >= 5 and period == pytest.approx(2 * np.pi / omega, rel=1e-6)


def rolling_disk_chain(m=1.0, r=0.5):
    """A thin uniform disk (A = m r²/4 about a diameter, C = m r²/2 about the axle) rolling on z = 0, with the
    textbook's coordinates as joints: contact point (x, y), yaw about z, lean about the heading x, spin about
    the axle; q = 0 is upright, heading +x, the axle along world y."""
    massless = dict(mass=0.0, inertia=np.zeros((3, 3)))
    model = mb.Model("disk", gravity=(0, 0, -G))
    model.add(mb.Body("cx", **massless), joint=mb.Prismatic((1, 0, 0), name="x"))
    model.add(mb.Body("cy", **massless), parent="cx", joint=mb.Prismatic((0, 1, 0), name="y"))
    model.add(mb.Body("heading", **massless), parent="cy", joint=mb.Revolute((0, 0, 1), name="yaw"))
    model.add(mb.Body("leaning", **massless), parent="heading", joint=mb.Revolute((1, 0, 0), name="lean"))
    axle_along_y = mb.Transform(mb.rotation_about((1, 0, 0), -np.pi / 2), translation=(0, 0, r))
    model.add(mb.Body("disk", mass=m, inertia=np.diag([m * r**2 / 4, m * r**2 / 4, m * r**2 / 2])), parent="leaning",
              joint=mb.Revolute((0, 0, 1), name="spin"), placement=axle_along_y)
    model.add_constraint(mb.RollingDisk("disk", r, axis=(0, 0, 1)))
    return model


def disk_wobble(spin, r=0.5):
    """The upright thin disk's wobble frequency: the linearized lean and yaw equations (rolling, spin rate Ω)
    (A + m r²) θ̈ = m g r θ − (C + m r²) Ω ψ̇ and A ψ̈ = C Ω θ̇ give ω² = ((C + m r²) C Ω²/A − m g r)/(A + m r²)
    = (4/5)(3Ω² − g/r): stable iff Ω² > g/(3r) (Kane & Levinson; tests/symbolic/test_kane.py)."""
    return np.sqrt(0.8 * (3 * spin**2 - G / r))


def test_upright_rolling_disk_wobbles_at_the_analytic_frequency():
    r = 0.5
    critical = np.sqrt(G / (3 * r))
    model = rolling_disk_chain(r=r)
    from multibody.constraints.assembly import mobility
    assert mobility(model, np.zeros(5))["dof"] == 3 and mobility(model, np.zeros(5))["configuration_dof"] == 5
    for factor in (1.5, 2.0, 0.8):
        spin = factor * critical
        v = np.array([r * spin, 0, 0, 0, spin])  # rolling forward along +x
        A, B = mb.linearize(model, np.zeros(5), v)
        assert A.shape == (8, 8) and B.shape == (8, 5)  # 5 coordinates, 3 independent speeds
        eig = np.linalg.eigvals(A)
        if factor > 1:
            np.testing.assert_allclose(eig.real, 0.0, atol=1e-6)
            wobble = np.sort(np.abs(eig.imag))[-1]
            assert wobble == pytest.approx(disk_wobble(spin, r), rel=1e-7)
            assert np.sum(np.abs(eig) > 1e-6) == 2  # the rest are the cyclic coordinates and speeds
        else:  # below the critical speed the disk falls over: λ = ±√(−ω²)
            growth = eig.real.max()
            assert growth == pytest.approx(np.sqrt(-0.8 * (3 * spin**2 - G / r)), rel=1e-7)
    # the wobble at 1.5 times the critical speed: ±4.429i
    A, _ = mb.linearize(model, np.zeros(5), np.array([r * 1.5 * critical, 0, 0, 0, 1.5 * critical]))
    assert np.abs(np.linalg.eigvals(A).imag).max() == pytest.approx(4.4294469, abs=1e-6)


def test_upright_rolling_disk_matches_the_symbolic_kane_linearization():
    pytest.importorskip("sympy")
    sys.path.insert(0, str(Path(__file__).parents[1] / "symbolic"))
    try:
        from test_kane import rolling_disk
        from multibody import symbolic as sym
    finally:
        sys.path.pop(0)
    d = rolling_disk()
    eom = sym.kane(d["N"], d["q"], d["u"], d["kd"], [d["disk"]], d["loads"], dependent_speeds=d["u"][3:],
                   velocity_constraints=d["constraints"])
    m, r, g = d["symbols"]
    values = {m: 1.0, r: 0.5, g: G}
    spin = 1.5 * np.sqrt(G / (3 * 0.5))
    point = {**dict(zip(eom.q, [0] * 5)), **dict(zip(eom.u, [0, spin, 0])), **values}
    A_sym, _ = eom.linearize(point)
    expected = np.linalg.eigvals(np.array(A_sym.xreplace(values), dtype=float))
    A, _ = mb.linearize(rolling_disk_chain(), np.zeros(5), np.array([0.5 * spin, 0, 0, 0, spin]))
    np.testing.assert_allclose(np.sort(np.abs(np.linalg.eigvals(A).imag))[-2:],
                               np.sort(np.abs(expected.imag))[-2:], rtol=1e-7)


def test_linearize_refuses_states_off_the_constraint_manifold():
    model = four_bar()
    with pytest.raises(ValueError, match="inconsistent initial positions"):
        mb.linearize(model, np.array([1.0, -0.5, 1.8]))


def test_a_spinning_free_joint_is_flagged_not_silently_linearized():
    """The same disk on a free joint: its body-axis coordinates spin with it, and the eigenvalues of A are not the
    wobble's (the free body's ±iΩ before; others now) -- linearize warns rather than answer silently."""
    r, spin = 0.5, 1.5 * np.sqrt(G / 1.5)
    model = mb.Model("disk", gravity=(0, 0, -G))
    model.add(mb.Body("disk", mass=1.0, inertia=np.diag([r**2 / 4, r**2 / 4, r**2 / 2])), joint=mb.Free())
    model.add_constraint(mb.RollingDisk("disk", r, axis=(0, 0, 1)))
    q = np.array([0, 0, r, *mb.rotation_to_quat(mb.rotation_about((1, 0, 0), -np.pi / 2))])
    with pytest.warns(RuntimeWarning, match="free joint .* rotates at 3.836 rad/s"):
        A, _ = mb.linearize(model, q, np.array([0, 0, spin, r * spin, 0, 0]))
    assert A.shape == (8, 8)  # 5 coordinates (the height is fixed), 3 speeds
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mb.linearize(model, q)  # at rest: no warning
