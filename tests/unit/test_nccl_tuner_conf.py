"""The tuner CSV validator implements the example tuner's documented rules (plugin.c, README)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.conftest import realclient

from gpufabric.catalog import lookup
from gpufabric.nccl.tune.ncclrules import SIMPLE_ONLY, ignored
from gpufabric.nccl.tune.sweep import plan_sweep
from gpufabric.nccl.tune.tunerconf import (
    ALGORITHM_COLLECTIVES,
    ALGORITHMS,
    COLLECTIVES,
    FROM_TESTS,
    MAX_LINE_CHARS,
    PROTOCOLS,
    SIZE_MAX,
    Problem,
    TunerRule,
    atoi,
    choose,
    errors,
    parse_rule,
    plugin_fields,
    read_rule,
    render,
    strtoull,
    validate,
)

# The lines shipped with NCCL's example (plugins/tuner/example/nccl_tuner.conf, docs/sources.md F.3)
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
        "allreduce,10,0,ring,simple,8,-1,-1": "never matches",
        "allreduce,-1,10,ring,simple,8,-1,-1": "strtoull reads it as 18446744073709551615",
        "allreduce,0,10,ring,simple,8,0,-1": "nNodes 0",
        "allreduce,0,10,ring,simple,8,-1,-1,-1,2": "regBuff 2",
        "allreduce,0,10,ring,simple,x,-1,-1": "is not an integer",
        "allreduce,0,10,ring,simple,8,-1,-1" + " " * 250 + "x": "fgets(256)",
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


def _realclients(name: str) -> Any:
    return json.loads(realclient(name).read_text())


def test_reader_agrees_with_the_real_example_plugin_on_every_observed_file() -> None:
    """Every (collective, size, scale) the compiled plugin answered, our reader answers the same
    (the recording had every cost-table entry valid, so NCCL's IGNORE rules are off here)."""
    observed = _realclients("nccl_tuner_example_observed.json")["cases"]
    compared = 0
    for name, case in observed.items():
        lines = case["content"].split("\n")
        chunks = [
            line[i : i + MAX_LINE_CHARS]
            for line in lines
            for i in range(0, max(len(line), 1), MAX_LINE_CHARS)
        ]
        rules = [
            r
            for text in chunks
            if text and not text.startswith("#")
            for r in [read_rule(text)]
            if r is not None
        ]
        for scale, seen in case.items():
            if scale == "content":
                continue
            nodes, ranks = (int(x) for x in scale.split("x"))
            assert len(rules) == seen["loaded"], (name, scale)
            for coll, size, algo, proto, channels in seen["results"]:
                mine = choose(rules, coll, size, nodes, ranks, nccl_rules=False)
                assert mine == (algo, proto, channels), (name, scale, coll, size)
                compared += 1
    assert compared > 1000


@pytest.mark.parametrize(
    ("line", "severity", "words"),
    [
        ("allreduce,0,65535,tree,ll,4,2,16,-1,-1,7", "warning", "first 10"),
        ("allreduce,0,65535,tree,ll,4,2,16,", None, ""),  # trailing comma: harmless
        ("allreduce,0,65535,tree,ll,4.5,2,16", "warning", "atoi reads it as 4"),
        ("allreduce,0x10,65535,tree,ll,4,2,16", "warning", "strtoull reads it as 0"),
        ("allreduce,+0,65535,tree,ll,4,2,16", "warning", "strtoull reads it as 0"),
        ("allreduce,0,18446744073709551616,ring,simple,16,-1,-1", "warning", "exceeds size_t"),
        ("allreduce,0,65535,ring,simple,0,-1,-1", None, ""),  # 0 = NCCL's default
        ("allreduce,0,65535,ring,simple,65,-1,-1", "warning", "MAXCHANNELS"),
        ("allreduce,0,65535,tree,ll,4,2,16" + " " * 223, None, ""),  # 255 characters
        ("allreduce,0,65535,tree,ll,4,2,16" + " " * 224, "warning", "blanks after 255"),
        ("allreduce,0,65535,nvls,ll,16,-1,-1", "warning", "simple protocol only"),
        ("allreduce,0,65535,nvls_tree,simple,16,1,8", "warning", "off on a single node"),
        ("allreduce,0,65535,nvls,simple,16,2,16", "warning", "needs CollNet"),
        ("allgather,0,65535,pat,simple,16,2,16", "warning", "one rank per node"),
        (" # comment", "warning", "ignored"),
    ],
)
def test_lines_as_the_plugin_and_nccl_read_them(
    line: str, severity: str | None, words: str
) -> None:
    found = validate(line + "\n", caveat=False)
    if severity is None:
        assert found == [], found
    else:
        assert [p.severity for p in found] == [severity], found
        assert words in found[0].message


def test_coverage_ignores_lines_nccl_skips() -> None:
    text = "\n".join(
        [
            f"{c},0,{SIZE_MAX},ring,simple,0,-1,-1"
            for c in ("broadcast", "reduce", "allgather", "reducescatter")
        ]
        + [f"allreduce,0,{SIZE_MAX},nvls,ll,16,-1,-1"]
    )
    assert any(
        "allreduce bytes 0..18446744073709551615 match no line" in p.message
        for p in errors(validate(text))
    )


def test_nccl_rules_match_the_recorded_rules() -> None:
    rules = _realclients("nccl_rules.json")
    assert list(COLLECTIVES) == rules["collectives"]
    assert list(ALGORITHMS) == rules["algorithms"] and list(PROTOCOLS) == rules["protocols"]
    for coll, algos in rules["collective_algorithms"].items():
        assert {a for a in ALGORITHMS if coll in ALGORITHM_COLLECTIVES[a]} == set(algos)
    assert set(rules["simple_only_algorithms"]) == SIMPLE_ONLY
    assert ignored("allreduce", "nvls", "simple", 2, 16) and not ignored(
        "allreduce", "nvls", "simple", 2, 16, collnet=True
    )
    assert ignored("allreduce", "nvls_tree", "simple", 1, 8) and not ignored(
        "allreduce", "nvls_tree", "simple", 2, 16
    )
    assert ignored("allgather", "pat", "simple", 2, 16) and not ignored(
        "allgather", "pat", "simple", 2, 2
    )


@pytest.mark.parametrize(
    ("itype", "nodes"),
    [
        ("p5.48xlarge", 1),
        ("p5.48xlarge", 2),
        ("p5.48xlarge", 16),
        ("a3-megagpu-8g", 2),
        ("p4d.24xlarge", 4),
    ],
)
def test_the_sweep_never_plans_a_trial_nccl_cannot_run(itype: str, nodes: int) -> None:
    rules = _realclients("nccl_rules.json")
    names = {v: k for k, v in rules["nccl_env_algo_names"].items()}
    plan = plan_sweep(lookup(itype), nodes)
    gpus = plan.gpus_per_node
    for trial in plan.trials:
        if trial.stage != "choice":
            continue
        algo = names[trial.env_dict["NCCL_ALGO"]]
        proto = trial.env_dict["NCCL_PROTO"].lower()
        coll = FROM_TESTS[trial.collective]
        assert algo in rules["collective_algorithms"][coll], trial.id
        if algo in rules["simple_only_algorithms"]:
            assert proto == "simple", trial.id
        if algo == "nvls" and nodes > 1:
            raise AssertionError(f"{trial.id}: NVLS across nodes without CollNet")
        if algo == "nvls_tree":
            assert nodes > 1, trial.id
        if algo == "pat":
            assert gpus == 1, trial.id


def test_nccl_skips_a_line_it_ignores_and_the_next_one_applies() -> None:
    rules = [
        TunerRule("allreduce", 0, 65535, "nvls", "ll", 16),
        TunerRule("allreduce", 0, SIZE_MAX, "ring", "simple", 0),
    ]
    assert choose(rules, "allreduce", 100, 2, 16) == ("ring", "simple", 0)
    assert choose(rules, "allreduce", 100, 2, 16, nccl_rules=False) == ("nvls", "ll", 16)
    assert choose(rules, "broadcast", 100, 2, 16) == ("none", "none", 1)


@pytest.mark.parametrize(
    ("args", "kw", "why"),
    [
        (("allreduce", "nosuch", "simple"), {}, "nosuch does not implement allreduce"),
        (("broadcast", "tree", "simple"), {}, "tree does not implement broadcast"),
        (("allgather", "pat", "ll"), {}, "pat runs the simple protocol only, not ll"),
        (
            ("allreduce", "collnet_direct", "simple"), {},
            "collnet_direct needs CollNet (SHARP in the network and its plugin)",
        ),
        (("allreduce", "collnet_chain", "simple"), {"collnet": True}, None),
        (("allreduce", "nvls_tree", "simple", 1, 8), {}, "nvls_tree is off on a single node"),
        (("allreduce", "nvls_tree", "simple", 2, 16), {}, None),
        (("allreduce", "nvls", "simple", 1, 8), {}, None),
        (
            ("allreduce", "nvls", "simple", 2, 16), {},
            "nvls across nodes needs CollNet (SHARP); NCCL turns it off without",
        ),
        (("allreduce", "nvls", "simple", 2, 16), {"collnet": True}, None),
        (("allgather", "pat", "simple", 1, 8), {}, "pat needs one rank per node (8 ranks on 1 nodes)"),
        (("allgather", "pat", "simple", 4, 4), {}, None),
        (("allgather", "pat", "simple"), {}, None),  # node and rank counts unknown: not applied
        (("allreduce", "ring", "ll128", 64, 512), {}, None),
    ],
)  # fmt: skip
def test_what_nccl_ignores_and_why_word_for_word(
    args: tuple[Any, ...], kw: dict[str, bool], why: str | None
) -> None:
    assert ignored(*args, **kw) == why


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("all_reduce,0,10,ring,simple,8,-1,-1",
         ["error: line 1: collective 'all_reduce' unknown: the plugin silently reads it as allreduce"]),
        ("allreduce,0,10,rings,simple,8,-1,-1",
         ["error: line 1: algorithm 'rings' unknown: the plugin silently reads it as ring"]),
        ("allreduce,0,10,ring,LL,8,-1,-1",
         ["error: line 1: protocol 'LL' unknown: the plugin silently reads it as simple"]),
        ("allreduce,0,10,ring,simple,,8,-1,-1",
         ["error: line 1: empty field: strtok skips it and every later column shifts left"]),
        ("allreduce,0,10,ring,simple,8,-1",
         ["error: line 1: 7 fields; the plugin needs 8 to 10 and ignores this line"]),
        ("allreduce,10,0,ring,simple,8,-1,-1",
         ["error: line 1: min_bytes 10 > max_bytes 0: never matches"]),
        ("allreduce,-1,10,ring,simple,8,-1,-1",
         ["error: line 1: min_bytes '-1': strtoull reads it as 18446744073709551615",
          "error: line 1: min_bytes 18446744073709551615 > max_bytes 10: never matches"]),
        ("allreduce,0,-1,ring,simple,8,-1,-1",
         ["error: line 1: max_bytes '-1': strtoull reads it as 18446744073709551615"]),
        ("allreduce,0,10,ring,simple,8,0,-1",
         ["error: line 1: nNodes 0: use -1 (any) or a positive count"]),
        ("allreduce,0,10,ring,simple,8,-1,0",
         ["error: line 1: nRanks 0: use -1 (any) or a positive count"]),
        ("allreduce,0,10,ring,simple,8,-1,-1,0,-1",
         ["error: line 1: numPipeOps 0: use -1 (any) or a positive count"]),
        ("allreduce,0,10,ring,simple,8,-1,-1,-1,2",
         ["error: line 1: regBuff 2: use -1 (any), 0 or 1"]),
        ("allreduce,0,10,ring,simple,8,-1,-1,-1,-2",
         ["error: line 1: regBuff -2: use -1 (any), 0 or 1"]),
        ("allreduce,0,10,ring,simple,8,-1,-1,1,0", []),
        ("allreduce,100,100,ring,simple,8,-1,-1", []),  # one size: min = max matches it
        # character 256 on: blanks (space, tab, CR) are cut harmlessly, anything else is a line
        ("allreduce,0,65535,tree,ll,4,2,16" + " " * 223 + "X",
         ["error: line 1: 256 characters: fgets(256) cuts the line after 255 and reads 'X'... as "
          "another line"]),
        ("allreduce,0,65535,tree,ll,4,2,16" + " " * 223 + "\f",
         ["error: line 1: 256 characters: fgets(256) cuts the line after 255 and reads '\\x0c'... "
          "as another line"]),
        ("allreduce,0,65535,tree,ll,4,2,16" + " " * 223 + "\r",
         ["warning: line 1: 256 characters: blanks after 255 cut"]),
        ("allreduce,0,10,ring,simple,8,x,-1",
         ["error: line 1: nNodes 'x' is not an integer (atoi reads 0)",
          "error: line 1: nNodes 0: use -1 (any) or a positive count"]),
        ("allreduce,0,10,ring,simple,8,-1,x",
         ["error: line 1: nRanks 'x' is not an integer (atoi reads 0)",
          "error: line 1: nRanks 0: use -1 (any) or a positive count"]),
        ("allreduce,0,10,ring,simple,8,-1,-1,x,-1",
         ["error: line 1: numPipeOps 'x' is not an integer (atoi reads 0)",
          "error: line 1: numPipeOps 0: use -1 (any) or a positive count"]),
        ("allreduce,0,10,ring,simple,8,-1,-1,-1,x",
         ["error: line 1: regBuff 'x' is not an integer (atoi reads 0)"]),
        ("allreduce,0,10,ring,simple,8,2.5,-1", ["warning: line 1: nNodes '2.5': atoi reads it as 2"]),
        ("allreduce,0,10,ring,simple,x,-1,-1",
         ["error: line 1: channels 'x' is not an integer (atoi reads 0)"]),
        ("allreduce,0,10,ring,simple,+8,-1,-1",
         ["warning: line 1: channels '+8': atoi reads it as 8"]),
        ("allreduce,0,10,ring,simple,-2,-1,-1",
         ["error: line 1: channels -2: use 0 (NCCL's default), -1 or 1..64"]),
        ("allreduce,0,10,ring,simple,-1,-1,-1",
         ["warning: line 1: channels -1: the example tuner then leaves nChannels at 1 (channel "
          "caveat); write 0 for NCCL's own default or an explicit count"]),
        ("allreduce,0,10,ring,simple,64,-1,-1", []),
        ("allreduce,0,10,ring,simple,65,-1,-1",
         ["warning: line 1: channels 65 above MAXCHANNELS 64: NCCL runs at most 64"]),
        ("allreduce,0,10,ring,simple,8,-1,-1,1,0,5",
         ["warning: line 1: more than 10 fields: the plugin reads the first 10 and ignores the "
          "rest"]),
        ("allreduce,0,10,ring,simple,8,-1,-1,1,0,", []),
        ("allreduce,0x10,65535,tree,ll,4,2,16",
         ["warning: line 1: min_bytes '0x10': strtoull reads it as 0"]),
        ("allreduce,0,18446744073709551616,ring,simple,16,-1,-1",
         ["warning: line 1: max_bytes 18446744073709551616 exceeds size_t: strtoull reads "
          "18446744073709551615"]),
        ("allreduce,0,18446744073709551615,ring,simple,16,-1,-1", []),
        ("allreduce,0,-18446744073709551616,ring,simple,16,-1,-1",
         ["error: line 1: max_bytes '-18446744073709551616': strtoull reads it as "
          "18446744073709551615"]),
        ("allreduce,0,65535,tree,ll,4,2,16" + " " * 224,
         ["warning: line 1: 256 characters: blanks after 255 cut"]),
        ("allreduce,0,10,ring,simple,8,-1,-1" + " " * 250 + "x",
         ["error: line 1: 285 characters: fgets(256) cuts the line after 255 and reads "
          "'                    '... as another line"]),
        (" # comment",
         ["warning: line 1: comment not in column 1: read as a 1-field line, ignored"]),
        ("  \t", ["warning: line 1: whitespace-only line: counted, then ignored"]),
        # only spaces and tabs are blanks to the plugin; a '#' after other characters, or on a
        # line with a comma, is no comment
        ("\f", ["error: line 1: 1 fields; the plugin needs 8 to 10 and ignores this line"]),
        ("X", ["error: line 1: 1 fields; the plugin needs 8 to 10 and ignores this line"]),
        ("\f# c", ["error: line 1: 1 fields; the plugin needs 8 to 10 and ignores this line"]),
        ("X# c", ["error: line 1: 1 fields; the plugin needs 8 to 10 and ignores this line"]),
        (" # a,b", ["error: line 1: 2 fields; the plugin needs 8 to 10 and ignores this line"]),
        ("allreduce,0,10,ring,simple,8,-1,-1\r",
         ["warning: line 1: CRLF line ending: the '\\r' stays in the last field"]),
    ],
)  # fmt: skip
def test_what_tuner_check_says_about_one_line_word_for_word(line: str, said: list[str]) -> None:
    assert messages(line + "\n", caveat=False) == said


