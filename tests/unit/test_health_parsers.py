"""The no-traffic parsers on whole outputs: every field of a port or a GPU row, and the lines
they must skip without losing the rest."""

from __future__ import annotations

from tests.conftest import capture

from gpufabric.health import parsers

# The layout infiniband-diags' ibstatus script prints for one port (echo "\tstate:\t\t" ...):
# its `state` / `phys state` lines hold "N: NAME", and the gid holds colons of its own.
IBSTATUS_FULL = (
    "Infiniband device 'mlx5_0' port 1 status:\n"
    "\tdefault gid:\t fe80:0000:0000:0000:a088:c203:0044:ab02\n"
    "\tbase lid:\t 0x12\n"
    "\tsm lid:\t\t 0x1\n"
    "\tstate:\t\t 4: ACTIVE\n"
    "\tphys state:\t 5: LinkUp\n"
    "\trate:\t\t 400 Gb/sec (4X NDR)\n"
    "\tlink_layer:\t InfiniBand\n"
    "\n"
    "Infiniband device 'mlx5_1' port 2 status:\n"
    "\tdefault gid:\t fe80:0000:0000:0000:a088:c203:0044:ab03\n"
    "\tstate:\t\t 1: DOWN\n"
    "\tphys state:\t 3: Disabled\n"
    "\trate:\t\t 10 Gb/sec (4X SDR)\n"
    "\tlink_layer:\t Ethernet\n"
)


def test_every_field_of_every_ibstatus_port() -> None:
    assert parsers.ibstatus_ports(IBSTATUS_FULL) == [
        {
            "device": "mlx5_0",
            "port": "1",
            "state": "ACTIVE",
            "phys_state": "LinkUp",
            "rate_gbps": 400.0,
            "link_layer": "InfiniBand",
        },
        {
            "device": "mlx5_1",
            "port": "2",
            "state": "DOWN",
            "phys_state": "Disabled",
            "rate_gbps": 10.0,
            "link_layer": "Ethernet",
        },
    ]


def test_ibstatus_lines_before_the_first_port_are_skipped() -> None:
    text = "state:\t\t 4: ACTIVE\nno colon here\n" + IBSTATUS_FULL
    assert [p["device"] for p in parsers.ibstatus_ports(text)] == ["mlx5_0", "mlx5_1"]


def test_the_real_ibstatus_excerpt_reads_whole() -> None:
    """The capture holds rate and link_layer lines only: state and phys_state stay unknown."""
    ports = parsers.ibstatus_ports(
        capture("infiniband/ibstatus_excerpt_ndr_and_eth.txt").read_text()
    )
    assert ports == [
        {
            "device": "mlx5_eth4",
            "port": "1",
            "state": None,
            "phys_state": None,
            "rate_gbps": 25.0,
            "link_layer": "Ethernet",
        },
        {
            "device": "mlx5_ib0",
            "port": "1",
            "state": None,
            "phys_state": None,
            "rate_gbps": 400.0,
            "link_layer": "InfiniBand",
        },
    ]


def test_nvidia_smi_rows_skip_a_header_and_short_lines_and_keep_reading() -> None:
    text = (
        "index, pci.bus_id, pcie.link.gen.current, pcie.link.gen.max, "
        "pcie.link.width.current, pcie.link.width.max\n"
        "0, 00000000:18:00.0, 5\n"
        "1, 00000000:2A:00.0, 4, 5, 8, 16\n"
    )
    assert parsers.nvidia_smi_pcie(text) == [
        {
            "index": 1,
            "bus_id": "00000000:2A:00.0",
            "gen_current": 4,
            "gen_max": 5,
            "width_current": 8,
            "width_max": 16,
        }
    ]
