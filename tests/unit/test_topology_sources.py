"""Topology sources on real captured output (the real captures, tests/conftest.py) and constructed inputs."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber
from tests.conftest import FIXTURES, needs_captures

from gpufabric.cli.conventions import error_line
from gpufabric.clouds.aws import discovery as discovery_aws
from gpufabric.clouds.aws import topology as aws
from gpufabric.clouds.gcp import topology as gcp
from gpufabric.errors import UserError
from gpufabric.topology.load import load
from gpufabric.topology.model import Host, Topology, apply_names
from gpufabric.topology.sources import file, ib

REPO = Path(__file__).resolve().parents[2]
AWS_EXAMPLE = FIXTURES / "aws-topology" / "describe_instance_topology_awscli_example_3level.json"
IB_SUPERPOD = FIXTURES / "infiniband" / "ibnetdiscover_dgx_h100_superpod_ndr_fattree.txt"
IB_ISOLATED = FIXTURES / "infiniband" / "ibnetdiscover_gb200_single_ca_isolated.txt"
MIXED = REPO / "tests" / "fixtures_topology" / "aws_mixed_p5_p6b200_pages.json"  # constructed
ULTRA = REPO / "tests" / "fixtures_topology" / "aws_ultraserver_p6e_gb200.json"  # constructed


# ---------------------------------------------------------------- AWS
@needs_captures
def test_aws_cli_example_network_nodes_are_top_down() -> None:
    """docs/sources.md U.14: the real example only fits a tree if the LAST id is the leaf."""
    raw = json.loads(AWS_EXAMPLE.read_text())
    t = aws.parse(raw)
    by = t.by_name()
    assert by["i-1111111111example"].leaf == by["i-2222222222example"].leaf
    # i-444 shares only the FIRST id with i-111: so the first id is the widest layer.
    assert by["i-444444444example"].path[0] == by["i-1111111111example"].path[0]
    assert by["i-444444444example"].leaf != by["i-1111111111example"].leaf
    # read bottom-up instead, i-444's leaf would have two different parents: not a tree
    flipped = [Host(h.name, tuple(reversed(h.path))) for h in t.hosts]
    with pytest.raises(UserError, match="two parents"):
        Topology(tuple(flipped))
    assert ("NextToken", "the last page has a NextToken: later pages are missing") in t.skipped
    assert by["i-3333333333example"].instance_type == "trn1.32xlarge"


def test_aws_mixed_3_and_4_levels_from_pages() -> None:
    t = aws.parse(json.loads(MIXED.read_text()))
    depths = {h.instance_type: len(h.path) for h in t.hosts}
    assert depths == {"p5.48xlarge": 3, "p6-b200.48xlarge": 4}
    sizes = sorted(len(v) for v in t.leaves().values())
    assert sizes == [1, 2, 2, 3, 3]
    assert t.unplaced == ("i-09f8e7d6c5b4a3f12",)  # stopped: no NetworkNodes, kept unplaced
    assert t.skipped == ()
    assert len({h.path[0] for h in t.hosts}) == 1


def test_aws_capacity_block_is_the_nvlink_domain() -> None:
    t = aws.parse(json.loads(ULTRA.read_text()))
    domains = {d: len(hs) for d, hs in t.nvlink_domains().items()}
    assert domains == {"cr-0123456789abcdef0": 18, "cr-0fedcba9876543210": 7}


@needs_captures
def test_aws_names_map_renames_and_filters() -> None:
    raw = json.loads(AWS_EXAMPLE.read_text())
    t = aws.parse(raw, {"i-1111111111example": "gpu-1", "i-2222222222example": "gpu-2"})
    assert sorted(h.name for h in t.hosts) == ["gpu-1", "gpu-2"]
    assert {h.instance_id for h in t.hosts} == {"i-1111111111example", "i-2222222222example"}
    assert sum(1 for _, why in t.skipped if why == "not in the names map") == 2


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"Reservations": []}, "not a DescribeInstanceTopology response"),
        ({"Instances": [{"NetworkNodes": ["a"]}]}, "no 'InstanceId'"),
        ({"Instances": [{"InstanceId": "i-1", "NetworkNodes": "nn-1"}]}, "not a list of ids"),
        ({"Instances": [{"InstanceId": "i-1", "NetworkNodes": []}]}, "no hosts"),
    ],
)
def test_aws_bad_input_is_one_clear_error(data: object, match: str) -> None:
    with pytest.raises(UserError, match=match):
        aws.parse(data)


def _client() -> object:
    return boto3.client(
        "ec2", region_name="us-west-2", aws_access_key_id="x", aws_secret_access_key="x"
    )


@needs_captures
def test_aws_live_discovery_pages_and_chunks_ids_by_100() -> None:
    """Stubber checks every request against the real EC2 API model."""
    example = json.loads(AWS_EXAMPLE.read_text())["Instances"]
    ids = [f"i-{n:017x}" for n in range(150)]
    client = _client()
    stub = Stubber(client)
    first = [dict(example[0], InstanceId=ids[0])]
    second = [dict(example[2], InstanceId=ids[1])]
    third = [dict(example[1], InstanceId=ids[120])]
    stub.add_response(
        "describe_instance_topology",
        {"Instances": first, "NextToken": "t2"},
        {"InstanceIds": ids[:100]},
    )
    stub.add_response(
        "describe_instance_topology",
        {"Instances": second},
        {"InstanceIds": ids[:100], "NextToken": "t2"},
    )
    stub.add_response(
        "describe_instance_topology", {"Instances": third}, {"InstanceIds": ids[100:]}
    )
    stub.add_response(
        "describe_instances",
        {
            "Reservations": [
                {
                    "Instances": [
                        {
                            "InstanceId": i,
                            "PrivateDnsName": f"ip-10-0-0-{k}.us-west-2.compute.internal",
                        }
                        for k, i in enumerate((ids[0], ids[1], ids[120]))
                    ]
                }
            ]
        },
        {"InstanceIds": [ids[0], ids[1], ids[120]]},
    )
    with stub:
        t = aws.discover(client, ids, name_by="private-dns")
    stub.assert_no_pending_responses()
    assert sorted(h.name for h in t.hosts) == ["ip-10-0-0-0", "ip-10-0-0-1", "ip-10-0-0-2"]
    assert t.by_name()["ip-10-0-0-0"].instance_id == ids[0]


def test_aws_live_discovery_api_error_is_a_user_error() -> None:
    client = _client()
    stub = Stubber(client)
    stub.add_client_error(
        "describe_instance_topology",
        "UnauthorizedOperation",
        "You are not authorized to perform this operation.",
    )
    with stub, pytest.raises(UserError, match="UnauthorizedOperation"):
        aws.discover(client)


def test_aws_chunks_never_exceed_100() -> None:
    chunks = discovery_aws.chunks([str(i) for i in range(250)])
    assert [len(c) for c in chunks] == [100, 100, 50]


# ---------------------------------------------------------------- GCP
def test_gcp_physical_host_metadata_values() -> None:
    t = gcp.parse({"a3-0": "/c1/r1/h1", "a3-1": "/c1/r1/h2", "a3-2": "/c1/r2/h9"})
    assert t.by_name()["a3-0"].path == ("c1", "c1/r1")
    assert t.by_name()["a3-0"].leaf == t.by_name()["a3-1"].leaf != t.by_name()["a3-2"].leaf


def test_gcp_instances_list_with_physical_host_topology() -> None:
    def inst(name: str, topo: dict[str, str] | None, host: str | None = None) -> dict:
        status: dict[str, object] = {}
        if topo:
            status["physicalHostTopology"] = topo
        if host:
            status["physicalHost"] = host
        return {
            "name": name,
            "machineType": "zones/us-central1-a/machineTypes/a3-ultragpu-8g",
            "networkInterfaces": [{"networkIP": f"10.0.0.{len(name)}"}],
            "resourceStatus": status,
        }

    data = {
        "items": [
            inst("n1", {"cluster": "c", "block": "b1", "subblock": "s1", "host": "h1"}),
            inst("n2", {"cluster": "c", "block": "b1", "subblock": "s1", "host": "h2"}),
            inst("n3", {"cluster": "c", "block": "b2", "subblock": "s4", "host": "h3"}),
            inst("n4", None, "/c/r7/h4"),
            inst("n5", None),
        ]
    }
    t = gcp.parse(data)
    assert t.by_name()["n1"].path == ("c", "c/b1", "c/b1/s1")
    assert t.by_name()["n1"].instance_type == "a3-ultragpu-8g"
    assert t.by_name()["n4"].path == ("c", "c/r7")
    assert t.unplaced == ("n5",)  # no physical host topology: kept, unplaced


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"a": "c1/r1/h1"}, "not of the form /cluster/rack/host"),
        ({"a": "/c1/r1"}, "not of the form"),
        (
            {
                "items": [
                    {"name": "x", "resourceStatus": {"physicalHostTopology": {"cluster": "c"}}}
                ]
            },
            "lacks block, subblock",
        ),
        (42, "expected an instances list"),
    ],
)
def test_gcp_bad_input(data: object, match: str) -> None:
    with pytest.raises(UserError, match=match):
        gcp.parse(data)


# ---------------------------------------------------------------- InfiniBand
@needs_captures
def test_ib_superpod_fixture_rail_leaves_group_into_scalable_units() -> None:
    t = ib.parse(IB_SUPERPOD.read_text())
    leaves = t.leaves()
    assert len(leaves) == 8  # 8 scalable units, each 4 rail leaves (one leaf absent)
    assert sum(len(v) for v in leaves.values()) == len(t.hosts) == 119
    assert len({h.path[0] for h in t.hosts}) == 1  # all spines form one top group
    assert t.depth == 2
    # a DGX is one host although its HCAs sit on 4 different rail leaves
    assert t.by_name()["a08-p1-dgx-04-c01"].leaf == t.by_name()["a08-p1-dgx-04-c17"].leaf
    assert t.by_name()["a08-p1-dgx-04-c01"].leaf != t.by_name()["a05-p1-dgx-01-c01"].leaf
    members = t.labels[t.by_name()["a08-p1-dgx-04-c01"].leaf].split(",")
    assert "A09-P1-IBLEAF-04-04" in members and len(members) == 4
    # management hosts (UFM) and SHARP aggregation nodes are not compute hosts
    assert "B11-P1-CUFM-02" in {n for n, _ in t.skipped}
    assert not any("Aggregation" in h.name or "MT4129" in h.name for h in t.hosts)
    assert len(set(map(len, leaves.values()))) > 1  # uneven: a fragmented real fabric


@needs_captures
def test_ib_isolated_hca_is_one_clear_error() -> None:
    with pytest.raises(UserError, match="no switches"):
        ib.parse(IB_ISOLATED.read_text())


def test_ib_garbage_is_one_clear_error() -> None:
    with pytest.raises(UserError, match="is this ibnetdiscover output"):
        ib.parse("hello\nworld\n")


# ---------------------------------------------------------------- file
def test_file_source_round_trips_through_json(tmp_path: Path) -> None:
    from gpufabric.topology.emit.topology_file import topology_json

    t = aws.parse(json.loads(ULTRA.read_text()))
    out = tmp_path / "t.json"
    out.write_text(topology_json(t))
    back = load("file", out)
    assert {h.name: (h.path, h.nvlink_domain) for h in back.hosts} == {
        h.name: (h.path, h.nvlink_domain) for h in t.hosts
    }


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([], "expected a mapping with a 'hosts' list"),
        ({"hosts": [{"name": "a"}]}, "'path' must be a non-empty list"),
        ({"hosts": [{"name": "a", "path": ["l"], "rack": 1}]}, "unknown key 'rack'"),
        ({"hosts": [{"name": "a", "path": ["l"]}, {"name": "a", "path": ["l"]}]}, "twice"),
        (
            {"hosts": [{"name": "a", "path": ["s1", "l"]}, {"name": "b", "path": ["s2", "l"]}]},
            "two parents",
        ),
        ({"hosts": [], "extra": 1}, "unknown key 'extra'"),
    ],
)
def test_file_source_bad_input(data: object, match: str) -> None:
    with pytest.raises(UserError, match=match):
        file.parse(data)


def test_apply_names_keeps_only_named_hosts() -> None:
    t = file.parse({"hosts": [{"name": "a", "path": ["l1"]}, {"name": "b", "path": ["l2"]}]})
    renamed = apply_names(t, {"a": "node-a"})
    assert [h.name for h in renamed.hosts] == ["node-a"]
    with pytest.raises(UserError, match="matches no host"):
        apply_names(t, {"zzz": "q"})


def test_load_rejects_unknown_source_and_missing_input(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="choose one of aws, gcp, oci, nebius, ib, file"):
        load("azure", tmp_path / "x")
    with pytest.raises(UserError) as err:
        load("gcp")
    assert "error: --source gcp needs --input FILE (a recorded " in error_line(err.value)
    with pytest.raises(UserError, match="no such file"):
        load("file", tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not: [valid")
    with pytest.raises(UserError, match=r"bad.json: line 1 column 2: not valid JSON"):
        load("file", bad)


@needs_captures
def test_names_file_as_mapping_or_lines(tmp_path: Path) -> None:
    from gpufabric.topology.files import read_names

    mapping = tmp_path / "names.yml"
    mapping.write_text("i-1111111111example: gpu-1\n")
    lines = tmp_path / "names.txt"
    lines.write_text("# id name\ni-2222222222example gpu-2\n")
    assert read_names(mapping) == {"i-1111111111example": "gpu-1"}
    assert read_names(lines) == {"i-2222222222example": "gpu-2"}
    t = load("aws", AWS_EXAMPLE, names_path=lines)
    assert [h.name for h in t.hosts] == ["gpu-2"]
    bad = tmp_path / "bad.txt"
    bad.write_text("i-1 a b\n")
    with pytest.raises(UserError, match=r"bad.txt:1: expected 'id name'"):
        read_names(bad)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("i-1: a\ni-2: b\ni-1: c\n", "line 3: key 'i-1' given twice"),
        ("12345: a\n'12345': b\n", "id '12345' given twice"),
        ("i-1 a\ni-1 b\n", ":2: id 'i-1' given twice"),
        ("i-1: [true]\n", r"id 'i-1': name \[True\] is not a string"),
        ("i-1: no\ni-2:\n", "id 'i-2': name None is not a string"),
        ("i-1: &a [*a]\n", "a loop"),
        ("- i-1: a\n", "expected a mapping of id to node name"),
    ],
)
def test_names_file_refuses_what_would_rename_or_drop_a_host(
    tmp_path: Path, text: str, match: str
) -> None:
    from gpufabric.topology.files import read_names

    path = tmp_path / "names.yml"
    path.write_text(text)
    with pytest.raises(UserError, match=match):
        read_names(path)


def test_names_file_yaml_no_stays_a_name(tmp_path: Path) -> None:
    from gpufabric.topology.files import read_names

    path = tmp_path / "names.yml"
    path.write_text("i-1: no\n12345: on\n")
    assert read_names(path) == {"i-1": "no", "12345": "on"}
