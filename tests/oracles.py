"""Independent oracles and random models for the tests.

``to_pinocchio`` rebuilds a multibody Model in Pinocchio, joint by joint, and maps states and results between
the two conventions (Pinocchio orders spatial vectors [linear; angular] and quaternions (x, y, z, w)).
``random_model`` draws a random tree with mixed joint types.
"""
from __future__ import annotations

import numpy as np

import multibody as mb
from multibody.model.joints import CYLINDRICAL, FIXED, FREE, PLANAR, PRISMATIC, REVOLUTE, SPHERICAL


def random_rotation(rng):
    q = rng.normal(size=4)
    return mb.quat_to_rotation(q / np.linalg.norm(q))


def random_inertia(rng, mass):
    """A physically valid central inertia (random principal moments obeying the triangle inequality)."""
    a, b = rng.uniform(0.2, 1.0, size=2) * mass * 0.05
    moments = np.array([a, b, rng.uniform(abs(a - b), a + b) + 1e-3 * mass * 0.05])
    moments[2] = min(moments[2], a + b)
    R = random_rotation(rng)
    return R @ np.diag(moments) @ R.T


JOINT_FACTORIES = {
    "revolute": lambda rng: mb.Revolute(rng.normal(size=3)),
    "prismatic": lambda rng: mb.Prismatic(rng.normal(size=3)),
    "cylindrical": lambda rng: mb.Cylindrical(rng.normal(size=3)),
    "spherical": lambda rng: mb.Spherical(),
    "planar": lambda rng: mb.Planar(),
    "free": lambda rng: mb.Free(),
    "fixed": lambda rng: mb.Fixed(),
}


def random_model(rng, n, kinds=("revolute", "prismatic", "spherical", "cylindrical", "planar", "fixed"),
                 free_base=False):
    """A random tree of n bodies: each body's parent is drawn among the earlier ones (or the world)."""
    model = mb.Model("random", gravity=rng.normal(size=3) * 3.0)
    for i in range(n):
        mass = rng.uniform(0.5, 3.0)
        body = mb.Body(f"b{i}", mass=mass, com=rng.normal(size=3) * 0.2, inertia=random_inertia(rng, mass))
        if i == 0:
            parent = "world"
            kind = "free" if free_base else str(rng.choice([k for k in kinds if k != "fixed"]))
        else:
            parent = "world" if rng.uniform() < 0.1 else f"b{rng.integers(0, i)}"
            kind = str(rng.choice(kinds))
        placement = mb.Transform(random_rotation(rng), rng.normal(size=3) * 0.3)
        model.add(body, parent=parent, joint=JOINT_FACTORIES[kind](rng), placement=placement)
    return model


def random_state(rng, model):
    """Random (q, v, a) with unit quaternions."""
    q = rng.normal(size=model.nq)
    return mb.normalize(model, q), rng.normal(size=model.nv), rng.normal(size=model.nv)


