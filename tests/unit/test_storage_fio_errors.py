"""A fio report that cannot be read is refused in one line naming the file and the place in
it: the job by its index, the direction, the field, the value found. Text fio prints around
its JSON is skipped. Built from the real fio 3.33 capture (tests/unit/storage_data)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.storage.fio import parse_fio, read_fio

REPORT = Path(__file__).parent / "storage_data" / "fio-3.33" / "a" / "write.json"


def _changed(change: Callable[[dict], None]) -> str:
    doc = json.loads(REPORT.read_text())
    change(doc)
    return json.dumps(doc)


def _second_job(doc: dict) -> None:
    doc["jobs"].append(json.loads(json.dumps(doc["jobs"][0])))


def _set(path: tuple[str | int, ...], value: object) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        _second_job(doc)
        target = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (_set(("jobs", 1, "write", "io_bytes"), -1), "n1/write.json: jobs[1].write: 'io_bytes' must be a non-negative number, got -1"),
        (_set(("jobs", 1, "read", "total_ios"), "9"), "n1/write.json: jobs[1].read: 'total_ios' must be a non-negative number, got '9'"),
        (_set(("jobs", 1, "write", "runtime"), None), "n1/write.json: jobs[1].write: 'runtime' must be a non-negative number, got None"),
        (_set(("jobs", 1, "error"), True), "n1/write.json: jobs[1]: 'error' must be a non-negative number, got True"),
        (_set(("jobs", 1, "read"), []), "n1/write.json: jobs[1]: no 'read' section"),
        (_set(("jobs", 1, "write"), None), "n1/write.json: jobs[1]: no 'write' section"),
        (_set(("jobs", 1, "jobname"), 7), "n1/write.json: jobs[1]: a job without a name"),
        (_set(("jobs", 1), "write"), "n1/write.json: jobs[1]: a job without a name"),
        (_set(("timestamp_ms",), -5), "n1/write.json: 'timestamp_ms' must be a non-negative number, got -5"),
    ],
    ids=["io_bytes", "total_ios", "runtime", "error", "read", "write", "jobname", "job", "time"],
)  # fmt: skip
def test_a_bad_field_is_named_where_it_is(change: Callable[[dict], None], line: str) -> None:
    with pytest.raises(UserError) as err:
        parse_fio(_changed(change), "n1/write.json")
    assert str(err.value) == line


def test_a_report_without_a_closing_brace_is_cut_short() -> None:
    text = REPORT.read_text()
    with pytest.raises(UserError) as err:
        parse_fio(text[: text.rindex("}")].replace("}", ""), "n1/write.json")
    assert str(err.value) == "n1/write.json: fio JSON is cut short or broken (no closing brace)"


def test_text_around_the_json_is_skipped() -> None:
    """fio prints warnings before its JSON and, on exit, after it ('fio: file hash not empty')."""
    text = "fio: this platform does not support process shared mutexes\n"
    text += REPORT.read_text().rstrip() + "fio: file hash not empty on exit\n"
    run = parse_fio(text, "n1/write.json")
    assert (run.version, run.jobs[0].write.io_bytes) == ("fio-3.33", 64 * 2**20)


def test_a_report_read_from_a_file_is_named_by_its_path(tmp_path: Path) -> None:
    run = read_fio(REPORT)
    assert (run.source, run.end_ms) == (str(REPORT), 1796151410316)
    broken = tmp_path / "write.json"
    broken.write_text(_changed(_set(("jobs", 0, "read", "runtime"), -1)))
    with pytest.raises(UserError) as err:
        read_fio(broken)
    assert str(err.value).startswith(f"{broken}: jobs[0].read: 'runtime' must be")
