"""The policies' own records and runners, on small hand-made stacks: what a resource answers
to (handles, references), the readers of wire-shaped values, the pack adapters the engine
calls, the registry's verdicts and the offline report's lines, and the clouds' policy data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.policy import _NotApplicableError

from gpufabric.plan.runner import Plan, PlannedResource
from gpufabric.policies import cloud, registry
from gpufabric.policies.model import (
    EVERY_CLOUD,
    STACK_TYPE,
    Ingress,
    Node,
    Resource,
    ResourcePolicy,
    Stack,
    StackPolicy,
    Violation,
    as_list,
    as_map,
    dig,
    is_true,
    maps,
    resource_cloud,
    stack_clouds,
)
from gpufabric.policies.offline import check_and_report, check_plan, plan_stack, report
from gpufabric.policies.pack import (
    pack_policies,
    resource_from_args,
    resource_policy,
    stack_from_args,
    stack_policy,
)
from gpufabric.policies.registry import (
    ALL_POLICIES,
    RESOURCE_POLICIES,
    STACK_POLICIES,
    applies,
    check_stack,
    not_applicable,
)

OPTS = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])
TRANSIT = "encryption-in-transit-explicit"
NET = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"


# -- model: resources, references, readers --


def test_a_resource_answers_to_its_id_urn_name_and_reference_props() -> None:
    r = Resource(
        "t:m:T",
        "name",
        "id-1",
        {"id": "pid", "name": "pname", "arn": "arn:x", "selfLink": "https://x/s", "other": "o"},
        urn="urn:1",
    )
    assert r.label == "t:m:T name"
    assert r.handles() == {"id-1", "urn:1", "name", "pid", "pname", "arn:x", "https://x/s"}


def test_handles_leave_out_empty_and_non_string_values() -> None:
    r = Resource("t:m:T", "n", "", {"id": 7, "name": "", "arn": None, "selfLink": ["s"]})
    assert r.handles() == {"n"}


def test_a_violation_line_names_policy_resource_and_reason() -> None:
    assert Violation("p", "t:m:T n", "why", "urn:1").line() == "p: t:m:T n: why"


def _net_stack() -> tuple[Resource, Resource, Resource]:
    net = Resource(NET, "net", "net-id", {"selfLink": "https://c/projects/p/global/networks/net"})
    other = Resource(SUBNET, "net", "sub-id", {}, urn="urn:sub")
    by_id = Resource(NET, "named", "tailonly", {}, urn="urn:named")
    return net, other, by_id


@pytest.mark.parametrize("indexed", [False, True])
def test_resolve_by_exact_handle_of_the_wanted_type(indexed: bool) -> None:
    net, other, by_id = _net_stack()
    view = Stack([other, net, by_id], {})
    view = view.indexed() if indexed else view
    assert view.resolve("net", [NET]) is net
    assert view.resolve("net", [SUBNET]) is other
    assert view.resolve("net-id", [NET, SUBNET]) is net
    assert view.resolve("https://c/projects/p/global/networks/net", [NET]) is net
    assert view.resolve("urn:named", [NET]) is by_id
    assert view.resolve("missing", [NET]) is None
    assert view.resolve("", [NET]) is None
    assert view.resolve(None, [NET]) is None
    assert view.resolve(["net"], [NET]) is None


@pytest.mark.parametrize("indexed", [False, True])
def test_resolve_a_url_by_its_last_part_as_a_name_only(indexed: bool) -> None:
    net, other, by_id = _net_stack()
    view = Stack([other, net, by_id], {})
    view = view.indexed() if indexed else view
    assert view.resolve("projects/q/global/networks/net", [NET]) is net
    assert view.resolve("a/b/net", [SUBNET]) is other
    # the last part is an id here, not a name: no match
    assert view.resolve("projects/q/global/networks/tailonly", [NET]) is None
    assert view.resolve("projects/q/global/networks/net", ["x:y:Z"]) is None


@pytest.mark.parametrize("indexed", [False, True])
def test_resolve_falls_back_on_the_owners_property_dependencies(indexed: bool) -> None:
    net, other, by_id = _net_stack()
    owner = Resource(
        "t:m:Owner", "o", "o", {}, urn="urn:o", deps={"network": ("urn:sub", "urn:named")}
    )
    view = Stack([owner, other, net, by_id], {})
    view = view.indexed() if indexed else view
    assert view.resolve("opaque", [NET], owner, "network") is by_id
    assert view.resolve("opaque", [SUBNET], owner, "network") is other
    assert view.resolve("opaque", [NET], owner, "subnet") is None
    assert view.resolve("opaque", [NET], owner) is None
    assert view.resolve("opaque", [NET], None, "network") is None
    assert view.resolve("opaque", ["x:y:Z"], owner, "network") is None


def test_resolve_by_dependency_needs_the_same_urn() -> None:
    """Unindexed, every resource is a candidate: the urn must still match."""
    net = Resource(NET, "net", "urn:dep", {}, urn="urn:real")
    owner = Resource("t:m:Owner", "o", "o", {}, deps={"network": ("urn:dep",)})
    assert Stack([owner, net], {}).resolve("opaque", [NET], owner, "network") is None


def test_indexed_keeps_resources_and_outputs_and_indexes_every_handle() -> None:
    net, other, by_id = _net_stack()
    view = Stack([net, other, by_id], {"k": 1})
    assert view.by_handle is None
    index = view.indexed()
    assert index.resources == view.resources and index.outputs == {"k": 1}
    assert index.by_handle is not None
    assert index.by_handle["net"] == [net, other]
    assert index.by_handle["urn:sub"] == [other]
    assert index.of_type(NET) == [net, by_id]
    assert index.of_type(NET, SUBNET) == [net, other, by_id]
    assert index.of_type("x:y:Z") == []


def test_a_node_is_defined_by_its_template_if_it_has_one() -> None:
    node = Resource("t:m:N", "n", "n", {})
    template = Resource("t:m:T", "t", "t", {})
    assert Node(node, template).definition is template
    assert Node(node, None).definition is node


def test_ingress_admits_its_protocol_or_all_within_its_port_ranges() -> None:
    rule = Ingress("0.0.0.0/0", "tcp", ((22, 22), (1000, 2000)))
    assert rule.admits("tcp", 22)
    assert rule.admits("tcp", 1000) and rule.admits("tcp", 2000) and rule.admits("tcp", 1500)
    assert not rule.admits("tcp", 999) and not rule.admits("tcp", 2001)
    assert not rule.admits("tcp", 23)
    assert not rule.admits("udp", 22)
    anything = Ingress("10.0.0.0/8", "all", None)
    assert anything.admits("udp", 53) and anything.admits("icmp", 0)
    assert Ingress("s", "udp", None).admits("udp", 1)
    assert not Ingress("s", "udp", None).admits("tcp", 1)
    assert not Ingress("s", "tcp", ()).admits("tcp", 1)
    assert Ingress("s", "tcp", None).reply_only is False


def test_a_resource_types_cloud_is_its_package_or_its_prefix() -> None:
    assert resource_cloud("aws:ec2/instance:Instance") == "aws"
    assert resource_cloud("azure-native:compute:VirtualMachine") == "azure"
    assert resource_cloud("newcloud:net/rule:Rule") == "newcloud"
    assert resource_cloud("newcloud:a:b:c") == "newcloud"
    resources = [
        Resource("aws:ec2/instance:Instance", "i", "i", {}),
        Resource(STACK_TYPE, "s", "s", {}),
        Resource("pulumi:providers:aws", "p", "p", {}),
        Resource("gcp:compute/network:Network", "n", "n", {}),
    ]
    assert stack_clouds(resources) == {"aws", "gcp"}
    assert stack_clouds([]) == set()


def test_readers_of_wire_shaped_values() -> None:
    assert as_map({"a": 1}) == {"a": 1}
    assert as_map(["a"]) == {} and as_map(None) == {} and as_map("a") == {}
    assert as_list(None) == []
    assert as_list("ab") == ["ab"]
    assert as_list({"a": 1}) == [{"a": 1}]
    assert as_list(("a", "b")) == ["a", "b"]
    assert as_list([]) == []
    assert as_list(3) == [3]
    assert as_list(False) == [False]
    assert dig({"a": {"b": {"c": 1}}}, "a", "b", "c") == 1
    assert dig({"a": {"b": 2}}, "a", "x") is None
    assert dig({"a": 2}, "a", "b") is None
    assert dig({"a": 2}) == {"a": 2}
    assert is_true(True) and is_true("true") and is_true("True") and is_true("TRUE")
    assert not is_true(False) and not is_true("false") and not is_true(1)
    assert not is_true("yes") and not is_true(None) and not is_true("")
    assert list(maps([{"a": 1}, "x", None, {"b": 2}])) == [{"a": 1}, {"b": 2}]
    assert list(maps({"a": 1})) == [{"a": 1}]
    assert list(maps(None)) == []


def _recorder(found: list[Stack], reasons: list[tuple[Resource, str]]) -> Any:
    def check(stack: Stack) -> list[tuple[Resource, str]]:
        found.append(stack)
        return reasons

    return check


def test_a_policy_that_reads_no_hook_applies_everywhere() -> None:
    policy = StackPolicy(name="mine", summary="It holds.", check=lambda s: ())
    assert policy.clouds == EVERY_CLOUD == ("*",)
    assert policy.description == "It holds."
    assert policy.needs_outputs is False
    hooked = ResourcePolicy(name="x", summary="s", reads="metadata_tokens", check=lambda r: ())
    assert hooked.clouds == ("aws",)


# -- pack: the objects the engine calls --


def _policy_resource(
    type_: str, name: str, props: dict[str, Any], urn: str, deps: dict[str, Any] | None = None
) -> PolicyResource:
    return PolicyResource(type_, props, urn, name, OPTS, None, None, [], deps or {})


def test_resource_from_args_takes_the_id_prop_or_the_urn() -> None:
    args = ResourceValidationArgs("t:m:T", {"id": "real"}, "urn:1", "n", OPTS, None)
    r = resource_from_args(args)
    assert (r.type, r.name, r.id, r.urn, r.props) == ("t:m:T", "n", "real", "urn:1", {"id": "real"})
    assert resource_from_args(ResourceValidationArgs("t", {}, "urn:2", "n", OPTS, None)).id == (
        "urn:2"
    )
    assert resource_from_args(
        ResourceValidationArgs("t", {"id": ""}, "urn:3", "n", OPTS, None)
    ).id == ("urn:3")
    assert resource_from_args(
        ResourceValidationArgs("t", {"id": 5}, "urn:4", "n", OPTS, None)
    ).id == ("urn:4")


def test_stack_from_args_reads_resources_outputs_and_dependencies() -> None:
    net = _policy_resource(NET, "net", {"id": "n1"}, "urn:net")
    sub = _policy_resource(SUBNET, "sub", {}, "urn:sub", {"network": [net]})
    provider = _policy_resource("pulumi:providers:gcp", "default", {}, "urn:prov")
    root = _policy_resource(STACK_TYPE, "s", {"out": 1}, "urn:stack")
    view, seen_root = stack_from_args(StackValidationArgs([root, net, provider, sub], None))
    assert seen_root is True
    assert view.outputs == {"out": 1}
    assert [(r.type, r.name, r.id, r.urn) for r in view.resources] == [
        (NET, "net", "n1", "urn:net"),
        (SUBNET, "sub", "urn:sub", "urn:sub"),
    ]
    assert view.resources[1].deps == {"network": ("urn:net",)}
    assert view.resources[0].deps == {}
    view, seen_root = stack_from_args(StackValidationArgs([net], None))
    assert seen_root is False and view.outputs == {}


def test_a_stack_policy_reports_label_and_reason_with_the_urn() -> None:
    net = _policy_resource(NET, "net", {}, "urn:net")
    seen: list[Stack] = []
    checked = Resource(NET, "net", "x", {}, urn="urn:net")
    no_urn = Resource(NET, "bare", "x", {})
    policy = StackPolicy(
        name="mine", summary="s", check=_recorder(seen, [(checked, "bad"), (no_urn, "worse")])
    )
    pack = stack_policy(policy, EnforcementLevel.ADVISORY)
    assert pack.name == "mine" and pack.description == "s"
    assert pack.enforcement_level == EnforcementLevel.ADVISORY
    reported: list[tuple[str, str | None]] = []
    pack.validate(StackValidationArgs([net], None), lambda m, urn=None: reported.append((m, urn)))
    assert reported == [(f"{NET} net: bad", "urn:net"), (f"{NET} bare: worse", None)]
    assert seen[0].by_handle is not None  # the policy reads an indexed stack
    assert [r.urn for r in seen[0].resources] == ["urn:net"]


def test_a_stack_policy_that_needs_outputs_runs_only_when_they_are_known() -> None:
    seen: list[Stack] = []
    policy = StackPolicy(name="out", summary="s", check=_recorder(seen, []), needs_outputs=True)
    pack = stack_policy(policy, EnforcementLevel.MANDATORY)
    net = _policy_resource(NET, "net", {}, "urn:net")
    for resources in ([net], [net, _policy_resource(STACK_TYPE, "s", {}, "urn:s")]):
        with pytest.raises(_NotApplicableError) as caught:
            pack.validate(StackValidationArgs(resources, None), lambda m, urn=None: None)
        assert caught.value.reason == "the stack's outputs are not known here"
    assert seen == []
    root = _policy_resource(STACK_TYPE, "s", {"k": 1}, "urn:s")
    pack.validate(StackValidationArgs([net, root], None), lambda m, urn=None: None)
    assert [s.outputs for s in seen] == [{"k": 1}]
    plain = stack_policy(
        StackPolicy(name="p", summary="s", check=_recorder(seen, [])), EnforcementLevel.MANDATORY
    )
    plain.validate(StackValidationArgs([net], None), lambda m, urn=None: None)
    assert len(seen) == 2


def test_pack_policies_not_applicable_elsewhere_say_where_they_apply() -> None:
    seen: list[Stack] = []
    hooked = StackPolicy(
        name="h", summary="s", reads="gpu_network_cluster_only", check=_recorder(seen, [])
    )
    pack = stack_policy(hooked, EnforcementLevel.MANDATORY)
    aws = _policy_resource("aws:ec2/instance:Instance", "i", {}, "urn:i")
    with pytest.raises(_NotApplicableError) as caught:
        pack.validate(StackValidationArgs([aws], None), lambda m, urn=None: None)
    assert caught.value.reason == "applies to gcp stacks only"
    pack.validate(StackValidationArgs([], None), lambda m, urn=None: None)  # no cloud: all
    assert len(seen) == 1

    reasons: list[Resource] = []

    def check(resource: Resource) -> list[str]:
        reasons.append(resource)
        return ["one", "two"]

    imds = ResourcePolicy(name="r", summary="s", reads="metadata_tokens", check=check)
    rpack = resource_policy(imds, EnforcementLevel.ADVISORY)
    assert rpack.name == "r" and rpack.enforcement_level == EnforcementLevel.ADVISORY
    gcp = ResourceValidationArgs(NET, {}, "urn:n", "n", OPTS, None)
    with pytest.raises(_NotApplicableError) as caught:
        rpack.validate(gcp, lambda m, urn=None: None)
    assert caught.value.reason == "applies to aws resources only"
    assert reasons == []
    reported: list[tuple[str, Any]] = []
    inst = ResourceValidationArgs("aws:ec2/instance:Instance", {}, "urn:i", "i", OPTS, None)
    rpack.validate(inst, lambda m, urn="unset": reported.append((m, urn)))
    assert reported == [("one", None), ("two", None)]
    assert [r.name for r in reasons] == ["i"]


def test_pack_policies_take_the_level_asked_for() -> None:
    advisory = pack_policies(EnforcementLevel.ADVISORY)
    assert [p.name for p in advisory] == [p.name for p in ALL_POLICIES]
    assert {p.enforcement_level for p in advisory} == {EnforcementLevel.ADVISORY}
    assert [p.description for p in advisory] == [p.description for p in ALL_POLICIES]


# -- registry: which policies run, and their verdicts --


def test_applies_on_no_cloud_every_cloud_or_a_shared_cloud() -> None:
    everywhere = StackPolicy(name="e", summary="s", check=lambda s: ())
    only = StackPolicy(name="o", summary="s", reads="metadata_tokens", check=lambda s: ())
    assert applies(everywhere, {"gcp"}) and applies(everywhere, set())
    assert applies(only, set())
    assert applies(only, {"aws"}) and applies(only, {"gcp", "aws"})
    assert not applies(only, {"gcp"})
    assert len(ALL_POLICIES) == len(RESOURCE_POLICIES) + len(STACK_POLICIES)


def _world_ssh_stack() -> Stack:
    rule = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
    props = {"cidrIpv4": "0.0.0.0/0", "ipProtocol": "tcp", "fromPort": 22, "toPort": 22}
    first = Resource(rule, "a", "a", dict(props), urn="urn:a")
    second = Resource(rule, "b", "b", dict(props), urn="urn:b")
    return Stack([first, second], {})


def test_check_stack_lists_each_violation_once_in_policy_then_resource_order() -> None:
    view = _world_ssh_stack()
    found = check_stack(view)
    pairs = [(v.policy, v.resource, v.urn) for v in found]
    rule = view.resources[0].type
    assert pairs[:4] == [
        ("no-ingress-from-internet", f"{rule} a", "urn:a"),
        ("no-ingress-from-internet", f"{rule} b", "urn:b"),
        ("ssh-from-admin-ranges-only", f"{rule} a", "urn:a"),
        ("ssh-from-admin-ranges-only", f"{rule} b", "urn:b"),
    ]
    assert len(found) == len(set(found))
    doubled = Stack([*view.resources, view.resources[0]], {})
    assert check_stack(doubled) == found
    assert [p.name for p in not_applicable(view)] == ["gpu-network-cluster-only"]


def test_policies_of_other_clouds_neither_run_nor_report() -> None:
    unencrypted = Resource("gcp:compute/disk:Disk", "d", "d", {"encrypted": "false"})
    assert [v.policy for v in check_stack(Stack([unencrypted], {}))] == [TRANSIT]
    skipped = not_applicable(Stack([unencrypted], {}))
    assert [p.name for p in skipped] == [p.name for p in ALL_POLICIES if "gcp" not in p.clouds
                                         and "*" not in p.clouds]  # fmt: skip
    assert {"imdsv2-required", "encryption-at-rest"} <= {p.name for p in skipped}


def test_policies_after_one_that_does_not_apply_still_run() -> None:
    """The first resource policy reads a hook this cloud lacks; the later ones still run."""
    firewall = Resource(
        "gcp:compute/firewall:Firewall",
        "fw",
        "fw",
        {"sourceRanges": ["0.0.0.0/0"], "allows": [{"protocol": "tcp", "ports": ["22"]}]},
        urn="urn:fw",
    )
    found = check_stack(Stack([firewall], {}))
    assert [v.policy for v in found] == [
        "no-ingress-from-internet",
        "ssh-from-admin-ranges-only",
        TRANSIT,
    ]
    assert {v.resource for v in found[:2]} == {"gcp:compute/firewall:Firewall fw"}


def test_a_resource_policy_of_one_cloud_runs_on_that_clouds_stack() -> None:
    volume = Resource("aws:ebs/volume:Volume", "v", "v", {"encrypted": "false"}, urn="urn:v")
    found = check_stack(Stack([volume], {}))
    assert [(v.policy, v.resource, v.urn) for v in found] == [
        ("encryption-at-rest", "aws:ebs/volume:Volume v", "urn:v"),
        (TRANSIT, "pulumi:pulumi:Stack (stack outputs)", ""),
    ]


def test_a_policy_runs_only_on_stacks_of_the_clouds_that_provide_what_it_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A policy of a hook one cloud provides is not run on another cloud's stack, even when
    its check would flag that stack's resources; on its own cloud's stack each violation
    carries the resource's URN."""

    def every_resource(resource: Resource) -> list[str]:
        return ["flagged"]

    def every_stack_resource(stack: Stack) -> list[tuple[Resource, str]]:
        return [(r, "flagged too") for r in stack.resources]

    assert cloud.providing("metadata_tokens") == ("aws",)
    monkeypatch.setattr(
        registry,
        "RESOURCE_POLICIES",
        (ResourcePolicy(name="r", summary="-", reads="metadata_tokens", check=every_resource),),
    )
    monkeypatch.setattr(
        registry,
        "STACK_POLICIES",
        (StackPolicy(name="s", summary="-", reads="metadata_tokens", check=every_stack_resource),),
    )
    disk = Resource("gcp:compute/disk:Disk", "d", "d", {}, urn="urn:d")
    assert check_stack(Stack([disk], {})) == []
    volume = Resource("aws:ebs/volume:Volume", "v", "v", {}, urn="urn:v")
    assert check_stack(Stack([volume], {})) == [
        Violation("r", "aws:ebs/volume:Volume v", "flagged", "urn:v"),
        Violation("s", "aws:ebs/volume:Volume v", "flagged too", "urn:v"),
    ]


