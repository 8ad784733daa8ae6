"""NCCL fabric profiles (src/gpufabric/nccl/profiles.yaml and each cloud package's
nccl_profiles.yaml): data rules, the choice per fabric and cloud, and rendering."""

from __future__ import annotations

import pytest

from gpufabric.catalog import lookup
from gpufabric.clouds.gcp import facts as gcp_facts
from gpufabric.errors import UserError
from gpufabric.nccl import profiles
from gpufabric.vocabulary import FABRICS

LAB_FACTS = {
    "netdevs": [
        {"name": "eth0", "operstate": "UP", "kind": "veth", "master": ""},
        {"name": "br0", "operstate": "UP", "kind": "bridge", "master": ""},
    ]
}
IB_FACTS = {
    "rdma_devices": [
        {"name": "mlx5_0", "ports": [{"number": 1, "state": "Active", "link_layer": "InfiniBand"}]},
        {"name": "mlx5_1", "ports": [{"number": 1, "state": "Down", "link_layer": "InfiniBand"}]},
        {"name": "mlx5_2", "ports": [{"number": 1, "state": "Active", "link_layer": "Ethernet"}]},
    ]
}


def names(rendered: dict) -> set[str]:
    return {e["name"] for e in rendered["conf"] + rendered["env"]}


def test_every_setting_has_a_source_and_no_profile_writes_a_deprecated_variable():
    book = profiles.book()
    banned = {d.name for d in book.deprecated}
    assert {"NCCL_IB_GDR_LEVEL", "NCCL_RINGS"} <= banned
    for prof in book.profiles.values():
        for s in prof.settings:
            assert s.source and s.name not in banned


def test_efa_leaves_plugin_managed_settings_to_aws_ofi_nccl():
    out = profiles.render({}, "efa", versions={"aws_ofi_nccl": "1.22.0"})
    managed = {v.name for v in profiles.book().plugin_managed["aws-ofi-nccl"]}
    assert names(out).isdisjoint(managed)
    assert {"NCCL_BUFFSIZE", "FI_EFA_FORK_SAFE", "NCCL_TUNER_PLUGIN"} <= {
        v["name"] for v in out["left_to_plugin"]
    }
    conf = {e["name"]: e["value"] for e in out["conf"]}
    assert conf["NCCL_NET_PLUGIN"] == "ofi"
    env = {e["name"]: e["value"] for e in out["env"]}
    assert env["LD_LIBRARY_PATH"].startswith("/opt/amazon/ofi-nccl/lib:")
    assert env["LD_LIBRARY_PATH"].endswith(
        "/opt/amazon/efa/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    )


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("1.5.0", {"FI_PROVIDER", "NCCL_PROTO", "FI_EFA_USE_DEVICE_RDMA"}),
        ("1.6.2-aws", {"FI_EFA_USE_DEVICE_RDMA"}),
        ("1.7.0", set()),
        ("", set()),  # unknown = current plugin: no legacy settings
    ],
)
def test_efa_legacy_settings_only_for_old_plugins(version: str, expected: set[str]):
    out = profiles.render({}, "efa", versions={"aws_ofi_nccl": version})
    legacy = {"FI_PROVIDER", "NCCL_PROTO", "FI_EFA_USE_DEVICE_RDMA"}
    assert names(out) & legacy == expected
    assert {o.split(" ")[0] for o in out["omitted"]} == legacy - expected


def test_selection_by_fabric_and_cloud():
    assert profiles.select("efa") == "efa"
    assert profiles.select("tcpxo", "gcp") == "gcp-tcpxo"
    assert profiles.select("roce", "gcp") == "gcp-gib"
    assert profiles.select("roce", "aws") == "roce"
    assert profiles.select("infiniband", "azure") == "azure-nd"
    assert profiles.select("infiniband") == "infiniband"
    assert profiles.select("lab") == "lab"
    with pytest.raises(UserError, match="gpufabric_fabric: 'ethernet'"):
        profiles.select("ethernet")


def test_every_fabric_has_a_profile():
    for fabric in FABRICS:  # the one list (gpufabric.stack_outputs)
        assert profiles.book().profiles[profiles.select(fabric)].fabric == fabric


