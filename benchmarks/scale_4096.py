"""Wall time and peak memory at 4,096 nodes against 16, side by side in one run.

    .venv/bin/python benchmarks/scale_4096.py [--nodes 16,4096] [--stack aws-h100] [--repeat 1]

Every case runs in a fresh process (imports included, as the command pays them) on synthetic
inputs written into a temporary folder:
- inventory: `ansible-inventory --graph` (the plugin's parse, what a playbook run pays) and
  `--list` (plus Ansible dumping every host's variables) through the gpufabric_pulumi plugin,
  on the offline plan's outputs (an Auto Scaling group of N nodes) and a saved `aws ec2
  describe-instances` document of N running instances of that group (constructed here in the
  shape the AWS CLI prints: Reservations[].Instances[] with the ASG tag, state, private
  address and DNS name);
- plan group / plan instances: `run_plan` of the stack with N nodes as one group or as N
  instances;
- sdk instances: the Pulumi SDK alone, under its own mocks (inputs echoed back, nothing
  recorded; no cyclic garbage collection while it runs, as in `run_plan`), registering what the instances mode registers per node: N `aws.ec2.Instance` from
  one launch template under one component; the plan's own cost per node is what plan
  instances costs beyond it;
- topology render: `gpufabric topology render --source file -f slurm-tree` on a synthetic
  3-level fabric of N nodes (gpufabric.topology.synthetic);
- health bisection: the fabric doctor's group bisection (gpufabric.health.bisect) over N hosts
  of a synthetic ring fabric (gpufabric.health.sim) with one host slowed to 10 %; it must name
  exactly that host.
Times are this machine's (noisy, shared); the ratios are the figures. `cpu s` is user + system
seconds (GNU time): less sensitive than wall time to other work on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import gnutime

REPO = Path(__file__).resolve().parents[1]
SOURCE = "scale.gpufabric_pulumi.yml"
BIN = Path(sys.executable).parent
GOALS = {  # at the large size, on this machine
    "inventory": "< 5 s",
    "plan instances": "<= 3x plan group",
    "topology render": "< 2 s",
    "health bisection": "< 2 s",
}

PLAN_CHILD = """
import sys
from pathlib import Path
from gpufabric.plan import run_plan
plan = run_plan(Path(sys.argv[1]), sys.argv[2], sys.argv[3:])
print(len(plan.resources))
"""

SDK_CHILD = """
import gc
import sys
import pulumi
import pulumi_aws as aws
from pulumi.runtime import settings
from pulumi.runtime.stack import run_in_stack
from pulumi.runtime.sync_await import _sync_await

class Echo(pulumi.runtime.Mocks):
    def new_resource(self, args):
        return args.name + "-id", {**args.inputs, "latestVersion": 1}
    def call(self, args):
        return {}

def program():
    parent = pulumi.ComponentResource("bench:index:Cluster", "bench")
    opts = pulumi.ResourceOptions(parent=parent)
    template = aws.ec2.LaunchTemplate("node", image_id="ami-0123456789abcdef0", opts=opts)
    version = template.latest_version.apply(str)
    nodes = [
        aws.ec2.Instance(
            f"node-{i:04d}",
            launch_template=aws.ec2.InstanceLaunchTemplateArgs(id=template.id, version=version),
            tags={"Name": f"node-{i:04d}"},
            opts=opts,
        )
        for i in range(int(sys.argv[1]))
    ]
    pulumi.export("members", pulumi.Output.all(*[n.id for n in nodes]))