@pytest.mark.parametrize(
    ("coll", "algo", "proto", "nodes", "ranks", "collnet", "used"),
    [
        ("allreduce", "nvls", "simple", 1, 8, False, True),
        ("allreduce", "nvls", "ll", 1, 8, False, False),  # NVLS runs Simple only
        ("allreduce", "nvls", "simple", 2, 16, False, False),  # across nodes: needs CollNet
        ("allreduce", "nvls", "simple", 2, 16, True, True),
        ("allgather", "pat", "simple", 2, 2, False, True),
        ("allgather", "pat", "simple", 2, 16, False, False),  # PAT: one rank per node
    ],
)
def test_a_line_nccl_ignores_hands_over_to_the_next_one(
    coll: str, algo: str, proto: str, nodes: int, ranks: int, collnet: bool, used: bool
) -> None:
    rules = [
        TunerRule(coll, 0, 65535, algo, proto, 16),
        TunerRule(coll, 0, SIZE_MAX, "ring", "simple", 0),
    ]
    expected = (algo, proto, 16) if used else ("ring", "simple", 0)
    assert choose(rules, coll, 100, nodes, ranks, collnet=collnet) == expected
    if not collnet:  # CollNet is off unless said
        assert choose(rules, coll, 100, nodes, ranks) == expected
    if collnet:
        return  # validate checks coverage for a communicator without CollNet
    text = "\n".join(
        f"{c},0,{SIZE_MAX},{algo},{proto},16,-1,-1"
        if c == coll
        else f"{c},0,{SIZE_MAX},ring,simple,0,-1,-1"
        for c in COLLECTIVES
    )
    gaps = [p.text() for p in errors(validate(text, nodes=nodes, ranks=ranks))]
    assert gaps == (
        []
        if used
        else [
            f"error: file: {coll} bytes 0..{SIZE_MAX} match no line: NCCL would run them on 1 "
            "channel (channel caveat)"
        ]
    )


