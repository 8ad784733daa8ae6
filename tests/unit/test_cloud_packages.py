"""A cloud is one package: outside src/gpufabric/clouds/<cloud>/ the code does not name a cloud.

Allowed to name clouds: each cloud's own package, the registry (the one list), the catalog and
stack data, docs, tests, and the packaging files. Files that still name a cloud are listed in
NOT_YET_MOVED with what knows the cloud there (none is left); the list only shrinks: a new file
that names a cloud fails, and so does a listed file that no longer does (take it off the list).

Provenance is not knowledge: in the library's YAML data tables (src/gpufabric/**.yaml), a
citation of a public repository (`owner/repo`, with an optional path, `@commit` or `#issue`) or
a URL is left out before the check, so a threshold may say where its number comes from. Code
stays strict: in Python, roles and playbooks, a cloud's name anywhere (a word, a string, a dict
key, a branch, a comment) counts.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gpufabric.clouds import registry

REPO = Path(__file__).resolve().parents[2]
CODE = ("src", "plugins", "infra", "policy", "roles", "playbooks")
ALLOWED = (
    re.compile(r"^src/gpufabric/clouds/(aws|gcp|azure|oci|nebius)/"),
    re.compile(r"^src/gpufabric/clouds/registry\.py$"),
    re.compile(r"^src/gpufabric/catalog/[a-z_]+\.yaml$"),  # the catalog's data
    re.compile(r"\.md$"),  # docs (role READMEs included)
)
NAME = re.compile(r"(?<![\w-])(aws|gcp|azure|oci|nebius)(?![\w-])", re.IGNORECASE)
DATA = re.compile(r"^src/gpufabric/.*\.ya?ml$")  # data tables (roles and playbooks are code)
# A URL, or a repository citation: owner/repo[/path][@commit][#n] (GitHub's name rules)
CITATION = re.compile(r"https?://\S+|(?<![\w./-])[A-Za-z0-9-]+/[\w.-]+(/[\w./-]*)?(@\w+)?(#\d+)?")

NOT_YET_MOVED: dict[str, str] = {}


def _tracked() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", *CODE], cwd=REPO, capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return out.stdout.split()


def _naming() -> set[str]:
    found = set()
    for path in _tracked():
        if any(rule.search(path) for rule in ALLOWED):
            continue
        text = (REPO / path).read_text(errors="replace")
        if DATA.search(path):
            text = CITATION.sub(" ", text)
        if NAME.search(text):
            found.add(path)
    return found


def test_no_new_file_names_a_cloud() -> None:
    new = sorted(_naming() - set(NOT_YET_MOVED))
    assert new == [], "move what knows a cloud into src/gpufabric/clouds/<cloud>/"


def test_the_not_yet_moved_list_only_shrinks() -> None:
    stale = sorted(set(NOT_YET_MOVED) - _naming())
    assert stale == [], "these no longer name a cloud: take them off NOT_YET_MOVED"


def test_the_check_catches_a_cloud_name() -> None:
    assert NAME.search('if itype.cloud == "aws":')
    assert NAME.search("OCI shapes")
    assert not NAME.search("gpufabric_aws_region_x")  # part of a longer name
    assert not NAME.search("awsome")


def test_only_citations_in_data_are_left_out() -> None:
    cited = "# NIC per group (aws/aws-ofi-nccl commit dbc2dc0b, aws/aws-ofi-nccl#890): NCCL"
    assert not NAME.search(CITATION.sub(" ", cited))
    assert not NAME.search(CITATION.sub(" ", "see https://docs.aws.amazon.com/fsx/x.html"))
    for prose in ("# Azure hopper.conf uses 4", "value: 4  # as on AWS", "cloud: gcp", "oci: {}"):
        assert NAME.search(CITATION.sub(" ", prose)), prose


def test_the_registry_names_every_cloud_package() -> None:
    folders = {
        p.name for p in (REPO / "src/gpufabric/clouds").iterdir() if (p / "__init__.py").is_file()
    }
    assert folders == set(registry.BUILT_IN)
    for spec in registry.specs():
        assert spec.name in registry.names() and spec.display_name
        for part in ("settings", "rules", "cluster", "summary", "discovery", "facts"):
            assert registry.has_module(spec.name, part), (spec.name, part)


def test_an_unregistered_cloud_is_one_line() -> None:
    from gpufabric.errors import UserError

    with pytest.raises(UserError, match=r"^cloud 'sixth' is not registered; known clouds: aws, "):
        registry.get("sixth")


def test_more_clouds_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufabric.errors import UserError

    monkeypatch.setenv(registry.ENVIRONMENT, "sixth=example.sixth")
    assert registry.names()[-1] == "sixth" and registry.packages()["sixth"] == "example.sixth"
    monkeypatch.setenv(registry.ENVIRONMENT, "sixth")
    with pytest.raises(UserError, match="is not name=package"):
        registry.names()
    monkeypatch.setenv(registry.ENVIRONMENT, "sixth=no_such_package_here")
    with pytest.raises(UserError, match=r"^cloud 'sixth': package 'no_such_package_here' cannot"):
        registry.get("sixth")
    monkeypatch.setenv(registry.ENVIRONMENT, "sixth=json")  # importable, but not a cloud
    with pytest.raises(UserError, match=r"^cloud 'sixth': json\.CLOUD must be a CloudSpec"):
        registry.get("sixth")
