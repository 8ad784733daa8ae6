"""Azure: a stack's scale-set VMs (their NICs' private addresses) and power state.

Linkage: each scale-set VM's NIC names its VM, `virtualMachine.id` =
`/subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/NAME/
virtualMachines/N`; Azure resource ids compare case-insensitively. Host name: the VM's name in a
Uniform scale set, `NAME_N`; address: the primary NIC's primary IP configuration. The
InfiniBand partition is the scale set's (outputs `nodes.groups[].partition`).

The Azure CLI has printed the address key two ways over its versions: `privateIpAddress`
(commands built on the Python SDK models) and `privateIPAddress` (the REST name, kept by the
newer generated network commands); both are read. `az vmss nic list` says nothing of power
state: offline, a NIC with an address counts; live, VMs not `PowerState/running` are left out.

`Azure` is the project's one Azure client (azure-mgmt-compute + azure-mgmt-network, credentials
from azure-identity's DefaultAzureCredential).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from gpufabric.discovery import Found, Node
from gpufabric.errors import UserError
from gpufabric.extras import require
from gpufabric.stack_outputs import StackOutputs

_VM_ID = re.compile(
    r"/resourceGroups/(?P<rg>[^/]+)/providers/Microsoft\.Compute/"
    r"virtualMachineScaleSets/(?P<vmss>[^/]+)/virtualMachines/(?P<n>[^/]+)$",
    re.IGNORECASE,
)
ADDRESS_KEYS = ("privateIPAddress", "privateIpAddress")


class Azure:
    """Compute and network management clients for one subscription; errors are one line."""

    def __init__(self, subscription: str = "", compute: Any = None, network: Any = None) -> None:
        if compute is None or network is None:
            subscription = (
                subscription
                or os.environ.get("AZURE_SUBSCRIPTION_ID")
                or os.environ.get("ARM_SUBSCRIPTION_ID", "")
            )
            if not subscription:
                raise UserError(
                    "azure discovery: set AZURE_SUBSCRIPTION_ID (the subscription "
                    "holding the stack; ARM_SUBSCRIPTION_ID is read too)"
                )
            for module in ("azure.identity", "azure.mgmt.compute", "azure.mgmt.network"):
                require(module, "Azure node discovery")
            from azure.identity import DefaultAzureCredential
            from azure.mgmt.compute import ComputeManagementClient
            from azure.mgmt.network import NetworkManagementClient

            credential = DefaultAzureCredential()
            compute = compute or ComputeManagementClient(credential, subscription)
            network = network or NetworkManagementClient(credential, subscription)
        self.compute, self.network = compute, network

    def _call(self, what: str, fn: Any) -> list[Any]:
        from azure.core.exceptions import AzureError

        try:
            return list(fn())  # the ItemPaged iterators fetch every page
        except AzureError as exc:
            raise UserError(f"azure {what}: {str(exc).splitlines()[0]}") from None

    def scale_set_nics(self, group: str, scale_set: str) -> list[dict[str, Any]]:
        """The scale set's NICs in the shape `az vmss nic list` prints (the keys read here)."""
        nics = self._call(
            f"vmss nic list {scale_set}",
            lambda: (
                self.network.network_interfaces.list_virtual_machine_scale_set_network_interfaces(
                    group, scale_set
                )
            ),
        )
        return [
            {
                "name": nic.name,
                "primary": nic.primary,
                "virtualMachine": {"id": nic.virtual_machine.id if nic.virtual_machine else ""},
                "ipConfigurations": [
                    {
                        "primary": c.primary,
                        "privateIPAddress": c.private_ip_address,
                        "subnet": {"id": c.subnet.id if c.subnet else ""},
                    }
                    for c in nic.ip_configurations or []
                ],
            }
            for nic in nics
        ]

    def running_vms(self, group: str, scale_set: str) -> set[str]:
        """Names of the scale set's VMs whose power state is running."""
        vms = self._call(
            f"vmss list-instances {scale_set}",
            lambda: self.compute.virtual_machine_scale_set_vms.list(
                group, scale_set, expand="instanceView"
            ),
        )
        return {
            vm.name
            for vm in vms
            if vm.instance_view
            and any(s.code == "PowerState/running" for s in vm.instance_view.statuses or [])
        }


