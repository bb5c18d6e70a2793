"""The Whipple bicycle of the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (2007), by Kane's method.

J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L. Schwab, "Linearized dynamics equations for the balance and
steer of a bicycle: a benchmark and review", Proc. R. Soc. A 463 (2007) 1955–1982, doi:10.1098/rspa.2007.1857.

Four rigid bodies (rear wheel, frame with rider, fork with handlebar, front wheel) rolling without slipping on
level ground: six speeds, three of them dependent (nonholonomic constraints: the front contact point at rest),
and one dependent coordinate (the frame's pitch, fixed by both wheels touching the ground). The system is set
up as in sympy's own test (sympy/physics/mechanics/tests/test_kane3.py, ported from Autolev): coordinates yaw
q1, roll q2, pitch q4, steer q5; speeds u1 (yaw rate), u2 (roll rate), u3 (rear wheel), u4 (pitch rate),
u5 (steer rate), u6 (front wheel); the wheels are defined by their angular velocities only.

``sym.kane`` forms the equations with the constrained partial velocities (u1, u4, u6 dependent), and
``eom.linearize`` linearizes them about upright straight running at forward speed v through the holonomic and
nonholonomic constraints. The lean/steer part of the state matrix gives the eigenvalues of the paper's table 2,
the weave speed (4.292382 m/s) and the capsize speed (6.024262 m/s).

    python examples/bicycle.py [--symbolic] [--out bicycle_eigenvalues.png]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import sympy as sp
from scipy.optimize import brentq
from sympy.physics.mechanics import Point, ReferenceFrame, RigidBody, dot, dynamicsymbols, inertia

from multibody import symbolic as sym

# Meijaard et al. (2007), table 2: eigenvalues [1/s] of the benchmark bicycle at v = 0, 1, ..., 10 m/s
# (the weave pair as complex numbers; capsize, castering and the v = 0 pairs real).
MEIJAARD_SPEEDS = np.arange(11.0)
MEIJAARD_EIGENVALUES = np.array([
    [5.53094371765393, 3.13164324790656, -3.13164324790656, -5.53094371765393],
    [3.52696170990070 + 0.80774027519930j, 3.52696170990070 - 0.80774027519930j, -3.13423125066578,
     -7.11008014637442],
    [2.68234517512745 + 1.68066296590675j, 2.68234517512745 - 1.68066296590675j, -3.07158645641514,
     -8.67387984831735],
    [1.70675605663975 + 2.31582447384325j, 1.70675605663975 - 2.31582447384325j, -2.63366137253667,
     -10.35101467245920],
    [0.41325331521125 + 3.07910818603206j, 0.41325331521125 - 3.07910818603206j, -1.42944427361326,
     -12.15861426576450],
    [-0.77534188219585 + 4.46486771378823j, -0.77534188219585 - 4.46486771378823j, -0.32286642900409,
     -14.07838969279820],
    [-1.52644486584142 + 5.87673060598709j, -1.52644486584142 - 5.87673060598709j, -0.00406690076970,
     -16.08537123098030],
    [-2.13875644258362 + 7.19525913329805j, -2.13875644258362 - 7.19525913329805j, 0.10268170574766,
     -18.15788466125260],
    [-2.69348683581097 + 8.46037971396931j, -2.69348683581097 - 8.46037971396931j, 0.14327879765713,
     -20.27940894394570],
    [-3.21675402252485 + 9.69377351531791j, -3.21675402252485 - 9.69377351531791j, 0.15790184030917,
     -22.43788559040860],
    [-3.72016840437287 + 10.90681139476287j, -3.72016840437287 - 10.90681139476287j, 0.16105338653172,
     -24.62459635017400],
])
WEAVE_SPEED, CAPSIZE_SPEED = 4.292382, 6.024262  # [m/s], Meijaard et al. (2007), section 5


def benchmark_parameters():
    """The benchmark's values (table 1) in the coordinates of the model below (as in sympy's test_kane3)."""
    rR, rF, w, c = 0.3, 0.35, 1.02, 0.08
    hta = np.pi / 2 - np.pi / 10                                   # head angle from the ground
    rake = -(c * np.sin(hta) - rF * np.cos(hta))
    frame_cg_x, frame_cg_z, fork_cg_x, fork_cg_z = 0.3, 0.9, 0.9, 0.7
    a, b = fork_cg_z - rF, w - fork_cg_x
    hyp = np.hypot(a, b)
    fork_length = w * np.cos(hta) - (rF - rR) * np.sin(hta)
    return dict(
        WFrad=rF, WRrad=rR, htangle=hta, forkoffset=rake, forklength=fork_length,
        framelength=w * np.sin(hta) - (rake - (rF - rR) * np.cos(hta)),
        forkcg1=hyp * np.cos(np.pi / 2 - hta - np.arccos(a / hyp)) - fork_length,
        forkcg3=rake + hyp * np.sin(np.pi / 2 - hta - np.arccos(a / hyp)),
        framecg1=(frame_cg_z - rR - frame_cg_x / np.sin(hta) * np.cos(hta)) * np.sin(hta),
        framecg3=frame_cg_x / np.sin(hta) + (frame_cg_z - rR - frame_cg_x / np.sin(hta) * np.cos(hta)) * np.cos(hta),
        Iwr11=0.0603, Iwr22=0.12, Iwf11=0.1405, Iwf22=0.28,
        Ifork11=0.05892, Ifork22=0.06, Ifork33=0.00708, Ifork31=0.00756,     # products of inertia: sign flipped
        Iframe11=9.2, Iframe22=11.0, Iframe33=2.8, Iframe31=-2.4,            # for the model's axes
        mfork=4.0, mframe=85.0, mwf=3.0, mwr=2.0, g=9.81)


def whipple_bicycle(symbolic=False, constraints_in="u"):
    """The bicycle's frames, bodies, loads and constraints, as keyword arguments of ``sym.kane``.

    ``symbolic``: parameters as sympy symbols (values in ``result["values"]``) or as the benchmark's numbers.
    ``constraints_in``: "u" (the front contact point's velocity in the speeds) or "qdot" (its vertical
    component replaced by the time derivative of the holonomic constraint, written in q̇).
    """
    values = benchmark_parameters()
    p = {k: sp.Symbol(k) for k in values} if symbolic else {k: sp.Float(v) for k, v in values.items()}
    t = dynamicsymbols._t
    q1, q2, q4, q5 = q = dynamicsymbols("q1 q2 q4 q5")
    u1, u2, u3, u4, u5, u6 = u = dynamicsymbols("u1:7")
    # frames: yaw Y, roll R, frame (pitch q4 from the head angle), fork (steer q5); wheels by angular velocity
    N = ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    R = Y.orientnew("R", "Axis", [q2, Y.x])
    Frame = R.orientnew("Frame", "Axis", [q4 + p["htangle"], R.y])
    TempFrame = Frame.orientnew("TempFrame", "Axis", [-p["htangle"], Frame.y])
    Fork = Frame.orientnew("Fork", "Axis", [q5, Frame.x])
    TempFork = Fork.orientnew("TempFork", "Axis", [-p["htangle"], Fork.y])
    WR, WF = ReferenceFrame("WR"), ReferenceFrame("WF")
    Y.set_ang_vel(N, u1 * Y.z)
    R.set_ang_vel(Y, u2 * R.x)
    WR.set_ang_vel(Frame, u3 * Frame.y)
    Frame.set_ang_vel(R, u4 * Frame.y)
    Fork.set_ang_vel(Frame, u5 * Fork.x)
    WF.set_ang_vel(Fork, u6 * Fork.y)
    # points: rear contact -> rear hub -> frame mass center, steer axis -> fork mass center, front hub -> contact
    WR_cont = Point("WR_cont")
    WR_mc = WR_cont.locatenew("WR_mc", p["WRrad"] * R.z)
    Steer = WR_mc.locatenew("Steer", p["framelength"] * Frame.z)
    Frame_mc = WR_mc.locatenew("Frame_mc", -p["framecg1"] * Frame.x + p["framecg3"] * Frame.z)
    Fork_mc = Steer.locatenew("Fork_mc", -p["forkcg1"] * Fork.x + p["forkcg3"] * Fork.z)
    WF_mc = Steer.locatenew("WF_mc", p["forklength"] * Fork.x + p["forkoffset"] * Fork.z)
    WF_cont = WF_mc.locatenew("WF_cont", p["WFrad"] * (dot(Fork.y, Y.z) * Fork.y - Y.z).normalize())
    WR_cont.set_vel(N, 0)
    WR_mc.v2pt_theory(WR_cont, N, WR)
    Steer.v2pt_theory(WR_mc, N, Frame)
    Frame_mc.v2pt_theory(WR_mc, N, Frame)
    Fork_mc.v2pt_theory(Steer, N, Fork)
    WF_mc.v2pt_theory(Steer, N, Fork)
    WF_cont.v2pt_theory(WF_mc, N, WF)
    bodies = [
        RigidBody("frame", Frame_mc, Frame, p["mframe"],
                  (inertia(TempFrame, p["Iframe11"], p["Iframe22"], p["Iframe33"], 0, 0, p["Iframe31"]), Frame_mc)),
        RigidBody("fork", Fork_mc, Fork, p["mfork"],
                  (inertia(TempFork, p["Ifork11"], p["Ifork22"], p["Ifork33"], 0, 0, p["Ifork31"]), Fork_mc)),
        RigidBody("rear wheel", WR_mc, WR, p["mwr"], (inertia(Frame, p["Iwr11"], p["Iwr22"], p["Iwr11"]), WR_mc)),
        RigidBody("front wheel", WF_mc, WF, p["mwf"], (inertia(Fork, p["Iwf11"], p["Iwf22"], p["Iwf11"]), WF_mc)),
    ]
    loads = [(Frame_mc, -p["mframe"] * p["g"] * Y.z), (Fork_mc, -p["mfork"] * p["g"] * Y.z),
             (WF_mc, -p["mwf"] * p["g"] * Y.z), (WR_mc, -p["mwr"] * p["g"] * Y.z)]
    qd = [x.diff(t) for x in q]
    kinematic = [qd[0] - u1, qd[1] - u2, qd[2] - u4, qd[3] - u5]
    # both wheels on the ground (holonomic), the front contact point at rest (nonholonomic)
    touching = WF_cont.pos_from(WR_cont) & Y.z
    contact_velocity = WF_cont.vel(N)
    constraints = [contact_velocity & Y.x, contact_velocity & Y.y,
                   contact_velocity & Y.z if constraints_in == "u" else touching.diff(t)]
    return dict(
        kane=dict(frame=N, q=q, u=u, kinematic_equations=kinematic, bodies=bodies, loads=loads,
                  dependent_speeds=[u1, u4, u6], velocity_constraints=constraints, dependent_coordinates=[q4],
                  configuration_constraints=[touching], simplify=False),
        values={p[k]: v for k, v in values.items()} if symbolic else {}, q=q, u=u,
        radii=(values["WRrad"], values["WFrad"]))


def lean_steer_matrix(eom, system):
    """The 4×4 state matrix of (lean q2, steer q5, lean rate u2, steer rate u5) as a function of v [m/s].

    Linearized about upright straight running: all angles and rates zero, rear wheel rate u3 = v/rR (the
    front wheel's u6 = v/rF follows from the constraints). Returns (A(v) callable, the sympy matrix A in v).
    """
    v = sp.Symbol("v")
    q1, q2, q4, q5 = system["q"]
    u1, u2, u3, u4, u5, u6 = system["u"]
    rR, _ = system["radii"]
    point = {q1: 0, q2: 0, q4: 0, q5: 0, u2: 0, u3: v / rR, u5: 0, **system["values"]}
    A, _ = eom.linearize(point)
    # x = [q1, q2, q5, u2, u3, u5] (independent coordinates, then independent speeds)
    A = A.extract([1, 2, 3, 5], [1, 2, 3, 5])
    f = sp.lambdify(v, A, "numpy")
    return (lambda speed: np.array(f(speed), dtype=float)), A


def eigenvalues(A_of_v, speeds):
    """Eigenvalues at each speed, sorted by decreasing real part (then imaginary part), shape (len(speeds), 4)."""
    out = []
    for speed in speeds:
        ev = np.linalg.eigvals(A_of_v(speed))
        out.append(sorted(ev, key=lambda z: (-round(z.real, 9), -z.imag)))
    return np.array(out)


def weave_and_capsize_speeds(A_of_v):
    """The speeds where the weave pair's real part and the capsize eigenvalue cross zero [m/s]."""
    def weave(speed):
        ev = np.linalg.eigvals(A_of_v(speed))
        return ev[np.abs(ev.imag) > 1e-9].real.max()

    def capsize(speed):
        ev = np.linalg.eigvals(A_of_v(speed))
        real = ev[np.abs(ev.imag) <= 1e-9].real
        return real[np.argmin(np.abs(real))]

    return brentq(weave, 3.0, 5.0, xtol=1e-13), brentq(capsize, 5.0, 7.0, xtol=1e-13)


def derive_and_linearize(symbolic=False, constraints_in="u"):
    """(eom, A(v), seconds for the derivation, seconds for the linearization)."""
    system = whipple_bicycle(symbolic, constraints_in)
    start = time.perf_counter()
    eom = sym.kane(**system["kane"])
    derived = time.perf_counter()
    A_of_v, _ = lean_steer_matrix(eom, system)
    return eom, A_of_v, derived - start, time.perf_counter() - derived


def plot(A_of_v, path, speeds=np.linspace(0.0, 10.0, 401), method="sym.kane + linearize"):
    """Real parts of the eigenvalues of ``A_of_v`` at ``speeds`` [m/s] (found by ``method``), with the published
    values and the stable range."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ev = eigenvalues(A_of_v, speeds)
    weave, capsize = weave_and_capsize_speeds(A_of_v)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.axvspan(weave, capsize, color="tab:green", alpha=0.12, label=f"stable: {weave:.4f} – {capsize:.4f} m/s")
    ax.plot(speeds, ev.real, ".", color="tab:blue", markersize=2)
    ax.plot(speeds, np.abs(ev.imag), ".", color="tab:gray", markersize=1, alpha=0.5)
    ax.plot(MEIJAARD_SPEEDS, MEIJAARD_EIGENVALUES.real, "o", mfc="none", color="tab:red")
    ax.plot([], [], "o", mfc="none", color="tab:red", label="Re λ, Meijaard et al. (2007), table 2")
    ax.plot([], [], ".", color="tab:blue", label=f"Re λ, {method}")
    ax.plot([], [], ".", color="tab:gray", label="|Im λ| (weave frequency)")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set(xlabel="forward speed v [m/s]", ylabel="eigenvalue [1/s]", ylim=(-10, 10),
           title="Whipple bicycle benchmark: eigenvalues against speed")
    ax.legend(loc="upper right", fontsize=8, framealpha=0.95)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbolic", action="store_true", help="derive with symbolic parameters")
    parser.add_argument("--qdot", action="store_true", help="vertical contact constraint written in q̇")
    parser.add_argument("--out", default="bicycle_eigenvalues.png")
    args = parser.parse_args(argv)
    eom, A_of_v, t_derive, t_linear = derive_and_linearize(args.symbolic, "qdot" if args.qdot else "u")
    print(f"derivation {t_derive:.1f} s, linearization {t_linear:.1f} s "
          f"({'symbolic' if args.symbolic else 'numeric'} parameters)")
    ev = eigenvalues(A_of_v, MEIJAARD_SPEEDS)
    reference = np.array([sorted(row, key=lambda z: (-round(z.real, 9), -z.imag)) for row in MEIJAARD_EIGENVALUES])
    print(f"largest difference from Meijaard et al. (2007), table 2: {np.abs(ev - reference).max():.2e}")
    weave, capsize = weave_and_capsize_speeds(A_of_v)
    print(f"weave speed {weave:.6f} m/s, capsize speed {capsize:.6f} m/s")
    plot(A_of_v, Path(args.out))
    print(f"plot: {args.out}")


if __name__ == "__main__":
    main()
