"""Azure node discovery: which scale-set VMs are the stack's (resource group, scale set,
subnet, power state), which address each gets, what each left-out VM's warning says, the
one-line refusals, and the clients it builds (live answers are the SDK's own models)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute.models import (
    InstanceViewStatus,
    VirtualMachineScaleSetVM,
    VirtualMachineScaleSetVMInstanceView,
)
from azure.mgmt.network.models import (
    NetworkInterface,
    NetworkInterfaceIPConfiguration,
    Subnet,
    SubResource,
)
from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.clouds.azure import discovery as azure
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs, parse

SUB = cli_json.SUBSCRIPTION


def _outputs(**network: Any) -> tuple[StackOutputs, str, str]:
    out = parse(plan_for("azure-ndv5").outputs)
    if network:
        out = out.model_copy(update={"network": {**out.network, **network}})
    return out, out.cluster.resource_group or "", out.nodes.groups[0].name


def _subnet(rg: str, name: str = "compute") -> str:
    return (
        f"/subscriptions/{SUB}/resourceGroups/{rg}/providers/Microsoft.Network/"
        f"virtualNetworks/v/subnets/{name}"
    )


# ------------------------------------------------------------------------------ offline
def test_each_left_out_vm_says_why_and_the_rest_are_kept() -> None:
    out, rg, vmss = _outputs()
    other_rg = cli_json.azure_nic("other-rg", vmss, 0, "10.0.0.4")
    other_set = cli_json.azure_nic(rg, "other-set", 1, "10.0.0.5")
    no_vm = cli_json.azure_nic(rg, vmss, 2, "10.0.0.6")
    no_vm["virtualMachine"] = None
    no_address = cli_json.azure_nic(rg, vmss, 3, "")
    kept = cli_json.azure_nic(rg, vmss, 4, "10.0.0.8")
    found = azure.match(out, [("f", [other_rg, other_set, no_vm, no_address, kept])])
    assert found.warnings == [f"{vmss}_3 ({vmss}): no private address; left out"]
    assert [(n.name, n.address, n.group, n.partition) for n in found.nodes] == [
        (f"{vmss}_4", "10.0.0.8", vmss, 0)
    ]


def test_the_primary_nic_and_its_primary_configuration_give_the_address() -> None:
    out, rg, vmss = _outputs()
    second = cli_json.azure_nic(rg, vmss, 0, "10.0.1.4")
    second["primary"] = False
    first = cli_json.azure_nic(rg, vmss, 0, "10.0.0.4")
    config = first["ipConfigurations"][0]
    first["ipConfigurations"] = [
        "junk",
        {**config, "primary": False, "privateIPAddress": "10.0.2.4"},
        config,
    ]
    found = azure.match(out, [("f", [second, first])])
    assert [n.address for n in found.nodes] == ["10.0.0.4"]


def test_without_a_primary_the_first_nic_and_configuration_count() -> None:
    out, rg, vmss = _outputs()
    one = cli_json.azure_nic(rg, vmss, 0, "10.0.0.4")
    one["primary"] = False
    config = one["ipConfigurations"][0]
    one["ipConfigurations"] = [
        {**config, "primary": False},
        {**config, "primary": False, "privateIPAddress": "10.0.2.4"},
    ]
    two = {**one, "ipConfigurations": [{**config, "privateIPAddress": "10.0.3.4"}]}
    found = azure.match(out, [("f", [one, two])])
    assert [n.address for n in found.nodes] == ["10.0.0.4"]


def test_a_nic_with_no_configuration_object_has_no_address() -> None:
    out, rg, vmss = _outputs()
    nic = cli_json.azure_nic(rg, vmss, 0, "10.0.0.4")
    nic["ipConfigurations"] = ["junk"]
    found = azure.match(out, [("f", [nic])])
    assert found.nodes == []
    assert found.warnings == [f"{vmss}_0 ({vmss}): no private address; left out"]


def test_a_vm_outside_the_stack_subnets_is_named_with_its_subnet() -> None:
    out, rg, vmss = _outputs(subnets={"compute": _subnet("azure-ndv5-rg"), "other": "<x.id>"})
    elsewhere = cli_json.azure_nic(rg, vmss, 0, "10.0.0.4")
    elsewhere["ipConfigurations"][0]["subnet"]["id"] = _subnet(rg, "other")
    nowhere = cli_json.azure_nic(rg, vmss, 1, "10.0.0.5")
    del nowhere["ipConfigurations"][0]["subnet"]
    kept = cli_json.azure_nic(rg, vmss, 2, "10.0.0.6")
    kept["ipConfigurations"][0]["subnet"]["id"] = _subnet(rg)
    found = azure.match(out, [("f", [elsewhere, nowhere, kept])])
    assert found.warnings == [
        f"{vmss}_0 ({vmss}): in subnet {_subnet(rg, 'other')}, not one of the stack's; left out",
        f"{vmss}_1 ({vmss}): in subnet (none), not one of the stack's; left out",
    ]
    assert [n.name for n in found.nodes] == [f"{vmss}_2"]


def test_outputs_without_subnet_ids_check_no_subnet() -> None:
    for subnets in ("compute", {"compute": "<azure-ndv5-compute.id>"}):
        out, rg, vmss = _outputs(subnets=subnets)
        nic = cli_json.azure_nic(rg, vmss, 0, "10.0.0.4")
        assert [n.name for n in azure.match(out, [("f", [nic])]).nodes] == [f"{vmss}_0"]


@pytest.mark.parametrize("entry", [1, {"name": "nic"}, {"ipConfigurations": {}}])
def test_a_nic_without_configurations_is_refused(tmp_path: Path, entry: Any) -> None:
    out, rg, vmss = _outputs()
    path = tmp_path / "nics.json"
    path.write_text(json.dumps([cli_json.azure_nic(rg, vmss, 0, "10.0.0.4"), entry]))
    with pytest.raises(UserError) as err:
        discovery.from_files(out, [path])
    assert str(err.value) == f"discovery file {path}: a NIC has no 'ipConfigurations' list"


def test_recognise_only_nic_listings() -> None:
    assert azure.recognise([{"ipConfigurations": []}]) == "azure"
    for other in ([], [1], [{"name": "x"}], {"ipConfigurations": []}, None):
        assert azure.recognise(other) is None


# ------------------------------------------------------------------------------ live
def _nic(rg: str, vmss: str, i: int, subnet: str) -> NetworkInterface:
    # the SDK's __init__ overloads do not type-check with keywords: pyright ignores below
    nic = NetworkInterface(  # pyright: ignore[reportCallIssue]
        primary=True,
        ip_configurations=[
            NetworkInterfaceIPConfiguration(  # pyright: ignore[reportCallIssue]
                primary=True, private_ip_address=f"10.0.0.{i}", subnet=Subnet(id=subnet)
            )
        ],
    )
    nic.name = f"{vmss}-nic"  # read-only on the model: set as the service would
    nic.virtual_machine = SubResource(
        id=f"/subscriptions/{SUB}/resourceGroups/{rg}/providers/Microsoft.Compute/"
        f"virtualMachineScaleSets/{vmss}/virtualMachines/{i}"
    )
    return nic


def _vm(name: str, *codes: str, view: bool = True) -> VirtualMachineScaleSetVM:
    statuses = [InstanceViewStatus(code=c) for c in codes]
    vm = VirtualMachineScaleSetVM(  # pyright: ignore[reportCallIssue]
        location="eastus",
        instance_view=VirtualMachineScaleSetVMInstanceView(statuses=statuses) if view else None,
    )
    vm.name = name
    return vm


class _Network:
    def __init__(self, nics: list[Any], error: Exception | None = None) -> None:
        self.network_interfaces = self
        self.nics, self.error, self.calls = nics, error, []

    def list_virtual_machine_scale_set_network_interfaces(self, g: str, s: str) -> list[Any]:
        self.calls.append((g, s))
        if self.error:
            raise self.error
        return self.nics


class _Compute:
    def __init__(self, vms: list[Any], error: Exception | None = None) -> None:
        self.virtual_machine_scale_set_vms = self
        self.vms, self.error, self.calls = vms, error, []

    def list(self, g: str, s: str, expand: str) -> list[Any]:
        self.calls.append((g, s, expand))
        if self.error:
            raise self.error
        return self.vms


def test_live_vms_in_the_stack_subnet_are_found() -> None:
    """After a deploy the outputs hold the real subnet ids: the SDK's NICs carry theirs."""
    out, rg, vmss = _outputs(subnets={"compute": _subnet(rg="azure-ndv5-rg")})
    network = _Network([_nic(rg, vmss, 4, _subnet(rg)), _nic(rg, vmss, 5, _subnet(rg, "x"))])
    compute = _Compute(
        [
            _vm(f"{vmss}_4", "ProvisioningState/succeeded", "PowerState/running"),
            _vm(f"{vmss}_5", "PowerState/running"),
        ]
    )
    found = discovery.live(out, azure.Azure(compute=compute, network=network))
    assert [(n.name, n.address) for n in found.nodes] == [(f"{vmss}_4", "10.0.0.4")]
    assert found.warnings == [
        f"{vmss}_5 ({vmss}): in subnet {_subnet(rg, 'x')}, not one of the stack's; left out"
    ]
    assert network.calls == [(rg, vmss)] and compute.calls == [(rg, vmss, "instanceView")]


