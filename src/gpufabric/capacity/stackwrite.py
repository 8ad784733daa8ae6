"""Write chosen settings into a stack file (`gpufabric capacity plan --write`).

Keys are `namespace:section.sub` as in `-c` lines; a None value removes the key. The file is
read once and checked by the strict stack-file reader; those same bytes are rewritten whole
(YAML comments are not kept, other text is kept as written) into a hidden `.NAME.*.tmp` beside
the file, which replaces it in one rename, so a failure leaves the old file as it was.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from gpufabric.config.stack_reader import full_key, load_yaml, parse_stack_document
from gpufabric.errors import UserError
from gpufabric.inputs.files import MiB, read_bytes

PROJECT = "gpufabric"


def _existing_key(config: dict[str, Any], full: str) -> str:
    """The spelling the file uses for `full`: `ns:name`, a bare `name` (the project's namespace)
    or Pulumi's older `ns:config:name`; `full` where the file has none."""
    for key in config:
        if isinstance(key, str) and full_key(key, PROJECT, "the stack file") == full:
            return key
    return full


def apply(config: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    for key, value in settings.items():
        top, *path = key.split(".")
        top = _existing_key(config, top)
        if not path:
            if value is None:
                config.pop(top, None)
            else:
                config[top] = value
            continue
        node = config.setdefault(top, {})
        for part in path[:-1]:
            if not isinstance(node, dict):
                raise UserError(f"{key}: {top} in the stack file is not a mapping")
            node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise UserError(f"{key}: {top} in the stack file is not a mapping")
        if value is None:
            node.pop(path[-1], None)
        else:
            node[path[-1]] = value
    return config


def write_settings(path: Path, settings: dict[str, Any]) -> None:
    where = str(path)
    data = read_bytes(path, what="a stack file", max_bytes=MiB)
    parse_stack_document(data, where, PROJECT)  # refuses a broken file before anything is written
    doc = load_yaml(data, where)
    doc["config"] = apply(doc["config"], settings)
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)  # block style (PyYAML 6)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(text.encode())
        os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
