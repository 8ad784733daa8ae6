"""The AWS reading of the policies, on small hand-made stacks: which nodes, subnets, zones,
placement groups, rules and disks it finds, and the reasons it gives."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.clouds.aws.efa_policy import efa_security_groups, efa_self_only
from gpufabric.clouds.aws.policy import (
    EGRESS,
    INGRESS,
    INSTANCE,
    POLICY,
    SG,
    SG_RULE,
    TEMPLATE,
    node_subnets,
)
from gpufabric.policies.model import Ingress, Node, Resource, Stack

GROUP = "aws:autoscaling/group:Group"
SUBNET = "aws:ec2/subnet:Subnet"
EIP = "aws:ec2/eip:Eip"
PG = "aws:ec2/placementGroup:PlacementGroup"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
VOLUME = "aws:ebs/volume:Volume"
EFS = "aws:efs/fileSystem:FileSystem"


def res(type_: str, name: str, deps: dict[str, tuple[str, ...]] | None = None, **props: Any):
    return Resource(type_, name, f"{name}-id", props, f"urn:{name}", deps or {})


def view(*resources: Resource) -> Stack:
    return Stack(list(resources), {})


def imdsv2(resource: Resource) -> list[str]:
    assert POLICY.metadata_tokens is not None
    return list(POLICY.metadata_tokens(resource))


def encryption(resource: Resource) -> list[str]:
    assert POLICY.encrypted_at_rest is not None
    return list(POLICY.encrypted_at_rest(resource))


# -- instance type and template ------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [("p5.48xlarge", "p5.48xlarge"), ("arn:aws:x/y/p4d.24xlarge", "p4d.24xlarge"), ("", None)],
)
def test_instance_type(value: str, expected: str | None) -> None:
    assert POLICY.instance_type(res(INSTANCE, "i", instanceType=value)) == expected
    assert POLICY.instance_type(res(INSTANCE, "i", instanceType=5)) is None


def test_template_of_reads_each_way_of_naming_the_template() -> None:
    lt = res(TEMPLATE, "lt")
    other = res(TEMPLATE, "other")
    s = view(lt, other)
    for spec in ({"id": "lt-id"}, {"launchTemplateId": "lt-id"}, {"name": "lt"}):
        assert POLICY.template_of(s, res(GROUP, "g", launchTemplate=spec)) is lt
    mixed = {"launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": "lt-id"}}}
    assert POLICY.template_of(s, res(GROUP, "g", mixedInstancesPolicy=mixed)) is lt
    # id first, then launchTemplateId, then name
    both = {"id": "lt-id", "launchTemplateId": "other-id", "name": "other"}
    assert POLICY.template_of(s, res(GROUP, "g", launchTemplate=both)) is lt
    both = {"launchTemplateId": "lt-id", "name": "other"}
    assert POLICY.template_of(s, res(GROUP, "g", launchTemplate=both)) is lt
    assert POLICY.template_of(s, res(GROUP, "g")) is None
    # an unknown id: the dependency on the key that names the template decides
    by_dep = res(GROUP, "g", {"launchTemplate": ("urn:lt",)}, launchTemplate={"id": "x"})
    assert POLICY.template_of(s, by_dep) is lt
    by_dep = res(
        GROUP,
        "g",
        {"mixedInstancesPolicy": ("urn:other",)},
        mixedInstancesPolicy={"launchTemplate": {"launchTemplateSpecification": {"id": "x"}}},
    )
    assert POLICY.template_of(s, by_dep) is other


# -- public IPs -----------------------------------------------------------------------------


def test_own_public_ip_reasons() -> None:
    nics = [
        {"associatePublicIpAddress": "true", "networkCardIndex": 2, "deviceIndex": 1},
        {"associatePublicIpAddress": True},
        {"associatePublicIpAddress": False},
    ]
    lt = res(TEMPLATE, "lt", associatePublicIpAddress=True, networkInterfaces=nics)
    assert list(POLICY.own_public_ip(lt)) == [
        "associatePublicIpAddress is true",
        "network interface on card 2 / device 1 asks for a public IP (associatePublicIpAddress)",
        "network interface on card 0 / device 0 asks for a public IP (associatePublicIpAddress)",
    ]
    assert list(POLICY.own_public_ip(res(INSTANCE, "i", associatePublicIpAddress=True))) == [
        "associatePublicIpAddress is true"
    ]
    assert list(POLICY.own_public_ip(res(GROUP, "g", associatePublicIpAddress=True))) == []


def test_node_public_ips_instance_with_template_and_public_subnet() -> None:
    subnet = res(SUBNET, "pub", mapPublicIpOnLaunch=True)
    lt = res(TEMPLATE, "lt")
    inst = res(INSTANCE, "i", associatePublicIpAddress=True, subnetId="pub-id")
    found = list(POLICY.node_public_ips(view(subnet, lt, inst), Node(inst, lt)))
    assert found == [
        (inst, "associatePublicIpAddress is true"),
        (subnet, "GPU nodes launch in this subnet and it maps public IPs on launch"),
    ]
    # without a template the instance's own IP is the node's template check, not said here
    found = list(POLICY.node_public_ips(view(subnet, inst), Node(inst, None)))
    assert [r for r, _ in found] == [subnet]
    group = res(GROUP, "g", associatePublicIpAddress=True, vpcZoneIdentifiers=["pub-id"])
    assert [r for r, _ in POLICY.node_public_ips(view(subnet, lt), Node(group, lt))] == [subnet]


def test_public_subnet_is_fine_when_the_primary_nic_refuses_a_public_ip() -> None:
    subnet = res(SUBNET, "pub", mapPublicIpOnLaunch="true")
    private = res(SUBNET, "priv", mapPublicIpOnLaunch=False)
    group = res(GROUP, "g", vpcZoneIdentifiers=["pub-id", "priv-id"])

    def found(*nics: dict[str, Any]) -> list[Resource]:
        lt = res(TEMPLATE, "lt", networkInterfaces=list(nics))
        return [r for r, _ in POLICY.node_public_ips(view(subnet, private, lt), Node(group, lt))]

    assert found() == [subnet]
    assert found({"associatePublicIpAddress": False}) == []
    assert found({"associatePublicIpAddress": "false", "deviceIndex": 0}) == []
    assert found({"associatePublicIpAddress": True}) == [subnet]
    # only the primary NIC (card 0, device 0) counts
    assert found({"associatePublicIpAddress": False, "deviceIndex": 1}) == [subnet]
    assert found({"associatePublicIpAddress": False, "networkCardIndex": 1}) == [subnet]
    assert (
        found(
            {"associatePublicIpAddress": False, "deviceIndex": "1"},
            {"associatePublicIpAddress": False, "deviceIndex": "0", "networkCardIndex": "0"},
        )
        == []
    )


def test_elastic_ip_on_a_gpu_instance() -> None:
    gpu = res(INSTANCE, "gpu")
    cpu = res(INSTANCE, "cpu")
    eips = [res(EIP, "e1", instance="gpu-id"), res(EIP, "e2", instance="cpu-id"), res(EIP, "e3")]
    s = view(gpu, cpu, *eips)
    lt = res(TEMPLATE, "lt")
    nodes = [Node(gpu, None), Node(res(GROUP, "cpu"), lt)]
    assert list(POLICY.stack_public_ips(s, nodes)) == [
        (eips[0], "attaches an Elastic IP to GPU node gpu")
    ]
    dep = res(EIP, "e4", {"instance": ("urn:gpu",)}, instance="unknown")
    assert [r for r, _ in POLICY.stack_public_ips(view(gpu, dep), [Node(gpu, None)])] == [dep]


# -- subnets and zones ----------------------------------------------------------------------


def test_node_subnets_from_every_place_once_each() -> None:
    a = res(SUBNET, "a", availabilityZone="az1")
    b = res(SUBNET, "b", availabilityZone="az2")
    c = res(SUBNET, "c", availabilityZone="az3")
    d = res(SUBNET, "d")
    nics = [{"subnetId": "c-id"}, {"subnetId": "c-id"}, {}]
    lt = res(TEMPLATE, "lt", networkInterfaces=nics)
    group = res(GROUP, "g", vpcZoneIdentifiers=["a-id", "a-id"], subnetId="b-id")
    s = view(a, b, c, d, lt)
    assert node_subnets(s, Node(group, lt)) == [a, b, c]
    assert node_subnets(s, Node(res(GROUP, "g", vpcZoneIdentifiers="b-id"), None)) == [b]
    # unresolved ids fall back to the dependency of the key that holds them
    group = res(GROUP, "g", {"vpcZoneIdentifiers": ("urn:a",), "subnetId": ("urn:b",)})
    group = Resource(
        GROUP, "g", "", {"vpcZoneIdentifiers": ["x"], "subnetId": "y"}, "u", group.deps
    )
    lt = res(
        TEMPLATE, "lt", {"networkInterfaces": ("urn:c",)}, networkInterfaces=[{"subnetId": "z"}]
    )
    assert node_subnets(s, Node(group, lt)) == [a, b, c]
    # the NIC's dependency is the template's, not the group's
    group = res(GROUP, "g", {"networkInterfaces": ("urn:d",)})
    assert node_subnets(s, Node(group, lt)) == [c]


def test_node_zones_and_storage_zones() -> None:
    a = res(SUBNET, "a", availabilityZone="az1")
    lt = res(TEMPLATE, "lt", placement={"availabilityZone": "az4"})
    group = res(GROUP, "g", vpcZoneIdentifiers=["a-id"], availabilityZones=["az2"])
    assert set(POLICY.node_zones(view(a, lt), Node(group, lt))) == {"az1", "az2", "az4", ""}
    # a template that names no zone adds none (the empty word is dropped by the policy)
    bare = res(TEMPLATE, "bare")
    assert set(POLICY.node_zones(view(a, bare), Node(group, bare))) == {"az1", "az2", ""}
    inst = res(INSTANCE, "i", availabilityZone="az3", placement={"availabilityZone": "az9"})
    assert set(POLICY.node_zones(view(a), Node(inst, None))) == {"az3"}
    fsx = res(FSX, "fs", subnetIds=["a-id", "b-id"])
    fs2 = res(FSX, "fs2", {"subnetIds": ("urn:a",)}, subnetIds="nope")
    b = res(SUBNET, "b")
    assert list(POLICY.storage_zones(view(a, b, fsx, fs2))) == [(fsx, "az1"), (fs2, "az1")]


# -- IMDSv2 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "props", "reasons"),
    [
        (TEMPLATE, {"metadataOptions": {"httpTokens": "required"}}, 0),
        (TEMPLATE, {"metadataOptions": {"httpEndpoint": "disabled"}}, 0),
        (TEMPLATE, {"metadataOptions": {"httpTokens": "optional"}}, 1),
        (TEMPLATE, {}, 1),
        (INSTANCE, {}, 1),
        (INSTANCE, {"launchTemplate": {"id": "lt"}}, 0),
        (INSTANCE, {"launchTemplate": {"id": "lt"}, "metadataOptions": {"httpTokens": "x"}}, 1),
        (GROUP, {}, 0),
    ],
)
def test_imdsv2(type_: str, props: dict[str, Any], reasons: int) -> None:
    assert len(imdsv2(res(type_, "r", **props))) == reasons


def test_imdsv2_reason() -> None:
    assert imdsv2(res(TEMPLATE, "lt", metadataOptions={"httpTokens": "optional"}))[0] == (
        "metadataOptions.httpTokens is 'optional'; IMDSv2 needs 'required' (IMDSv1 hands "
        "credentials to any SSRF)"
    )
    assert "httpTokens is 'unset';" in imdsv2(res(TEMPLATE, "lt"))[0]


# -- ingress --------------------------------------------------------------------------------


def test_ingress_rules() -> None:
    read = POLICY.ingress
    rule = {"ipProtocol": "6", "fromPort": 22, "toPort": 23, "cidrIpv4": "1.2.3.4/32"}
    assert list(read[INGRESS](rule)) == [Ingress("1.2.3.4/32", "tcp", ((22, 23),))]
    rule = {"ipProtocol": "-1", "fromPort": 22, "toPort": 22, "cidrIpv6": "::/0"}
    assert list(read[INGRESS](rule)) == [Ingress("::/0", "all", None)]
    for number, name in (("17", "udp"), ("1", "icmp"), ("TCP", "tcp")):
        got = list(read[INGRESS]({"ipProtocol": number, "fromPort": 1, "cidrIpv4": "a"}))
        assert got == [Ingress("a", name, ((1, 1),))]
    sg_rule = {
        "type": "ingress",
        "protocol": "udp",
        "fromPort": 5,
        "toPort": 6,
        "cidrBlocks": ["10.0.0.0/8", ""],
        "ipv6CidrBlocks": ["fd00::/8"],
    }
    assert list(read[SG_RULE](sg_rule)) == [
        Ingress("10.0.0.0/8", "udp", ((5, 6),)),
        Ingress("fd00::/8", "udp", ((5, 6),)),
    ]
    assert list(read[SG_RULE]({**sg_rule, "type": "egress"})) == []
    group = {"ingress": [sg_rule, {"protocol": "all", "cidrBlocks": "0.0.0.0/0"}]}
    assert list(read[SG](group))[-1] == Ingress("0.0.0.0/0", "all", None)
    assert len(list(read[SG](group))) == 3


# -- placement ------------------------------------------------------------------------------


def test_placement() -> None:
    cluster = res(PG, "pg", strategy="cluster")
    spread = res(PG, "sp", strategy="spread")
    lt = res(TEMPLATE, "lt", placement={"groupName": "sp-id"})
    s = view(cluster, spread, lt)
    # the group's own placement group comes first
    assert POLICY.placement(s, Node(res(GROUP, "g", placementGroup="pg-id"), lt)) == ""
    assert POLICY.placement(s, Node(res(GROUP, "g"), lt)) == (
        "placement group sp has strategy 'spread', not 'cluster'"
    )
    assert POLICY.placement(s, Node(res(GROUP, "g", placementGroup="elsewhere"), lt)) == ""
    by_dep = res(INSTANCE, "i", {"placementGroup": ("urn:sp",)}, placementGroup="x")
    assert "strategy 'spread'" in POLICY.placement(s, Node(by_dep, None))
    by_dep = res(GROUP, "g", {"placementGroup": ("urn:sp",)}, placementGroup="x")
    assert "strategy 'spread'" in POLICY.placement(s, Node(by_dep, res(TEMPLATE, "lt")))
    lt_dep = res(TEMPLATE, "lt", {"placement": ("urn:sp",)}, placement={"groupName": "x"})
    assert "strategy 'spread'" in POLICY.placement(s, Node(res(GROUP, "g"), lt_dep))
    none = "GPU nodes are in no placement group; EFA needs a cluster placement group"
    assert POLICY.placement(s, Node(res(INSTANCE, "i"), None)) == none
    reserved = {"capacityReservationTarget": {"capacityReservationId": "cr-1"}}
    empty = {"capacityReservationTarget": {"capacityReservationId": None}}
    lt = res(TEMPLATE, "lt", capacityReservationSpecification=reserved)
    assert POLICY.placement(s, Node(res(GROUP, "g"), lt)) == ""
    inst = res(INSTANCE, "i", capacityReservationSpecification=reserved)
    assert POLICY.placement(s, Node(inst, res(TEMPLATE, "lt"))) == ""
    lt = res(TEMPLATE, "lt", capacityReservationSpecification=empty)
    assert POLICY.placement(s, Node(res(GROUP, "g"), lt)) == none


# -- encryption at rest ---------------------------------------------------------------------


def test_encrypted_at_rest() -> None:
    check = encryption
    assert list(check(res(TEMPLATE, "lt"))) == [
        "no EBS block device mapping sets encrypted=true (the AMI's default applies)"
    ]
    disks = [
        {"deviceName": "/dev/a", "ebs": {"encrypted": "true"}},
        {"deviceName": "/dev/b", "ebs": {"encrypted": False}},
        {"ebs": {"volumeSize": 1}},
        {"deviceName": "/dev/c", "virtualName": "ephemeral0"},
    ]
    assert list(check(res(TEMPLATE, "lt", blockDeviceMappings=disks))) == [
        "EBS volume /dev/b is not encrypted",
        "EBS volume ? is not encrypted",
    ]
    assert list(check(res(INSTANCE, "i"))) == [
        "no rootBlockDevice with encrypted=true and no launch template"
    ]
    assert list(check(res(INSTANCE, "i", launchTemplate={"id": "x"}))) == []
    inst = res(
        INSTANCE,
        "i",
        rootBlockDevice={"encrypted": False},
        ebsBlockDevices=[{"deviceName": "/dev/x"}, {"encrypted": True}, {}],
    )
    assert list(check(inst)) == [
        "rootBlockDevice is not encrypted",
        "EBS volume /dev/x is not encrypted",
        "EBS volume ? is not encrypted",
    ]
    assert list(check(res(INSTANCE, "i", rootBlockDevice={"encrypted": True}))) == []
    for type_ in (VOLUME, EFS):
        assert list(check(res(type_, "v"))) == ["encrypted is not true"]
        assert list(check(res(type_, "v", encrypted="true"))) == []
    assert list(check(res(FSX, "fs"))) == []


# -- the EFA security group -----------------------------------------------------------------


def _efa_nic(*groups: str, kind: str = "efa") -> dict[str, Any]:
    return {"interfaceType": kind, "securityGroups": list(groups)}


def test_efa_security_groups_are_those_common_to_every_efa_interface() -> None:
    efa = res(SG, "efa")
    mgmt = res(SG, "mgmt")
    other = res(SG, "other")
    nics = [
        _efa_nic("efa-id", "mgmt-id"),
        _efa_nic("efa-id", kind="efa-only"),
        {"interfaceType": "interface", "securityGroups": ["other-id"]},
    ]
    lt = res(TEMPLATE, "lt", instanceType="p5.48xlarge", networkInterfaces=nics)
    group = res(GROUP, "g", launchTemplate={"id": "lt-id"})
    assert efa_security_groups(view(efa, mgmt, other, lt, group)) == [efa]
    # a node launcher that is not a GPU node, or NICs without EFA: no EFA group
    cpu = res(TEMPLATE, "lt", instanceType="m5.large", networkInterfaces=nics)
    assert efa_security_groups(view(efa, mgmt, cpu, group)) == []
    plain = res(INSTANCE, "i", instanceType="p5.48xlarge", networkInterfaces=[nics[2]])
    assert efa_security_groups(view(efa, other, plain)) == []
    # an instance's own NICs; an unknown group reference is left out
    inst = res(
        INSTANCE, "i", instanceType="p5.48xlarge", networkInterfaces=[_efa_nic("efa-id", "x")]
    )
    assert efa_security_groups(view(efa, inst)) == [efa]


def _efa_stack(*rules: Resource, **sg_props: Any) -> tuple[Stack, Resource]:
    sg = res(SG, "efa", **sg_props)
    inst = res(INSTANCE, "i", instanceType="p5.48xlarge", networkInterfaces=[_efa_nic("efa-id")])
    return view(sg, inst, *rules), sg


def _self(type_: str, name: str, **props: Any) -> Resource:
    base = {"securityGroupId": "efa-id", "referencedSecurityGroupId": "efa-id", "ipProtocol": "-1"}
    return res(type_, name, **{**base, **props})


def test_efa_self_only_with_vpc_rules() -> None:
    s, _ = _efa_stack(_self(INGRESS, "in"), _self(EGRESS, "out"))
    assert list(efa_self_only(s)) == []
    s, _ = _efa_stack(_self(INGRESS, "in", ipProtocol="all"), _self(EGRESS, "out"))
    assert list(efa_self_only(s)) == []
    # a rule on another group does not count
    s, sg = _efa_stack(_self(INGRESS, "in", securityGroupId="x"), _self(EGRESS, "out"))
    assert [r for _, r in efa_self_only(s)] == [
        "EFA group has no all-traffic ingress rule from itself: EFA traffic is dropped"
    ]
    # a tcp-only self rule is not all traffic
    s, sg = _efa_stack(_self(INGRESS, "in"), _self(EGRESS, "out", ipProtocol="tcp"))
    assert list(efa_self_only(s)) == [
        (sg, "EFA group has no all-traffic egress rule to itself: EFA traffic is dropped")
    ]
    # a rule naming no peer at all (no cidr, no group) neither counts nor is refused
    s, sg = _efa_stack(
        _self(INGRESS, "in"),
        _self(EGRESS, "out"),
        _self(INGRESS, "empty", referencedSecurityGroupId=None),
    )
    assert list(efa_self_only(s)) == []


@pytest.mark.parametrize(
    ("key", "value"),
    [("cidrIpv4", "10.0.0.0/8"), ("cidrIpv6", "fd00::/8"), ("prefixListId", "pl-1")],
)
def test_efa_vpc_rule_with_a_non_group_source(key: str, value: str) -> None:
    bad = _self(INGRESS, "bad", **{key: value})
    s, _ = _efa_stack(_self(INGRESS, "in"), _self(EGRESS, "out"), bad)
    assert list(efa_self_only(s)) == [
        (bad, f"EFA group efa: ingress rule names {key} {value}; EFA needs self only")
    ]


def test_efa_vpc_rule_referencing_another_group() -> None:
    mgmt = res(SG, "mgmt")
    bad = _self(EGRESS, "bad", referencedSecurityGroupId="mgmt-id")
    unknown = _self(EGRESS, "unknown", referencedSecurityGroupId="sg-0")
    s, _ = _efa_stack(_self(INGRESS, "in"), _self(EGRESS, "out"), bad, unknown, mgmt)
    assert list(efa_self_only(s)) == [
        (bad, "EFA group efa: egress rule references mgmt, not itself"),
        (unknown, "EFA group efa: egress rule references an unknown group, not itself"),
    ]


def test_efa_security_group_rule_resources() -> None:
    def rule(name: str, **props: Any) -> Resource:
        base = {"securityGroupId": "efa-id", "self": True, "protocol": "-1", "type": "ingress"}
        return res(SG_RULE, name, **{**base, **props})

    s, _ = _efa_stack(rule("in"), rule("out", type="egress", protocol="all"))
    assert list(efa_self_only(s)) == []
    s, sg = _efa_stack(rule("in"), rule("out", type="egress", protocol="tcp"))
    assert [r for r, _ in efa_self_only(s)] == [sg]
    by_ref = rule("out", type="egress", self=False, sourceSecurityGroupId="efa-id")
    s, sg = _efa_stack(
        rule("in"), by_ref, rule("other", securityGroupId="x", cidrBlocks=["1.0.0.0/8"])
    )
    assert list(efa_self_only(s)) == []
    bad = rule("bad", cidrBlocks=["10.0.0.0/8", "10.1.0.0/16"])
    s, _ = _efa_stack(rule("in"), rule("out", type="egress"), bad)
    assert list(efa_self_only(s)) == [
        (
            bad,
            "EFA group efa: ingress rule names cidrBlocks 10.0.0.0/8, 10.1.0.0/16; EFA needs self only",
        )
    ]
    for key in ("ipv6CidrBlocks", "prefixListIds"):
        bad = rule("bad", **{key: "x"})
        s, _ = _efa_stack(rule("in"), rule("out", type="egress"), bad)
        assert list(efa_self_only(s)) == [
            (bad, f"EFA group efa: ingress rule names {key} x; EFA needs self only")
        ]
    mixed = rule("mixed", self=True, securityGroups=["mgmt-id"])
    s, _ = _efa_stack(rule("in"), rule("out", type="egress"), mixed, res(SG, "mgmt"))
    assert list(efa_self_only(s)) == [
        (mixed, "EFA group efa: ingress rule references mgmt, not itself")
    ]


def test_efa_inline_rules_of_the_group() -> None:
    all_self = [{"self": True, "protocol": "-1"}]
    s, _ = _efa_stack(ingress=all_self, egress=[{"securityGroups": ["efa-id"], "protocol": "all"}])
    assert list(efa_self_only(s)) == []
    s, sg = _efa_stack(ingress=all_self, egress=[{"self": True, "protocol": "tcp"}])
    assert list(efa_self_only(s)) == [
        (sg, "EFA group has no all-traffic egress rule to itself: EFA traffic is dropped")
    ]
    s, sg = _efa_stack(ingress=all_self, egress=[{"self": True, "cidrBlocks": ["0.0.0.0/0"]}])
    assert list(efa_self_only(s)) == [
        (sg, "EFA group efa: egress rule names cidrBlocks 0.0.0.0/0; EFA needs self only"),
        (sg, "EFA group has no all-traffic egress rule to itself: EFA traffic is dropped"),
    ]
    s, sg = _efa_stack(ingress=[{"self": "false", "protocol": "-1"}], egress=all_self)
    assert [r for _, r in efa_self_only(s)] == [
        "EFA group has no all-traffic ingress rule from itself: EFA traffic is dropped"
    ]


def test_efa_inline_self_rule_of_one_protocol_is_not_made_whole_by_another_rule() -> None:
    # the all-protocol rule beside it names no peer: the self rule alone carries only TCP
    ingress = [{"self": True, "protocol": "tcp"}, {"protocol": "-1"}]
    s, sg = _efa_stack(ingress=ingress, egress=[{"self": True, "protocol": "-1"}])
    assert list(efa_self_only(s)) == [
        (sg, "EFA group has no all-traffic ingress rule from itself: EFA traffic is dropped")
    ]


def test_efa_rule_naming_its_group_by_an_unknown_id_resolves_through_its_dependency() -> None:
    # in a preview the group's id is not known yet: the rule's dependency names the group
    unknown = {"securityGroupId": "?", "protocol": "-1", "sourceSecurityGroupId": "?"}
    deps = {"securityGroupId": ("urn:efa",), "sourceSecurityGroupId": ("urn:efa",)}
    rules = [
        res(SG_RULE, "in", deps, type="ingress", **unknown),
        res(SG_RULE, "out", deps, type="egress", **unknown),
    ]
    s, _ = _efa_stack(*rules)
    assert list(efa_self_only(s)) == []
    # an inline rule's groups depend on the group's ingress / egress property
    mgmt = res(SG, "mgmt")
    sg = res(
        SG,
        "efa",
        {"ingress": ("urn:mgmt",)},
        ingress=[{"securityGroups": ["?"], "protocol": "-1"}],
        egress=[{"self": True, "protocol": "-1"}],
    )
    inst = res(INSTANCE, "i", instanceType="p5.48xlarge", networkInterfaces=[_efa_nic("efa-id")])
    assert [r for _, r in efa_self_only(view(sg, mgmt, inst))] == [
        "EFA group efa: ingress rule references mgmt, not itself",
        "EFA group has no all-traffic ingress rule from itself: EFA traffic is dropped",
    ]


def test_efa_rules_in_any_order() -> None:
    # a refused rule does not end the reading of the rules after it
    bad = _self(INGRESS, "bad", cidrIpv4="10.0.0.0/8")
    s, _ = _efa_stack(bad, _self(INGRESS, "in"), _self(EGRESS, "out"))
    assert [r for r, _ in efa_self_only(s)] == [bad]
    # an ingress rule read after the egress one leaves the egress one counted
    s, _ = _efa_stack(_self(EGRESS, "out"), _self(INGRESS, "in"))
    assert list(efa_self_only(s)) == []


def test_efa_rule_naming_several_other_groups_names_each() -> None:
    bad = [{"securityGroups": ["mgmt-id", "other-id"], "protocol": "-1"}]
    s, sg = _efa_stack(
        ingress=[{"self": True, "protocol": "-1"}, *bad], egress=[{"self": True, "protocol": "-1"}]
    )
    s.resources += [res(SG, "mgmt"), res(SG, "other")]
    assert list(efa_self_only(s)) == [
        (sg, "EFA group efa: ingress rule references mgmt, other, not itself")
    ]


def test_efa_vpc_rules_of_a_group_known_by_dependency_only() -> None:
    deps = {"securityGroupId": ("urn:efa",), "referencedSecurityGroupId": ("urn:efa",)}
    unknown = {"securityGroupId": "?", "referencedSecurityGroupId": "?", "ipProtocol": "-1"}
    s, _ = _efa_stack(res(INGRESS, "in", deps, **unknown), res(EGRESS, "out", deps, **unknown))
    assert list(efa_self_only(s)) == []


def test_efa_group_is_common_to_every_efa_interface_in_any_order() -> None:
    efa, mgmt = res(SG, "efa"), res(SG, "mgmt")
    nics = [
        {"interfaceType": "interface", "securityGroups": ["mgmt-id"]},
        _efa_nic("efa-id"),
        _efa_nic("efa-id", "mgmt-id"),
    ]
    inst = res(INSTANCE, "i", instanceType="p5.48xlarge", networkInterfaces=nics)
    assert efa_security_groups(view(efa, mgmt, inst)) == [efa]
    # known by the template's dependency only (ids unknown in a preview)
    lt = res(
        TEMPLATE,
        "lt",
        {"networkInterfaces": ("urn:efa",)},
        instanceType="p5.48xlarge",
        networkInterfaces=[_efa_nic("?")],
    )
    group = res(GROUP, "g", launchTemplate={"id": "lt-id"})
    assert efa_security_groups(view(efa, lt, group)) == [efa]


def test_efa_groups_beside_another_clouds_gpu_node() -> None:
    other = Resource("gcp:compute/instance:Instance", "vm", "vm", {"machineType": "a3-highgpu-8g"})
    inst = res(INSTANCE, "i", instanceType="p5.48xlarge", networkInterfaces=[_efa_nic("efa-id")])
    efa = res(SG, "efa")
    assert efa_security_groups(view(other, efa, inst)) == [efa]


def test_efa_rule_of_another_group_before_the_efa_groups_rules() -> None:
    def rule(name: str, **props: Any) -> Resource:
        base = {"securityGroupId": "efa-id", "self": True, "protocol": "-1", "type": "ingress"}
        return res(SG_RULE, name, **{**base, **props})

    s, _ = _efa_stack(rule("x", securityGroupId="x"), rule("in"), rule("out", type="egress"))
    assert list(efa_self_only(s)) == []
