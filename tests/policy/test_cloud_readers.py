"""Each cloud's policy readers on small hand-written resources: what they take from a
resource's properties (instance types, templates, public addresses, rules, zones, placement)
and what they leave alone."""

from __future__ import annotations

from typing import Any

from gpufabric.clouds.azure import policy as azure
from gpufabric.clouds.gcp import network_policy as gcp_net
from gpufabric.clouds.gcp import policy as gcp
from gpufabric.clouds.nebius import policy as nebius
from gpufabric.clouds.oci import policy as oci
from gpufabric.policies import check_stack, cloud
from gpufabric.policies.model import Ingress, Node, Resource, Stack


def res(type_: str, name: str, props: dict[str, Any] | None = None, **deps: str) -> Resource:
    return Resource(
        type_,
        name,
        f"{name}-id",
        props or {},
        urn=f"urn:{name}",
        deps={k: (v,) for k, v in deps.items()},
    )


def view(*resources: Resource) -> Stack:
    return Stack(list(resources), {})


# -- GCP ---------------------------------------------------------------------------------


def test_gcp_machine_type_is_the_tail_of_a_url() -> None:
    url = "projects/p/zones/us-central1-a/machineTypes/a3-megagpu-8g"
    assert gcp._machine_type(res(gcp.INSTANCE, "i", {"machineType": url})) == "a3-megagpu-8g"
    assert gcp._machine_type(res(gcp.INSTANCE, "i", {"machineType": "a3-highgpu-8g"})) == (
        "a3-highgpu-8g"
    )
    assert gcp._machine_type(res(gcp.INSTANCE, "i", {"machineType": ""})) is None
    assert gcp._machine_type(res(gcp.INSTANCE, "i", {"machineType": 8})) is None
    assert gcp._machine_type(res(gcp.INSTANCE, "i")) is None


def test_gcp_template_of_a_group_is_the_first_version_that_resolves() -> None:
    template = res(gcp.TEMPLATE, "tpl")
    regional = res(gcp.REGION_TEMPLATE, "rtpl")
    for kind in (gcp.GROUP, gcp.REGION_GROUP):
        group = res(
            kind, "g", {"versions": [{"instanceTemplate": "missing"}, {"instanceTemplate": "tpl"}]}
        )
        assert gcp._template_of(view(template, regional, group), group) is template
        group = res(kind, "g", {"versions": [{"instanceTemplate": "rtpl"}]})
        assert gcp._template_of(view(template, regional, group), group) is regional
        group = res(kind, "g", {"versions": [{"instanceTemplate": "missing"}]})
        assert gcp._template_of(view(template, group), group) is None


def test_gcp_template_of_an_instance_from_template() -> None:
    template = res(gcp.TEMPLATE, "tpl")
    node = res(gcp.FROM_TEMPLATE, "n", {"sourceInstanceTemplate": "tpl"})
    assert gcp._template_of(view(template, node), node) is template
    by_dep = res(gcp.FROM_TEMPLATE, "n", {}, sourceInstanceTemplate="urn:tpl")
    assert gcp._template_of(view(template, by_dep), by_dep) is template
    # a plain instance names no template, even when it carries the key
    plain = res(gcp.INSTANCE, "n", {"sourceInstanceTemplate": "tpl"})
    assert gcp._template_of(view(template, plain), plain) is None
    # a group resolves its versions' templates only through the versions key
    group = res(gcp.GROUP, "g", {"versions": [{}]}, sourceInstanceTemplate="urn:tpl")
    assert gcp._template_of(view(template, group), group) is None
    group = res(gcp.GROUP, "g", {"versions": [{}]}, versions="urn:tpl")
    assert gcp._template_of(view(template, group), group) is template


def test_gcp_access_configs_are_external_ips() -> None:
    nics = [{"network": "a"}, {"accessConfigs": [{}]}, {"ipv6AccessConfigs": [{"x": 1}]}]
    found = list(gcp._own_public_ip(res(gcp.TEMPLATE, "t", {"networkInterfaces": nics})))
    assert found == [
        "networkInterfaces[1] has an accessConfig (an external IP)",
        "networkInterfaces[2] has an accessConfig (an external IP)",
    ]
    assert list(gcp._own_public_ip(res(gcp.LUSTRE, "l", {"networkInterfaces": nics}))) == []
    none = [{"accessConfigs": []}, {"ipv6AccessConfigs": None}]
    assert list(gcp._own_public_ip(res(gcp.INSTANCE, "i", {"networkInterfaces": none}))) == []


def test_gcp_instance_from_template_reports_its_own_access_configs() -> None:
    nics = {"networkInterfaces": [{"accessConfigs": [{}]}]}
    template = res(gcp.TEMPLATE, "tpl")
    node = res(gcp.FROM_TEMPLATE, "n", nics)
    assert list(gcp._node_public_ips(view(), Node(node, template))) == [
        (node, "networkInterfaces[0] has an accessConfig (an external IP)")
    ]
    # without a template the node is its own definition, checked once elsewhere
    assert list(gcp._node_public_ips(view(), Node(node, None))) == []
    instance = res(gcp.INSTANCE, "i", nics)
    assert list(gcp._node_public_ips(view(), Node(instance, template))) == []


