"""The shared readers of the offline policies at their edges: port spans and port words, what
counts as the internet and as wider than an admin range."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.policies import Resource, Stack, check_stack
from gpufabric.policies.ingress import port_words, span, wider_than_admin
from gpufabric.policies.network import _run, is_world
from gpufabric.policies.nodes import (
    IMDSV2,
    NO_PUBLIC_IP,
    gpu_nodes,
    gpu_templates,
    instance_type,
    is_gpu_type,
)
from gpufabric.policies.storage import ENCRYPTION_AT_REST, STORAGE_ZONE, node_zones

from .helpers import by_policy, mutate, stack

EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"


@pytest.mark.parametrize(
    ("low", "high", "ports"),
    [
        (None, None, None),
        (-1, -1, None),
        ("-1", "-1", None),
        (-1, None, None),
        (None, "-1", None),
        ("-1", None, None),
        (1, None, ((1, 1),)),
        (None, 1, ((1, 1),)),
        (22, 22, ((22, 22),)),
        ("1019", "1023", ((1019, 1023),)),
        (22, None, ((22, 22),)),
        (None, 22, ((22, 22),)),
        ("", 443, ((443, 443),)),
        (443, "", ((443, 443),)),
        (0, 65535, ((0, 65535),)),
    ],
)
def test_span(low: Any, high: Any, ports: object) -> None:
    assert span(low, high) == ports


@pytest.mark.parametrize(
    ("values", "ports"),
    [
        ([], None),
        (["*"], None),
        ([""], None),
        ([" * "], None),
        (["22", "*"], None),
        (["22"], ((22, 22),)),
        ([22], ((22, 22),)),
        ([" 22 "], ((22, 22),)),
        (["1019-1023"], ((1019, 1023),)),
        (["22", "8000-8100"], ((22, 22), (8000, 8100))),
    ],
)
def test_port_words(values: list[Any], ports: object) -> None:
    assert port_words(values) == ports


@pytest.mark.parametrize(
    ("source", "world"),
    [
        (" 0.0.0.0/0 ", True),
        ("ANY", True),
        (" any ", True),
        (" Internet ", True),
        ("0.0.0.0/7", True),
        ("10.0.0.0/8", False),
        ("1.2.3.4/1", True),  # host bits set: still the range, not a refusal
        ("2001::/15", True),
        ("2001::/16", False),
        ("", False),
        ("not-an-address", False),
        (0, False),
    ],
)
def test_is_world_edges(source: object, world: bool) -> None:
    assert is_world(source) is world


@pytest.mark.parametrize(
    ("source", "wider"),
    [
        (" 10.0.0.0/16 ", False),
        ("10.1.2.3/16", False),  # host bits set: the /16 it names
        ("10.0.0.0/15", True),
        ("10.0.0.7/32", False),
        ("2001:db8::1/48", False),
        ("2001:db8::/47", True),
        ("VirtualNetwork", True),
        ("", True),
    ],
)
def test_wider_than_admin_edges(source: str, wider: bool) -> None:
    assert wider_than_admin(source) is wider


@pytest.mark.parametrize(
    "type_",
    [
        "gcp:compute/instanceTemplate:InstanceTemplate",  # a cloud without either switch
        "azure-native:compute:VirtualMachineScaleSet",
        "random:index:RandomId",  # no cloud's resource at all
    ],
)
def test_no_switch_to_check_is_nothing_to_report(type_: str) -> None:
    assert list(ENCRYPTION_AT_REST.check(Resource(type_, "r", "", {}))) == []
    assert list(IMDSV2.check(Resource(type_, "r", "", {}))) == []
    # the same empty props on a cloud that has both switches are two findings
    assert list(ENCRYPTION_AT_REST.check(Resource("aws:ebs/volume:Volume", "r", "", {})))
    assert list(IMDSV2.check(Resource("aws:ec2/launchTemplate:LaunchTemplate", "r", "", {})))


def test_a_stack_check_runs_the_hook_of_each_cloud_that_has_it() -> None:
    view = mutate(
        stack("aws-h100"),
        EGRESS,
        lambda p: p.update(cidrIpv4="10.0.0.0/16"),
        "aws-h100-efa-out-self",
    )
    found = [(res.name, reason) for res, reason in _run("fabric_group_self_only")(view)]
    assert any(
        name == "aws-h100-efa-out-self" and "cidrIpv4 10.0.0.0/16" in reason
        for name, reason in found
    )
    assert found == [
        (v.resource.split(" ", 1)[1], v.reason)
        for v in by_policy(check_stack(view), "efa-security-group-self-only")
    ]
    assert list(_run("gpu_network_cluster_only")(view)) == []  # a hook this cloud lacks


INSTANCE = "aws:ec2/instance:Instance"
GROUP = "aws:autoscaling/group:Group"
TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
PUBLIC_NIC = {"networkInterfaces": [{"deviceIndex": 0, "associatePublicIpAddress": "true"}]}


def _fleet() -> Stack:
    """Nodes of every kind the node reader tells apart, after a resource of no cloud."""
    gpu_lt = {"instanceType": "p5.48xlarge", **PUBLIC_NIC}
    return Stack(
        [
            Resource("pulumi:providers:aws", "provider", "", {}),
            Resource(TEMPLATE, "gpu-lt", "lt-gpu", gpu_lt),
            Resource(TEMPLATE, "cpu-lt", "lt-cpu", {"instanceType": "m7i.large"}),
            Resource(INSTANCE, "own-gpu", "i-1", {"instanceType": "p5.48xlarge"}),
            Resource(INSTANCE, "from-lt", "i-2", {"launchTemplate": {"id": "lt-gpu"}}),
            Resource(  # its own type wins over its template's
                INSTANCE,
                "cpu-over-gpu-lt",
                "i-3",
                {"instanceType": "m7i.large", "launchTemplate": {"id": "lt-gpu"}},
            ),
            Resource(INSTANCE, "bare", "i-4", {}),
            Resource(GROUP, "gpu-group", "g-1", {"launchTemplate": {"id": "lt-gpu"}}),
            Resource(GROUP, "cpu-group", "g-2", {"launchTemplate": {"id": "lt-cpu"}}),
            Resource(GROUP, "no-template", "g-3", {}),
            Resource(
                TEMPLATE, "spare-gpu-lt", "lt-spare", {"instanceType": "p5.48xlarge", **PUBLIC_NIC}
            ),
        ],
        {},
    )


def test_gpu_nodes_by_their_own_type_or_their_template() -> None:
    found = [
        (n.resource.name, n.template.name if n.template else None) for n in gpu_nodes(_fleet())
    ]
    assert found == [("own-gpu", None), ("from-lt", "gpu-lt"), ("gpu-group", "gpu-lt")]
    assert [t.name for t in gpu_templates(_fleet())] == ["gpu-lt", "spare-gpu-lt"]
    assert instance_type(Resource("random:index:RandomId", "r", "", {})) is None
    assert instance_type(_fleet().resources[3]) == "p5.48xlarge"


def test_each_public_template_is_reported_once() -> None:
    # gpu-lt defines two nodes and is a GPU template itself: one finding; the spare template
    # launches nothing here and is still checked; no resource carries a URN
    found = [(res.name, reason) for res, reason in NO_PUBLIC_IP.check(_fleet())]
    assert [name for name, _ in found] == ["gpu-lt", "spare-gpu-lt"]
    assert all("asks for a public IP" in reason for _, reason in found)


@pytest.mark.parametrize(
    ("name", "gpu"),
    [
        ("shapes/BM.GPU.H100.8", True),  # a catalog name at the end of a URL, no family
        ("gpu-h100-sxm/8gpu-128vcpu-1600gb", True),  # a catalog name with a '/' in it
        ("8gpu-128vcpu-1600gb", False),
        ("", False),
        (5, False),
    ],
)
def test_gpu_types_beyond_the_families(name: object, gpu: bool) -> None:
    assert is_gpu_type(name) is gpu


SUBNET = "aws:ec2/subnet:Subnet"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"


def test_node_zones_are_every_nodes_zone_and_storage_elsewhere_names_them_all() -> None:
    gpu = {"instanceType": "p5.48xlarge"}
    view = Stack(
        [
            Resource(SUBNET, "no-zone", "subnet-x", {}),  # reads as "None": not a zone
            Resource(SUBNET, "zone-c", "subnet-c", {"availabilityZone": "us-east-1c"}),
            Resource(
                INSTANCE,
                "a",
                "i-a",
                {**gpu, "availabilityZone": "us-east-1a", "subnetId": "subnet-x"},
            ),
            Resource(INSTANCE, "b", "i-b", {**gpu, "availabilityZone": "us-east-1b"}),
            Resource(INSTANCE, "c", "i-c", gpu),  # says no zone: "" is not a zone
            Resource(FSX, "fs", "fs-1", {"subnetIds": ["subnet-c"]}),
        ],
        {},
    )
    assert node_zones(view) == {"us-east-1a", "us-east-1b"}
    assert [(res.name, reason) for res, reason in STORAGE_ZONE.check(view)] == [
        (
            "fs",
            "storage is in zone us-east-1c, GPU nodes are in us-east-1a, us-east-1b: "
            "cross-zone I/O adds latency and transfer cost",
        )
    ]


TRANSIT = "encryption-in-transit-explicit"


def test_a_missing_mode_says_which_to_export() -> None:
    view = stack("aws-h100")
    cluster = {k: v for k, v in view.outputs["cluster"].items() if k != "encryption"}
    view.outputs = {**view.outputs, "cluster": cluster}
    (found,) = by_policy(check_stack(view), TRANSIT)
    assert found.reason.endswith(
        "; export one of provider-native, ipsec, none (gpufabric:encryption) so the pipeline "
        "knows how node traffic is protected"
    )


def test_provider_native_on_a_type_not_in_the_catalog() -> None:
    view = mutate(stack("aws-h100"), TEMPLATE, lambda p: p.update(instanceType="p6-b300.48xlarge"))
    cluster = {**view.outputs["cluster"], "encryption": "provider-native"}
    view.outputs = {**view.outputs, "cluster": cluster}
    (found,) = by_policy(check_stack(view), TRANSIT)
    assert found.reason == (
        "encryption is provider-native but p6-b300.48xlarge is not known to encrypt "
        "node-to-node traffic natively (catalog says 'not in the catalog'); use 'ipsec', "
        "or 'none' on purpose"
    )
