"""Tables shipped inside gpufabric are read as strictly as user files, and name themselves in
an error; every refusal of the input layer is one printable line `<where>: <problem>`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import gpufabric
from gpufabric.errors import UserError
from gpufabric.inputs import packaged
from gpufabric.inputs.errors import FormatError, InputError, one_line


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A package `tables_demo.sub` on sys.path, for tables written by the test."""
    root = tmp_path / "tables_demo"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root / "sub"
    for name in ("tables_demo.sub", "tables_demo"):
        sys.modules.pop(name, None)


def test_a_shipped_table_is_read() -> None:
    table = packaged.load_yaml("gpufabric.storage", "thresholds.yaml")
    assert table["together"]["max_start_spread_s"] == 60
    text = packaged.read_text("gpufabric.storage", "thresholds.yaml")
    assert "max_start_spread_s" in text


def test_a_table_with_a_key_twice_names_its_package_path_and_line(package: Path) -> None:
    (package / "t.yaml").write_text("a: 1\nb: é\na: 2\n", encoding="utf-8")
    assert packaged.read_text("tables_demo.sub", "t.yaml").startswith("a: 1\nb: é")
    with pytest.raises(FormatError) as err:
        packaged.load_yaml("tables_demo.sub", "t.yaml")
    assert str(err.value) == "tables_demo/sub/t.yaml: line 3: key 'a' given twice (YAML)"


def test_a_table_is_read_as_yaml_1_2(package: Path) -> None:
    (package / "t.yaml").write_text("name: no\nport: 010\n")
    assert packaged.load_yaml("tables_demo.sub", "t.yaml") == {"name": "no", "port": 10}


def test_a_cloud_package_table_found_by_resources_is_read_strictly(package: Path) -> None:
    good, bad = package / "good.yaml", package / "bad.yaml"
    good.write_text("ids: [a, b]\n")
    bad.write_text("x: 1\nx: 1\n")
    assert packaged.load_resource(good) == {"ids": ["a", "b"]}
    with pytest.raises(UserError, match=r"^.*/bad\.yaml: line 2: key 'x' given twice \(YAML\)$"):
        packaged.load_resource(bad)


def test_an_input_error_is_where_then_the_problem_on_one_line() -> None:
    err = InputError("f.json", "bad\nvalue\x1b")
    assert (err.where, err.problem) == ("f.json", "bad\nvalue\x1b")
    assert str(err) == "f.json: bad\\nvalue\\x1b"
    assert isinstance(err, UserError)


def test_one_line_escapes_controls_and_cuts_long_text() -> None:
    assert one_line("a\tb\r\nc") == "a\\tb\\r\\nc"
    assert one_line("é ü ok") == "é ü ok"  # printable non-ASCII stays
    assert one_line("x" * 300) == "x" * 300
    cut = one_line("x" * 301)
    assert cut == "x" * 297 + "..." and len(cut) == 300
    assert one_line("abcdef", limit=5) == "ab..."


def test_one_line_keeps_a_backslash_as_written() -> None:
    assert one_line("C:\\gpufabric\\stack.yaml: bad") == "C:\\gpufabric\\stack.yaml: bad"


def test_a_table_reads_the_same_in_an_ascii_locale(package: Path) -> None:
    """Tables are UTF-8 whatever the user's locale: a process started with LC_ALL=C (and
    Python's locale coercion and UTF-8 mode off) still reads one holding non-ASCII text."""
    (package / "t.yaml").write_text("site: Zürich\n", encoding="utf-8")
    here = Path(gpufabric.__file__).resolve().parents[1]
    code = (
        "from importlib.resources import files\n"
        "from gpufabric.inputs import packaged\n"
        "print(packaged.read_text('tables_demo.sub', 't.yaml').strip())\n"
        "print(packaged.load_resource(files('tables_demo.sub') / 't.yaml')['site'])\n"
    )
    env = {
        **os.environ,
        "LC_ALL": "C",
        "PYTHONCOERCECLOCALE": "0",
        "PYTHONUTF8": "0",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONPATH": os.pathsep.join([str(package.parents[1]), str(here)]),
    }
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    in_process = packaged.read_text("tables_demo.sub", "t.yaml").strip()
    site = packaged.load_resource(package / "t.yaml")["site"]
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{in_process}\n{site}\n", "")
    assert (in_process, site) == ("site: Zürich", "Zürich")
