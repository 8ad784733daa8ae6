"""The fabric-tool parsers on real captured output (the real captures, tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import capture

from gpufabric.errors import UserError
from gpufabric.facts import fi_info, ibstat, ibv_devinfo, ip_link, nvidia_smi_topo

DATA = Path(__file__).resolve().parent / "facts_data"


def fixture(rel: str) -> str:
    return capture(rel).read_text()


# --- nvidia-smi topo -m ---------------------------------------------------------------------


def test_topo_h100_13_nics_from_legend_and_numa():
    topo = nvidia_smi_topo.parse(fixture("nvidia-smi-topo/h100_8gpu_13nic_8ib_5eth.txt"))
    assert [g.name for g in topo.gpus] == [f"GPU{i}" for i in range(8)]
    assert [n.device for n in topo.nics][:2] == ["mlx5_ib0", "mlx5_ib1"]
    assert topo.nics[12].device == "mlx5_eth4"
    assert topo.gpus[0].cpu_affinity == "0-55,112-167"
    assert [g.numa_node for g in topo.gpus] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert topo.gpus[0].links["GPU1"] == "NV18"
    assert topo.gpus[0].links["NIC0"] == "PIX"
    # GPU3 is PIX to NIC3 (mlx5_ib3), PXB to NIC2: the nearest NIC is its own rail
    assert topo.nearest_nic("GPU3") == "mlx5_ib3"
    assert topo.nearest_nic("GPU6") == "mlx5_ib6"


def test_topo_b300_bonds_and_gpu_numa_id_column():
    topo = nvidia_smi_topo.parse(fixture("nvidia-smi-topo/b300_8gpu_8nic_cx8_bond_roce.txt"))
    assert len(topo.gpus) == 8 and len(topo.nics) == 8
    assert topo.nics[7].device == "mlx5_bond_7"
    assert topo.gpus[5].numa_node == 1
    assert topo.gpus[5].cpu_affinity == "64-127,192-255"
    assert topo.nearest_nic("GPU5") == "mlx5_bond_5"


def test_topo_leonardo_numa_range_and_no_self_link():
    topo = nvidia_smi_topo.parse(fixture("nvidia-smi-topo/a100_4gpu_4nic_leonardo.txt"))
    assert topo.gpus[2].numa_node == 0  # "0-1" -> first node
    assert "GPU2" not in topo.gpus[2].links
    assert topo.nics[3].links["GPU3"] == "PXB"
    assert topo.nearest_nic("GPU1") == "mlx5_1"


@pytest.mark.parametrize(
    "name",
    ["a100_8gpu_nv12_no_nics.txt", "h100_8gpu_nv18_no_nics.txt", "h100_8gpu_nv18_ht_affinity.txt"],
)
def test_topo_gpu_only_matrices(name: str):
    topo = nvidia_smi_topo.parse(fixture(f"nvidia-smi-topo/{name}"))
    assert len(topo.gpus) == 8 and topo.nics == ()
    assert topo.gpus[7].numa_node == 1
    assert topo.nearest_nic("GPU0") is None


def test_topo_tab_separated_affinity():
    topo = nvidia_smi_topo.parse(fixture("nvidia-smi-topo/h100_8gpu_nv18_ht_affinity.txt"))
    assert topo.gpus[4].cpu_affinity == "52-103,156-207"


def test_topo_empty_and_garbage():
    assert nvidia_smi_topo.parse("").gpus == ()
    with pytest.raises(UserError, match="GPU0"):
        nvidia_smi_topo.parse("NVIDIA-SMI has failed because it couldn't communicate")


# --- ibstatus (real excerpt) / ibstat / ibv_devinfo -------------------------------------


def test_ibstatus_excerpt_ndr_and_ethernet():
    ibstatus = ibstat.parse_ibstatus(fixture("infiniband/ibstatus_excerpt_ndr_and_eth.txt"))
    assert [d.name for d in ibstatus] == ["mlx5_eth4", "mlx5_ib0"]
    assert ibstatus[0].ports[0].link_layer == "Ethernet"
    assert ibstatus[0].ports[0].rate_gbps == 25.0
    assert ibstatus[1].ports[0].rate_gbps == 400.0
    assert ibstatus[1].ports[0].link_layer == "InfiniBand"


# Written by hand in the layout rdma-core's ibstat prints (not captured output; see
# facts_data/PROVENANCE.md): one NDR InfiniBand CA and one RoCE port.
IBSTAT_SAMPLE = (DATA / "ibstat_layout_sample.txt").read_text()


def test_ibstat_layout():
    devs = ibstat.parse(IBSTAT_SAMPLE)
    assert [(d.name, d.ca_type, d.firmware) for d in devs] == [
        ("mlx5_0", "MT4129", "28.39.1002"),
        ("mlx5_1", "MT4125", "22.39.1002"),
    ]
    p0, p1 = devs[0].ports[0], devs[1].ports[0]
    assert (p0.state, p0.physical_state, p0.rate_gbps, p0.link_layer, p0.base_lid) == (
        "Active",
        "LinkUp",
        400.0,
        "InfiniBand",
        12,
    )
    assert (p1.state, p1.rate_gbps, p1.link_layer) == ("Down", 2.5, "Ethernet")


def test_ibstat_nothing():
    assert ibstat.parse("") == ()


# Same: the layout libibverbs' ibv_devinfo prints (hand-written sample, not captured output).
IBV_DEVINFO_SAMPLE = (DATA / "ibv_devinfo_layout_sample.txt").read_text()


def test_ibv_devinfo_layout():
    devs = ibv_devinfo.parse(IBV_DEVINFO_SAMPLE)
    assert [d.hca_id for d in devs] == ["mlx5_0", "rdmap16s27"]
    assert devs[0].vendor_id == "0x02c9" and devs[1].vendor_id == "0x1d0f"
    port = devs[0].ports[0]
    assert (port.number, port.state, port.active_mtu, port.link_layer) == (
        1,
        "PORT_ACTIVE",
        4096,
        "InfiniBand",
    )
    assert devs[1].ports[0].link_layer == "Unspecified"


def test_ibv_devinfo_no_devices():
    assert ibv_devinfo.parse("No IB devices found\n") == ()


# --- fi_info -p efa -------------------------------------------------------------------------


def test_fi_info_p4de_four_efa_devices():
    domains = fi_info.parse(fixture("fi_info/fi_info_p_efa_rdm_p4de_4nic.txt"))
    assert len(domains) == 4
    assert {d.provider for d in domains} == {"efa"}
    assert {d.ep_type for d in domains} == {"FI_EP_RDM"}
    assert domains[0].version == "119.0"
    assert fi_info.efa_devices(domains) == (
        "rdmap16s27",
        "rdmap32s27",
        "rdmap144s27",
        "rdmap160s27",
    )


def test_fi_info_no_provider():
    assert fi_info.parse("fi_getinfo: -61 (No data available)\n") == ()


# --- ip -j -d link --------------------------------------------------------------------------


def test_ip_link_vm():
    links = ip_link.parse((DATA / "ip_j_d_link_debian12_vm.json").read_text())
    by_name = {link.name: link for link in links}
    assert by_name["lo"].link_type == "loopback"
    assert by_name["eth0"].mtu == 1400 and by_name["eth0"].kind == ""
    assert by_name["ifb0"].kind == "ifb" and by_name["ifb0"].operstate == "DOWN"


def test_ip_link_netns_veth_bridge():
    links = ip_link.parse((DATA / "ip_j_d_link_netns_veth_bridge.json").read_text())
    by_name = {link.name: link for link in links}
    assert by_name["eth0"].kind == "veth" and by_name["eth0"].mtu == 9000
    assert by_name["vh1"].master == "br0"
    assert by_name["br0"].kind == "bridge"


def test_ip_link_rejects_non_json():
    with pytest.raises(UserError, match="ip -j link"):
        ip_link.parse("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536")
