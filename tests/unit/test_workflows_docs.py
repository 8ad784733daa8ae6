"""The GitOps docs stay true: their links resolve, every policy is documented, and every
policy name, playbook and workflow they mention exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpufabric.policies import RESOURCE_POLICIES, STACK_POLICIES

REPO = Path(__file__).resolve().parents[2]
DOCS = [
    REPO / "docs" / name
    for name in (
        "gitops.md",
        "deploy-aws.md",
        "deploy-gcp.md",
        "deploy-azure.md",
        "troubleshooting.md",
    )
]
POLICY_NAMES = {p.name for p in (*RESOURCE_POLICIES, *STACK_POLICIES)}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_relative_links_resolve(doc: Path) -> None:
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", doc.read_text()):
        assert (doc.parent / target).exists(), f"{doc.name}: broken link {target}"


def test_every_policy_is_in_the_gitops_table() -> None:
    table = (REPO / "docs" / "gitops.md").read_text()
    for name in POLICY_NAMES:
        assert f"| `{name}` |" in table, name


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_named_policies_playbooks_and_workflows_exist(doc: Path) -> None:
    text = doc.read_text()
    for name in re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+){2,})`", text):
        if name.startswith(("gpu-", "storage-", "efa-", "encryption-", "imdsv2-", "no-")):
            assert name in POLICY_NAMES, f"{doc.name}: unknown policy {name}"
    for path in re.findall(
        r"\b((?:playbooks|\.github/workflows|\.github/scripts)/[\w./-]+\.(?:yml|py))", text
    ):
        assert (REPO / path).is_file(), f"{doc.name}: {path} does not exist"
