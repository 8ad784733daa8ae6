"""A strict YAML reader: YAML 1.2 core-schema scalars, no duplicate keys, bounded size.

PyYAML implements YAML 1.1, where `no`, `on`, `yes` are booleans, `010` is 8, `1:20` is 4800,
`2001-12-14` is a date and `1_000` is 1000. Pulumi's Go YAML library and every other current
reader of our files (kubectl, Ansible's own loader aside) read YAML 1.2's core schema
(yaml.org/spec/1.2.2 section 10.3.2), so this loader resolves exactly that schema:

- null: `~`, `null`, `Null`, `NULL`, empty; bool: `true`/`True`/`TRUE`, `false`/...;
- int: `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`; float: `[-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)
  ([eE][-+]?[0-9]+)?` (`.inf` / `.nan` are refused: no gpufabric value is infinite);
- everything else is a string. Tags other than str, int, float, bool, null, seq and map
  (`!!binary`, `!!timestamp`, `!!set`, `!!python/...`) are refused, as are `<<` merges by tag.

Bounds: nesting deeper than `max_depth`, more than `max_nodes` nodes once aliases are expanded
(an alias bomb) and an alias inside the node it names (a loop) are refused before any Python
object is built.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

# longer integers are not counts, sizes or ids of anything (an X.509 serial, RFC 5280 4.1.2.2:
# at most 20 octets, 49 digits)
INT_DIGITS = 100


class Refused(Exception):
    """A strict rule broken at `line` (1-based, 0 when unknown)."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_TAG = "tag:yaml.org,2002:"


def _resolvers() -> dict[Any, list[tuple[str, re.Pattern[str]]]]:
    table: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}
    for tag, rx, first in (
        ("null", _NULL, ["~", "n", "N", ""]),
        ("bool", _BOOL, list("tTfF")),
        ("int", _INT, list("-+0123456789")),
        ("float", _FLOAT, list("-+0123456789.")),
    ):
        for char in first:
            table.setdefault(char, []).append((_TAG + tag, rx))
    return table


def _line(node: Node) -> int:
    return node.start_mark.line + 1


class StrictLoader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema, bounds and duplicate keys refused."""

    yaml_implicit_resolvers = _resolvers()
    yaml_constructors = {
        tag: constructor
        for tag, constructor in yaml.SafeLoader.yaml_constructors.items()
        if tag is None or tag in {_TAG + t for t in ("null", "bool", "str", "seq", "map")}
    }

    def __init__(self, stream: str, max_depth: int, max_nodes: int) -> None:
        super().__init__(stream)
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self._depth = 0
        self._count = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            return super().compose_node(parent, index)
        line = self.peek_event().start_mark.line + 1
        self._depth += 1
        self._count += 1
        if self._depth > self.max_depth:
            raise Refused(line, f"nested deeper than {self.max_depth} levels")
        if self._count > self.max_nodes:
            raise Refused(line, f"more than {self.max_nodes} values")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        check_expansion(node, self.max_depth, self.max_nodes)
        return self.construct_document(node)

    # An explicit `!!int` / `!!float` tag reaches these with any text: held to the same core
    # schema forms as an untagged scalar (Python's int() and float() would also take `0xg`
    # with a traceback, `nan`, `1_000`, spaces and non-ASCII digits).

    def construct_yaml_int(self, node: Node) -> int:  # type: ignore[override]
        value = str(self.construct_scalar(node))  # type: ignore[arg-type]
        if not _INT.fullmatch(value):
            raise Refused(_line(node), f"{value!r} is not an integer")
        if len(value) > INT_DIGITS:
            raise Refused(_line(node), f"integer of {len(value)} digits is out of range")
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value, 10)

    def construct_yaml_float(self, node: Node) -> float:  # type: ignore[override]
        value = str(self.construct_scalar(node))  # type: ignore[arg-type]
        if not _FLOAT.fullmatch(value):
            raise Refused(_line(node), f"{value!r} is not a number")
        if value.lower().lstrip("+-") in (".inf", ".nan"):
            raise Refused(_line(node), f"{value} is not a number gpufabric accepts")
        number = float(value)
        if number in (float("inf"), float("-inf")):
            raise Refused(_line(node), f"{value} is out of range")
        return number

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:  # type: ignore[override]
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:
                raise Refused(_line(key_node), "a list or mapping used as a key") from None
            if duplicate:
                raise Refused(_line(key_node), f"key {key!r} given twice")
        return super().construct_mapping(node, deep=deep)


StrictLoader.add_constructor(_TAG + "int", StrictLoader.construct_yaml_int)
StrictLoader.add_constructor(_TAG + "float", StrictLoader.construct_yaml_float)
StrictLoader.add_constructor(_TAG + "map", StrictLoader.construct_yaml_map)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def check_expansion(root: Node, max_depth: int, max_nodes: int) -> None:
    """Refuse an alias loop, or a document deeper / larger than the bounds once aliases are
    expanded (an alias bomb). Iterative: a hostile document cannot exhaust the stack."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            on_path.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            if size[key] > max_nodes:
                raise Refused(_line(node), f"aliases expand to more than {max_nodes} values")
            if depth[key] > max_depth:
                raise Refused(_line(node), f"aliases nest deeper than {max_depth} levels")
            continue
        if key in size:
            continue
        if key in on_path:
            raise Refused(_line(node), "an alias refers to a node that contains it (a loop)")
        on_path.add(key)
        stack.append((node, True))
        stack.extend((kid, False) for kid in _children(node) if id(kid) not in size)
