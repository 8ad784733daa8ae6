"""Reaching and holding certify's nodes, in-process: the inventory's shared variables and
leaves, `ansible-inventory --list` read strictly, the ad-hoc command lines and their per-host
results (ansible and kubectl stood in for by a recorded `subprocess.run`), and holds that are
read back: a drain or a taint the scheduler did not apply stops the run with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.unit.certify_fakes import FakeRunner

from gpufabric.certify import hosts as hosts_mod
from gpufabric.certify.hosts import (
    PREFIX,
    REPO,
    TAINT_KEY,
    AnsibleRunner,
    Holder,
    Inventory,
    parse_inventory,
)
from gpufabric.errors import UserError


def test_a_variable_counts_only_when_every_host_shares_it() -> None:
    inv = Inventory(
        ["a", "b"],
        "a",
        {
            "a": {"fabric": "efa", "goal": {"sizeGiB": 1}, "own": 1, "split": "x"},
            "b": {"fabric": "efa", "goal": {"sizeGiB": 1}, "split": "y"},
        },
    )
    assert inv.var("fabric") == "efa"
    assert inv.var("goal", None) == {"sizeGiB": 1}
    assert inv.var("split", "none") == "none"  # hosts disagree
    assert inv.var("own", "none") == "none"  # one host only
    assert inv.var("absent") == ""  # the default, on every host
    assert Inventory(["a"], "a", {"a": {"n": 0}}).var("n", None) == 0


def test_leaves_from_the_hosts_variable_else_the_leaf_groups() -> None:
    hv = {"a": {"gpufabric_leaf": "s1"}, "b": {"gpufabric_leaf": "s1"}, "c": {"gpufabric_leaf": 7}}
    assert Inventory(["a", "b", "c"], "a", hv).leaves() == {"s1": ["a", "b"], "7": ["c"]}
    groups = {
        "leaf2": ["c", "d", "other"],
        "leaf1": ["a", "b"],
        "leafless": ["x"],
        "gpu_nodes": ["a", "b", "c", "d"],
        "spine": ["a"],
    }
    inv = Inventory(["a", "b", "c", "d"], "a", {h: {} for h in "abcd"}, groups)
    assert inv.leaves() == {"leaf1": ["a", "b"], "leaf2": ["c", "d"]}
    assert list(inv.leaves()) == ["leaf1", "leaf2"]
    no_var = Inventory(["a"], "a", {"a": {"gpufabric_leaf": ""}}, {"leaf9": ["a"]})
    assert no_var.leaves() == {"leaf9": ["a"]}
    # a host without hostvars of its own takes no leaf from them
    partial = Inventory(["a", "b"], "a", {"a": {"gpufabric_leaf": "s1"}})
    assert partial.leaves() == {"s1": ["a"]}


def listing(**over: Any) -> str:
    doc: dict[str, Any] = {
        "_meta": {"hostvars": {"g1": {"gpufabric_fabric": "efa"}, "ctl": {"x": 1}}},
        "all": {"children": ["gpu_nodes", "controller"]},
        "gpu_nodes": {"hosts": ["g1", "g2"]},
        "controller": {"hosts": ["ctl"]},
        "leaf1": {"hosts": ["g1"]},
    }
    doc.update(over)
    return json.dumps(doc)


def test_ansible_inventory_list_becomes_the_gpu_nodes_and_their_controller() -> None:
    inv = parse_inventory(listing())
    assert inv.hosts == ["g1", "g2"] and inv.controller == "ctl"
    assert inv.hostvars == {"g1": {"gpufabric_fabric": "efa"}, "g2": {}}
    assert inv.groups == {
        "all": [],
        "gpu_nodes": ["g1", "g2"],
        "controller": ["ctl"],
        "leaf1": ["g1"],
    }
    assert parse_inventory(listing(controller={"hosts": []})).controller == "g1"
    assert parse_inventory(listing(_meta={})).hostvars == {"g1": {}, "g2": {}}


@pytest.mark.parametrize("gpu_nodes", [{"hosts": []}, {}, None])
def test_an_inventory_without_gpu_nodes_is_refused(gpu_nodes: Any) -> None:
    with pytest.raises(UserError) as err:
        parse_inventory(listing(gpu_nodes=gpu_nodes))
    assert str(err.value) == "inventory: no host in the gpu_nodes group"


def test_a_listing_with_a_key_twice_is_refused() -> None:
    text = '{"gpu_nodes": {"hosts": ["a"]}, "gpu_nodes": {"hosts": ["b"]}}'
    with pytest.raises(UserError) as err:
        parse_inventory(text)
    assert str(err.value).startswith("ansible-inventory --list: ")


def test_tools_are_taken_from_the_venv_first() -> None:
    here = Path(sys.executable).parent
    assert hosts_mod._bin("python") == str(here / "python")
    assert hosts_mod._bin("no-such-tool-here") == "no-such-tool-here"


class Recorder:
    """Stands in for subprocess.run: records each call, answers with `answer(argv, kw)` as
    subprocess.run would (output only when captured, bytes unless text, check raising)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls: list[tuple[list[str], dict[str, Any]]] = []

    def __call__(self, argv: list[str], **kw: Any) -> subprocess.CompletedProcess[Any]:
        self.calls.append((list(argv), kw))
        rc, out, err = self.answer(argv, kw)
        if kw.get("check") and rc != 0:
            raise subprocess.CalledProcessError(rc, argv, out, err)
        if not kw.get("capture_output"):
            out = err = None
        elif not kw.get("text"):
            out, err = out.encode(), err.encode()
        return subprocess.CompletedProcess(argv, rc, out, err)


