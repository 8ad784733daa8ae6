"""False holds: `gpufabric certify` on healthy lab hosts, repeated; every held node is a false hold.

    sudo flock /tmp/gpufabric-lab.lock .venv/bin/python benchmarks/certify_false_holds.py
    sudo .venv/bin/python benchmarks/certify_false_holds.py --runs 3 --lab-name NAME  # a running lab

Starts a lab of --nodes hosts (default 8) on 2 leaves, configures it with tune-fabric, then runs
`gpufabric certify --hold none` --runs times (default 20) with no fault. Prints each run's held
nodes with their stage and reason and its wall time, then the false-hold count (goal 0).
With --lab-name the running lab is used as it is (not configured, not taken down).
Lab hosts share this machine's CPUs: wall times are noisy.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from gpufabric.lab.handle import LabHandle, process_lab_name, venv_bin


def certify(inventory: Path) -> tuple[int, dict, float]:
    t0 = time.monotonic()
    proc = subprocess.run(
        [venv_bin("gpufabric"), "certify", "-i", str(inventory), "--hold", "none", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"certify failed: {proc.stderr.strip()[-2000:]}")
    return proc.returncode, json.loads(proc.stdout), time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description="certify on a healthy lab, repeated: false holds")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--lab-name", default="", help="use this running lab as it is")
    args = ap.parse_args()
    if args.lab_name:
        lab = LabHandle.attach(args.lab_name)
    else:
        t0 = time.monotonic()
        lab = LabHandle.start(process_lab_name("gfbench"), nodes=args.nodes, leaves=2)
        tuned = lab.ansible_playbook("playbooks/tune-fabric.yml")
        if tuned.returncode != 0:
            lab.stop()
            raise SystemExit(f"tune-fabric failed: {tuned.stdout[-2000:]}")
        print(
            f"lab {lab.name}: {len(lab.hosts)} hosts up and tuned in {time.monotonic() - t0:.0f} s"
        )
    false_holds = 0
    try:
        for run in range(1, args.runs + 1):
            code, doc, secs = certify(lab.inventory)
            hosts = doc["results"]["extra"]["hosts"]
            held = {h: v for h, v in hosts.items() if v["status"] != "certified"}
            false_holds += len(held)
            print(f"run {run}: exit {code}, {len(held)} held of {len(hosts)}, {secs:.0f} s")
            for h, v in held.items():
                print(f"    {h}: stage {v['stage']}: {v['reason']}")
            sys.stdout.flush()
    finally:
        if not args.lab_name:
            lab.stop()
    print(f"false holds: {false_holds} in {args.runs} run(s) of {len(lab.hosts)} healthy hosts")


if __name__ == "__main__":
    main()