def test_live_vms_without_an_instance_view_or_running_state_are_left_out() -> None:
    out, rg, vmss = _outputs()
    network = _Network([_nic(rg, vmss, i, _subnet(rg)) for i in range(3)])
    compute = _Compute(
        [
            _vm(f"{vmss}_0", "PowerState/running"),
            _vm(f"{vmss}_1", "PowerState/running", view=False),
            _vm(f"{vmss}_2", "PowerState/stopped"),
        ]
    )
    found = discovery.live(out, azure.Azure(compute=compute, network=network))
    assert [n.name for n in found.nodes] == [f"{vmss}_0"]
    assert found.warnings == [
        f"{vmss}_1 ({vmss}): not running; left out",
        f"{vmss}_2 ({vmss}): not running; left out",
    ]


def test_live_nics_without_a_vm_or_configurations_read_as_empty() -> None:
    _out, rg, vmss = _outputs()
    bare = NetworkInterface()
    nics = azure.Azure(compute=_Compute([]), network=_Network([bare])).scale_set_nics(rg, vmss)
    assert nics == [
        {"name": None, "primary": None, "virtualMachine": {"id": ""}, "ipConfigurations": []}
    ]


@pytest.mark.parametrize("side", ["network", "compute"])
def test_an_azure_error_is_its_first_line(side: str) -> None:
    out, _rg, vmss = _outputs()
    error = HttpResponseError(message="denied\nmore")
    api = azure.Azure(
        compute=_Compute([], error if side == "compute" else None),
        network=_Network([], error if side == "network" else None),
    )
    with pytest.raises(UserError) as err:
        discovery.live(out, api)
    what = "vmss nic list" if side == "network" else "vmss list-instances"
    assert str(err.value) == f"azure {what} {vmss}: denied"