def test_list_inventory_runs_ansible_inventory_from_the_repository(monkeypatch, tmp_path):
    rec = Recorder(lambda argv, kw: (0, listing(), ""))
    monkeypatch.setattr(hosts_mod.subprocess, "run", rec)
    inv = AnsibleRunner(tmp_path / "inv.yml").list_inventory()
    assert inv.hosts == ["g1", "g2"]
    [(argv, kw)] = rec.calls
    assert argv == [hosts_mod._bin("ansible-inventory"), "-i", str(tmp_path / "inv.yml"), "--list"]
    assert kw["cwd"] == REPO and kw["check"] is False and kw["text"] is True


@pytest.mark.parametrize(
    ("stderr", "says"),
    [
        ("[WARNING]: x\n[WARNING]: y\nERROR! no inventory parsed\n", "ERROR! no inventory parsed"),
        ("", "no output"),
    ],
)
def test_list_inventory_failing_is_one_line(monkeypatch, tmp_path, stderr, says):
    monkeypatch.setattr(hosts_mod.subprocess, "run", Recorder(lambda a, k: (1, "", stderr)))
    with pytest.raises(UserError) as err:
        AnsibleRunner(tmp_path / "inv.yml").list_inventory()
    assert str(err.value) == f"inventory: ansible-inventory failed: {says}"


def tree_answer(results: dict[str, str], rc: int = 0, out: str = "", err: str = ""):
    """ansible --tree DIR: one file per host that answered."""

    def answer(argv: list[str], kw: dict[str, Any]) -> tuple[int, str, str]:
        tree = Path(argv[argv.index("--tree") + 1])
        for h, text in results.items():
            (tree / h).write_text(text)
        return rc, out, err

    return answer


def test_commands_run_as_root_with_one_result_per_host(monkeypatch, tmp_path):
    rec = Recorder(
        tree_answer({"h1": json.dumps({"rc": 0, "stdout": "ok"}), "h2": "{not json"}, rc=2)
    )
    monkeypatch.setattr(hosts_mod.subprocess, "run", rec)
    runner = AnsibleRunner(tmp_path / "inv.yml")
    got = runner.run(["h1", "h2", "h3"], ["scontrol", "show", "node"])
    assert got == {
        "h1": {"rc": 0, "stdout": "ok"},
        "h2": {"failed": True, "msg": "unreadable result"},
    }
    [(argv, kw)] = rec.calls
    tree = argv[-1]
    assert argv == [
        hosts_mod._bin("ansible"),
        "h1,h2,h3",
        "-i",
        str(tmp_path / "inv.yml"),
        "--become",
        "-m",
        "ansible.builtin.command",
        "-a",
        json.dumps({"argv": ["scontrol", "show", "node"]}),
        "--tree",
        tree,
    ]
    assert kw["env"]["ANSIBLE_FORCE_COLOR"] == "0" and kw["cwd"] == REPO
    assert not Path(tree).exists()  # the tree is a temporary directory