def test_choose_matches_one_pipelined_op_and_unregistered_buffers_by_default() -> None:
    rules = [
        TunerRule("allreduce", 0, SIZE_MAX, "tree", "ll", 4, num_pipe_ops=1, reg_buff=0),
        TunerRule("allreduce", 0, SIZE_MAX, "ring", "simple", 0),
    ]
    assert choose(rules, "allreduce", 100, 2, 16) == ("tree", "ll", 4)
    assert choose(rules, "allreduce", 100, 2, 16, num_pipe_ops=2) == ("ring", "simple", 0)


def test_gaps_in_coverage_are_named_by_their_first_and_last_byte() -> None:
    lines = [f"{c},0,{SIZE_MAX},ring,simple,0,-1,-1" for c in COLLECTIVES if c != "allreduce"]
    middle = "\n".join(
        [
            *lines,
            "allreduce,0,99,ring,simple,0,-1,-1",
            f"allreduce,200,{SIZE_MAX},ring,simple,0,-1,-1",
        ]
    )
    assert [p.text() for p in validate(middle)] == [
        "error: file: allreduce bytes 100..199 match no line: NCCL would run them on 1 channel "
        "(channel caveat)"
    ]
    last = "\n".join([*lines, f"allreduce,0,{SIZE_MAX - 1},ring,simple,0,-1,-1"])
    assert [p.text() for p in validate(last)] == [
        f"error: file: allreduce bytes {SIZE_MAX}..{SIZE_MAX} match no line: NCCL would run them "
        "on 1 channel (channel caveat)"
    ]
    assert [p.line for p in validate(last)] == [0]  # a whole-file problem: line 0
    split = "\n".join(
        [
            *lines,
            f"allreduce,0,{SIZE_MAX - 1},ring,simple,0,-1,-1",
            f"allreduce,{SIZE_MAX},{SIZE_MAX},ring,simple,0,-1,-1",
        ]
    )
    assert validate(split) == []


