"""The strict stack-file layer: every broken file gets one line naming the file and the problem."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufabric.config import parse
from gpufabric.config.stack_reader import parse_stack_document
from gpufabric.errors import ConfigError, UserError
from gpufabric.plan.project import read_stack

REPO = Path(__file__).resolve().parents[2]
GOOD = b"config:\n  aws:region: us-east-1\n  gpufabric:nodes: 2\n"

BAD_FILES: list[tuple[str, bytes, str]] = [
    (
        "duplicate key",
        GOOD + b"  gpufabric:nodes: 16\n",
        "line 4: key 'gpufabric:nodes' given twice",
    ),
    (
        "duplicate nested key",
        b"config:\n  gpufabric:storage:\n    type: fsx-lustre\n    type: none\n",
        "key 'type' given twice",
    ),
    ("same key bare and namespaced", GOOD + b"  nodes: 3\n", "given twice"),
    ("unknown section", b"confg:\n  gpufabric:nodes: 2\n", "unknown top-level section 'confg'"),
    ("top level a list", b"- config\n- nodes\n", "top level is a list"),
    ("top level a string", b"just words\n", "top level is a str"),
    ("not utf-8", b"config:\n  gpufabric:clusterName: caf\xe9\n", "not UTF-8"),
    ("binary", b"config:\0\0\0", "binary data"),
    ("no config", b"secretsprovider: passphrase\n", "no 'config:' section"),
    ("config a list", b"config:\n  - a\n", "'config' is a list"),
    ("config empty", b"config:\n", "'config' is empty"),
    ("empty file", b"", "empty file"),
    ("bad yaml", b"config:\n  a: [1,\n", "line 3: not valid YAML"),
    ("three-part key", b"config:\n  a:b:c: 1\n", "not of the form <namespace>:<name>"),
]


@pytest.mark.parametrize(("case", "data", "words"), BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_broken_stack_file_is_one_line_naming_file_and_problem(
    case: str, data: bytes, words: str
) -> None:
    with pytest.raises(UserError) as err:
        parse_stack_document(data, "stacks/Pulumi.x.yaml", "gpufabric")
    message = str(err.value)
    assert message.startswith("stacks/Pulumi.x.yaml: "), case
    assert words in message, message
    assert "\n" not in message


def test_yaml_1_1_words_stay_strings_as_pulumi_reads_them() -> None:
    data = b"config:\n  gpufabric:a: yes\n  gpufabric:b: on\n  gpufabric:c: true\n"
    raw = parse_stack_document(data, "f", "gpufabric")
    assert raw == {"gpufabric:a": "yes", "gpufabric:b": "on", "gpufabric:c": True}


def test_old_config_module_key_form_is_accepted() -> None:
    raw = parse_stack_document(b"config:\n  aws:config:region: us-east-1\n", "f", "gpufabric")
    assert raw == {"aws:region": "us-east-1"}


def test_every_shipped_stack_file_passes_the_strict_reader() -> None:
    for path in sorted((REPO / "stacks").glob("Pulumi.*.yaml")):
        stack = path.name[len("Pulumi.") : -len(".yaml")]
        assert read_stack(REPO, stack)


def test_plan_reports_a_duplicate_key_in_the_stack_file(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    text = (REPO / "stacks" / "Pulumi.aws-h100.yaml").read_text()
    (tmp_path / "stacks" / "Pulumi.dup.yaml").write_text(text + "  gpufabric:nodes: 2\n")
    result = subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", "plan", "-s", "dup"],
        cwd=REPO,  # the project is GPUFABRIC_PROJECT
        env={**os.environ, "GPUFABRIC_PROJECT": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Pulumi.dup.yaml: line 40: key 'gpufabric:nodes' given twice" in lines[0]


def test_project_without_program_is_named(tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    (tmp_path / "stacks" / "Pulumi.aws-h100.yaml").write_text(
        (REPO / "stacks" / "Pulumi.aws-h100.yaml").read_text()
    )
    result = subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", "plan", "-s", "aws-h100"],
        # GPUFABRIC_PROJECT names the project; run from the checkout (mutation testing's
        # copy of the library finds its own settings only there)
        cwd=REPO,
        env={**os.environ, "GPUFABRIC_PROJECT": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "infra/__main__.py" in result.stderr


AWS: dict[str, Any] = {
    "aws:region": "us-east-1",
    "gpufabric:instanceType": "p5.48xlarge",
    "gpufabric:nodes": 2,
    "gpufabric:zone": "us-east-1a",
    "gpufabric:encryption": "provider-native",
}
GCP: dict[str, Any] = {
    "gcp:region": "us-central1",
    "gpufabric:instanceType": "a3-megagpu-8g",
    "gpufabric:nodes": 2,
    "gpufabric:zone": "us-central1-a",
    "gpufabric:encryption": "provider-native",
    "gpufabric:gcp": {"project": "my-project-1"},
}

BAD_CONFIG: list[tuple[str, dict[str, Any], dict[str, Any], str, str]] = [
    (
        "gcp section on aws",
        AWS,
        {"gpufabric:gcp": {"secureBoot": True}},
        "gpufabric:gcp",
        "this is an AWS stack",
    ),
    ("azure section on aws", AWS, {"gpufabric:azure": {}}, "gpufabric:azure", "remove"),
    ("aws section on gcp", GCP, {"gpufabric:aws": {}}, "gpufabric:aws", "remove"),
    (
        "string for a boolean (aws)",
        AWS,
        {"gpufabric:storage": {"type": "fsx-lustre", "capacityGib": 4800, "efa": "yes"}},
        "gpufabric:storage.efa",
        "valid boolean",
    ),
    (
        "string for a boolean (gcp)",
        GCP,
        {"gpufabric:gcp": {"project": "my-project-1", "secureBoot": "yes"}},
        "gpufabric:gcp.secureBoot",
        "valid boolean",
    ),
    (
        "1 for a boolean",
        GCP,
        {"gpufabric:gcp": {"project": "my-project-1", "secureBoot": 1}},
        "gpufabric:gcp.secureBoot",
        "valid boolean",
    ),
    (
        "mount point with a command",
        AWS,
        {
            "gpufabric:storage": {
                "type": "fsx-lustre",
                "capacityGib": 4800,
                "mountPoint": "/fsx;reboot",
            }
        },
        "gpufabric:storage.mountPoint",
        "must hold only letters",
    ),
    (
        "mount point with a space",
        GCP,
        {"gpufabric:storage": {"type": "filestore", "mountPoint": "/a b"}},
        "gpufabric:storage.mountPoint",
        "must hold only letters",
    ),
    (
        "mount point with ..",
        AWS,
        {"gpufabric:storage": {"type": "fsx-lustre", "capacityGib": 4800, "mountPoint": "/fsx/.."}},
        "gpufabric:storage.mountPoint",
        "normalised path",
    ),
    (
        "relative mount point",
        AWS,
        {"gpufabric:storage": {"type": "fsx-lustre", "capacityGib": 4800, "mountPoint": "fsx"}},
        "gpufabric:storage.mountPoint",
        "absolute directory",
    ),
    (
        "mount point newline",
        GCP,
        {"gpufabric:storage": {"type": "filestore", "mountPoint": "/x\n/y"}},
        "gpufabric:storage.mountPoint",
        "control character",
    ),
    (
        "user data over 16 KB",
        AWS,
        {"gpufabric:userData": "#!/bin/sh\n" + "x" * 16384},
        "gpufabric:userData",
        "16384 bytes",
    ),
    (
        "region not in botocore",
        AWS,
        {"aws:region": "us-east-9", "gpufabric:zone": "us-east-9a"},
        "aws:region",
        "not an AWS region",
    ),
    (
        "region typo",
        AWS,
        {"aws:region": "us-east1", "gpufabric:zone": "us-east1a"},
        "aws:region",
        "did you mean 'us-east-1'",
    ),
]


@pytest.mark.parametrize(
    ("case", "base", "change", "key", "words"), BAD_CONFIG, ids=[c[0] for c in BAD_CONFIG]
)
def test_bad_config_names_the_key(
    case: str, base: dict[str, Any], change: dict[str, Any], key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as err:
        parse({**base, **change}, "s")
    assert err.value.key == key, (case, str(err.value))
    assert words in str(err.value), str(err.value)


def test_user_data_at_the_limit_and_a_plain_mount_point_pass() -> None:
    cfg = parse(
        {
            **AWS,
            "gpufabric:userData": "x" * 16384,
            "gpufabric:storage": {
                "type": "fsx-lustre",
                "capacityGib": 4800,
                "mountPoint": "/mnt/fsx-1.data_2",
                "efa": False,
            },
        },
        "s",
    )
    assert cfg.storage.type == "fsx-lustre" and cfg.storage.mount_point == "/mnt/fsx-1.data_2"


def test_every_botocore_partition_region_is_accepted() -> None:
    cfg = parse({**AWS, "aws:region": "eu-west-1", "gpufabric:zone": "eu-west-1b"}, "s")
    assert cfg.region == "eu-west-1"


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_a_project_folder_that_is_not_one_is_named(tmp_path: Path, make: str) -> None:
    folder = tmp_path / "proj"
    if make == "empty":
        folder.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", "plan", "-s", "aws-h100"],
        cwd=REPO,  # the project is GPUFABRIC_PROJECT
        env={**os.environ, "GPUFABRIC_PROJECT": str(folder)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"GPUFABRIC_PROJECT={folder}" in result.stderr


def test_every_cloud_has_a_display_name() -> None:
    from gpufabric.clouds import registry

    assert all(spec.display_name for spec in registry.specs())


MORE_BAD_FILES: list[tuple[str, bytes, str]] = [
    ("unhashable key", b"config:\n  ? [a, b]\n  : 1\n", "line 2: a list or mapping used as a key"),
    ("control character", b"config:\n  a: \x07\n", "line 2: control character U+0007"),
    ("key starting with a colon", b"config:\n  :nodes: 1\n", "config key ':nodes'"),
    ("key ending with a colon", b"config:\n  'gpufabric:': 1\n", "config key 'gpufabric:'"),
    ("key that is a number", b"config:\n  1: x\n", "config key 1 is not a string"),
]


@pytest.mark.parametrize(
    ("case", "data", "words"), MORE_BAD_FILES, ids=[c[0] for c in MORE_BAD_FILES]
)
def test_more_broken_stack_files(case: str, data: bytes, words: str) -> None:
    with pytest.raises(UserError) as err:
        parse_stack_document(data, "f.yaml", "gpufabric")
    assert str(err.value).startswith("f.yaml: ") and words in str(err.value), (case, str(err.value))


def test_load_stack_file_names_the_path_and_uses_the_project_namespace(tmp_path: Path) -> None:
    from gpufabric.config.stack_reader import load_stack_file

    good = tmp_path / "Pulumi.s.yaml"
    good.write_bytes(b"config:\n  nodes: 2\n  aws:region: us-east-1\n")
    assert load_stack_file(good, "proj") == {"proj:nodes": 2, "aws:region": "us-east-1"}
    with pytest.raises(UserError, match=f"^{tmp_path}: is a directory, expected a stack file$"):
        load_stack_file(tmp_path, "proj")
    with pytest.raises(UserError, match=f"^{tmp_path / 'missing.yaml'}: cannot read: no such file"):
        load_stack_file(tmp_path / "missing.yaml", "proj")
    bad = tmp_path / "Pulumi.b.yaml"
    bad.write_bytes(b"confg: {}\n")
    with pytest.raises(UserError, match=f"^{bad}: unknown top-level section"):
        load_stack_file(bad, "proj")


def test_checkpoint_goal_hands_its_three_figures_to_the_sizing() -> None:
    from gpufabric.config.base import CheckpointGoal

    goal = CheckpointGoal.model_validate(
        {"sizeGiB": 2048, "writeSeconds": 60, "readGBps": 12.5}
    ).goal()
    assert (goal.size_gib, goal.write_seconds, goal.read_gbps) == (2048, 60, 12.5)
    assert CheckpointGoal.model_validate({"sizeGiB": 1, "writeSeconds": 1}).goal().read_gbps is None
