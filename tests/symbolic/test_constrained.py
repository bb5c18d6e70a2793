"""Every equality constraint type of a Model in its symbolic equations (Kane, Gauss, Lagrange): u̇ against the
constrained forward dynamics (mb.forward_dynamics, Gauss's principle) at random consistent states, the state
matrices of eom.linearize against mb.linearize on the constraint manifold, and the rolling disk and the
Chaplygin sleigh against sympy's KanesMethod."""
import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import KanesMethod, Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

import sys
from pathlib import Path

import multibody as mb
from multibody import ModelError
from multibody import symbolic as sym
from multibody.symbolic.jet import jacobian_at

sys.path.insert(0, str(Path(__file__).parents[1] / "constraints"))
from mechanisms import four_bar, hanging_four_bar  # noqa: E402

G = 9.81


def _massless(name):
    return mb.Body(name, mass=0.0, inertia=np.zeros((3, 3)))


def _link(name, length=1.0, mass=1.0):
    return mb.Body(name, mass=mass, com=(0.0, 0.0, -length / 2),
                   inertia=np.diag([0.09, 0.1, 0.02]) * mass)


def double_pendulum():
    """Two 1 m links swinging about y, hanging along −z at q = 0."""
    model = mb.Model("double", gravity=(0.0, 0.0, -G))
    model.add(_link("link1"), "world", mb.Revolute((0, 1, 0), name="j1"))
    model.add(_link("link2", mass=0.7), "link1", mb.Revolute((0, 1, 0), name="j2"),
              mb.Transform(translation=(0.0, 0.0, -1.0)))
    return model


def planar_base(name, body):
    """x, y (prismatic, massless) and heading θ (revolute about z) carrying ``body``."""
    model = mb.Model(name, gravity=(0.0, 0.0, -G))
    model.add(_massless("base_x"), "world", mb.Prismatic((1, 0, 0), name="x"))
    model.add(_massless("base_y"), "base_x", mb.Prismatic((0, 1, 0), name="y"))
    model.add(body, "base_y", mb.Revolute((0, 0, 1), name="heading"))
    return model


SLEIGH = dict(mass=2.0, offset=0.3, inertia=(0.1, 0.2, 0.25))


def sleigh():
    """The Chaplygin sleigh: a knife edge at the origin of a body whose mass center is 0.3 m ahead of it."""
    body = mb.Body("sleigh", mass=SLEIGH["mass"], com=(SLEIGH["offset"], 0, 0), inertia=np.diag(SLEIGH["inertia"]))
    model = planar_base("sleigh", body)
    model.add_constraint(mb.KnifeEdge("sleigh", (0, 0, 0), direction=(1, 0, 0)))
    return model


DISK = dict(mass=1.3, radius=0.4)


def rolling_disk():
    """A uniform disk (axis y) rolling on z = 0: x, y, yaw, lean (massless frames, the lean joint at the contact
    point) and its spin."""
    m, r = DISK["mass"], DISK["radius"]
    model = mb.Model("disk", gravity=(0.0, 0.0, -G))
    model.add(_massless("base_x"), "world", mb.Prismatic((1, 0, 0), name="x"))
    model.add(_massless("base_y"), "base_x", mb.Prismatic((0, 1, 0), name="y"))
    model.add(_massless("yaw_frame"), "base_y", mb.Revolute((0, 0, 1), name="yaw"))
    model.add(_massless("lean_frame"), "yaw_frame", mb.Revolute((1, 0, 0), name="lean"))
    model.add(mb.Body("disk", mass=m, inertia=np.diag([m * r**2 / 4, m * r**2 / 2, m * r**2 / 4])), "lean_frame",
              mb.Revolute((0, 1, 0), name="spin"), mb.Transform(translation=(0.0, 0.0, r)))
    model.add_constraint(mb.RollingDisk("disk", radius=r, axis=(0, 1, 0)))
    return model


FREE_DISK_COM = (0.02, 0.01, -0.03)