# -- offline: the plan as a stack, and the report's lines --


def _plan(resources: list[PlannedResource]) -> Plan:
    return Plan("dev", None, resources, {"cluster": {}})  # type: ignore[arg-type]


def test_plan_stack_keeps_each_planned_resource_with_a_urn() -> None:
    planned = PlannedResource("aws:ebs/volume:Volume", "v", "vol-1", {"encrypted": "false"})
    view = plan_stack(_plan([planned]))
    assert view.outputs == {"cluster": {}}
    [r] = view.resources
    assert (r.type, r.name, r.id) == ("aws:ebs/volume:Volume", "v", "vol-1")
    assert r.props == {"encrypted": "false"}
    assert r.urn == "urn:pulumi:dev::gpufabric::aws:ebs/volume:Volume::v"
    v, transit = check_plan(_plan([planned]))
    assert v.urn == r.urn and v.policy == "encryption-at-rest" and transit.policy == TRANSIT


def test_the_report_lists_violations_then_the_policies_that_did_not_apply() -> None:
    violations = [Violation("p1", "t n", "r1"), Violation("p2", "t m", "r2")]
    imds, rest = ALL_POLICIES[0], ALL_POLICIES[1]
    text = report(violations, [rest, imds, "not a policy"])
    assert text.splitlines() == [
        "policy: 2 violation(s) of gpufabric policies:",
        "  p1: t n: r1",
        "  p2: t m: r2",
        f"policy: not applicable to this stack's cloud: {imds.name} (aws only), "
        f"{rest.name} (aws only)",
    ]
    everything = len(ALL_POLICIES)
    assert report([]) == f"policy: all {everything} gpufabric policies that apply pass"
    assert report([], []) == report([])
    assert report([], [imds]).splitlines() == [
        f"policy: all {everything - 1} gpufabric policies that apply pass",
        f"policy: not applicable to this stack's cloud: {imds.name} (aws only)",
    ]


