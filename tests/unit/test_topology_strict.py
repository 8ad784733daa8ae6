"""Topology input is checked once (the Topology model): names Slurm and Kubernetes accept, no
cycles, no instance in two places; nodes without topology stay in Slurm's files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from tests.conftest import realclient

from gpufabric.cli.conventions import error_line
from gpufabric.clouds.aws import topology as aws
from gpufabric.clouds.gcp import topology as gcp
from gpufabric.errors import UserError
from gpufabric.topology.emit import hostfile, kubernetes, slurm
from gpufabric.topology.hostlist import expand
from gpufabric.topology.model import Host, Topology
from gpufabric.topology.sources import file

GPUFABRIC = Path(sys.executable).parent / "gpufabric"


def _file(hosts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"hosts": hosts, **extra}


@pytest.mark.parametrize(
    "name",
    ["h1\nSwitchName=evil", "h1,h2", "h[1-]", "h 1", "-h1", "h1-", "x" * 65, "h=1", "h#1"],
)
def test_host_names_slurm_would_misread_are_refused(name: str) -> None:
    with pytest.raises(UserError, match="is not a valid node name"):
        file.parse(_file([{"name": name, "path": ["s", "l"]}]))


def test_plain_host_names_pass() -> None:
    t = file.parse(
        _file(
            [
                {"name": "gpu-node_01.rack2", "path": ["s", "l"]},
                {"name": "A" * 64, "path": ["s", "l"]},
            ]
        )
    )
    assert len(t.hosts) == 2


def test_a_switch_cycle_is_refused_naming_the_loop() -> None:
    data = _file([{"name": "a", "path": ["s1", "s2"]}, {"name": "b", "path": ["s2", "s1"]}])
    with pytest.raises(UserError, match=r"cycle \(s\d -> s\d -> s\d\)"):
        file.parse(data)


def test_render_of_a_cycle_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "topo.json"
    src.write_text(
        json.dumps(
            _file([{"name": "a", "path": ["s1", "s2"]}, {"name": "b", "path": ["s2", "s1"]}])
        )
    )
    out = tmp_path / "topology.conf"
    proc = subprocess.run(
        [
            str(GPUFABRIC),
            "topology",
            "render",
            "--source",
            "file",
            "--input",
            str(src),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "cycle" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


def test_an_instance_under_two_leaves_is_refused_naming_it() -> None:
    page = {
        "Instances": [
            {"InstanceId": "i-1", "NetworkNodes": ["a", "b", "c"]},
            {"InstanceId": "i-1", "NetworkNodes": ["a", "b", "d"]},
        ]
    }
    with pytest.raises(UserError, match="i-1 is listed twice with different NetworkNodes"):
        aws.parse(page)


def test_the_same_instance_on_overlapping_pages_is_kept_once() -> None:
    item = {"InstanceId": "i-1", "NetworkNodes": ["a", "b", "c"]}
    t = aws.parse([{"Instances": [item]}, {"Instances": [item]}])
    assert [h.name for h in t.hosts] == ["i-1"]


def test_a_host_named_twice_is_refused() -> None:
    with pytest.raises(UserError, match="'h1' appears twice"):
        Topology((Host("h1", ("s", "l1")),), unplaced=("h1",))


def test_gcp_string_where_the_topology_object_belongs_is_one_line() -> None:
    data = [{"name": "n1", "resourceStatus": {"physicalHostTopology": "cluster/block/sub"}}]
    with pytest.raises(UserError, match="physicalHostTopology is a str"):
        gcp.parse(data)
    with pytest.raises(UserError, match="resourceStatus is not an object"):
        gcp.parse([{"name": "n1", "resourceStatus": "x"}])
    with pytest.raises(UserError, match="physical_host is an int"):
        gcp.parse([{"name": "n1", "resourceStatus": {"physicalHost": 5}}])


def test_unplaced_nodes_go_under_no_topology_in_tree_and_yaml() -> None:
    t = Topology((Host("n1", ("s", "l1")), Host("n2", ("s", "l1"))), unplaced=("n9", "n3"))
    conf = slurm.tree_conf(t)
    assert "SwitchName=no-topology Nodes=n[3,9]" in conf.splitlines()
    doc = next(iter(yaml.safe_load_all(slurm.topology_yaml(t))))
    switches = doc[0]["tree"]["switches"]
    assert {"switch": "no-topology", "nodes": "n[3,9]"} in switches


def test_a_real_switch_named_no_topology_is_a_conflict() -> None:
    t = Topology((Host("n1", ("no-topology", "l1")),), unplaced=("n9",))
    with pytest.raises(UserError, match="'no-topology'"):
        slurm.tree_conf(t)


def test_render_names_unplaced_nodes_on_stderr(tmp_path: Path) -> None:
    src = tmp_path / "topo.json"
    src.write_text(json.dumps(_file([{"name": "a", "path": ["s", "l"]}], unplaced=["z1"])))
    proc = subprocess.run(
        [str(GPUFABRIC), "topology", "render", "--source", "file", "--input", str(src)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "SwitchName=no-topology Nodes=z1" in proc.stdout
    assert "1 nodes have no topology information" in proc.stderr and "z1" in proc.stderr


def _switch_lines(text: str) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """SwitchName -> (switches, nodes), hostlist expressions expanded as Slurm reads them."""
    out: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        fields = dict(part.split("=", 1) for part in line.split())
        out[fields["SwitchName"]] = (
            frozenset(expand(fields.get("Switches", ""))),
            frozenset(expand(fields.get("Nodes", ""))),
        )
    return out


def test_topograph_case_6_tree_with_nodes_without_topology() -> None:
    """NVIDIA/topograph provider_sim_test Case 6, as recorded (tests/conftest.py, realclient)."""
    path = realclient("topograph_expected.json")
    case = next(c for c in json.loads(path.read_text())["aws_sim"] if "Case 6" in c["name"])
    model = yaml.safe_load(case["model"])
    parent = {kid: sw for sw, spec in model["switches"].items() for kid in spec.get("switches", [])}
    placed = {f"node{n[1:]}": b["switch"] for b in model["blocks"] for n in b["nodes"]}
    instances: list[dict[str, Any]] = []
    for number in case["instances"]:
        name = f"node{number}"
        chain: list[str] = []
        node = placed.get(name)
        while node is not None:
            chain.insert(0, node)
            node = parent.get(node)
        instances.append({"InstanceId": name, "NetworkNodes": chain})
    t = aws.parse({"Instances": instances})
    assert _switch_lines(slurm.tree_conf(t)) == _switch_lines(case["expected"])


@pytest.mark.parametrize("name", ["GPU01", "gpu_01"])
def test_k8s_labels_refuse_node_names_kubernetes_does_not_accept(name: str) -> None:
    t = Topology((Host(name, ("s", "l1")),))
    with pytest.raises(UserError, match="Kubernetes node name"):
        kubernetes.k8s_labels(t)


def test_label_values_that_collide_are_a_conflict() -> None:
    t = Topology((Host("a", ("s", "rack a")), Host("b", ("s", "rack-a"))))
    with pytest.raises(UserError, match="'rack a' and 'rack-a'"):
        kubernetes.k8s_labels(t)


def _crd_version(name: str) -> dict[str, Any]:
    path = realclient("kueue.x-k8s.io_topologies.yaml")
    crd = yaml.safe_load(path.read_text())
    return next(v for v in crd["spec"]["versions"] if v["name"] == name)


@pytest.mark.parametrize("api", ["v1beta2", "v1beta1"])
@pytest.mark.parametrize("scheme", ["gpufabric", "eks", "topograph"])
def test_kueue_topology_satisfies_the_served_crd(api: str, scheme: str) -> None:
    version = _crd_version(api)
    assert version["served"] is True
    levels_schema = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"][
        "levels"
    ]
    label_schema = levels_schema["items"]["properties"]["nodeLabel"]
    t = Topology((Host("n1", ("s", "a", "l1")), Host("n2", ("s", "a", "l2"))))
    doc = yaml.safe_load(kubernetes.kueue_topology(t, api=api, scheme=scheme))
    assert doc["apiVersion"] == f"kueue.x-k8s.io/{api}"
    levels = [lv["nodeLabel"] for lv in doc["spec"]["levels"]]
    assert levels_schema["minItems"] <= len(levels) <= levels_schema["maxItems"]
    assert levels[-1] == "kubernetes.io/hostname"
    for key in levels:
        assert re.match(label_schema["pattern"], key) and len(key) <= label_schema["maxLength"]


def test_label_schemes_name_the_real_keys() -> None:
    t3 = Topology((Host("n1", ("s", "a", "l1")),))
    t4 = Topology((Host("n1", ("c", "s", "a", "l1")),))
    assert kubernetes.label_keys(t4, "eks") == [
        f"topology.k8s.aws/network-node-layer-{i}" for i in range(1, 5)
    ]
    assert kubernetes.label_keys(t3, "topograph") == [
        "network.topology.nvidia.com/core",
        "network.topology.nvidia.com/spine",
        "network.topology.nvidia.com/leaf",
    ]
    t2 = Topology((Host("n1", ("s", "l1")),))
    assert kubernetes.label_keys(t2, "topograph")[-1] == "network.topology.nvidia.com/leaf"
    with pytest.raises(UserError, match="topograph labels 3 levels"):
        kubernetes.label_keys(t4, "topograph")
    with pytest.raises(UserError) as err:
        kubernetes.kueue_topology(t3, api="v1alpha1")
    assert error_line(err.value).startswith("error: --kueue-api 'v1alpha1': choose one of ")


def test_gpus_per_node_zero_is_named_as_itself(tmp_path: Path) -> None:
    src = tmp_path / "topo.json"
    src.write_text(json.dumps(_file([{"name": "a", "path": ["s", "l"]}])))
    proc = subprocess.run(
        [
            str(GPUFABRIC),
            "topology",
            "order",
            "--source",
            "file",
            "--input",
            str(src),
            "--gpus-per-node",
            "0",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "--gpus-per-node" in proc.stderr and "--slots" not in proc.stderr


class _FakeEc2:
    """Answers DescribeInstanceTopology / DescribeInstances from tables, in pages, and records
    every call (the shape of the calls is what is under test)."""

    meta = SimpleNamespace(region_name="us-east-1")

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def describe_instance_topology(self, **call: Any) -> dict[str, Any]:
        self.calls.append(("topology", call))
        ids = call.get("InstanceIds") or ["i-a", "i-b"]
        if call.get("NextToken") is None:
            return {
                "Instances": [{"InstanceId": ids[0], "NetworkNodes": ["x", "y", "z"]}],
                "NextToken": "more",
                "ResponseMetadata": {"RequestId": "r"},
            }
        return {"Instances": [{"InstanceId": i, "NetworkNodes": ["x", "y", "w"]} for i in ids[1:]]}

    def describe_instances(self, **call: Any) -> dict[str, Any]:
        self.calls.append(("instances", call))
        ids = call["InstanceIds"]
        if call.get("NextToken") is None:
            first = {"InstanceId": ids[0], "PrivateDnsName": f"ip-{ids[0]}.ec2.internal"}
            return {"Reservations": [{"Instances": [first]}], "NextToken": "p2"}
        rest = [{"InstanceId": i, "PrivateDnsName": ""} for i in ids[1:2]]
        rest += [{"InstanceId": i, "PrivateDnsName": f"ip-{i}.ec2.internal"} for i in ids[2:]]
        return {"Reservations": [{"Instances": rest}]}


def test_live_discovery_follows_every_page_and_names_by_private_dns() -> None:
    client = _FakeEc2()
    filters = [{"Name": "instance-type", "Values": ["p5.48xlarge"]}]
    t = aws.discover(client, None, filters, name_by="private-dns")
    assert client.calls[0] == ("topology", {"Filters": filters})
    assert client.calls[1] == ("topology", {"Filters": filters, "NextToken": "more"})
    assert client.calls[2] == ("instances", {"InstanceIds": ["i-a", "i-b"]})
    assert client.calls[3] == ("instances", {"InstanceIds": ["i-a", "i-b"], "NextToken": "p2"})
    # i-b has no private DNS name: left out of the names map, so left out of the topology
    assert [h.name for h in t.hosts] == ["ip-i-a"]
    assert t.skipped == (("i-b", "not in the names map"),)


def test_live_discovery_by_instance_id_in_chunks_of_100() -> None:
    client = _FakeEc2()
    ids = [f"i-{n:03d}" for n in range(201)]
    t = aws.discover(client, ids)
    sent = [c["InstanceIds"] for kind, c in client.calls if kind == "topology"]
    assert [len(s) for s in sent] == [100, 100, 100, 100, 1, 1]
    assert sent[0] == ids[:100] and sent[2] == ids[100:200] and sent[4] == ids[200:]
    assert len(t.hosts) == 201 and all(h.name == h.instance_id for h in t.hosts)
    assert "ResponseMetadata" not in str(t)


@pytest.mark.parametrize(
    ("name", "words"),
    [("Bad_Name", "not a DNS-1123 subdomain"), ("x" * 254, "not a DNS-1123 subdomain")],
)
def test_kueue_topology_name_is_checked(name: str, words: str) -> None:
    t = Topology((Host("n1", ("s", "l1")),))
    with pytest.raises(UserError, match=words):
        kubernetes.kueue_topology(t, name=name)
    assert "name: " + "a" * 253 in kubernetes.kueue_topology(t, name="a" * 253)


def test_kueue_topology_has_at_most_16_levels() -> None:
    path15 = tuple(f"s{i}" for i in range(15))
    ok = Topology((Host("n1", path15),))
    levels = yaml.safe_load(kubernetes.kueue_topology(ok))["spec"]["levels"]
    assert len(levels) == 16
    too_deep = Topology((Host("n1", (*path15, "s15")),))
    with pytest.raises(UserError, match="at most 16 levels; this one needs 17"):
        kubernetes.kueue_topology(too_deep)


@pytest.mark.parametrize(
    ("style", "slots", "words"), [("pbs", 8, "--hostfile-style 'pbs'"), ("plain", 0, "--slots 0")]
)
def test_hostfile_refuses_bad_style_and_slots(style: str, slots: int, words: str) -> None:
    t = Topology((Host("n1", ("s", "l1")),))
    with pytest.raises(UserError) as err:
        hostfile.hostfile(t.hosts, style, slots)
    assert error_line(err.value).startswith(f"error: {words}: ")


@pytest.mark.parametrize(
    ("sizes", "words"),
    [
        ([0], "not a positive size"),
        ([8], "larger than the smallest block"),
        ([2, 3], "3 after 2"),
        ([2, 2], "2 after 2"),
        ([2, 6], "6 after 2"),
    ],
)
def test_requested_block_sizes_follow_slurm_rules(sizes: list[int], words: str) -> None:
    with pytest.raises(UserError, match=words):
        slurm.block_sizes([4, 4, 4, 4], sizes)
    assert slurm.block_sizes([4, 4, 4, 4], [1, 2, 8]) == [1, 2, 8]
    assert slurm.block_sizes([4, 4, 4, 4]) == [4, 8, 16]
    assert slurm.block_sizes([3, 4, 4]) == [3, 6]


def test_level_names_for_every_depth() -> None:
    from gpufabric.topology.model import level_names

    assert level_names(1) == ("leaf",)
    assert level_names(2) == ("spine", "leaf")
    assert level_names(4) == ("core", "spine", "aggregation", "leaf")
    assert level_names(6) == ("layer1", "layer2", "layer3", "spine", "aggregation", "leaf")


def test_duplicate_instance_messages_show_an_empty_path_as_a_dash() -> None:
    pages = {
        "Instances": [
            {"InstanceId": "i-1", "NetworkNodes": ["a", "b", "c"]},
            {"InstanceId": "i-1", "NetworkNodes": []},
        ]
    }
    with pytest.raises(
        UserError,
        match=r"^rec\.json: instance i-1 is listed twice with different NetworkNodes \(a/b/c and -\)$",
    ):
        aws.parse(pages, origin="rec.json")
    pages["Instances"].reverse()
    with pytest.raises(UserError, match=r"\(- and a/b/c\)$"):
        aws.parse(pages, origin="rec.json")


def test_an_identical_duplicate_does_not_stop_the_reading() -> None:
    item = {"InstanceId": "i-1", "NetworkNodes": ["a", "b", "c"]}
    later = {"InstanceId": "i-2", "NetworkNodes": ["a", "b", "d"]}
    t = aws.parse({"Instances": [item, item, later]})
    assert [h.name for h in t.hosts] == ["i-1", "i-2"]


def test_a_bare_instance_list_and_bad_shapes_name_the_file() -> None:
    t = aws.parse([{"InstanceId": "i-1", "NetworkNodes": ["a", "b"]}], origin="bare.json")
    assert [h.name for h in t.hosts] == ["i-1"] and t.source == "bare.json"
    for data, words in (
        ({"Reservations": []}, "bare.json: not a DescribeInstanceTopology response"),
        ({"Instances": {}}, "bare.json: 'Instances' is not a list"),
        ({"Instances": [{"NetworkNodes": []}]}, "bare.json: an instance entry has no 'InstanceId'"),
        (
            {"Instances": [{"InstanceId": "i-1", "NetworkNodes": "a/b"}]},
            "bare.json: instance i-1: 'NetworkNodes'",
        ),
    ):
        with pytest.raises(UserError, match=f"^{re.escape(words)}"):
            aws.parse(data, origin="bare.json")


def test_live_discovery_source_is_aws() -> None:
    assert aws.discover(_FakeEc2(), ["i-a", "i-b"]).source == "aws"


def test_model_messages_name_the_source() -> None:
    with pytest.raises(
        UserError,
        match=r"^topology from rec\.json: host name 'a b' is not a valid node name: 1-64 letters, digits, '\.', '_' or '-', starting and ending with a letter or digit$",
    ):
        Topology((Host("a b", ("s", "l")),), source="rec.json")
    with pytest.raises(
        UserError, match=r"^topology from rec\.json: host 'h1' has no network path$"
    ):
        Topology((Host("h1", ()),), source="rec.json")
    with pytest.raises(
        UserError, match=r"^topology from rec\.json: host 'h1' lists network node 'a' twice$"
    ):
        Topology((Host("h1", ("a", "b", "a")),), source="rec.json")


def test_leaves_come_in_natural_order() -> None:
    t = Topology(tuple(Host(f"h{i}", ("s", f"l{i}")) for i in (10, 2, 1)))
    assert list(t.leaves()) == ["l1", "l2", "l10"]


def test_names_file_keys_by_instance_id_or_name_and_renames_unplaced_nodes() -> None:
    from gpufabric.topology.model import apply_names

    t = Topology(
        (Host("a", ("s", "l"), instance_id="i-1"), Host("b", ("s", "l"), instance_id="i-2")),
        unplaced=("c", "d"),
    )
    named = apply_names(t, {"i-1": "n1", "b": "n2", "c": "n3"})
    assert [h.name for h in named.hosts] == ["n1", "n2"]
    assert named.unplaced == ("n3",)
    assert named.skipped == (("d", "not in the names file"),)


class _DeniedEc2(_FakeEc2):
    def describe_instance_topology(self, **call: Any) -> dict[str, Any]:
        from botocore.exceptions import ClientError

        raise ClientError(
            {"Error": {"Code": "UnauthorizedOperation", "Message": "no"}},
            "DescribeInstanceTopology",
        )

    describe_instances = describe_instance_topology


def test_aws_errors_name_the_operation_and_the_client_region() -> None:
    with pytest.raises(
        UserError, match=r"^aws describe_instance_topology in us-east-1: .*UnauthorizedOperation"
    ):
        aws.discover(_DeniedEc2())
    with pytest.raises(
        UserError, match=r"^aws describe_instances in us-east-1: .*UnauthorizedOperation"
    ):
        aws.private_dns_names(_DeniedEc2(), ["i-1"])


def test_a_client_without_a_region_and_a_ready_pager_are_both_taken() -> None:
    from gpufabric.clouds.aws.discovery import Ec2

    with pytest.raises(UserError, match=r"^aws describe_instances: "):
        aws.private_dns_names(_NoRegionDenied(), ["i-1"])
    pager = Ec2("eu-west-1", _FakeEc2())
    assert aws.discover(pager, ["i-a", "i-b"]).source == "aws"
    assert aws.private_dns_names(pager, []) == {}
    assert aws.private_dns_names(pager, ["i-a", "i-b", "i-c"]) == {"i-a": "ip-i-a", "i-c": "ip-i-c"}


class _NoRegionDenied(_DeniedEc2):
    meta = SimpleNamespace()
