"""The ipsec role on real lab hosts (strongSwan + kernel-libipsec: the lab kernel has no ESP).

One module-scoped run of the main job, playbooks/tune-fabric.yml with
gpufabric_encryption=ipsec, on the session lab; every test reads that state.
At the end the mesh is taken down again (services stopped, guard rules removed) so other lab
tests find plain hosts.
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpufabric.ipsec.capture import classify
from gpufabric.ipsec.swanctl import missing_peers, parse_list_sas
from gpufabric.lab.handle import REPO, LabHandle

pytestmark = pytest.mark.lab

PASSPHRASE = secrets.token_urlsafe(24)
ENV = {"ANSIBLE_ROLES_PATH": str(REPO / "roles"), "ANSIBLE_PIPELINING": "1",
       "GPUFABRIC_IPSEC_CA_PASSPHRASE": PASSPHRASE}  # fmt: skip
KEY = "/etc/swanctl/ecdsa/gpufabric-host.pem"
CRL = "/etc/swanctl/x509crl/gpufabric.crl.pem"


@dataclass
class Mesh:
    lab: LabHandle
    ca_dir: Path
    logs: list[str]

    def run_play(self, playbook: str, *args: str) -> subprocess.CompletedProcess[str]:
        extra = ("-e", "gpufabric_encryption=ipsec", "-e", f"ipsec_ca_dir={self.ca_dir}")
        proc = self.lab.ansible_playbook(playbook, *extra, *args, env=ENV)
        self.logs.append(proc.stdout + proc.stderr)
        return proc

    def play(self, playbook: str, *args: str) -> str:
        proc = self.run_play(playbook, *args)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
        return proc.stdout


def recap_changed(output: str) -> dict[str, int]:
    """changed= per host from the PLAY RECAP."""
    return {
        m[1]: int(m[2]) for m in re.finditer(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)", output, re.M)
    }


def capture(
    lab: LabHandle,
    host: str,
    seconds: int,
    during: Callable[[], None],
    what: str = "ip and not port 22",
) -> str:
    out: dict[str, str] = {}

    def run() -> None:
        cmd = f"timeout {seconds} tcpdump -i eth0 -nn -l '{what}' 2>/dev/null"
        out["text"] = lab.sh(host, cmd, check=False).stdout

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(1.5)
    during()
    thread.join()
    return out["text"]


@pytest.fixture(scope="module")
def mesh(lab: LabHandle, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mesh]:
    m = Mesh(lab, tmp_path_factory.mktemp("ipsec") / "ca", [])
    try:
        m.play("playbooks/tune-fabric.yml", "-v")
        yield m
    finally:
        for host in lab.hosts:
            lab.sh(
                host,
                "systemctl disable --now strongswan gpufabric-ipsec-guard; "
                "rm -f /etc/swanctl/conf.d/gpufabric.conf",
                check=False,
            )


def test_every_pair_has_an_sa(mesh: Mesh) -> None:
    addrs = mesh.lab.addresses
    for host in mesh.lab.hosts:
        sas = parse_list_sas(mesh.lab.run(host, "swanctl", "--list-sas").stdout)
        peers = [a for h, a in addrs.items() if h != host]
        assert missing_peers(sas, peers) == [], f"{host}: {sas}"


def test_ping_between_members_is_only_esp_on_the_wire(mesh: Mesh) -> None:
    lab = mesh.lab
    h1, h2 = lab.hosts[0], lab.hosts[1]
    ping: dict[str, int] = {}

    def traffic() -> None:
        ping["rc"] = lab.sh(h2, f"ping -c 4 -i 0.3 {lab.addresses[h1]}", check=False).returncode

    text = capture(lab, h1, 5, traffic)
    verdict = classify(text, lab.addresses.values())
    assert ping["rc"] == 0
    assert verdict.esp >= 8 and verdict.plaintext == [], text
    assert "ICMP" not in text


def test_second_run_changes_nothing(mesh: Mesh) -> None:
    out = mesh.play("playbooks/tune-fabric.yml")
    changed = recap_changed(out)  # tune-fabric's preflight also runs on localhost
    assert set(mesh.lab.hosts) <= set(changed)
    assert all(v == 0 for v in changed.values()), changed


def test_check_mode_on_the_configured_mesh_changes_nothing(mesh: Mesh) -> None:
    changed = recap_changed(mesh.play("playbooks/ipsec.yml", "--check"))
    assert set(changed) == set(mesh.lab.hosts)
    assert all(v == 0 for v in changed.values()), changed


def test_verify_encryption_playbook_passes(mesh: Mesh) -> None:
    out = mesh.play("playbooks/verify-encryption.yml")
    for host in mesh.lab.hosts:  # one success line per host: "ipsec capture on hN eth0: N ESP, ..."
        assert re.search(rf"ipsec capture on {host} eth0: [1-9]\d* ESP, \d+ IKE, no plaintext", out)


def test_host_with_a_foreign_ca_gets_no_sa_and_no_plaintext(mesh: Mesh) -> None:
    lab = mesh.lab
    rogue, h1 = lab.hosts[-1], lab.hosts[0]
    addr = lab.addresses[rogue]
    lab.sh(
        rogue,
        f"""set -e
        cd /etc/swanctl
        pki --gen --type ecdsa --size 384 --outform pem > /root/rogue-ca.key
        pki --self --ca --in /root/rogue-ca.key --dn 'CN=rogue CA' --outform pem > x509ca/gpufabric-ca.pem
        pki --pub --in {KEY} --outform pem > /root/host.pub
        pki --issue --cacert x509ca/gpufabric-ca.pem --cakey /root/rogue-ca.key --type pub \
            --in /root/host.pub --dn 'CN={rogue}' --san {addr} --outform pem > x509/gpufabric-host.pem
        systemctl restart strongswan""",
    )
    try:
        time.sleep(12)
        sas = parse_list_sas(lab.run(h1, "swanctl", "--list-sas").stdout)
        assert missing_peers(sas, [addr]) == [addr]
        assert missing_peers(sas, [lab.addresses[h] for h in lab.hosts[1:-1]]) == []
        ping: dict[str, int] = {}

        def traffic() -> None:
            ping["rc"] = lab.sh(h1, f"ping -c 3 -i 0.3 -W 1 {addr}", check=False).returncode

        text = capture(lab, rogue, 5, traffic)
        assert ping["rc"] != 0  # fail closed: h1 has no SA to the rogue host, so nothing is sent
        assert classify(text, lab.addresses.values()).plaintext == [], text
        assert "ICMP" not in text
    finally:  # the next run re-issues the certificate from the cluster CA
        mesh.play("playbooks/ipsec.yml")
    sas = parse_list_sas(lab.run(h1, "swanctl", "--list-sas").stdout)
    assert missing_peers(sas, [addr]) == []


def test_an_unenrolled_host_on_the_fabric_gets_no_plaintext(mesh: Mesh) -> None:
    """A second address on h4's fabric NIC stands for a host that joined the subnet without
    being enrolled: members send it nothing, in clear or otherwise."""
    lab = mesh.lab
    h1, h4 = lab.hosts[0], lab.hosts[-1]
    net = ipaddress.IPv4Interface(lab.addresses[h1] + "/24").network
    stranger = str(net.network_address + 99)
    lab.sh(h4, f"ip addr add {stranger}/{net.prefixlen} dev eth0")
    try:
        ping: dict[str, int] = {}

        def traffic() -> None:
            ping["rc"] = lab.sh(h1, f"ping -c 3 -i 0.3 -W 1 {stranger}", check=False).returncode

        text = capture(lab, h4, 5, traffic)
        assert ping["rc"] != 0, "a member reached an unenrolled address"
        assert stranger not in text, text  # not even one packet left h1 for it
    finally:
        lab.sh(h4, f"ip addr del {stranger}/{net.prefixlen} dev eth0", check=False)


def test_a_rogue_address_in_host_facts_stops_the_play_and_nothing_runs(mesh: Mesh) -> None:
    """h4 lies about its addresses (its `ip` prints a shell string instead of its address):
    the play fails naming h4 before anything runs on any host."""
    lab = mesh.lab
    rogue, real = lab.hosts[-1], lab.addresses[lab.hosts[-1]]
    lie = '10.0.0.9";id>gfpwned;:"'
    ip = lab.sh(rogue, "command -v ip").stdout.strip()
    assert ip.startswith("/") and ip != "/usr/local/sbin/ip"
    wrapper = f"#!/bin/sh\n{ip} \"$@\" | sed 's/{re.escape(real)}\\b/{lie}/g'\n"
    lab.sh(rogue, f"cat > /usr/local/sbin/ip <<'EOF'\n{wrapper}EOF\nchmod 0755 /usr/local/sbin/ip")
    try:
        assert lie in lab.sh(rogue, "PATH=/usr/local/sbin:$PATH ip -4 addr show eth0").stdout
        proc = mesh.run_play("playbooks/ipsec.yml")
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0
        # h4's lie reaches its facts either as a non-address or as a missing cluster address
        named = re.search(rf"ipsec: {rogue} (reports addresses that are not IPv4 addresses|"
                          rf"does not hold its cluster address {re.escape(real)})", out)  # fmt: skip
        assert named, out[-3000:]
        changed = recap_changed(proc.stdout)
        assert set(changed) == set(lab.hosts) and all(v == 0 for v in changed.values()), changed
        assert "Install strongSwan" not in out  # the play stopped on every host at the check
        for host in lab.hosts:
            found = lab.sh(host, "ls / /root /tmp | grep -c gfpwned", check=False).stdout.strip()
            assert found == "0", f"{host}: the rogue string ran"
    finally:
        lab.sh(rogue, "rm -f /usr/local/sbin/ip", check=False)


def test_a_revoked_host_is_refused_by_strongswan(mesh: Mesh, tmp_path: Path) -> None:
    """The CA's CRL (h4 no longer a member) loaded on h1: h1 refuses h4's certificate, which
    is otherwise valid, and keeps its SAs to the others."""
    lab = mesh.lab
    h1, h4 = lab.hosts[0], lab.hosts[-1]
    ca_copy = tmp_path / "ca"
    shutil.copytree(mesh.ca_dir, ca_copy)
    members = [a for h in lab.hosts[:-1] for a in ("--member", h)]
    made = subprocess.run(
        [sys.executable, "-m", "gpufabric.ipsec.ca", "crl", "--dir", str(ca_copy), *members,
         "--days", "7"], env={**os.environ, **ENV}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert f"{h4}: no longer a member" in made.stdout
    crl_pem = (ca_copy / "crl.pem").read_text()
    lab.sh(h1, f"cat > {CRL} <<'EOF'\n{crl_pem}EOF\nswanctl --load-creds --clear >/dev/null")
    try:
        lab.run(h1, "swanctl", "--terminate", "--ike", f"gf-{h4}", "--timeout", "10", check=False)
        lab.run(h4, "swanctl", "--terminate", "--ike", f"gf-{h1}", "--timeout", "10", check=False)
        tries = [
            lab.run(h1, "swanctl", "--initiate", "--child", f"gf-{h4}", "--timeout", "10",
                    check=False),
            lab.run(h4, "swanctl", "--initiate", "--child", f"gf-{h1}", "--timeout", "10",
                    check=False),
        ]  # fmt: skip
        assert all(t.returncode != 0 for t in tries), [t.stdout[-800:] for t in tries]
        log = lab.sh(h1, "journalctl -u strongswan --no-pager -o cat -n 300", check=False).stdout
        assert "certificate was revoked" in log + "".join(t.stdout for t in tries)
        sas = parse_list_sas(lab.run(h1, "swanctl", "--list-sas").stdout)
        assert missing_peers(sas, [lab.addresses[h4]]) == [lab.addresses[h4]]
        assert missing_peers(sas, [lab.addresses[h] for h in lab.hosts[1:-1]]) == []
    finally:  # strongSwan keeps the newest CRL it saw: restart h1 without it, then the
        # cluster CA's own CRL goes back through the role and the mesh is restored
        lab.sh(h1, f"rm -f {CRL}; systemctl restart strongswan", check=False)
        mesh.play("playbooks/ipsec.yml")
    sas = parse_list_sas(lab.run(h1, "swanctl", "--list-sas").stdout)
    assert missing_peers(sas, [lab.addresses[h4]]) == []


def test_no_key_material_in_any_log(mesh: Mesh) -> None:
    secrets_ = [(mesh.ca_dir / "ca.key.pem").read_text()]
    secrets_ += [mesh.lab.run(h, "cat", KEY).stdout for h in mesh.lab.hosts]
    bodies = [line for pem in secrets_ for line in pem.splitlines()[1:-1] if len(line) > 20]
    assert bodies and secrets_[0].startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    journals = [
        mesh.lab.sh(h, "journalctl --no-pager -o cat", check=False).stdout for h in mesh.lab.hosts
    ]
    for text in mesh.logs + journals:
        assert PASSPHRASE not in text
        for body in bodies:
            assert body not in text


def test_health_run_judges_hosts_with_the_mesh_up(mesh: Mesh, tmp_path: Path) -> None:
    """`gpufabric health run` over the meshed lab: strongSwan's TUN device (ipsec0, operstate
    unknown) is no fabric NIC, and the userspace ESP rate is judged against the peers."""
    from tests.lab.test_fabric_health import health

    lab = mesh.lab
    for host in lab.hosts:  # the mesh is really up: the TUN device exists on every host
        assert "ipsec0" in lab.sh(host, "ls /sys/class/net").stdout.split(), host
    code, rep = health(lab, tmp_path)
    assert code == 0, rep
    assert {h: v["status"] for h, v in rep["hosts"].items()} == dict.fromkeys(lab.hosts, "ok")
    assert any("userspace ESP" in f for f in rep["findings"]), rep["findings"]
    sas = parse_list_sas(lab.run(lab.hosts[0], "swanctl", "--list-sas").stdout)
    assert missing_peers(sas, [lab.addresses[h] for h in lab.hosts[1:]]) == []


def test_ipv6_between_members_is_refused_with_the_mesh_up(mesh: Mesh) -> None:
    """The mesh carries IPv4 only, so the guard refuses IPv6 between members: h2 reaches h1
    neither at h1's address on the fabric's IPv6 prefix nor at its link-local address, and
    no echo request reaches h1's wire, while IPv4 between them still goes through the SA."""
    lab = mesh.lab
    h1, h2 = lab.hosts[0], lab.hosts[1]
    six = {h: f"fd00:6a6::{i}" for i, h in enumerate(lab.hosts, start=11)}
    sysctl = "net.ipv6.conf.eth0.disable_ipv6"
    before = {h: lab.sh(h, f"sysctl -n {sysctl}").stdout.strip() for h in lab.hosts}
    for host in lab.hosts:
        lab.sh(host, f"sysctl -qw {sysctl}=0; ip -6 addr add {six[host]}/64 dev eth0 nodad")
    try:
        mesh.play("playbooks/ipsec.yml")  # the guard learns the prefix from the hosts' facts
        for host in lab.hosts:
            rules = lab.run(host, "ip", "-6", "rule", "show").stdout
            assert "oif eth0 blackhole" in rules, f"{host}: {rules}"
            assert "to fd00:6a6::/64 blackhole" in rules, f"{host}: {rules}"
        local = lab.sh(h1, "ip -6 -o addr show dev eth0 scope link").stdout.split()[3]
        local = local.split("/")[0]
        rcs: dict[str, int] = {}

        def traffic() -> None:
            for name, target in (("prefix", six[h1]), ("link", f"{local}%eth0")):
                ping = f"ping -6 -c 2 -i 0.3 -W 1 {target}"
                rcs[name] = lab.sh(h2, ping, check=False).returncode
            ping4 = f"ping -c 2 -i 0.3 {lab.addresses[h1]}"
            rcs["ipv4"] = lab.sh(h2, ping4, check=False).returncode

        text = capture(lab, h1, 8, traffic, what="ip6 or ip")
        assert rcs["prefix"] != 0 and rcs["link"] != 0, rcs
        assert rcs["ipv4"] == 0, rcs  # the mesh itself is untouched
        assert "echo request" not in text and "echo reply" not in text, text
    finally:
        for host in lab.hosts:
            lab.sh(host, f"ip -6 addr del {six[host]}/64 dev eth0; "
                   f"sysctl -qw {sysctl}={before[host] or 0}", check=False)  # fmt: skip
        mesh.play("playbooks/ipsec.yml")
    rules = lab.run(h1, "ip", "-6", "rule", "show").stdout
    assert "fd00:6a6::" not in rules, rules  # a prefix gone is dropped from the guard


