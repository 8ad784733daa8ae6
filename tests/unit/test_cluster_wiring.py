"""Each cloud's cluster component as Pulumi records it: one `gpufabric:<cloud>:Cluster` per stack,
every resource (reads included) under it, its registered outputs the stack's exports, and the
deploy-time checks naming the key and both values in one line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pulumi.runtime import rpc
from tests.pulumi.plans import REPO

from gpufabric.catalog import lookup
from gpufabric.clouds.oci.cluster import _check_args as oci_check
from gpufabric.clouds.oci.settings import OciStackConfig
from gpufabric.errors import UserError
from gpufabric.plan import Plan, run_plan, runner
from gpufabric.plan.mocks import CapturingMonitor, RecordingMocks

RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
OCI_BOOT_EXPIRES = "gpufabric:oci.bootUrlExpires=2031-01-01T00:00:00Z"
ONE = "cr-0123456789abcdef0"
RESERVED = f'gpufabric:capacity={{"type": "reservation", "reservationId": "{ONE}"}}'
SHARES = [
    "gpufabric:nodes=5",
    "gpufabric:nodeGroup=instances",
    "gpufabric:capacity.type=reservation",
    'gpufabric:capacity.reservations=[{"id":"cr-0a0000000000000aa","nodes":3},'
    '{"id":"cr-0b0000000000000bb","nodes":2}]',
]


@dataclass
class Tree:
    """What the program registered with Pulumi: each resource's URN -> (type, name, parent URN,
    custom), and each URN's registered outputs."""

    nodes: dict[str, tuple[str, str, str, bool]] = field(default_factory=dict)
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def components(self, token: str) -> list[str]:
        return [urn for urn, (typ, *_) in self.nodes.items() if typ == token]

    def ancestors(self, urn: str) -> list[str]:
        chain = []
        parent = self.nodes[urn][2]
        while parent:
            chain.append(parent)
            parent = self.nodes[parent][2] if parent in self.nodes else ""
        return chain


def planned(
    stack: str, *overrides: str, mocks: type[RecordingMocks] = RecordingMocks, root: Path = REPO
):
    """The plan and the resource tree of `stack` (the program under `root`), in-process."""
    tree = Tree()

    class TreeMonitor(CapturingMonitor):
        def RegisterResource(self, request):
            response = super().RegisterResource(request)
            tree.nodes[response.urn] = (request.type, request.name, request.parent, request.custom)
            return response

        def ReadResource(self, request):
            response = super().ReadResource(request)
            tree.nodes[response.urn] = (request.type, request.name, request.parent, True)
            return response

        def RegisterResourceOutputs(self, request):
            tree.outputs[request.urn] = rpc.deserialize_properties(request.outputs)
            return super().RegisterResourceOutputs(request)

    saved = runner.CapturingMonitor
    runner.CapturingMonitor = TreeMonitor  # type: ignore[misc]
    try:
        plan = run_plan(root, stack, list(overrides), make_mocks=mocks)
    finally:
        runner.CapturingMonitor = saved  # type: ignore[misc]
    return plan, tree


def check_tree(plan: Plan, tree: Tree, cloud: str) -> str:
    """One component of the cloud's type named after the cluster, right under the stack; every
    other resource below it; its registered outputs are the stack's exports."""
    (component,) = tree.components(f"gpufabric:{cloud}:Cluster")
    _, name, parent, custom = tree.nodes[component]
    assert name == plan.config.name
    assert not custom
    assert tree.nodes[parent][0] == "pulumi:pulumi:Stack"
    stray = [
        (t, n)
        for urn, (t, n, _, _) in tree.nodes.items()
        if urn not in (component, parent) and component not in tree.ancestors(urn)
    ]
    assert stray == []
    assert runner._tidy(tree.outputs[component]) == plan.outputs
    return component


@pytest.mark.parametrize(
    ("stack", "overrides"),
    [
        ("aws-h100", ()),
        (
            "aws-h100",
            (RESERVED, "gpufabric:storage.efa=true", "gpufabric:storage.capacityGib=4800"),
        ),
        ("aws-h100", tuple(SHARES)),
        ("aws-h100", ("gpufabric:boot.enabled=true",)),
        ("gcp-a3-mega", ()),
        ("gcp-a3-ultra", ()),
        ("oci-h100", ()),
        ("oci-h100", ("gpufabric:boot.enabled=true", OCI_BOOT_EXPIRES)),
    ],
)
def test_every_resource_sits_under_one_cluster_component(
    stack: str, overrides: tuple[str, ...]
) -> None:
    plan, tree = planned(stack, *overrides)
    check_tree(plan, tree, stack.split("-")[0])
    # the reservations are read under the component too (a read of another zone fails `up`)
    reads = [n for t, n, _, _ in tree.nodes.values() if t == RESERVATION]
    if RESERVED in overrides:
        assert reads == ["aws-h100-reservation"]
    if SHARES[-1] in overrides:
        assert sorted(reads) == ["aws-h100-reservation-0", "aws-h100-reservation-1"]
        assert not [r for r in plan.resources if r.type == RESERVATION]


