"""Who the clouds trust: exact OIDC subjects only, per identity and per stack.

GitHub's subject for a job in an environment is repo:ORG/REPO:environment:NAME and for a
pull request repo:ORG/REPO:pull_request (docs.github.com, "OpenID Connect reference"). A branch
workflow can name any environment, and GitHub creates one it has never seen on the fly, with
no protection: a pattern such as environment:aws-* would hand the deploy role to any writer
(and to the fabric job's environment aws-h100-fabric). So every trust document lists exact
subjects, the deploy and fabric identities share none, and the docs suggest no pattern."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PERMS = REPO / "permissions"
SUBJECT = re.compile(r"repo:ORG/REPO:(pull_request|environment:[A-Za-z0-9._-]+)")


def _stack_clouds() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location(
        "stack_matrix", REPO / ".github" / "scripts" / "stack_matrix.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.stack_clouds(REPO)


def _aws(identity: str) -> list[str]:
    doc = json.loads((PERMS / "aws" / f"trust-{identity}.json").read_text())
    subjects: list[str] = []
    for statement in doc["Statement"]:
        condition: dict[str, Any] = statement["Condition"]
        assert set(condition) == {"StringEquals"}, condition  # no StringLike, no ForAnyValue
        equals = condition["StringEquals"]
        assert equals["token.actions.githubusercontent.com:aud"] == "sts.amazonaws.com"
        sub = equals["token.actions.githubusercontent.com:sub"]
        subjects += [sub] if isinstance(sub, str) else sub
        assert statement["Action"] == "sts:AssumeRoleWithWebIdentity"
    return subjects


def _gcp(identity: str) -> list[str]:
    doc = yaml.safe_load((PERMS / "gcp" / "trust.yaml").read_text())
    (account,) = [a for a in doc["serviceAccounts"] if a.startswith(f"gpufabric-{identity}@")]
    return list(doc["serviceAccounts"][account])


def _azure(identity: str) -> list[str]:
    doc = json.loads((PERMS / "azure" / "federated-credentials.json").read_text())
    creds = doc[f"gpufabric-{identity}"]
    for cred in creds:
        assert cred["issuer"] == "https://token.actions.githubusercontent.com"
        assert cred["audiences"] == ["api://AzureADTokenExchange"]
    return [c["subject"] for c in creds]


READERS = {"aws": _aws, "gcp": _gcp, "azure": _azure}


def subject_problems(subjects: list[str]) -> list[str]:
    return [s for s in subjects if not SUBJECT.fullmatch(s)]


def test_the_subject_check_refuses_patterns() -> None:
    bad = ["repo:ORG/REPO:environment:aws-*", "repo:ORG/*", "repo:ORG/REPO:ref:refs/heads/*"]
    assert subject_problems(bad) == bad
    assert subject_problems(["repo:ORG/REPO:environment:aws-h100"]) == []


@pytest.mark.parametrize("cloud", sorted(READERS))
def test_each_identity_trusts_exact_subjects_of_its_own_stacks_only(cloud: str) -> None:
    read = READERS[cloud]
    stacks = sorted(s for s, c in _stack_clouds().items() if c == cloud)
    assert stacks
    preview, deploy, fabric = read("preview"), read("deploy"), read("fabric")
    for subjects in (preview, deploy, fabric):
        assert subject_problems(subjects) == []
    assert preview == ["repo:ORG/REPO:pull_request"]
    assert sorted(deploy) == [f"repo:ORG/REPO:environment:{s}" for s in stacks]
    assert sorted(fabric) == [f"repo:ORG/REPO:environment:{s}-fabric" for s in stacks]
    assert not set(deploy) & set(fabric)


def suggested(text: str) -> str:
    """What a doc hands the reader to copy: its code blocks and table rows."""
    blocks = re.findall(r"```.*?```", text, re.S)
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return "\n".join(blocks + rows)


def test_docs_suggest_no_subject_pattern() -> None:
    for doc in (REPO / "docs" / "security.md", REPO / "docs" / "gitops.md"):
        text = suggested(doc.read_text())
        assert "StringLike" not in text, doc.name
        assert not re.search(r"environment:[\w.<>-]*\*", text), doc.name
    security = " ".join((REPO / "docs" / "security.md").read_text().split()).lower()
    assert "environments must exist, with protection, before a cloud trusts them" in security
    assert "creates an environment it has never seen on the fly" in security
