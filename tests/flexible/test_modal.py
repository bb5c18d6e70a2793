"""Natural frequencies of clamped, free and rotating beams against exact and published values."""
import numpy as np
import pytest

from multibody.flexible import (Beam, centrifugal_stiffness, discretize, euler_bernoulli_frequencies,
                                natural_frequencies, rotating_eigenvalues)

UNIT = Beam(length=1.0, mass_per_length=1.0, EA=1e6, EIv=1.0, EIw=4.0)


@pytest.mark.parametrize("modes", [None, 3])
def test_clamped_free_bending_frequencies_match_euler_bernoulli(modes):
    fb = discretize(UNIT, elements=6, components="v", modes=modes)
    beta_L = np.sqrt(natural_frequencies(fb, 3)[0])  # ω = (βL)² √(EI/ρAL⁴) with EI = ρA = L = 1
    np.testing.assert_allclose(beta_L, [1.8751, 4.6941, 7.8548], rtol=5e-3)


def test_bending_frequencies_converge_with_the_mesh():
    exact = euler_bernoulli_frequencies(UNIT, 3)
    errors = [natural_frequencies(discretize(UNIT, n, components="v"), 3)[0] / exact - 1 for n in (4, 8)]
    assert np.all(errors[1] < errors[0] / 8)  # cubic Hermite elements: frequency error O(h⁴)


def test_second_bending_plane_uses_its_own_stiffness():
    fb = discretize(UNIT, elements=8, components="w")
    np.testing.assert_allclose(natural_frequencies(fb, 3)[0], euler_bernoulli_frequencies(UNIT, 3, EI=4.0), rtol=1e-3)


def test_exact_frequency_roots():
    np.testing.assert_allclose(np.sqrt(euler_bernoulli_frequencies(UNIT, 3)), [1.87510, 4.69409, 7.85476], atol=1e-5)
    np.testing.assert_allclose(np.sqrt(euler_bernoulli_frequencies(UNIT, 3, "free")), [4.73004, 7.85320, 10.99561],
                               atol=1e-5)


def test_free_free_beam_has_rigid_modes_then_elastic_ones():
    fb = discretize(UNIT, elements=10, boundary="free", components="uv")
    omega = natural_frequencies(fb, 6)[0]
    assert np.all(omega[:3] < 1e-3)  # axial translation, lateral translation, rotation in the plane
    np.testing.assert_allclose(omega[3:5], euler_bernoulli_frequencies(UNIT, 2, "free"), rtol=2e-3)


def test_rod_modes_shift_to_sqrt_omega_squared_minus_spin_squared():
    """The proceedings "Dynamics of Multibody Systems — Theory, Computational Method and Application" (1992) eq. 14: a
    rod spinning at Ω about an axis normal to it vibrates at √(ω_i² − Ω²)."""
    fb = discretize(UNIT, elements=10, components="u")
    omega = natural_frequencies(fb, 3)[0]
    spin = 0.8 * omega[0]
    s = rotating_eigenvalues(fb, (0.0, 0.0, spin))
    np.testing.assert_allclose(s[:3].imag, np.sqrt(omega**2 - spin**2), rtol=1e-9)
    assert np.all(np.abs(s.real) < 1e-6 * np.abs(s))


def test_rod_mode_is_unstable_once_spin_exceeds_its_frequency():
    fb = discretize(UNIT, elements=10, components="u")
    omega = natural_frequencies(fb, 2)[0]
    spin = 0.5 * (omega[0] + omega[1])
    s = rotating_eigenvalues(fb, (0.0, spin, 0.0))
    growth = s[np.abs(s.imag) < 1e-9 * abs(s[0])]
    np.testing.assert_allclose(growth.real, [np.sqrt(spin**2 - omega[0] ** 2)], rtol=1e-9)
    np.testing.assert_allclose(np.sort(s.imag)[-fb.n + 1], np.sqrt(omega[1] ** 2 - spin**2), rtol=1e-9)


def test_in_plane_bending_without_stiffening_follows_the_same_law():
    """Without the centrifugal tension, in-plane bending softens exactly like the rod (eq. 14)."""
    fb = discretize(UNIT, elements=8, components="v")
    omega = natural_frequencies(fb, 2)[0]
    s = rotating_eigenvalues(fb, (0.0, 0.0, 2.0), stiffening=False)
    np.testing.assert_allclose(s[:2].imag, np.sqrt(omega**2 - 4.0), rtol=1e-9)


# Flapwise (out-of-plane) frequencies ω/√(EI/ρAL⁴) of a uniform cantilever with zero hub radius at rotation
# speed λ = Ω/√(EI/ρAL⁴), as tabulated by Wright, Smith, Thresher & Wang (J. Appl. Mech. 49:197–202, 1982,
# Table 1) and Hodges & Rutkowski (AIAA J. 19(11):1459–1466, 1981).
PUBLISHED = {0: (3.5160, 22.0345, 61.6972), 1: (3.6816, 22.1810, 61.8418), 2: (4.1373, 22.6149, 62.2732),
             3: (4.7973, 23.3203, 62.9850), 4: (5.5850, 24.2734, 63.9668), 6: (7.3604, 26.8091, 66.6840),
             8: (9.2568, 29.9954, 70.2930), 10: (11.2023, 33.6404, 74.6493), 12: (13.1702, 37.6031, 79.6145)}


@pytest.mark.parametrize("spin", sorted(PUBLISHED))
def test_rotating_cantilever_flapwise_frequencies_match_published_table(spin):
    fb = discretize(UNIT, elements=12, components="w")
    s = rotating_eigenvalues(fb, (0.0, 0.0, 2.0 * spin))  # EIw = 4: the reference rate √(EI/ρAL⁴) is 2 rad/s
    np.testing.assert_allclose(s[:3].imag / 2.0, PUBLISHED[spin], rtol=2e-4)


def test_chordwise_frequency_is_flapwise_softened_by_spin():
    """In the plane of rotation the first frequency obeys ω_c² ≈ ω_f² − Ω² (Southwell, with Coriolis coupling
    to the stiff axial motion negligible)."""
    fb = discretize(Beam(1.0, 1.0, EA=1e6, EIv=1.0), elements=10, components="uvw")
    s = rotating_eigenvalues(fb, (0.0, 0.0, 6.0))
    flap, chord = s.imag[1], s.imag[0]
    np.testing.assert_allclose(flap, PUBLISHED[6][0], rtol=2e-4)
    np.testing.assert_allclose(chord, np.sqrt(PUBLISHED[6][0] ** 2 - 36.0), rtol=1e-3)


def test_centrifugal_stiffness_grows_with_hub_radius_and_spin_squared():
    fb0 = discretize(UNIT, elements=4, components="v")
    fb1 = discretize(Beam(1.0, 1.0, EA=1e6, EIv=1.0, root=0.5), elements=4, components="v")
    K1 = centrifugal_stiffness(fb0, (0, 0, 1.0))
    np.testing.assert_allclose(centrifugal_stiffness(fb0, (0, 0, 3.0)), 9 * K1, rtol=1e-12)
    assert np.all(np.linalg.eigvalsh(centrifugal_stiffness(fb1, (0, 0, 1.0)) - K1) > 0)
    np.testing.assert_allclose(centrifugal_stiffness(fb0, (5.0, 0, 0)), 0.0, atol=1e-12)  # spin about the beam axis
