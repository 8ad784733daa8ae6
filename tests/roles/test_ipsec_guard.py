"""The fail-closed guard script, rendered from the role's template and run for real in a
network namespace (root): kernel data path (xfrm policies) and libipsec (ip rules). The guard
covers the whole fabric subnet; SSH replies and exempt addresses stay in clear."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "roles" / "ipsec" / "templates" / "gpufabric-ipsec-guard.sh.j2"


def render(datapath: str, address: str, cidr: str, exempt: list[str]) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["quote"] = lambda v: shlex.quote(str(v))
    env.filters["comment"] = lambda v: "#\n# " + str(v) + "\n#"
    return env.from_string(TEMPLATE.read_text()).render(
        ansible_managed="Ansible managed", inventory_hostname="h1", ipsec_datapath=datapath,
        __ipsec_guard="/usr/local/sbin/gpufabric-ipsec-guard", __ipsec_address=address,
        __ipsec_fabric_cidr=cidr, __ipsec_exempt=exempt,
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
