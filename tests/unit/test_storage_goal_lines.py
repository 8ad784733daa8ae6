"""gpufabric:storage.checkpoint: each refusing line in full (the key, the value, the numbers
and the way out), and what the sizing keeps or derives.

Inputs: the repository's stacks with a goal, as tests/unit/test_storage_goal.py builds them.
p5.48xlarge reaches its file system over one 100 Gbps ENA (12.5 GB/s a node) or 8 EFA x 100 Gbps
(100 GB/s a node); Standard_ND96isr_H100_v5 over one 80 Gbps Ethernet NIC (10 GB/s a node).
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.test_storage_goal import AMLFS, FSX, GOAL, LUSTRE, refused, stack, storage

from gpufabric.config import parse
from gpufabric.config.storage_goal import current, with_storage_goal

FAST = {"sizeGiB": 2048, "writeSeconds": 5}  # 439.8 GB/s
NETWORK_LIMIT = ": the nodes' storage network is the limit; lower the goal or add nodes"
TCP_2 = "2 x p5.48xlarge reach 25.0 GB/s (1 ENA on network card 0, 100 Gbps each)"
EFA_2 = "over EFA 2 x p5.48xlarge reach 200.0 GB/s (8 EFA x 100 Gbps each)"
SELF_SERVICE = (
    "at its largest self-service size; lower the goal (or ask the cloud for a larger file "
    "system and size it yourself)"
)


def _fsx(nodes: int | None = None, **storage_keys: Any) -> str:
    """Refused FSx config; `nodes` None: the stack's own node count (16)."""
    count = {} if nodes is None else {"nodes": nodes}
    return refused(stack("aws-h100", storage={**FSX, **storage_keys}, **count), "aws-h100")


def test_network_short_over_both_paths_names_each_path() -> None:
    assert _fsx(2, checkpoint=FAST) == (
        "gpufabric:storage.checkpoint: {'sizeGiB': 2048, 'writeSeconds': 5.0} is not valid; "
        f"a 2,048 GiB checkpoint in 5 s needs 439.8 GB/s but {TCP_2}; {EFA_2}{NETWORK_LIMIT}"
    )


def test_network_short_with_the_variant_fixed_names_only_that_path() -> None:
    head = "gpufabric:storage.checkpoint: {'sizeGiB': 2048, 'writeSeconds': 5.0} is not valid; "
    need = "a 2,048 GiB checkpoint in 5 s needs 439.8 GB/s but "
    assert _fsx(2, efa=True, checkpoint=FAST) == head + need + EFA_2 + NETWORK_LIMIT
    # efa false and even EFA would be short: the goal is the key to change, not efa
    assert _fsx(2, efa=False, checkpoint=FAST) == head + need + TCP_2 + NETWORK_LIMIT


def test_tcp_fixed_where_the_fabric_would_carry_the_goal_names_the_variant_key() -> None:
    assert _fsx(2, efa=False) == (
        "gpufabric:storage.efa: False is not valid; a 2,048 GiB checkpoint in 60 s needs "
        f"36.7 GB/s but {TCP_2}; EFA-enabled FSx would reach 200.0 GB/s: set efa true or unset it"
    )


def test_network_short_without_a_fabric_variant() -> None:
    raw = stack("azure-ndv5", nodes=2, storage=AMLFS)
    assert refused(raw, "azure-ndv5") == (
        "gpufabric:storage.checkpoint: {'sizeGiB': 2048, 'writeSeconds': 60.0} is not valid; "
        "a 2,048 GiB checkpoint in 60 s needs 36.7 GB/s but 2 x Standard_ND96isr_H100_v5 reach "
        f"20.0 GB/s (Ethernet NIC 80 Gbps each){NETWORK_LIMIT}"
    )


def test_given_capacity_short_rates_at_its_best_tier_or_the_given_one() -> None:
    assert _fsx(capacityGib=9600) == (
        "gpufabric:storage.capacityGib: 9600 is not valid; a 2,048 GiB checkpoint in 60 s needs "
        "36.7 GB/s, but 9,600 GiB rates at most 9.4 GB/s; 38,400 GiB would do"
    )
    assert _fsx(capacityGib=9600, throughputPerTib=250) == (
        "gpufabric:storage.capacityGib: 9600 is not valid; a 2,048 GiB checkpoint in 60 s needs "
        "36.7 GB/s, but 9,600 GiB rates at most 2.3 GB/s; 151,200 GiB would do"
    )


