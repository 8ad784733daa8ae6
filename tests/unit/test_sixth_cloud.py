"""The next cloud is one folder: a throwaway sixth cloud that lives only in the test tree
(tests/clouds/sixthcloud) runs through the offline plan, the policy pack, the inventory plugin
and topology render, registered by GPUFABRIC_CLOUDS alone, with no edit outside its package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
GPUFABRIC = str(Path(sys.executable).parent / "gpufabric")
ANSIBLE_INVENTORY = str(Path(sys.executable).parent / "ansible-inventory")
STACK = """config:
  sixth:region: six-west1
  gpufabric:instanceType: six.gpu8
  gpufabric:nodes: 3
  gpufabric:zone: six-west1-a
  gpufabric:encryption: ipsec
  gpufabric:sixth:
    project: demo
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sixth-project")
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    (root / "infra").symlink_to(REPO / "infra")
    (root / "stacks").mkdir()
    (root / "stacks" / "Pulumi.sixth-demo.yaml").write_text(STACK)
    return root


def _env(project: Path) -> dict[str, str]:
    path = os.pathsep.join(
        filter(None, [str(REPO / "tests" / "clouds"), os.environ.get("PYTHONPATH")])
    )
    return {
        **os.environ,
        "GPUFABRIC_CLOUDS": "sixth=sixthcloud",
        "GPUFABRIC_PROJECT": str(project),
        "PYTHONPATH": path,
        "COLUMNS": "200",
    }


