"""Under `pulumi up` the program itself validates config: one line, no traceback.

The plan validates before running the program; here the program runs with bad config so its
own path (RunError, which Pulumi prints without a stack trace) is exercised.
"""

from __future__ import annotations

import pytest
from tests.pulumi.plans import REPO

from gpufabric.errors import UserError
from gpufabric.plan.mocks import MockFacts, RecordingMocks
from gpufabric.plan.project import read_stack
from gpufabric.plan.runner import _run_program


def test_program_turns_bad_config_into_one_clean_line() -> None:
    raw = read_stack(REPO, "aws-h100")
    raw["gpufabric:nodes"] = 0
    mocks = RecordingMocks(MockFacts(region="us-east-1", zone="us-east-1a"))
    with pytest.raises(UserError) as err:
        _run_program(REPO / "infra" / "__main__.py", "aws-h100", raw, mocks, [])
    assert str(err.value).startswith("gpufabric:nodes: 0 is not valid")
    assert not [r for r in mocks.records if r.custom], "nothing may be registered"


def test_program_reads_its_stack_file_strictly_under_pulumi_up(tmp_path) -> None:
    """Pulumi keeps the last of two duplicate keys; the program refuses the file itself."""
    import shutil

    shutil.copytree(REPO / "infra", tmp_path / "infra")
    (tmp_path / "stacks").mkdir()
    text = (REPO / "stacks" / "Pulumi.aws-h100.yaml").read_text()
    (tmp_path / "stacks" / "Pulumi.dup.yaml").write_text(text + "  gpufabric:nodes: 2\n")
    raw = read_stack(REPO, "aws-h100")
    mocks = RecordingMocks(MockFacts(region="us-east-1", zone="us-east-1a"))
    with pytest.raises(UserError) as err:
        _run_program(tmp_path / "infra" / "__main__.py", "dup", raw, mocks, [])
    assert "key 'gpufabric:nodes' given twice" in str(err.value)
    assert not [r for r in mocks.records if r.custom], "nothing may be registered"
