"""Nebius node discovery from the saved CLI output Nebius prints."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.stack_outputs import parse


def _write(tmp: Path, name: str, doc: object) -> Path:
    path = tmp / name
    path.write_text(json.dumps(doc))
    return path


def test_nebius_members_of_the_gpu_cluster(tmp_path: Path) -> None:
    outputs = parse(plan_for("nebius-h100").outputs)
    group = outputs.nodes.groups[0]
    insts = [
        cli_json.nebius_instance(
            name,
            f"10.0.0.{10 + i}",
            project="project-e00replacewithyourproject",
            gpu_cluster=group.id,
            path=["r", "s", f"leaf{i // 8}"],
        )
        for i, name in enumerate(group.members)
    ]
    insts.append(cli_json.nebius_instance("bastion", "10.0.0.5", project="p", gpu_cluster=None))
    insts.append(
        cli_json.nebius_instance(
            group.members[0] + "-x", "10.0.0.6", project="p", gpu_cluster=group.id, state="STOPPED"
        )
    )
    found = discovery.from_files(outputs, [_write(tmp_path, "instances.json", {"items": insts})])
    assert [n.name for n in found.nodes] == sorted(group.members)
    assert found.nodes[0].leaf == "leaf0" and found.nodes[-1].leaf == "leaf1"
    assert any("STOPPED" in w for w in found.warnings)