def _run(project: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv), cwd=REPO, env=_env(project), capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def plan(project: Path) -> dict[str, Any]:
    proc = _run(project, GPUFABRIC, "plan", "-s", "sixth-demo", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_plan_builds_the_sixth_cloud_s_component(plan: dict[str, Any]) -> None:
    nodes = [r for r in plan["resources"] if r["type"] == "sixth:compute:Node"]
    assert [n["name"] for n in nodes] == ["sixth-demo-0", "sixth-demo-1", "sixth-demo-2"]
    assert {n["inputs"]["project"] for n in nodes} == {"demo"}
    cluster = plan["outputs"]["cluster"]
    assert (cluster["cloud"], cluster["instanceType"], cluster["fabric"]) == (
        "sixth",
        "six.gpu8",
        "infiniband",
    )


def test_the_human_plan_shows_its_summary(project: Path) -> None:
    proc = _run(project, GPUFABRIC, "plan", "-s", "sixth-demo")
    assert proc.returncode == 0, proc.stderr
    assert "3 in six-west1-a" in proc.stdout


def test_the_policy_pack_runs_on_it(project: Path) -> None:
    """The policies read Sixth's nodes and rules from its own policy data: those that apply
    everywhere run on it (placement: its nodes carry a rack), the others are named."""
    proc = _run(project, GPUFABRIC, "plan", "-s", "sixth-demo", "--policy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    *_, passed, skipped = proc.stdout.rstrip().splitlines()
    assert passed == "policy: all 6 gpufabric policies that apply pass"
    assert skipped.startswith("policy: not applicable to this stack's cloud: imdsv2-required")


def test_a_policy_violation_is_caught_on_it(project: Path) -> None:
    """SSH from a range wider than an admin network, read through Sixth's own rule reader."""
    proc = _run(
        project,
        GPUFABRIC,
        "plan",
        "-s",
        "sixth-demo",
        "--policy",
        "-c",
        "gpufabric:network.managementCidr=0.0.0.0/1",
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    head = lines.index("policy: 2 violation(s) of gpufabric policies:")
    assert lines[head + 1 : head + 3] == [
        "  no-ingress-from-internet: sixth:network:Rule sixth-demo-ssh: allows ingress from "
        "0.0.0.0/1, i.e. the internet",
        "  ssh-from-admin-ranges-only: sixth:network:Rule sixth-demo-ssh: lets SSH (TCP 22) in "
        "from 0.0.0.0/1, wider than an admin range (a /16)",
    ]


def test_its_nodes_are_gpu_nodes_to_the_policies(
    plan: dict[str, Any], monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """Placement and public-IP checks find Sixth's nodes: a node without a rack or with a
    public address is refused, in-process over the recorded plan."""
    from gpufabric.catalog import catalog
    from gpufabric.policies import Resource, Stack, check_stack

    monkeypatch.syspath_prepend(str(REPO / "tests" / "clouds"))
    monkeypatch.setenv("GPUFABRIC_CLOUDS", "sixth=sixthcloud")
    catalog.cache_clear()  # loaded once per process: read it again with Sixth's instances.yaml
    request.addfinalizer(catalog.cache_clear)
    resources = [
        Resource(r["type"], r["name"], r["name"], dict(r["inputs"])) for r in plan["resources"]
    ]
    assert check_stack(Stack(resources, plan["outputs"])) == []
    node = next(r for r in resources if r.type == "sixth:compute:Node")
    assert isinstance(node.props, dict)
    node.props.pop("rack")
    node.props["publicIp"] = True
    found = {(v.policy, v.resource) for v in check_stack(Stack(resources, plan["outputs"]))}
    assert found == {
        ("gpu-nodes-in-placement-group", f"sixth:compute:Node {node.name}"),
        ("gpu-nodes-no-public-ip", f"sixth:compute:Node {node.name}"),
    }


def test_its_config_is_its_own_model(project: Path) -> None:
    """Required means required, and another cloud's section is no key of a Sixth stack."""
    stacks = project / "stacks"
    (stacks / "Pulumi.sixth-bad.yaml").write_text(STACK.replace("    project: demo\n", "    {}\n"))
    (stacks / "Pulumi.sixth-other.yaml").write_text(STACK + "  gpufabric:aws:\n    keyName: k\n")
    try:
        missing = _run(project, GPUFABRIC, "plan", "-s", "sixth-bad")
        other = _run(project, GPUFABRIC, "plan", "-s", "sixth-other")
    finally:
        (stacks / "Pulumi.sixth-bad.yaml").unlink()
        (stacks / "Pulumi.sixth-other.yaml").unlink()
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "error: gpufabric:sixth.project: not set; required: the Sixth project of every resource"
    )
    assert other.returncode == 2
    assert other.stderr.strip() == (
        "error: gpufabric:aws: '(set)' is not valid; aws-only settings; this is a Sixth stack "
        "(six.gpu8): remove the section, use gpufabric:sixth"
    )


def test_the_inventory_plugin_finds_its_nodes(project: Path, plan: dict[str, Any]) -> None:
    folder = project / "inventory"
    folder.mkdir(exist_ok=True)
    (folder / "outputs.json").write_text(json.dumps(plan["outputs"]))
    nodes = [
        {"name": f"sixth-demo-{i}", "ip": f"10.6.0.{i + 10}", "path": ["spine", f"leaf{i % 2}"]}
        for i in range(3)
    ]
    nodes.append({"name": "someone-else", "ip": "10.6.9.9", "path": ["spine", "leaf9"]})
    (folder / "nodes.json").write_text(json.dumps({"sixthNodes": nodes}))
    source = folder / "sixth.gpufabric_pulumi.yml"
    source.write_text(
        f"plugin: gpufabric_pulumi\noutputs_file: {folder / 'outputs.json'}\n"
        f"discovery_file: {folder / 'nodes.json'}\n"
    )
    proc = _run(project, ANSIBLE_INVENTORY, "-i", str(source), "--list")
    assert proc.returncode == 0, proc.stderr
    inventory = json.loads(proc.stdout)
    hostvars = inventory["_meta"]["hostvars"]
    assert sorted(hostvars) == ["sixth-demo-0", "sixth-demo-1", "sixth-demo-2"]
    host = {
        k: v.get("__ansible_unsafe", v) if isinstance(v, dict) else v
        for k, v in hostvars["sixth-demo-1"].items()
    }
    assert host["ansible_host"] == "10.6.0.11"
    assert host["gpufabric_cloud"] == "sixth" and host["gpufabric_fabric"] == "infiniband"
    assert host["gpufabric_leaf"] == "leaf1"


def test_topology_render_reads_its_source(project: Path, tmp_path: Path) -> None:
    nodes = [{"name": f"n{i}", "path": ["spine", f"leaf{i // 2}"]} for i in range(4)]
    recorded = tmp_path / "nodes.json"
    recorded.write_text(json.dumps({"sixthNodes": nodes}))
    proc = _run(
        project, GPUFABRIC, "topology", "render", "--source", "sixth", "--input", str(recorded)
    )
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("SwitchName=")]
    assert lines == [
        "SwitchName=spine Switches=leaf0,leaf1",
        "SwitchName=leaf0 Nodes=n[0-1]",
        "SwitchName=leaf1 Nodes=n[2-3]",
    ]


def test_without_the_registration_it_is_one_line(project: Path, plan: dict[str, Any]) -> None:
    env = {k: v for k, v in _env(project).items() if k != "GPUFABRIC_CLOUDS"}
    proc = subprocess.run(
        [GPUFABRIC, "plan", "-s", "sixth-demo"], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_its_nccl_profile_is_chosen_on_its_stacks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cloud's package brings its own NCCL profile for a fabric; elsewhere the shared one."""
    from gpufabric.nccl import profiles

    monkeypatch.syspath_prepend(str(REPO / "tests" / "clouds"))
    monkeypatch.setenv("GPUFABRIC_CLOUDS", "sixth=sixthcloud")
    assert profiles.select("infiniband", "sixth") == "sixth-ib"
    assert profiles.book().profiles["sixth-ib"].cloud == "sixth"
    assert profiles.select("infiniband") == "infiniband"
    out = profiles.render({}, "infiniband", cloud="sixth")
    assert out["conf"] == [
        {
            "name": "NCCL_IB_HCA",
            "value": "mlx5",
            "source": "made up for the tests: every mlx5 HCA (prefix match)",
        }
    ]
