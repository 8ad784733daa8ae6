"""What makes a table unfit to judge, word for word: the first bad value (one line, not one
per row), unreadable rows quoted up to 80 characters, and a table with no rows whatever part of
it was printed."""

from __future__ import annotations

import json

import pytest
from tests.unit.test_nccl_strict import FOOTER, GOOD_ROWS, HEADER, row, table

from gpufabric.nccl.parse.capture import parse_text


def _problems(text: str) -> tuple[str, ...]:
    (result,) = parse_text(text, "all_reduce_perf.txt").results
    return result.problems


def test_only_the_first_bad_row_is_named() -> None:
    rows = [*GOOD_ROWS[:-2], row(1 << 29, busbw="-1.0"), row(1 << 30, time="nan")]
    assert _problems(table(*rows)) == ("busbw -1.0 at 512 MiB (out-of-place): not a measurement",)


def test_zero_is_a_measurement() -> None:
    """nccl-tests prints 0.00 GB/s for the smallest sizes (8 B in 10 us); that is a reading."""
    assert _problems(table(row(8, busbw="0.00"), *GOOD_ROWS[1:])) == ()


def test_unreadable_rows_are_counted_and_the_first_quoted_to_80_characters() -> None:
    bad = "     1048576        262144     float     sum      -1   12.3  x  y  0  1  2  3  0"
    long = bad + " zzzzzzzzzz" * 4 + "\n"
    assert _problems(table(*GOOD_ROWS[:10], long, bad + "\n", *GOOD_ROWS[10:])) == (
        "2 table rows could not be read (first: '1048576        262144     float     sum      "
        "-1   12.3  x  y  0  1  2  3  0 zzzz')",
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (HEADER, "a header but no result rows"),
        (HEADER.splitlines(keepends=True)[0], "a header but no result rows"),  # params only
        (
            "#  Rank  0 Group  0 Pid  1234 on host0 device  0 [0x53] NVIDIA H100\n",
            "a header but no result rows",
        ),
        (FOOTER, "header and footer but no result rows"),
        (HEADER + FOOTER, "header and footer but no result rows"),
    ],
    ids=["header", "parameters line", "rank line", "footer", "header and footer"],
)
def test_a_table_without_rows_is_a_problem(text: str, problem: str) -> None:
    assert _problems(text) == (problem,)


def test_a_row_with_only_its_in_place_half_is_still_checked() -> None:
    """nccl-tests JSON with `out_of_place: null`: the in-place half's negative busbw is named."""
    doc = {
        "results": [
            {
                "size": 8,
                "count": 2,
                "type": "float",
                "redop": "sum",
                "root": "-1",
                "out_of_place": None,
                "in_place": {"time": 10.0, "alg_bw": 0.0, "bus_bw": -1.0, "nwrong": 0},
            }
        ],
        "average_bus_bandwidth": {"bandwidth": 0.0, "okay": "true"},
    }
    (result,) = parse_text(json.dumps(doc), "all_reduce_perf.json").results
    assert result.problems == ("busbw -1.0 at 8 B (in-place): not a measurement",)
