"""`gpufabric capacity` from the outside: the choice, its config, and that the config plans.

Saved cloud output here is constructed (tests/unit/capacity_shapes.py documents the shapes).
Each test works on a copy of the project's stacks ($GPUFABRIC_PROJECT), so --write is safe.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.unit import capacity_shapes as shapes

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "stacks").mkdir(parents=True)
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    (root / "infra").symlink_to(REPO / "infra")  # the Pulumi program `gpufabric plan` runs
    for stack in ("aws-h100", "gcp-a3-ultra", "oci-h100"):
        shutil.copy(REPO / "stacks" / f"Pulumi.{stack}.yaml", root / "stacks")
    return root


def run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`gpufabric ARGS` in the copied project: `capacity` commands in this process (fast, and
    within reach of mutation testing), `plan` (the Pulumi program) as its own process."""
    if args[0] == "capacity":
        return _in_process(project, *args)
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args],
        cwd=project,
        env={**os.environ, "COLUMNS": "200", "GPUFABRIC_PROJECT": str(project)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _in_process(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    from gpufabric.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", "200")
        patch.setenv("GPUFABRIC_PROJECT", str(project))
        patch.chdir(project)
        patch.setattr(sys, "argv", ["gpufabric", *args])
        with redirect_stdout(out), redirect_stderr(err), pytest.raises(SystemExit) as done:
            main()
    code = done.value.code
    assert code is None or isinstance(code, int), code
    return subprocess.CompletedProcess(list(args), code or 0, out.getvalue(), err.getvalue())


def save(folder: Path, docs: list[tuple[str, Any]]) -> list[str]:
    args = []
    for name, doc in docs:
        path = folder / name
        path.write_text(json.dumps(doc))
        args += ["--from", str(path)]
    return args


def printed_overrides(stdout: str) -> list[str]:
    lines = stdout.split("stack config:\n", 1)[1].splitlines()
    return [part for line in lines for part in shlex.split(line.strip())]


def resources(plan_stdout: str, kind: str) -> list[dict[str, Any]]:
    return [r for r in json.loads(plan_stdout)["resources"] if r["type"] == kind]


def _aws_docs() -> list[tuple[str, Any]]:
    def res(rid: str, free: int, state: str = "active") -> dict[str, Any]:
        return {
            "CapacityReservationId": rid,
            "InstanceType": "p5.48xlarge",
            "AvailabilityZone": "us-east-1a",
            "AvailableInstanceCount": free,
            "TotalInstanceCount": 32,
            "State": state,
            "ReservationType": "default",
        }

    def topo(rid: str, leaf: str) -> dict[str, Any]:
        return {"CapacityReservationId": rid, "NetworkNodes": ["nn-top", "nn-mid", leaf]}

    return [
        (
            "reservations.json",
            {
                "CapacityReservations": [
                    res("cr-0a0000000000000aa", 20),
                    res("cr-0b0000000000000bb", 16),
                    res("cr-0c0000000000000cc", 16, "pending"),
                ]
            },
        ),
        (
            "topology.json",
            {
                "CapacityReservations": [
                    topo("cr-0a0000000000000aa", "nn-leaf-a"),
                    topo("cr-0b0000000000000bb", "nn-leaf-b"),
                    topo("cr-0c0000000000000cc", "nn-leaf-c"),
                ]
            },
        ),
    ]


def test_aws_choice_prints_config_that_plans_on_the_chosen_reservation(
    project: Path, tmp_path: Path
):
    result = run(project, "capacity", "plan", "-s", "aws-h100", *save(tmp_path, _aws_docs()))
    assert result.returncode == 0, result.stderr
    assert (
        "16 nodes on 1 reservation(s) across 1 leaf(s); bound 1 (1.00 x the bound)" in result.stdout
    )
    assert "cr-0b0000000000000bb: 16 of 16 free" in result.stdout  # the tightest fit
    assert "left out cr-0c0000000000000cc: state pending" in result.stdout
    overrides = printed_overrides(result.stdout)
    assert overrides == [
        "-c",
        "gpufabric:capacity.type=reservation",
        "-c",
        "gpufabric:capacity.reservationId=cr-0b0000000000000bb",
    ]
    planned = run(project, "plan", "-s", "aws-h100", "--json", *overrides)
    assert planned.returncode == 0, planned.stderr
    (template,) = resources(planned.stdout, "aws:ec2/launchTemplate:LaunchTemplate")
    target = template["inputs"]["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target == {"capacityReservationId": "cr-0b0000000000000bb"}


def test_write_puts_the_choice_into_the_stack_file(project: Path, tmp_path: Path):
    result = run(
        project, "capacity", "plan", "-s", "aws-h100", "--write", *save(tmp_path, _aws_docs())
    )
    assert result.returncode == 0, result.stderr
    config = yaml.safe_load((project / "stacks" / "Pulumi.aws-h100.yaml").read_text())["config"]
    assert config["gpufabric:capacity"] == {
        "type": "reservation",
        "reservationId": "cr-0b0000000000000bb",
    }
    assert config["gpufabric:nodes"] == 16  # the rest kept
    planned = run(project, "plan", "-s", "aws-h100", "--json")
    assert planned.returncode == 0, planned.stderr


def test_json_output(project: Path, tmp_path: Path):
    result = run(
        project, "capacity", "plan", "-s", "aws-h100", "--json", *save(tmp_path, _aws_docs())
    )
    doc = json.loads(result.stdout)
    assert doc["leaves"] == doc["bound"] == 1 and doc["slack"] == 0
    assert doc["units"] == [
        {"id": "cr-0b0000000000000bb", "leaf": "nn-leaf-b", "free": 16, "nodes": 16}
    ]
    assert doc["leftOut"] == [{"id": "cr-0c0000000000000cc", "reason": "state pending"}]
    assert doc["config"]["gpufabric:capacity.reservationId"] == "cr-0b0000000000000bb"


@pytest.mark.parametrize(
    ("nodes", "extra", "message"),
    [
        ("64", [], "64 nodes do not fit: 36 free hosts on 2 healthy reservations; 1 unhealthy"),
        ("30", ["--max-leaves", "1"], "30 nodes need at least 2 leaves here, past the limit of 1"),
    ],
)
def test_cannot_hold_is_one_line_exit_2(
    project: Path, tmp_path: Path, nodes: str, extra: list[str], message: str
):
    stack = project / "stacks" / "Pulumi.aws-h100.yaml"
    stack.write_text(stack.read_text().replace("gpufabric:nodes: 16", f"gpufabric:nodes: {nodes}"))
    result = run(
        project, "capacity", "plan", "-s", "aws-h100", *extra, *save(tmp_path, _aws_docs())
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_file_is_one_line(project: Path, tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"CapacityReservations": [], "CapacityReservations": []}')
    result = run(project, "capacity", "plan", "-s", "aws-h100", "--from", str(bad))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert str(bad) in result.stderr


def test_gcp_choice_plans_on_the_chosen_block(project: Path, tmp_path: Path):
    from google.cloud import compute_v1

    def block(name: str, count: int, used: int, health: str = "HEALTHY") -> dict[str, Any]:
        link = (
            "https://www.googleapis.com/compute/v1/projects/my-gpu-project/zones/europe-west1-b"
            f"/reservations/a3u-reservation/reservationBlocks/{name}"
        )
        b = compute_v1.ReservationBlock(
            name=name,
            count=count,
            in_use_count=used,
            status="READY",
            self_link=link,
            health_info=compute_v1.ReservationBlockHealthInfo(health_status=health),
        )
        return json.loads(compute_v1.ReservationBlock.to_json(b))

    docs = [
        ("blocks.json", [block("b1", 18, 4), block("b2", 18, 9), block("b3", 18, 10, "DEGRADED")])
    ]
    result = run(project, "capacity", "plan", "-s", "gcp-a3-ultra", *save(tmp_path, docs))
    assert result.returncode == 0, result.stderr
    path = "projects/my-gpu-project/reservations/a3u-reservation/reservationBlocks/b2"
    assert f"{path}: 8 of 9 free" in result.stdout
    overrides = printed_overrides(result.stdout)
    assert f"gpufabric:capacity.reservationId={path}" in overrides
    planned = run(project, "plan", "-s", "gcp-a3-ultra", "--json", *overrides)
    assert planned.returncode == 0, planned.stderr
    (template,) = resources(planned.stdout, "gcp:compute/instanceTemplate:InstanceTemplate")
    affinity = template["inputs"]["reservationAffinity"]["specificReservation"]
    assert affinity["values"] == [path]


OCI_ISLAND = "ocid1.computehpcisland.oc1.iad.aaaaisland1"


def test_oci_choice_plans_on_the_chosen_island_and_network_blocks(project: Path, tmp_path: Path):
    from oci.core.models import ComputeBareMetalHostSummary

    def hosts(block: str, free: int, island: str = OCI_ISLAND, degraded: int = 0) -> list[Any]:
        details = ["AVAILABLE"] * free + ["DEGRADED"] * degraded
        return [
            ComputeBareMetalHostSummary(
                id=f"ocid1.computebaremetalhost.oc1.iad.{block[-4:]}{i}",
                compute_hpc_island_id=island,
                compute_network_block_id=block,
                compute_local_block_id=f"ocid1.computelocalblock.oc1.iad.l{i // 8}",
                instance_shape="BM.GPU.H100.8",
                lifecycle_state="ACTIVE",
                lifecycle_details=d,
            )
            for i, d in enumerate(details)
        ]

    nb = "ocid1.computenetworkblock.oc1.iad.aaaablock"
    models = (
        hosts(nb + "1", 10)
        + hosts(nb + "2", 6)
        + hosts(nb + "3", 16, degraded=1)
        + hosts(nb + "4", 15, island="ocid1.computehpcisland.oc1.iad.aaaaisland2")
    )
    docs = [("hosts.json", shapes.oci_cli(models))]
    result = run(project, "capacity", "plan", "-s", "oci-h100", *save(tmp_path, docs))
    assert result.returncode == 0, result.stderr
    assert "left out " + nb + "3: 1 DEGRADED host(s)" in result.stdout
    overrides = printed_overrides(result.stdout)
    assert f"gpufabric:oci.hpcIslandId={OCI_ISLAND}" in overrides
    planned = run(project, "plan", "-s", "oci-h100", "--json", *overrides)
    assert planned.returncode == 0, planned.stderr
    (network,) = resources(planned.stdout, "oci:Core/clusterNetwork:ClusterNetwork")
    config = network["inputs"]["clusterConfiguration"]
    assert config["hpcIslandId"] == OCI_ISLAND
    assert sorted(config["networkBlockIds"]) == [nb + "1", nb + "2"]


def test_check_names_the_nodes_outside_the_plan(project: Path, tmp_path: Path):
    stack = project / "stacks" / "Pulumi.aws-h100.yaml"
    stack.write_text(
        stack.read_text().replace(
            "    type: on-demand\n",
            "    type: reservation\n    reservationId: cr-0b0000000000000bb\n",
            1,
        )
    )
    landed = tmp_path / "landed.json"
    instances = [
        {
            "InstanceId": f"i-{n:017x}",
            "InstanceType": "p5.48xlarge",
            "NetworkNodes": ["nn-top", "nn-mid", leaf],
            "AvailabilityZone": "us-east-1a",
        }
        for n, leaf in enumerate(["nn-leaf-b", "nn-leaf-b", "nn-leaf-a"])
    ]
    landed.write_text(json.dumps({"Instances": instances}))
    args = ["capacity", "check", "-s", "aws-h100", "--landed", str(landed)]
    result = run(project, *args, *save(tmp_path, _aws_docs()))
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        "2 node(s) inside the 1 planned unit(s) (1 leaf/leaves); 1 outside",
        f"  outside: i-{2:017x} on nn-leaf-a",
    ]
    inside = [{**i, "NetworkNodes": ["nn-top", "nn-mid", "nn-leaf-b"]} for i in instances]
    landed.write_text(json.dumps({"Instances": inside}))
    result = run(project, *args, "--json", *save(tmp_path, _aws_docs()))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["outside"] == []


def test_aws_several_reservations_plan_each_node_on_its_own(project: Path, tmp_path: Path):
    stack = project / "stacks" / "Pulumi.aws-h100.yaml"
    stack.write_text(stack.read_text().replace("gpufabric:nodes: 16", "gpufabric:nodes: 30"))
    result = run(project, "capacity", "plan", "-s", "aws-h100", *save(tmp_path, _aws_docs()))
    assert result.returncode == 0, result.stderr
    overrides = printed_overrides(result.stdout)
    assert "gpufabric:nodeGroup=instances" in overrides
    shares = json.loads(
        next(o for o in overrides if o.startswith("gpufabric:capacity.reservations=")).split(
            "=", 1
        )[1]
    )
    assert shares == [
        {"id": "cr-0a0000000000000aa", "nodes": 20},
        {"id": "cr-0b0000000000000bb", "nodes": 10},
    ]
    planned = run(project, "plan", "-s", "aws-h100", "--json", *overrides)
    assert planned.returncode == 0, planned.stderr
    instances = resources(planned.stdout, "aws:ec2/instance:Instance")
    targets = [
        i["inputs"]["capacityReservationSpecification"]["capacityReservationTarget"][
            "capacityReservationId"
        ]
        for i in sorted(instances, key=lambda i: i["name"])
    ]
    assert targets == ["cr-0a0000000000000aa"] * 20 + ["cr-0b0000000000000bb"] * 10
    human = run(project, "plan", "-s", "aws-h100", "--policy", *overrides)
    assert human.returncode == 0, human.stdout + human.stderr  # placement: each on its reservation
    assert "cr-0a0000000000000aa x 20, cr-0b0000000000000bb x 10" in human.stdout


def test_gcp_sub_blocks_plan_each_node_on_its_sub_block(project: Path, tmp_path: Path):
    from google.cloud import compute_v1

    def sub(block: str, name: str, free: int) -> dict[str, Any]:
        s = shapes.gcp_sub_block(
            "a3u-reservation",
            block,
            name,
            count=18,
            in_use_count=18 - free,
            in_use_host_count=18 - free,
            status="READY",
        )
        doc = json.loads(compute_v1.ReservationSubBlock.to_json(s))
        doc["selfLink"] = doc["selfLink"].replace(
            f"projects/{shapes.GCP_PROJECT}/zones/{shapes.GCP_ZONE}",
            "projects/my-gpu-project/zones/europe-west1-b",
        )
        return doc

    docs = [("subs.json", [sub("b1", "s1", 5), sub("b1", "s2", 3), sub("b2", "s1", 2)])]
    result = run(project, "capacity", "plan", "-s", "gcp-a3-ultra", *save(tmp_path, docs))
    assert result.returncode == 0, result.stderr
    overrides = printed_overrides(result.stdout)
    base = "projects/my-gpu-project/reservations/a3u-reservation/reservationBlocks"
    shares = json.loads(
        next(o for o in overrides if o.startswith("gpufabric:capacity.reservations=")).split(
            "=", 1
        )[1]
    )
    assert shares == [
        {"id": f"{base}/b1/reservationSubBlocks/s1", "nodes": 5},
        {"id": f"{base}/b1/reservationSubBlocks/s2", "nodes": 3},
    ]
    assert "gpufabric:nodeGroup=instances" in overrides
    planned = run(project, "plan", "-s", "gcp-a3-ultra", "--json", *overrides)
    assert planned.returncode == 0, planned.stderr
    instances = sorted(
        resources(planned.stdout, "gcp:compute/instance:Instance"), key=lambda i: i["name"]
    )
    values = [
        i["inputs"]["reservationAffinity"]["specificReservation"]["values"] for i in instances
    ]
    assert (
        values
        == [[f"{base}/b1/reservationSubBlocks/s1"]] * 5
        + [[f"{base}/b1/reservationSubBlocks/s2"]] * 3
    )


def test_check_reads_the_landed_file_before_asking_the_cloud(project: Path, tmp_path: Path):
    """No --from: a missing --landed file is named before any live call (no credentials here)."""
    result = run(project, "capacity", "check", "-s", "aws-h100", "--landed", str(tmp_path / "x"))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'x'}: cannot read")
