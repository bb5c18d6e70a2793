"""MJCF contact settings as multibody's: a colliding geom's shape, and MuJoCo's per-geom contact filters and explicit
pairs as ``Geometry.exclude`` and ``Geometry.include`` (the weld and parent filters, the same for every model, are
:func:`multibody.constraints.contact.candidate_pairs`'). Used by :func:`multibody.io.mjcf.model_from_mjcf`.
"""
from __future__ import annotations

from .mjcf_xml import attributes

_PAIR_SETTINGS = ("solref", "solreffriction", "solimp", "margin", "gap")  # not read


def _contact_shape(kind, size):
    from ..constraints.geometry import Box, Capsule, Plane, Sphere
    if kind == "sphere":
        return Sphere(size[0])
    if kind == "box":
        return Box(size[:3])
    if kind == "capsule":
        return Capsule(size[0], size[1])
    if kind == "plane":
        return Plane()
    return None


def _condim(mjcf, attrs, where, kind):
    """The ``condim`` of a geom or pair (``kind``) as multibody takes it: 1 (frictionless) or 3 (sliding friction;
    MuJoCo's 4 and 6 add torsional and rolling friction, which multibody does not model: they act as 3, with a
    warning)."""
    condim = mjcf.integer(attrs, "condim", where, 3)
    if condim not in (1, 3, 4, 6):
        mjcf.fail(f"{where} condim", f"must be 1, 3, 4 or 6, got {condim}")
    if condim > 3:
        mjcf.ignored[f"torsional and rolling friction ({kind} condim 4 and 6; their sliding friction acts)"] += 1
    return min(condim, 3)


def _contact_filters(mjcf, root, builder, geometries):
    """MuJoCo's per-geom contact filters as ``Geometry.exclude`` (the weld and parent filters are
    :func:`~multibody.constraints.contact.candidate_pairs`'): two geoms touch only if (contype₁ & conaffinity₂) or
    (contype₂ & conaffinity₁) is non-zero, never when ``<contact><exclude body1 body2>`` names their bodies, and
    none do when ``<flag contact="disable">`` (or ``constraint``)."""
    excluded = set()
    for element in root.findall("contact"):
        for child in element.findall("exclude"):
            pair = (child.get("body1"), child.get("body2"))
            for key, body in zip(("body1", "body2"), pair):
                if body not in builder.mb_body:
                    mjcf.fail(f"<contact><exclude {key}>", f"unknown body {body!r}")
            excluded |= {pair, pair[::-1]}
    off = bool(mjcf.disabled & {"contact", "constraint"})
    for i, (_, _, _, _, _, body_i, type_i, affinity_i) in enumerate(builder.geoms):
        for j in range(i + 1, len(builder.geoms)):
            _, _, _, _, _, body_j, type_j, affinity_j = builder.geoms[j]
            if off or not (type_i & affinity_j or type_j & affinity_i) or (body_i, body_j) in excluded:
                geometries[i].exclude_contacts(geometries[j])


def _contact_pairs(mjcf, root, classes, model, geometries):
    """Each ``<contact><pair geom1 geom2>`` as ``Geometry.include``: the two touch whatever the filters (not when
    the contacts are off), with the pair's own friction in ``model.pair_friction``, as MuJoCo takes it: the pair's
    ``friction`` (default 1, not the geoms') unless its ``condim`` is 1 (default 3; 4 and 6 act as 3, with a
    warning). Its other settings (solref, margin, ...) are not read; each pair that sets one is listed."""
    if mjcf.disabled & {"contact", "constraint"}:
        return
    by_name = {g.name: g for g in geometries}
    names = {element.get("name") for element in root.iter("geom")}
    for element in root.findall("contact"):
        for child in element.findall("pair"):
            attrs = attributes(mjcf, classes, child, "main")
            pair = attrs.get("geom1"), attrs.get("geom2")
            where = f"<contact><pair geom1={pair[0]!r} geom2={pair[1]!r}>"
            for key, name in zip(("geom1", "geom2"), pair):
                if name not in names:
                    mjcf.fail(f"{where} {key}", f"unknown geom {name!r}")
            label = f"<contact><pair> {pair[0]}–{pair[1]}"
            if pair[0] not in by_name or pair[1] not in by_name:
                mjcf.ignored[f"{label} (a geom of a shape multibody has no contact model for)"] += 1
                continue
            by_name[pair[0]].include.add(pair[1])
            condim = _condim(mjcf, attrs, where, "pair")
            friction = mjcf.numbers(attrs, "friction", where, (1, 2, 3, 4, 5), "1 1 0.005 0.0001 0.0001")[0]
            model.pair_friction[frozenset(pair)] = friction if condim > 1 else 0.0
            settings = [key for key in _PAIR_SETTINGS if key in attrs]
            if settings:
                mjcf.ignored[f"{label} {', '.join(settings)} (not read)"] += 1