def test_check_and_report_of_a_plan() -> None:
    planned = PlannedResource("gcp:compute/disk:Disk", "d", "d", {})
    violations, text = check_and_report(_plan([planned]))
    assert [v.policy for v in violations] == [TRANSIT]
    lines = text.splitlines()
    assert lines[0] == "policy: 1 violation(s) of gpufabric policies:"
    assert lines[1].startswith(f"  {TRANSIT}: pulumi:pulumi:Stack (stack outputs): ")
    assert lines[2].startswith("policy: not applicable to this stack's cloud: imdsv2-required")


# -- cloud: every cloud's policy data --


def test_clouds_policy_data_by_type_and_hook() -> None:
    aws = cloud.of_type("aws:ec2/instance:Instance")
    assert aws is not None and "aws:ec2/instance:Instance" in aws.node_types
    assert cloud.of_type("azure-native:compute:VirtualMachine") is not None
    assert cloud.of_type("azure:compute:X") is None
    assert cloud.of_type("newcloud:x:Y") is None
    assert len(cloud.policies()) == 5
    assert cloud.providing("metadata_tokens") == ("aws",)
    assert cloud.providing("node_types") == ("aws", "gcp", "azure", "oci", "nebius")
    assert cloud.providing("no_such_hook") == ()
    assert cloud.hooks("metadata_tokens") == [aws.metadata_tokens]
    assert len(cloud.hooks("placement")) == 5
    assert cloud.hooks("no_such_hook") == []
    assert cloud.ingress_reader("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    assert cloud.ingress_reader("gcp:compute/firewall:Firewall")
    assert cloud.ingress_reader("newcloud:x:Y") is None


def test_gpu_families_match_whole_names_of_any_cloud() -> None:
    assert cloud.gpu_family("p5.48xlarge")
    assert cloud.gpu_family("a3-megagpu-8g")
    assert cloud.gpu_family("Standard_ND96isr_H100_v5")
    assert not cloud.gpu_family("m5.large")
    assert not cloud.gpu_family("xp5.48xlarge")
    assert not cloud.gpu_family("p5.48xlarge extra")
    assert not cloud.gpu_family("")


def test_a_description_adds_each_clouds_words() -> None:
    text = cloud.describe("imdsv2-required", "Summary.")
    assert text == ("Summary. (AWS: EC2 launch templates and instances set httpTokens=required)")
    both = cloud.describe("storage-in-node-zone", "S.")
    assert both.startswith("S. (AWS: FSx for Lustre; ")
    assert cloud.describe("no-such-policy", "Only this.") == "Only this."


def test_a_default_cloud_policy_finds_nothing() -> None:
    empty = cloud.CloudPolicy()
    r = Resource("t:m:T", "n", "n", {})
    view = Stack([r], {})
    node = Node(r, None)
    assert empty.instance_type(r) is None
    assert empty.template_of(view, r) is None
    assert list(empty.own_public_ip(r)) == []
    assert list(empty.node_public_ips(view, node)) == []
    assert list(empty.stack_public_ips(view, [node])) == []
    assert list(empty.node_zones(view, node)) == []
    assert list(empty.storage_zones(view)) == []
    assert empty.placement(view, node) == ""
    assert empty.metadata_tokens is None and empty.encrypted_at_rest is None
    assert empty.fabric_group_self_only is None and empty.gpu_network_cluster_only is None
    assert empty.gpu_family == "" and dict(empty.ingress) == {} and dict(empty.words) == {}


def _cloud_package(tmp_path: Path, name: str, policy: str | None) -> None:
    package = tmp_path / f"{name}pkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from gpufabric.clouds.spec import CloudSpec\n"
        f"CLOUD = CloudSpec(name={name!r}, display_name={name.upper()!r}, extra={name!r},\n"
        f"    extra_modules=(), pulumi_sdk='pulumi', type_prefix={name + 'x'!r},\n"
        "    region_key=None, discovery_input='', topology_source='')\n"
    )
    if policy is not None:
        (package / "policy.py").write_text(policy)


