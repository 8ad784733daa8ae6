"""docs/troubleshooting.md quotes the lines the commands really print (a wording change in the
code must reach the page)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpufabric.config import parse
from gpufabric.config.stackfile import parse_stack_document
from gpufabric.errors import UserError
from gpufabric.nccl.gate.verdict import gate
from gpufabric.nccl.parse.capture import parse_text
from gpufabric.nccl.tune.tunerconf import validate
from gpufabric.topology.sources import file

DOC = (Path(__file__).resolve().parents[2] / "docs" / "troubleshooting.md").read_text()
AWS: dict[str, Any] = {
    "aws:region": "us-east-1",
    "gpufabric:instanceType": "p5.48xlarge",
    "gpufabric:nodes": 2,
    "gpufabric:zone": "us-east-1a",
    "gpufabric:encryption": "provider-native",
}


def _error(call: Any) -> str:
    with pytest.raises(UserError) as err:
        call()
    return str(err.value)


def _after_path(message: str) -> str:
    """The part of a message after the file it names (the page shortens paths)."""
    return message.split(": ", 1)[1] if message.startswith(("f:", "t.json:")) else message


CASES = {
    "duplicate key": lambda: _error(
        lambda: parse_stack_document(
            b"config:\n  gpufabric:nodes: 1\n  gpufabric:nodes: 2\n", "f", "gpufabric"
        )
    ),
    "unknown section": lambda: _error(
        lambda: parse_stack_document(b"confg:\n  a: 1\n", "f", "gpufabric")
    ),
    "other cloud": lambda: _error(lambda: parse({**AWS, "gpufabric:gcp": {}}, "s")),
    "mount point": lambda: _error(
        lambda: parse(
            {**AWS, "gpufabric:storage": {"type": "fsx-lustre", "mountPoint": "/fsx;reboot"}}, "s"
        )
    ),
    "cycle": lambda: _error(
        lambda: file.parse(
            {"hosts": [{"name": "a", "path": ["s1", "s2"]}, {"name": "b", "path": ["s2", "s1"]}]},
            "t.json",
        )
    ),
    "efa devices": lambda: next(
        v.line()
        for v in gate(
            [
                parse_text(
                    "h:1:1 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is "
                    "efa-direct (found 31 nics)\n",
                    "log.txt",
                )
            ],
            "p5.48xlarge",
            2,
        ).verdicts
        if "EFA devices" in v.message
    ),
    "nvls ll": lambda: validate("allreduce,0,65535,nvls,ll,16,-1,-1\n", caveat=False)[0].text(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_page_quotes_the_real_line(case: str) -> None:
    line = CASES[case]()
    quoted = _after_path(line)
    assert quoted.split(" (line")[0] in DOC, f"docs/troubleshooting.md lacks: {quoted}"
