"""YAML files read safely: bounds on the nesting depth and on what aliases expand to, so that a small hostile file
(a "billion laughs") cannot exhaust memory or the stack, and duplicate keys refused; every error a ModelError
naming the file and where in it."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import ModelError


def join_path(path, key):
    """The path to a field of a file's data: ``bodies[2].mass``."""
    return f"{path}.{key}" if path and not isinstance(key, int) else (f"{path}[{key}]" if path else str(key))


# Bounds on a YAML model file's structure (a model needs a nesting depth of about 6): beyond them the file is
# refused before it is built, so that nested aliases (a 1 kB "billion laughs" file) cannot exhaust memory.
YAML_MAX_DEPTH = 100
YAML_MAX_NODES = 2_000_000  # nodes of the document with every alias expanded


def yaml_load(path: Path | str) -> object:
    """The content of a YAML file, with libyaml's parser when present (``CSafeLoader``, 3–4× faster), refusing
    with a ModelError naming the file: invalid YAML, nesting deeper than YAML_MAX_DEPTH, aliases that expand to
    more than YAML_MAX_NODES nodes (or refer to themselves), and duplicate keys (naming the path and the key)."""
    import yaml
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ModelError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        if _nesting_bound(text) > 2000:  # libyaml's composer recurses in C: measure the depth first (events)
            _check_yaml_depth(text, loader_class, path)
        loader = loader_class(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _check_yaml_nodes(node, path)
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise ModelError(f"{path}: {where}invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
        if isinstance(exc, ModelError):
            raise
        raise ModelError(f"{path}: invalid YAML: {type(exc).__name__}: {exc}") from None


def _check_yaml_depth(text, loader_class, path):
    """Refuse nesting deeper than YAML_MAX_DEPTH from the parser's events, before anything is composed. Newer
    PyYAML scanners refuse deep flow nesting themselves (their own limit and wording) while they look ahead: an
    error at a position inside more than YAML_MAX_DEPTH open brackets is reported as this nesting too."""
    import yaml
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader_class):
            depth += isinstance(event, yaml.CollectionStartEvent) - isinstance(event, yaml.CollectionEndEvent)
            if depth > YAML_MAX_DEPTH:
                raise ModelError(f"{path}: line {event.start_mark.line + 1}: nested more than "
                                 f"{YAML_MAX_DEPTH} levels deep")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        if mark is not None and _flow_depth(text[:mark.index]) > YAML_MAX_DEPTH:
            raise ModelError(f"{path}: line {mark.line + 1}: nested more than {YAML_MAX_DEPTH} levels deep") from None
        raise


def _flow_depth(text):
    """The most flow collections ([ or {) open at once anywhere in ``text`` (brackets in strings counted too)."""
    codes = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    flow = np.cumsum((codes == ord("[")).astype(np.int64) + (codes == ord("{")) - (codes == ord("]"))
                     - (codes == ord("}")))
    return int(flow.max()) if flow.size else 0


def _nesting_bound(text):
    """An upper bound on the nesting depth of a YAML text: block collections nest at most twice per column of
    the longest line, flow collections once per open bracket."""
    longest = max(map(len, text.splitlines()), default=0)
    return 2 * (longest + 1) + _flow_depth(text)


def _check_yaml_nodes(root, path):
    """Walk the composed YAML nodes (aliases are shared nodes: each is visited once): refuse self-referring
    aliases, more than YAML_MAX_NODES nodes once aliases are expanded, nesting deeper than YAML_MAX_DEPTH and
    duplicate keys."""
    import yaml
    expanded = {}  # id(node) -> its number of nodes with aliases expanded
    active = set()

    def walk(node, where, depth):
        if id(node) in expanded:
            return expanded[id(node)]
        if id(node) in active:
            raise ModelError(f"{path}: {where or 'top level'}: an alias refers to a node that contains it")
        if depth > YAML_MAX_DEPTH:
            raise ModelError(f"{path}: {where}: nested more than {YAML_MAX_DEPTH} levels deep")
        active.add(id(node))
        size = 1
        if isinstance(node, yaml.SequenceNode):
            for k, item in enumerate(node.value):
                size += walk(item, join_path(where, k), depth + 1)
        elif isinstance(node, yaml.MappingNode):
            seen = set()
            for key, value in node.value:
                is_scalar = isinstance(key, yaml.ScalarNode)
                label = key.value if is_scalar else "<key>"
                if is_scalar and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in seen:
                        raise ModelError(f"{path}: {join_path(where, label) if where else label}: duplicate key "
                                         f"{label!r} (line {key.start_mark.line + 1})")
                    seen.add(key.value)
                size += walk(key, where, depth + 1) + walk(value, join_path(where, label), depth + 1)
        active.discard(id(node))
        if size > YAML_MAX_NODES:
            raise ModelError(f"{path}: {where or 'top level'}: aliases expand to more than {YAML_MAX_NODES:,} "
                             f"nodes (refused: a model file is far smaller)")
        expanded[id(node)] = size
        return size

    walk(root, "", 0)
