"""`gpufabric plan` at 80 columns: lines fit, values wrap, no name or id is cut ("...")."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from tests.pulumi.plans import plan_for

from gpufabric.plan.render import render_plan
from gpufabric.plan.summary import fabric_summary


@pytest.mark.parametrize("stack", ["aws-h100", "gcp-a3-mega", "azure-ndv5"])
def test_plan_reads_at_80_columns(stack: str) -> None:
    plan = plan_for(stack)
    out = io.StringIO()
    render_plan(plan, Console(file=out, width=80, color_system=None, legacy_windows=False))
    text = out.getvalue()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in text and "..." not in text
    for resource in plan.resources:  # every name whole, on one line
        assert any(
            re.search(rf"(?<![\w-]){re.escape(resource.name)}(?![\w-])", line) for line in lines
        ), resource.name
    words = {w for line in lines for w in re.split(r"[\s│┃|]+", line) if w}
    for _label, value in fabric_summary(plan):
        for token in value.split():
            if len(token) < 40:  # what fits the value column is never split
                assert token in words, (token, value)