def test_cluster_name_names_the_component_and_every_tag() -> None:
    plan, tree = planned(
        "aws-h100", "gpufabric:clusterName=train-a", 'gpufabric:tags={"team": "ml"}'
    )
    check_tree(plan, tree, "aws")
    tagged = [r for r in plan.resources if isinstance(r.inputs.get("tags"), dict)]
    assert tagged
    for r in tagged:
        assert {
            k: r.inputs["tags"][k] for k in ("gpufabric:cluster", "gpufabric:stack", "team")
        } == {
            "gpufabric:cluster": "train-a",
            "gpufabric:stack": "aws-h100",
            "team": "ml",
        }, r.name


NESTED = """
import pulumi
from gpufabric.clouds.{cloud} import cluster
from gpufabric.config import from_pulumi

cfg = from_pulumi()
outer = pulumi.ComponentResource("test:index:Outer", "outer")
args = cluster.{cls}Args(config=cfg, instance=cfg.instance)
cluster.{cls}(cfg.name, args, pulumi.ResourceOptions(parent=outer)).outputs.export()
"""


@pytest.mark.parametrize(
    ("stack", "cls"),
    [("aws-h100", "AwsCluster"), ("gcp-a3-ultra", "GcpCluster"), ("oci-h100", "OciCluster")],
)
def test_a_program_of_its_own_can_nest_the_component(tmp_path: Path, stack: str, cls: str) -> None:
    """The component takes its resource options: placed under another component of a user's
    program, it and everything it builds sit there."""
    cloud = stack.split("-")[0]
    (tmp_path / "stacks").symlink_to(REPO / "stacks")
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "__main__.py").write_text(NESTED.format(cloud=cloud, cls=cls))
    plan, tree = planned(stack, root=tmp_path)
    (outer,) = tree.components("test:index:Outer")
    (component,) = tree.components(f"gpufabric:{cloud}:Cluster")
    assert tree.nodes[component][2] == outer
    custom = [urn for urn, node in tree.nodes.items() if node[3]]
    assert custom and all(component in tree.ancestors(urn) for urn in custom)
    assert runner._tidy(tree.outputs[component]) == plan.outputs


# ------------------------------------------------------------------ AWS reservations read back