gc.disable()  # as run_plan runs the program: no cyclic collection while it runs
pulumi.runtime.set_mocks(Echo(), preview=False)
settings.ROOT.set(None)  # set_mocks made a root stack; run_in_stack makes its own
_sync_await(run_in_stack(program))
print(sys.argv[1])
"""

BISECT_CHILD = """
import sys
from gpufabric.health import bisect
from gpufabric.health.judge import Limits
from gpufabric.health.sim import SyntheticFabric
n = int(sys.argv[1])
names = [f"n{i:05d}" for i in range(1, n + 1)]
bad = names[n // 3]
fab = SyntheticFabric(egress={bad: 0.1}, ingress={bad: 0.1}, seed=1)
state = bisect.run(names, fab.measure, Limits(expected_gbps=100.0))
assert list(state["bad"]) == [bad], state["bad"]
print(len(state["rounds"]))
"""


def measure(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Wall seconds and peak RSS (MiB) of one command (gnutime); a failure stops the run."""
    r = gnutime.run(argv, REPO, env)
    if r.rc != 0:
        raise SystemExit(f"{' '.join(argv[:3])} ... failed ({r.rc}): {r.stderr.strip()}")
    return {"seconds": r.wall, "cpu": r.cpu, "peak_mib": r.peak_mib, "stdout": r.stdout}


def aws_instances(asg: str, n: int) -> dict[str, Any]:
    """A describe-instances document of n running instances of Auto Scaling group `asg`."""
    reservations = []
    for i in range(n):
        ip = f"10.0.{i // 200}.{10 + i % 200}"  # 10.0.0.10 .. 10.0.20.105 at 4,096
        iid = f"i-{i:017x}"
        reservations.append(
            {
                "Groups": [],
                "OwnerId": "123456789012",
                "ReservationId": f"r-{i:017x}",
                "Instances": [
                    {
                        "InstanceId": iid,
                        "InstanceType": "p5.48xlarge",
                        "ImageId": "ami-0123456789abcdef0",
                        "LaunchTime": "2026-11-30T10:00:00+00:00",
                        "Placement": {"AvailabilityZone": "us-east-1a", "Tenancy": "default"},
                        "PrivateDnsName": f"ip-{ip.replace('.', '-')}.ec2.internal",
                        "PrivateIpAddress": ip,
                        "State": {"Code": 16, "Name": "running"},
                        "SubnetId": "subnet-0123456789abcdef0",
                        "VpcId": "vpc-0123456789abcdef0",
                        "Tags": [{"Key": "aws:autoscaling:groupName", "Value": asg}],
                    }
                ],
            }
        )
    return {"Reservations": reservations}


def prepare_inventory(stack: str, n: int, folder: Path) -> Path:
    from gpufabric.plan import run_plan

    plan = run_plan(REPO, stack, [f"gpufabric:nodes={n}", "gpufabric:nodeGroup=group"])
    (folder / "outputs.json").write_text(json.dumps(plan.outputs))
    groups = plan.outputs["nodes"]["groups"]
    (folder / "describe-instances.json").write_text(json.dumps(aws_instances(groups[0]["name"], n)))
    source = folder / SOURCE
    source.write_text(
        "plugin: gpufabric_pulumi\noutputs_file: outputs.json\n"
        "discovery_file: [describe-instances.json]\n"
    )
    return source


def prepare_topology(n: int, folder: Path) -> Path:
    from gpufabric.topology.emit import topology_file
    from gpufabric.topology.synthetic import synthetic

    path = folder / "topology.json"
    path.write_text(topology_file.topology_json(synthetic(n, levels=3, seed=0)))
    return path


def run_case(case: str, n: int, stack: str, folder: Path) -> dict[str, Any]:
    py = sys.executable
    if case.startswith("inventory"):
        env = dict(os.environ, ANSIBLE_INVENTORY_ENABLED="gpufabric_pulumi")
        env["ANSIBLE_CONFIG"] = str(REPO / "ansible.cfg")
        flag = case.split()[1]  # --list: every host's variables dumped; --graph: parse only
        r = measure([str(BIN / "ansible-inventory"), "-i", str(folder / "inv" / SOURCE), flag], env)
        if flag == "--list":
            hosts = json.loads(r["stdout"])["gpu_nodes"]["hosts"]
        else:
            hosts = [ln for ln in r["stdout"].splitlines() if ln.strip(" |-").startswith("ip-")]
            hosts = sorted(set(h.strip(" |-") for h in hosts))
        if len(hosts) != n:
            raise SystemExit(f"{case}: {len(hosts)} hosts, expected {n}")
        r["detail"] = f"{len(hosts)} hosts"
    elif case.startswith("plan"):
        mode = case.split()[1]
        overrides = [f"gpufabric:nodes={n}", f"gpufabric:nodeGroup={mode}"]
        r = measure([py, "-c", PLAN_CHILD, str(REPO), stack, *overrides])
        r["detail"] = f"{r['stdout'].strip()} resources"
    elif case == "sdk instances":
        r = measure([py, "-c", SDK_CHILD, str(n)])
        r["detail"] = f"{r['stdout'].strip()} aws.ec2.Instance, Pulumi SDK alone"
    elif case == "topology render":
        r = measure(
            [str(BIN / "gpufabric"), "topology", "render", "--source", "file", "-i",
             str(folder / "topology.json"), "-f", "slurm-tree"]
        )  # fmt: skip
        r["detail"] = f"{r['stdout'].count(chr(10))} lines"
    else:
        r = measure([py, "-c", BISECT_CHILD, str(n)])
        r["detail"] = f"{r['stdout'].strip()} rounds, bad host named"
    return r


def per_node_line(results: dict[tuple[str, int], dict[str, Any]], small: int, large: int) -> str:
    """CPU per added node: the plan's instances mode against the Pulumi SDK alone."""
    added = large - small

    def per_node(case: str) -> float:
        return (results[(case, large)]["cpu"] - results[(case, small)]["cpu"]) / added * 1000

    plan, sdk = per_node("plan instances"), per_node("sdk instances")
    return (
        f"cpu per added node: plan instances {plan:.2f} ms, Pulumi SDK alone {sdk:.2f} ms "
        f"({sdk / plan:.0%}); gpufabric's own {plan - sdk:.2f} ms"
    )


CASES = (
    "inventory --graph",
    "inventory --list",
    "plan group",
    "plan instances",
    "sdk instances",
    "topology render",
    "health bisection",
)


def main() -> None:
    parser = argparse.ArgumentParser(description="Time and memory at 4,096 vs 16 nodes.")
    parser.add_argument("--nodes", default="16,4096", help="two sizes: small,large")
    parser.add_argument("--stack", default="aws-h100")
    parser.add_argument("--repeat", type=int, default=1, help="median of this many runs")
    parser.add_argument("--only", action="append", choices=CASES, help="run only these cases")
    args = parser.parse_args()
    gnutime.require()
    small, large = (int(x) for x in args.nodes.split(","))
    cases = args.only or list(CASES)
    results: dict[tuple[str, int], dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="gf-scale-") as tmp:
        for n in (small, large):
            folder = Path(tmp, str(n))
            (folder / "inv").mkdir(parents=True)
            if any(c.startswith("inventory") for c in cases):
                prepare_inventory(args.stack, n, folder / "inv")
            if "topology render" in cases:
                prepare_topology(n, folder)
            for case in cases:
                print(f"  {case} at {n} nodes ...", file=sys.stderr, flush=True)
                runs = [run_case(case, n, args.stack, folder) for _ in range(args.repeat)]
                results[(case, n)] = {
                    "seconds": statistics.median(r["seconds"] for r in runs),
                    "cpu": statistics.median(r["cpu"] for r in runs),
                    "peak_mib": max(r["peak_mib"] for r in runs),
                    "detail": runs[0]["detail"],
                }
    head = (
        f"{'case':<17} {'nodes':>5} {'seconds':>8} {'cpu s':>7} {'peak MiB':>9}"
        f"  {'time x':>7} {'cpu x':>6} {'mem x':>6}"
    )
    print(f"median of {args.repeat} fresh process(es); x = {large} nodes / {small} nodes")
    print(head)
    for case in cases:
        a, b = results[(case, small)], results[(case, large)]
        for n, r in ((small, a), (large, b)):
            ratio = (
                f"{b['seconds'] / a['seconds']:>6.2f}x {b['cpu'] / a['cpu']:>5.2f}x"
                f" {b['peak_mib'] / a['peak_mib']:>5.2f}x"
                if n == large
                else ""
            )
            print(
                f"{case:<17} {n:>5} {r['seconds']:>8.2f} {r['cpu']:>7.2f} {r['peak_mib']:>9.0f}"
                f"  {ratio:<22}  {r['detail']}"
            )
    if "plan group" in cases and "plan instances" in cases:
        for n in (small, large):
            g, i = results[("plan group", n)], results[("plan instances", n)]
            print(
                f"plan instances / group at {n} nodes: time {i['seconds'] / g['seconds']:.2f}x, "
                f"cpu {i['cpu'] / g['cpu']:.2f}x, memory {i['peak_mib'] / g['peak_mib']:.2f}x"
            )
    if "plan instances" in cases and "sdk instances" in cases:
        print(per_node_line(results, small, large))
    print("goals at the large size: " + "; ".join(f"{k} {v}" for k, v in GOALS.items()))


if __name__ == "__main__":
    main()