def test_the_collector_is_sent_as_a_script_with_quoted_arguments(monkeypatch, tmp_path):
    rec = Recorder(tree_answer({"h1": json.dumps({"rc": 0, "stdout": "{}"})}))
    monkeypatch.setattr(hosts_mod.subprocess, "run", rec)
    got = AnsibleRunner(tmp_path / "i").script(
        ["h1"], Path("/x/collect_node.py"), ["/opt/lib", "--storage=/srv/my share"]
    )
    assert got == {"h1": {"rc": 0, "stdout": "{}"}}
    argv = rec.calls[0][0]
    assert argv[argv.index("-m") + 1] == "ansible.builtin.script"
    assert json.loads(argv[argv.index("-a") + 1]) == {
        "cmd": '/x/collect_node.py "/opt/lib" "--storage=/srv/my share"',
        "executable": "/usr/bin/python3",
    }


@pytest.mark.parametrize(
    ("out", "err", "says"),
    [
        (
            "",
            "ERROR! the inventory is unreadable\n",
            "ansible exited 4: ERROR! the inventory is unreadable",
        ),
        ("PLAY\nh1 | UNREACHABLE\n", "", "ansible exited 4: h1 | UNREACHABLE"),
        ("", "", "ansible exited 4: no output"),
    ],
)
def test_ansible_failing_with_no_result_at_all_is_one_line(monkeypatch, tmp_path, out, err, says):
    monkeypatch.setattr(hosts_mod.subprocess, "run", Recorder(tree_answer({}, 4, out, err)))
    with pytest.raises(UserError) as exc:
        AnsibleRunner(tmp_path / "i").run(["h1"], ["true"])
    assert str(exc.value) == says


def test_no_result_from_a_run_that_exited_0_is_no_answer(monkeypatch, tmp_path):
    monkeypatch.setattr(hosts_mod.subprocess, "run", Recorder(tree_answer({}, 0)))
    assert AnsibleRunner(tmp_path / "i").run(["h1"], ["true"]) == {}


def test_an_unknown_hold_mode_is_refused() -> None:
    with pytest.raises(UserError) as err:
        Holder("pbs", FakeRunner({}, {}), "c")
    assert str(err.value) == "hold: 'pbs' is not valid; use one of none, slurm, k8s"


def test_hold_none_changes_nothing_and_logs_what_it_would_do() -> None:
    runner = FakeRunner({}, {})
    holder = Holder("none", runner, "c")
    holder.hold(["a", "b"])
    holder.fail("a", "stage 1 sanity: unreachable: x")
    holder.release("b")
    assert runner.calls == []
    assert holder.log == [
        {"node": "a", "action": "hold", "why": ""},
        {"node": "b", "action": "hold", "why": ""},
        {"node": "a", "action": "hold", "why": ""},
        {"node": "b", "action": "release", "why": ""},
    ]


class DeafSlurm(FakeRunner):
    """A controller that shows the nodes but ignores every update."""

    def run(self, hosts: list[str], argv: list[str]) -> dict[str, dict[str, Any]]:
        if argv[1] == "update":
            self.calls.append(argv)
            return {hosts[0]: {"rc": 1, "stdout": ""}}
        return super().run(hosts, argv)


def test_a_drain_slurm_did_not_apply_stops_the_run() -> None:
    runner = DeafSlurm({}, {"a": {"state": "IDLE", "reason": ""}})
    holder = Holder("slurm", runner, "ctl")
    with pytest.raises(UserError) as err:
        holder.hold(["a"])
    assert str(err.value) == "Slurm did not apply: a not drained (State=IDLE)"
    assert ["scontrol", "update"] in [c[:2] for c in runner.calls]


