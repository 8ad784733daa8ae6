"""A cloud is one package: outside src/gpufabric/clouds/<cloud>/ the code does not name a cloud.

Allowed to name clouds: each cloud's own package, the registry (the one list), the catalog and
stack data, docs, tests, and the packaging files. Files that still name a cloud are listed in
NOT_YET_MOVED with what knows the cloud there; the list only shrinks: a new file that names a
cloud fails, and so does a listed file that no longer does (take it off the list).
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
    re.compile(r"^src/gpufabric/catalog/instances\.yaml$"),
    re.compile(r"\.md$"),  # docs (role READMEs included)
)
NAME = re.compile(r"(?<![\w-])(aws|gcp|azure|oci|nebius)(?![\w-])", re.IGNORECASE)

NOT_YET_MOVED: dict[str, str] = {
    "src/gpufabric/nccl/parse/debuglog.py": "plugin names in NCCL logs",
    "src/gpufabric/nccl/parse/transport.py": "plugin names in NCCL logs",
    "src/gpufabric/nccl/parse/lines.py": "a fixture's provenance in a comment",
    "src/gpufabric/nccl/gate/thresholds.yaml": "sources",
    "src/gpufabric/nccl/tune/sweep.yaml": "sources",
    "src/gpufabric/nccl/model.py": "NCCL network plugin names (aws-ofi-nccl)",
    "src/gpufabric/health/health.yaml": "a threshold's source",
}


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