def _answering(only: str = "", **attrs: str) -> type[RecordingMocks]:
    """A cloud whose reservations (those whose resource name ends with `only`) answer `attrs`."""

    class Answer(RecordingMocks):
        def _computed(self, typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
            out = super()._computed(typ, name, inputs)
            if typ == RESERVATION and name.endswith(only):
                out.update(attrs)
            return out

    return Answer


def _refusal(overrides: list[str], only: str = "", **attrs: str) -> str:
    with pytest.raises(UserError) as err:
        run_plan(REPO, "aws-h100", overrides, make_mocks=_answering(only, **attrs))
    return str(err.value)


def test_reservation_in_another_zone_is_one_line_naming_both_zones() -> None:
    assert _refusal([RESERVED], availabilityZone="us-east-1d") == (
        f"gpufabric:capacity.reservationId: {ONE} is in us-east-1d, "
        "but gpufabric:zone is us-east-1a"
    )


def test_reservation_of_another_type_is_one_line_naming_both_types() -> None:
    assert _refusal([RESERVED], instanceType="p4d.24xlarge") == (
        f"gpufabric:capacity.reservationId: {ONE} reserves p4d.24xlarge, "
        "but gpufabric:instanceType is p5.48xlarge"
    )


def test_each_of_several_reservations_is_checked_and_named_under_its_key() -> None:
    assert _refusal(SHARES, "-1", availabilityZone="us-east-1c") == (
        "gpufabric:capacity.reservations: cr-0b0000000000000bb is in us-east-1c, "
        "but gpufabric:zone is us-east-1a"
    )
    assert _refusal(SHARES, "-0", instanceType="p5e.48xlarge") == (
        "gpufabric:capacity.reservations: cr-0a0000000000000aa reserves p5e.48xlarge, "
        "but gpufabric:instanceType is p5.48xlarge"
    )


def test_a_reservation_in_the_stacks_zone_and_type_deploys() -> None:
    same = _answering(availabilityZone="us-east-1a", instanceType="p5.48xlarge")
    plan = run_plan(REPO, "aws-h100", [RESERVED], make_mocks=same)
    assert plan.outputs["network"]["placementGroup"] == {"source": "reservation"}
    # a read the cloud answers without zone or type (unknown in a preview) is not refused
    unknown = _answering(availabilityZone="", instanceType="")
    plan = run_plan(REPO, "aws-h100", SHARES, make_mocks=unknown)
    assert len(plan.outputs["nodes"]["groups"][0]["members"]) == 5


# ------------------------------------------------------------------ GCP and OCI constructor checks


def test_gcp_project_other_than_the_providers_is_one_line_naming_both() -> None:
    with pytest.raises(UserError) as err:
        run_plan(REPO, "gcp-a3-mega", ["gcp:project=another-project"])
    assert str(err.value) == (
        "gpufabric:gcp.project: 'my-gpu-project' is not valid; it must match "
        "gcp:project 'another-project' (the provider's project)"
    )


def test_oci_component_refuses_a_node_group_other_than_one_cluster_network() -> None:
    cfg = run_plan(REPO, "oci-h100").config
    assert isinstance(cfg, OciStackConfig)
    itype = lookup("BM.GPU.H100.8")
    assert oci_check(cfg, itype) == cfg.oci.compartment_id
    bad = cfg.model_copy(update={"node_group": "instances"})
    with pytest.raises(ValueError) as err:
        oci_check(bad, itype)
    assert str(err.value) == (
        "OciClusterArgs.config.node_group: OCI builds one cluster network (group)"
    )
    with pytest.raises(ValueError) as err:
        oci_check(cfg.model_copy(update={"instance_type": "BM.GPU.H200.8"}), itype)
    assert str(err.value) == (
        "OciClusterArgs.instance: BM.GPU.H100.8 does not match config instanceType BM.GPU.H200.8"
    )


def test_aws_component_refuses_a_catalog_entry_not_its_configs() -> None:
    import pulumi

    from gpufabric.clouds.aws.cluster import AwsCluster, AwsClusterArgs
    from gpufabric.clouds.aws.settings import AwsStackConfig
    from gpufabric.plan.mocks import MockFacts

    cfg = run_plan(REPO, "aws-h100").config
    assert isinstance(cfg, AwsStackConfig)
    pulumi.runtime.set_mocks(RecordingMocks(MockFacts(region=cfg.region, zone=cfg.zone)))
    with pytest.raises(ValueError) as err:
        AwsCluster("x", AwsClusterArgs(config=cfg, instance=lookup("p4d.24xlarge")))
    assert str(err.value) == (
        "AwsClusterArgs.instance: p4d.24xlarge does not match config instanceType p5.48xlarge"
    )
    with pytest.raises(ValueError) as err:
        AwsCluster("x", AwsClusterArgs(config=cfg, instance=lookup("a3-megagpu-8g")))
    assert str(err.value) == "AwsClusterArgs.instance: a3-megagpu-8g is a gcp type, not aws"


def test_oci_outputs_name_the_island_and_blocks_the_cluster_network_was_placed_in() -> None:
    island = "ocid1.computehpcisland.oc1.iad.aaaaaaaaisland"
    block = "ocid1.computenetworkblock.oc1.iad.aaaaaaaablock"
    plan = run_plan(
        REPO,
        "oci-h100",
        [
            f'gpufabric:oci={{"compartmentId": "ocid1.compartment.oc1..aaaaaaaac", "imageId": '
            f'"ocid1.image.oc1.iad.aaaaaaaai", "sshPublicKey": "ssh-ed25519 AAAAC3Nza x", '
            f'"hpcIslandId": "{island}", "networkBlockIds": ["{block}"]}}'
        ],
    )
    assert plan.outputs["network"]["placementGroup"] == {
        "kind": "cluster-network",
        "availabilityDomain": "Uocm:US-ASHBURN-AD-1",
        "hpcIslandId": island,
        "networkBlockIds": [block],
    }
    assert plan.outputs["cluster"]["compartment"] == "ocid1.compartment.oc1..aaaaaaaac"


def test_gcp_and_oci_components_refuse_another_clouds_catalog_entry_in_one_line() -> None:
    from gpufabric.clouds.gcp.cluster import _check_args as gcp_check
    from gpufabric.clouds.gcp.settings import GcpStackConfig

    gcp = run_plan(REPO, "gcp-a3-mega").config
    assert isinstance(gcp, GcpStackConfig)
    with pytest.raises(ValueError) as err:
        gcp_check(gcp, lookup("p5.48xlarge"))
    assert str(err.value) == "GcpClusterArgs.instance: p5.48xlarge is a aws type, not gcp"
    with pytest.raises(ValueError) as err:
        gcp_check(gcp, lookup("a3-ultragpu-8g"))
    assert str(err.value) == (
        "GcpClusterArgs.instance: a3-ultragpu-8g does not match config instanceType a3-megagpu-8g"
    )
    oci = run_plan(REPO, "oci-h100").config
    assert isinstance(oci, OciStackConfig)
    with pytest.raises(ValueError) as err:
        oci_check(oci, lookup("a3-megagpu-8g"))
    assert str(err.value) == "OciClusterArgs.instance: a3-megagpu-8g is a gcp type, not oci"