def test_a_cloud_without_policy_data_declares_nothing_and_one_with_it_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cloud_package(tmp_path, "plain", None)
    _cloud_package(
        tmp_path,
        "sixth",
        "from gpufabric.policies.cloud import CloudPolicy\n"
        "POLICY = CloudPolicy(gpu_family=r'zz\\d+', ingress={'sixthx:r:R': lambda p: ()},\n"
        "    words={'imdsv2-required': 'its words'}, metadata_tokens=lambda r: ())\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("GPUFABRIC_CLOUDS", "plain=plainpkg,sixth=sixthpkg")
    assert len(cloud.policies()) == 6
    assert cloud.of_type("plainx:r:R") is None
    sixth = cloud.of_type("sixthx:r:R")
    assert sixth is not None and sixth.gpu_family == r"zz\d+"
    assert cloud.providing("metadata_tokens") == ("aws", "sixth")
    assert cloud.ingress_reader("sixthx:r:R") is not None
    assert cloud.gpu_family("zz12") and cloud.gpu_family("p5.48xlarge")
    assert not cloud.gpu_family("zz12x")
    assert cloud.describe("imdsv2-required", "S.").endswith("; SIXTH: its words)")
    # a policy two clouds provide names both where it does not apply
    hooked = ResourcePolicy(name="r", summary="s", reads="metadata_tokens", check=lambda r: ())
    assert hooked.clouds == ("aws", "sixth")
    firewall = ResourceValidationArgs(NET, {}, "urn:n", "n", OPTS, None)
    with pytest.raises(_NotApplicableError) as caught:
        resource_policy(hooked, EnforcementLevel.MANDATORY).validate(
            firewall, lambda m, u=None: None
        )
    assert caught.value.reason == "applies to aws, sixth resources only"
    whole = StackPolicy(name="w", summary="s", reads="metadata_tokens", check=lambda s: ())
    gcp_stack = StackValidationArgs([_policy_resource(NET, "n", {}, "urn:n")], None)
    with pytest.raises(_NotApplicableError) as caught:
        stack_policy(whole, EnforcementLevel.MANDATORY).validate(gcp_stack, lambda m, u=None: None)
    assert caught.value.reason == "applies to aws, sixth stacks only"
    imds = next(p for p in ALL_POLICIES if p.name == "imdsv2-required")
    assert report([], [imds]).splitlines()[1] == (
        "policy: not applicable to this stack's cloud: imdsv2-required (aws, sixth only)"
    )


def test_no_gpu_family_anywhere_matches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cloud.registry, "packages", lambda: {})
    assert cloud.policies() == []
    assert not cloud.gpu_family("p5.48xlarge")
    assert not cloud.gpu_family("")
    assert cloud.describe("imdsv2-required", "S.") == "S."