def test_gcp_firewall_ingress() -> None:
    props: dict[str, Any] = {
        "allows": [{"protocol": "TCP", "ports": ["22", "8000-8080"]}, {}],
        "sourceRanges": ["10.0.0.0/8", "0.0.0.0/0"],
    }
    tcp = ((22, 22), (8000, 8080))
    assert list(gcp._firewall(props)) == [
        Ingress("10.0.0.0/8", "tcp", tcp),
        Ingress("0.0.0.0/0", "tcp", tcp),
        Ingress("10.0.0.0/8", "all", None),
        Ingress("0.0.0.0/0", "all", None),
    ]
    assert list(gcp._firewall({**props, "direction": "ingress"})) == list(gcp._firewall(props))
    assert list(gcp._firewall({**props, "direction": None})) == list(gcp._firewall(props))
    assert list(gcp._firewall({**props, "direction": "EGRESS"})) == []
    assert list(gcp._firewall({**props, "disabled": True})) == []
    assert list(gcp._firewall({**props, "disabled": "true"})) == []
    assert len(list(gcp._firewall({**props, "disabled": False}))) == 4


def test_gcp_firewall_without_a_source_admits_every_address() -> None:
    """GCP gives an ingress rule that names no source range, tag or service account the
    source 0.0.0.0/0: such a rule is open to the internet, not closed."""
    allows = {"allows": [{"protocol": "tcp", "ports": ["22"]}]}
    assert list(gcp._firewall(allows)) == [Ingress("0.0.0.0/0", "tcp", ((22, 22),))]
    assert list(gcp._firewall({**allows, "sourceRanges": []})) == [
        Ingress("0.0.0.0/0", "tcp", ((22, 22),))
    ]
    # other nodes by tag or by service account: no address range at all
    assert list(gcp._firewall({**allows, "sourceTags": ["gpu"]})) == []
    assert list(gcp._firewall({**allows, "sourceServiceAccounts": ["sa@p"]})) == []
    with_both = {**allows, "sourceTags": ["gpu"], "sourceRanges": ["10.0.0.0/8"]}
    assert list(gcp._firewall(with_both)) == [Ingress("10.0.0.0/8", "tcp", ((22, 22),))]


def test_gcp_node_zones() -> None:
    zones = ["projects/p/zones/us-east5-a", "us-east5-b"]
    group = res(gcp.REGION_GROUP, "g", {"distributionPolicyZones": zones, "zone": "x-y1-z"})
    assert gcp._node_zones(view(), Node(group, None)) == {"us-east5-a", "us-east5-b"}
    instance = res(gcp.INSTANCE, "i", {"zone": "projects/p/zones/us-east5-a"})
    assert gcp._node_zones(view(), Node(instance, None)) == {"us-east5-a"}
    assert gcp._node_zones(view(), Node(res(gcp.GROUP, "g", {"zone": "b-c1-d"}), None)) == {
        "b-c1-d"
    }
    assert gcp._node_zones(view(), Node(res(gcp.INSTANCE, "i"), None)) == {""}


def test_gcp_storage_zones_are_zonal_locations_only() -> None:
    lustre = res(gcp.LUSTRE, "l", {"location": "us-east5-a"})
    store = res(gcp.PARALLELSTORE, "p", {"location": "europe-west4-b"})
    zonal = res(gcp.FILESTORE, "f", {"location": "us-central1-c"})
    regional = res(gcp.FILESTORE, "r", {"location": "us-central1"})
    unset = res(gcp.FILESTORE, "u")
    other = res(gcp.INSTANCE, "i", {"location": "us-east5-a"})
    found = list(gcp._storage_zones(view(lustre, store, zonal, regional, unset, other)))
    assert found == [(lustre, "us-east5-a"), (store, "europe-west4-b"), (zonal, "us-central1-c")]
    for bad in ("9us-east5-a", "us-east5-ax", "us-east-a", "us-east5-"):
        assert list(gcp._storage_zones(view(res(gcp.LUSTRE, "l", {"location": bad})))) == []


def _gpu_instance(props: dict[str, Any], kind: str = gcp.INSTANCE) -> Resource:
    return res(kind, "node", {"machineType": "a3-megagpu-8g", **props})


COMPACT_FAIL = (
    "no resource policy of the GPU nodes is compact (groupPlacementPolicy.collocation "
    "COLLOCATED, or a HIGH_THROUGHPUT workload policy on the group)"
)


def test_gcp_placement_without_any_policy() -> None:
    node = _gpu_instance({})
    assert gcp._placement(view(node), Node(node, None)) == (
        "GPU instance node has no compact placement resource policy"
    )
    template = res(gcp.TEMPLATE, "tpl", {"machineType": "a3-megagpu-8g"})
    group = res(gcp.GROUP, "g")
    assert gcp._placement(view(group, template), Node(group, template)) == (
        "GPU template tpl has no compact placement resource policy"
    )
    regional = res(gcp.REGION_TEMPLATE, "rtpl", {"machineType": "a3-megagpu-8g"})
    assert gcp._placement(view(group, regional), Node(group, regional)) == (
        "GPU template rtpl has no compact placement resource policy"
    )


def test_gcp_placement_of_a_specific_reservation() -> None:
    reserved = {"reservationAffinity": {"type": "SPECIFIC_RESERVATION"}}
    # a plain reservation is placed by its own policy, which this stack cannot read
    node = _gpu_instance(reserved)
    assert gcp._placement(view(node), Node(node, None)) == ""
    # a dense reservation (A3 Ultra / A4) still needs the group's workload policy
    dense = res(gcp.INSTANCE, "node", {"machineType": "a3-ultragpu-8g", **reserved})
    assert "has no compact placement resource policy" in gcp._placement(
        view(dense), Node(dense, None)
    )
    any_reservation = _gpu_instance({"reservationAffinity": {"type": "ANY_RESERVATION"}})
    assert "has no compact" in gcp._placement(view(any_reservation), Node(any_reservation, None))
    # a type outside the catalog is not dense
    unknown = res(gcp.INSTANCE, "node", {"machineType": "a2-highgpu-1g", **reserved})
    assert gcp._placement(view(unknown), Node(unknown, None)) == ""


