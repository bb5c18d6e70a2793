"""The contact pairs of an MJCF model are MuJoCo's, checked on every file of the dm-control suite.

The oracle is the compiled ``mujoco.MjModel``, not our parser: a pair of geoms reaches MuJoCo's narrowphase
(mj_collision, distance aside) unless the contacts are off (``<flag contact|constraint="disable">``), the two are on
one weld group (``body_weldid``), on a weld group and its parent's (``body_weldid`` of ``body_parentid`` of the
weld, neither the world, unless ``filterparent`` is disabled), their bit masks miss both ways (``geom_contype``,
``geom_conaffinity``), or their bodies are excluded (``exclude_signature``); an explicit ``<pair>`` always reaches
it. multibody's pairs (:func:`~multibody.constraints.contact.candidate_pairs`) must be the same, the pairs it has no
contact model for (plane–plane: MuJoCo has no collision function for them either) counted separately. Geoms that
multibody does not import (other shapes, warned about) are matched neither way: multibody's geometries are matched
to MuJoCo's geoms by body and order among the body's imported geoms, and by name where the geom has one.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.constraints.contact import candidate_pairs, pairs_and_unsupported
from multibody.constraints.geometry import Geometry, contact_coefficients, has_contact_model
from multibody.io import model_to_dict

mujoco = pytest.importorskip("mujoco")
suite = pytest.importorskip("dm_control.suite")

SUITE = Path(suite.__file__).parent
SUITE_FILES = sorted(p.name for p in SUITE.glob("*.xml"))
NOT_LOADING = {"dog.xml": "mesh geom"}  # the bones' masses come from mesh volumes (ModelError naming the geom)
GEOM = mujoco.mjtGeom
IMPORTED = {int(GEOM.mjGEOM_PLANE), int(GEOM.mjGEOM_SPHERE), int(GEOM.mjGEOM_CAPSULE), int(GEOM.mjGEOM_BOX)}
OFF = int(mujoco.mjtDisableBit.mjDSBL_CONTACT) | int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)


def mujoco_pairs(m):
    """{(g1, g2), g1 < g2} that MuJoCo's mj_collision passes to its narrowphase at any distance."""
    if m.opt.disableflags & OFF:
        return set()
    weld, parent = m.body_weldid, m.body_parentid
    filter_parent = not m.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_FILTERPARENT)
    excluded = {(s >> 16, s & 0xFFFF) for s in m.exclude_signature}
    pairs = {tuple(sorted(pair)) for pair in zip(m.pair_geom1, m.pair_geom2)}
    for g1 in range(m.ngeom):
        for g2 in range(g1 + 1, m.ngeom):
            b1, b2 = m.geom_bodyid[g1], m.geom_bodyid[g2]
            w1, w2 = weld[b1], weld[b2]
            if w1 == w2 or (filter_parent and w1 and w2 and (w1 == weld[parent[w2]] or w2 == weld[parent[w1]])):
                continue
            if not (m.geom_contype[g1] & m.geom_conaffinity[g2] or m.geom_contype[g2] & m.geom_conaffinity[g1]):
                continue
            if (min(b1, b2), max(b1, b2)) not in excluded:
                pairs.add((g1, g2))
    return pairs


def imported(m, g):
    paired = g in m.pair_geom1 or g in m.pair_geom2
    return int(m.geom_type[g]) in IMPORTED and bool(m.geom_contype[g] or m.geom_conaffinity[g] or paired)


def geom_index(m, model):
    """MuJoCo's geom index of each multibody geometry: by body and order among the body's imported geoms."""
    order = {}
    for g in range(m.ngeom):
        if imported(m, g):
            b = m.geom_bodyid[g]
            body = "world" if b == 0 else (m.body(b).name or f"body{b}")
            order.setdefault(body, []).append(g)
    seen, index = {}, []
    for geometry in model.geometries:
        k = seen[geometry.body] = seen.get(geometry.body, -1) + 1
        index.append(order[geometry.body][k])
        name = m.geom(index[-1]).name
        assert not name or name == geometry.name, (name, geometry.name)
    assert sorted(index) == [g for g in range(m.ngeom) if imported(m, g)]
    return index