def free_disk():
    """The same disk on a free joint (body-axis speeds), its mass center off the axis."""
    r = DISK["radius"]
    model = mb.Model("free_disk", gravity=(0.0, 0.0, -G))
    model.add(mb.Body("disk", mass=1.3, com=FREE_DISK_COM, inertia=np.diag([0.05, 0.1, 0.06])), "world", mb.Free())
    model.add_constraint(mb.RollingDisk("disk", radius=r, axis=(0, 1, 0)))
    return model


def free_ball():
    """A ball with an off-center mass center rolling on z = 0."""
    model = mb.Model("ball", gravity=(0.0, 0.0, -G))
    model.add(mb.Body("ball", mass=0.8, com=(0.03, -0.02, 0.01), inertia=np.diag([0.01, 0.012, 0.014])), "world",
              mb.Free())
    model.add_constraint(mb.RollingSphere("ball", radius=0.2))
    return model


def welded_loop():
    """A pendulum and a body on x, z slides and a pitch joint welded to the pendulum's tip: one degree of freedom."""
    model = mb.Model("weld", gravity=(0.0, 0.0, -G))
    model.add(_link("arm"), "world", mb.Revolute((0, 1, 0), name="swing"))
    model.add(_massless("slide_x"), "world", mb.Prismatic((1, 0, 0), name="sx"))
    model.add(_massless("slide_z"), "slide_x", mb.Prismatic((0, 0, 1), name="sz"))
    model.add(mb.Body("block", mass=0.5, com=(0.1, 0, 0), inertia=np.diag([0.01, 0.02, 0.03])), "slide_z",
              mb.Revolute((0, 1, 0), name="pitch"))
    model.add_constraint(mb.Weld("arm", "block", relative=mb.Transform(translation=(0.0, 0.0, -1.0))))
    return model


def aligned():
    """A body on three revolute joints (x, y, z) whose x axis is held along the world's x: a pendulum about x."""
    model = mb.Model("align", gravity=(0.0, 0.0, -G))
    model.add(_massless("gx"), "world", mb.Revolute((1, 0, 0), name="rx"))
    model.add(_massless("gy"), "gx", mb.Revolute((0, 1, 0), name="ry"))
    model.add(mb.Body("bob", mass=1.1, com=(0.1, 0.05, -0.6), inertia=np.diag([0.03, 0.04, 0.05])), "gy",
              mb.Revolute((0, 0, 1), name="rz"))
    model.add_constraint(mb.Align("bob", (1, 0, 0), "world", (1, 0, 0)))
    return model


def aligned_ball_joint():
    """The same pendulum about x from a spherical joint (body-axis speeds) and the Align."""
    model = mb.Model("align_spherical", gravity=(0.0, 0.0, -G))
    model.add(mb.Body("bob", mass=1.1, com=(0.1, 0.05, -0.6), inertia=np.diag([0.03, 0.04, 0.05])), "world",
              mb.Spherical())
    model.add_constraint(mb.Align("bob", (1, 0, 0), "world", (1, 0, 0)))
    return model


def on_plane():
    """The double pendulum's tip held on the plane z = −1.8."""
    model = double_pendulum()
    model.add_constraint(mb.PointOnPlane("link2", (0.0, 0.0, -1.0), "world", origin=(0.0, 0.0, -1.8)))
    return model


def on_moving_plane():
    """A block sliding along the world's x axis whose origin stays on a plane carried by a swinging arm."""
    model = mb.Model("moving_plane", gravity=(0.0, 0.0, -G))
    model.add(_link("arm"), "world", mb.Revolute((0, 1, 0), name="swing"))
    model.add(mb.Body("block", mass=0.5, inertia=np.diag([0.01, 0.02, 0.03])), "world",
              mb.Prismatic((1, 0, 0), name="slide"))
    model.add_constraint(mb.PointOnPlane("block", (0.0, 0.0, 0.0), "arm", origin=(0.0, 0.0, -0.5),
                                         normal=(0.0, 0.0, 1.0)))
    return model


