"""Finding the project, reading a stack by name and `-c KEY=VALUE` overrides
(gpufabric.plan.project), word for word: each refusal's line, nested keys, values read as
`pulumi up -c` reads them. In-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.plan.project import apply_overrides, project_root, read_stack, stack_names


def _project(folder: Path, *stacks: str) -> Path:
    (folder / "stacks").mkdir(parents=True)
    (folder / "Pulumi.yaml").write_text("name: gpufabric\n")
    for name in stacks:
        (folder / "stacks" / f"Pulumi.{name}.yaml").write_text("config:\n  nodes: 2\n")
    return folder


def _line(call: object) -> str:
    with pytest.raises(UserError) as err:
        call()  # type: ignore[operator]
    return str(err.value)


# --- the project folder ------------------------------------------------------------------


def test_the_nearest_project_at_or_above_the_start_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPUFABRIC_PROJECT", raising=False)
    root = _project(tmp_path / "proj")
    deep = root / "a" / "b"
    deep.mkdir(parents=True)
    assert project_root(deep) == root.resolve()
    assert project_root(root) == root.resolve()
    monkeypatch.chdir(deep)
    assert project_root() == root.resolve()


def test_a_pulumi_yaml_without_stacks_is_not_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPUFABRIC_PROJECT", raising=False)
    root = _project(tmp_path / "proj")
    inner = root / "sub"
    inner.mkdir()
    (inner / "Pulumi.yaml").write_text("name: other\n")  # no stacks/ beside it
    assert project_root(inner) == root.resolve()
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "stacks").mkdir()  # stacks/ without Pulumi.yaml
    assert _line(lambda: project_root(lone)) == (
        f"no Pulumi.yaml with a stacks/ folder at or above {lone.resolve()}; run from the project"
    )


def test_gpufabric_project_names_the_project_or_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "proj")
    monkeypatch.setenv("GPUFABRIC_PROJECT", str(root))
    assert project_root(tmp_path) == root  # wherever the start
    missing = tmp_path / "missing"
    monkeypatch.setenv("GPUFABRIC_PROJECT", str(missing))
    assert _line(project_root) == f"GPUFABRIC_PROJECT={missing}: no such project folder"
    for make in ("Pulumi.yaml", "stacks"):
        half = tmp_path / f"half-{make}"
        half.mkdir()
        if make == "stacks":
            (half / "stacks").mkdir()
        else:
            (half / "Pulumi.yaml").write_text("name: x\n")
        monkeypatch.setenv("GPUFABRIC_PROJECT", str(half))
        assert _line(project_root) == (
            f"GPUFABRIC_PROJECT={half}: no Pulumi.yaml with a stacks/ folder there"
        )
    monkeypatch.setenv("GPUFABRIC_PROJECT", "")  # empty: not set
    assert project_root(root / "stacks") == root.resolve()


# --- stacks --------------------------------------------------------------------------------


def test_stacks_are_listed_by_name_and_read_by_name(tmp_path: Path) -> None:
    root = _project(tmp_path, "b-two", "a-one")
    (root / "stacks" / "notes.yaml").write_text("x: 1\n")
    assert stack_names(root) == ["a-one", "b-two"]
    assert read_stack(root, "a-one") == {"gpufabric:nodes": 2}
    assert _line(lambda: read_stack(root, "c-three")) == (
        "stack 'c-three' not found; known stacks: a-one, b-two"
    )


# --- -c overrides ------------------------------------------------------------------------


def test_overrides_set_values_as_pulumi_reads_them() -> None:
    base = {"gpufabric:nodes": 2, "gpufabric:network": {"cidr": "10.0.0.0/16"}}
    out = apply_overrides(
        base,
        [
            "nodes=16",
            "aws:region=us-east-1",
            "gpufabric:network.fabricSubnet=10.0.0.0/18",
            'gpufabric:capacity={"type": "on-demand"}',
            "gpufabric:clusterName=a=b",
            "gpufabric:storage.s3.importPath=s3://b/p",
        ],
    )
    assert out == {
        "gpufabric:nodes": 16,
        "aws:region": "us-east-1",
        "gpufabric:network": {"cidr": "10.0.0.0/16", "fabricSubnet": "10.0.0.0/18"},
        "gpufabric:capacity": {"type": "on-demand"},
        "gpufabric:clusterName": "a=b",
        "gpufabric:storage": {"s3": {"importPath": "s3://b/p"}},
    }
    assert base == {"gpufabric:nodes": 2, "gpufabric:network": {"cidr": "10.0.0.0/16"}}


@pytest.mark.parametrize(
    ("item", "line"),
    [
        ("nodes", "-c 'nodes': expected KEY=VALUE, e.g. -c gpufabric:nodes=16"),
        ("=16", "-c '=16': expected KEY=VALUE, e.g. -c gpufabric:nodes=16"),
        ("nodes.x=1", "-c 'nodes.x=1': gpufabric:nodes is not a map"),
        ("gpufabric:nodes.x.y=1", "-c 'gpufabric:nodes.x.y=1': gpufabric:nodes is not a map"),
        ("network.cidr.x=1", "-c 'network.cidr.x=1': gpufabric:network is not a map"),
    ],
)
def test_an_override_that_cannot_be_applied_is_one_line(item: str, line: str) -> None:
    base = {"gpufabric:nodes": 2, "gpufabric:network": {"cidr": "10.0.0.0/16"}}
    assert _line(lambda: apply_overrides(base, [item])) == line


def test_an_override_value_that_is_no_json_is_kept_as_its_text() -> None:
    assert apply_overrides({}, ['gpufabric:capacity={"type": ', "zone=us-east-1a"]) == {
        "gpufabric:capacity": '{"type": ',
        "gpufabric:zone": "us-east-1a",
    }


def test_an_override_holding_json_gpufabric_refuses_names_the_option() -> None:
    assert _line(lambda: apply_overrides({}, ['gpufabric:capacity={"a": 1, "a": 2}'])) == (
        "-c gpufabric:capacity: key 'a' given twice in one JSON object"
    )