def test_scale_set_names_may_hold_underscores() -> None:
    """Azure allows '_' in a scale set's name; the VM is NAME_N, split at the last '_'."""
    out, rg, _vmss = _outputs()
    group = out.nodes.groups[0].model_copy(update={"name": "gpu_set_a"})
    out = out.model_copy(update={"nodes": out.nodes.model_copy(update={"groups": [group]})})
    found = azure.match(out, [("f", [cli_json.azure_nic(rg, "gpu_set_a", 3, "10.0.0.4")])])
    assert [(n.name, n.group) for n in found.nodes] == [("gpu_set_a_3", "gpu_set_a")]


def test_live_builds_its_clients_with_one_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    import azure.identity as identity
    import azure.mgmt.compute as mgmt_compute
    import azure.mgmt.network as mgmt_network

    out, rg, vmss = _outputs()
    credential = object()
    made: list[tuple[str, object, str]] = []
    network = _Network([_nic(rg, vmss, 4, _subnet(rg))])
    compute = _Compute([_vm(f"{vmss}_4", "PowerState/running")])

    def client(kind: str, fake: Any) -> Any:
        return lambda cred, sub: made.append((kind, cred, sub)) or fake

    monkeypatch.setattr(identity, "DefaultAzureCredential", lambda: credential)
    monkeypatch.setattr(mgmt_compute, "ComputeManagementClient", client("c", compute))
    monkeypatch.setattr(mgmt_network, "NetworkManagementClient", client("n", network))
    monkeypatch.setenv("AZURE_SUBSCRIPTION_ID", SUB)
    found = discovery.live(out)
    assert [n.name for n in found.nodes] == [f"{vmss}_4"]
    assert made == [("c", credential, SUB), ("n", credential, SUB)]


