"""The one strict reader of stack files (`stacks/Pulumi.<stack>.yaml`).

Every way a stack file reaches gpufabric (`gpufabric plan`, the Pulumi program) goes through
`load_stack_file`, so a broken file reads the same everywhere: one line naming the file and
what is wrong (UserError), never a silently different value.

The reading itself is gpufabric.inputs (files.read_bytes, formats.parse_yaml). Rules, from
Pulumi's own reader (pulumi/pulumi sdk/go/common/workspace/project.go `ProjectStack`,
sdk/go/common/resource/config/key.go `ParseKey`) and YAML 1.2 as Pulumi's Go YAML library reads it:
- UTF-8 text; a YAML mapping at the top; only Pulumi's stack-file sections at the top level;
- a `config:` mapping (gpufabric cannot build anything without one);
- no key twice in any mapping (PyYAML would silently keep the last one);
- config keys `<namespace>:<name>` (or the old `<namespace>:config:<name>`); a bare name is the
  project's namespace;
- `yes` / `no` / `on` / `off` are strings, as in YAML 1.2: only true / false are booleans.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.inputs.files import MiB, decode_text, read_bytes
from gpufabric.inputs.formats import parse_yaml

# ProjectStack's YAML fields (project.go), plus `environment` (Pulumi ESC environments).
STACK_SECTIONS = ("config", "encryptedkey", "encryptionsalt", "environment", "secretsprovider")


def load_yaml(data: bytes, where: str) -> Any:
    """Strict YAML from bytes (gpufabric.inputs: UTF-8, no duplicate keys, YAML 1.2 scalars)."""
    return parse_yaml(decode_text(data, where, "a stack file"), where=where)


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
            f"{where}: the top level is {types.a_type(doc)}, expected a mapping with 'config:'"
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
        what = "empty" if config in (None, {}) else types.a_type(config)
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
    data = read_bytes(path, what="a stack file", max_bytes=MiB)
    return parse_stack_document(data, str(path), project)