def test_gcp_placement_reads_what_an_instance_from_a_template_overrides() -> None:
    """An instanceFromTemplate's own machine type and reservation affinity override its
    template's, so the dense reservation rule follows what the instance launches."""
    reserved = {"reservationAffinity": {"type": "SPECIFIC_RESERVATION"}}
    template = res(gcp.TEMPLATE, "tpl", {"machineType": "a3-megagpu-8g", **reserved})
    dense = res(gcp.FROM_TEMPLATE, "node", {"machineType": "a3-ultragpu-8g"})
    assert gcp._placement(view(dense, template), Node(dense, template)) == (
        "GPU template tpl has no compact placement resource policy"
    )
    any_reservation = res(
        gcp.FROM_TEMPLATE, "node", {"reservationAffinity": {"type": "ANY_RESERVATION"}}
    )
    assert "has no compact" in gcp._placement(
        view(any_reservation, template), Node(any_reservation, template)
    )
    plain = res(gcp.FROM_TEMPLATE, "node", {})
    assert gcp._placement(view(plain, template), Node(plain, template)) == ""


def test_gcp_placement_reads_the_policies_of_template_and_group() -> None:
    collocated = res(
        gcp.RESOURCE_POLICY, "pol", {"groupPlacementPolicy": {"collocation": "COLLOCATED"}}
    )
    spread = res(
        gcp.RESOURCE_POLICY, "spread", {"groupPlacementPolicy": {"collocation": "UNSPECIFIED"}}
    )
    workload = res(
        gcp.RESOURCE_POLICY,
        "wl",
        {"workloadPolicy": {"type": "HIGH_THROUGHPUT"}},
    )
    other = res(gcp.RESOURCE_POLICY, "ha", {"workloadPolicy": {"type": "HIGH_AVAILABILITY"}})
    everything = (collocated, spread, workload, other)
    template = res(gcp.TEMPLATE, "tpl", {"machineType": "a3-ultragpu-8g"})

    def on_group(policies: Any) -> str:
        group = res(gcp.GROUP, "g", {"resourcePolicies": policies})
        return gcp._placement(view(group, template, *everything), Node(group, template))

    assert on_group({"workloadPolicy": "wl"}) == ""
    assert on_group({"workloadPolicy": "ha"}) == COMPACT_FAIL
    assert on_group(["spread", "pol"]) == ""  # any compact one will do
    assert on_group(["pol", "spread"]) == ""
    assert on_group(["spread"]) == COMPACT_FAIL
    assert on_group("projects/p/regions/r/resourcePolicies/pol") == ""
    # a policy outside this stack is not readable here: no finding
    assert on_group(["projects/p/regions/r/resourcePolicies/elsewhere"]) == ""
    # an empty or unreadable reference names nothing: the others still count
    assert on_group(["", "spread"]) == COMPACT_FAIL
    assert on_group([7, "pol"]) == ""
    # the template's own policy counts as well
    tpl = res(gcp.TEMPLATE, "tpl", {"machineType": "a3-ultragpu-8g", "resourcePolicies": ["pol"]})
    group = res(gcp.GROUP, "g")
    assert gcp._placement(view(group, tpl, *everything), Node(group, tpl)) == ""
    group = res(gcp.GROUP, "g", {"resourcePolicies": ["spread"]})
    assert gcp._placement(view(group, tpl, *everything), Node(group, tpl)) == ""
    spread_tpl = res(
        gcp.TEMPLATE, "tpl", {"machineType": "a3-ultragpu-8g", "resourcePolicies": "ha"}
    )
    group = res(gcp.GROUP, "g", {"resourcePolicies": ["wl"]})
    assert gcp._placement(view(group, spread_tpl, *everything), Node(group, spread_tpl)) == ""
    # by the engine's dependency when the reference is not a name
    node = res(
        gcp.INSTANCE,
        "n",
        {"machineType": "a3-megagpu-8g", "resourcePolicies": [""]},
        resourcePolicies="urn:pol",
    )
    assert gcp._placement(view(node, *everything), Node(node, None)) == ""


def test_gcp_gpu_family_and_words() -> None:
    assert cloud.gpu_family("a2-highgpu-1g")
    assert cloud.gpu_family("a3-edgegpu-8g")
    assert cloud.gpu_family("g2-standard-4g")
    assert not cloud.gpu_family("n2-standard-8")
    assert not cloud.gpu_family("a3-highgpu-8")
    described = cloud.describe("gpu-nodes-in-placement-group", "S")
    assert "a COLLOCATED compact placement policy" in described
    assert "a proximity placement group (scale sets with singlePlacementGroup true)" in described
    assert "a cluster network" in described
    assert "a GPU cluster" in described


# -- GCP: the GPU NICs' networks -------------------------------------------------------------


def _gpu_vpc_stack(*rules: Resource, secondary: bool = True) -> Stack:
    host = res(gcp_net.NETWORK, "host-net")
    gpu = res(gcp_net.NETWORK, "gpu-net")
    sub = res(
        gcp_net.SUBNET,
        "gpu-sub",
        {
            "network": "gpu-net",
            "ipCidrRange": "10.10.0.0/16",
            "secondaryIpRanges": [{"ipCidrRange": "10.20.0.0/16"}] if secondary else [],
        },
    )
    host_sub = res(
        gcp_net.SUBNET, "host-sub", {"network": "host-net", "ipCidrRange": "10.1.0.0/16"}
    )
    node = res(
        gcp.INSTANCE,
        "node",
        {
            "machineType": "a3-megagpu-8g",  # one host NIC
            "networkInterfaces": [{"network": "host-net"}, {"subnetwork": "gpu-sub"}],
        },
    )
    return view(host, gpu, sub, host_sub, node, *rules)