def mimic():
    model = double_pendulum()
    model.add_constraint(mb.Mimic("j2", "j1", multiplier=-0.5, offset=0.0))
    return model


def user_holonomic():
    a, b = sp.symbols("a b")
    model = double_pendulum()
    model.add_constraint(mb.Holonomic([b - sp.Rational(3, 10) * sp.sin(a)], coordinates=(a, b), name="cam"))
    return model


def user_nonholonomic():
    """A sleigh whose blade is 0.2 m behind the reference point, as a user row: −sin θ ẋ + cos θ ẏ − 0.2 θ̇ = 0."""
    x, y, th, vx, vy, w = sp.symbols("x y theta v_x v_y omega")
    body = mb.Body("sleigh", mass=2.0, com=(0.3, 0.0, 0.0), inertia=np.diag([0.1, 0.2, 0.25]))
    model = planar_base("user_sleigh", body)
    model.add_constraint(mb.Nonholonomic([-sp.sin(th) * vx + sp.cos(th) * vy - sp.Rational(1, 5) * w],
                                         coordinates=(x, y, th), speeds=(vx, vy, w), name="blade"))
    return model


def affine_user_nonholonomic():
    """A user row with b(q) ≠ 0: the blade's lateral velocity prescribed as 0.1 cos x (A v = b(q))."""
    x, y, th, vx, vy, w = sp.symbols("x y theta v_x v_y omega")
    body = mb.Body("sleigh", mass=2.0, com=(0.3, 0.0, 0.0), inertia=np.diag([0.1, 0.2, 0.25]))
    model = planar_base("affine_sleigh", body)
    model.add_constraint(mb.Nonholonomic([-sp.sin(th) * vx + sp.cos(th) * vy - sp.cos(x) / 10],
                                         coordinates=(x, y, th), speeds=(vx, vy, w), name="drift"))
    return model


def _hanging(c):
    """The unit quaternion of the rotation that turns the direction c straight down (−z), about c × (−z)."""
    c = np.asarray(c, dtype=float) / np.linalg.norm(c)
    axis = np.cross(c, (0.0, 0.0, -1.0))
    angle = np.arctan2(np.linalg.norm(axis), -c[2])
    return np.r_[np.cos(angle / 2), np.sin(angle / 2) * axis / np.linalg.norm(axis)]


def _balanced_disk():
    """q of the free disk at rest with its mass center straight above the contact point: turned by θ about its axis
    (y) so that the in-plane offset (c_x, c_z) of the mass center points down, tan θ = c_x / (−c_z), then leaned by
    φ about x so that the offset c_y along the axis is over the contact point, tan φ = c_y / (r − |(c_x, c_z)|); the
    center at the height r cos φ."""
    cx, cy, cz = FREE_DISK_COM
    spin, lean = np.arctan2(cx, -cz), np.arctan2(cy, DISK["radius"] - np.hypot(cx, cz))
    w1, x1 = np.cos(lean / 2), np.sin(lean / 2)
    w2, y2 = np.cos(spin / 2), np.sin(spin / 2)
    return np.r_[0.0, 0.0, DISK["radius"] * np.cos(lean), w1 * w2, x1 * w2, w1 * y2, x1 * y2]  # R_x(φ) R_y(θ)


def speed_indices(eom):
    return [int(u.func.__name__.split("_")[1]) for u in eom.u]


