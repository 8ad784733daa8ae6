"""Nebius topology source at its edges: each shape and spelling of the API reads the same host
(path, NVLink group, address, id), VMs left out are named or kept unplaced, and each refusal is
one exact line naming the input and the VM."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.clouds.nebius import topology as nebius
from gpufabric.errors import UserError
from gpufabric.topology.model import Host

PATH = ["root-a", "spine-a1", "leaf-1"]
IID = "computeinstance-e00node0"
IID2 = "computeinstance-e00node1"


def _vm(name: str = "gpu-0", iid: str = IID, camel: bool = False, **status: Any) -> dict[str, Any]:
    path_key = "infinibandTopologyPath" if camel else "infiniband_topology_path"
    nics_key, ip_key = (
        ("networkInterfaces", "ipAddress") if camel else ("network_interfaces", "ip_address")
    )
    spec_key = "nvlInstanceGroupId" if camel else "nvl_instance_group_id"
    return {
        "metadata": {"name": name, "id": iid},
        "spec": {spec_key: "nvl-0"},
        "status": {
            nics_key: [{"name": "eth0", ip_key: {"address": "10.0.0.10/32"}}],
            path_key: {"path": PATH},
            **status,
        },
    }


@pytest.mark.parametrize("camel", [False, True], ids=["snake_case", "lowerCamelCase"])
def test_instance_list_reads_every_field(camel: bool) -> None:
    topo = nebius.parse({"items": [_vm(camel=camel)]})
    assert topo.hosts == (
        Host(
            name="gpu-0",
            path=tuple(PATH),
            nvlink_domain="nvl-0",
            address="10.0.0.10",
            instance_id=IID,
        ),
    )
    assert (topo.source, topo.skipped, topo.unplaced) == ("nebius", (), ())


def test_a_bare_list_and_the_first_nic_with_an_address() -> None:
    vm = _vm()
    vm["status"]["network_interfaces"] = [
        {"name": "eth0", "ip_address": {"address": ""}},
        {"name": "eth1", "ip_address": {"address": 5}},
        {"name": "eth2"},
        {"name": "eth3", "ip_address": {"address": "10.0.0.12"}},
    ]
    del vm["spec"]
    (host,) = nebius.parse([vm], origin="vms.json").hosts
    assert (host.address, host.nvlink_domain) == ("10.0.0.12", None)
    vm["status"]["network_interfaces"] = []
    assert nebius.parse([vm]).hosts[0].address == ""


def test_path_under_paths_or_at_the_top_of_the_entry() -> None:
    vm = _vm()
    vm["status"]["infiniband_topology_path"] = {"paths": PATH}
    assert nebius.parse([vm]).hosts[0].path == tuple(PATH)
    top = {"metadata": {"name": "gpu-1"}, "infinibandTopologyPath": PATH}
    assert nebius.parse([top]).hosts[0].path == tuple(PATH)


def test_a_vm_without_a_path_is_unplaced_and_names_pick_by_id_or_name() -> None:
    bastion = {"metadata": {"name": "bastion", "id": IID2}, "status": {}}
    topo = nebius.parse({"items": [bastion, _vm()]})
    assert [h.name for h in topo.hosts] == ["gpu-0"] and topo.unplaced == ("bastion",)
    named = nebius.parse([_vm(), _vm("gpu-1", IID2)], names={IID: "n0", "gpu-1": "n1"})
    assert [h.name for h in named.hosts] == ["n0", "n1"]
    some = nebius.parse([_vm("gpu-1", IID2), _vm()], names={IID: "n0"})
    assert [h.name for h in some.hosts] == ["n0"]
    assert some.skipped == (("gpu-1", "not in the names map"),)


def test_imds_documents_keyed_by_node_and_hostname_first() -> None:
    docs = {
        "gpu-0": {"id": IID, "infiniband_topology_path": PATH},
        "gpu-1": {"id": IID2, "hostname": "ignored", "infiniband_topology_path": PATH},
    }
    topo = nebius.parse(docs, origin="imds")
    assert [(h.name, h.instance_id) for h in topo.hosts] == [("gpu-0", IID), ("gpu-1", IID2)]
    listed = nebius.parse([_vm(), {"hostname": "h0", "metadata": {"name": "m0"}, "id": IID2}])
    assert listed.unplaced == ("h0",)


def test_a_vm_named_by_its_id_alone() -> None:
    topo = nebius.parse([{"id": IID, "infiniband_topology_path": PATH}])
    assert [(h.name, h.instance_id) for h in topo.hosts] == [(IID, IID)]


def test_gpu_cluster_paths_with_and_without_names() -> None:
    cluster = {
        "status": {
            "infinibandTopologyPath": {
                "instances": [
                    {"instanceId": IID, "path": PATH},
                    {"instance_id": IID2, "path": [*PATH[:2], "leaf-2"]},
                ]
            }
        }
    }
    topo = nebius.parse(cluster, origin="cluster.yaml")
    assert topo.hosts == (
        Host(name=IID, path=tuple(PATH), instance_id=IID),
        Host(name=IID2, path=(*PATH[:2], "leaf-2"), instance_id=IID2),
    )
    assert topo.source == "cluster.yaml"
    named = nebius.parse(cluster, names={IID2: "n1"})
    assert [h.name for h in named.hosts] == ["n1"]
    assert named.skipped == ((IID, "not in the names map"),)
    cluster["status"]["infinibandTopologyPath"]["instances"].insert(0, {"instance_id": IID + "x"})
    assert nebius.parse(cluster).skipped == ((IID + "x", "no path"),)
    assert len(nebius.parse(cluster).hosts) == 2
    cluster["status"]["infinibandTopologyPath"]["instances"][0]["path"] = PATH[:2]
    with pytest.raises(UserError) as err:
        nebius.parse(cluster, origin="cluster.yaml")
    assert str(err.value) == (
        f"cluster.yaml: {IID}x: infiniband_topology_path has 2 switches, expected 3 (root -> leaf)"
    )


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (
            [_vm(), "x"],
            "t: an instance entry is not an object",
        ),
        (
            [{"metadata": {"id": IID}, "status": {"infiniband_topology_path": {"path": "a/b/c"}}}],
            f"t: {IID}: infiniband_topology_path is not a list of switch ids",
        ),
        (
            [{"metadata": {"name": "a"}, "infiniband_topology_path": ["r", "", "l"]}],
            "t: a: infiniband_topology_path is not a list of switch ids",
        ),
        (
            [{"metadata": {"name": "a"}, "infiniband_topology_path": [*PATH, "x"]}],
            "t: a: infiniband_topology_path has 4 switches, expected 3 (root -> leaf)",
        ),
        (
            [{"metadata": {"name": ""}, "status": {}}],
            "t: an instance has no metadata.name, hostname or id",
        ),
        ([{"hostname": 7}], "t: an instance has no metadata.name, hostname or id"),
        (
            {"status": {"infiniband_topology_path": {"instances": [{"instance_id": ""}]}}},
            "t: a GPU cluster instance entry has no instance_id",
        ),
        (
            {"status": {"infiniband_topology_path": {"instances": ["x"]}}},
            "t: a GPU cluster instance entry has no instance_id",
        ),
    ],
)
def test_refusals_are_one_exact_line(data: Any, line: str) -> None:
    with pytest.raises(UserError) as err:
        nebius.parse(data, origin="t")
    assert str(err.value) == line


@pytest.mark.parametrize(
    ("data", "start"),
    [
        ([{"metadata": {"name": "a", "id": 12345}}], "t: instance id: 12345 "),
        (
            {"status": {"infiniband_topology_path": {"instances": [{"instance_id": "x-1"}]}}},
            "t: instance_id: 'x-1' ",
        ),
    ],
)
def test_ids_of_another_kind_are_refused(data: Any, start: str) -> None:
    with pytest.raises(UserError) as err:
        nebius.parse(data, origin="t")
    assert str(err.value).startswith(start)


@pytest.mark.parametrize("data", [42, {}, {"items": "x"}, {"a": {"id": IID}, "b": 1}, None])
def test_no_known_shape(data: Any) -> None:
    with pytest.raises(UserError) as err:
        nebius.parse(data, origin="t")
    assert str(err.value) == (
        "t: expected `nebius compute instance list` JSON, a GPU cluster "
        "(status.infiniband_topology_path.instances) or IMDS instance-data documents"
    )
