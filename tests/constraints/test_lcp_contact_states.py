"""The contact step's LCP solved in contact coordinates from each row's state (constraints._contact_states) against
Lemke's method on the same Stewart–Trinkle pyramid LCP: a box's four corners on a floor (redundant rows) sticking,
sliding, lifting off and tipping, from Lemke's basis and from no guess; random frictional problems, whose solutions
must satisfy the full LCP; and the fallback to the LCP when the states' linear system is singular."""
import numpy as np
import pytest

from multibody.constraints._contact_states import (LCP, PASSES, SEPARATING, STATES, contact_acceleration,
                                                   guessed_states, state_forces)
from multibody.constraints._step import compliance_columns
from multibody.constraints.lcp import (BASIS_TOLERANCE, complementarity_error, pyramid_acceleration, pyramid_matrix,
                                      pyramid_rows)

CONE = np.array([[np.cos(t), np.sin(t)] for t in np.arange(8) * np.pi / 4])
TOLERANCES, PIVOTS, ACCEPTED, REGULARIZATION = np.array([1e-9, 1e-7]), 5, 1e-6, 1e-10


def box_on_floor():
    """(B, C, K) of a unit box (1 kg, inertia 1/6) resting on its four bottom corners: B the four normal rows, then
    each corner's two tangent rows, in (ṗ, ω) coordinates; C = K Bᵀ."""
    K = np.zeros((6, 6))
    K[:3, :3], K[3:, 3:] = np.eye(3), 6.0 * np.eye(3)
    corners = np.array([[x, y, -0.5] for x in (-0.5, 0.5) for y in (-0.5, 0.5)])
    rows = [np.array([np.r_[axis, np.cross(c, axis)] for c in corners]) for axis in np.eye(3)]
    B = np.vstack([rows[2], np.stack([rows[0], rows[1]], axis=1).reshape(8, 6)])
    C = np.empty((6, 12))
    compliance_columns(K, np.empty(0), B, C)
    return B, C, K


def lemke_and_states(B, C, a_eq, nc, mu):
    """(Lemke's acceleration from no guess, its basis; the contact-state acceleration from that basis, and its path;
    the contact-state acceleration from no guess, and its path)."""
    args = (B, C, a_eq, nc, mu, np.zeros(nc), np.zeros((nc, 2)), CONE, REGULARIZATION, TOLERANCES, PIVOTS, ACCEPTED)
    lemke, basis = np.empty(6), np.zeros((nc, 10), dtype=bool)
    assert pyramid_acceleration(*args, basis, lemke)
    warm, cold = np.empty(6), np.empty(6)
    warm_path = contact_acceleration(*args, basis.copy(), warm)
    cold_path = contact_acceleration(*args, np.zeros((nc, 10), dtype=bool), cold)
    return lemke, basis, warm, warm_path, cold, cold_path


@pytest.mark.parametrize("push, moment, expected", [
    ((2.0, 0.0, -9.81), (0.0, 0.0, 0.0), "sticking"),     # 2 N < μ m g: it stays
    ((8.0, 0.5, -9.81), (0.0, 0.0, 0.0), "sliding"),      # |push| > μ m g: it slides, friction along edge 4 (−x)
    ((8.0, 3.0, -9.81), (0.0, 0.0, 0.0), "face"),         # friction on the face of edges 4 and 5, slip at 22.5°
    ((1.0, 0.0, 4.0), (0.0, 0.0, 0.0), "separating"),     # pulled up: every corner lifts off
    ((0.0, 0.0, -9.81), (0.0, 9.0, 0.0), "tipping"),      # a moment about y: two corners lift, two stick or slide
    ((3.0, -1.0, -9.81), (1.0, 0.5, 2.0), "mixed"),       # a push and a twist
])
def test_box_corners_by_states_equal_lemke(push, moment, expected):
    """On the box's 4 corners (12 rows of rank 6 with friction 0.5): the acceleration solved in contact coordinates,
    from Lemke's basis and from no guess, equals Lemke's to 1e-8 (the regularization's order, 1e-9 of g), by the
    contact-state path."""
    B, C, _ = box_on_floor()
    a_eq, mu = np.r_[push, moment], np.full(4, 0.5)
    lemke, basis, warm, warm_path, cold, cold_path = lemke_and_states(B, C, a_eq, 4, mu)
    assert warm_path == STATES and cold_path == STATES
    np.testing.assert_allclose(warm, lemke, rtol=0, atol=1e-8)  # (1e-9 of g: the regularization's order)
    np.testing.assert_allclose(cold, lemke, rtol=0, atol=1e-8)
    if expected == "sticking":
        np.testing.assert_allclose(lemke, 0.0, atol=1e-8)
    elif expected == "sliding":
        np.testing.assert_allclose(lemke[:3], [8.0 - 0.5 * 9.81, 0.5, 0.0], rtol=0, atol=1e-8)
    elif expected == "face":  # the slip across the face's bisector, (cone_4 − cone_5) · a_t = 0
        assert lemke[0] > 0 and abs((CONE[4] - CONE[5]) @ lemke[:2]) < 1e-8
    elif expected == "separating":
        np.testing.assert_allclose(lemke, a_eq, rtol=0, atol=1e-12)


