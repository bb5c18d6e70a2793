"""Systems shared by the symbolic tests and benchmarks/bench_symbolic.py (helper module: unique name).

T. R. Kane, "A new method for formulating equations of motion" rod with a sliding particle, a body hinged on a fixed
axis, and the 3D n-link pendulum three
ways: symbolic (sym.symbolic_chain), numeric (mb.Model) and in sympy.physics.mechanics for KanesMethod.
"""
import numpy as np
import sympy as sp
from sympy.physics.mechanics import (KanesMethod, Particle, Point, ReferenceFrame, RigidBody, dynamicsymbols,
                                     inertia)

import multibody as mb

t = dynamicsymbols._t


def rod_and_particle():
    """Kane, fig. 3: rod B (length 2L, mass m) in a plane, particle P (mass m) sliding along it, spring
    (stiffness k, natural length L0) from the rod's end C to P; generalized speeds of eq. 20."""
    q1, q2, q3, q4 = q = dynamicsymbols("q1:5")
    u1, u2, u3, u4 = u = dynamicsymbols("u1:5")
    m, L, k, L0 = sp.symbols("m L k L0", positive=True)
    A = ReferenceFrame("A")
    B = A.orientnew("B", "Axis", [q3, A.z])
    O = Point("O")
    O.set_vel(A, 0)
    C = O.locatenew("C", q1 * A.x + q2 * A.y)
    C.set_vel(A, C.pos_from(O).dt(A))
    Bstar = C.locatenew("B*", L * B.x)
    Bstar.v2pt_theory(C, A, B)
    P = C.locatenew("P", q4 * B.x)
    P.set_vel(B, q4.diff(t) * B.x)
    P.v1pt_theory(C, A, B)
    rod = RigidBody("B", Bstar, B, m, (inertia(B, 0, m * L**2 / 3, m * L**2 / 3), Bstar))
    particle = Particle("P", P, m)
    qd = [x.diff(t) for x in q]
    kd = [u1 - (qd[0] * sp.cos(q3) + qd[1] * sp.sin(q3)), u2 - (-qd[0] * sp.sin(q3) + qd[1] * sp.cos(q3) + L * qd[2]),
          u3 - qd[2], u4 - qd[3]]
    spring = k * (q4 - L0)
    loads = [(P, -spring * B.x), (C, spring * B.x)]
    return dict(frame=A, q=q, u=u, kd=kd, bodies=[rod, particle], loads=loads, symbols=(m, L, k, L0))


def at_random_states(matrices, variables, count=3, seed=4):
    """The matrices evaluated as float arrays at ``count`` random positive values of ``variables``."""
    rng = np.random.default_rng(seed)
    results = []
    for _ in range(count):
        values = dict(zip(variables, rng.uniform(0.2, 2.0, size=len(variables))))
        results.append([np.array(sp.Matrix(M).xreplace(values), dtype=float) for M in matrices])
    return results


def hinged_rod():
    """A rigid body B turning about the fixed axis N.z through A, its mass center C at distance a from A."""
    theta, w = dynamicsymbols("theta w")
    m, a, J = sp.symbols("m a J", positive=True)
    N = ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [theta, N.z])
    A = Point("A")
    A.set_vel(N, 0)
    C = A.locatenew("C", a * B.x)
    C.v2pt_theory(A, N, B)
    body = RigidBody("B", C, B, m, (inertia(B, 0, 0, J), C))
    return N, B, C, body, (theta, w, m, a, J)


def chain_values(symbols, n, rng):
    """Random positive parameter values for sym.symbolic_chain and the equivalent numeric Model."""
    values = {symbols["g"][0]: 9.81}
    for k in range(n):
        m, l = rng.uniform(0.5, 2.0), rng.uniform(0.2, 0.6)
        a, b = rng.uniform(0.5, 1.0, size=2) * m * l**2 / 12
        values.update({symbols["m"][k]: m, symbols["l"][k]: l, symbols["Ixx"][k]: abs(a - b) + 1e-3,
                       symbols["Iyy"][k]: a, symbols["Izz"][k]: b})
    return values


def numeric_chain(symbols, n, values, axes="xyz"):
    unit = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}
    model = mb.Model("chain", gravity=(0, 0, -9.81))
    parent = "world"
    for k in range(n):
        m, l = values[symbols["m"][k]], values[symbols["l"][k]]
        inertia_k = np.diag([values[symbols[i][k]] for i in ("Ixx", "Iyy", "Izz")])
        offset = (0, 0, 0) if k == 0 else (values[symbols["l"][k - 1]], 0, 0)
        model.add(mb.Body(f"link{k + 1}", mass=m, com=(l / 2, 0, 0), inertia=inertia_k), parent=parent,
                  joint=mb.Revolute(unit[axes[k % 3]]), placement=mb.Transform(translation=offset))
        parent = f"link{k + 1}"
    return model


def chain_system(n, symbols, axes="xyz"):
    """The pendulum of :func:`numeric_chain` as sympy.physics.mechanics bodies whose velocities are written in the
    speeds u (u_k = q̇_k): the body description that sym.kane, sym.lagrange and sym.gauss all take."""
    q, u = dynamicsymbols(f"q_0:{n}"), dynamicsymbols(f"u_0:{n}")
    q, u = list(np.atleast_1d(q)), list(np.atleast_1d(u))
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    frame, joint, bodies, loads = N, O, [], []
    g = symbols["g"][0]
    for k in range(n):
        axis = getattr(frame, axes[k % len(axes)])
        B = frame.orientnew(f"B{k}", "Axis", [q[k], axis])
        B.set_ang_vel(frame, u[k] * axis)
        l, m = symbols["l"][k], symbols["m"][k]
        C = joint.locatenew(f"C{k}", l / 2 * B.x)
        C.v2pt_theory(joint, N, B)
        I = inertia(B, symbols["Ixx"][k], symbols["Iyy"][k], symbols["Izz"][k])
        bodies.append(RigidBody(f"b{k}", C, B, m, (I, C)))
        loads.append((C, -m * g * N.z))
        tip = joint.locatenew(f"P{k}", l * B.x)
        tip.v2pt_theory(joint, N, B)
        frame, joint = B, tip
    return dict(frame=N, q=q, u=u, kd=[q[k].diff() - u[k] for k in range(n)], bodies=bodies, loads=loads)


def sympy_chain(n, symbols, axes="xyz"):
    """The same pendulum built with sympy.physics.mechanics frames and points, solved by KanesMethod."""
    s = chain_system(n, symbols, axes)
    km = KanesMethod(s["frame"], s["q"], s["u"], kd_eqs=s["kd"])
    km.kanes_equations(s["bodies"], s["loads"])
    return km


def mixed_joint_model(joint, arm_inertia):
    """A planar base, a prismatic slider on it, then an arm on ``joint``: the joint-type mix of the tree tests."""
    model = mb.Model("mixed", gravity=(0.5, -1.0, -9.81))
    model.add(mb.Body("base", mass=2.0, com=(0.1, 0.05, 0.0), inertia=np.diag([0.02, 0.03, 0.04])), joint=mb.Planar())
    model.add(mb.Body("slider", mass=1.0, com=(0.0, 0.1, 0.0), inertia=np.diag([0.01, 0.01, 0.02])), parent="base",
              joint=mb.Prismatic((1, 0, 0)), placement=mb.Transform(translation=(0.2, 0, 0)))
    model.add(mb.Body("arm", mass=0.5, com=(0.15, 0, 0.02), inertia=arm_inertia), parent="slider", joint=joint,
              placement=mb.Transform(translation=(0, 0.1, 0)))
    return model
