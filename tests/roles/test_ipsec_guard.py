"""The fail-closed guard script, rendered from the role's template and run for real in a
network namespace (root): kernel data path (xfrm policies) and libipsec (ip rules). The guard
covers the whole fabric subnet; SSH replies and exempt addresses stay in clear."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "roles" / "ipsec" / "templates" / "gpufabric-ipsec-guard.sh.j2"


def render(
    datapath: str,
    address: str,
    cidr: str,
    exempt: list[str],
    interface: str = "eth0",
    ipv6: tuple[str, ...] = (),
) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["quote"] = lambda v: shlex.quote(str(v))
    env.filters["comment"] = lambda v: "#\n# " + str(v) + "\n#"
    return env.from_string(TEMPLATE.read_text()).render(
        ansible_managed="Ansible managed", inventory_hostname="h1", ipsec_datapath=datapath,
        __ipsec_guard="/usr/local/sbin/gpufabric-ipsec-guard", __ipsec_address=address,
        __ipsec_fabric_cidr=cidr, __ipsec_exempt=exempt, __ipsec_interface=interface,
        __ipsec_guard_ipv6=list(ipv6),
    )  # fmt: skip


@pytest.fixture
def netns() -> Iterator[str]:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2 (a network namespace)")
    name = f"gfguard{uuid.uuid4().hex[:8]}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def run(netns: str, *argv: str) -> str:
    proc = subprocess.run(["ip", "netns", "exec", netns, *argv], capture_output=True, text=True,
                          timeout=30)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_kernel_guard_blocks_the_subnet_below_charon_and_allows_ssh(
    netns: str, tmp_path: Path
) -> None:
    guard = tmp_path / "guard"
    guard.write_text(render("kernel", "10.9.0.11", "10.9.0.0/24", ["10.9.0.2"]))
    run(netns, "sh", str(guard), "apply")
    run(netns, "sh", str(guard), "apply")  # idempotent: update, not add
    policies = run(netns, "ip", "xfrm", "policy", "show")
    assert policies.count("\nsrc ") + 1 == 6, policies
    out_block = "src 10.9.0.11/32 dst 10.9.0.0/24 \n\tdir out action block priority 4294967000"
    in_block = "src 10.9.0.0/24 dst 10.9.0.11/32 \n\tdir in action block priority 4294967000"
    assert out_block in policies and in_block in policies
    ssh = "src 10.9.0.11/32 dst 10.9.0.0/24 proto tcp sport 22 \n\tdir out priority 4294966000"
    assert ssh in policies
    assert "src 10.9.0.2/32 dst 10.9.0.11/32 \n\tdir in priority 4294966000" in policies
    run(netns, "sh", str(guard), "remove")
    assert run(netns, "ip", "xfrm", "policy", "show").strip() == ""


def test_libipsec_guard_blackholes_the_subnet_after_the_tunnel_table(
    netns: str, tmp_path: Path
) -> None:
    guard = tmp_path / "guard"
    guard.write_text(render("libipsec", "10.9.0.11", "10.9.0.0/24", ["10.9.0.2"]))
    run(netns, "ip", "rule", "add", "pref", "221", "to", "10.9.0.12/32", "blackhole")  # legacy
    for _ in range(2):
        run(netns, "sh", str(guard), "apply")
    rules = run(netns, "ip", "rule", "show")
    assert "227:\tfrom all to 10.9.0.0/24 blackhole" in rules
    assert "225:\tfrom all ipproto tcp sport 22 lookup main" in rules
    assert "226:\tfrom all to 10.9.0.2 lookup main" in rules
    assert rules.count("dport 4500 lookup main") == 1 and "221:" not in rules
    run(netns, "sh", str(guard), "remove")
    assert not any(p in run(netns, "ip", "rule", "show") for p in ("219:", "225:", "227:"))


def test_ipv6_rules_on_both_data_paths_follow_the_prefixes_and_go_on_remove(
    netns: str, tmp_path: Path
) -> None:
    """IPv6 is refused on either data path: out of the fabric interface, to its prefixes and
    to the members' addresses; SSH replies and DHCPv6 requests stay in clear; a prefix that is
    gone is dropped by the next apply; remove leaves no IPv6 rule of the guard."""
    run(netns, "ip", "link", "add", "fab0", "type", "veth", "peer", "name", "fab1")
    for datapath in ("kernel", "libipsec"):
        guard = tmp_path / f"guard-{datapath}"
        nets = ("fd00:9::/64", "fd00:8::5/128")
        guard.write_text(render(datapath, "10.9.0.11", "10.9.0.0/24", [], "fab0", nets))
        for _ in range(2):
            run(netns, "sh", str(guard), "apply")
        rules = run(netns, "ip", "-6", "rule", "show")
        assert rules.count("227:\tfrom all oif fab0 blackhole") == 1, rules
        assert rules.count("227:\tfrom all to fd00:9::/64 blackhole") == 1, rules
        assert rules.count("227:\tfrom all to fd00:8::5 blackhole") == 1, rules
        assert rules.count("225:\tfrom all ipproto tcp sport 22 lookup main") == 1, rules
        assert rules.count("225:\tfrom all ipproto udp sport 546 dport 547 lookup main") == 1
        fewer = tmp_path / f"fewer-{datapath}"
        fewer.write_text(render(datapath, "10.9.0.11", "10.9.0.0/24", [], "fab0", nets[:1]))
        run(netns, "sh", str(fewer), "apply")
        rules = run(netns, "ip", "-6", "rule", "show")
        assert "fd00:8::5" not in rules and "to fd00:9::/64 blackhole" in rules, rules
        run(netns, "sh", str(fewer), "remove")
        rules = run(netns, "ip", "-6", "rule", "show")
        assert "225:" not in rules and "227:" not in rules, rules


@pytest.fixture
def two_hosts() -> Iterator[tuple[str, str]]:
    """Two namespaces joined by a veth pair (fab0 in each), with IPv4 and IPv6 addresses."""
    if os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("ping") is None:
        pytest.skip("needs root, iproute2 and ping (iputils-ping; two network namespaces)")
    tag = uuid.uuid4().hex[:6]
    a, b = f"gfg6a{tag}", f"gfg6b{tag}"
    for ns in (a, b):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "link", "add", f"va{tag}", "netns", a, "type", "veth", "peer",
                        "name", f"vb{tag}", "netns", b], check=True)  # fmt: skip
        for ns, dev, n in ((a, f"va{tag}", 11), (b, f"vb{tag}", 12)):
            script = (
                f"ip link set {dev} name fab0 && ip link set lo up && "
                f"ip addr add 10.9.0.{n}/24 dev fab0 && "
                f"ip addr add fd00:9::{n}/64 dev fab0 nodad && "
                f"ip link set fab0 addrgenmode eui64 && ip link set fab0 up"
            )
            subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", script], check=True)
        yield a, b
    finally:
        for ns in (a, b):
            subprocess.run(["ip", "netns", "del", ns], check=False)


def ping6(ns: str, target: str) -> int:
    return subprocess.run(
        ["ip", "netns", "exec", ns, "ping", "-6", "-c", "1", "-W", "1", target],
        capture_output=True, timeout=30, check=False,
    ).returncode  # fmt: skip


def link_local(ns: str) -> str:
    for _ in range(50):  # the kernel assigns it once the link is up (DAD: ~1 s)
        out = run(ns, "ip", "-6", "-o", "addr", "show", "dev", "fab0", "scope", "link")
        if out and "tentative" not in out:
            return out.split()[3].split("/")[0]
        time.sleep(0.1)
    raise AssertionError(f"{ns}: no link-local address on fab0")


@pytest.mark.parametrize("datapath", ["kernel", "libipsec"])
def test_ipv6_between_members_is_refused_by_the_guard_and_back_after_remove(
    two_hosts: tuple[str, str], tmp_path: Path, datapath: str
) -> None:
    """Real traffic: with the guard on member a, a reaches b neither at b's IPv6 address on
    the fabric prefix nor at b's link-local address; after remove it reaches both."""
    a, b = two_hosts
    b_local = link_local(b)
    assert ping6(a, "fd00:9::12") == 0 and ping6(a, f"{b_local}%fab0") == 0  # before: in clear
    guard = tmp_path / "guard"
    guard.write_text(render(datapath, "10.9.0.11", "10.9.0.0/24", [], "fab0", ("fd00:9::/64",)))
    run(a, "sh", str(guard), "apply")
    assert ping6(a, "fd00:9::12") != 0
    assert ping6(a, f"{b_local}%fab0") != 0
    run(a, "sh", str(guard), "remove")
    assert ping6(a, "fd00:9::12") == 0 and ping6(a, f"{b_local}%fab0") == 0