SYSTEMS = {   # model, random consistent state, rest equilibrium on the manifold (None: quaternion joints)
    "Connect": (four_bar, None, hanging_four_bar()[2]),
    "Weld": (welded_loop, lambda r: ([r.uniform(-1, 1), 0, 0, 0], [r.uniform(-2, 2), 0, 0, 0]), [0.0, 0, -1, 0]),
    "Align": (aligned, lambda r: ([0, 0, r.uniform(-1, 1)], [r.uniform(-2, 2), 0, 0]), [0.0, 0.0, 0.0]),
    "PointOnPlane": (on_plane, lambda r: ([r.uniform(-0.3, 0.3), 1.0], [r.uniform(-2, 2), 0]),
                     [0.0, np.arccos(0.8)]),
    "PointOnPlane-moving": (on_moving_plane, lambda r: ([r.uniform(0.5, 1.2), -0.6], [r.uniform(-2, 2), 0]), None),
    "Mimic": (mimic, lambda r: ([r.uniform(-1, 1), 0], [r.uniform(-2, 2), 0]), [0.0, 0.0]),
    "Holonomic": (user_holonomic, lambda r: ([r.uniform(-1, 1), 0], [r.uniform(-2, 2), 0]), [0.0, 0.0]),
    "Nonholonomic": (user_nonholonomic, lambda r: (r.uniform(-1, 1, 3), r.uniform(-2, 2, 3)), [0.0, 0.0, 0.3]),
    "Nonholonomic-affine": (affine_user_nonholonomic, lambda r: (r.uniform(-1, 1, 3), r.uniform(-2, 2, 3)), None),
    "Align-spherical": (aligned_ball_joint, lambda r: (np.r_[np.cos(0.3), np.sin(0.3), 0, 0], r.uniform(-2, 2, 3)),
                        _hanging((0.0, 0.05, -0.6))),
    "KnifeEdge": (sleigh, lambda r: (r.uniform(-1, 1, 3), r.uniform(-2, 2, 3)), [0.0, 0.0, 0.3]),
    "RollingDisk": (rolling_disk, lambda r: (r.uniform(-0.5, 0.5, 5), r.uniform(-2, 2, 5)), [0.0] * 5),
    "RollingDisk-free": (free_disk, lambda r: (np.r_[0, 0, 0.4, _quaternion(r, 0.5)], r.uniform(-2, 2, 6)),
                         _balanced_disk()),
    "RollingSphere": (free_ball, lambda r: (np.r_[0, 0, 0.2, _quaternion(r, 3.0)], r.uniform(-2, 2, 6)),
                      np.r_[0, 0, 0.2, _hanging((0.03, -0.02, 0.01))]),
}


def _quaternion(rng, largest):
    """A unit quaternion (w, x, y, z) of a rotation by up to ``largest`` rad about a random axis."""
    axis, angle = rng.normal(size=3), rng.uniform(0, largest)
    return np.r_[np.cos(angle / 2), np.sin(angle / 2) * axis / np.linalg.norm(axis)]


def _consistent(model, state, rng):
    q, v = state(rng)
    return mb.assemble(model, np.asarray(q, dtype=float), np.asarray(v, dtype=float))


def _values(M, point):
    """M at ``point`` (floats), evaluated over the expression graph (each shared subexpression once)."""
    M = sp.Matrix(M)
    return np.array(jacobian_at(list(M), [], point)[0], dtype=float).reshape(M.shape)


def udot_at(eom, q, u):
    """u̇ of X u̇ = Y (the dependent speeds evaluated first), or of X u̇ = Y + Bᵀλ, B u̇ = c."""
    point = {**dict(zip(eom.q, q)), **dict(zip(eom.u, u))}
    for speed, value in eom.dependent_speeds.items():
        point[speed] = _values([value], point)[0, 0]
    X, Y = _values(eom.mass_matrix, point), _values(eom.forcing, point).ravel()
    if not eom.multipliers:
        return np.linalg.solve(X, Y)
    B, c = _values(eom.constraint_matrix, point), _values(eom.constraint_rhs, point).ravel()
    m = B.shape[0]
    K = np.block([[X, -B.T], [B, np.zeros((m, m))]])
    return np.linalg.solve(K, np.r_[Y, c])[:X.shape[0]]