def test_given_capacity_off_the_steps_lists_the_sizes() -> None:
    sizes = "1,200 GiB; or 2,400 GiB or more in steps of 2,400"
    assert _fsx(capacityGib=5000) == (
        "gpufabric:storage.capacityGib: 5000 is not valid; not a FSx for Lustre PERSISTENT_2 "
        f"size: {sizes}; 38,400 GiB would do"
    )
    assert _fsx(capacityGib=5000, throughputPerTib=250).endswith(f"{sizes}; 151,200 GiB would do")


def test_given_tier_too_slow_names_the_tier_and_its_best() -> None:
    raw = stack("azure-ndv5", storage={**AMLFS, "throughputPerTib": 125})
    assert refused(raw, "azure-ndv5") == (
        "gpufabric:storage.throughputPerTib: 125 is not valid; a 2,048 GiB checkpoint in 60 s "
        "needs 36.7 GB/s; Azure Managed Lustre at 125 MB/s/TiB reaches at most 16.0 GB/s "
        "(16 to 128 TiB in steps of 16); raise the tier or unset it"
    )


def test_goal_beyond_the_largest_size_names_the_goal() -> None:
    goal = {"sizeGiB": 2048, "writeSeconds": 20}
    raw = stack("azure-ndv5", storage={**AMLFS, "checkpoint": goal})
    assert refused(raw, "azure-ndv5") == (
        "gpufabric:storage.checkpoint: {'sizeGiB': 2048, 'writeSeconds': 20.0} is not valid; "
        "a 2,048 GiB checkpoint in 20 s needs 110.0 GB/s; Azure Managed Lustre reaches at most "
        f"64.0 GB/s {SELF_SERVICE}"
    )
    reads = {"sizeGiB": 10, "writeSeconds": 1000, "readGBps": 20000}
    raw = stack("gcp-a3-mega", nodes=4096, storage={**LUSTRE, "checkpoint": reads})
    assert refused(raw, "gcp-a3-mega") == (
        "gpufabric:storage.checkpoint: {'sizeGiB': 10, 'writeSeconds': 1000.0, "
        "'readGBps': 20000.0} is not valid; a 10 GiB checkpoint in 1000 s and 20000 GB/s of "
        "reads needs 20000.0 GB/s; Google Cloud Managed Lustre reaches at most 9773.4 GB/s "
        f"{SELF_SERVICE}"
    )


def test_without_a_goal_the_config_is_unchanged_and_current_reads_it() -> None:
    given = {"type": "fsx-lustre", "capacityGib": 9600, "throughputPerTib": 500, "efa": True}
    cfg = parse(stack("aws-h100", storage=given), "aws-h100")
    assert with_storage_goal(cfg) is cfg
    now = current(cfg.storage)
    assert (now.variant, now.tier, now.capacity) == ("efa", 500, 9600)
    assert (now.goal.size_gib, now.goal.write_seconds, now.goal.read_gbps) == (0, 1, None)
    assert now.service.name == "fsx-lustre" or now.service.unit == "GiB"


def test_goal_sizing_keeps_the_fabric_variant_it_chose() -> None:
    fsx = storage("aws-h100", stack("aws-h100", nodes=2, storage=FSX))
    now = current(fsx)
    assert (now.variant, now.tier, now.capacity, fsx.efa) == ("efa", 1000, 38400, True)
    assert now.goal.needed_gbps == pytest.approx(36.65, abs=0.01)
    tcp = current(storage("aws-h100", stack("aws-h100", storage=FSX)))
    assert (tcp.variant, tcp.capacity) == ("tcp", 38400)


