"""mb.Trajectory: exact file round trip, table export, energies."""
import numpy as np
import pytest

import multibody as mb


@pytest.fixture
def bouncing_traj(double_pendulum):
    setup = double_pendulum
    model = setup.model
    model.add_force(mb.JointSpring("elbow", stiffness=3.0, rest=0.2, damping=0.1))
    event = mb.Event(lambda t, q, v: q[1], name="elbow_zero")
    return mb.simulate(model, setup.q0, setup.v0, t_end=2.0, events=[event], torque=lambda t, q, v: [np.sin(t), 0.0])


def test_save_load_round_trips_bit_exactly(bouncing_traj, tmp_path):
    traj = bouncing_traj
    assert traj.events  # the run crossed the event
    loaded = mb.Trajectory.load(traj.save(tmp_path / "run.npz"))
    for name in ("t", "q", "v", "a", "tau"):
        assert getattr(loaded, name).tobytes() == getattr(traj, name).tobytes(), name
    assert loaded.events == traj.events and loaded.info == traj.info
    assert loaded.impacts == traj.impacts == []
    before, after = traj.model.compile(), loaded.model.compile()
    assert np.array_equal(before.params, after.params) and np.array_equal(before.topology, after.topology)
    assert [f.to_dict() for f in loaded.model.forces] == [f.to_dict() for f in traj.model.forces]
    assert loaded.energy().tobytes() == traj.energy().tobytes()


def test_dataframe_has_labelled_columns_and_the_samples(bouncing_traj):
    pytest.importorskip("pandas")
    frame = bouncing_traj.to_dataframe()
    assert list(frame.columns[:3]) == ["t", "q[0]:shoulder", "q[1]:elbow"]
    assert frame.shape == (len(bouncing_traj), 1 + 2 * 4 + 3)  # t, q, v, a, tau, 3 energies
    np.testing.assert_array_equal(frame["v[1]:elbow"], bouncing_traj.v[:, 1])
    np.testing.assert_allclose(frame["energy"], bouncing_traj.energy())


def test_energy_parts_add_up(bouncing_traj):
    traj = bouncing_traj
    np.testing.assert_allclose(traj.energy("potential"), traj.energy("gravity") + traj.energy("elastic"))
    np.testing.assert_allclose(traj.energy(), traj.energy("kinetic") + traj.energy("potential"))
    elastic = 0.5 * 3.0 * (traj.q[:, 1] - 0.2) ** 2
    np.testing.assert_allclose(traj.energy("elastic"), elastic, rtol=1e-12)
    with pytest.raises(ValueError, match="kind"):
        traj.energy("heat")
    assert traj.constraint_errors().shape == (len(traj), 0)