def _firewall_rule(name: str = "fw", **props: Any) -> Resource:
    base: dict[str, Any] = {"network": "gpu-net", "allows": [{"protocol": "all"}]}
    return res(gcp_net.FIREWALL, name, {**base, **props})


def test_gcp_gpu_networks_are_those_after_the_host_nics() -> None:
    stack = _gpu_vpc_stack()
    found = gcp_net.gcp_gpu_networks(stack)
    assert list(found) == [f"{gcp_net.NETWORK} gpu-net"]
    network, ranges = found[f"{gcp_net.NETWORK} gpu-net"]
    assert network.name == "gpu-net"
    assert ranges == ["10.10.0.0/16", "10.20.0.0/16"]


def test_gcp_gpu_networks_by_nic_network_and_skip_non_catalog_types() -> None:
    gpu = res(gcp_net.NETWORK, "gpu-net")
    node = res(
        gcp.INSTANCE,
        "node",
        {"machineType": "a3-megagpu-8g", "networkInterfaces": [{}, {"network": "gpu-net"}]},
    )
    assert list(gcp_net.gcp_gpu_networks(view(gpu, node))) == [f"{gcp_net.NETWORK} gpu-net"]
    assert gcp_net.gcp_gpu_networks(view(gpu, node))[f"{gcp_net.NETWORK} gpu-net"][1] == []
    # a GPU family type outside the catalog has no host NIC count to go by
    family = res(
        gcp.INSTANCE,
        "node",
        {"machineType": "a2-highgpu-1g", "networkInterfaces": [{}, {"network": "gpu-net"}]},
    )
    assert gcp_net.gcp_gpu_networks(view(gpu, family)) == {}
    # an A4 has two host NICs: its second NIC is not a GPU NIC
    a4 = res(
        gcp.INSTANCE,
        "node",
        {"machineType": "a4-highgpu-8g", "networkInterfaces": [{}, {"network": "gpu-net"}]},
    )
    assert gcp_net.gcp_gpu_networks(view(gpu, a4)) == {}


def test_gcp_gpu_network_by_subnet_dependency() -> None:
    gpu = res(gcp_net.NETWORK, "gpu-net")
    sub = res(gcp_net.SUBNET, "gpu-sub", {"ipCidrRange": "10.10.0.0/16"}, network="urn:gpu-net")
    node = res(
        gcp.INSTANCE,
        "node",
        {"machineType": "a3-megagpu-8g", "networkInterfaces": [{}, {"subnetwork": ""}]},
        networkInterfaces="urn:gpu-sub",
    )
    found = gcp_net.gcp_gpu_networks(view(gpu, sub, node))
    assert found == {f"{gcp_net.NETWORK} gpu-net": (gpu, ["10.10.0.0/16"])}


def test_gcp_inside() -> None:
    assert gcp_net._inside("10.10.1.0/24", ["10.10.0.0/16"])
    assert gcp_net._inside("10.10.1.7/24", ["10.10.0.9/16"])  # host bits are not an error
    assert gcp_net._inside("10.10.0.0/16", ["10.10.0.0/16"])
    assert not gcp_net._inside("10.0.0.0/8", ["10.10.0.0/16"])
    assert gcp_net._inside("10.30.0.1", ["10.10.0.0/16", "10.30.0.0/16"])
    assert not gcp_net._inside("10.10.0.1", ["fd00::/8"])
    assert gcp_net._inside("fd00::1", ["10.0.0.0/8", "fd00::/8"])
    assert not gcp_net._inside("fd00::1", ["10.0.0.0/8"])
    assert not gcp_net._inside("fe80::1", ["fd00::/8"])
    assert not gcp_net._inside("not-a-range", ["10.0.0.0/8"])
    assert not gcp_net._inside("10.0.0.1", ["not-a-range"])


def test_gcp_gpu_network_cluster_only() -> None:
    inside = _firewall_rule("in", sourceRanges=["10.10.0.0/24", "10.20.1.0/24"])
    outside = _firewall_rule("out", sourceRanges=["10.10.0.0/24", "0.0.0.0/0"])
    stack = _gpu_vpc_stack(inside, outside)
    assert list(gcp_net.gpu_network_cluster_only(stack)) == [
        (
            outside,
            "GPU network gpu-net allows ingress from 0.0.0.0/0, outside its own subnets "
            "(10.10.0.0/16, 10.20.0.0/16)",
        )
    ]
    lower = _firewall_rule("out", sourceRanges=["0.0.0.0/0"], direction="ingress")
    assert len(list(gcp_net.gpu_network_cluster_only(_gpu_vpc_stack(lower)))) == 1
    unset = _firewall_rule("out", sourceRanges=["0.0.0.0/0"], direction=None)
    assert len(list(gcp_net.gpu_network_cluster_only(_gpu_vpc_stack(unset)))) == 1
    enabled = _firewall_rule("out", sourceRanges=["0.0.0.0/0"], disabled=False)
    assert len(list(gcp_net.gpu_network_cluster_only(_gpu_vpc_stack(enabled)))) == 1


def test_gcp_gpu_network_rule_without_a_source_is_open() -> None:
    rule = _firewall_rule("open")
    assert [r for _, r in gcp_net.gpu_network_cluster_only(_gpu_vpc_stack(rule))] == [
        "GPU network gpu-net allows ingress from 0.0.0.0/0, outside its own subnets "
        "(10.10.0.0/16, 10.20.0.0/16)"
    ]
    tagged = _firewall_rule("tagged", sourceTags=["gpu-node"])
    assert list(gcp_net.gpu_network_cluster_only(_gpu_vpc_stack(tagged))) == []