@pytest.fixture(scope="module")
def derived():
    cache = {}

    def get(name, method):
        if (name, method) not in cache:
            model = SYSTEMS[name][0]()
            cache[name, method] = model, sym.equations_of_motion(model, method=method)
        return cache[name, method]
    return get


def _methods(name):
    """Lagrange's equations need u = q̇ (no quaternion joints). Gauss's and Kane's equations share the elimination
    of the dependent speeds, so Gauss's is checked on one system of each kind (loop, knife edge, rolling)."""
    if name in ("RollingDisk-free", "RollingSphere", "Align-spherical"):
        return ("kane",)
    return ("kane", "gauss", "lagrange") if name in ("Connect", "KnifeEdge", "RollingDisk") else ("kane", "lagrange")


@pytest.mark.parametrize("name,method", [(n, m) for n in SYSTEMS for m in _methods(n)])
def test_symbolic_equations_match_forward_dynamics(derived, name, method):
    model, eom = derived(name, method)
    rng = np.random.default_rng(sum(map(ord, name + method)))
    state = SYSTEMS[name][1] or (lambda r: (SYSTEMS["Connect"][2] + r.uniform(-0.1, 0.1, 3),
                                            [r.uniform(-2, 2), 0.0, 0.0]))
    for _ in range(3):
        q, v = _consistent(model, state, rng)
        reference = mb.forward_dynamics(model, q, v)
        keep = speed_indices(eom)
        np.testing.assert_allclose(udot_at(eom, q, v[keep]), reference[keep], rtol=0,
                                   atol=1e-12 * max(1, np.abs(reference).max()))


@pytest.mark.parametrize("name", [n for n, s in SYSTEMS.items() if s[2] is not None])
def test_linearized_equations_match_numeric_linearization_on_the_manifold(derived, name):
    """At a rest equilibrium on the manifold the state matrices map into each other through the coordinates:
    x = [q_ind; u_ind] = T [y; w], T = diag(S_q Q N_h, S_u N) (S selects the independent entries, Q = ∂q/∂δ the
    local coordinates' map, identity for scalar joints): A T = T A_num (with quaternion joints x has all of q, and
    T maps onto the tangent directions)."""
    model, eom = derived(name, "kane")
    q, v = mb.assemble(model, np.asarray(SYSTEMS[name][2], dtype=float))
    A_num, _, N_h, N = mb.linearize(model, q, v, bases=True)
    point = {**dict(zip(eom.q, q)), **{u: 0.0 for u in eom.u}}
    A, _ = eom.linearize(point)
    A = np.array(A, dtype=float)
    h = 1e-6   # Q = ∂(q ⊕ δ)/∂δ by central differences (exact for scalar joints)
    Q = np.column_stack([(mb.integrate(model, q, e, h) - mb.integrate(model, q, e, -h)) / (2 * h)
                         for e in np.eye(model.nv)])
    ind_q = [eom.q.index(x) for x in eom.independent_coordinates]
    T = scipy_block(Q[ind_q] @ N_h, N[speed_indices(eom)])
    np.testing.assert_allclose(A @ T, T @ A_num, rtol=0, atol=1e-8 * max(1.0, np.abs(A).max()))


def scipy_block(a, b):
    out = np.zeros((a.shape[0] + b.shape[0], a.shape[1] + b.shape[1]))
    out[:a.shape[0], :a.shape[1]], out[a.shape[0]:, a.shape[1]:] = a, b
    return out


def test_independent_speeds_chosen_by_the_user_and_named():
    model = rolling_disk()
    eom = sym.equations_of_motion(model, independent_speeds=("yaw", "lean", "spin"))
    assert eom.u == tuple(dynamicsymbols("u_2 u_3 u_4"))
    assert list(eom.dependent_speeds) == list(dynamicsymbols("u_0 u_1"))
    with pytest.raises(ModelError, match="independent_speeds"):
        sym.equations_of_motion(model, independent_speeds=("x", "y", "yaw"))
    with pytest.raises(ModelError, match="'nowhere'"):
        sym.equations_of_motion(model, independent_speeds=("nowhere",))


