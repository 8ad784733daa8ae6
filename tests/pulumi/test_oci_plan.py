"""OCI plans: the real program under mocks builds the fabric the stack asks for."""

from __future__ import annotations

import pytest
from tests.pulumi.plans import plan_for

from gpufabric.catalog import lookup
from gpufabric.clouds.nebius.cluster import NebiusClusterArgs
from gpufabric.clouds.nebius.cluster import _check_args as nebius_check
from gpufabric.clouds.oci.cluster import OciClusterArgs
from gpufabric.clouds.oci.cluster import _check_args as oci_check
from gpufabric.clouds.oci.nodes import RDMA_PLUGINS, _pool_id
from gpufabric.plan.summary import fabric_summary
from gpufabric.stack_outputs import parse

OCI_CN = "oci:Core/clusterNetwork:ClusterNetwork"
OCI_CONF = "oci:Core/instanceConfiguration:InstanceConfiguration"
OCI_LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
OCI_SUBNET = "oci:Core/subnet:Subnet"
ISLAND = "ocid1.computehpcisland.oc1.iad.aaaaaaaaisland"
BLOCK = "ocid1.computenetworkblock.oc1.iad.aaaaaaaablock"
RES = "ocid1.capacityreservation.oc1.iad.aaaaaaaares"
OCI_SETTINGS = (
    'gpufabric:oci={"compartmentId": "ocid1.compartment.oc1..aaaaaaaac", "imageId": '
    '"ocid1.image.oc1.iad.aaaaaaaai", "sshPublicKey": "ssh-ed25519 AAAAC3Nza x"'
)
BOOT = ("gpufabric:boot.enabled=true", "gpufabric:oci.bootUrlExpires=2031-01-01T00:00:00Z")


def test_oci_cluster_network_holds_every_node_in_the_ad() -> None:
    plan = plan_for("oci-h100")
    (cn,) = plan.of_type(OCI_CN)
    (pool,) = cn.inputs["instancePools"]
    (conf,) = plan.of_type(OCI_CONF)
    assert pool["size"] == 16 and pool["instanceConfigurationId"] == conf.id
    place = cn.inputs["placementConfiguration"]
    assert place["availabilityDomain"] == "Uocm:US-ASHBURN-AD-1"
    subnets = {s.id: s for s in plan.of_type(OCI_SUBNET)}
    front = subnets[place["primaryVnicSubnets"]["subnetId"]]
    assert front.inputs["cidrBlock"] == "10.0.0.0/18" and front.inputs["prohibitPublicIpOnVnic"]
    assert "clusterConfiguration" not in cn.inputs  # no island asked for


def test_oci_nodes_get_rdma_plugins_and_no_public_ip() -> None:
    (conf,) = plan_for("oci-h100").of_type(OCI_CONF)
    launch = conf.inputs["instanceDetails"]["launchDetails"]
    assert launch["shape"] == "BM.GPU.H100.8"
    plugins = {p["name"]: p["desiredState"] for p in launch["agentConfig"]["pluginsConfigs"]}
    assert plugins == dict.fromkeys(RDMA_PLUGINS, "ENABLED")
    assert launch["createVnicDetails"]["assignPublicIp"] is False
    assert launch["metadata"]["ssh_authorized_keys"].startswith("ssh-ed25519 ")
    assert launch["instanceOptions"]["areLegacyImdsEndpointsDisabled"] is True


def test_oci_lustre_sits_in_the_nodes_ad_on_the_storage_subnet() -> None:
    plan = plan_for("oci-h100")
    (fs,) = plan.of_type(OCI_LUSTRE)
    subnets = {s.id: s for s in plan.of_type(OCI_SUBNET)}
    assert fs.inputs["availabilityDomain"] == "Uocm:US-ASHBURN-AD-1"
    assert subnets[fs.inputs["subnetId"]].inputs["cidrBlock"] == "10.0.64.0/24"
    assert fs.inputs["capacityInGbs"] == 31200
    storage = plan.outputs["storage"]
    assert (
        storage["mountCommand"].startswith("mount -t lustre ")
        and storage["mountPoint"] == "/lustre"
    )