def test_parse_rule_keeps_lines_with_warnings_and_drops_lines_with_errors() -> None:
    problems: list[Problem] = []
    assert parse_rule("allreduce,0,-1,ring,simple,8,-1,-1", 1, problems, caveat=False) is None
    assert parse_rule("all_reduce,0,9,ring,simple,8,-1,-1", 2, problems, caveat=False) is None
    rule = parse_rule("allreduce,0x10,65535,ring,simple,8,-1,-1", 3, problems, caveat=False)
    assert rule == TunerRule("allreduce", 0, 65535, "ring", "simple", 8)
    assert [(p.line, p.severity) for p in problems] == [(1, "error"), (2, "error"), (3, "warning")]
    assert parse_rule("allreduce,0,9,ring,simple,-1,-1,-1", 4, problems) is None  # caveat on
    assert problems[-1].severity == "error"


def test_render_marks_an_empty_comment_line_and_writes_pipeline_fields_when_set() -> None:
    rule = TunerRule("allreduce", 0, 9, "ring", "simple", 8, num_pipe_ops=4)
    assert render([rule], ["a", ""]) == (
        "# a\n#\n# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks\n"
        "allreduce,0,9,ring,simple,8,-1,-1,4,-1\n"
    )


@pytest.mark.parametrize(
    ("line", "caveat", "kept"),
    [
        ("allreduce,10,0,ring,simple,8,-1,-1", False, False),  # never matches
        ("allreduce,0,10,ring,simple,x,-1,-1", False, False),  # channels not an integer
        ("allreduce,0,10,ring,simple,4.5,-1,-1", False, True),  # atoi reads 4: a warning
        ("allreduce,0,10,ring,simple,-1,-1,-1", True, False),  # the channel caveat
        ("allreduce,0,10,ring,simple,-1,-1,-1", False, True),  # -1 as the README has it
        ("allreduce,0,10,ring,simple,-2,-1,-1", False, False),
        ("allreduce,0,10,ring,simple,8,0,-1", False, False),  # nNodes 0
        ("allreduce,0,10,ring,simple,8,-1,-1,-1,2", False, False),  # regBuff 2
        ("allreduce,0,10,nvls,ll,8,-1,-1", False, True),  # NCCL skips it: a warning
    ],
)
def test_a_line_with_an_error_is_no_rule_and_one_with_warnings_is(
    line: str, caveat: bool, kept: bool
) -> None:
    problems: list[Problem] = []
    rule = parse_rule(line, 1, problems, caveat)
    assert (rule is not None) == kept, problems
    assert bool(errors(problems)) != kept