def compare(m, model):
    """(multibody's pairs with a contact model, MuJoCo's; the pairs without one, each side; MuJoCo's pairs with a
    geom multibody does not import) as sets of MuJoCo geom-index pairs."""
    index = geom_index(m, model)
    ours = {tuple(sorted((index[i], index[j]))) for i, j in candidate_pairs(model)}
    theirs = mujoco_pairs(m)
    kept = {(g1, g2) for g1, g2 in theirs if imported(m, g1) and imported(m, g2)}
    shapes = {index[i]: type(g.shape) for i, g in enumerate(model.geometries)}

    def split(pairs):
        modelled = {(a, b) for a, b in pairs if has_contact_model(shapes[a], shapes[b])}
        return modelled, pairs - modelled
    (ours_modelled, ours_not), (theirs_modelled, theirs_not) = split(ours), split(kept)
    return ours_modelled, theirs_modelled, ours_not, theirs_not, theirs - kept


def load_quietly(source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mb.Model.from_mjcf(source)


@pytest.mark.parametrize("name", SUITE_FILES)
def test_suite_contact_pairs_are_mujocos(name):
    m = mujoco.MjModel.from_xml_path(str(SUITE / name))
    if name in NOT_LOADING:
        with pytest.raises(mb.ModelError, match=NOT_LOADING[name]):
            load_quietly(SUITE / name)
        return
    ours, theirs, ours_not, theirs_not, dropped = compare(m, load_quietly(SUITE / name))
    assert ours == theirs
    assert ours_not == theirs_not
    names = lambda pairs: {(m.geom(a).name, m.geom(b).name) for a, b in pairs}  # noqa: E731
    assert not any(m.geom_type[g] in IMPORTED for pair in dropped for g in pair if not imported(m, g)), names(dropped)


def test_suite_files_pair_as_expected():
    """The numbers behind the oracle: which files have contacts at all, and how many pairs each side has."""
    counts = {}
    for name in SUITE_FILES:
        if name not in NOT_LOADING:
            m = mujoco.MjModel.from_xml_path(str(SUITE / name))
            ours, _, ours_not, _, dropped = compare(m, load_quietly(SUITE / name))
            counts[name] = (len(ours), len(ours_not), len(dropped))
    # contacts off (contact or constraint flag): acrobot, cartpole, fish, lqr, pendulum, point_mass, reacher, swimmer
    assert [name for name, count in counts.items() if count == (0, 0, 0)] == [
        "acrobot.xml", "cartpole.xml", "fish.xml", "lqr.xml", "pendulum.xml", "point_mass.xml", "reacher.xml",
        "swimmer.xml"]
    assert counts["walker.xml"] == (7, 0, 0) and counts["humanoid.xml"][0] > 0


SMALL = """<mujoco>{option}<worldbody>
  <geom name="floor" type="plane" size="1 1 .1"/>
  <geom name="wall" type="box" size=".1 1 1" pos="2 0 0"/>
  <body name="static" pos="0 0 1"><geom name="post" size=".1"/></body>
  <body name="torso" pos="0 0 1"><freejoint/><geom name="chest" size=".1"/>
    <body name="plate"><geom name="plate" type="box" size=".1 .1 .01"/></body>
    <body name="thigh"><joint axis="1 0 0"/><joint axis="0 1 0"/><joint axis="0 0 1"/><geom name="thigh" size=".1"/>
      <body name="shin"><joint/><geom name="shin" type="capsule" size=".05 .2"/>
        <body name="foot"><geom name="foot" type="box" size=".1 .05 .02"/>
          <body name="toe"><joint/><geom name="toe" size=".03"/></body></body></body></body>
    <body name="arm"><joint/><geom name="arm" type="capsule" size=".05 .2" contype="2" conaffinity="2"/></body>
  </body>
  <body name="ball" pos="1 0 1"><joint type="slide"/><joint type="slide" axis="0 1 0"/><geom name="ball" size=".1"/>
    <geom name="ghost" size=".05" pos="0 0 .3" contype="0" conaffinity="0"/></body>
</worldbody>{contact}</mujoco>"""


@pytest.mark.parametrize("option, contact", [
    ("", ""),
    ('<option><flag filterparent="disable"/></option>', ""),
    ("", '<contact><exclude body1="thigh" body2="ball"/><exclude body1="torso" body2="toe"/></contact>'),
    ('<option><flag contact="disable"/></option>', ""),
    ('<option><flag constraint="disable"/></option>', ""),
    ("", '<contact><pair geom1="thigh" geom2="chest"/><pair geom1="ghost" geom2="floor"/></contact>'),
    ('<option><flag contact="disable"/></option>', '<contact><pair geom1="ghost" geom2="floor"/></contact>'),
])
def test_weld_groups_parents_compound_joints_and_flags_pair_as_mujoco(option, contact):
    """World and static bodies one weld group; a body without joints welded to its parent (plate to torso, foot to
    shin); the parent filter across a compound joint (thigh's three hinges: the massless bodies between them are
    skipped) and a weld (toe's parent is shin's group); filterparent off; excluded bodies; contacts off; explicit
    pairs (of a body and its parent, of a geom that touches nothing else)."""
    xml = SMALL.format(option=option, contact=contact)
    m = mujoco.MjModel.from_xml_string(xml)
    model = load_quietly(xml)
    ours, theirs, ours_not, theirs_not, dropped = compare(m, model)
    assert ours == theirs and ours_not == theirs_not and not dropped
    if not option and not contact:
        pairs = {frozenset((model.geometries[i].name, model.geometries[j].name)) for i, j in candidate_pairs(model)}
        assert {"thigh", "chest"} not in pairs and {"thigh", "plate"} not in pairs and {"shin", "chest"} in pairs
        assert {"toe", "foot"} not in pairs and {"toe", "shin"} not in pairs and {"floor", "post"} not in pairs


def test_filter_parent_is_the_models_switch_and_its_saving_says_it_is_not_kept():
    model = load_quietly(SMALL.format(option="", contact=""))
    on = set(candidate_pairs(model))
    assert len(pairs_and_unsupported(model)[0]) == len(on)
    model.filter_parent = False
    off = set(candidate_pairs(model))
    assert on < off and len(pairs_and_unsupported(model)[0]) == len(off)  # the cached pairs follow the switch
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model_to_dict(model)
    assert any("filter_parent = False (a link's shapes touch its parent's) is not saved" in str(w.message)
               for w in caught)


def test_contact_pair_settings_warn_naming_the_pair_and_unknown_names_raise():
    xml = SMALL.format(option="", contact='<contact><pair geom1="arm" geom2="chest" solref=".01 1"/></contact>')
    with pytest.warns(UserWarning, match=r"<contact><pair> arm–chest solref \(not read\)"):
        mb.Model.from_mjcf(xml)
    with pytest.raises(mb.ModelError, match=r"<contact><pair geom1='arm' geom2='nothing'> geom2: unknown geom"):
        load_quietly(SMALL.format(option="", contact='<contact><pair geom1="arm" geom2="nothing"/></contact>'))
    with pytest.raises(mb.ModelError, match=r"<contact><exclude body2>: unknown body 'nobody'"):
        load_quietly(SMALL.format(option="", contact='<contact><exclude body1="thigh" body2="nobody"/></contact>'))


def test_srdf_and_mjcf_exclusions_are_one_geometry_method():
    a, b = Geometry("world", mb.Sphere(0.1), name="a"), Geometry("world", mb.Sphere(0.1), name="b")
    assert a.exclude_contacts(b) and not b.exclude_contacts(a)
    assert a.exclude == {"b"} and b.exclude == {"a"}


def mujoco_contact_coefficients(name, seconds=1.5):
    """{(g1, g2): (friction, dim)} of the contacts MuJoCo makes in ``seconds`` of the file's motion from qpos0
    with random controls (falls, self-collisions), with g1 < g2."""
    m = mujoco.MjModel.from_xml_path(str(SUITE / name))
    d = mujoco.MjData(m)
    rng = np.random.default_rng(0)
    seen = {}
    for _ in range(int(seconds / m.opt.timestep)):
        d.ctrl[:] = rng.uniform(-1, 1, m.nu)
        mujoco.mj_step(m, d)
        for c in d.contact[:d.ncon]:
            seen[tuple(sorted((int(c.geom1), int(c.geom2))))] = (float(c.friction[0]), int(c.dim))
    return m, seen


@pytest.mark.parametrize("name", ["humanoid.xml", "quadruped.xml", "cheetah.xml", "walker.xml", "hopper.xml"])
def test_contact_friction_is_mujocos_on_its_own_contacts(name):
    """Each contact MuJoCo makes in a fall of the model (the oracle: its compiled contacts' friction and dimension)
    gets the same friction from multibody's rule (contact_coefficients: the priority, then the larger friction of
    the two geoms and their larger condim; condim 1 frictionless). The humanoid's body geoms have condim 1: its
    self-contacts are frictionless, its contacts with the floor not."""
    m, seen = mujoco_contact_coefficients(name)
    model = load_quietly(SUITE / name)
    assert model.friction_rule == "max"
    geometry = {g: model.geometries[i] for i, g in enumerate(geom_index(m, model))}
    checked = dims = 0
    for (g1, g2), (friction, dim) in seen.items():
        if g1 in geometry and g2 in geometry:
            mu, _ = contact_coefficients(model, geometry[g1], geometry[g2])
            assert mu == (friction if dim > 1 else 0.0), (m.geom(g1).name, m.geom(g2).name, mu, friction, dim)
            checked += 1
            dims |= 1 << dim
    assert checked >= 2, seen
    if name == "humanoid.xml":
        assert dims & 2 and dims & 8, "both frictionless (condim 1) and frictional contacts were checked"


def test_priority_and_condim_decide_a_contacts_friction_and_are_kept_in_model_files():
    a = Geometry("world", mb.Sphere(0.1), friction=0.2, name="a")
    b = Geometry("world", mb.Sphere(0.1), friction=0.8, restitution=0.3, name="b")
    geometric, largest = mb.Model("geometric"), mb.Model("max")
    largest.friction_rule = "max"
    assert contact_coefficients(geometric, a, b) == (0.4, 0.3)
    assert contact_coefficients(largest, a, b) == (0.8, 0.3)
    a.priority = 1
    assert contact_coefficients(largest, a, b) == (0.2, 0.3)
    a.condim = 1
    assert contact_coefficients(largest, a, b) == (0.0, 0.3)  # the higher priority's condim
    a.priority = 0
    assert contact_coefficients(largest, a, b) == (0.8, 0.3)  # the larger condim
    largest.pair_friction[frozenset(("b", "a"))] = 0.6
    assert contact_coefficients(largest, a, b) == (0.6, 0.3)  # the pair's own
    with pytest.raises(mb.ModelError, match="condim must be 1 .* got 6"):
        Geometry("world", mb.Sphere(0.1), condim=6)
    model = mb.Model("two")
    model.add(mb.Body("ball", mass=1.0, inertia=np.eye(3)), joint=mb.Free())
    model.add_geometry("ball", mb.Sphere(0.1), friction=0.3, priority=2, condim=1)
    model.add_geometry("world", mb.Plane())
    model.friction_rule = "max"
    back = mb.io.model_from_dict(model_to_dict(model))
    assert back.friction_rule == "max"
    assert [(g.priority, g.condim) for g in back.geometries] == [(2, 1), (0, 3)]
    with pytest.raises(mb.ModelError, match="friction_rule must be one of geometric, max, got 'min'"):
        model.friction_rule = "min"


def test_mjcf_condim_4_and_6_warn_that_only_sliding_friction_acts():
    xml = SMALL.format(option="", contact="").replace('<geom name="ball" size=".1"/>',
                                                       '<geom name="ball" size=".1" condim="6" priority="1"/>')
    with pytest.warns(UserWarning, match=r"torsional and rolling friction \(geom condim 4 and 6"):
        model = mb.Model.from_mjcf(xml)
    ball = next(g for g in model.geometries if g.name == "ball")
    assert (ball.condim, ball.priority) == (3, 1)
    with pytest.raises(mb.ModelError, match=r"<geom name='ball'> condim: expected an integer, got '2.5'|condim must"):
        load_quietly(xml.replace('condim="6"', 'condim="2.5"'))


@pytest.mark.parametrize("pair", ['<pair geom1="ball" geom2="floor"/>',
                                  '<pair geom1="floor" geom2="ball" friction=".2 .2 .01 .001 .001"/>',
                                  '<pair geom1="ball" geom2="floor" friction=".4" condim="1"/>'])
def test_an_explicit_pairs_friction_is_the_pairs_as_mujoco_takes_it(pair):
    """MuJoCo gives a <contact><pair> its own friction and condim (defaults 1 and 3), not the geoms' mix: the oracle
    is the compiled MjModel's pair_friction and pair_dim."""
    xml = f"""<mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1" friction=".3"/>
      <body pos="0 0 .1"><freejoint/><geom name="ball" size=".1" friction=".7" condim="1"/></body></worldbody>
      <contact>{pair}</contact></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    model = load_quietly(xml)
    ball, floor = (next(g for g in model.geometries if g.name == name) for name in ("ball", "floor"))
    expected = m.pair_friction[0, 0] if m.pair_dim[0] > 1 else 0.0
    assert contact_coefficients(model, ball, floor)[0] == expected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model_to_dict(model)
    assert any("the friction of 1 explicit contact pairs" in str(w.message) for w in caught)
