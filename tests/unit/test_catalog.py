"""The instance catalog: complete AWS entries, sources, lookups with did-you-mean."""

from __future__ import annotations

import pytest

from gpufabric.catalog import catalog, lookup
from gpufabric.clouds.aws import facts as aws_facts
from gpufabric.clouds.aws.efa import nic_layout
from gpufabric.errors import ConfigError

AWS_TYPES = {
    # name: (GPUs, GPU GiB, network cards, EFA devices, total Gbps)
    "p4d.24xlarge": (8, 40, 4, 4, 400),
    "p4de.24xlarge": (8, 80, 4, 4, 400),
    "p5.48xlarge": (8, 80, 32, 32, 3200),
    "p5e.48xlarge": (8, 141, 32, 32, 3200),
    "p5en.48xlarge": (8, 141, 16, 16, 3200),
    "p6-b200.48xlarge": (8, 179, 8, 8, 3200),
}


@pytest.mark.parametrize("name", sorted(AWS_TYPES))
def test_aws_entry_matches_the_reference_sheet(name: str) -> None:
    entry = lookup(name)
    gpus, memory, cards, efa, total = AWS_TYPES[name]
    assert entry.cloud == "aws" and entry.fabric == "efa"
    assert (entry.gpu.count, entry.gpu.memory_gib) == (gpus, memory)
    aws = aws_facts.of(entry)
    assert (aws.network_cards, aws.efa_devices, entry.total_gbps) == (cards, efa, total)
    # per-NIC rate times NICs is the node's fabric line rate
    assert entry.fabric_gbps == total


def test_every_entry_names_its_sources() -> None:
    for entry in catalog().values():
        assert entry.sources, entry.name
        assert all(isinstance(s, str) and len(s) > 10 for s in entry.sources)


def test_lookup_suggests_the_near_miss() -> None:
    with pytest.raises(ConfigError, match=r"did you mean 'p5en\.48xlarge'"):
        lookup("p5en.48xlarg")


def test_lookup_with_no_near_miss_lists_known_types() -> None:
    with pytest.raises(ConfigError, match=r"known types: .*p4d\.24xlarge"):
        lookup("zzz")


@pytest.mark.parametrize("name", sorted(AWS_TYPES))
@pytest.mark.parametrize("layout", ["efa-primary", "ena-primary"])
def test_nic_layout_one_efa_per_card(name: str, layout: str) -> None:
    slots = nic_layout(lookup(name), layout)  # type: ignore[arg-type]
    efa_cards = [s.network_card_index for s in slots if s.has_efa]
    assert sorted(efa_cards) == list(range(AWS_TYPES[name][2]))
    primary = [s for s in slots if s.is_primary]
    assert len(primary) == 1
    assert primary[0].interface_type == ("efa" if layout == "efa-primary" else "interface")
    assert all(s.interface_type != "efa-only" for s in primary)
    assert len(slots) <= aws_facts.of(lookup(name)).max_network_interfaces


def test_component_instance_check_names_the_bad_input() -> None:
    from gpufabric.clouds.outputs import check_instance

    with pytest.raises(ValueError, match=r"AwsClusterArgs\.instance: .* is a azure type, not aws"):
        check_instance(
            "AwsClusterArgs", "aws", "Standard_ND96isr_H100_v5", lookup("Standard_ND96isr_H100_v5")
        )
    with pytest.raises(ValueError, match=r"does not match config instanceType p5\.48xlarge"):
        check_instance("AwsClusterArgs", "aws", "p5.48xlarge", lookup("p4d.24xlarge"))
    check_instance("AwsClusterArgs", "aws", "p5.48xlarge", lookup("p5.48xlarge"))


def test_a_cloud_s_facts_are_read_as_that_cloud_s_only() -> None:
    assert aws_facts.of(lookup("p5.48xlarge")).efa_devices == 32
    with pytest.raises(TypeError, match=r"^a3-megagpu-8g is a gcp type, not one with AwsFacts$"):
        aws_facts.of(lookup("a3-megagpu-8g"))
