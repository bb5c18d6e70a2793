"""The analytical dynamics derivatives of every example-robot-data URDF, fixed and floating, agree with Pinocchio's
``computeRNEADerivatives`` and ``computeABADerivatives`` on its own URDF parser's model to 1e-9."""
import numpy as np
import pytest

import multibody as mb
from multibody.model.joints import FREE
from test_robot_files import EMPTY, FILES, MASSLESS_JOINTS, NamedTwin, _load, _pinocchio_floating

pin = pytest.importorskip("pinocchio")


def _permutation(twin):
    """perm with ours[i] = Pinocchio's[perm[i]] for the entries of v (a free joint's [ω; v] against [v; ω])."""
    perm = np.empty(twin.model.nv, dtype=int)
    for code, _, sv, _, _, iv, nv in twin.joints:
        idx = np.arange(iv, iv + nv)
        perm[sv] = np.r_[idx[3:], idx[:3]] if code == FREE else idx
    return np.ix_(perm, perm)


@pytest.mark.slow
def test_every_robot_file_has_pinocchios_dynamics_derivatives():
    checked = 0
    for path in FILES:
        if path.name in EMPTY:
            continue
        for floating in (False, True):
            model = _load(path, floating)
            file_floats = any(type(j) is mb.Free and j.name != "root_joint" for j in model.joints)
            reference = (_pinocchio_floating(path) if floating and not file_floats
                         else pin.buildModelFromUrdf(str(path)))
            twin, data = NamedTwin(model, reference), reference.createData()
            perm = _permutation(twin)
            rng = np.random.default_rng(len(path.name))
            q = model.random_configuration(rng)
            v, a = rng.normal(size=(2, model.nv))
            qp, vp, ap = twin.q(q), twin.v(v), twin.v(a)
            dq, dv, M = mb.rnea_derivatives(model, q, v, a)
            pin.computeRNEADerivatives(reference, data, qp, vp, ap)
            scale = 1.0 + np.abs(dq).max(initial=0.0)
            for ours, theirs in ((dq, np.asarray(data.dtau_dq)[perm]), (dv, np.asarray(data.dtau_dv)[perm]),
                                 (M, twin.M(data.M))):
                np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9 * scale,
                                           err_msg=f"{path.name} floating={floating}")
            if path.name not in MASSLESS_JOINTS and model.nv:
                tau = mb.rnea(model, q, v, a)
                ddq, ddv, Minv = mb.aba_derivatives(model, q, v, tau)
                pin.computeABADerivatives(reference, data, qp, vp, twin.v(tau))
                cond = np.linalg.cond(M)
                for ours, theirs in ((ddq, data.ddq_dq), (ddv, data.ddq_dv), (Minv, twin.M(np.asarray(data.Minv)))):
                    theirs = theirs if ours is Minv else np.asarray(theirs)[perm]
                    np.testing.assert_allclose(ours, theirs, rtol=0,
                                               atol=1e-9 * (1 + np.abs(ours).max()) * max(1.0, cond * 1e-4),
                                               err_msg=f"{path.name} floating={floating}")
            checked += 1
    assert checked >= 130
