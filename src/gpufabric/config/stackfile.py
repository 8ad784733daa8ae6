"""The one strict reader of stack files (`stacks/Pulumi.<stack>.yaml`).

Every way a stack file reaches gpufabric (`gpufabric plan`, the Pulumi program) goes through
`load_stack_file`, so a broken file reads the same everywhere: one line naming the file and
what is wrong (UserError), never a silently different value.

Rules, from Pulumi's own reader (pulumi/pulumi sdk/go/common/workspace/project.go `ProjectStack`,
sdk/go/common/resource/config/key.go `ParseKey`) and YAML 1.2 as Pulumi's Go YAML library reads it:
- UTF-8 text; a YAML mapping at the top; only Pulumi's stack-file sections at the top level;
- a `config:` mapping (gpufabric cannot build anything without one);
- no key twice in any mapping (PyYAML would silently keep the last one);
- config keys `<namespace>:<name>` (or the old `<namespace>:config:<name>`); a bare name is the
  project's namespace;
- `yes` / `no` / `on` / `off` are strings, as in YAML 1.2: only true / false are booleans.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from gpufabric.errors import UserError

# ProjectStack's YAML fields (project.go), plus `environment` (Pulumi ESC environments).
STACK_SECTIONS = ("config", "encryptedkey", "encryptionsalt", "environment", "secretsprovider")

# YAML 1.2 core schema booleans (what Pulumi's YAML library reads as bool into interface{}).
_BOOL_12 = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys and reads only YAML 1.2 booleans as bool."""


# YAML 1.1's yes/no/on/off resolver goes; the 1.2 one replaces it.
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL_12, list("tTfF"))


class DuplicateKeyError(yaml.YAMLError):
    def __init__(self, key: object, line: int) -> None:
        super().__init__(f"duplicate key {key!r} (line {line})")


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[object] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
        except TypeError:  # an unhashable key: SafeLoader reports it itself
            duplicate = False
        if duplicate:
            raise DuplicateKeyError(key, key_node.start_mark.line + 1)
        if not isinstance(key, list | dict):
            seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(data: bytes, where: str) -> Any:
    """Strict YAML from bytes: UTF-8, no duplicate keys, YAML 1.2 booleans."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    if "\0" in text:
        raise UserError(f"{where}: binary data (NUL byte), expected YAML text")
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except DuplicateKeyError as exc:
        raise UserError(f"{where}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or exc.__class__.__name__
        raise UserError(f"{where}: not valid YAML{line} ({problem})") from None


def full_key(key: str, project: str, where: str) -> str:
    """`nodes` -> `<project>:nodes`; `ns:name` kept; `ns:config:name` -> `ns:name`; else refused."""
    colons = key.count(":")
    if colons == 0:
        return f"{project}:{key}"
    if colons == 1 and not key.startswith(":") and not key.endswith(":"):
        return key
    namespace, middle, name = [*key.split(":"), "", ""][:3]
    if colons == 2 and middle == "config" and namespace and name:
        return f"{namespace}:{name}"
    raise UserError(
        f"{where}: config key {key!r} is not of the form <namespace>:<name> (e.g. {project}:nodes)"
    )


def parse_stack_document(data: bytes, where: str, project: str) -> dict[str, Any]:
    """The `config:` map of a stack file's bytes, keys fully namespaced; UserError otherwise."""
    if not data.strip():
        raise UserError(f"{where}: empty file, expected a 'config:' mapping")
    doc = load_yaml(data, where)
    if not isinstance(doc, dict):
        raise UserError(
            f"{where}: the top level is a {type(doc).__name__}, expected a mapping with 'config:'"
        )
    unknown = [str(k) for k in doc if k not in STACK_SECTIONS]
    if unknown:
        raise UserError(
            f"{where}: unknown top-level section {unknown[0]!r}; "
            f"a stack file has {', '.join(STACK_SECTIONS)}"
        )
    if "config" not in doc:
        raise UserError(f"{where}: no 'config:' section")
    config = doc["config"]
    if not isinstance(config, dict) or not config:
        what = "empty" if config in (None, {}) else f"a {type(config).__name__}"
        raise UserError(f"{where}: 'config' is {what}, expected a mapping of keys")
    out: dict[str, Any] = {}
    for key, value in config.items():
        if not isinstance(key, str):
            raise UserError(f"{where}: config key {key!r} is not a string")
        name = full_key(key, project, where)
        if name in out:
            raise UserError(f"{where}: config key {name!r} given twice ({key!r})")
        out[name] = value
    return out


def load_stack_file(path: Path, project: str) -> dict[str, Any]:
    """Read and check one stack file; its `config:` map with namespaced keys."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory, expected a stack file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return parse_stack_document(data, str(path), project)
