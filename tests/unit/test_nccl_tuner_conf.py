"""The tuner CSV validator implements the example tuner's documented rules (plugin.c, README)."""

from __future__ import annotations

from gpufabric.nccl.tune.tunerconf import SIZE_MAX, TunerRule, errors, render, validate

# The lines shipped with NCCL's example (plugins/tuner/example/nccl_tuner.conf, cloud-facts F.3)
SHIPPED = [
    "allreduce,0,65536,tree,simple,2,1,-1,-1,1",
    "allreduce,1048577,4294967295,ring,ll128,-1,-1,-1,4,-1",
    "allgather,0,4294967295,ring,simple,4,2,-1",
]


def full_cover(extra: list[str]) -> str:
    cover = [
        f"{c},0,{SIZE_MAX},ring,simple,8,-1,-1"
        for c in ("broadcast", "reduce", "allgather", "reducescatter", "allreduce")
    ]
    return "\n".join(["# header", *extra, *cover]) + "\n"


def messages(text: str, **kw: int | bool) -> list[str]:
    return [p.text() for p in validate(text, **kw)]  # type: ignore[arg-type]


def test_shipped_example_lines_parse_under_the_plugin_rules() -> None:
    problems = validate("\n".join(SHIPPED) + "\n", caveat=False)
    assert errors(problems) == []
    # channels -1 on line 2 is legal per the README but means 1 channel in the code
    assert [p.line for p in problems] == [2]


def test_channel_caveat_rejects_minus_one_and_gaps() -> None:
    problems = validate("\n".join(SHIPPED) + "\n")
    texts = [p.text() for p in errors(problems)]
    assert any("line 2: channels -1" in t for t in texts)
    assert any("broadcast bytes 0..18446744073709551615 match no line" in t for t in texts)
    # line 1 only applies to registered buffers (regBuff 1), line 2 only to numPipeOps 4:
    assert any("allreduce bytes 0..18446744073709551615 match no line" in t for t in texts)
    one_node = [
        p.text() for p in errors(validate("allreduce,0,65536,tree,simple,2,1,-1\n", nodes=1))
    ]
    assert any("allreduce bytes 65537..18446744073709551615 match no line" in t for t in one_node)


def test_fully_covered_file_is_clean() -> None:
    assert validate(full_cover(["allreduce,0,65535,tree,ll,8,2,16"]), nodes=2, ranks=16) == []


def test_node_scoped_lines_do_not_cover_other_scales() -> None:
    text = "\n".join(
        f"{c},0,{SIZE_MAX},ring,simple,8,2,16"
        for c in ("broadcast", "reduce", "allgather", "reducescatter", "allreduce")
    )
    assert errors(validate(text, nodes=2, ranks=16)) == []
    assert len(errors(validate(text))) == 5  # at any other scale: every collective uncovered


def test_silent_misreads_are_errors() -> None:
    cases = {
        "all_reduce,0,10,ring,simple,8,-1,-1": "silently reads it as allreduce",
        "allreduce,0,10,rings,simple,8,-1,-1": "silently reads it as ring",
        "allreduce,0,10,ring,LL,8,-1,-1": "silently reads it as simple",
        "allreduce,0,10,ring,simple,,8,-1,-1": "empty field",
        "allreduce,0,10,ring,simple,8,-1": "7 fields",
        "allreduce,0,10,ring,simple,8,-1,-1,1,1,1": "11 fields",
        "allreduce,10,0,ring,simple,8,-1,-1": "never matches",
        "allreduce,-1,10,ring,simple,8,-1,-1": "unsigned integers",
        "allreduce,0,10,ring,simple,65,-1,-1": "outside 1..64",
        "allreduce,0,10,ring,simple,8,0,-1": "nNodes 0",
        "allreduce,0,10,ring,simple,8,-1,-1,-1,2": "regBuff 2",
        "allreduce,0,10,ring,simple,x,-1,-1": "must be integers",
        "  # indented comment": "comment not in column 1",
        "allreduce,0,10,ring,simple,8,-1,-1" + " " * 250: "fgets(256)",
    }
    for line, expected in cases.items():
        found = messages(line + "\n", caveat=False)
        assert any(expected in m and m.startswith("error") for m in found), (line, found)


def test_warnings_for_ignored_and_shadowed_lines() -> None:
    text = full_cover(
        [
            "allgather,0,1000,tree,simple,8,-1,-1",  # tree has no allgather: IGNORE, falls through
            "allreduce,0,1000000,ring,simple,8,-1,-1",
            "allreduce,10,100,tree,ll,8,-1,-1",  # inside the line above: never reached
        ]
    )
    found = messages(text)
    assert any("line 2" in m and "does not implement allgather" in m for m in found)
    assert any("line 4" in m and "never used: line 3" in m for m in found)
    assert all(m.startswith("warning") for m in found)


def test_crlf_and_whitespace_lines_warn() -> None:
    found = messages("allreduce,0,10,ring,simple,8,-1,-1\r\n   \n", caveat=False)
    assert any("CRLF" in m for m in found) and any("whitespace-only" in m for m in found)


def test_render_writes_eight_or_ten_fields_and_comments_in_column_1() -> None:
    rules = [
        TunerRule("allreduce", 0, 65535, "tree", "ll", 8, 2, 16),
        TunerRule("allreduce", 65536, SIZE_MAX, "ring", "simple", 16, -1, -1, 4, 1),
    ]
    text = render(rules, ["made by a test"])
    lines = text.splitlines()
    assert lines[0] == "# made by a test"
    assert lines[-2] == "allreduce,0,65535,tree,ll,8,2,16"
    assert lines[-1] == f"allreduce,65536,{SIZE_MAX},ring,simple,16,-1,-1,4,1"
    assert errors(validate(text, caveat=False)) == []
