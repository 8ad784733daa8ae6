"""`gpufabric capacity check` without --landed: the stack's outputs, node discovery through the
cloud's SDK and the cloud's topology source say where the nodes landed (fake SDK clients with
the clouds' answer shapes; no cloud is contacted)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from tests.pulumi.plans import REPO, plan_for
from tests.unit import cli_json

from gpufabric.capacity.landed import landed
from gpufabric.errors import UserError
from gpufabric.stack_outputs import parse

ASG = "aws-h100-nodes"
LEAVES = {"i-00000000000000001": "nn-leaf-b", "i-00000000000000002": "nn-leaf-b"}
LEAVES["i-00000000000000003"] = "nn-leaf-a"


class FakeEc2:
    """DescribeInstances (the group's tag) and DescribeInstanceTopology, each in two pages;
    every call recorded."""

    meta = SimpleNamespace(region_name="us-east-1")

    def __init__(self, leaves: dict[str, str]) -> None:
        self.leaves, self.calls = leaves, []

    def describe_instances(self, **call: Any) -> dict[str, Any]:
        self.calls.append(("DescribeInstances", call))
        found = [
            {"InstanceId": iid, "State": {"Name": "running"}, "InstanceType": "p5.48xlarge",
             "PrivateIpAddress": f"10.0.0.{n + 10}", "PrivateDnsName": f"ip-10-0-0-{n + 10}.ec2.internal",
             "Tags": [{"Key": "aws:autoscaling:groupName", "Value": ASG}]}
            for n, iid in enumerate(sorted(self.leaves))
        ]  # fmt: skip
        if call.get("NextToken") is None:
            return {"Reservations": [{"Instances": found[:1]}], "NextToken": "p2"}
        return {"Reservations": [{"Instances": found[1:]}]}

    def describe_instance_topology(self, **call: Any) -> dict[str, Any]:
        self.calls.append(("DescribeInstanceTopology", call))
        ids = call["InstanceIds"]
        answer = [
            {"InstanceId": i, "InstanceType": "p5.48xlarge", "AvailabilityZone": "us-east-1a",
             "NetworkNodes": ["nn-top", "nn-mid", self.leaves[i]]}
            for i in ids if i in self.leaves
        ]  # fmt: skip
        if call.get("NextToken") is None:
            return {"Instances": answer[:1], "NextToken": "t2"}
        return {"Instances": answer[1:]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "stacks").mkdir(parents=True)
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    stack = (REPO / "stacks" / "Pulumi.aws-h100.yaml").read_text()
    with_reservation = stack.replace(
        "    type: on-demand\n",
        "    type: reservation\n    reservationId: cr-0b0000000000000bb\n",
        1,
    )
    assert with_reservation != stack
    (root / "stacks" / "Pulumi.aws-h100.yaml").write_text(with_reservation)
    monkeypatch.setenv("GPUFABRIC_PROJECT", str(root))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.chdir(root)
    return root


def _capacity_files(folder: Path) -> list[str]:
    def res(rid: str) -> dict[str, Any]:
        return {"CapacityReservationId": rid, "InstanceType": "p5.48xlarge",
                "AvailabilityZone": "us-east-1a", "AvailableInstanceCount": 16,
                "TotalInstanceCount": 32, "State": "active", "ReservationType": "default"}  # fmt: skip

    docs = {
        "reservations.json": {
            "CapacityReservations": [res("cr-0a0000000000000aa"), res("cr-0b0000000000000bb")]
        },
        "topology.json": {
            "CapacityReservations": [
                {"CapacityReservationId": r, "NetworkNodes": ["nn-top", "nn-mid", leaf]}
                for r, leaf in (("cr-0a0000000000000aa", "nn-leaf-a"), ("cr-0b0000000000000bb", "nn-leaf-b"))
            ]
        },
    }  # fmt: skip
    args = []
    for name, doc in docs.items():
        (folder / name).write_text(json.dumps(doc))
        args += ["--from", str(folder / name)]
    return args


def _gpufabric(monkeypatch: pytest.MonkeyPatch, capsys: Any, *args: str) -> tuple[int, str, str]:
    from gpufabric.cli.main import main

    monkeypatch.setattr(sys, "argv", ["gpufabric", *args])
    with pytest.raises(SystemExit) as done:
        main()
    out = capsys.readouterr()
    return int(done.value.code or 0), out.out, out.err


def test_check_finds_and_places_the_nodes_live(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    boto3 = pytest.importorskip("boto3")
    fake = FakeEc2(LEAVES)
    monkeypatch.setattr(boto3, "client", lambda *a, **kw: fake)
    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps(plan_for("aws-h100").outputs))
    args = ["capacity", "check", "-s", "aws-h100", "--outputs", str(outputs)]
    code, out, err = _gpufabric(monkeypatch, capsys, *args, *_capacity_files(tmp_path))
    assert code == 1, err
    assert out.splitlines() == [
        "2 node(s) inside the 1 planned unit(s) (1 leaf/leaves); 1 outside",
        "  outside: ip-10-0-0-12 on nn-leaf-a",
    ]
    # the nodes by the group's tag, then their topology by their ids: every page of both
    tag = {"Filters": [{"Name": "tag:aws:autoscaling:groupName", "Values": [ASG]}]}
    ids = sorted(LEAVES)
    assert fake.calls == [
        ("DescribeInstances", tag),
        ("DescribeInstances", {**tag, "NextToken": "p2"}),
        ("DescribeInstanceTopology", {"InstanceIds": ids}),
        ("DescribeInstanceTopology", {"InstanceIds": ids, "NextToken": "t2"}),
    ]
    # all on the planned leaf: exit 0
    fake.leaves = dict.fromkeys(LEAVES, "nn-leaf-b")
    code, out, err = _gpufabric(monkeypatch, capsys, *args, "--json", *_capacity_files(tmp_path))
    assert code == 0, err
    assert json.loads(out)["outside"] == [] and len(json.loads(out)["inside"]) == 3


def test_a_node_the_topology_does_not_place_is_outside(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    boto3 = pytest.importorskip("boto3")
    fake = FakeEc2(LEAVES)
    real = fake.describe_instance_topology

    def without_the_last(**call: Any) -> dict[str, Any]:
        page = real(**call)
        page["Instances"] = [i for i in page["Instances"] if i["InstanceId"] != max(LEAVES)]
        return page

    monkeypatch.setattr(fake, "describe_instance_topology", without_the_last)
    monkeypatch.setattr(boto3, "client", lambda *a, **kw: fake)
    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps(plan_for("aws-h100").outputs))
    args = ["capacity", "check", "-s", "aws-h100", "--outputs", str(outputs)]
    code, out, err = _gpufabric(monkeypatch, capsys, *args, *_capacity_files(tmp_path))
    assert code == 1, err
    assert "  outside: ip-10-0-0-12 on no position reported" in out.splitlines()


def test_outputs_of_another_stack_or_with_landed_are_one_line(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps(plan_for("gcp-a3-ultra").outputs))
    args = ["capacity", "check", "-s", "aws-h100", "--outputs", str(outputs)]
    code, _out, err = _gpufabric(monkeypatch, capsys, *args)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("error: stack outputs: of stack ")
    code, _out, err = _gpufabric(monkeypatch, capsys, *args, "--landed", str(outputs))
    assert code == 2 and err == "error: --outputs is read without --landed only: give one of them\n"


def _gcp_compute(outputs: Any, topologies: list[dict[str, str] | None]) -> Any:
    from google.cloud import compute_v1

    from gpufabric.clouds.gcp.discovery import Compute

    zone = outputs.cluster.zone

    class Groups:
        def list_managed_instances(self, **kw: str) -> list[Any]:
            return [
                compute_v1.ManagedInstance(instance=f"https://x/zones/{zone}/instances/n-{i}")
                for i in range(len(topologies))
            ]

    class Instances:
        def list(self, **kw: str) -> list[Any]:
            docs = [
                cli_json.gcp_instance(f"n-{i}", f"10.0.0.{i + 2}", zone=zone, project="p", topology=t)
                for i, t in enumerate(topologies)
            ]  # fmt: skip
            return [compute_v1.Instance.from_json(json.dumps(d)) for d in docs]

    return Compute(str(outputs.cluster.project), zone, Instances(), Groups())


def test_gcp_nodes_are_placed_by_their_whole_physical_path() -> None:
    """GCP's topology source reads no live API: discovery's physicalHostTopology places the
    nodes, with every level, so a planned block (not only a sub-block) holds its nodes."""
    pytest.importorskip("google.cloud.compute_v1")
    from gpufabric.capacity.check import landed_outside
    from gpufabric.capacity.model import Capacity, Unit

    outputs = parse(plan_for("gcp-a3-ultra").outputs)
    topo = [
        {"cluster": "c1", "block": "b1", "subblock": "s1"},
        {"cluster": "c1", "block": "b1", "subblock": "s2"},
        {"cluster": "c1", "block": "b2", "subblock": "s1"},
        None,
    ]
    where = landed(outputs, None, _gcp_compute(outputs, topo))
    assert {h.name: h.path for h in where.hosts}["n-1"] == ("c1", "c1/b1", "c1/b1/s2")
    assert where.unplaced == ("n-3",)
    block = Capacity((Unit("projects/p/reservations/r/reservationBlocks/b1", "c1/b1", 4),), "gcp")
    result = landed_outside(block, ["projects/p/reservations/r/reservationBlocks/b1"], where)
    assert result.inside == ("n-0", "n-1")
    assert result.outside == (("n-2", "c1/b2/s1"), ("n-3", "no position reported"))


def test_no_node_with_a_position_is_one_line() -> None:
    pytest.importorskip("google.cloud.compute_v1")
    outputs = parse(plan_for("gcp-a3-ultra").outputs)
    with pytest.raises(UserError, match=r"2 node\(s\) found, none with a network position"):
        landed(outputs, None, _gcp_compute(outputs, [None, None]))