def test_slurm_is_read_one_node_a_line_before_and_after_the_changes() -> None:
    runner = FakeRunner({}, {"a": {"state": "IDLE", "reason": ""}})
    Holder("slurm", runner, "ctl").hold(["a"])
    show = ["scontrol", "show", "node", "--oneliner"]
    assert runner.calls[0] == show and runner.calls[-1] == show
    assert [c[:2] for c in runner.calls[1:-1]] == [["scontrol", "update"]]


def test_every_drain_slurm_did_not_apply_is_named() -> None:
    runner = DeafSlurm({}, {n: {"state": "IDLE", "reason": ""} for n in ("a", "b")})
    with pytest.raises(UserError) as err:
        Holder("slurm", runner, "ctl").hold(["a", "b"])
    assert str(err.value) == (
        "Slurm did not apply: a not drained (State=IDLE); b not drained (State=IDLE)"
    )


class Silent(FakeRunner):
    """A controller that gives no result at all (ssh answered for no host)."""

    def run(self, hosts: list[str], argv: list[str]) -> dict[str, dict[str, Any]]:
        self.calls.append(argv)
        return {}


def test_a_controller_that_answers_nothing_lists_no_slurm_node_to_hold() -> None:
    runner = Silent({}, {})
    holder = Holder("slurm", runner, "ctl")
    holder.hold(["a"])  # no node Slurm knows: nothing to drain, nothing logged
    assert holder.log == []
    assert runner.calls == [["scontrol", "show", "node", "--oneliner"]] * 2


def test_slurm_holds_use_the_controller_and_log_each_change() -> None:
    runner = FakeRunner({}, {"a": {"state": "IDLE", "reason": ""}})
    holder = Holder("slurm", runner, "ctl")
    holder.hold(["a"])
    holder.fail("a", "stage 4 fabric: mtu: x")
    assert runner.slurm["a"] == {
        "state": "IDLE+DRAIN",
        "reason": f"{PREFIX} stage 4 fabric: mtu: x",
    }
    assert [e["action"] for e in holder.log] == ["drain", "drain"]
    assert holder.log[1] == {
        "node": "a",
        "action": "drain",
        "why": f"{PREFIX} stage 4 fabric: mtu: x",
    }


class Kube:
    """Stands in for kubectl: `get nodes -o json` prints the nodes' taints; `taint` changes
    them unless `deaf`."""

    def __init__(self, taints: dict[str, list[dict[str, str]]], deaf: bool = False) -> None:
        self.taints, self.deaf = taints, deaf
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str], kw: dict[str, Any]) -> tuple[int, str, str]:
        self.calls.append(argv)
        if argv[1] == "get":
            items = [
                {"metadata": {"name": n}, "spec": {"taints": t}} for n, t in self.taints.items()
            ]
            return 0, json.dumps({"items": items}), ""
        node, spec = argv[3], argv[4]
        if not self.deaf:
            key = spec.split("=")[0].split(":")[0]
            kept = [t for t in self.taints[node] if t["key"] != key]
            self.taints[node] = kept if spec.endswith("-") else [*kept, {"key": key}]
        return 0, "", ""


def test_k8s_taints_are_read_back(monkeypatch) -> None:
    kube = Kube({"n1": [], "n2": [{"key": "operator/broken"}]})
    monkeypatch.setattr(hosts_mod.subprocess, "run", Recorder(kube))
    holder = Holder("k8s", FakeRunner({}, {}), "n1", "/opt/kubectl")
    holder.hold(["n1", "n2", "not-a-node"])
    assert kube.calls == [
        ["/opt/kubectl", "get", "nodes", "-o", "json"],
        ["/opt/kubectl", "taint", "nodes", "n1", f"{TAINT_KEY}=bad:NoSchedule", "--overwrite"],
        ["/opt/kubectl", "taint", "nodes", "n2", f"{TAINT_KEY}=bad:NoSchedule", "--overwrite"],
        ["/opt/kubectl", "get", "nodes", "-o", "json"],
    ]
    assert [(e["node"], e["action"]) for e in holder.log] == [("n1", "taint"), ("n2", "taint")]
    kube.calls.clear()
    holder.fail("n2", "stage 4 fabric: mtu: x")  # already tainted: nothing to run or read
    assert kube.calls == [["/opt/kubectl", "get", "nodes", "-o", "json"]]
    holder.release("n1")
    assert kube.taints == {"n1": [], "n2": [{"key": "operator/broken"}, {"key": TAINT_KEY}]}


