"""The node's own tool output, read strictly: what each field reads as when a tool leaves it
out, and one line naming the entry and the field for what no real tool prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import capture

from gpufabric.errors import UserError
from gpufabric.facts import (
    fi_info,
    host,
    ibstat,
    ibv_devinfo,
    ip_link,
    nvidia_smi_topo,
    report,
    sysctl,
)
from gpufabric.facts.models import (
    FiDomain,
    GpuTopology,
    IbDevice,
    IbPort,
    NetLink,
    TopoGpu,
    TopoNic,
    VerbsDevice,
    VerbsPort,
)

DATA = Path(__file__).resolve().parent / "facts_data"


# --- ip -j -d link --------------------------------------------------------------------------


def test_ip_link_every_field_of_a_real_capture():
    links = ip_link.parse((DATA / "ip_j_d_link_netns_veth_bridge.json").read_text())
    assert links[2] == NetLink(
        name="vh1",
        index=3,
        mtu=1500,
        operstate="UP",
        link_type="ether",
        kind="veth",
        address="2e:45:f4:80:98:81",
        master="br0",
    )


def test_ip_link_fields_left_out_read_as_their_defaults():
    """An interface with no address (a tun or WireGuard link), no master, no linkinfo."""
    text = json.dumps([{"ifindex": 1, "ifname": "wg0", "mtu": 0}])
    assert ip_link.parse(text) == (
        NetLink(
            name="wg0",
            index=1,
            mtu=0,
            operstate="UNKNOWN",
            link_type="",
            kind="",
            address="",
            master="",
        ),
    )


@pytest.mark.parametrize(
    "name",
    [
        "e" * 15,  # the longest name the kernel gives
        "enX0",  # systemd's name for a Xen netfront NIC (older EC2 types)
        "enP2p1s0f1np1",  # a PCI domain in the name (Azure, Grace hosts)
        "ib0.8001",  # an IPoIB child interface
    ],
)
def test_ip_link_real_interface_names_are_read(name: str):
    text = json.dumps([{"ifindex": 7, "ifname": name, "mtu": 9001}])
    assert ip_link.parse(text)[0].name == name


def test_ip_link_empty_text_is_no_interfaces():
    assert ip_link.parse(" \n") == ()


def _entry(**fields: object) -> str:
    return json.dumps([{"ifindex": 2, "ifname": "eth0", "mtu": 1500, **fields}])


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{"ifname": "eth0"}', "ip -j link: expected a JSON array of interfaces"),
        (
            '[{"ifindex": 2, "ifname": "eth0", "mtu": 1500}, "eth1"]',
            "ip -j link: interface 2 is str, not an object",
        ),
        ('[{"ifindex": 2, "mtu": 1500}]', "ip -j link: interface 1 has no ifname"),
        (_entry(ifname=""), "ip -j link: interface 1 has no ifname"),
        (_entry(ifname=["eth0"]), "ip -j link: interface 1 has no ifname"),
        (
            _entry(ifname="e" * 16),
            f"ip -j link: interface 1: {'e' * 16!r} is not a Linux interface name",
        ),
        (
            _entry(ifname="eth0\nx"),
            "ip -j link: interface 1: 'eth0\\nx' is not a Linux interface name",
        ),
        (_entry(ifname="a b"), "ip -j link: interface 1: 'a b' is not a Linux interface name"),
        (_entry(ifname="../x"), "ip -j link: interface 1: '../x' is not a Linux interface name"),
        (
            _entry(ifname="eth0:1"),
            "ip -j link: interface 1: 'eth0:1' is not a Linux interface name",
        ),
        (_entry(ifname=".."), "ip -j link: interface 1: '..' is not a Linux interface name"),
        (_entry(ifname="."), "ip -j link: interface 1: '.' is not a Linux interface name"),
        (
            _entry(ifname="eth\x7f"),
            "ip -j link: interface 1: 'eth\\x7f' is not a Linux interface name",
        ),
        (_entry(mtu="9001"), "ip -j link: eth0: mtu '9001' is not an integer >= 0"),
        (_entry(mtu=None), "ip -j link: eth0: mtu None is not an integer >= 0"),
        (_entry(mtu=-1), "ip -j link: eth0: mtu -1 is not an integer >= 0"),
        (_entry(mtu=True), "ip -j link: eth0: mtu True is not an integer >= 0"),
        (_entry(mtu=1500.5), "ip -j link: eth0: mtu 1500.5 is not an integer >= 0"),
        (_entry(ifindex=0), "ip -j link: eth0: ifindex 0 is not an integer >= 1"),
        (
            json.dumps([{"ifname": "eth0", "mtu": 1500}]),
            "ip -j link: eth0: ifindex None is not an integer >= 1",
        ),
        (_entry(operstate=1), "ip -j link: eth0: operstate 1 is not a string"),
        (_entry(link_type=None), "ip -j link: eth0: link_type None is not a string"),
        (_entry(address=["x"]), "ip -j link: eth0: address ['x'] is not a string"),
        (_entry(master=3), "ip -j link: eth0: master 3 is not a string"),
        (_entry(linkinfo=["veth"]), "ip -j link: eth0: linkinfo is not an object"),
        (_entry(linkinfo={"info_kind": 1}), "ip -j link: eth0: info_kind 1 is not a string"),
        (
            '[{"ifname": "eth0", "ifname": "eth1"}]',
            "ip -j link: key 'ifname' given twice in one JSON object",
        ),
    ],
)
def test_ip_link_refuses_what_iproute2_never_prints(text: str, line: str):
    with pytest.raises(UserError) as err:
        ip_link.parse(text)
    assert str(err.value) == line


def test_a_bad_mtu_in_the_node_report_is_one_line_not_a_crash():
    raw = {"outputs": {"ip_link": _entry(mtu="9001")}}
    with pytest.raises(UserError, match=r"^ip -j link: eth0: mtu '9001' is not an integer >= 0$"):
        host.summarize(raw, "h1")


# --- fi_info -p efa -------------------------------------------------------------------------


def test_fi_info_every_field_of_a_real_entry():
    domains = fi_info.parse(capture("fi_info/fi_info_p_efa_rdm_p4de_4nic.txt").read_text())
    assert domains[1] == FiDomain(
        provider="efa",
        fabric="efa",
        domain="rdmap32s27-rdm",
        version="119.0",
        ep_type="FI_EP_RDM",
        protocol="FI_PROTO_EFA",
    )


def test_fi_info_fields_left_out_read_as_empty():
    assert fi_info.parse("provider: efa\n    domain: rdmap16s27-dgrm\n") == (
        FiDomain("efa", "", "rdmap16s27-dgrm", "", "", ""),
    )


def test_fi_info_an_entry_without_its_domain_is_refused_not_counted():
    text = "provider: efa\n    domain: rdmap16s27-rdm\nprovider: efa\n    fabric: efa\n"
    with pytest.raises(UserError) as err:
        fi_info.parse(text)
    assert str(err.value) == "fi_info: entry 2 (provider efa) names no domain"


def test_fi_info_a_value_keeps_its_colons():
    """The tcp provider names its fabric by network: an IPv6 one holds colons."""
    text = "provider: tcp\n    fabric: fe80::/64\n    domain: eth0\n    type: FI_EP_MSG\n"
    (d,) = fi_info.parse(text)
    assert (d.provider, d.fabric, d.domain, d.ep_type) == ("tcp", "fe80::/64", "eth0", "FI_EP_MSG")


def test_fi_info_two_listings_one_after_the_other():
    """RDM and DGRAM listings gathered together, a blank line and a note between them: every
    entry is kept, and the RDM and DGRAM entries of one NIC are one EFA device."""
    text = (
        "provider: efa\n    domain: rdmap16s27-rdm\n    type: FI_EP_RDM\n"
        "\n"
        "-- FI_EP_DGRAM\n"
        "provider: efa\n    domain: rdmap16s27-dgrm\n    type: FI_EP_DGRAM\n"
        "provider: efa\n    domain: rdmap32s27-dgrm\n    type: FI_EP_DGRAM\n"
    )
    domains = fi_info.parse(text)
    assert [d.ep_type for d in domains] == ["FI_EP_RDM", "FI_EP_DGRAM", "FI_EP_DGRAM"]
    assert fi_info.efa_devices(domains) == ("rdmap16s27", "rdmap32s27")


@pytest.mark.parametrize("indent", [" ", "\t"])
def test_fi_info_an_indented_provider_key_starts_no_entry(indent: str):
    text = f"provider: efa\n{indent}provider: shm\n{indent}domain: rdmap16s27-rdm\n"
    assert fi_info.parse(text) == (FiDomain("efa", "", "rdmap16s27-rdm", "", "", ""),)


def test_fi_info_other_providers_are_no_efa_devices():
    text = "provider: shm\n    domain: shm\nprovider: efa\n    domain: rdmap16s27-rdm\n"
    assert fi_info.efa_devices(fi_info.parse(text)) == ("rdmap16s27",)


# --- the tune-fabric summary line ------------------------------------------------------------


def test_summary_of_a_host_where_nothing_ran():
    assert report.run_summary({}, "h1") == (
        "h1: no fabric facts; host_tuning did not run; efa did not run; "
        "doca_ofed did not run; nccl did not run"
    )


def test_summary_of_a_gpu_host_where_every_role_ran():
    hostvars = {
        "gpufabric_facts": {"summary": "gpu-7: 8 GPU, 4 EFA (fabric efa); netdevs none"},
        "host_tuning_result": {
            "applied": ["net.core.rmem_max", "net.core.wmem_max", "vm.swappiness"],
            "skipped": [],
            "memlock": "unlimited",
            "nofile": 1048576,
            "hugepages": True,
            "cpu_governor": True,
        },
        "efa_result": {"run": True, "reason": "efa: 4 EFA device(s) found"},
        "doca_ofed_result": {"run": False, "reason": "doca_ofed: skipped"},
        "nccl_result": {"profile": "p5", "lab": False, "settings": ["NCCL_A", "NCCL_B"]},
    }
    assert report.run_summary(hostvars, "gpu-7") == (
        "gpu-7: 8 GPU, 4 EFA (fabric efa); netdevs none; sysctl 3 set, limits memlock unlimited "
        "nofile 1048576, EFA hugepages, CPU governor; efa installed/verified; doca_ofed skipped; "
        "nccl profile p5: NCCL_A, NCCL_B"
    )


def test_summary_names_every_skipped_sysctl_and_an_empty_nccl_profile():
    hostvars = {
        "gpufabric_facts": {"summary": "no GPU, no RDMA (fabric none); netdevs eth0 mtu 1500"},
        "host_tuning_result": {
            "applied": [],
            "skipped": ["vm.swappiness", "kernel.numa_balancing"],
            "memlock": "unlimited",
            "nofile": 65536,
            "hugepages": False,
            "cpu_governor": False,
        },
        "nccl_result": {"profile": "lab", "lab": False, "settings": []},
    }
    assert report.run_summary(hostvars, "h2") == (
        "h2: no GPU, no RDMA (fabric none); netdevs eth0 mtu 1500; sysctl 0 set / 2 skipped "
        "(vm.swappiness, kernel.numa_balancing), limits memlock unlimited nofile 65536; "
        "efa did not run; doca_ofed did not run; nccl profile lab: no settings"
    )


# --- host_tuning's sysctl probe -----------------------------------------------------------------


def test_sysctl_plan_keeps_each_setting_whole():
    wanted = [
        {"name": "net.ipv4.tcp_rmem", "value": "4096\t87380  268435456", "why": "windows"},
        {"name": "net.core.rmem_max", "value": 268435456},
    ]
    probe = "net.ipv4.tcp_rmem|writable|4096\t87380\t268435456\nnet.core.rmem_max|writable|212992\n"
    plan = sysctl.plan(wanted, probe)
    assert plan == {
        "apply": [
            {"name": "net.ipv4.tcp_rmem", "value": "4096 87380 268435456", "why": "windows"},
            {"name": "net.core.rmem_max", "value": "268435456", "why": ""},
        ],
        "skipped": [],
        "differ": ["net.core.rmem_max"],
        "line": "",
    }


def test_sysctl_a_value_holding_the_separator_is_read_whole():
    """kernel.core_pattern pipes cores to a program: its value starts with '|'."""
    pattern = "|/usr/lib/systemd/systemd-coredump %P %u %g"
    wanted = [{"name": "kernel.core_pattern", "value": pattern}]
    same = sysctl.plan(wanted, f"kernel.core_pattern|writable|{pattern}\n")
    assert same["differ"] == [] and same["apply"][0]["value"] == pattern
    other = sysctl.plan(wanted, "kernel.core_pattern|writable|core\n")
    assert other["differ"] == ["kernel.core_pattern"]


def test_sysctl_blank_lines_in_the_probe_are_skipped_not_the_end():
    wanted = [{"name": "a.b", "value": 1}, {"name": "c.d", "value": 2}]
    plan = sysctl.plan(wanted, "\na.b|writable|1\n\nc.d|read-only|1\n")
    assert [s["name"] for s in plan["apply"]] == ["a.b"]
    assert plan["skipped"] == [{"name": "c.d", "why": sysctl.WHY["read-only"]}]


def test_sysctl_skip_line_groups_by_reason():
    wanted = [{"name": n, "value": 0} for n in ("vm.a", "net.b", "vm.c")]
    probe = "vm.a|read-only|1\nnet.b|absent|\nvm.c|read-only|1\n"
    assert sysctl.plan(wanted, probe)["line"] == (
        "host_tuning: sysctl skipped vm.a, vm.c: read-only here (lab hosts: vm.*, kernel.* and "
        "global net.core.* stay the machine's own); net.b: not present in this kernel/network "
        "namespace"
    )


@pytest.mark.parametrize("probe", ["", "a.b|writable|1\n"])
def test_sysctl_a_key_the_probe_did_not_print_is_refused_not_skipped(probe: str):
    """The probe prints a line for every key it is given; reading a missing one as "absent"
    would let the read-back pass on nothing read."""
    wanted = [{"name": "a.b", "value": 1}, {"name": "net.core.rmem_max", "value": 2}]
    with pytest.raises(UserError) as err:
        sysctl.plan(wanted, probe)
    assert str(err.value) == "host_tuning: the sysctl probe printed no line for " + (
        "a.b" if not probe else "net.core.rmem_max"
    )


@pytest.mark.parametrize("line", ["a.b|writable", "a.b|maybe|1", "a.b=1"])
def test_sysctl_a_probe_line_of_another_shape_is_one_line(line: str):
    with pytest.raises(UserError) as err:
        sysctl.plan([{"name": "a.b", "value": 1}], line + "\n")
    assert str(err.value) == f"host_tuning: unexpected sysctl probe line {line!r}"


# --- ibv_devinfo --------------------------------------------------------------------------------


def test_ibv_devinfo_every_field_of_the_sample():
    (mlx, efa) = ibv_devinfo.parse((DATA / "ibv_devinfo_layout_sample.txt").read_text())
    assert mlx == VerbsDevice(
        hca_id="mlx5_0",
        transport="InfiniBand (0)",
        fw_ver="28.39.1002",
        vendor_id="0x02c9",
        vendor_part_id="4129",
        ports=(VerbsPort(number=1, state="PORT_ACTIVE", link_layer="InfiniBand", active_mtu=4096),),
    )
    assert efa.vendor_part_id == "61345" and efa.transport == "unknown (4)"


def test_ibv_devinfo_fields_left_out_read_as_empty():
    assert ibv_devinfo.parse("hca_id:\tmlx5_3\n\t\tport:\t2\n") == (
        VerbsDevice(
            hca_id="mlx5_3",
            transport="",
            fw_ver="",
            vendor_id="",
            vendor_part_id="",
            ports=(VerbsPort(number=2, state="", link_layer="", active_mtu=None),),
        ),
    )


def test_ibv_devinfo_a_library_warning_before_the_devices_hides_nothing():
    text = (
        "libibverbs: Warning: couldn't load driver 'libvmw_pvrdma-rdmav34.so'\n"
        "hca_id:\tmlx5_0\n\tvendor_id:\t0x02c9\n\t\tport:\t1\n\t\t\tstate:\tPORT_DOWN (1)\n"
    )
    (dev,) = ibv_devinfo.parse(text)
    assert (dev.hca_id, dev.vendor_id, dev.ports[0].state) == ("mlx5_0", "0x02c9", "PORT_DOWN")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("hca_id:\t\n", "ibv_devinfo: hca_id '' is not an RDMA device name"),
        ("hca_id:\tmlx5_0 x\n", "ibv_devinfo: hca_id 'mlx5_0 x' is not an RDMA device name"),
        ("hca_id:\tmlx5_0\n\t\tport:\tone\n", "ibv_devinfo: mlx5_0: port 'one' is not a number"),
        (
            "hca_id:\tmlx5_0\n\t\tport:\t\u00b2\n",
            "ibv_devinfo: mlx5_0: port '\u00b2' is not a number",
        ),
    ],
)
def test_ibv_devinfo_refuses_what_it_never_prints(text: str, line: str):
    with pytest.raises(UserError) as err:
        ibv_devinfo.parse(text)
    assert str(err.value) == line


# --- nvidia-smi topo -m ---------------------------------------------------------------------------

SMALL_TOPO = (
    "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV18\tPIX\t0-51\t{numa}\n"
    "\n"
    "GPU1\tNV18\t X \tSYS\n"
    "NIC0\tPIX\tSYS\t X \n"
)


def test_topo_every_field_and_a_nic_without_legend():
    """A blank line inside the matrix is skipped; GPU1's row lacks its affinity columns (read as
    unknown); no NIC Legend, so the NIC keeps its column name."""
    topo = nvidia_smi_topo.parse(SMALL_TOPO.format(numa="1"))
    assert topo == GpuTopology(
        gpus=(
            TopoGpu("GPU0", 0, "0-51", 1, {"GPU1": "NV18", "NIC0": "PIX"}),
            TopoGpu("GPU1", 1, "", None, {"GPU0": "NV18", "NIC0": "SYS"}),
        ),
        nics=(TopoNic("NIC0", 0, "NIC0", {"GPU0": "PIX", "GPU1": "SYS"}),),
    )
    assert topo.nearest_nic("GPU0") == "NIC0"


@pytest.mark.parametrize(
    ("numa", "node"), [("1", 1), ("1-3", 1), ("2,3", 2), ("N/A", None), ("\u00b2", None)]
)
def test_topo_numa_affinity_keeps_the_first_node(numa: str, node: int | None):
    assert nvidia_smi_topo.parse(SMALL_TOPO.format(numa=numa)).gpus[0].numa_node == node


def test_topo_empty_is_an_empty_topology():
    assert nvidia_smi_topo.parse("") == GpuTopology(gpus=(), nics=())


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
            "nvidia-smi topo -m: no header row starting with GPU0 found",
        ),
        (
            "\tGPU0\tGPU1\nGPU0\t X \tNV18\nGPU1\tNV18\n",
            "nvidia-smi topo -m: row GPU1 has 1 link cells, expected 2",
        ),
    ],
)
def test_topo_refusals_are_one_line(text: str, line: str):
    with pytest.raises(UserError) as err:
        nvidia_smi_topo.parse(text)
    assert str(err.value) == line


# --- ibstat / ibstatus ------------------------------------------------------------------------


def test_ibstat_every_field_of_the_sample_after_a_warning_line():
    text = (
        "ibwarn: [1234] umad_init: can't read ABI version\n"
        + (DATA / "ibstat_layout_sample.txt").read_text()
    )
    devs = ibstat.parse(text)
    assert devs[0] == IbDevice(
        name="mlx5_0",
        ca_type="MT4129",
        firmware="28.39.1002",
        ports=(
            IbPort(
                number=1,
                state="Active",
                physical_state="LinkUp",
                rate_gbps=400.0,
                link_layer="InfiniBand",
                base_lid=12,
                port_guid="0x0000000000000001",
            ),
        ),
    )
    assert [d.name for d in devs] == ["mlx5_0", "mlx5_1"]


def test_ibstat_fields_left_out():
    assert ibstat.parse("CA 'mlx5_4'\n\tPort 2:\n") == (
        IbDevice("mlx5_4", "", "", (IbPort(2, "", "", None, "", None, None),)),
    )


def test_ibstatus_full_block():
    """The whole block ibstatus prints per port: states as 'N: NAME', lids in hex."""
    text = (
        "Fatal error:  device 'mlx5_9': sys files not found (/sys/class/infiniband/mlx5_9)\n"
        "Infiniband device 'mlx5_0' port 1 status:\n"
        "\tdefault gid:\t fe80:0000:0000:0000:0c42:a103:0065:4f70\n"
        "\tbase lid:\t 0x1c\n"
        "\tsm lid:\t\t 0x1\n"
        "\tstate:\t\t 4: ACTIVE\n"
        "\tphys state:\t 5: LinkUp\n"
        "\trate:\t\t 100 Gb/sec (4X EDR)\n"
        "\tlink_layer:\t InfiniBand\n"
        "\n"
        "Infiniband device 'mlx5_0' port 2 status:\n"
        "\tstate:\t\t 1: DOWN\n"
    )
    (dev,) = ibstat.parse_ibstatus(text)
    assert dev.ports == (
        IbPort(1, "ACTIVE", "LinkUp", 100.0, "InfiniBand", 28, None),
        IbPort(2, "DOWN", "", None, "", None, None),
    )


@pytest.mark.parametrize(
    ("parse", "text", "line"),
    [
        (
            ibstat.parse,
            "CA 'mlx5_0'\n\tPort 1:\n\t\tBase lid: twelve\n",
            "ibstat: mlx5_0 port 1: base lid 'twelve' is not a number",
        ),
        (
            ibstat.parse,
            "CA 'mlx5_0'\n\tPort 1:\n\t\tBase lid: 0x\n",
            "ibstat: mlx5_0 port 1: base lid '0x' is not a number",
        ),
        (ibstat.parse, "CA 'mlx5 0'\n", "ibstat: 'mlx5 0' is not an RDMA device name"),
        (
            ibstat.parse_ibstatus,
            "Infiniband device 'mlx5\t0' port 1 status:\n",
            "ibstatus: 'mlx5\\t0' is not an RDMA device name",
        ),
    ],
)
def test_ibstat_refusals_are_one_line(parse, text: str, line: str):
    with pytest.raises(UserError) as err:
        parse(text)
    assert str(err.value) == line


# --- the whole gpufabric_facts of one host --------------------------------------------------

HOST_IBSTAT = "CA 'mlx5_0'\n\tCA type: MT4129\n\tFirmware version: 28.39.1002\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tLink layer: InfiniBand\nCA 'mlx5_1'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: Down\n\t\tRate: 200\n\t\tLink layer: InfiniBand\n"
HOST_VERBS = "hca_id:\tmlx5_1\n\tfw_ver:\t28.39.2048\n\tvendor_id:\t0x02c9\n\t\tport:\t1\n\t\t\tstate:\tPORT_DOWN (1)\n\t\t\tlink_layer:\tInfiniBand\nhca_id:\tmlx5_2\n\tfw_ver:\t22.1\n\tvendor_id:\t0x02c9\n\t\tport:\t1\n\t\t\tstate:\tPORT_ACTIVE (4)\n\t\t\tlink_layer:\tEthernet\n"
HOST_LINKS = json.dumps(
    [
        {
            "ifindex": 1,
            "ifname": "lo",
            "mtu": 65536,
            "link_type": "loopback",
            "operstate": "UNKNOWN",
        },
        {
            "ifindex": 2,
            "ifname": "ens5",
            "mtu": 9001,
            "link_type": "ether",
            "operstate": "UP",
            "address": "02:00:00:00:00:01",
        },
        {
            "ifindex": 3,
            "ifname": "ib0",
            "mtu": 4092,
            "link_type": "infiniband",
            "operstate": "DOWN",
        },
    ]
)
HOST_RAW = {
    "tools": {"nvidia-smi": "/usr/bin/nvidia-smi", "ibstat": "/usr/sbin/ibstat", "fi_info": ""},
    "outputs": {"ibstat": HOST_IBSTAT, "ibv_devinfo": HOST_VERBS, "ip_link": HOST_LINKS},
    "sysfs": {
        "pci": [
            {
                "address": "0000:0a:00.0",
                "vendor": "0x10DE",
                "device": "0x2330",
                "class": "0x030200",
                "numa_node": "0",
            },
            {
                "address": "0000:0b:00.0",
                "vendor": "0x15b3",
                "device": "0x1021",
                "class": "0x020700",
                "numa_node": "0",
            },
            {
                "address": "0000:0c:00.0",
                "vendor": "0x1d0f",
                "device": "0xEFA1",
                "class": "0x020000",
                "numa_node": "1",
            },
            {
                "address": "0000:0d:00.0",
                "vendor": "0x1d0f",
                "device": "0xec20",
                "class": "0x020000",
                "numa_node": "1",
            },
            {
                "address": "0000:0e:00.0",
                "vendor": "0x8086",
                "device": "0x1572",
                "class": "0x020000",
            },
            {
                "address": "0000:0f:00.0",
                "vendor": "0x15b3",
                "device": "0xa2dc",
                "class": "0x010800",
            },
            {
                "address": "0000:10:00.0",
                "vendor": "0x10de",
                "device": "0x22a3",
                "class": "0x068000",
            },
        ],
        "infiniband": {
            "mlx5_0": {
                "pci": "0000:0b:00.0",
                "numa_node": "0",
                "netdevs": ["ib0"],
                "vendor": "0x15b3",
            },
            "rdmap12s0": {"vendor": "0x1d0f"},
        },
        "net": {
            "ens5": {"numa_node": "1", "pci": "0000:0d:00.0", "speed": "100000"},
            "ib0": {"numa_node": "-1", "speed": "bad"},
        },
    },
    "ofed_version": " OFED-internal-24.10-1.1.4 \n",
    "efa_installer_version": "  1.38.0\n",
}


def _pci(n: int) -> dict:
    return HOST_RAW["sysfs"]["pci"][n]


def test_host_facts_every_field():
    """GPU / EFA / ConnectX PCI devices told apart (ENA, an Intel NIC, an NVMe and an NVSwitch
    are none of them), ibstat's devices merged with ibv_devinfo's and sysfs', netdevs with
    their sysfs placement (an unreadable speed is None), versions trimmed, unfound tools
    dropped."""
    facts = host.summarize(HOST_RAW, "gpu-7")
    assert facts == {
        "hostname": "gpu-7",
        "gpu_count": 1,
        "gpus": [],
        "gpu_pci": [_pci(0)],
        "rdma_devices": [
            {
                "name": "mlx5_0",
                "vendor_id": "0x15b3",
                "firmware": "28.39.1002",
                "ports": [
                    {"number": 1, "state": "Active", "link_layer": "InfiniBand", "rate_gbps": 400.0}
                ],
                "pci": "0000:0b:00.0",
                "numa_node": 0,
                "netdevs": ["ib0"],
            },
            {
                "name": "mlx5_1",
                "vendor_id": "0x02c9",
                "firmware": "28.39.2048",
                "ports": [
                    {"number": 1, "state": "Down", "link_layer": "InfiniBand", "rate_gbps": 200.0}
                ],
                "pci": "",
                "numa_node": None,
                "netdevs": [],
            },
            {
                "name": "mlx5_2",
                "vendor_id": "0x02c9",
                "firmware": "22.1",
                "ports": [
                    {
                        "number": 1,
                        "state": "PORT_ACTIVE",
                        "link_layer": "Ethernet",
                        "rate_gbps": None,
                    }
                ],
                "pci": "",
                "numa_node": None,
                "netdevs": [],
            },
        ],
        "efa_devices": ["rdmap12s0"],
        "efa_pci": [_pci(2)],
        "rdma_nic_pci": [_pci(1)],
        "netdevs": [
            {
                "name": "ens5",
                "index": 2,
                "mtu": 9001,
                "operstate": "UP",
                "link_type": "ether",
                "kind": "",
                "address": "02:00:00:00:00:01",
                "master": "",
                "numa_node": 1,
                "pci": "0000:0d:00.0",
                "speed_mbps": 100000,
            },
            {
                "name": "ib0",
                "index": 3,
                "mtu": 4092,
                "operstate": "DOWN",
                "link_type": "infiniband",
                "kind": "",
                "address": "",
                "master": "",
                "numa_node": -1,
                "pci": "",
                "speed_mbps": None,
            },
        ],
        "has_gpu": True,
        "has_efa": True,
        "has_rdma": True,
        "ofed_version": "OFED-internal-24.10-1.1.4",
        "efa_installer_version": "1.38.0",
        "tools": {"ibstat": "/usr/sbin/ibstat", "nvidia-smi": "/usr/bin/nvidia-smi"},
        "fabric_detected": "efa",
        "summary": "gpu-7: 1 GPU, 1 EFA (fabric efa); netdevs ens5 mtu 9001, ib0 mtu 4092",
    }


def test_host_facts_of_a_bare_host_and_the_flags_each_find_sets():
    bare = host.summarize({})
    assert (bare["hostname"], bare["has_gpu"], bare["has_efa"], bare["has_rdma"]) == (
        "",
        False,
        False,
        False,
    )
    assert bare["efa_installer_version"] == "" and bare["summary"] == (
        "no GPU, no RDMA (fabric none); netdevs none"
    )
    only = {
        "efa_pci": {"sysfs": {"pci": [_pci(2)]}},
        "efa_sysfs": {"sysfs": {"infiniband": {"rdmap12s0": {"vendor": "0x1d0f"}}}},
        "rdma_nic_pci": {"sysfs": {"pci": [_pci(1)]}},
        "efa_fi_info": {"outputs": {"fi_info": "provider: efa\n    domain: rdmap9s0-rdm\n"}},
    }
    for name, raw in only.items():
        facts = host.summarize(raw)
        assert facts["has_rdma"] is True, name
        assert facts["has_efa"] is (name != "rdma_nic_pci"), name


def test_host_summary_names_the_rates_and_the_host():
    facts = host.summarize({"outputs": {"ibstat": HOST_IBSTAT}}, "ib-1")
    assert (
        facts["summary"] == "ib-1: no GPU, 2 RDMA @ 200/400 Gb/s (fabric infiniband); netdevs none"
    )
    no_rate = host.summarize({"outputs": {"ibv_devinfo": HOST_VERBS}})
    assert no_rate["summary"] == "no GPU, 2 RDMA (fabric infiniband); netdevs none"


def test_host_facts_each_gpu_with_its_affinity_and_nearest_nic():
    topo = capture("nvidia-smi-topo/a100_4gpu_4nic_leonardo.txt").read_text()
    facts = host.summarize({"outputs": {"nvidia_smi_topo": topo}})
    assert facts["gpus"][1] == {
        "name": "GPU1",
        "cpu_affinity": "0",
        "numa_node": 0,
        "nearest_nic": "mlx5_1",
    }


def test_host_facts_a_device_no_tool_gives_firmware_for_has_none():
    facts = host.summarize({"outputs": {"ibstat": "CA 'mlx5_7'\n\tPort 1:\n\t\tState: Active\n"}})
    assert facts["rdma_devices"][0]["firmware"] == ""