MESH_FILES = (
    "/etc/swanctl/conf.d/gpufabric.conf",
    KEY,
    "/etc/swanctl/x509/gpufabric-host.pem",
    "/etc/swanctl/x509ca/gpufabric-ca.pem",
    CRL,
    "/etc/strongswan.d/gpufabric.conf",
    "/etc/systemd/system/strongswan.service.d/gpufabric.conf",
    "/etc/systemd/system/gpufabric-ipsec-guard.service",
    "/usr/local/sbin/gpufabric-ipsec-guard",
)


def test_encryption_none_removes_the_mesh_cleanly(mesh: Mesh) -> None:
    """The off switch (runs last: it takes the mesh down). With gpufabric_encryption=none the
    ipsec play removes strongSwan's config, the guard and the mesh; members then talk in
    clear; a second run and a --check run change nothing."""
    lab = mesh.lab
    off = ("-e", "gpufabric_encryption=none", "-e", f"ipsec_ca_dir={mesh.ca_dir}")
    check = lab.ansible_playbook("playbooks/ipsec.yml", "--check", *off, env=ENV)
    assert check.returncode == 0, check.stdout[-3000:]
    assert all(v > 0 for v in recap_changed(check.stdout).values())  # --check: would remove
    assert lab.sh(lab.hosts[0], f"test -e {KEY}", check=False).returncode == 0  # ... did not
    proc = lab.ansible_playbook("playbooks/ipsec.yml", *off, env=ENV)
    mesh.logs.append(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "ipsec: removed the gpufabric mesh" in proc.stdout
    for host in lab.hosts:
        state = lab.sh(
            host,
            "systemctl is-active strongswan; systemctl is-enabled strongswan; "
            "systemctl is-active gpufabric-ipsec-guard",
            check=False,
        ).stdout.split()
        assert state[0] != "active" and state[1] != "enabled" and state[2] != "active", state
        left = [
            p for p in MESH_FILES if lab.run(host, "test", "-e", p, check=False).returncode == 0
        ]
        assert left == [], f"{host}: {left}"
        rules = lab.run(host, "ip", "rule", "show").stdout
        assert not re.search(r"^(219|221|225|226|227):", rules, re.M), f"{host}: {rules}"
        rules6 = lab.run(host, "ip", "-6", "rule", "show").stdout
        assert not re.search(r"^(225|227):", rules6, re.M), f"{host}: {rules6}"
        assert "ipsec0" not in lab.sh(host, "ls /sys/class/net").stdout.split(), host
        assert lab.run(host, "ip", "xfrm", "policy", check=False).stdout.strip() == "", host
    h1, h2 = lab.hosts[0], lab.hosts[1]
    ping: dict[str, int] = {}

    def traffic() -> None:
        ping["rc"] = lab.sh(h2, f"ping -c 3 -i 0.3 {lab.addresses[h1]}", check=False).returncode

    text = capture(lab, h1, 4, traffic)
    assert ping["rc"] == 0 and "ICMP echo request" in text, text  # in clear: the mesh is off
    again = lab.ansible_playbook("playbooks/ipsec.yml", *off, env=ENV)
    assert again.returncode == 0, again.stdout[-3000:]
    changed = recap_changed(again.stdout)
    assert set(changed) == set(lab.hosts) and all(v == 0 for v in changed.values()), changed