def test_tcpx_profile_is_a3_high_gpudirect_tcpx():
    out = profiles.render({}, "tcpx", cloud="gcp", instance_type="a3-highgpu-8g")
    conf = {e["name"]: e["value"] for e in out["conf"]}
    assert out["profile"] == "gcp-tcpx"
    # the catalog's plugin name is the one NCCL is told to load
    assert (
        conf["NCCL_NET"] == gcp_facts.of(lookup("a3-highgpu-8g")).nccl_plugin == "GPUDirectTCPX_v7"
    )
    assert (
        conf["NCCL_GPUDIRECTTCPX_SOCKET_IFNAME"].count(",") + 1
        == lookup("a3-highgpu-8g").fabric_nics
    )
    assert {e["name"]: e["value"] for e in out["env"]}["LD_LIBRARY_PATH"].startswith(
        "/var/lib/tcpx/lib64${LD_LIBRARY_PATH:+:"
    )


def test_azure_topology_file_from_the_catalog():
    out = profiles.render({}, "infiniband", cloud="azure", instance_type="Standard_ND96isr_H100_v5")
    conf = {e["name"]: e["value"] for e in out["conf"]}
    assert conf["NCCL_TOPO_FILE"] == "/opt/microsoft/ndv5/topo.xml"
    assert conf["NCCL_IB_PCI_RELAXED_ORDERING"] == "1"
    assert {"name": "CUDA_DEVICE_ORDER", "value": "PCI_BUS_ID"}.items() <= out["env"][0].items()


def test_gcp_profiles_source_the_vendor_scripts():
    tcpxo = profiles.render({}, "tcpxo", cloud="gcp")
    assert tcpxo["source_scripts"] == ["/var/lib/tcpxo/lib64/nccl-env-profile.sh"]
    assert {"NCCL_FASTRAK_CTRL_DEV", "NCCL_FASTRAK_IFNAME"} <= names(tcpxo)
    gib = profiles.render({}, "roce", cloud="gcp")
    assert {e["name"]: e["value"] for e in gib["conf"]}["NCCL_NET"] == "gIB"


def test_ib_and_roce_hca_lists_come_from_active_ports():
    ib = profiles.render(IB_FACTS, "infiniband")
    assert {e["name"]: e["value"] for e in ib["conf"]}["NCCL_IB_HCA"] == "=mlx5_0:1"
    roce = profiles.render(IB_FACTS, "roce", gid_index=3)
    conf = {e["name"]: e["value"] for e in roce["conf"]}
    assert conf["NCCL_IB_HCA"] == "=mlx5_2:1"
    assert conf["NCCL_IB_TC"] == "106"
    assert conf["NCCL_IB_GID_INDEX"] == "3"
    auto = profiles.render(IB_FACTS, "roce")  # no reading of the host's GID table: 3
    assert {e["name"]: e["value"] for e in auto["conf"]}["NCCL_IB_GID_INDEX"] == "3"


def test_lab_profile_uses_the_lab_interface_and_says_it_is_a_lab():
    out = profiles.render(LAB_FACTS, "lab")
    assert out["lab"] is True and "LAB" in out["description"]
    conf = {e["name"]: e["value"] for e in out["conf"]}
    assert conf == {"NCCL_SOCKET_IFNAME": "=eth0", "NCCL_IB_DISABLE": "1"}


def test_extra_settings_and_their_checks():
    out = profiles.render(LAB_FACTS, "lab", extra={"NCCL_DEBUG": "WARN"})
    assert {"name": "NCCL_DEBUG", "value": "WARN"}.items() <= out["conf"][-1].items()
    with pytest.raises(UserError, match="NCCL_RINGS is deprecated"):
        profiles.render(LAB_FACTS, "lab", extra={"NCCL_RINGS": "0 1"})
    with pytest.raises(UserError, match="nccl_profile: 'nope'"):
        profiles.render(LAB_FACTS, "lab", profile="nope")


def test_book_rejects_an_unconditional_plugin_managed_setting():
    data = profiles.book().model_dump(exclude_none=True)
    data["profiles"]["efa"]["settings"].append(
        {"name": "NCCL_BUFFSIZE", "value": "8388608", "source": "an old sample script"}
    )
    with pytest.raises(ValueError, match="NCCL_BUFFSIZE is set by aws-ofi-nccl itself"):
        profiles.ProfileBook.model_validate(data)


def test_version_conditions():
    assert profiles.version_matches("1.5.0", "<=1.5.0")
    assert not profiles.version_matches("1.5.1", "<=1.5.0")
    assert profiles.version_matches("2.18.5", ">=2.18")
    with pytest.raises(UserError):
        profiles.version_matches("1.0", "~1.0")