def _primary(items: Sequence[Any]) -> Mapping[str, Any]:
    dicts = [i for i in items if isinstance(i, dict)]
    return next((i for i in dicts if i.get("primary")), dicts[0] if dicts else {})


def nics(doc: Any, origin: str) -> Iterator[dict[str, Any]]:
    for nic in doc:
        if not isinstance(nic, dict) or not isinstance(nic.get("ipConfigurations"), list):
            raise UserError(f"{origin}: a NIC has no 'ipConfigurations' list")
        yield nic


def match(
    outputs: StackOutputs,
    docs: Sequence[tuple[str, Any]],
    running: Mapping[str, set[str]] | None = None,
) -> Found:
    """The stack's nodes among NIC listings; `running` (live): scale set -> running VM names."""
    found = Found()
    rg = (outputs.cluster.resource_group or "").lower()
    groups = {g.name.lower(): g for g in outputs.nodes.groups if g.kind == "scale-set"}
    # the stack's subnets from its outputs (offline plans hold placeholders: no check)
    raw = outputs.network.get("subnets")
    subnets = (
        {str(s).lower() for s in raw.values() if str(s).lower().startswith("/subscriptions/")}
        if isinstance(raw, dict)
        else set()
    )
    by_vm: dict[str, list[dict[str, Any]]] = {}
    for origin, doc in docs:
        for nic in nics(doc, origin):
            m = _VM_ID.search(str((nic.get("virtualMachine") or {}).get("id", "")))
            if m and m["rg"].lower() == rg and m["vmss"].lower() in groups:
                by_vm.setdefault(f"{groups[m['vmss'].lower()].name}_{m['n']}", []).append(nic)
    for name, vm_nics in by_vm.items():
        group = groups[name.rsplit("_", 1)[0].lower()]
        config = _primary(_primary(vm_nics).get("ipConfigurations") or [])
        address = next((str(config[k]) for k in ADDRESS_KEYS if config.get(k)), "")
        subnet = str((config.get("subnet") or {}).get("id", ""))
        if subnets and subnet.lower() not in subnets:
            found.warnings.append(
                f"{name} ({group.name}): in subnet {subnet or '(none)'}, not one of the "
                "stack's; left out"
            )
        elif running is not None and name not in running.get(group.name, set()):
            found.warnings.append(f"{name} ({group.name}): not running; left out")
        elif not address:
            found.warnings.append(f"{name} ({group.name}): no private address; left out")
        else:
            found.add(Node(name=name, address=address, group=group.name, partition=group.partition))
    return found


def recognise(data: Any) -> str | None:
    """'azure' for `az vmss nic list` (a list of NICs with their IP configurations)."""
    first = data[0] if isinstance(data, list) and data else None
    if isinstance(first, dict) and "ipConfigurations" in first:
        return "azure"
    return None


def from_docs(outputs: StackOutputs, docs: Sequence[tuple[Path, str, Any]]) -> Found:
    return match(outputs, [(f"discovery file {p}", doc) for p, _kind, doc in docs])


def live(outputs: StackOutputs, client: Any = None, *, topology: bool = True) -> Found:
    del topology  # Azure exposes no switch topology; the partition is the scale set's
    rg = outputs.cluster.resource_group
    if not rg:
        raise UserError("stack outputs: cluster.resourceGroup: not set; azure discovery needs it")
    azure = client if isinstance(client, Azure) else Azure()
    sets = [g.name for g in outputs.nodes.groups if g.kind == "scale-set"]
    docs = [(f"azure {s}", azure.scale_set_nics(rg, s)) for s in sets]
    return match(outputs, docs, {s: azure.running_vms(rg, s) for s in sets})
