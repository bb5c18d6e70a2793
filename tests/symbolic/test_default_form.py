"""The default form of the equations of motion by size: expanded up to 6 bodies, in auxiliary symbols beyond
(said in one warning), so that the default call stays fast on long chains; slow code generation is said."""
import numpy as np
import pytest

import multibody as mb
from multibody import symbolic as sym
from multibody.symbolic.equations import AUXILIARY_ABOVE


def sliding_chain(n):
    """n bodies on prismatic joints along x, y, z in turn: equations short to derive at any n."""
    model = mb.Model(f"sliders{n}", gravity=(0, 0, -9.81))
    parent = "world"
    for k in range(n):
        model.add(mb.Body(f"b{k}", mass=1.0 + k, com=(0.1, 0, 0), inertia=np.diag([0.1, 0.2, 0.3])), parent=parent,
                  joint=mb.Prismatic(np.eye(3)[k % 3]), placement=mb.Transform(translation=(0.2, 0, 0)))
        parent = f"b{k}"
    return model


def test_small_models_keep_the_expanded_equations(recwarn):
    eom = sym.equations_of_motion(sliding_chain(AUXILIARY_ABOVE))
    assert eom.auxiliaries == () and not [w for w in recwarn if "auxiliary symbols" in str(w.message)]


def test_larger_models_get_auxiliary_symbols_by_default_and_say_so():
    n = AUXILIARY_ABOVE + 1
    model = sliding_chain(n)
    with pytest.warns(UserWarning, match=f"has {n} bodies .*auxiliary symbols.*intermediates=False"):
        eom = sym.equations_of_motion(model)
    assert len(eom.auxiliaries) > 0
    assert sym.equations_of_motion(model, intermediates=False).auxiliaries == ()  # asked for: no warning
    f = eom.to_numeric(backend="numpy")
    rng = np.random.default_rng(3)
    q, u = rng.normal(size=n), rng.normal(size=n)
    np.testing.assert_allclose(f.mass_matrix(q, u), mb.crba(model, q), rtol=0, atol=1e-12)
    np.testing.assert_allclose(f.forcing(q, u), -mb.rnea(model, q, u, np.zeros(n)), rtol=0, atol=1e-10)


def test_slow_work_is_said_after_a_few_seconds(capsys):
    import time

    from multibody._notice import notice_if_slow
    with notice_if_slow("quick"):
        pass
    with notice_if_slow("generating code", seconds=0.2):
        time.sleep(0.6)
    time.sleep(0.3)
    assert capsys.readouterr().err == "multibody: generating code…\n"