def test_unsupported_rows_are_named():
    model = double_pendulum()
    model.add_constraint(mb.Nonholonomic(lambda q: np.ones((1, 2)), size=1, name="callable"))
    with pytest.raises(ModelError, match="'callable'.*sympy expressions"):
        sym.equations_of_motion(model)


def _sympy_rhs(km, q, u):
    M = sp.lambdify([q, u], km.mass_matrix, "numpy")
    F = sp.lambdify([q, u], km.forcing, "numpy")
    return lambda qv, uv: np.linalg.solve(np.array(M(qv, uv), dtype=float), np.array(F(qv, uv), dtype=float)).ravel()


def test_rolling_disk_matches_sympy_kanesmethod():
    """The rolling disc of sympy's own mechanics tests (test_kane.py), with u = q̇ for yaw, lean and spin."""
    m, r = sp.Float(DISK["mass"]), sp.Float(DISK["radius"])
    q1, q2, q3 = q = dynamicsymbols("q1 q2 q3")
    u1, u2, u3 = u = dynamicsymbols("u1 u2 u3")
    N = ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    C = Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    disc = RigidBody("disc", Dmc, R, m, (inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), Dmc))
    km = KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)])
    km.kanes_equations([disc], [(Dmc, -m * G * Y.z)])
    theirs = _sympy_rhs(km, q, u)
    model = rolling_disk()
    eom = sym.equations_of_motion(model, independent_speeds=("yaw", "lean", "spin"))
    ours = eom.to_numeric(backend="numpy")
    rng = np.random.default_rng(7)
    for _ in range(5):
        angles, rates = rng.uniform(-1, 1, 3), rng.uniform(-3, 3, 3)
        expected = theirs(angles, rates)
        np.testing.assert_allclose(ours.udot(np.r_[rng.uniform(-1, 1, 2), angles], rates), expected, rtol=0,
                                   atol=1e-12 * max(1, np.abs(expected).max()))


def test_chaplygin_sleigh_matches_sympy_kanesmethod():
    """Kane's equations of the sleigh in sympy (x, y, θ; u = q̇; the blade's lateral velocity zero, u_x dependent)."""
    mass, a = sp.Float(SLEIGH["mass"]), sp.Float(SLEIGH["offset"])
    x, y, th = q = dynamicsymbols("x y theta")
    ux, uy, w = u = dynamicsymbols("u_x u_y omega")
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    B.set_ang_vel(N, w * N.z)
    O = Point("O")
    O.set_vel(N, ux * N.x + uy * N.y)
    Gc = O.locatenew("G", a * B.x)
    Gc.v2pt_theory(O, N, B)
    Ixx, Iyy, Izz = (sp.Float(i) for i in SLEIGH["inertia"])
    body = RigidBody("sleigh", Gc, B, mass, (inertia(B, Ixx, Iyy, Izz), Gc))
    km = KanesMethod(N, q_ind=q, u_ind=[uy, w], u_dependent=[ux], kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)],
                     velocity_constraints=[O.vel(N) & B.y])
    km.kanes_equations([body], [])
    theirs = _sympy_rhs(km, q, u)      # the rows of the independent speeds, then the constraint's rate
    eom = sym.equations_of_motion(sleigh(), independent_speeds=("y", "heading"))
    ours = eom.to_numeric(backend="numpy")
    rng = np.random.default_rng(3)
    for _ in range(5):
        qv = rng.uniform(-1, 1, 3)
        uy_, w_ = rng.uniform(-2, 2, 2)
        ux_ = uy_ * np.cos(qv[2]) / np.sin(qv[2])           # −sin θ u_x + cos θ u_y = 0
        expected = theirs(qv, [ux_, uy_, w_])[:2]
        np.testing.assert_allclose(ours.udot(qv, [uy_, w_]), expected, rtol=0,
                                   atol=1e-12 * max(1, np.abs(expected).max()))