def test_gcp_gpu_network_cluster_only_skips() -> None:
    wide = ["0.0.0.0/0"]
    skipped = [
        _firewall_rule(sourceRanges=wide, network="host-net"),
        _firewall_rule(sourceRanges=wide, network="elsewhere"),
        _firewall_rule(sourceRanges=wide, direction="EGRESS"),
        _firewall_rule(sourceRanges=wide, allows=[]),
        _firewall_rule(sourceRanges=wide, disabled=True),
        _firewall_rule(sourceRanges=wide, disabled="true"),
    ]
    for rule in skipped:
        assert list(gcp_net.gpu_network_cluster_only(_gpu_vpc_stack(rule))) == [], rule.props


def test_gcp_gpu_network_rules_after_a_skipped_one_are_still_judged() -> None:
    wide = ["0.0.0.0/0"]
    open_rule = _firewall_rule("open", sourceRanges=wide)
    for skipped in [
        _firewall_rule("other", sourceRanges=wide, network="host-net"),
        _firewall_rule("egress", sourceRanges=wide, direction="EGRESS"),
        _firewall_rule("off", sourceRanges=wide, disabled=True),
    ]:
        found = list(gcp_net.gpu_network_cluster_only(_gpu_vpc_stack(skipped, open_rule)))
        assert [rule for rule, _ in found] == [open_rule]


def test_gcp_gpu_network_rule_found_through_its_dependency_in_a_preview() -> None:
    """In a preview the rule's network id is not known yet: its dependency names it."""
    rule = res(
        gcp_net.FIREWALL,
        "fw",
        {"network": "04da6b54-80e4-46f7-96ec-b56ff0331ba9", "allows": [{"protocol": "all"}]},
        network="urn:gpu-net",
    )
    found = list(gcp_net.gpu_network_cluster_only(_gpu_vpc_stack(rule)))
    assert [r for r, _ in found] == [rule]


def test_gcp_gpu_networks_of_every_gpu_node_and_a_nic_that_names_nothing_known() -> None:
    gpu = res(gcp_net.NETWORK, "gpu-net")
    # a GPU node outside the catalog first: the nodes after it are still read
    family = res(
        gcp.INSTANCE,
        "family",
        {"machineType": "a2-highgpu-1g", "networkInterfaces": [{}, {"network": "gpu-net"}]},
    )
    node = res(
        gcp.INSTANCE,
        "node",
        {
            "machineType": "a3-megagpu-8g",
            # a GPU NIC whose subnetwork is neither in the stack nor a dependency
            "networkInterfaces": [{}, {"subnetwork": "elsewhere"}, {"network": "gpu-net"}],
        },
    )
    assert list(gcp_net.gcp_gpu_networks(view(gpu, family, node))) == [f"{gcp_net.NETWORK} gpu-net"]


def test_gcp_gpu_network_without_subnets_says_none() -> None:
    gpu = res(gcp_net.NETWORK, "gpu-net")
    node = res(
        gcp.INSTANCE,
        "node",
        {"machineType": "a3-megagpu-8g", "networkInterfaces": [{}, {"network": "gpu-net"}]},
    )
    rule = _firewall_rule(sourceRanges=["10.0.0.0/8"])
    assert [r for _, r in gcp_net.gpu_network_cluster_only(view(gpu, node, rule))] == [
        "GPU network gpu-net allows ingress from 10.0.0.0/8, outside its own subnets (none)"
    ]


# -- Azure ------------------------------------------------------------------------------------


def test_azure_vm_size() -> None:
    vm = res(azure.VM, "vm", {"hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"}})
    assert azure._vm_size(vm) == "Standard_ND96isr_H100_v5"
    vmss = res(azure.SCALE_SET, "ss", {"sku": {"name": "x/Standard_ND96isr_H100_v5"}})
    assert azure._vm_size(vmss) == "Standard_ND96isr_H100_v5"
    assert azure._vm_size(res(azure.VM, "vm", {"sku": {"name": "Standard_ND96"}})) is None
    assert azure._vm_size(res(azure.SCALE_SET, "ss", {"sku": {"name": ""}})) is None
    assert azure._vm_size(res(azure.SCALE_SET, "ss", {"sku": {"name": 4}})) is None


def test_azure_public_ip_configurations() -> None:
    nics = {
        "networkInterfaceConfigurations": [
            {"name": "eth0", "ipConfigurations": [{"publicIPAddressConfiguration": {"a": 1}}]},
            {"ipConfigurations": [{}, {"publicIPAddressConfiguration": {"b": 2}}]},
            {"name": "ib", "ipConfigurations": [{"publicIPAddressConfiguration": None}]},
        ]
    }
    expected = [
        "NIC eth0 has a publicIPAddressConfiguration",
        "NIC ? has a publicIPAddressConfiguration",
    ]
    vmss = res(azure.SCALE_SET, "ss", {"virtualMachineProfile": {"networkProfile": nics}})
    assert list(azure._own_public_ip(vmss)) == expected
    vm = res(azure.VM, "vm", {"networkProfile": nics})
    assert list(azure._own_public_ip(vm)) == expected
    assert list(azure._own_public_ip(res(azure.NIC, "n", {"networkProfile": nics}))) == []