def test_live_needs_the_resource_group() -> None:
    out, _rg, _vmss = _outputs()
    cluster = out.cluster.model_copy(update={"resource_group": None})
    with pytest.raises(UserError) as err:
        discovery.live(
            out.model_copy(update={"cluster": cluster}),
            azure.Azure("s", _Compute([]), _Network([])),
        )
    assert str(err.value) == (
        "stack outputs: cluster.resourceGroup: not set; azure discovery needs it"
    )


def test_without_a_subscription_the_variable_to_set_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AZURE_SUBSCRIPTION_ID", raising=False)
    monkeypatch.delenv("ARM_SUBSCRIPTION_ID", raising=False)
    with pytest.raises(UserError) as err:
        azure.Azure()
    assert str(err.value) == (
        "azure discovery: set AZURE_SUBSCRIPTION_ID (the subscription holding the stack; "
        "ARM_SUBSCRIPTION_ID is read too)"
    )


@pytest.mark.parametrize("variable", ["AZURE_SUBSCRIPTION_ID", "ARM_SUBSCRIPTION_ID"])
def test_the_clients_are_built_for_the_subscription(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.delenv("AZURE_SUBSCRIPTION_ID", raising=False)
    monkeypatch.delenv("ARM_SUBSCRIPTION_ID", raising=False)
    monkeypatch.setenv(variable, SUB)
    api = azure.Azure()
    assert api.compute._config.subscription_id == SUB
    assert api.network._config.subscription_id == SUB
    mine = _Compute([])
    assert azure.Azure("s2", compute=mine).compute is mine
    assert azure.Azure("s2", compute=mine).network._config.subscription_id == "s2"


def test_without_the_azure_sdk_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import gpufabric.extras

    monkeypatch.setattr(gpufabric.extras, "find_spec", lambda _name: None)
    with pytest.raises(UserError) as err:
        azure.Azure("s")
    assert str(err.value) == (
        "Azure node discovery needs the azure extra (azure.identity is not installed): "
        "pip install 'gpufabric[azure]'"
    )


def _config(**kw: Any) -> NetworkInterfaceIPConfiguration:
    return NetworkInterfaceIPConfiguration(**kw)  # pyright: ignore[reportCallIssue]


def test_live_configurations_keep_which_is_primary_and_a_missing_subnet() -> None:
    out, rg, vmss = _outputs(subnets={"compute": _subnet("azure-ndv5-rg")})
    nic = _nic(rg, vmss, 4, _subnet(rg))
    secondary = _config(primary=False, private_ip_address="10.0.9.4")
    nic.ip_configurations = [secondary, *(nic.ip_configurations or [])]
    bare = _nic(rg, vmss, 5, _subnet(rg))
    bare.ip_configurations = [_config(primary=True, private_ip_address="10.0.0.5")]
    running = [_vm(f"{vmss}_{i}", "PowerState/running") for i in (4, 5)]
    found = discovery.live(
        out, azure.Azure(compute=_Compute(running), network=_Network([nic, bare]))
    )
    assert [(n.name, n.address) for n in found.nodes] == [(f"{vmss}_4", "10.0.0.4")]
    assert found.warnings == [
        f"{vmss}_5 ({vmss}): in subnet (none), not one of the stack's; left out"
    ]