def test_oci_island_blocks_and_reservation_reach_the_resources() -> None:
    plan = plan_for(
        "oci-h100",
        f'gpufabric:oci={{"compartmentId": "ocid1.compartment.oc1..aaaaaaaac", "imageId": '
        f'"ocid1.image.oc1.iad.aaaaaaaai", "sshPublicKey": "ssh-ed25519 AAAAC3Nza x", '
        f'"hpcIslandId": "{ISLAND}", "networkBlockIds": ["{BLOCK}"]}}',
        f'gpufabric:capacity={{"type": "reservation", "reservationId": "{RES}"}}',
    )
    (cn,) = plan.of_type(OCI_CN)
    assert cn.inputs["clusterConfiguration"] == {"hpcIslandId": ISLAND, "networkBlockIds": [BLOCK]}
    (conf,) = plan.of_type(OCI_CONF)
    assert conf.inputs["instanceDetails"]["launchDetails"]["capacityReservationId"] == RES


def test_oci_island_alone_sends_no_network_blocks() -> None:
    """An island without blocks: OCI picks the blocks inside it (no empty list sent)."""
    plan = plan_for("oci-h100", f'{OCI_SETTINGS}, "hpcIslandId": "{ISLAND}"}}')
    (cn,) = plan.of_type(OCI_CN)
    assert cn.inputs["clusterConfiguration"] == {"hpcIslandId": ISLAND}


def test_oci_boot_bundle_bucket_carries_the_stacks_tags() -> None:
    plan = plan_for("oci-h100", 'gpufabric:tags={"team": "ml"}', *BOOT)
    (bucket,) = plan.of_type("oci:ObjectStorage/bucket:Bucket")
    assert bucket.inputs["freeformTags"] == {
        "gpufabric-cluster": "oci-h100",
        "gpufabric-stack": "oci-h100",
        "team": "ml",
    }


def test_oci_node_group_has_no_id_until_the_cluster_network_has_its_pool() -> None:
    assert _pool_id(None) is None
    assert _pool_id([]) is None
    assert _pool_id([{"id": "ocid1.instancepool.oc1.iad.a", "size": 16}]) == (
        "ocid1.instancepool.oc1.iad.a"
    )


def test_oci_outputs_say_how_to_find_the_nodes() -> None:
    out = plan_for("oci-h100").outputs
    parsed = parse(out)  # the one stack outputs contract
    assert parsed.cluster.cloud == "oci" and parsed.cluster.fabric == "roce"
    assert parsed.cluster.compartment == plan_for("oci-h100").config.oci.compartment_id
    (group,) = parsed.nodes.groups
    assert (group.kind, group.id, group.count) == ("cluster-network", "<oci-h100-cn.pool0.id>", 16)
    assert out["network"]["rdma"]["hcas"] == lookup("BM.GPU.H100.8").fabric_hcas
    facts = dict(fabric_summary(plan_for("oci-h100")))
    assert "same AD as the nodes" in facts["Storage"]


def test_components_refuse_another_clouds_type() -> None:
    cfg = plan_for("oci-h100").config
    with pytest.raises(ValueError, match=r"^OciClusterArgs\.instance: .* is a nebius type"):
        oci_check(cfg, lookup("gpu-h100-sxm/8gpu-128vcpu-1600gb"))
    ncfg = plan_for("nebius-h100").config
    with pytest.raises(ValueError, match=r"^NebiusClusterArgs\.instance: .* is a oci type"):
        nebius_check(ncfg, lookup("BM.GPU.H100.8"))
    assert OciClusterArgs(config=cfg, instance=lookup("BM.GPU.H100.8")).config is cfg
    assert NebiusClusterArgs(config=ncfg, instance=lookup(ncfg.instance_type)).config is ncfg


def test_oci_outputs_name_the_nat_gateway_only_where_there_is_one() -> None:
    nat = plan_for("oci-h100")
    assert nat.outputs["network"]["natGateway"] == "<oci-h100-nat.id>"
    closed = plan_for("oci-h100", 'gpufabric:network={"cidr": "10.0.0.0/16", "egress": "none"}')
    assert "oci:Core/natGateway:NatGateway" not in {r.type for r in closed.resources}
    assert closed.outputs["network"].get("natGateway") is None
