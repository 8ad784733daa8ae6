"""Each cloud's own wiring facts (the catalog's `<cloud>:` block, typed by the cloud's package):
`of()` gives them for the cloud's own types and refuses another cloud's; the storage path a cloud
declares is the one the catalog gives (Azure: the accelerated-networking Ethernet NIC, or
nothing where the catalog has no figure)."""

from __future__ import annotations

import pytest

from gpufabric.catalog import lookup
from gpufabric.clouds import registry
from gpufabric.storage.network import node_path

# one shipped type per cloud
TYPES = {
    "aws": "p5.48xlarge",
    "gcp": "a3-megagpu-8g",
    "azure": "Standard_ND96isr_H100_v5",
    "oci": "BM.GPU.H100.8",
    "nebius": "gpu-h100-sxm/8gpu-128vcpu-1600gb",
}


@pytest.mark.parametrize("cloud", sorted(TYPES))
def test_of_gives_the_clouds_own_facts_and_refuses_another_clouds_type(cloud: str) -> None:
    facts = registry.module(cloud, "facts")
    own = lookup(TYPES[cloud])
    assert isinstance(facts.of(own), facts.FACTS)
    other = lookup(TYPES["azure" if cloud != "azure" else "aws"])
    with pytest.raises(TypeError, match=f"{other.name} is a {other.cloud} type, not one with"):
        facts.of(other)


@pytest.mark.parametrize("cloud", ["oci", "nebius"])
def test_the_front_end_nic_defaults_to_eth0(cloud: str) -> None:
    assert registry.module(cloud, "facts").of(lookup(TYPES[cloud])).frontend_ifname == "eth0"


@pytest.mark.parametrize(
    ("name", "gbps"),
    [("Standard_ND96isr_H100_v5", 80), ("Standard_ND96amsr_A100_v4", 24)],
)
def test_azure_storage_goes_over_the_ethernet_nic_the_catalog_gives(name: str, gbps: int) -> None:
    facts = registry.module("azure", "facts")
    itype = lookup(name)
    assert facts.storage_path(itype, False) == (gbps, f"Ethernet NIC {gbps} Gbps")
    path = node_path(itype)
    assert path is not None and path.gbps_per_node == gbps


def test_azure_storage_path_is_unknown_without_an_ethernet_figure() -> None:
    itype = lookup("Standard_ND96asr_v4")  # the catalog gives no Ethernet figure for it
    assert registry.module("azure", "facts").storage_path(itype, False) is None
    assert node_path(itype) is None
