"""swanctl --list-sas and tcpdump parsing on real captures from the lab (ipsec_captures/)."""

from __future__ import annotations

from pathlib import Path

from gpufabric.ipsec.capture import classify
from gpufabric.ipsec.swanctl import missing_peers, parse_list_sas

CAPTURES = Path(__file__).resolve().parent / "ipsec_captures"
H1, H2, H3 = "10.200.2.11", "10.200.2.12", "10.200.2.13"


def _read(name: str) -> str:
    return (CAPTURES / name).read_text()


def test_all_up() -> None:
    sas = parse_list_sas(_read("swanctl_list_sas_h1_all_up.txt"))
    assert [(sa.name, sa.state, sa.remote_addr, sa.remote_id) for sa in sas] == [
        ("gf-h3", "ESTABLISHED", H3, "CN=h3"),
        ("gf-h2", "ESTABLISHED", H2, "CN=h2"),
    ]
    assert all(sa.up for sa in sas)
    assert sas[0].algorithms == "AES_GCM_16-256/PRF_HMAC_SHA2_384/ECP_384"
    child = sas[1].children[0]
    assert (child.state, child.mode, child.algorithms) == (
        "INSTALLED",
        "TUNNEL-in-UDP",
        "AES_GCM_16-256",
    )
    assert missing_peers(sas, [H2, H3]) == []


def test_one_peer_down() -> None:
    sas = parse_list_sas(_read("swanctl_list_sas_h1_h3_down.txt"))
    assert [(sa.name, sa.state, sa.up) for sa in sas] == [
        ("gf-h3", "CONNECTING", False),
        ("gf-h2", "ESTABLISHED", True),
    ]
    assert missing_peers(sas, [H2, H3]) == [H3]
    assert missing_peers([], [H2]) == [H2]


def test_capture_with_mesh_up_is_all_esp() -> None:
    verdict = classify(_read("tcpdump_h1_eth0_mesh_up_ping_from_h2_h3.txt"), [H1, H2, H3])
    assert verdict.esp == 12 and verdict.plaintext == []


def test_capture_with_sa_down_has_only_ike() -> None:
    verdict = classify(_read("tcpdump_h3_eth0_sa_down_ping_from_h1.txt"), [H1, H2, H3])
    assert (verdict.esp, verdict.ike, verdict.plaintext) == (0, 2, [])


def test_plaintext_between_members_is_reported() -> None:
    line = "18:00:00.1 IP 10.200.2.12 > 10.200.2.11: ICMP echo request, id 7, seq 1, length 64"
    other = "18:00:00.2 IP 10.200.9.9 > 10.200.2.11: ICMP echo request, id 7, seq 1, length 64"
    verdict = classify(f"{line}\n{other}\n", [H1, H2, H3])
    assert verdict.plaintext == [line]  # a non-member is not part of the mesh


def test_fields_of_each_sa_and_a_connecting_sa_has_no_algorithms() -> None:
    sas = parse_list_sas(_read("swanctl_list_sas_h1_h3_down.txt"))
    connecting = sas[0]
    assert (connecting.version, connecting.local_id, connecting.local_addr) == (
        "IKEv2",
        "%any",
        H1,
    )
    assert connecting.algorithms == "" and connecting.children == []  # "active: ..." is not one
    assert [c.name for c in sas[1].children] == ["gf-h2"]


def test_lines_before_the_first_sa_are_skipped_not_the_end() -> None:
    """strongSwan prints plugin warnings first when a plugin does not load."""
    text = _read("swanctl_list_sas_h1_all_up.txt")
    warned = "plugin 'curve25519': failed to load - not found\n" + text
    assert parse_list_sas(warned) == parse_list_sas(text)
    assert len(parse_list_sas(warned)) == 2


def test_plaintext_after_other_traffic_is_still_reported() -> None:
    """ARP and traffic of non-members come and go between members' packets."""
    arp = "18:00:00.0 ARP, Request who-has 10.200.2.12 tell 10.200.2.11, length 28"
    other = "18:00:00.1 IP 10.200.9.9 > 10.200.2.11: ICMP echo request, id 7, seq 1, length 64"
    line = "18:00:00.2 IP 10.200.2.12 > 10.200.2.11: ICMP echo request, id 7, seq 2, length 64"
    verdict = classify(f"{arp}\n{other}\n{line}\n", [H1, H2, H3])
    assert verdict.plaintext == [line]
