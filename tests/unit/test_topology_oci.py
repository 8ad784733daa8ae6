"""OCI topology source, on inputs shaped like its API, down to Slurm/K8s output."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.clouds.oci import topology as oci
from gpufabric.errors import UserError
from gpufabric.topology.emit.kubernetes import node_labels
from gpufabric.topology.emit.slurm import tree_conf
from gpufabric.topology.load import load

DATA = Path(__file__).resolve().parents[1] / "fixtures_topology"
ISLAND = "ocid1.computehpcisland.oc1.iad.anuwcljtisland0aaaa"


def test_oci_bare_metal_hosts_become_island_block_local_tree() -> None:
    topo = load("oci", DATA / "oci_bare_metal_hosts.json")
    assert [h.name for h in topo.hosts] == [f"anuwcljtnode{i}aaaa" for i in range(6)]
    assert topo.depth == 3 and topo.hosts[0].instance_type == "BM.GPU.H100.8"
    assert {h.path[0] for h in topo.hosts} == {ISLAND}
    sizes = sorted(len(hosts) for hosts in topo.leaves().values())
    assert sizes == [1, 2, 3]  # local blocks
    assert dict(topo.skipped) == {"ocid1.instance.oc1.iad.anuwcljtnode9aaaa": "no local block id"}
    conf = tree_conf(topo)
    assert conf.count("Nodes=") == 3 and "Switches=" in conf


def test_oci_names_map_instance_ocids_to_node_names(tmp_path: Path) -> None:
    names = tmp_path / "names.yaml"
    names.write_text(
        "\n".join(f"ocid1.instance.oc1.iad.anuwcljtnode{i}aaaa: gpu-{i}" for i in range(3)) + "\n"
    )
    topo = load("oci", DATA / "oci_bare_metal_hosts.json", names)
    assert sorted(h.name for h in topo.hosts) == ["gpu-0", "gpu-1", "gpu-2"]
    assert ("ocid1.instance.oc1.iad.anuwcljtnode5aaaa", "not in the names map") in topo.skipped
    labels = node_labels(topo)
    assert labels["gpu-0"] == labels["gpu-1"] != labels["gpu-2"]


def test_oci_cli_kebab_case_and_imds_shapes() -> None:
    cli = load("oci", DATA / "oci_compute_hosts_cli.json")
    assert len(cli.hosts) == 4 and cli.hosts[0].instance_type == "BM.GPU.H100.8"
    imds = load("oci", DATA / "oci_rdma_topology_imds.json")
    assert [h.name for h in imds.hosts] == ["gpu-0", "gpu-1", "gpu-2"]
    assert imds.skipped[0][0] == "gpu-3" and "customerLocalBlock" in imds.skipped[0][1]
    # the same hosts read three ways sit under the same blocks
    assert [h.path for h in imds.hosts] == [h.path for h in cli.hosts[:3]]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([1], "an item is not an object"),
        ("text", "expected OCI compute hosts"),
        ({"gpu-0": "x"}, "expected OCI compute hosts"),
        (
            {
                "items": [
                    {
                        "instanceId": "ocid1.instance.oc1..a",
                        "computeHpcIslandId": "i",
                        "computeNetworkBlockId": "b",
                        "computeLocalBlockId": "l",
                    },
                    {
                        "instanceId": "ocid1.instance.oc1..a",
                        "computeHpcIslandId": "i",
                        "computeNetworkBlockId": "b2",
                        "computeLocalBlockId": "l",
                    },
                ]
            },
            "listed twice with different blocks",
        ),
        ({"items": []}, "no hosts with topology"),
    ],
)
def test_oci_bad_input_is_one_clear_error(data: object, match: str) -> None:
    with pytest.raises(UserError, match=match):
        oci.parse(data, origin="t")
