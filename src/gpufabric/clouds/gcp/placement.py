"""Where GCP nodes are placed: compact placement policies and reservations. Pure data (no Pulumi).

Rules, from Google's own Cluster Toolkit (GoogleCloudPlatform/cluster-toolkit@10470803,
community/modules/scheduler/schedmd-slurm-gcp-v6-controller/modules/slurm_files/scripts/
resume.py, `calculate_chunk_size` and `update_reservation_props`):
- One compact placement policy holds at most 22 VMs at maxDistance 1, 256 A3 VMs (150 of other
  families) at maxDistance 2, and 1,500 at maxDistance 3 or without maxDistance; the toolkit
  cuts larger node sets into several policies of that size.
- A dense reservation (what A3 Ultra and A4 capacity comes as) needs provisioning model
  RESERVATION_BOUND and may take an external compact policy; a plain reservation takes no
  external policy ("vanilla reservations don't support external policies"): its VMs are placed
  by the policy the reservation itself was created with, if any.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufabric.catalog import InstanceType
from gpufabric.clouds.gcp import facts

# maxDistance -> VMs per compact placement policy; key None = maxDistance not set. At 2 the
# machine type's own figure applies (catalog gcp.compact_vms_at_distance_2: A3 256, others 150).
COMPACT_POLICY_LIMIT: dict[int | None, int] = {1: 22, 2: 150, 3: 1500, None: 1500}
# Machine types whose reservations are dense (catalog gcp.dense_reservation): RESERVATION_BOUND,
# external compact policy allowed ([P] cluster-toolkit examples/machine-learning/
# a3-ultragpu-8g/a3ultra-vm.yaml and a4-highgpu-8g/a4high-vm.yaml: provisioning_model
# RESERVATION_BOUND with a reservation)
RESERVATION_BOUND = "RESERVATION_BOUND"
STANDARD = "STANDARD"


def compact_policy_limit(itype: InstanceType, max_distance: int | None) -> int:
    """The most VMs one compact placement policy holds for this machine type and distance."""
    if max_distance == 2:
        return facts.of(itype).compact_vms_at_distance_2
    return COMPACT_POLICY_LIMIT[max_distance]


def policy_sizes(nodes: int, limit: int) -> list[int]:
    """Full policies first, the rest in the last one (as the toolkit chunks node lists)."""
    if nodes < 1 or limit < 1:
        raise ValueError(f"nodes ({nodes}) and limit ({limit}) must be positive")
    full, rest = divmod(nodes, limit)
    return [limit] * full + ([rest] if rest else [])


def dense_reservation(itype: InstanceType) -> bool:
    return facts.of(itype).dense_reservation


def provisioning_model(itype: InstanceType, reservation_id: str | None) -> str:
    """RESERVATION_BOUND for VMs on a dense reservation, STANDARD otherwise."""
    return RESERVATION_BOUND if reservation_id and dense_reservation(itype) else STANDARD


@dataclass(frozen=True)
class CompactPlacement:
    """How `nodeGroup: instances` nodes are placed: `sizes` = VMs per policy to create
    (empty: no policy is created and the reservation's own placement applies)."""

    sizes: list[int]
    limit: int
    source: str  # "new-policies" | "reservation"


def compact_placement(
    itype: InstanceType, nodes: int, max_distance: int | None, reservation_id: str | None
) -> CompactPlacement:
    limit = compact_policy_limit(itype, max_distance)
    if reservation_id and not dense_reservation(itype):
        return CompactPlacement([], limit, "reservation")
    return CompactPlacement(policy_sizes(nodes, limit), limit, "new-policies")