def lcp_solution(W, r, w, state, nc, slot, mu):
    """z of the pyramid LCP from contact-coordinate forces w and states: normal forces, a sticking (or face-sliding)
    row's friction split onto the two edges around it, an edge-sliding row's μ λ on its edge, a sliding row's speed
    −cone_k · u_t, a separating row's the least that keeps its edges' rows ≥ 0."""
    ns = int((slot >= 0).sum())
    m = nc + 8 * ns
    z, u = np.zeros(m + ns), W @ w + r
    z[:nc] = np.maximum(w[:nc], 0.0)
    for i in range(nc):
        t = slot[i]
        if t < 0:
            continue
        s = (t - nc) // 2
        if state[i] == SEPARATING:  # any sliding speed with every edge's row ≥ 0
            z[m + s] = max(0.0, (-CONE @ u[t:t + 2]).max())
            continue
        f = w[t:t + 2]
        if 0 <= state[i] < 8:
            z[nc + 8 * s + state[i]] = mu[i] * w[i]
        if state[i] >= 0:
            z[m + s] = max(-CONE[state[i] % 8] @ u[t:t + 2], 0.0)
        if 0 <= state[i] < 8:
            continue
        for e in range(8):
            beta = np.linalg.solve(np.column_stack([CONE[e], CONE[(e + 1) % 8]]), f)
            if beta.min() >= -1e-12 * max(1.0, np.abs(f).max()):
                z[nc + 8 * s + e], z[nc + 8 * s + (e + 1) % 8] = max(beta[0], 0.0), max(beta[1], 0.0)
                break
    return z


def random_problem(seed):
    """(B, C, a_eq, nc, μ) of random rows: 3 or 4 frictional contacts and a frictionless bound on 14 coordinates,
    a random compliance, free motion and friction."""
    rng = np.random.default_rng(seed)
    nc, nv = 4 + seed % 2, 14
    mu = rng.uniform(0.2, 1.0, size=nc)
    mu[-1] = 0.0
    B = rng.normal(size=(nc + 2 * (nc - 1), nv))
    L = rng.normal(size=(nv, nv))
    return B, (L @ L.T / nv + np.eye(nv)) @ B.T, rng.normal(size=nv) * 3.0, nc, mu


