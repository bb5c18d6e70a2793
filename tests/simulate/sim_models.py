"""Small analytic models shared by the simulation tests."""
import numpy as np
import multibody as mb

G = 9.81


def point_pendulum(length=1.0, mass=1.0, links=1):
    """A chain of point masses (tiny inertia) on massless rods of ``length``, hinged about y, hanging along −z."""
    model = mb.Model(f"point_pendulum{links}", gravity=(0, 0, -G))
    parent = "world"
    for k in range(links):
        model.add(mb.Body(f"bob{k}", mass=mass, com=(0, 0, -length), inertia=np.eye(3) * 1e-12),
                  parent=parent, joint=mb.Revolute((0, 1, 0)),
                  placement=mb.Transform(translation=(0, 0, 0 if k == 0 else -length)))
        parent = f"bob{k}"
    return model
