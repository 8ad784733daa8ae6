"""The repository stands on its own: no tracked file names a path outside it, a reference sheet
that is not in it, or the project's internal bookkeeping (issue numbers, "the issue").

The one exception is tests/conftest.py, whose single setting says where the real captures are
by default (they are third-party text and are not committed)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ALLOWED = {"tests/conftest.py", "tests/unit/test_repo_self_contained.py"}
FORBIDDEN = {
    "a path outside the repository": re.compile(
        r"\.\./shared|/work/|shared/(?:fixtures|realclients|reference)"
        r"|[\"']shared[\"']\s*/\s*[\"'](?:fixtures|realclients|reference)"
    ),
    "a reference sheet outside the repository (cite docs/sources.md or the public source)": re.compile(
        r"(?<![\w/-])(?:cloud-facts(?:-more)?|performance-anchors)\b"
        r"|\b(?:offline-testing|style-anchors|peers|fabric-health)\.md|\bDESIGN\.md"
    ),
    "project-internal bookkeeping": re.compile(
        r"(?<![\w/#-])issues? #?\d+|\bthe issue\b|\bdone when of\b|another engineer;",
        re.IGNORECASE,
    ),
}


def tracked_files() -> list[str]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    return [name for name in out.stdout.decode().split("\0") if name]


def offences(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for why, pattern in FORBIDDEN.items():
            if match := pattern.search(line):
                found.append(f"line {number}: {match.group(0)!r} ({why})")
    return found


def test_no_tracked_file_reaches_outside_the_repository() -> None:
    bad = []
    for name in tracked_files():
        if name in ALLOWED:
            continue
        path = REPO / name
        if not path.is_file():
            continue  # deleted in the work tree, not yet committed
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        bad += [f"{name}: {o}" for o in offences(data.decode("utf-8", errors="replace"))]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "line",
    [
        "Real sample: ../shared/fixtures/mlnx_qos/x.txt",
        'FIXTURES = REPO.parent / "shared" / "fixtures" / "nccl-tests"',
        "# Anchors: performance-anchors.md section 1",
        "FSx client ports (cloud-facts.md B.2)",
        "see /work/shared/reference/offline-testing.md",
        'Example (the "done when" of issue 6):',
        "(the issue asks for a COLLOCATED policy)",
        "wiring (owned by another engineer; suggested):",
        "hardware steps (DESIGN.md: only where detected)",
    ],
)
def test_the_check_catches_what_it_is_for(line: str) -> None:
    assert offences(line)


@pytest.mark.parametrize(
    "line",
    [
        "(aws/aws-ofi-nccl commit dbc2dc0b, aws/aws-ofi-nccl#890)",
        "docs/sources.md A.2",
        "roles/fabric_health/README.md",
        "the fabric-health playbook (playbooks/fabric-health.yml), its peers",
        "issues a warning when the link is slow",
    ],
)
def test_the_check_lets_public_citations_through(line: str) -> None:
    assert not offences(line)


def test_the_docs_index_links_every_page_and_the_readme_links_the_index() -> None:
    index = (REPO / "docs" / "README.md").read_text()
    links = set(re.findall(r"\]\(([^)#]+)\)", index))
    for link in links:
        assert (REPO / "docs" / link).resolve().is_file(), f"docs/README.md: {link} is missing"
    pages = {p.name for p in (REPO / "docs").glob("*.md")} - {"README.md"}
    assert pages <= links, f"docs/README.md does not link {sorted(pages - links)}"
    assert "](docs/README.md)" in (REPO / "README.md").read_text()
    for name in ("LICENSE", "CHANGELOG.md", "CONTRIBUTING.md"):
        assert (REPO / name).is_file(), name
    assert "Apache License" in (REPO / "LICENSE").read_text()