def test_azure_vm_nics_with_public_addresses() -> None:
    public = res(azure.NIC, "pub", {"ipConfigurations": [{}, {"publicIPAddress": {"id": "x"}}]})
    private = res(azure.NIC, "priv", {"ipConfigurations": [{"publicIPAddress": None}]})
    refs = [{"id": "missing"}, {"id": "priv"}, {"id": "pub"}]
    vm = res(azure.VM, "vm", {"networkProfile": {"networkInterfaces": refs}})
    stack = view(public, private, vm)
    assert list(azure._vm_nics(stack, Node(vm, None))) == [
        (public, "GPU VM vm's NIC has a public IP address")
    ]
    vmss = res(azure.SCALE_SET, "ss", {"networkProfile": {"networkInterfaces": refs}})
    assert list(azure._vm_nics(view(public, vmss), Node(vmss, None))) == []
    by_dep = res(
        azure.VM, "vm", {"networkProfile": {"networkInterfaces": [{}]}}, networkProfile="urn:pub"
    )
    assert len(list(azure._vm_nics(view(public, by_dep), Node(by_dep, None)))) == 1


def test_azure_rule() -> None:
    rule: dict[str, Any] = {
        "direction": "Inbound",
        "access": "Allow",
        "protocol": "Tcp",
        "destinationPortRanges": ["22", "443"],
        "sourceAddressPrefix": "Internet",
        "sourceAddressPrefixes": ["10.0.0.0/8"],
    }
    ports = ((22, 22), (443, 443))
    assert list(azure._rule(rule)) == [
        Ingress("Internet", "tcp", ports, False),
        Ingress("10.0.0.0/8", "tcp", ports, False),
    ]
    assert list(azure._rule({**rule, "direction": "Outbound"})) == []
    assert list(azure._rule({**rule, "direction": None})) == []
    assert list(azure._rule({**rule, "access": "Deny"})) == []
    assert list(azure._rule({k: v for k, v in rule.items() if k != "access"})) == []
    assert list(azure._rule({k: v for k, v in rule.items() if k != "direction"})) == []
    single = {
        "direction": "inbound",
        "access": "allow",
        "destinationPortRange": "1000-1010",
        "sourceAddressPrefix": "*",
        "sourcePortRange": "443",
    }
    assert list(azure._rule(single)) == [Ingress("*", "all", ((1000, 1010),), True)]
    assert list(azure._rule({**single, "protocol": "*"})) == list(azure._rule(single))
    assert list(azure._rule({**single, "sourcePortRange": "*"})) == [
        Ingress("*", "all", ((1000, 1010),), False)
    ]
    assert [i.reply_only for i in azure._rule({**single, "sourcePortRange": None})] == [False]
    assert [i.reply_only for i in azure._rule({**single, "sourcePortRanges": ["1", "2"]})] == [True]
    assert [i.reply_only for i in azure._rule({**single, "sourcePortRanges": ["1", "*"]})] == [
        False
    ]
    no_ports = {k: v for k, v in single.items() if k != "destinationPortRange"}
    assert [i.ports for i in azure._rule(no_ports)] == [None]
    assert list(azure._rule({**single, "sourceAddressPrefix": ""})) == []
    assert list(azure._rule({**single, "sourceAddressPrefix": None})) == []
    nsg = {"securityRules": [rule, {**rule, "access": "Deny"}, single]}
    assert list(azure._group(nsg)) == [*azure._rule(rule), *azure._rule(single)]


def test_azure_zones() -> None:
    vmss = res(azure.SCALE_SET, "ss", {"zones": ["1", 2]})
    assert azure._node_zones(view(), Node(vmss, None)) == {"1", "2"}
    assert azure._node_zones(view(), Node(res(azure.VM, "vm"), None)) == set()
    lustre = res(azure.LUSTRE, "l", {"zones": ["3"]})
    other = res(azure.VM, "vm", {"zones": ["1"]})
    assert list(azure._storage_zones(view(lustre, other))) == [(lustre, "3")]


def test_azure_placement() -> None:
    ppg = res(azure.PPG, "ppg", {"proximityPlacementGroupType": "Standard"})
    ultra = res(azure.PPG, "ultra", {"proximityPlacementGroupType": "Ultra"})
    plain = res(azure.PPG, "plain")

    def placed(kind: str, **props: Any) -> str:
        node = res(kind, "n", props)
        return azure._placement(view(ppg, ultra, plain, node), Node(node, None))

    assert placed(azure.VM) == "GPU nodes are in no proximity placement group"
    assert placed(azure.VM, proximityPlacementGroup={"id": ""}) == (
        "GPU nodes are in no proximity placement group"
    )
    assert placed(azure.VM, proximityPlacementGroup={"id": "ppg"}) == ""
    assert placed(azure.VM, proximityPlacementGroup={"id": "plain"}) == ""
    assert placed(azure.VM, proximityPlacementGroup={"id": "elsewhere"}) == ""
    assert placed(azure.VM, proximityPlacementGroup={"id": "ultra"}) == (
        "proximity placement group ultra is 'Ultra', not Standard"
    )
    one_group = "singlePlacementGroup is not true: InfiniBand spans one placement group only"
    assert placed(azure.SCALE_SET, proximityPlacementGroup={"id": "ppg"}) == one_group
    assert placed(
        azure.SCALE_SET, proximityPlacementGroup={"id": "ppg"}, singlePlacementGroup="true"
    ) == (one_group)
    assert (
        placed(azure.SCALE_SET, proximityPlacementGroup={"id": "ppg"}, singlePlacementGroup=True)
        == ""
    )
    assert placed(
        azure.SCALE_SET, proximityPlacementGroup={"id": "ultra"}, singlePlacementGroup=True
    ) == ("proximity placement group ultra is 'Ultra', not Standard")
    assert placed(azure.NIC) == ""


