"""OCI topology source at its edges: every spelling OCI prints a block id in reads the same,
each wrapper of the host list is unwrapped, hosts left out are named with the reason, and each
refusal is one exact line naming the input."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.clouds.oci import topology as oci
from gpufabric.errors import UserError
from gpufabric.topology.model import Host

IID = "ocid1.instance.oc1.iad.anuwcljtnode0aaaa"
IID2 = "ocid1.instance.oc1.iad.anuwcljtnode1aaaa"
PATH = ("island0", "block0", "local0")

# (island, network block, local block, GPU memory fabric, instance) as each API spells them
SPELLINGS = [
    (
        "computeHpcIslandId",
        "computeNetworkBlockId",
        "computeLocalBlockId",
        "computeGpuMemoryFabricId",
        "instanceId",
    ),
    ("hpcIslandId", "networkBlockId", "localBlockId", "gpuMemoryFabricId", "instanceId"),
    (
        "compute-hpc-island-id",
        "compute-network-block-id",
        "compute-local-block-id",
        "compute-gpu-memory-fabric-id",
        "instance-id",
    ),
    ("hpc-island-id", "network-block-id", "local-block-id", "gpu-memory-fabric-id", "instance-id"),
]


def _item(keys: tuple[str, ...] = SPELLINGS[0], iid: Any = IID, **extra: Any) -> dict[str, Any]:
    island, block, local, fabric, instance = keys
    return {
        island: PATH[0],
        block: PATH[1],
        local: PATH[2],
        fabric: "fabric0",
        instance: iid,
        **extra,
    }


@pytest.mark.parametrize("keys", SPELLINGS, ids=lambda k: k[0])
def test_every_spelling_reads_the_same_host(keys: tuple[str, ...]) -> None:
    topo = oci.parse({"items": [_item(keys, shape="BM.GPU.H100.8")]})
    assert topo.hosts == (
        Host(
            name="anuwcljtnode0aaaa",
            path=PATH,
            nvlink_domain="fabric0",
            instance_id=IID,
            instance_type="BM.GPU.H100.8",
        ),
    )
    assert topo.source == "oci" and topo.skipped == ()


@pytest.mark.parametrize(
    "wrap",
    [
        lambda items: items,
        lambda items: {"items": items},
        lambda items: {"data": items},
        lambda items: {"data": {"items": items}},
    ],
    ids=["bare list", "REST body", "CLI data list", "CLI data items"],
)
def test_each_wrapper_of_the_host_list(wrap: Any) -> None:
    topo = oci.parse(wrap([_item(), _item(iid=IID2)]), origin="hosts.json")
    assert [h.instance_id for h in topo.hosts] == [IID, IID2]
    assert topo.source == "hosts.json"


def test_empty_values_fall_through_to_the_next_spelling() -> None:
    item = {**_item(SPELLINGS[1]), "computeHpcIslandId": "", "computeLocalBlockId": None}
    assert oci.parse([item]).hosts[0].path == PATH


def test_the_shape_under_either_key_and_absent_fabric() -> None:
    item = _item(instanceShape="BM.GPU.B200.8")
    del item["computeGpuMemoryFabricId"]
    (host,) = oci.parse([item]).hosts
    assert (host.instance_type, host.nvlink_domain) == ("BM.GPU.B200.8", None)
    item["instanceShape"] = ""
    assert oci.parse([item]).hosts[0].instance_type is None


def test_hosts_left_out_are_named_with_the_reason() -> None:
    free = _item(iid=None)  # a host with no instance on it: free capacity, not a node
    empty = _item(iid="")
    no_blocks = {"instanceId": IID2, "computeNetworkBlockId": "block0"}
    topo = oci.parse([no_blocks, free, empty, _item()])
    assert [h.instance_id for h in topo.hosts] == [IID]
    assert topo.skipped == ((IID2, "no HPC island, local block id"),)
    no_block = {**_item(iid=IID2), "computeNetworkBlockId": None}
    assert oci.parse([_item(), no_block]).skipped == ((IID2, "no network block id"),)


def test_a_host_listed_twice_under_the_same_blocks_is_one_host() -> None:
    topo = oci.parse([_item(), _item(SPELLINGS[3]), _item(iid=IID2)])
    assert [h.instance_id for h in topo.hosts] == [IID, IID2]


def test_names_map_instance_ocids_and_skip_the_rest() -> None:
    topo = oci.parse([_item(), _item(iid=IID2)], names={IID2: "gpu-1"})
    assert [(h.name, h.instance_id) for h in topo.hosts] == [("gpu-1", IID2)]
    assert topo.skipped == ((IID, "not in the names map"),)
    assert oci.host_name(IID, None) == "anuwcljtnode0aaaa"
    assert oci.host_name(IID, {IID: "gpu-0"}) == "gpu-0"


@pytest.mark.parametrize(
    ("data", "line"),
    [
        ([_item(), "x"], "t: an item is not an object"),
        (
            [_item(), _item(iid=12345)],
            "t: items[1]: instanceId 12345 must be a string, not an int",
        ),
        (
            [_item(SPELLINGS[2], iid="ocid1.computehost.oc1.iad.x")],
            "t: items[0]: instance-id 'ocid1.computehost.oc1.iad.x' is an OCID of a "
            "computehost, not of an instance (ocid1.instance.oc1...)",
        ),
        (
            [_item(), _item(SPELLINGS[1], computeLocalBlockId="local1")],
            f"t: instance {IID} is listed twice with different blocks",
        ),
    ],
)
def test_host_list_refusals_are_one_exact_line(data: Any, line: str) -> None:
    with pytest.raises(UserError) as err:
        oci.parse(data, origin="t")
    assert str(err.value) == line


IMDS = {
    "customerHPCIslandId": "island0",
    "customerNetworkBlock": "block0",
    "customerLocalBlock": "local0",
}


def test_imds_documents_per_node() -> None:
    topo = oci.parse(
        {
            "gpu-2": {"customerNetworkBlock": "block0", "customerLocalBlock": ""},
            "gpu-0": {**IMDS, "customerGpuMemoryFabric": "fabric0"},
            "gpu-1": {**IMDS, "customerGpuMemoryFabric": ""},
        },
        origin="imds.json",
    )
    assert topo.hosts == (
        Host(name="gpu-0", path=PATH, nvlink_domain="fabric0"),
        Host(name="gpu-1", path=PATH),
    )
    assert topo.skipped == (
        ("gpu-2", "rdmaTopologyData lacks customerHPCIslandId, customerLocalBlock"),
    )
    assert topo.source == "imds.json"


@pytest.mark.parametrize(
    ("doc", "line"),
    [
        (
            {**IMDS, "customerLocalBlock": True},
            "imds.json: gpu-0: customerLocalBlock: True must be a string, not the boolean true",
        ),
        (
            {**IMDS, "customerHPCIslandId": "island0\nSwitchName=x"},
            "imds.json: gpu-0: customerHPCIslandId: 'island0\\nSwitchName=x' holds",
        ),
    ],
)
def test_imds_block_ids_of_the_wrong_type_are_refused(doc: dict[str, Any], line: str) -> None:
    """`customerLocalBlock: true` was skipped as lacking another key (or, with the island
    missing too, under that reason only)."""
    with pytest.raises(UserError) as err:
        oci.parse({"gpu-0": doc}, origin="imds.json")
    assert str(err.value).startswith(line)


@pytest.mark.parametrize(
    ("shape", "line"),
    [
        (["BM.GPU.H100.8"], "t: items[0]: shape: ['BM.GPU.H100.8'] must be a string"),
        ("BM.GPU\nx", "t: items[0]: shape: 'BM.GPU\\nx' holds"),
    ],
)
def test_a_shape_that_is_not_a_name_is_refused(shape: Any, line: str) -> None:
    """The shape is written back out (`render --format json`): a list came back as a list."""
    with pytest.raises(UserError) as err:
        oci.parse([_item(shape=shape)], origin="t")
    assert str(err.value).startswith(line)


@pytest.mark.parametrize("data", [{}, {"gpu-0": IMDS, "gpu-1": "x"}, "text", None])
def test_neither_a_host_list_nor_imds_documents(data: Any) -> None:
    with pytest.raises(UserError) as err:
        oci.parse(data, origin="t")
    assert str(err.value) == (
        "t: expected OCI compute hosts ({'items': [...]}, the CLI's {'data': ...}) "
        "or a mapping node name -> rdmaTopologyData"
    )


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        ({"computeLocalBlockId": ["local0"]}, "t: items[0]: computeLocalBlockId: ['local0'] must be a string"),
        ({"computeHpcIslandId": True}, "t: items[0]: computeHpcIslandId: True must be a string"),
        ({"computeGpuMemoryFabricId": "f\nx"}, "t: items[0]: computeGpuMemoryFabricId: 'f\\nx' holds"),
    ],
)  # fmt: skip
def test_a_block_id_that_is_not_an_id_is_refused_not_skipped(
    extra: dict[str, Any], line: str
) -> None:
    """A list or true under a block key was skipped as if the id were missing (the
    host left out as "no ... id"); it is refused, naming the item and the key."""
    with pytest.raises(UserError) as err:
        oci.parse([_item(**extra)], origin="t")
    assert str(err.value).startswith(line)