def test_fabric_that_just_reaches_the_goal_is_offered() -> None:
    """200 GB/s of reads on 2 x p5: TCP reaches 25.0, EFA exactly 200.0 - enough."""
    reads = {"sizeGiB": 2048, "writeSeconds": 600, "readGBps": 200}
    assert _fsx(2, efa=False, checkpoint=reads) == (
        "gpufabric:storage.efa: False is not valid; a 2,048 GiB checkpoint in 600 s and 200 GB/s "
        f"of reads needs 200.0 GB/s but {TCP_2}; EFA-enabled FSx would reach 200.0 GB/s: "
        "set efa true or unset it"
    )
    fsx = storage("aws-h100", stack("aws-h100", nodes=2, storage={**FSX, "checkpoint": reads}))
    assert fsx.efa is True


def test_given_capacity_off_the_fabric_variants_steps_lists_that_variants_sizes() -> None:
    """2,400 GiB is a TCP size but not an EFA-enabled one (4,800 GiB steps at 1000 MB/s/TiB)."""
    assert _fsx(efa=True, capacityGib=2400) == (
        "gpufabric:storage.capacityGib: 2400 is not valid; not a FSx for Lustre PERSISTENT_2 "
        "size: 4,800 GiB or more in steps of 4,800; 38,400 GiB would do"
    )


def test_given_capacity_where_no_size_would_do_gives_no_hint() -> None:
    goal = {"sizeGiB": 2048, "writeSeconds": 20}  # 110 GB/s; the largest size rates 64
    raw = stack("azure-ndv5", storage={**AMLFS, "capacityTib": 128, "checkpoint": goal})
    assert refused(raw, "azure-ndv5") == (
        "gpufabric:storage.capacityTib: 128 is not valid; a 2,048 GiB checkpoint in 20 s needs "
        "110.0 GB/s, but 128 TiB rates at most 64.0 GB/s"
    )


def test_tcp_that_just_reaches_the_goal_is_kept() -> None:
    """25 GB/s of reads on 2 x p5: the two ENA paths reach exactly 25.0 - enough, no EFA."""
    reads = {"sizeGiB": 2048, "writeSeconds": 600, "readGBps": 25}
    fsx = storage("aws-h100", stack("aws-h100", nodes=2, storage={**FSX, "checkpoint": reads}))
    assert (fsx.efa, fsx.capacity_gib, fsx.throughput_per_tib) == (False, 26400, 1000)


def test_a_goal_on_a_type_without_a_table_is_refused_with_the_types_own_line() -> None:
    store = {"type": "parallelstore", "capacityGib": 12000, "checkpoint": GOAL}
    raw = stack("gcp-a3-mega", storage=store, network={"storageSubnet": "10.0.32.0/24"})
    assert refused(raw, "gcp-a3-mega") == (
        "gpufabric:storage.checkpoint: {'sizeGiB': 2048, 'writeSeconds': 60.0} is not valid; "
        "a checkpoint goal sizes Managed Lustre; parallelstore has no throughput table here "
        "(use type managed-lustre, or drop the goal and size it yourself)"
    )


def test_a_goal_on_another_clouds_storage_type_leaves_the_type_to_the_cloud_rules() -> None:
    assert refused(stack("aws-h100", storage=LUSTRE), "aws-h100") == (
        "gpufabric:storage.type: 'managed-lustre' is not valid; on AWS use fsx-lustre or none"
    )
    assert refused(stack("gcp-a3-mega", storage=FSX), "gcp-a3-mega") == (
        "gpufabric:storage.type: 'fsx-lustre' is not valid; on GCP use managed-lustre, "
        "parallelstore, filestore or none"
    )


def test_current_needs_a_sized_storage_model() -> None:
    store = {"type": "parallelstore", "capacityGib": 12000}
    raw = stack("gcp-a3-mega", storage=store, network={"storageSubnet": "10.0.64.0/24"})
    parallelstore = storage("gcp-a3-mega", raw)
    with pytest.raises(AssertionError, match="ParallelstoreConfig"):
        current(parallelstore)


def test_a_stack_without_a_file_system_is_left_as_it_is() -> None:
    cfg = parse(stack("aws-h100", storage={"type": "none"}), "aws-h100")
    assert type(cfg.storage).__name__ == "NoStorage"
    assert with_storage_goal(cfg) is cfg