def test_azure_placement_names_the_group_found_by_id_or_by_dependency() -> None:
    ultra = res(azure.PPG, "ultra", {"proximityPlacementGroupType": "Ultra"})
    by_id = res(azure.VM, "n", {"proximityPlacementGroup": {"id": "ultra-id"}})
    assert azure._placement(view(ultra, by_id), Node(by_id, None)) == (
        "proximity placement group ultra is 'Ultra', not Standard"
    )
    # in a preview the group's id is not known yet: the VM's dependency names it
    unknown = res(
        azure.VM,
        "n",
        {"proximityPlacementGroup": {"id": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"}},
        proximityPlacementGroup="urn:ultra",
    )
    assert azure._placement(view(ultra, unknown), Node(unknown, None)) == (
        "proximity placement group ultra is 'Ultra', not Standard"
    )


def test_azure_gpu_family() -> None:
    assert cloud.gpu_family("Standard_NC24ads_A100_v4")
    assert not cloud.gpu_family("Standard_D4s_v5")


# -- OCI --------------------------------------------------------------------------------------


def test_oci_shape_and_template() -> None:
    config = res(
        oci.INSTANCE_CONFIG,
        "cfg",
        {"instanceDetails": {"launchDetails": {"shape": "BM.GPU.H100.8"}}},
    )
    assert oci._shape(config) == "BM.GPU.H100.8"
    assert oci._shape(res(oci.INSTANCE_CONFIG, "c")) is None
    bad = {"instanceDetails": {"launchDetails": {"shape": ""}}}
    assert oci._shape(res(oci.INSTANCE_CONFIG, "c", bad)) is None
    pools = [{"instanceConfigurationId": "missing"}, {"instanceConfigurationId": "cfg-id"}]
    network = res(oci.CLUSTER_NETWORK, "cn", {"instancePools": pools})
    assert oci._template_of(view(config, network), network) is config
    lone = res(oci.CLUSTER_NETWORK, "cn", {"instancePools": pools[:1]})
    assert oci._template_of(view(config, lone), lone) is None
    by_dep = res(oci.CLUSTER_NETWORK, "cn", {"instancePools": [{}]}, instancePools="urn:cfg")
    assert oci._template_of(view(config, by_dep), by_dep) is config
    other = res(oci.INSTANCE_CONFIG, "x", {"instancePools": pools})
    assert oci._template_of(view(config, other), other) is None


def test_oci_public_ip() -> None:
    def config(value: Any, kind: str = oci.INSTANCE_CONFIG) -> Resource:
        vnic = {"createVnicDetails": {"assignPublicIp": value}}
        return res(kind, "c", {"instanceDetails": {"launchDetails": vnic}})

    reason = "the front-end VNIC asks for a public IP (createVnicDetails.assignPublicIp)"
    assert list(oci._own_public_ip(config(True))) == [reason]
    assert list(oci._own_public_ip(config("true"))) == [reason]
    assert list(oci._own_public_ip(config(False))) == []
    assert list(oci._own_public_ip(config(True, oci.CLUSTER_NETWORK))) == []
    assert list(oci._own_public_ip(res(oci.INSTANCE_CONFIG, "c"))) == []


def test_oci_rule_protocols_and_ports() -> None:
    tcp = {"protocol": "6", "source": "10.0.0.0/16", "tcpOptions": {}}
    assert oci._rule(tcp) == Ingress("10.0.0.0/16", "tcp", None, False)
    ranged = {**tcp, "tcpOptions": {"destinationPortRange": {"min": 22, "max": 23}}}
    assert oci._rule(ranged) == Ingress("10.0.0.0/16", "tcp", ((22, 23),), False)
    low = {"protocol": "17", "udpOptions": {"destinationPortRange": {"min": 5000}}}
    assert oci._rule(low) == Ingress("0.0.0.0/0", "udp", ((5000, 65535),), False)
    high = {"protocol": "17", "udpOptions": {"destinationPortRange": {"max": 80}}}
    assert oci._rule(high) == Ingress("0.0.0.0/0", "udp", ((1, 80),), False)
    flat = {"protocol": "6", "tcpOptions": {"min": 443, "max": 443}}
    assert oci._rule(flat).ports == ((443, 443),)
    reply = {"protocol": "6", "tcpOptions": {"sourcePortRange": {"min": 443, "max": 443}}}
    assert oci._rule(reply) == Ingress("0.0.0.0/0", "tcp", None, True)
    assert oci._rule({"protocol": "all"}).protocol == "all"
    assert oci._rule({"protocol": "ALL"}).protocol == "all"
    assert oci._rule({"protocol": "58"}).protocol == "58"


def test_oci_icmp_unreachable_is_a_reply() -> None:
    assert oci._rule({"protocol": "1", "icmpOptions": {"type": 3}}).reply_only is True
    assert oci._rule({"protocol": "1", "icmpOptions": {"type": 8}}).reply_only is False
    assert oci._rule({"protocol": "1"}).reply_only is False
    assert oci._rule({"protocol": "6", "icmpOptions": {"type": 3}}).reply_only is False


def test_oci_rule_lists() -> None:
    rules = [{"protocol": "6", "source": "a"}, {"protocol": "17", "source": "b"}]
    assert [i.source for i in oci._security_list({"ingressSecurityRules": rules})] == ["a", "b"]
    assert list(oci._nsg_rule({"direction": "INGRESS", **rules[0]})) == [oci._rule(rules[0])]
    assert list(oci._nsg_rule({"direction": "EGRESS", **rules[0]})) == []
    assert list(oci._nsg_rule(rules[0])) == []
    cidr = {"direction": "INGRESS", "sourceType": "CIDR_BLOCK", **rules[0]}
    assert list(oci._nsg_rule(cidr)) == [oci._rule(rules[0])]


def test_oci_nsg_rule_from_another_group_is_no_address_range() -> None:
    """An NSG rule whose source is a network security group admits that group's VNICs: no
    address, so no rule of 'SSH only from an admin range' can read it as wide open."""
    rule = {
        "direction": "INGRESS",
        "sourceType": "NETWORK_SECURITY_GROUP",
        "source": "ocid1.networksecuritygroup.oc1..bastion",
        "protocol": "6",
        "tcpOptions": {"destinationPortRange": {"min": 22, "max": 22}},
    }
    assert list(oci._nsg_rule(rule)) == []
    found = check_stack(view(res(oci.NSG_RULE, "ssh", rule)))
    assert [v for v in found if v.policy == "ssh-from-admin-ranges-only"] == []
    from_cidr = {**rule, "sourceType": "CIDR_BLOCK", "source": "0.0.0.0/0"}
    found = check_stack(view(res(oci.NSG_RULE, "ssh", from_cidr)))
    assert [v.reason for v in found if v.policy == "ssh-from-admin-ranges-only"] == [
        "lets SSH (TCP 22) in from 0.0.0.0/0, wider than an admin range (a /16)"
    ]


def test_oci_zones_and_placement() -> None:
    network = res(
        oci.CLUSTER_NETWORK, "cn", {"placementConfiguration": {"availabilityDomain": "AD-1"}}
    )
    assert oci._node_zones(view(), Node(network, None)) == {"AD-1"}
    assert oci._node_zones(view(), Node(res(oci.CLUSTER_NETWORK, "cn"), None)) == {""}
    lustre = res(oci.LUSTRE, "l", {"availabilityDomain": "AD-2"})
    unset = res(oci.LUSTRE, "u", {"availabilityDomain": ""})
    assert list(oci._storage_zones(view(lustre, unset, network))) == [(lustre, "AD-2")]
    assert oci._placement(view(), Node(network, None)) == ""
    lone = res("oci:Core/instance:Instance", "i")
    assert oci._placement(view(), Node(lone, None)) == (
        "GPU nodes are not in a cluster network: they have no RDMA network"
    )


# -- Nebius -----------------------------------------------------------------------------------


def test_nebius_platform_preset() -> None:
    def vm(resources: Any) -> Resource:
        return res(nebius.INSTANCE, "vm", {"resources": resources})

    assert nebius._platform_preset(vm({"platform": "gpu-h100-sxm", "preset": "8gpu"})) == (
        "gpu-h100-sxm/8gpu"
    )
    assert nebius._platform_preset(vm({"platform": "gpu-h100-sxm"})) is None
    assert nebius._platform_preset(vm({"preset": "8gpu"})) is None
    assert nebius._platform_preset(vm(None)) is None


def test_nebius_public_addresses() -> None:
    nics = [{"ipAddress": {}}, {"publicIpAddress": {}}, {"publicIpAddress": None}]
    vm = res(nebius.INSTANCE, "vm", {"networkInterfaces": nics})
    assert list(nebius._own_public_ip(vm)) == ["networkInterfaces[1] has a publicIpAddress"]
    other = res(nebius.FILESYSTEM, "fs", {"networkInterfaces": nics})
    assert list(nebius._own_public_ip(other)) == []


def test_nebius_rule() -> None:
    rule: dict[str, Any] = {
        "access": "allow",
        "protocol": "TCP",
        "ingress": {"destinationPorts": [22, "443"], "sourceCidrs": ["10.0.0.0/8", "1.2.3.4/32"]},
    }
    ports = ((22, 22), (443, 443))
    assert list(nebius._rule(rule)) == [
        Ingress("10.0.0.0/8", "tcp", ports, False),
        Ingress("1.2.3.4/32", "tcp", ports, False),
    ]
    assert list(nebius._rule({**rule, "access": "DENY"})) == []
    assert list(nebius._rule({k: v for k, v in rule.items() if k != "access"})) == []
    assert list(nebius._rule({**rule, "ingress": None})) == []
    assert list(nebius._rule({**rule, "egress": rule["ingress"], "ingress": "x"})) == []
    open_ = {"access": "ALLOW", "ingress": {"sourcePorts": [443]}}
    assert list(nebius._rule(open_)) == [Ingress("0.0.0.0/0", "all", None, True)]
    assert list(nebius._rule({**open_, "protocol": "ANY"})) == list(nebius._rule(open_))
    assert list(nebius._rule({**open_, "protocol": "any"})) == list(nebius._rule(open_))
    group = {"access": "ALLOW", "ingress": {"sourceSecurityGroupId": "sg"}}
    assert list(nebius._rule(group)) == []


def test_nebius_zones_and_placement() -> None:
    vm = res(nebius.INSTANCE, "vm", {"gpuCluster": {"id": "cluster"}})
    assert nebius._node_zones(view(), Node(vm, None)) == {nebius.REGION}
    fs = res(nebius.FILESYSTEM, "fs")
    assert list(nebius._storage_zones(view(fs, vm))) == [(fs, nebius.REGION)]
    assert nebius._placement(view(), Node(vm, None)) == ""
    lone = res(nebius.INSTANCE, "vm", {"gpuCluster": {"id": ""}})
    assert nebius._placement(view(), Node(lone, None)) == (
        "GPU VM is in no GPU cluster (gpuCluster.id): it is on no InfiniBand fabric"
    )