class PinocchioTwin:
    """The same mechanism in Pinocchio, with state and result converters."""

    def __init__(self, model):
        import pinocchio as pin
        self.pin = pin
        self.model = model
        pm = pin.Model()
        pm.gravity = pin.Motion(np.asarray(model.gravity, dtype=float), np.zeros(3))
        # Pinocchio's CRBA needs each subtree's velocities contiguous: add the joints in depth-first order.
        self.order = self._depth_first(model.parents)
        self.body_joint = [None] * model.nbodies  # per body: (joint id, pose of the body frame in that joint)
        for i in self.order:
            body, joint, parent, placement = model.bodies[i], model.joints[i], model.parents[i], model.placements[i]
            parent_joint, parent_offset = (0, pin.SE3.Identity()) if parent < 0 else self.body_joint[parent]
            X = parent_offset * pin.SE3(placement.rotation, placement.translation)
            inertia = pin.Inertia(body.mass, body.com, body.inertia)
            if joint.code == FIXED:
                pm.appendBodyToJoint(parent_joint, inertia, X)
                self.body_joint[i] = (parent_joint, X)
                continue
            jid = pm.addJoint(parent_joint, self._joint_model(joint), X, f"j{i}")
            pm.appendBodyToJoint(jid, inertia, pin.SE3.Identity())
            self.body_joint[i] = (jid, pin.SE3.Identity())
        self.pm = pm
        self.data = pm.createData()
        self._build_maps()

    @staticmethod
    def _depth_first(parents):
        children = {}
        for i, parent in enumerate(parents):
            children.setdefault(parent, []).append(i)
        order, stack = [], list(reversed(children.get(-1, [])))
        while stack:
            i = stack.pop()
            order.append(i)
            stack.extend(reversed(children.get(i, [])))
        return order

    def _joint_model(self, joint):
        pin = self.pin
        if joint.code == REVOLUTE:
            return pin.JointModelRevoluteUnaligned(joint.axis)
        if joint.code == PRISMATIC:
            return pin.JointModelPrismaticUnaligned(joint.axis)
        if joint.code == CYLINDRICAL:
            composite = pin.JointModelComposite(pin.JointModelRevoluteUnaligned(joint.axis))
            composite.addJoint(pin.JointModelPrismaticUnaligned(joint.axis))
            return composite
        if joint.code == SPHERICAL:
            return pin.JointModelSpherical()
        if joint.code == PLANAR:
            return pin.JointModelPlanar()
        if joint.code == FREE:
            return pin.JointModelFreeFlyer()
        raise NotImplementedError(joint)

    def _build_maps(self):
        """Permutation of v (ours → Pinocchio's) and joint-wise q conversion data."""
        perm = []
        self.q_parts = []
        for joint in (self.model.joints[i] for i in self.order):
            if joint.code == FIXED:
                continue
            s = self.model.v_slice(joint.name)
            idx = list(range(s.start, s.stop))
            if joint.code == FREE:  # ours [ω; v], Pinocchio [v; ω]
                idx = idx[3:] + idx[:3]
            perm += idx
            self.q_parts.append((joint.code, self.model.q_slice(joint.name)))
        self.v_perm = np.array(perm, dtype=int)  # pin_v = our_v[v_perm]

    def q(self, q):
        parts = []
        for code, s in self.q_parts:
            qj = q[s]
            if code == SPHERICAL:
                qj = np.r_[qj[1:4], qj[0]]
            elif code == FREE:
                qj = np.r_[qj[:3], qj[4:7], qj[3]]
            elif code == PLANAR:
                qj = np.r_[qj[:2], np.cos(qj[2]), np.sin(qj[2])]
            parts.append(qj)
        return np.concatenate(parts)

    def v(self, v):
        return np.asarray(v)[self.v_perm]

    def v_back(self, v_pin):
        v_pin = np.atleast_1d(v_pin)
        out = np.empty_like(v_pin)
        out[self.v_perm] = v_pin
        return out

    def rnea(self, q, v, a):
        return self.v_back(self.pin.rnea(self.pm, self.data, self.q(q), self.v(v), self.v(a)))

    def aba(self, q, v, tau):
        return self.v_back(self.pin.aba(self.pm, self.data, self.q(q), self.v(v), self.v(tau)))

    def crba(self, q):
        M = np.asarray(self.pin.crba(self.pm, self.data, self.q(q))).reshape(self.pm.nv, self.pm.nv)
        M = np.triu(M) + np.triu(M, 1).T
        out = np.empty_like(M)
        out[np.ix_(self.v_perm, self.v_perm)] = M
        return out

    def jacobian(self, q, body_index, point):
        """[ω; v_point] Jacobian in world axes (ours convention), from Pinocchio's LOCAL_WORLD_ALIGNED frame Jacobian."""
        pin = self.pin
        jid, offset = self.body_joint[body_index]
        frame = pin.Frame(f"probe{body_index}", jid, offset * pin.SE3(np.eye(3), np.asarray(point, float)),
                          pin.FrameType.OP_FRAME)
        pm = self.pm.copy()
        fid = pm.addFrame(frame)
        data = pm.createData()
        J = pin.computeFrameJacobian(pm, data, self.q(q), fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        J = np.asarray(J).reshape(6, -1)  # eigenpy returns a 6×1 matrix as a flat array
        J = np.vstack([J[3:], J[:3]])
        out = np.empty_like(J)
        out[:, self.v_perm] = J
        return out


def mujoco_urdf_on_floor(urdf, robots, friction=(0.8, 0.005, 0.0001), springs=None):
    """MuJoCo's model of an example-robot-data URDF (MuJoCo's own URDF reader; meshes as convex hulls) on a floor
    plane, with a free joint on the root link, every geom with ``friction`` and touching only the floor (no
    self-collision). Read from a copy of the file: ``package://`` mesh paths made absolute (``robots``: the
    example-robot-data robots folder), visual elements dropped, and the inertia of links MuJoCo rejects (Go1's and
    ANYmal's 1e-6 kg root link, whose inertia is singular) made diagonal. ``springs``: {joint: (stiffness [N·m/rad],
    damping [N·m·s/rad], rest angle [rad])} as MuJoCo's joint springs and dampers."""
    import xml.etree.ElementTree as ET

    import mujoco
    robot = ET.parse(urdf).getroot()
    for mesh in robot.iter("mesh"):
        package, _, rest = mesh.get("filename").removeprefix("package://").partition("/")
        mesh.set("filename", str(robots.parent / rest if package == "example-robot-data" else robots / package / rest))
    for inertia in robot.iter("inertia"):
        I = np.array([[float(inertia.get(k, 0)) for k in row] for row in
                      (("ixx", "ixy", "ixz"), ("ixy", "iyy", "iyz"), ("ixz", "iyz", "izz"))])
        if np.linalg.eigvalsh(I).min() <= 0:
            for k in ("ixy", "ixz", "iyz"):
                inertia.set(k, "0")
    ET.SubElement(ET.SubElement(robot, "mujoco"), "compiler", discardvisual="true", strippath="false",
                  fusestatic="false")
    spec = mujoco.MjSpec.from_string(ET.tostring(robot, encoding="unicode"))
    spec.worldbody.first_body().add_freejoint()
    for geom in spec.geoms:
        geom.contype, geom.conaffinity, geom.friction = 1, 0, list(friction)
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1], contype=0, conaffinity=1,
                            friction=list(friction))
    for joint in spec.joints:
        if springs and joint.name in springs:
            stiffness, damping, rest = springs[joint.name]
            # (MuJoCo 4's joint stiffness and damping are polynomials in the deflection: the linear terms)
            joint.stiffness, joint.damping, joint.springref = [stiffness, 0, 0], [damping, 0, 0], rest
    return spec.compile()
