"""Nebius topology source, on inputs shaped like its API, down to Slurm/K8s output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufabric.cli.conventions import error_line
from gpufabric.clouds.nebius import topology as nebius
from gpufabric.errors import UserError
from gpufabric.topology.emit.slurm import tree_conf
from gpufabric.topology.load import load

DATA = Path(__file__).resolve().parents[1] / "fixtures_topology"


def test_nebius_instance_list_paths_addresses_and_unplaced() -> None:
    topo = load("nebius", DATA / "nebius_instance_list.json")
    assert [h.name for h in topo.hosts] == [f"nebius-h100-node-00{i}" for i in range(4)]
    assert topo.hosts[0].path == ("fabric3-root-a", "fabric3-spine-a1", "fabric3-leaf-1")
    assert (
        topo.hosts[3].address == "10.0.0.13"
        and topo.hosts[3].instance_id == "computeinstance-e00node3"
    )
    assert topo.unplaced == ("bastion",)
    conf = tree_conf(topo)
    assert "SwitchName=fabric3-leaf-1" in conf or "fabric3-leaf-1" in conf
    assert "bastion" in conf  # Slurm still needs it under a switch (no-topology)


def test_nebius_gpu_cluster_yaml_with_names(tmp_path: Path) -> None:
    names = tmp_path / "names.txt"
    names.write_text(
        "computeinstance-e00node0 n0\ncomputeinstance-e00node1 n1\ncomputeinstance-e00node2 n2\n"
    )
    topo = load("nebius", DATA / "nebius_gpu_cluster.yaml", names)
    assert [h.name for h in topo.hosts] == ["n0", "n1", "n2"]
    assert [len(v) for v in topo.leaves().values()] == [2, 1]


def test_nebius_camel_case_and_imds_documents() -> None:
    camel = {
        "items": [
            {
                "metadata": {"name": "a", "id": "computeinstance-1"},
                "status": {"infinibandTopologyPath": {"path": ["r", "s", "l"]}},
            }
        ]
    }
    assert nebius.parse(camel).hosts[0].path == ("r", "s", "l")
    imds = {
        "gpu-0": {"id": "computeinstance-1", "infiniband_topology_path": ["r", "s", "l1"]},
        "gpu-1": {"id": "computeinstance-2", "infiniband_topology_path": ["r", "s", "l2"]},
    }
    topo = nebius.parse(json.loads(json.dumps(imds)))
    assert [h.leaf for h in topo.hosts] == ["l1", "l2"]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (
            {
                "items": [
                    {
                        "metadata": {"name": "a"},
                        "status": {"infiniband_topology_path": {"path": ["r", "l"]}},
                    }
                ]
            },
            "has 2 switches, expected 3",
        ),
        (
            {
                "items": [
                    {
                        "metadata": {"name": "a"},
                        "status": {"infiniband_topology_path": {"path": "r/s/l"}},
                    }
                ]
            },
            "not a list of switch ids",
        ),
        ({"items": [{"status": {}}]}, "no metadata.name"),
        (42, "expected `nebius compute instance list` JSON"),
        (
            {"status": {"infiniband_topology_path": {"instances": [{"path": ["r", "s", "l"]}]}}},
            "has no instance_id",
        ),
    ],
)
def test_nebius_bad_input_is_one_clear_error(data: object, match: str) -> None:
    with pytest.raises(UserError, match=match):
        nebius.parse(data, origin="t")


def test_oci_and_nebius_need_an_input_file() -> None:
    for source in ("oci", "nebius"):
        with pytest.raises(UserError) as err:
            load(source)
        assert f"error: --source {source} needs --input FILE (a recorded " in error_line(err.value)
