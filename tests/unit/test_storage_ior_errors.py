"""IOR and mdtest summaries that no real run writes (a figure that is not a number, a row or
header cut short, a JSON summary without its rows): each refused in one line naming the file and
the line or the summary row. Built from the real 3.3.0 / 4.0.0 captures in
tests/unit/storage_data/hpc-ior (PROVENANCE.md), changed one value at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.storage.ior import MIB, parse_ior, parse_mdtest

IOR = Path(__file__).parent / "storage_data" / "hpc-ior"
IOR_TXT = (IOR / "3.3.0" / "ior.txt").read_text()
IOR_JSON = (IOR / "3.3.0" / "ior.json").read_text()
MDTEST = (IOR / "3.3.0" / "mdtest.txt").read_text()
LINES = IOR_TXT.splitlines()
SUMMARY = LINES.index("Summary of all tests:")
WRITE = SUMMARY + 2  # index of the write row; its line number is WRITE + 1
GBPS = MIB / 1e9


def _error(text: str, source: str = "ior.txt") -> str:
    with pytest.raises(UserError) as err:
        parse_ior(text, source)
    return str(err.value)


def _with_write_row(cells: str) -> str:
    return "\n".join([*LINES[:WRITE], cells, *LINES[WRITE + 1 :]]) + "\n"


def _write_cells(**changed: str) -> str:
    """The real write row with some columns (by header name: Mean_MiB is Mean(MiB)) changed."""
    header = LINES[SUMMARY + 1].split()
    cells = LINES[WRITE].split()
    for name, value in changed.items():
        cells[header.index(name.replace("_", "(") + ")")] = value
    return " ".join(cells)


def test_the_real_summary_row_and_its_line() -> None:
    result = parse_ior(IOR_TXT, "results/ior.txt")
    assert result.source == "results/ior.txt"
    assert result.mean_gbps["write"] == pytest.approx(2518.89 * GBPS)
    assert result.max_gbps == pytest.approx({"write": 2890.32 * GBPS, "read": 31780.71 * GBPS})
    assert LINES[WRITE].startswith("write ")


@pytest.mark.parametrize(
    ("changed", "message"),
    [
        ({"Mean_MiB": "fast"}, "'fast' is not a number"),
        ({"Max_MiB": "n/a"}, "'n/a' is not a number"),
        ({"Mean_MiB": "-5.00"}, "'-5.00' is not a non-negative number"),
        ({"Mean_MiB": "nan"}, "'nan' is not a non-negative number"),
        ({"Max_MiB": "inf"}, "'inf' is not a non-negative number"),
    ],
)
def test_a_figure_that_is_not_a_rate_names_its_line(changed: dict[str, str], message: str) -> None:
    assert _error(_with_write_row(_write_cells(**changed))) == f"ior.txt:{WRITE + 1}: {message}"


def test_a_mean_of_zero_is_read_as_zero() -> None:
    """Nothing moved is a measurement (the gate fails it), not an unreadable file."""
    result = parse_ior(_with_write_row(_write_cells(Mean_MiB="0.00")), "ior.txt")
    assert result.mean_gbps["write"] == 0.0


def test_a_row_needs_operation_max_min_and_mean() -> None:
    short = _with_write_row("write 2890.32 2147.46")
    assert _error(short) == f"ior.txt:{WRITE + 1}: IOR summary row cut short"
    four = parse_ior(_with_write_row("write 2890.32 2147.46 2518.89"), "ior.txt")
    assert four.mean_gbps["write"] == pytest.approx(2518.89 * GBPS)
    assert four.max_gbps["write"] == pytest.approx(2890.32 * GBPS)


def test_the_header_must_follow_the_summary_line() -> None:
    cut = "\n".join(LINES[: SUMMARY + 1]) + "\n"
    assert _error(cut) == "ior.txt: IOR summary without its header line"
    apart = "\n".join([*LINES[: SUMMARY + 1], "", *LINES[SUMMARY + 1 :]])
    assert _error(apart) == "ior.txt: IOR summary without its header line"


def test_a_header_without_max_and_mean() -> None:
    text = IOR_TXT.replace("Max(MiB)", "Max(MiB)x", 1).replace("Mean(MiB)", "Avg(MiB)", 1)
    assert _error(text) == "ior.txt: IOR summary header without Max(MiB) and Mean(MiB)"


def test_a_summary_without_write_or_read_rows() -> None:
    text = "\n".join([*LINES[: SUMMARY + 2], *LINES[SUMMARY + 4 :]])
    assert _error(text) == "ior.txt: IOR summary has no write or read row"


# ---------------------------------------------------------------- JSON summary
def _summary(rows: object) -> str:
    return json.dumps({"Version": "3.3.0", "summary": rows})


def test_the_real_json_summary() -> None:
    result = parse_ior("\n  " + IOR_JSON, "results/ior.json")  # leading blank lines: still JSON
    assert result.source == "results/ior.json"
    assert result.mean_gbps == pytest.approx({"write": 5229.7484 * GBPS, "read": 8110.0693 * GBPS})
    assert result.max_gbps == pytest.approx({"write": 5322.9341 * GBPS, "read": 8674.0989 * GBPS})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"Version": "3.3.0"}', "ior.json: IOR JSON without a 'summary' list"),
        (_summary([]), "ior.json: IOR JSON without a 'summary' list"),
        (_summary({"write": 1}), "ior.json: IOR JSON without a 'summary' list"),
        (_summary([1]), "ior.json: summary[0]: operation must be write or read"),
        (
            _summary(
                [{"operation": "write", "bwMeanMIB": 1, "bwMaxMIB": 1}, {"operation": "stat"}]
            ),
            "ior.json: summary[1]: operation must be write or read",
        ),
        (_summary([{"operation": "write", "bwMaxMIB": 1}]), "ior.json: summary[0]: no bwMeanMIB"),
        (_summary([{"operation": "read", "bwMeanMIB": 1}]), "ior.json: summary[0]: no bwMaxMIB"),
        (
            _summary([{"operation": "write", "bwMeanMIB": "fast", "bwMaxMIB": 1}]),
            "ior.json: summary[0]: bwMeanMIB 'fast' is not a number",
        ),
        (
            _summary([{"operation": "write", "bwMeanMIB": 1, "bwMaxMIB": True}]),
            "ior.json: summary[0]: bwMaxMIB True is not a number",
        ),
        (
            _summary([{"operation": "write", "bwMeanMIB": -1.5, "bwMaxMIB": 1}]),
            "ior.json: summary[0]: bwMeanMIB: '-1.5' is not a non-negative number",
        ),
    ],
)
def test_a_json_summary_no_ior_writes(text: str, message: str) -> None:
    assert _error(text, "ior.json") == message


# ---------------------------------------------------------------- mdtest
def _mdtest_error(text: str) -> str:
    with pytest.raises(UserError) as err:
        parse_mdtest(text, "mdtest.txt")
    return str(err.value)


MD_LINES = MDTEST.splitlines()
CREATES = next(i for i, line in enumerate(MD_LINES) if "File creation" in line)


def _md_with(row: str) -> str:
    return "\n".join([*MD_LINES[:CREATES], row, *MD_LINES[CREATES + 1 :]]) + "\n"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            "   File creation             :       4513.123       3309.752       3862.405",
            "mdtest row needs max, min, mean, std dev (and, with --showRankStatistics, three "
            "per-rank columns first); got 3 numbers",
        ),
        (
            "   File creation             :  1.0  2.0  3.0  4.0  5.0  6.0  7.0  8.0",
            "mdtest row needs max, min, mean, std dev (and, with --showRankStatistics, three "
            "per-rank columns first); got 8 numbers",
        ),
        ("   File creation             :  4513.1  3309.7  3.8.6  500.4", "'3.8.6' is not a number"),
        ("   File creation             :  4513.1  3309.7  NA  NA", "'NA' is not a number"),
        ("   File creation             :  4513.1  3309.7  -1.0  500.4", "'-1.0' is not a non-negative number"),
    ],
)  # fmt: skip
def test_an_mdtest_row_no_mdtest_writes_names_its_line(row: str, message: str) -> None:
    assert _mdtest_error(_md_with(row)) == f"mdtest.txt:{CREATES + 1}: {message}"


def test_mdtest_3_3_0_stonewall_row_gives_its_rate() -> None:
    """3.3.0 prints "NA NA rate NA" for the stonewall row: its rate is the mean column."""
    row = (
        "   File create (stonewall)   :             NA             NA       1234.500             NA"
    )
    text = "\n".join([*MD_LINES[: CREATES + 1], row, *MD_LINES[CREATES + 1 :]])
    rates = parse_mdtest(text, "mdtest.txt")
    assert rates["File create (stonewall)"] == 1234.5
    assert rates["File creation"] == pytest.approx(3862.405)


def test_mdtest_per_rank_statistics_are_not_the_rate() -> None:
    """Real 4.0.0 with --showRankStatistics: seven numbers a row, the per-rank max / min / mean
    first; the rate is the per-iteration mean (last but one)."""
    text = (IOR / "4.0.0" / "mdtest-ranks.txt").read_text()
    rates = parse_mdtest(text, "mdtest.txt")
    assert rates["File creation"] == pytest.approx(5302.797)  # not the per-rank 3663.207
    assert rates["Directory creation"] == pytest.approx(2971.846)
    assert len(rates) == 10 and rates["Tree removal"] == pytest.approx(72.077)


def test_an_mdtest_heading_with_no_rows() -> None:
    text = "\n".join(MD_LINES[: CREATES - 4]) + "\n\n-- finished at 12/05/2026 01:49:40 --\n"
    assert (
        "SUMMARY rate" in text and _mdtest_error(text) == "mdtest.txt: mdtest summary has no rows"
    )