def test_every_line_is_checked_after_one_with_a_problem() -> None:
    text = "\n".join(
        [
            "allreduce,0,10,ring,simple,8,-1,-1" + " " * 250 + "x",
            " # c",
            "   ",
            "allreduce,0,10,rings,simple,8,-1,-1",
            "allreduce,0,10,ring,LL,8,-1,-1",
        ]
    )
    assert [(p.line, p.severity) for p in validate(text, caveat=False)] == [
        (1, "error"),
        (2, "warning"),
        (3, "warning"),
        (4, "error"),
        (5, "error"),
    ]


def test_a_line_inside_an_earlier_line_s_sizes_is_never_used_bounds_included() -> None:
    text = "\n".join(
        [
            "allreduce,0,100,ring,simple,8,-1,-1",
            "allreduce,0,100,tree,ll,8,-1,-1",  # the same sizes
            "allreduce,0,50,tree,ll,8,-1,-1",  # the same first size
            "allreduce,50,100,tree,ll,8,-1,-1",  # the same last size
            "allreduce,50,101,tree,ll,8,-1,-1",  # one size more: used for 101
        ]
    )
    assert [p.text() for p in validate(text, caveat=False)] == [
        f"warning: line {n}: never used: line 1 matches the same sizes first" for n in (2, 3, 4)
    ]


