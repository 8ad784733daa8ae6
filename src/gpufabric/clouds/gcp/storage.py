"""Co-located storage on GCP: Managed Lustre, Parallelstore or Filestore in the nodes' zone.

All three sit in a Google-managed network peered to the host VPC through private service
access (network.py); each instance waits for that peering.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi

from gpufabric.clouds.gcp.network import GcpNetwork
from gpufabric.clouds.gcp.settings import (
    FilestoreConfig,
    GcpStackConfig,
    ManagedLustreConfig,
    ParallelstoreConfig,
)
from gpufabric.inputs.writers import shell_words

StorageOutput = pulumi.Output[dict[str, Any] | None]
SQUASH_ID = 65534  # root on a client becomes nobody / nogroup on the file system
NFS_OPTIONS = "hard,timeo=600,retrans=3,rsize=1048576,wsize=1048576,resvport"


def build_storage(
    cfg: GcpStackConfig, net: GcpNetwork, labels: dict[str, str], parent: pulumi.Resource
) -> StorageOutput:
    storage = cfg.storage
    if net.psa is None:
        return pulumi.Output.from_input(None)
    opts = pulumi.ResourceOptions(parent=parent, depends_on=[net.psa])
    if isinstance(storage, ManagedLustreConfig):
        return _lustre(cfg, storage, net, labels, opts)
    if isinstance(storage, ParallelstoreConfig):
        return _parallelstore(cfg, storage, net, labels, opts)
    if isinstance(storage, FilestoreConfig):
        return _filestore(cfg, storage, net, labels, opts)
    raise ValueError(f"GcpClusterArgs.config.storage: {storage.type} is not a GCP storage type")


def _root_squash(lustre: ManagedLustreConfig) -> Any:
    """accessRulesOptions: root squashed to 65534 unless the stack opts out (the service's
    default squash UID/GID is 0, which squashes nothing: both are set); the exempt ranges as
    one NO_SQUASH rule (pulumi-gcp 10.2 lustre InstanceAccessRulesOptions)."""
    import pulumi_gcp.lustre as gcp_lustre

    if not lustre.root_squash:
        return None
    rules = (
        [
            gcp_lustre.InstanceAccessRulesOptionsAccessRuleArgs(
                name="admin",
                ip_address_ranges=list(lustre.no_squash_ranges),
                squash_mode="NO_SQUASH",
            )
        ]
        if lustre.no_squash_ranges
        else None
    )
    return gcp_lustre.InstanceAccessRulesOptionsArgs(
        default_squash_mode="ROOT_SQUASH",
        default_squash_uid=SQUASH_ID,
        default_squash_gid=SQUASH_ID,
        access_rules=rules,
    )


def _lustre(
    cfg: GcpStackConfig,
    lustre: ManagedLustreConfig,
    net: GcpNetwork,
    labels: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> StorageOutput:
    import pulumi_gcp.lustre as gcp_lustre

    instance = gcp_lustre.Instance(
        f"{cfg.name}-lustre",
        instance_id=f"{cfg.name}-lustre",
        project=cfg.gcp.project,
        location=cfg.zone,
        filesystem=lustre.filesystem,
        capacity_gib=str(lustre.capacity_gib),
        per_unit_storage_throughput=str(lustre.per_unit_storage_throughput),  # a str in this SDK
        network=net.host.network.id,
        labels=labels,
        description=f"gpufabric {cfg.name}: Managed Lustre in {cfg.zone}",
        access_rules_options=_root_squash(lustre),
        opts=opts,
    )

    def describe(mount_point: str) -> dict[str, Any]:
        address = mount_point.split("@", 1)[0]
        return {
            "type": "managed-lustre",
            "dnsName": address,
            "mountName": lustre.filesystem,
            "mountPoint": lustre.mount_point,
            "zone": cfg.zone,
            "mountCommand": shell_words(
                ["mount", "-t", "lustre", mount_point, lustre.mount_point], "storage.mountCommand"
            ),
        }

    return instance.mount_point.apply(describe)


def _parallelstore(
    cfg: GcpStackConfig,
    store: ParallelstoreConfig,
    net: GcpNetwork,
    labels: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> StorageOutput:
    import pulumi_gcp.parallelstore as gcp_parallelstore

    instance = gcp_parallelstore.Instance(
        f"{cfg.name}-parallelstore",
        instance_id=f"{cfg.name}-parallelstore",
        project=cfg.gcp.project,
        location=cfg.zone,
        capacity_gib=str(store.capacity_gib),
        deployment_type=store.deployment_type,
        network=net.host.network.name,  # Parallelstore takes the network's name
        reserved_ip_range=net.psa_range_name,
        labels=labels,
        description=f"gpufabric {cfg.name}: Parallelstore in {cfg.zone}",
        opts=opts,
    )

    def describe(access_points: Sequence[str]) -> dict[str, Any]:
        return {
            "type": "parallelstore",
            "dnsName": ",".join(access_points),
            "mountName": "default-pool/default-container",
            "mountPoint": store.mount_point,
            "zone": cfg.zone,
            # daos_agent must list the access points first (the client role does that)
            "mountCommand": shell_words(
                [
                    *("dfuse", "-m", store.mount_point, "--pool", "default-pool"),
                    *("--container", "default-container", "--multi-user"),
                ],
                "storage.mountCommand",
            ),
        }

    return instance.access_points.apply(describe)


def _filestore(
    cfg: GcpStackConfig,
    store: FilestoreConfig,
    net: GcpNetwork,
    labels: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> StorageOutput:
    import pulumi_gcp.filestore as gcp_filestore

    instance = gcp_filestore.Instance(
        f"{cfg.name}-filestore",
        name=f"{cfg.name}-filestore",
        project=cfg.gcp.project,
        location=cfg.zone,
        tier=store.tier,
        file_shares=gcp_filestore.InstanceFileSharesArgs(
            name=store.share_name, capacity_gb=store.capacity_gib
        ),
        networks=[
            gcp_filestore.InstanceNetworkArgs(
                network=net.host.network.name,
                modes=["MODE_IPV4"],
                connect_mode="PRIVATE_SERVICE_ACCESS",
                reserved_ip_range=net.psa_range_name,
            )
        ],
        labels=labels,
        description=f"gpufabric {cfg.name}: Filestore {store.tier} in {cfg.zone}",
        opts=opts,
    )

    def describe(networks: Sequence[Any]) -> dict[str, Any]:
        address = (networks[0].ip_addresses or [""])[0] if networks else ""
        return {
            "type": "filestore",
            "dnsName": address,
            "mountName": store.share_name,
            "mountPoint": store.mount_point,
            "zone": cfg.zone,
            "mountCommand": shell_words(
                [
                    *("mount", "-t", "nfs", "-o", NFS_OPTIONS),
                    f"{address}:/{store.share_name}",
                    store.mount_point,
                ],
                "storage.mountCommand",
            ),
        }

    return instance.networks.apply(describe)
