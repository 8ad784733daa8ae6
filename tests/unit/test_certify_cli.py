"""`gpufabric certify` usage errors (one line, exit 2) and `certify compare` on scorecards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.unit.certify_fakes import FakeRunner, doctor_report, node_report

from gpufabric.certify.hosts import Holder, Inventory
from gpufabric.certify.run import Options, certify, write

REPO = Path(__file__).resolve().parents[2]


def gpufabric(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "100"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def one_error(result: subprocess.CompletedProcess[str], text: str) -> None:
    assert result.returncode == 2, result
    assert result.stderr.startswith("error: ") and text in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    one_error(gpufabric("certify", "-i", "x", "-s", "y"), "exactly one of -i/--inventory")
    one_error(gpufabric("certify", "-i", str(tmp_path / "nope")), "does not exist")
    (tmp_path / "inv.ini").write_text("[gpu_nodes]\nh1\n")
    one_error(gpufabric("certify", "-i", str(tmp_path / "inv.ini"), "--soak", "-1"), "--soak")
    one_error(
        gpufabric("certify", "-i", str(tmp_path / "inv.ini"), "--hold", "pbs"), "--hold: 'pbs'"
    )
    (tmp_path / "x.json").write_text('{"reportFormat": "CTRF"}')
    one_error(
        gpufabric("certify", "compare", str(tmp_path / "x.json"), str(tmp_path / "x.json")),
        "not a gpufabric certify scorecard",
    )
    (tmp_path / "dup.json").write_text('{"a": 1, "a": 2}')
    one_error(
        gpufabric("certify", "compare", str(tmp_path / "dup.json"), str(tmp_path / "x.json")),
        "dup.json",
    )


def test_compare_two_scorecards(tmp_path: Path) -> None:
    hosts = ["h1", "h2", "h3"]
    inv = Inventory(hosts, "h1", {h: {"gpufabric_fabric": "lab"} for h in hosts}, {})
    for name, bad in (("old", {}), ("new", {"h2": ["mtu: eth0 mtu 9000, the peers' 1500"]})):
        runner = FakeRunner({h: node_report() for h in hosts}, {})
        report = certify(
            inv,
            runner,
            Holder("none", runner, "h1"),
            lambda hs, _l, bad=bad: doctor_report(hs, {h: r for h, r in bad.items() if h in hs}),
            None,
            Options(),
        )
        write(report, tmp_path / name)
    got = gpufabric(
        "certify", "compare", str(tmp_path / "old/certify.json"), str(tmp_path / "new/certify.json")
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[0] == "verdict: certified -> not certified"
    assert "host h2: certified -> held (mtu: eth0 mtu 9000, the peers' 1500)" in got.stdout
    doc = json.loads((tmp_path / "new/certify.json").read_text())
    assert doc["results"]["extra"]["hosts"]["h2"]["stage"] == "4 fabric"


def test_stack_becomes_a_gpufabric_pulumi_inventory(tmp_path: Path) -> None:
    import yaml

    from gpufabric.cli.certify import stack_inventory
    from gpufabric.errors import UserError

    path = stack_inventory("aws-h100", tmp_path)
    assert path.name.endswith(".gpufabric_pulumi.yml")  # the plugin's file name rule
    assert yaml.safe_load(path.read_text()) == {"plugin": "gpufabric_pulumi", "stack": "aws-h100"}
    for bad in ("", "a\nplugin: x"):
        try:
            stack_inventory(bad, tmp_path)
        except UserError as exc:
            assert "--stack" in str(exc)
        else:
            raise AssertionError(bad)


def test_k8s_hold_taints_then_untaints_only_its_own_key(tmp_path: Path) -> None:
    from gpufabric.certify.hosts import TAINT_KEY, Holder

    nodes = {
        "items": [
            {"metadata": {"name": h}, "spec": {"taints": taints}}
            for h, taints in (
                ("n1", []),
                ("n2", [{"key": "operator/broken", "effect": "NoSchedule"}]),
            )
        ]
    }
    state = tmp_path / "nodes.json"
    state.write_text(json.dumps(nodes))
    log = tmp_path / "log"
    kubectl = tmp_path / "kubectl"
    # a stand-in kubectl: `get` prints the nodes (with the taints set so far), others are logged
    kubectl.write_text(
        f"""#!{sys.executable}
import json, sys
doc = json.load(open({str(state)!r}))
if sys.argv[1] == "get":
    print(json.dumps(doc)); sys.exit(0)
open({str(log)!r}, "a").write(" ".join(sys.argv[1:]) + "\\n")
node = next(i for i in doc["items"] if i["metadata"]["name"] == sys.argv[3])
key = sys.argv[4].split("=")[0].split(":")[0]
node["spec"]["taints"] = [t for t in node["spec"]["taints"] if t["key"] != key]
if not sys.argv[4].endswith("-"):
    node["spec"]["taints"].append({{"key": key, "effect": "NoSchedule"}})
json.dump(doc, open({str(state)!r}, "w"))
"""
    )
    kubectl.chmod(0o755)
    holder = Holder("k8s", FakeRunner({}, {}), "n1", str(kubectl))
    holder.hold(["n1", "n2"])
    holder.fail("n2", "stage 4 fabric: mtu: x")
    holder.release("n1")
    calls = log.read_text().splitlines()
    assert calls == [
        f"taint nodes n1 {TAINT_KEY}=bad:NoSchedule --overwrite",
        f"taint nodes n2 {TAINT_KEY}=bad:NoSchedule --overwrite",
        f"taint nodes n1 {TAINT_KEY}:NoSchedule-",
    ]
    final = {
        i["metadata"]["name"]: i["spec"]["taints"] for i in json.loads(state.read_text())["items"]
    }
    assert final["n1"] == [] and {t["key"] for t in final["n2"]} == {"operator/broken", TAINT_KEY}
