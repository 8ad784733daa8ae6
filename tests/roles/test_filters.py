"""The gpufabric filter plugin: thin calls into the library, errors as one-line filter errors."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "filter" / "gpufabric.py"


@pytest.fixture(scope="module")
def filters() -> dict:
    spec = importlib.util.spec_from_file_location("gpufabric_filters", PLUGIN)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FilterModule().filters()


def test_every_filter_is_registered(filters: dict):
    assert set(filters) == {
        "gpufabric_switch_problem",
        "gpufabric_encryption_problem",
        "gpufabric_host_facts",
        "gpufabric_decision",
        "gpufabric_fabric_mismatch",
        "gpufabric_fabric_nics",
        "gpufabric_roce_fabric_ports",
        "gpufabric_nccl_profile",
        "gpufabric_sysctl_plan",
        "gpufabric_ibstat_ports",
        "gpufabric_efa_devices",
        "gpufabric_run_summary",
        "gpufabric_ipsec_proposal_problems",
        "gpufabric_ipsec_datapath_plan",
        "gpufabric_ipsec_reissue_reason",
        "gpufabric_ipsec_missing_peers",
        "gpufabric_swanctl_sas",
        "gpufabric_ipsec_capture_verdict",
        "gpufabric_ipsec_is_ipv4",
        "gpufabric_ipsec_address",
        "gpufabric_ipsec_fabric_network",
        "gpufabric_ipsec_member_problems",
        "gpufabric_ipsec_guard_exempt",
        "gpufabric_ipsec_guard_ipv6",
        "gpufabric_gpg_fingerprint_check",
        "gpufabric_roce_qos_plan",
        "gpufabric_roce_qos_plans",
        "gpufabric_roce_qos_commands",
        "gpufabric_roce_qos_nccl_env",
        "gpufabric_topology_node_reports",
    }


def test_switch_and_encryption_rules_come_from_the_library(filters: dict):
    assert filters["gpufabric_switch_problem"]("tcpx", "gpufabric_fabric") == ""
    assert filters["gpufabric_switch_problem"]("", "gpufabric_fabric") == (
        "gpufabric_fabric: (unset) is not valid; use one of efa, infiniband, roce, tcpxo, tcpx, lab"
    )
    assert "use one of provider-native, ipsec, none" in filters["gpufabric_switch_problem"](
        "tls", "gpufabric_encryption"
    )
    assert filters["gpufabric_encryption_problem"]("provider-native", "p5.48xlarge") == ""
    assert filters["gpufabric_encryption_problem"]("ipsec", "p5en.48xlarge") == ""
    assert "p5en.48xlarge is not known to encrypt" in filters["gpufabric_encryption_problem"](
        "provider-native", "p5en.48xlarge"
    )
    with pytest.raises(AnsibleFilterError, match="gpufabric_instance_type: 'p9'"):
        filters["gpufabric_encryption_problem"]("provider-native", "p9")


def test_lab_path_through_the_filters(filters: dict):
    facts = filters["gpufabric_host_facts"]({"outputs": {}}, "h1")
    assert facts["summary"] == "h1: no GPU, no RDMA (fabric none); netdevs none"
    assert filters["gpufabric_decision"](facts, "efa", "lab")["run"] is False
    assert filters["gpufabric_decision"](facts, "hugepages", "lab", 5128)["run"] is False
    profile = filters["gpufabric_nccl_profile"](facts, "lab", profile="auto")
    assert profile["profile"] == "lab" and profile["lab"] is True


def test_library_errors_become_filter_errors(filters: dict):
    with pytest.raises(AnsibleFilterError, match="gpufabric_fabric: 'ethernet' is not valid"):
        filters["gpufabric_decision"]({}, "efa", "ethernet")
    with pytest.raises(AnsibleFilterError, match="unknown kind"):
        filters["gpufabric_decision"]({}, "gpu_driver", "lab")
    with pytest.raises(AnsibleFilterError, match="unexpected sysctl probe line"):
        filters["gpufabric_sysctl_plan"]([{"name": "a.b", "value": 1}], "garbage")


def test_tool_output_filters(filters: dict):
    ibstat = (
        "CA 'mlx5_0'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: Active\n"
        "\t\tRate: 400\n\t\tLink layer: InfiniBand\n"
    )
    assert filters["gpufabric_ibstat_ports"](ibstat) == [
        {
            "device": "mlx5_0",
            "port": 1,
            "state": "Active",
            "link_layer": "InfiniBand",
            "rate_gbps": 400.0,
        }
    ]
    fi = "provider: efa\n    fabric: efa\n    domain: rdmap16s27-rdm\n    type: FI_EP_RDM\n"
    assert filters["gpufabric_efa_devices"](fi) == ["rdmap16s27"]


def test_fabric_nics_filter_and_its_error(filters: dict):
    ibstat = "".join(
        f"CA 'mlx5_{i}'\n\tPort 1:\n\t\tState: Active\n\t\tRate: 400\n\t\tLink layer: InfiniBand\n"
        for i in range(8)
    )
    facts = filters["gpufabric_host_facts"]({"outputs": {"ibstat": ibstat}}, "n1")
    out = filters["gpufabric_fabric_nics"](facts, "gpu-h100-sxm/8gpu-128vcpu-1600gb")
    assert out["ok"] and len(out["fabric_up"]) == 8
    with pytest.raises(AnsibleFilterError, match="gpufabric_instance_type: 'nope'"):
        filters["gpufabric_fabric_nics"](facts, "nope")


def test_roce_fabric_ports_on_oci_leave_the_front_end_alone(filters: dict):
    ports = filters["gpufabric_roce_fabric_ports"]
    found = [f"ens{i} mlx5_{i}" for i in range(18)]
    oci = ports(found, [], [], "BM.GPU.H100.8")
    assert len(oci) == 16 and "ens2" not in oci and "ens11" not in oci
    assert ports(found, [], [], "") == [f"ens{i}" for i in range(18)]  # no type: every port
    assert ports(found, [], ["mlx5_3"], "BM.GPU.H100.8") == ["ens3"]  # devices win
    assert ports(found, ["ens2", "eth9"], [], "BM.GPU.H100.8") == ["ens2"]  # interfaces win
    assert ports([], [], [], "BM.GPU.H100.8") == []
    with pytest.raises(AnsibleFilterError, match="unexpected probe line 'ens0'"):
        ports(["ens0"], [], [], "")
