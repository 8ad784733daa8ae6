"""Writing values into other programs' files: each writer escapes or refuses.

What the project writes for another program (Slurm's topology files, cloud-init, shell lines,
Kubernetes objects, hostfiles) holds values that came from outside: node reports, cloud
answers, user files. A value such a format cannot hold is refused with one line naming the node
(or object) and the field; free text (comments) is escaped so that it stays one comment.

Slurm's config parser (SchedMD/slurm src/common/parse_config.c): a line ends at a newline; an
unescaped '#' starts a comment that runs to the end of the line; an odd number of '\\' at the
end of a line (after the comment is cut) joins the next line; values are one run of
non-space characters or "quoted". A full-line comment is therefore safe whatever it holds
except a line break, which `comment` escapes.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from typing import Any

import yaml

from gpufabric.errors import UserError
from gpufabric.inputs import types

COMMENT_MAX = 200  # characters of free text kept in one comment line


def escape(text: str) -> str:
    """`text` with every character outside printable ASCII written as a Python escape
    (a newline as \\n, the Cyrillic es as \\u0441): one line, readable, nothing hidden."""
    out: list[str] = []
    for char in str(text):
        code = ord(char)
        if 0x20 <= code < 0x7F and char != "\\":
            out.append(char)
        elif char == "\\":
            out.append("\\\\")
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(out)


def comment(text: str, limit: int = COMMENT_MAX) -> str:
    """One comment line (`# ...`) for Slurm's config files, YAML, hostfiles and shell:
    escaped, cut at `limit` characters."""
    body = escape(text)
    if len(body) > limit:
        body = body[: limit - 3] + "..."
    return f"# {body}"


def _refuse(node: str, field: str, value: Any, why: str) -> UserError:
    return UserError(f"{node}: {field} {types.show(value)} {why}")


def checked(kind: Any, value: Any, node: str, field: str) -> Any:
    """`value` as a valid `kind` (gpufabric.inputs.types), or a UserError naming the node and
    the field: `node01: leaf 'a\\nb' holds the control character '\\n'`."""
    why = types.problem(kind, value)
    if why:
        raise _refuse(node, field, value, why)
    return value


def slurm_name(value: str, node: str, field: str) -> str:
    """A name written into topology.conf / topology.yaml / a Slurm hostlist."""
    return checked(types.SlurmName, value, node, field)


def hostfile(names: Iterable[str], where: str = "hostfile") -> list[str]:
    """Host names as they go into a hostfile (one per line: mpirun, torchrun, SLURM_HOSTFILE
    read a line's first word and take '#' as a comment)."""
    return [slurm_name(name, f"{where} line {i}", "host name") for i, name in enumerate(names, 1)]


def shell_words(argv: Sequence[str], where: str) -> str:
    """One shell command line from `argv`, each word quoted (shlex.quote) where it needs it.
    A word with a control character (a newline would end the command) is refused."""
    for i, word in enumerate(argv):
        if not isinstance(word, str):
            raise _refuse(where, f"word {i + 1}", word, "is not a string")
        bad = next((c for c in word if ord(c) < 0x20 or ord(c) == 0x7F), None)
        if bad is not None:
            raise _refuse(where, f"word {i + 1}", word, f"holds the control character {bad!r}")
    return shlex.join(argv)


def label(key: str, value: str, node: str) -> tuple[str, str]:
    """One Kubernetes label (key, value) for object `node`, both checked."""
    checked(types.LabelKey, key, node, "label key")
    checked(types.LabelValue, value, node, f"label {key}")
    return key, value


def _dumper() -> Any:
    return getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def yaml_text(doc: Any, *, sort_keys: bool = False) -> str:
    """Block-style YAML of `doc` by the YAML dumper (never by string formatting), checked to
    read back as `doc`."""
    text = yaml.dump(
        doc,
        Dumper=_dumper(),
        sort_keys=sort_keys,
        default_flow_style=False,
        allow_unicode=False,
        width=2**31 - 1,
    )
    if yaml.safe_load(text) != doc:
        raise UserError("YAML writer: the document does not read back as written")
    return text


def cloud_config(doc: dict[str, Any]) -> str:
    """cloud-init user data: `#cloud-config` and `doc` as YAML (cloud-init reads the first
    line to know the format; every value is quoted by the dumper where YAML needs it)."""
    return "#cloud-config\n" + yaml_text(doc)