@pytest.mark.parametrize(
    ("first", "said"),
    [
        ("allreduce,0,100,nvls,simple,8,-1,-1",
         ["warning: line 2: never used: line 1 matches the same sizes first"]),
        ("allreduce,0,100,nvls,simple,8,2,16",
         ["warning: line 1: nvls across nodes needs CollNet (SHARP); NCCL turns it off without: "
          "NCCL marks it IGNORE and the next matching line applies"]),
        ("allgather,0,100,pat,simple,8,2,16",
         ["warning: line 1: pat needs one rank per node (16 ranks on 2 nodes): NCCL marks it "
          "IGNORE and the next matching line applies"]),
        ("allgather,0,100,pat,simple,8,2,2",
         ["warning: line 2: never used: line 1 matches the same sizes first"]),
    ],
)  # fmt: skip
def test_a_line_nccl_ignores_shadows_nothing(first: str, said: list[str]) -> None:
    coll, _, _, _, _, _, nodes, ranks = first.split(",")
    second = f"{coll},0,100,ring,simple,8,{nodes},{ranks}"
    assert messages(f"{first}\n{second}\n", caveat=False) == said


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0x10", 0), ("-1", SIZE_MAX), ("-2", SIZE_MAX - 1), ("-0", 0), ("+7", 7),
        ("  42abc", 42), ("\t\n5", 5), ("", 0), ("abc", 0),
        ("18446744073709551616", SIZE_MAX), ("99999999999999999999999", SIZE_MAX),
        # a minus sign wraps a value in range and leaves an overflow at the largest size
        ("-18446744073709551615", 1), ("-18446744073709551616", SIZE_MAX),
    ],
)  # fmt: skip
def test_strtoull_reads_sizes_as_c_does(text: str, value: int) -> None:
    assert strtoull(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [("4.5", 4), ("-3", -3), ("+3", 3), (" 12", 12), ("\v-8z", -8), ("x", 0), ("", 0), ("-", 0)],
)
def test_atoi_reads_numbers_as_c_does(text: str, value: int) -> None:
    assert atoi(text) == value


