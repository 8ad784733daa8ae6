"""gpu-nodes-no-public-ip and imdsv2-required, on real plans of every cloud and mutated copies."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.policies import Resource, check_stack
from gpufabric.policies.nodes import IMDSV2, is_gpu_type

from .helpers import by_policy, mutate, stack

POLICY = "gpu-nodes-no-public-ip"
LT = "aws:ec2/launchTemplate:LaunchTemplate"


def _lt_public(props: dict[str, Any]) -> None:
    props["networkInterfaces"][0]["associatePublicIpAddress"] = "true"


def _gcp_public(props: dict[str, Any]) -> None:
    props["networkInterfaces"][0]["accessConfigs"] = [{"networkTier": "PREMIUM"}]


def _azure_public(props: dict[str, Any]) -> None:
    nics = props["virtualMachineProfile"]["networkProfile"]["networkInterfaceConfigurations"]
    nics[0]["ipConfigurations"][0]["publicIPAddressConfiguration"] = {"name": "pip"}


@pytest.mark.parametrize(
    ("name", "type_", "change", "resource"),
    [
        ("aws-h100", LT, _lt_public, "aws-h100-node"),
        ("gcp-a3-mega", "gcp:compute/instance:Instance", _gcp_public, "gcp-a3-mega-node-0000"),
        (
            "gcp-a3-ultra",
            "gcp:compute/instanceTemplate:InstanceTemplate",
            _gcp_public,
            "gcp-a3-ultra-node",
        ),
        (
            "azure-ndv5",
            "azure-native:compute:VirtualMachineScaleSet",
            _azure_public,
            "azure-ndv5-ib0",
        ),
    ],
)
def test_public_ip_on_a_gpu_node_is_a_violation(name, type_, change, resource) -> None:
    found = by_policy(check_stack(mutate(stack(name), type_, change)), POLICY)
    assert found, "public IP not caught"
    assert {v.resource for v in found} >= {f"{type_} {resource}"}


def test_subnet_mapping_public_ips_is_a_violation_unless_the_nic_refuses() -> None:
    subnet = "aws:ec2/subnet:Subnet"
    view = mutate(stack("aws-h100"), subnet, lambda p: p.update(mapPublicIpOnLaunch=True))
    assert by_policy(check_stack(view), POLICY) == []  # the primary NIC says false

    view = mutate(view, LT, lambda p: p["networkInterfaces"][0].pop("associatePublicIpAddress"))
    found = by_policy(check_stack(view), POLICY)
    assert [v.resource for v in found] == [f"{subnet} aws-h100-fabric"]
    assert "maps public IPs on launch" in found[0].reason


def test_elastic_ip_on_a_gpu_instance_is_a_violation() -> None:
    view = stack("aws-h100", "gpufabric:nodeGroup=instances", "gpufabric:nodes=2")
    assert by_policy(check_stack(view), POLICY) == []
    mutate(view, "aws:ec2/eip:Eip", lambda p: p.update(instance="<aws-h100-node-0001.id>"))
    found = by_policy(check_stack(view), POLICY)
    assert [v.reason for v in found] == ["attaches an Elastic IP to GPU node aws-h100-node-0001"]


def _imds(props: dict[str, Any]) -> list[str]:
    return list(IMDSV2.check(Resource(LT, "lt", "<lt.id>", props)))


def test_imdsv2_required_passes_on_the_real_template_and_fails_on_optional() -> None:
    template = next(r for r in stack("aws-h100").resources if r.type == LT)
    assert _imds(dict(template.props)) == []
    view = mutate(
        stack("aws-h100"), LT, lambda p: p["metadataOptions"].update(httpTokens="optional")
    )
    found = by_policy(check_stack(view), "imdsv2-required")
    assert [v.resource for v in found] == [f"{LT} aws-h100-node"]
    assert "'optional'" in found[0].reason


def test_imdsv2_missing_options_fail_and_a_disabled_endpoint_passes() -> None:
    assert _imds({}) != []
    assert _imds({"metadataOptions": {"httpEndpoint": "disabled"}}) == []
    instance = Resource("aws:ec2/instance:Instance", "i", "<i.id>", {"launchTemplate": {"id": "x"}})
    assert list(IMDSV2.check(instance)) == []  # its template carries the options
    assert list(IMDSV2.check(Resource("aws:ec2/instance:Instance", "i", "<i.id>", {}))) != []


@pytest.mark.parametrize(
    ("name", "gpu"),
    [
        ("p5.48xlarge", True),
        ("p6-b300.48xlarge", True),  # not in the catalog, still a GPU family
        ("zones/us-central1-a/machineTypes/a3-megagpu-8g", True),
        ("a4-highgpu-8g", True),
        ("Standard_ND96isr_H100_v5", True),
        ("m7i.large", False),
        ("n2-standard-8", False),
        ("Standard_D4s_v5", False),
        (None, False),
    ],
)
def test_gpu_types(name: object, gpu: bool) -> None:
    assert is_gpu_type(name) is gpu


def test_a_public_subnet_under_many_nodes_is_one_violation() -> None:
    view = stack("aws-h100", "gpufabric:nodeGroup=instances", "gpufabric:nodes=4")
    mutate(
        view,
        "aws:ec2/subnet:Subnet",
        lambda p: p.update(mapPublicIpOnLaunch=True),
        "aws-h100-fabric",
    )
    mutate(view, LT, lambda p: p["networkInterfaces"][0].pop("associatePublicIpAddress"))
    found = by_policy(check_stack(view), POLICY)
    assert [v.resource for v in found] == ["aws:ec2/subnet:Subnet aws-h100-fabric"]


def _lines(view) -> list[str]:  # type: ignore[no-untyped-def]
    return [v.line() for v in check_stack(view)]


def test_oci_public_ip_on_the_front_end_fails() -> None:
    view = mutate(
        stack("oci-h100"),
        "oci:Core/instanceConfiguration:InstanceConfiguration",
        lambda p: p["instanceDetails"]["launchDetails"]["createVnicDetails"].update(
            assignPublicIp=True
        ),
    )
    assert any("assignPublicIp" in line for line in _lines(view)), _lines(view)


def test_nebius_public_ip_fails() -> None:
    view = stack(
        "nebius-h100",
        'gpufabric:nebius={"projectId": "project-e00abc123", "infinibandFabric": "fabric-3", '
        '"sshPublicKey": "ssh-ed25519 AAAAC3Nza x", "publicIp": true}',
    )
    assert any("publicIpAddress" in line for line in _lines(view)), _lines(view)