def test_roce_qos_values_replace_the_profile_ones_and_extra_wins() -> None:
    """NCCL's traffic class must follow the NIC's QoS; no setting is written twice."""
    from gpufabric.nccl.profiles import render

    facts: dict = {"rdma_devices": [], "netdevs": []}
    qos = {"NCCL_IB_TC": 138, "NCCL_IB_SL": 4, "NCCL_IB_GID_INDEX": 3}
    out = render(facts, "roce", qos=qos)
    conf = {e["name"]: e for e in out["conf"]}
    assert [e["name"] for e in out["conf"]].count("NCCL_IB_TC") == 1
    assert conf["NCCL_IB_TC"]["value"] == "138"
    assert conf["NCCL_IB_TC"]["source"].startswith("roce_qos role")
    assert conf["NCCL_IB_GID_INDEX"]["value"] == "3"
    assert not [o for o in out["omitted"] if o.startswith("NCCL_IB_GID_INDEX")]
    both = render(facts, "roce", qos=qos, extra={"NCCL_IB_TC": "106"})
    assert {e["name"]: e["value"] for e in both["conf"]}["NCCL_IB_TC"] == "106"


def test_oci_profile_writes_the_shape_hca_list_gid_3_and_tc_41():
    assert profiles.select("roce", "oci") == "oci-roce"
    out = profiles.render(IB_FACTS, "roce", cloud="oci", instance_type="BM.GPU.H200.8")
    conf = {e["name"]: e["value"] for e in out["conf"]}
    assert conf["NCCL_IB_HCA"] == "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"
    assert (conf["NCCL_IB_GID_INDEX"], conf["NCCL_IB_TC"], conf["NCCL_IB_SL"]) == ("3", "41", "0")
    assert conf["NCCL_SOCKET_IFNAME"] == "eth0" and conf["NCCL_IB_TIMEOUT"] == "22"
    h100 = profiles.render({}, "roce", cloud="oci", instance_type="BM.GPU.H100.8")
    hcas = {e["name"]: e["value"] for e in h100["conf"]}["NCCL_IB_HCA"]
    assert hcas.count("mlx5_") == 16 and "mlx5_2," not in hcas and "mlx5_11," not in hcas


def test_oci_profile_without_a_shape_uses_the_hosts_roce_ports():
    out = profiles.render(IB_FACTS, "roce", cloud="oci")
    assert {e["name"]: e["value"] for e in out["conf"]}["NCCL_IB_HCA"] == "=mlx5_2:1"


def test_roce_qos_state_replaces_oci_tc_and_gid():
    out = profiles.render(
        {},
        "roce",
        cloud="oci",
        instance_type="BM.GPU.H100.8",
        qos={"NCCL_IB_TC": 42, "NCCL_IB_GID_INDEX": 1},
    )
    conf = {e["name"]: e for e in out["conf"]}
    assert conf["NCCL_IB_TC"]["value"] == "42" and conf["NCCL_IB_GID_INDEX"]["value"] == "1"
    assert "roce_qos" in conf["NCCL_IB_TC"]["source"]


def test_nebius_profile_topology_file_and_ucx_devices_from_the_catalog():
    assert profiles.select("infiniband", "nebius") == "nebius-ib"
    out = profiles.render(
        {}, "infiniband", cloud="nebius", instance_type="gpu-h100-sxm/8gpu-128vcpu-1600gb"
    )
    conf = {e["name"]: e["value"] for e in out["conf"]}
    env = {e["name"]: e["value"] for e in out["env"]}
    assert conf["NCCL_TOPO_FILE"] == "/var/run/nvidia-topologyd/virtualTopology.xml"
    assert conf["NCCL_IB_HCA"] == "mlx5" and conf["NCCL_SOCKET_IFNAME"] == "eth0"
    assert env["UCX_NET_DEVICES"] == ",".join(f"mlx5_{i}:1" for i in range(8))
    bare = profiles.render({}, "infiniband", cloud="nebius")
    assert {o.split(" ")[0] for o in bare["omitted"]} == {"NCCL_TOPO_FILE", "UCX_NET_DEVICES"}


def test_unknown_instance_type_names_the_variable():
    from gpufabric.errors import ConfigError

    with pytest.raises(ConfigError, match=r"^nccl_instance_type: 'BM\.GPU\.H100\.9'.*did you mean"):
        profiles.render({}, "roce", cloud="oci", instance_type="BM.GPU.H100.9")
