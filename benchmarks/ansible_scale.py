"""tune-fabric on lab hosts: push settings side by side, or push vs boot vs fan-out (--modes).

Each Ansible setting runs on a fresh lab of each size (so every first run meets unconfigured
hosts), side by side in one run of this script; the figures are printed as ratios to the
baseline setting because this machine's absolute times are noisy.

    sudo .venv/bin/python benchmarks/ansible_scale.py                 # 2, 4, 8 hosts
    sudo .venv/bin/python benchmarks/ansible_scale.py --sizes 2,4 --playbook tests/lab/playbooks/smoke.yml

Settings (environment overrides of ansible.cfg; forks 32 everywhere, so no size waits on forks):
  plain      pipelining off, facts gathered every play
  pipelined  pipelining on
  cached     pipelining on + fact caching (gathering=smart, jsonfile cache): the rerun reuses facts

Modes (--modes push,boot,fanout --sizes 2,8,16,32): one `lab up --boot` lab per size, then
  boot     the hosts configure themselves (cloud-init -> gpufabric-boot -> ansible-playbook -c
           local); the controller renders the bundle (and the lab writes the seeds); wall time =
           until every host's boot result is final
  fanout   day 2: `clush` (flat, fanout 64) starts gpufabric-boot with the same bundle on every
           host over ssh; each host runs the playbook itself
  tree     the same day-2 run through ClusterShell's tree mode: one gateway per leaf (the
           leaf's first host) carries the ssh sessions of its leaf
  push     a no-change rerun of tune-fabric over ssh from this machine (pipelined, forks 32)
  controller CPU-seconds = user + system of the whole process tree, by GNU time (/usr/bin/time,
  Debian package `time`); all three skip the `topology` tag (cluster-wide, written once by the
  controller). Ratios are to the smallest size.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from gpufabric.lab.handle import REPO, LabHandle, process_lab_name
from gpufabric.lab.lab import check_root, check_tools
from gpufabric.lab.summary import parse_recap

LAB_NAME = process_lab_name("gfbench")
SETTINGS: dict[str, dict[str, str]] = {
    "plain": {"ANSIBLE_PIPELINING": "False", "ANSIBLE_GATHERING": "implicit"},
    "pipelined": {"ANSIBLE_PIPELINING": "True", "ANSIBLE_GATHERING": "implicit"},
    "cached": {
        "ANSIBLE_PIPELINING": "True",
        "ANSIBLE_GATHERING": "smart",
        "ANSIBLE_CACHE_PLUGIN": "jsonfile",
    },
}


def timed_run(lab: LabHandle, playbook: Path, env: dict[str, str]) -> tuple[float, int, int]:
    """Seconds, failed, changed (summed over hosts) of one ansible-playbook run."""
    t0 = time.monotonic()
    proc = lab.ansible_playbook(playbook, env=env)
    seconds = time.monotonic() - t0
    counts = parse_recap(proc.stdout)
    if proc.returncode != 0 or not counts:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-25:])
        raise SystemExit(f"{playbook} failed on {len(lab.hosts)} hosts:\n{tail}")
    return (
        seconds,
        sum(c["failed"] for c in counts.values()),
        sum(c["changed"] for c in counts.values()),
    )


def measure(
    playbook: Path, setting: dict[str, str], nodes: int, leaves: int
) -> tuple[float, float, int, int]:
    """On a fresh lab: first-run s, rerun s, failed (both runs), changed on the rerun."""
    with tempfile.TemporaryDirectory(prefix="gf-factcache-") as cache:
        env = {**setting, "ANSIBLE_FORKS": "32", "ANSIBLE_CACHE_PLUGIN_CONNECTION": cache}
        with LabHandle.start(LAB_NAME, nodes=nodes, leaves=min(leaves, nodes)) as lab:
            t1, failed1, _ = timed_run(lab, playbook, env)
            t2, failed2, changed2 = timed_run(lab, playbook, env)
    return t1, t2, failed1 + failed2, changed2


def slope(sizes: list[int], seconds: list[float]) -> float:
    """Least-squares seconds per extra host."""
    n = len(sizes)
    mx, my = sum(sizes) / n, sum(seconds) / n
    den = sum((x - mx) ** 2 for x in sizes)
    return (
        sum((x - mx) * (y - my) for x, y in zip(sizes, seconds, strict=True)) / den if den else 0.0
    )


def main() -> None:
    ap = argparse.ArgumentParser(description="tune-fabric on lab hosts (see the docstring)")
    ap.add_argument("--sizes", default="2,4,8", help="lab sizes (hosts), comma-separated")
    ap.add_argument("--leaves", type=int, default=2)
    ap.add_argument("--playbook", type=Path, default=Path("playbooks/tune-fabric.yml"))
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="fresh labs per size and setting; the fastest run counts (noise)",
    )
    ap.add_argument(
        "--settings", default=",".join(SETTINGS), help="subset of: " + ", ".join(SETTINGS)
    )
    ap.add_argument("--modes", default="", help="push,boot,fanout,tree: compare these instead")
    args = ap.parse_args()
    check_root()
    check_tools()
    if args.modes:
        from ansible_modes import compare

        compare([int(s) for s in args.sizes.split(",")], args.modes.split(","), args.leaves)
        return
    playbook = args.playbook if args.playbook.is_absolute() else REPO / args.playbook
    if not playbook.is_file():
        sys.exit(
            f"{args.playbook} not found (measure the lab itself with "
            "--playbook tests/lab/playbooks/smoke.yml)"
        )
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [s for s in args.settings.split(",") if s]
    unknown = [s for s in names if s not in SETTINGS]
    if unknown:
        sys.exit(f"--settings: unknown {unknown}; use {', '.join(SETTINGS)}")
    first: dict[str, list[float]] = {s: [] for s in names}
    rerun: dict[str, list[float]] = {s: [] for s in names}
    print(f"playbook {args.playbook}, forks 32, lab {LAB_NAME} ({args.leaves} leaves)")
    print(
        f"{'hosts':>5} {'setting':<10} {'first s':>8} {'rerun s':>8} {'failed':>6} "
        f"{'rerun changed':>13}"
    )
    for n in sizes:
        for name in names:
            runs = [measure(playbook, SETTINGS[name], n, args.leaves) for _ in range(args.repeat)]
            t1, t2 = min(r[0] for r in runs), min(r[1] for r in runs)
            failed, changed2 = sum(r[2] for r in runs), max(r[3] for r in runs)
            first[name].append(t1)
            rerun[name].append(t2)
            print(f"{n:>5} {name:<10} {t1:>8.1f} {t2:>8.1f} {failed:>6} {changed2:>13}", flush=True)
    base = names[0]
    print(f"\nratios to '{base}' (lower is faster), per size: first run | rerun")
    for name in names:
        cells = [
            f"{first[name][i] / first[base][i]:.2f} | {rerun[name][i] / rerun[base][i]:.2f}"
            for i in range(len(sizes))
        ]
        print(f"  {name:<10} " + "   ".join(f"{n}h {c}" for n, c in zip(sizes, cells, strict=True)))
    print("\nper-host slope (least squares, s per extra host) and slope / mean time:")
    for name in names:
        for label, series in (("first", first[name]), ("rerun", rerun[name])):
            s = slope(sizes, series)
            print(
                f"  {name:<10} {label:<6} {s:6.2f} s/host   {s / (sum(series) / len(series)):.2f}"
            )
    print(
        "\nrerun / first run: "
        + "   ".join(
            f"{name} "
            + ",".join(f"{r / f:.2f}" for f, r in zip(first[name], rerun[name], strict=True))
            for name in names
        )
    )


if __name__ == "__main__":
    os.umask(0o022)
    main()
