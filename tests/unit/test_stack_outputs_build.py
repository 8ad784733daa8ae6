"""The stack outputs both sides read (gpufabric.stack_outputs), in-process: what a cluster
component builds and exports, the group variables every host gets, and each refusal of
outputs that are not a gpufabric stack's, as one exact line."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest
from tests.unit.test_inventory_build import OUTPUTS

from gpufabric.errors import UserError
from gpufabric.stack_outputs import NodeGroup, build, parse

CFG = SimpleNamespace(
    name="c1", stack="s1", region="eu-north1", zone="eu-north1", encryption="ipsec"
)
ITYPE = SimpleNamespace(cloud="nebius", name="gpu-h100-sxm/8gpu", fabric="infiniband")
GROUPS = [
    NodeGroup(kind="instances", name="a", count=2, members=["n-1", "n-2"], id="gc-1"),
    NodeGroup(kind="instances", name="b", count=3, members=["n-3"], partition=0),
]


def _build(**kw: Any) -> Any:
    args: dict[str, Any] = {
        "groups": GROUPS,
        "network": {"subnetCidrs": {"compute": "10.0.0.0/16"}},
        "storage": {"type": "filesystem", "mountPoint": "/shared", "sizeGiB": 2048},
    }
    return build(CFG, ITYPE, **(args | kw))


def test_build_exports_every_key_as_the_program_exports_it() -> None:
    out = _build(project="project-e00x", resource_group="rg-1", compartment="ocid1.c")
    assert out.exports() == {
        "cluster": {
            "cloud": "nebius",
            "name": "c1",
            "stack": "s1",
            "region": "eu-north1",
            "zone": "eu-north1",
            "instanceType": "gpu-h100-sxm/8gpu",
            "fabric": "infiniband",
            "encryption": "ipsec",
            "project": "project-e00x",
            "resourceGroup": "rg-1",
            "compartment": "ocid1.c",
        },
        "nodes": {
            "count": 5,
            "groups": [
                {"kind": "instances", "name": "a", "count": 2, "members": ["n-1", "n-2"],
                 "id": "gc-1"},
                {"kind": "instances", "name": "b", "count": 3, "members": ["n-3"],
                 "partition": 0},
            ],
        },
        "network": {"subnetCidrs": {"compute": "10.0.0.0/16"}},
        "storage": {"type": "filesystem", "mountPoint": "/shared", "sizeGiB": 2048},
    }  # fmt: skip
    # what it exports reads back as the same outputs
    assert parse(out.exports()) == out


def test_build_without_storage_or_where_the_nodes_live() -> None:
    out = _build(storage=None)
    exported = out.exports()
    assert exported["storage"] is None
    assert set(exported["cluster"]) == {
        "cloud", "name", "stack", "region", "zone", "instanceType", "fabric", "encryption"
    }  # fmt: skip
    assert out.cluster.project is None and out.cluster.resource_group is None
    assert out.cluster.compartment is None
    with_command = _build(storage={"type": "t", "mountPoint": "/m", "mountCommand": "mount x"})
    assert with_command.exports()["storage"] == {
        "type": "t",
        "mountPoint": "/m",
        "mountCommand": "mount x",
    }


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (
            {"groups": []},
            "stack outputs: count: Input should be greater than or equal to 1",
        ),
        ({"storage": {"type": "t"}}, "stack outputs: mountPoint: Field required"),
        (
            {"groups": [NodeGroup(kind="instances", name="a", count=1)], "network": {"x": {1}}},
            "stack outputs: network.x: input was not a valid JSON value",
        ),
    ],
    ids=["no-group", "storage", "network"],
)
def test_build_a_component_bug_is_a_value_error_naming_the_field(
    change: dict[str, Any], line: str
) -> None:
    with pytest.raises(ValueError) as err:
        _build(**change)
    assert str(err.value) == line


def test_build_an_empty_name_is_named() -> None:
    with pytest.raises(ValueError) as err:
        build(SimpleNamespace(**{**vars(CFG), "name": ""}), ITYPE, groups=GROUPS, network={},
              storage=None)  # fmt: skip
    assert str(err.value) == "stack outputs: name: String should have at least 1 character"


def test_group_vars_are_the_cluster_switches() -> None:
    assert _build(project="p").group_vars() == {
        "gpufabric_cloud": "nebius",
        "gpufabric_cluster": "c1",
        "gpufabric_stack": "s1",
        "gpufabric_region": "eu-north1",
        "gpufabric_zone": "eu-north1",
        "gpufabric_instance_type": "gpu-h100-sxm/8gpu",
        "gpufabric_fabric": "infiniband",
        "gpufabric_encryption": "ipsec",
    }


def _refused(data: Any, *origin: str) -> str:
    with pytest.raises(UserError) as err:
        parse(data, *origin)
    return str(err.value)


def test_parse_refusals_are_one_exact_line() -> None:
    assert _refused([OUTPUTS]) == "stack outputs: expected a JSON object of stack outputs, got list"
    assert _refused("x", "o.json") == "o.json: expected a JSON object of stack outputs, got str"
    expected = "(expected: cluster, nodes, network, storage)"
    assert _refused({"network": {}}, "o.json") == (
        f"o.json: no 'cluster' section; these are not the outputs of a gpufabric stack {expected}"
    )
    assert _refused({k: v for k, v in OUTPUTS.items() if k != "nodes"}, "o.json") == (
        f"o.json: no 'nodes' section; these are not the outputs of a gpufabric stack {expected}"
    )
    bad = copy.deepcopy(OUTPUTS)
    bad["nodes"]["groups"][0]["count"] = 0
    bad["cluster"]["zone"] = ""
    assert _refused(bad, "o.json") == (
        "o.json: cluster.zone: String should have at least 1 character"
    )
    del bad["cluster"]
    bad["cluster"] = {**OUTPUTS["cluster"]}
    assert _refused(bad) == (
        "stack outputs: nodes.groups.0.count: Input should be greater than or equal to 1"
    )


def test_exports_are_json_values_even_where_storage_takes_extra_keys() -> None:
    """Storage keeps the keys a cloud adds (its dumps must still be JSON: a tuple a component
    passes is exported as the list `pulumi stack output --json` prints back)."""
    out = _build(storage={"type": "lustre", "mountPoint": "/lustre", "nids": ("10.0.0.5@tcp",)})
    assert out.exports()["storage"] == {
        "type": "lustre",
        "mountPoint": "/lustre",
        "nids": ["10.0.0.5@tcp"],
    }
