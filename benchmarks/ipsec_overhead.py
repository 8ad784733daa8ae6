"""IPsec overhead in the lab: iperf3 between two lab hosts, plaintext vs IPsec, with CPU use.

    sudo .venv/bin/python benchmarks/ipsec_overhead.py [--seconds 5]

Starts its own 2-host lab ("ipsecbench"), measures plaintext TCP first, then runs
playbooks/ipsec.yml (gpufabric_encryption=ipsec, a throw-away CA) and measures again, side by
side in one run; then removes the lab. Prints ratios. The lab kernel has no ESP, so the IPsec
figures come from strongSwan's USERSPACE libipsec data path: they are NOT representative of the
kernel data path or of ConnectX crypto/packet offload on real nodes.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import tempfile
import time
from dataclasses import dataclass

from gpufabric.lab.handle import REPO, LabHandle

LAB = "ipsecbench"
DISCLAIMER = (
    "NOTE: lab figures are from strongSwan's userspace libipsec data path (the lab kernel has no "
    "ESP); they are not representative of kernel IPsec or NIC offload on real nodes."
)


@dataclass
class Run:
    gbps: float
    sender_cpu: float  # iperf3 client host_total %
    receiver_cpu: float  # iperf3 server remote_total %
    charon_cpu: float  # charon on both hosts, % of one core, summed (0 without IPsec)


def charon_ticks(lab: LabHandle, host: str) -> int:
    out = lab.sh(host, "pid=$(pidof charon-systemd) && cat /proc/$pid/stat", check=False).stdout
    fields = out.rsplit(")", 1)[-1].split()
    return int(fields[11]) + int(fields[12]) if len(fields) > 12 else 0  # utime + stime


def iperf(lab: LabHandle, server: str, client: str, seconds: int) -> Run:
    lab.sh(server, "iperf3 -s -1 -D")
    time.sleep(0.5)
    before = sum(charon_ticks(lab, h) for h in (server, client))
    start = time.monotonic()
    out = lab.run(client, "iperf3", "-c", lab.addresses[server], "-t", str(seconds), "-J").stdout
    elapsed = time.monotonic() - start
    after = sum(charon_ticks(lab, h) for h in (server, client))
    end = json.loads(out)["end"]
    hz = os.sysconf("SC_CLK_TCK")
    return Run(
        gbps=end["sum_received"]["bits_per_second"] / 1e9,
        sender_cpu=end["cpu_utilization_percent"]["host_total"],
        receiver_cpu=end["cpu_utilization_percent"]["remote_total"],
        charon_cpu=100.0 * (after - before) / hz / elapsed,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    print(DISCLAIMER)
    lab = LabHandle.start(LAB, nodes=2, leaves=1)
    try:
        server, client = lab.hosts
        plain = iperf(lab, server, client, args.seconds)
        with tempfile.TemporaryDirectory() as ca_dir:
            proc = lab.ansible_playbook(
                "playbooks/ipsec.yml", "-e", "gpufabric_encryption=ipsec",
                "-e", f"ipsec_ca_dir={ca_dir}",
                env={"ANSIBLE_ROLES_PATH": str(REPO / "roles"),
                     "GPUFABRIC_IPSEC_CA_PASSPHRASE": secrets.token_urlsafe(24)},
            )  # fmt: skip
            if proc.returncode != 0:
                raise SystemExit(f"ipsec playbook failed:\n{proc.stdout[-3000:]}")
        enc = iperf(lab, server, client, args.seconds)
    finally:
        lab.stop()
    print(f"{'':28}{'plaintext':>12}{'ipsec':>12}{'ratio':>10}")
    print(
        f"{'throughput Gbit/s':28}{plain.gbps:12.2f}{enc.gbps:12.2f}{enc.gbps / plain.gbps:10.3f}"
    )
    print(f"{'iperf3 sender CPU %':28}{plain.sender_cpu:12.1f}{enc.sender_cpu:12.1f}")
    print(f"{'iperf3 receiver CPU %':28}{plain.receiver_cpu:12.1f}{enc.receiver_cpu:12.1f}")
    print(f"{'charon CPU % (both hosts)':28}{plain.charon_cpu:12.1f}{enc.charon_cpu:12.1f}")
    print(DISCLAIMER)


if __name__ == "__main__":
    main()
