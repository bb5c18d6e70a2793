"""The Meijaard et al. (2007) benchmark bicycle as a ``multibody.Model``: simulated, linearized numerically and
derived symbolically from the one description.

J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L. Schwab, "Linearized dynamics equations for the balance and
steer of a bicycle: a benchmark and review", Proc. R. Soc. A 463 (2007) 1955–1982, doi:10.1098/rspa.2007.1857.

The rear frame hangs from the world on scalar joints: two prismatic joints (x, y of the rear contact point), yaw
about the vertical, lean about the line of travel, pitch about the rear axle; the rear wheel, the steering
assembly (about the head tube, tilted back by λ = π/10) and the front wheel on revolute joints; a RollingDisk on
each wheel. Axes: x forward, y left, z up (the paper's y and z reversed, so its products of inertia I_xz change
sign). Eight coordinates, five independent constraint rows (the rear wheel's height row holds identically: the
lean joint's origin is the rear contact point), three degrees of freedom: lean, steer and rear wheel rates.

    python examples/bicycle_model.py       # Table 2 numerically (mb.linearize) and symbolically (sym + linearize)
    python examples/bicycle_model.py --out bicycle_model_eigenvalues.png    # and the eigenvalues against speed
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import sympy as sp
from scipy.optimize import brentq
from sympy.physics.vector import dynamicsymbols

import multibody as mb
from multibody import symbolic as sym

# Meijaard et al. (2007), table 1
WHEELBASE, TRAIL, STEER_AXIS_TILT, GRAVITY = 1.02, 0.08, np.pi / 10, 9.81
REAR_RADIUS, FRONT_RADIUS = 0.3, 0.35
# Table 2's eigenvalues at v = 0, 1, ..., 10 m/s and the weave and capsize speeds (section 5), kept with the
# sympy-objects version of the bicycle
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bicycle import CAPSIZE_SPEED, MEIJAARD_EIGENVALUES, MEIJAARD_SPEEDS, WEAVE_SPEED, plot  # noqa: E402

LEAN_STEER = ("lean", "steer")
PLOT_SPEEDS = np.linspace(0.0, 10.0, 101)  # [m/s] the figure's grid: 0.1 m/s, each point one mb.linearize


def _massless(name):
    return mb.Body(name, mass=0.0, inertia=np.zeros((3, 3)))


def benchmark_bicycle() -> mb.Model:
    """The benchmark bicycle of table 1 as a Model (joints named rear_x, rear_y, yaw, lean, pitch, rear_wheel,
    steer, front_wheel; all coordinates zero is the upright reference configuration)."""
    w, c, lam, rR, rF = WHEELBASE, TRAIL, STEER_AXIS_TILT, REAR_RADIUS, FRONT_RADIUS
    model = mb.Model("benchmark_bicycle", gravity=(0.0, 0.0, -GRAVITY))
    model.add(_massless("rear_x"), "world", mb.Prismatic((1, 0, 0), name="rear_x"))
    model.add(_massless("rear_y"), "rear_x", mb.Prismatic((0, 1, 0), name="rear_y"))
    model.add(_massless("yaw_frame"), "rear_y", mb.Revolute((0, 0, 1), name="yaw"))
    model.add(_massless("lean_frame"), "yaw_frame", mb.Revolute((1, 0, 0), name="lean"))
    # rear frame with rider: origin at the rear hub, mass center (0.3, 0, 0.9) above the rear contact point
    model.add(mb.Body("rear_frame", mass=85.0, com=(0.3, 0.0, 0.9 - rR),
                      inertia=[[9.2, 0.0, -2.4], [0.0, 11.0, 0.0], [-2.4, 0.0, 2.8]]),
              "lean_frame", mb.Revolute((0, 1, 0), name="pitch"), mb.Transform(translation=(0.0, 0.0, rR)))
    model.add(mb.Body("rear_wheel_body", mass=2.0, inertia=np.diag([0.0603, 0.12, 0.0603])),
              "rear_frame", mb.Revolute((0, 1, 0), name="rear_wheel"))
    # front frame (fork and handlebar): steer axis through the ground point a trail c ahead of the front contact
    model.add(mb.Body("front_frame", mass=4.0, com=(0.9 - (w + c), 0.0, 0.7),
                      inertia=[[0.05892, 0.0, 0.00756], [0.0, 0.06, 0.0], [0.00756, 0.0, 0.00708]]),
              "rear_frame", mb.Revolute((-np.sin(lam), 0.0, np.cos(lam)), name="steer"),
              mb.Transform(translation=(w + c, 0.0, -rR)))
    model.add(mb.Body("front_wheel_body", mass=3.0, inertia=np.diag([0.1405, 0.28, 0.1405])),
              "front_frame", mb.Revolute((0, 1, 0), name="front_wheel"), mb.Transform(translation=(-c, 0.0, rF)))
    model.add_constraint(mb.RollingDisk("rear_wheel_body", radius=rR, axis=(0, 1, 0), name="rear contact"))
    model.add_constraint(mb.RollingDisk("front_wheel_body", radius=rF, axis=(0, 1, 0), name="front contact"))
    return model


def upright_state(model: mb.Model, speed: float) -> tuple[np.ndarray, np.ndarray]:
    """(q, v) of upright straight running at forward ``speed`` [m/s]."""
    v = np.zeros(model.nv)
    v[model.v_slice("rear_x")] = speed
    v[model.v_slice("rear_wheel")] = speed / REAR_RADIUS
    v[model.v_slice("front_wheel")] = speed / FRONT_RADIUS
    return np.zeros(model.nq), v


def numeric_lean_steer_eigenvalues(model: mb.Model, speed: float) -> np.ndarray:
    """The four lean-and-steer eigenvalues [1/s] at forward ``speed`` [m/s]: those of
    :func:`numeric_lean_steer_matrix`."""
    return np.linalg.eigvals(numeric_lean_steer_matrix(model, speed))


def numeric_lean_steer_matrix(model: mb.Model, speed: float) -> np.ndarray:
    """The 4 × 4 state matrix C ᵀ A C [1/s] of the lean-and-steer motion at forward ``speed`` [m/s] from
    :func:`multibody.linearize` on the constraint manifold (in the orthonormal basis C below, not in lean, steer
    and their rates: its eigenvalues are the lean-and-steer eigenvalues).

    Central differences with linearize's default step (error ~1e-9). The state matrix is in minimal coordinates
    x = (y, w) (δq ≈ N_h y, δv ≈ N w); the directions of the coordinates the motion does not depend on (x, y, yaw,
    the wheels' angles) and of a change of forward speed span an invariant subspace Z, A Z ⊂ Z. The lean-and-steer
    eigenvalues are those of A on the quotient: C ᵀ A C with C an orthonormal basis of Z's complement."""
    q, v = upright_state(model, speed)
    A, _, N_h, N = mb.linearize(model, q, v, bases=True)
    cyclic = [model.v_slice(j).start for j in ("rear_x", "rear_y", "yaw", "rear_wheel", "front_wheel")]
    _, rolling = upright_state(model, 1.0)
    Z = np.zeros((A.shape[0], len(cyclic) + 1))
    Z[:N_h.shape[1], :len(cyclic)] = N_h[cyclic].T
    Z[N_h.shape[1]:, -1] = N.T @ rolling
    basis = np.linalg.svd(Z)[0]
    C = basis[:, Z.shape[1]:]
    return C.T @ A @ C


def symbolic_lean_steer_matrix(model: mb.Model):
    """(eom, A(v)): Kane's equations of the model in the independent speeds lean, steer, rear wheel, and the 4 × 4
    state matrix of (lean, steer, lean rate, steer rate) about upright straight running at speed v, from
    ``eom.linearize``."""
    eom = sym.equations_of_motion(model, independent_speeds=("lean", "steer", "rear_wheel"))
    v = sp.Symbol("v")
    coordinate = {j: eom.q[model.q_slice(j).start] for j in LEAN_STEER}
    speed = {j: dynamicsymbols(f"u_{model.v_slice(j).start}") for j in (*LEAN_STEER, "rear_wheel")}
    point = {**{qi: 0 for qi in eom.q}, **{ui: 0 for ui in eom.u}, speed["rear_wheel"]: v / REAR_RADIUS}
    A, _ = eom.linearize(point)
    states = [*eom.independent_coordinates, *eom.u]
    rows = [states.index(x) for x in (*coordinate.values(), speed["lean"], speed["steer"])]
    f = sp.lambdify(v, A.extract(rows, rows), "numpy")
    return eom, (lambda speed: np.array(f(speed), dtype=float))


def sorted_eigenvalues(ev):
    """By decreasing real part, then imaginary part (as table 2 lists them)."""
    return np.array(sorted(ev, key=lambda z: (-round(z.real, 9), -z.imag)))


def weave_and_capsize_speeds(eigenvalues_at):
    """The speeds [m/s] where the weave pair's real part and the capsize eigenvalue cross zero."""
    def weave(speed):
        ev = eigenvalues_at(speed)
        return ev[np.abs(ev.imag) > 1e-9].real.max()

    def capsize(speed):
        real = eigenvalues_at(speed)
        real = real[np.abs(real.imag) <= 1e-9].real
        return real[np.argmin(np.abs(real))]

    return brentq(weave, 3.0, 5.0, xtol=1e-12), brentq(capsize, 5.0, 7.0, xtol=1e-12)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", metavar="PATH", help="also plot the eigenvalues from mb.linearize against speed "
                        f"({len(PLOT_SPEEDS)} speeds) with table 2's, to this picture")
    args = parser.parse_args(argv)
    model = benchmark_bicycle()
    table = np.array([sorted_eigenvalues(row) for row in MEIJAARD_EIGENVALUES])
    numeric = np.array([sorted_eigenvalues(numeric_lean_steer_eigenvalues(model, v)) for v in MEIJAARD_SPEEDS])
    print(f"mb.linearize: largest difference from table 2: {np.abs(numeric - table).max():.2e}")
    start = time.perf_counter()
    _, A_of_v = symbolic_lean_steer_matrix(model)
    seconds = time.perf_counter() - start
    symbolic = np.array([sorted_eigenvalues(np.linalg.eigvals(A_of_v(v))) for v in MEIJAARD_SPEEDS])
    print(f"sym.equations_of_motion + linearize ({seconds:.1f} s): largest difference from table 2: "
          f"{np.abs(symbolic - table).max():.2e}")
    weave, capsize = weave_and_capsize_speeds(lambda v: np.linalg.eigvals(A_of_v(v)))
    print(f"weave speed {weave:.7f} m/s, capsize speed {capsize:.7f} m/s")
    q, v = upright_state(model, 4.6)
    v[model.v_slice("lean")] = 0.5
    q, v = mb.assemble(model, q, v)
    trajectory = mb.simulate(model, q, v, t_end=3.0)
    print(f"from a lean rate of 0.5 rad/s at 4.6 m/s: lean after 3 s {trajectory.q[-1, model.q_slice('lean')][0]:.2e}"
          " rad (self-stable)")
    if args.out:
        plot(lambda speed: numeric_lean_steer_matrix(model, speed), Path(args.out), PLOT_SPEEDS, "mb.linearize")
        print(f"plot: {args.out}")


if __name__ == "__main__":
    main()