@pytest.mark.parametrize(
    ("text", "fields", "shifted"),
    [
        ("a,,b", ["a", "b"], True),
        (",a", ["a"], True),
        ("a,b,,", ["a", "b"], False),  # trailing commas: nothing after them
        (" a\t, b ,c", ["a", "b", "c"], False),  # spaces and tabs trimmed
        ("1,2,3,4,5,6,7,8,9,10,11,12", [str(n) for n in range(1, 11)], False),
        ("", [], False),
    ],
)
def test_plugin_fields_as_strtok_splits_them(text: str, fields: list[str], shifted: bool) -> None:
    assert plugin_fields(text) == (fields, shifted)


def test_read_rule_falls_back_silently_and_fills_the_optional_fields() -> None:
    assert read_rule("allreduce,0,10,ring,simple,8,-1") is None  # 7 fields: ignored
    assert read_rule("foo,0,10,bar,baz,8,2,16,4") == TunerRule(
        "allreduce", 0, 10, "ring", "simple", 8, 2, 16, 4, -1
    )
    assert read_rule("allgather, 5 ,0x10,tree,ll128,4.5,2,16,3,1,99") == TunerRule(
        "allgather", 5, 0, "tree", "ll128", 4, 2, 16, 3, 1
    )
    # only spaces and tabs are trimmed: a name with any other character is unknown
    assert read_rule("allreduce,0,10,tree\v,ll,8,-1,-1") == TunerRule(
        "allreduce", 0, 10, "ring", "ll", 8
    )
    assert read_rule("allreduce,0,10,Xtree,ll,8,-1,-1") == TunerRule(
        "allreduce", 0, 10, "ring", "ll", 8
    )
