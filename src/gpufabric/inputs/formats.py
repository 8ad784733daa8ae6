"""Strict JSON and YAML: what a file says, exactly once, or one line saying why not.

JSON (RFC 8259 plus the rules its own section 4 leaves open): a key given twice in one object,
`NaN` / `Infinity` and numbers that overflow to infinity, integers longer than 100 digits and
nesting deeper than `max_depth` are refused (Python's json module would keep the last key,
accept NaN and hit RecursionError). YAML: see yaml12.py (YAML 1.2 core schema, duplicate keys,
alias loops and alias bombs refused). Each error names the input, the line where known, and
the key or value.

`parse_*` take text already read (another program's output: name it in `where`); `load_*` read
a path (or `-`) through files.read_text first.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Literal

import yaml

from gpufabric.inputs import files
from gpufabric.inputs.errors import FormatError
from gpufabric.inputs.yaml12 import INT_DIGITS, Refused, StrictLoader

MAX_DEPTH = 64  # deeper than any file gpufabric reads (fio JSON: 5, stack outputs: 6)
MAX_YAML_NODES = 200_000  # scalars + collections, aliases expanded
MAX_DATA_BYTES = 16 * files.MiB

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_UNKNOWN_TAG = re.compile(r"constructor for the tag '(.*)'")


_CONSTANT = re.compile(r'(?:"((?:[^"\\]|\\.)*)"\s*:\s*)?(-?Infinity|NaN)\b')

Duplicates = Literal["refuse", "identical"]


class StrictnessError(FormatError):
    """Valid JSON that breaks a strict rule (a key twice, NaN, too deep, a huge number)."""


class _Duplicate(Exception):
    pass


class _Constant(Exception):
    pass


def _pairs_hook(duplicates: Duplicates) -> Any:
    def pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out and (duplicates == "refuse" or out[key] != value):
                raise _Duplicate(key)
            out[key] = value
        return out

    return pairs


def _constant(name: str) -> float:
    raise _Constant(name)


def _blank_strings(text: str) -> str:
    """`text` with the inside of each JSON string blanked, every character kept in place (a
    bracket or `NaN` inside a string is not JSON's; a line counted in it is the text's)."""
    return _STRING.sub(lambda m: '"' + "x" * (len(m.group()) - 2) + '"', text)


def _where_constant(text: str, name: str) -> str:
    """`line N: 'key': NaN` for the first NaN / Infinity outside strings (best effort: `name`,
    the constant json found, where the text does not show it as a word of its own)."""
    stripped = _blank_strings(text)
    for match in _CONSTANT.finditer(stripped):
        line = text.count("\n", 0, match.start(2)) + 1
        key = text[match.start(1) : match.end(1)] if match.group(1) is not None else None
        named = f"{key!r}: " if key is not None else ""
        return f"line {line}: {named}{match.group(2)}"
    return name


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is out of range")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > INT_DIGITS:
        raise ValueError(f"integer of {len(text)} digits is out of range")
    return int(text)


def _json_depth(text: str, max_depth: int, where: str) -> None:
    """Refuse nesting deeper than max_depth before json (recursive) sees it."""
    depth = 0
    stripped = _blank_strings(text)
    for match in _BRACKET.finditer(stripped):
        if match.group() in "[{":
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, match.start()) + 1
                raise StrictnessError(
                    where, f"line {line}: JSON nested deeper than {max_depth} levels"
                )
        else:
            depth -= 1


def parse_json(
    text: str, *, where: str, max_depth: int = MAX_DEPTH, duplicates: Duplicates = "refuse"
) -> Any:
    """Strict JSON from text; FormatError naming `where`, the line and the key or value.

    duplicates="identical" lets a key repeat with the very same value (iperf3 3.12 writes
    `sock_bufsize` twice into every --bidir report); a different value is still refused."""
    _json_depth(text, max_depth, where)
    try:
        return json.loads(
            text,
            object_pairs_hook=_pairs_hook(duplicates),
            parse_constant=_constant,
            parse_float=_float,
            parse_int=_int,
        )
    except _Duplicate as exc:
        raise StrictnessError(
            where, f"key {exc.args[0]!r} given twice in one JSON object"
        ) from None
    except _Constant as exc:
        found = _where_constant(text, exc.args[0])
        raise StrictnessError(where, f"{found} is not a number gpufabric accepts (JSON)") from None
    except json.JSONDecodeError as exc:
        at_end = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        cut = "; cut short?" if at_end else ""
        raise FormatError(
            where, f"line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg}{cut})"
        ) from None
    except ValueError as exc:
        raise StrictnessError(where, f"{exc} (JSON)") from None
    except RecursionError:  # the depth scan above makes this unreachable; kept as a guard
        raise FormatError(where, f"JSON nested deeper than {max_depth} levels") from None


def parse_yaml(
    text: str, *, where: str, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_YAML_NODES
) -> Any:
    """Strict YAML 1.2 from text; FormatError naming `where` and the line."""
    loader: StrictLoader | None = None
    try:
        loader = StrictLoader(text, max_depth=max_depth, max_nodes=max_nodes)
        return loader.get_single_data()
    except Refused as exc:
        line = f"line {exc.line}: " if exc.line else ""
        raise FormatError(where, f"{line}{exc.problem} (YAML)") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = exc.problem or exc.context or type(exc).__name__
        if problem.startswith("but ") and exc.context:
            problem = f"{exc.context}, {problem}"
        elif problem == "second occurrence" and exc.context and exc.context_mark is not None:
            # PyYAML's duplicate anchor: the context says what, the problem only "where"
            problem = f"{exc.context} on line {exc.context_mark.line + 1}, then again here"
        tag = _UNKNOWN_TAG.search(problem)
        if tag:
            name = tag.group(1).replace("tag:yaml.org,2002:", "!!")
            problem = f"tag {name} is not accepted (YAML 1.2 core schema only)"
        raise FormatError(where, f"{line}not valid YAML ({problem})") from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, max(exc.position, 0)) + 1
        raise FormatError(
            where, f"line {line}: not valid YAML (character U+{exc.character:04X})"
        ) from None
    except yaml.YAMLError as exc:
        raise FormatError(where, f"not valid YAML ({exc})") from None
    except RecursionError:  # bounded by max_depth; kept as a guard
        raise FormatError(where, f"YAML nested deeper than {max_depth} levels") from None
    finally:
        if loader is not None:
            loader.dispose()


def parse_json_or_text(text: str, *, where: str) -> Any:
    """A config value as Pulumi hands it to a program: JSON where it parses, else the string
    itself. JSON that breaks a strict rule (`{"a": 1, "a": 2}`, NaN) is refused, not kept
    as a string."""
    try:
        return parse_json(text, where=where)
    except StrictnessError:
        raise
    except FormatError:
        return text


Format = Literal["json", "yaml", "auto"]


def _where(path: str | Path) -> str:
    return "- (standard input)" if files.is_stdin(path) else str(path)


def load_json(
    path: str | Path, *, what: str, max_bytes: int = MAX_DATA_BYTES, max_depth: int = MAX_DEPTH
) -> Any:
    """Read `path` (or `-`) and parse it as strict JSON."""
    text = files.read_text(path, what=what, max_bytes=max_bytes)
    return parse_json(text, where=_where(path), max_depth=max_depth)


def load_yaml(
    path: str | Path, *, what: str, max_bytes: int = MAX_DATA_BYTES, max_depth: int = MAX_DEPTH
) -> Any:
    """Read `path` (or `-`) and parse it as strict YAML 1.2 (JSON is YAML too)."""
    text = files.read_text(path, what=what, max_bytes=max_bytes)
    return parse_yaml(text, where=_where(path), max_depth=max_depth)


def load_data(
    path: str | Path,
    *,
    what: str,
    fmt: Format = "auto",
    max_bytes: int = MAX_DATA_BYTES,
    max_depth: int = MAX_DEPTH,
) -> Any:
    """JSON or YAML by `fmt`; "auto": by the suffix (`.json`; `.yaml` / `.yml`), otherwise
    text starting with `{` or `[` is JSON (its strict rules and line numbers), the rest YAML."""
    text = files.read_text(path, what=what, max_bytes=max_bytes)
    where = _where(path)
    if fmt == "auto":
        suffix = Path(str(path)).suffix.lower()
        if suffix in (".json", ".yaml", ".yml"):
            fmt = "json" if suffix == ".json" else "yaml"
        else:
            fmt = "json" if text.lstrip()[:1] in ("{", "[") else "yaml"
    if fmt == "json":
        return parse_json(text, where=where, max_depth=max_depth)
    return parse_yaml(text, where=where, max_depth=max_depth)