def test_random_contacts_by_states_solve_the_pyramid_lcp():
    """On 24 random problems (:func:`random_problem`) from no guess: where the contact-state solve succeeds (at
    least half of them), its forces, put in the LCP's variables, satisfy the full pyramid LCP (z ≥ 0, w ≥ 0,
    zᵀw = 0) to 1e-9 of its scale, and contact_acceleration's acceleration equals Lemke's to 1e-9; where it fails,
    contact_acceleration falls back to the LCP, Lemke's acceleration exactly."""
    solved_by_states = 0
    for seed in range(24):
        B, C, a_eq, nc, mu = random_problem(seed)
        P, ns = B.shape[0], nc - 1
        gamma_n, gamma_t = np.zeros(nc), np.zeros((nc, 2))
        W, r, slot = np.empty((P, P)), np.empty(P), np.empty(nc, dtype=np.int64)
        pyramid_rows(B, C, a_eq, nc, mu, gamma_n, gamma_t, W, r, slot)
        state, w = np.empty(nc, dtype=np.int64), np.empty(P)
        guessed_states(np.zeros((nc, 10), dtype=bool), r, nc, slot, CONE, state)
        solved = state_forces(W, r, nc, slot, mu, CONE, 0.0, BASIS_TOLERANCE, PASSES, state, w)
        args = (B, C, a_eq, nc, mu, gamma_n, gamma_t, CONE, 0.0, TOLERANCES, PIVOTS, ACCEPTED)
        lemke, by_states = np.empty(14), np.empty(14)
        assert pyramid_acceleration(*args, np.zeros((nc, 10), dtype=bool), lemke)
        path = contact_acceleration(*args, np.zeros((nc, 10), dtype=bool), by_states)
        assert path == (STATES if solved else LCP), seed
        if not solved:
            np.testing.assert_array_equal(by_states, lemke)
            continue
        solved_by_states += 1
        owner = np.flatnonzero(slot >= 0)
        m = nc + 8 * ns
        lcp, rhs = np.empty((m + ns, m + ns)), np.zeros(m + ns)
        pyramid_matrix(W, nc, owner, mu, CONE, 0.0, lcp)
        rhs[:nc] = r[:nc]
        for s, i in enumerate(owner):
            rhs[nc + 8 * s: nc + 8 * s + 8] = CONE @ r[slot[i]:slot[i] + 2]
        z = lcp_solution(W, r, w, state, nc, slot, mu)
        assert complementarity_error(lcp, rhs, z) <= 1e-9 * max(1.0, np.abs(rhs).max()), seed
        np.testing.assert_allclose(by_states, lemke, rtol=0, atol=1e-9 * max(1.0, np.abs(lemke).max()))
    assert solved_by_states >= 12


def test_singular_states_fall_back_to_the_lcp():
    """Two identical frictionless rows without regularization (W = [[1, 1], [1, 1]]): both guessed active, the
    states' system is singular, so the LCP (Lemke's method) solves it; one unit of force in all, the rows at rest."""
    B = np.array([[1.0, 0.0], [1.0, 0.0]])
    C, a_eq = B.T.copy(), np.array([-1.0, 0.5])
    args = (B, C, a_eq, 2, np.zeros(2), np.zeros(2), np.zeros((2, 2)), CONE, 0.0, TOLERANCES, PIVOTS, ACCEPTED)
    basic, a = np.ones((2, 10), dtype=bool), np.empty(2)
    assert contact_acceleration(*args, basic, a) == LCP
    np.testing.assert_allclose(a, [0.0, 0.5], rtol=0, atol=1e-12)


def test_a_wrong_guess_is_corrected_by_state_changes():
    """The box under a sliding push, every corner guessed sliding the wrong way (friction along edge 1, with the
    push): the state changes reach Lemke's solution (friction along edge 4) in contact coordinates."""
    B, C, _ = box_on_floor()
    a_eq, mu = np.r_[8.0, 0.5, -9.81, 0.0, 0.0, 0.0], np.full(4, 0.5)
    lemke, basis, *_ = lemke_and_states(B, C, a_eq, 4, mu)
    wrong = np.zeros((4, 10), dtype=bool)
    wrong[:, 0], wrong[:, 1 + 1], wrong[:, 9] = True, True, True  # sliding with friction along edge 1 (+x +y)
    args = (B, C, a_eq, 4, mu, np.zeros(4), np.zeros((4, 2)), CONE, REGULARIZATION, TOLERANCES, PIVOTS, ACCEPTED)
    a = np.empty(6)
    assert contact_acceleration(*args, wrong, a) == STATES
    np.testing.assert_allclose(a, lemke, rtol=0, atol=1e-8)
    assert wrong[:, 9].all() and wrong[:, 1 + 4].all()  # sliding, friction along edge 4 (−x), against the push