@pytest.mark.parametrize(
    ("start", "step", "says"),
    [
        ({"n1": []}, "hold", "Kubernetes did not apply: n1 not tainted"),
        ({"n1": [{"key": TAINT_KEY}]}, "release", "Kubernetes did not apply: n1 still tainted"),
    ],
)
def test_a_taint_kubernetes_did_not_apply_stops_the_run(monkeypatch, start, step, says) -> None:
    monkeypatch.setattr(hosts_mod.subprocess, "run", Recorder(Kube(start, deaf=True)))
    holder = Holder("k8s", FakeRunner({}, {}), "n1")
    with pytest.raises(UserError) as err:
        holder.hold(["n1"]) if step == "hold" else holder.release("n1")
    assert str(err.value) == says


def test_kubectl_is_found_on_the_path_unless_given(monkeypatch) -> None:
    kube = Kube({"n1": []})
    monkeypatch.setattr(hosts_mod.subprocess, "run", Recorder(kube))
    Holder("k8s", FakeRunner({}, {}), "n1").hold(["n1"])
    assert {c[0] for c in kube.calls} == {"kubectl"}


def test_every_taint_kubernetes_did_not_apply_is_named(monkeypatch) -> None:
    monkeypatch.setattr(
        hosts_mod.subprocess, "run", Recorder(Kube({"n1": [], "n2": []}, deaf=True))
    )
    with pytest.raises(UserError) as err:
        Holder("k8s", FakeRunner({}, {}), "n1").hold(["n1", "n2"])
    assert str(err.value) == "Kubernetes did not apply: n1 not tainted; n2 not tainted"


def test_a_node_gone_from_the_listing_after_its_taint_is_not_tainted(monkeypatch) -> None:
    """Read back, a node Kubernetes no longer lists holds no taint: the hold is not proven."""
    kube = Kube({"n1": []})

    def vanishing(argv: list[str], kw: dict[str, Any]) -> tuple[int, str, str]:
        answer = kube(argv, kw)
        if argv[1] == "taint":
            del kube.taints["n1"]
        return answer

    monkeypatch.setattr(hosts_mod.subprocess, "run", Recorder(vanishing))
    with pytest.raises(UserError) as err:
        Holder("k8s", FakeRunner({}, {}), "n1").hold(["n1"])
    assert str(err.value) == "Kubernetes did not apply: n1 not tainted"


def test_kubectl_failing_or_missing_is_one_line(monkeypatch) -> None:
    monkeypatch.setattr(
        hosts_mod.subprocess,
        "run",
        Recorder(
            lambda a, k: (1, "", "E1205 x\nE1205 y\nerror: You must be logged in to the server\n")
        ),
    )
    with pytest.raises(UserError) as err:
        Holder("k8s", FakeRunner({}, {}), "n1").hold(["n1"])
    assert (
        str(err.value) == "kubectl get nodes exited 1: error: You must be logged in to the server"
    )
    monkeypatch.setattr(hosts_mod.subprocess, "run", Recorder(lambda a, k: (1, "", "")))
    with pytest.raises(UserError, match=r"exited 1: no output$"):
        Holder("k8s", FakeRunner({}, {}), "n1").hold(["n1"])
    monkeypatch.undo()
    with pytest.raises(UserError) as err:
        Holder("k8s", FakeRunner({}, {}), "n1", "/no/such/kubectl").hold(["n1"])
    assert str(err.value) == "kubectl: '/no/such/kubectl': No such file or directory"
