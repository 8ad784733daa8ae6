"""Azure fabric facts read back from a plan's recorded resources.

What the program registered, not the config: scale sets and their sizes (= InfiniBand
partitions), the proximity placement group, single placement group, NICs, storage subnet/zone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpufabric.inputs.types import digits

if TYPE_CHECKING:
    from gpufabric.plan.runner import Plan

Facts = list[tuple[str, str]]

VMSS = "azure-native:compute:VirtualMachineScaleSet"
PPG = "azure-native:compute:ProximityPlacementGroup"
SUBNET = "azure-native:network:Subnet"
NAT = "azure-native:network:NatGateway"
PUBLIC_IP = "azure-native:network:PublicIPAddress"
AMLFS = "azure-native:storagecache:AmlFilesystem"


def summarise(plan: Plan) -> Facts:
    cfg = plan.config
    facts: Facts = []
    sets = sorted(plan.of_type(VMSS), key=_partition)  # ib2 before ib10
    sizes = [s.inputs.get("sku", {}).get("capacity", 0) for s in sets]
    facts.append(
        (
            "InfiniBand partitions",
            f"{len(sets)} scale set{'s' if len(sets) != 1 else ''} = {len(sets)} InfiniBand "
            f"partition{'s' if len(sets) != 1 else ''} ({' + '.join(map(str, sizes))} VMs)"
            + ("; no InfiniBand between partitions" if len(sets) > 1 else ""),
        )
    )
    ppgs = {p.id: p for p in plan.of_type(PPG)}
    facts.append(
        (
            "Placement",
            ", ".join(f"new proximity placement group {p.name}" for p in ppgs.values())
            + f" holding {len(sets)} scale set{'s' if len(sets) != 1 else ''} (single "
            "placement group each; capacity on demand: reservations cannot hold ND-series)"
            if ppgs
            else "none",
        )
    )
    for vmss in sets:
        ppg = ppgs.get(vmss.inputs.get("proximityPlacementGroup", {}).get("id", ""))
        spg = "on" if vmss.inputs.get("singlePlacementGroup") is True else "OFF (no InfiniBand)"
        facts.append(
            (
                f"Scale set {vmss.name}",
                f"{vmss.inputs.get('sku', {}).get('capacity')} x {vmss.inputs.get('sku', {}).get('name')}, "
                f"{vmss.inputs.get('orchestrationMode')}, single placement group {spg}, "
                f"proximity placement group {ppg.name if ppg else 'NONE'}, "
                f"zone {','.join(vmss.inputs.get('zones', [])) or '-'}",
            )
        )
    if sets:
        facts.append(("Node NIC", _nic(sets[0].inputs)))
        image = sets[0].inputs.get("virtualMachineProfile", {}).get("storageProfile", {})
        ref = image.get("imageReference", {})
        facts.append(
            (
                "Image",
                ref.get("id")
                or ":".join(str(ref.get(k)) for k in ("publisher", "offer", "sku", "version")),
            )
        )
    cap = cfg.capacity
    facts.append(("Capacity", cap.type + (f" {cap.reservation_id}" if cap.reservation_id else "")))
    subnets = {s.id: s for s in plan.of_type(SUBNET)}
    facts.append(
        (
            "Subnets",
            ", ".join(
                f"{s.inputs.get('subnetName')} {s.inputs.get('addressPrefix')}"
                for s in subnets.values()
            ),
        )
    )
    nats, ips = plan.of_type(NAT), plan.of_type(PUBLIC_IP)
    facts.append(
        (
            "Egress",
            f"NAT gateway {nats[0].name} ({len(ips)} public IP, on the NAT only)"
            if nats
            else "none (no outbound path)",
        )
    )
    for fs in plan.of_type(AMLFS):
        facts.append(("Storage", _lustre(fs.inputs, subnets, cfg.zone)))
    facts.append(("Encryption in transit", cfg.encryption))
    return facts


def _partition(vmss: Any) -> tuple[int, str]:
    tag = str(vmss.inputs.get("tags", {}).get("gpufabric:ibPartition", ""))
    return (int(tag) if digits(tag) else -1, vmss.name)


def _nic(inputs: dict[str, Any]) -> str:
    profile = inputs.get("virtualMachineProfile", {}).get("networkProfile", {})
    nics = profile.get("networkInterfaceConfigurations", [])
    accelerated = all(n.get("enableAcceleratedNetworking") for n in nics)
    public = any(
        "publicIPAddressConfiguration" in ip for n in nics for ip in n.get("ipConfigurations", [])
    )
    return (
        f"{len(nics)} Ethernet NIC, accelerated networking {'on' if accelerated else 'OFF'}, "
        f"{'PUBLIC IP' if public else 'no public IP'}; InfiniBand HCAs come with the VM size"
    )


def _lustre(inputs: dict[str, Any], subnets: dict[str, Any], zone: str) -> str:
    subnet = subnets.get(inputs.get("filesystemSubnet", ""))
    role = subnet.inputs.get("subnetName") if subnet else "unknown"
    cidr = subnet.inputs.get("addressPrefix") if subnet else "?"
    zones = inputs.get("zones", [])
    same = "same zone as the nodes" if zones == [zone] else f"NOT in the nodes' zone {zone}"
    return (
        f"Azure Managed Lustre {inputs.get('sku', {}).get('name')}, "
        f"{inputs.get('storageCapacityTiB')} TiB; {role} subnet {cidr} in zone "
        f"{','.join(zones) or '-'} ({same})"
    )
