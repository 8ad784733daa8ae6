"""Step 3 on every state a node can be in: Slurm drains and resumes (what scontrol shows, the
reason it gets, what is left alone), Kubernetes taints, and the read-back after acting."""

from __future__ import annotations

import json

import pytest

from gpufabric.health import act

OK = {"status": "ok", "reasons": [], "warnings": []}
BAD = {"status": "bad", "reasons": ["mtu: eth0 mtu 9000, the peers' 1500"], "warnings": []}
OURS = "gpufabric-health: mtu: eth0 mtu 9000, the peers' 1500"


def scontrol(node: str, state: str, reason: str = "", tail: str = "") -> str:
    line = f"NodeName={node} Arch=x86_64 CoresPerSocket=1 State={state} ThreadsPerCore=1"
    return line + (f" Reason={reason}" if reason else "") + tail


def test_scontrol_reason_ends_at_the_next_field_not_at_an_equals_sign_inside_it() -> None:
    text = "\n".join(
        [
            "header without a node",
            scontrol(
                "n1",
                "IDLE+DRAIN",
                "gpufabric-health: rate=200 x=1 [root@2026-12-01T18:28:45]",
                " Comment=(null) ResumeAfterTime=None",
            ),
            scontrol("n2", "MIXED", "operator: a=b c [slurm@2026-12-01T10:00:00]"),
            scontrol("n3", "IDLE"),
            "NodeName= State=IDLE",
        ]
    )
    assert act.parse_scontrol_nodes(text) == {
        "n1": {"state": "IDLE+DRAIN", "reason": "gpufabric-health: rate=200 x=1"},
        "n2": {"state": "MIXED", "reason": "operator: a=b c"},
        "n3": {"state": "IDLE", "reason": ""},
    }


def test_a_reason_holding_field_like_words_runs_to_scontrols_user_and_time_stamp() -> None:
    """An operator's reason may hold "Word=" or even " Reason=": scontrol ends a reason it
    stamped with " [user@time]", so that is where it ends, not at the next "Word="."""
    text = "\n".join(
        [
            scontrol(
                "n1",
                "IDLE+DRAIN",
                "fan Reason=RMA Ticket=42 [root@2026-12-01T18:28:45]",
                " Comment=(null) ResumeAfterTime=None",
            ),
            scontrol("n2", "DRAIN", "psu [slurm@Dec 1 10:00]"),
            scontrol("n3", "DRAIN", "no stamp Ticket=7", " Comment=(null)"),
        ]
    )
    assert act.parse_scontrol_nodes(text) == {
        "n1": {"state": "IDLE+DRAIN", "reason": "fan Reason=RMA Ticket=42"},
        "n2": {"state": "DRAIN", "reason": "psu"},
        "n3": {"state": "DRAIN", "reason": "no stamp"},
    }


def test_a_reason_without_a_stamp_ends_at_the_next_slurm_field_not_at_a_lowercase_word() -> None:
    """Without scontrol's stamp (a reason set by slurm.conf or an older Slurm), the reason
    runs to the next field Slurm prints (a capitalised `Word=`); a lowercase `mtu=` is part of
    it, and a reason last on the line runs to its end."""
    text = "\n".join(
        [
            scontrol("n1", "DRAIN", "mtu=1500 on eth1 rate=200", " Comment=(null)"),
            scontrol("n2", "DRAIN", "maintenance"),
            scontrol("n3", "DRAIN", "x=1 y=2"),
        ]
    )
    assert act.parse_scontrol_nodes(text) == {
        "n1": {"state": "DRAIN", "reason": "mtu=1500 on eth1 rate=200"},
        "n2": {"state": "DRAIN", "reason": "maintenance"},
        "n3": {"state": "DRAIN", "reason": "x=1 y=2"},
    }


def test_a_reason_at_the_limit_is_kept_whole_and_one_over_it_is_cut() -> None:
    prefix = "gpufabric-health: "
    exact = act.slurm_reason(["x" * (act.MAX_REASON - len(prefix))])
    assert len(exact) == act.MAX_REASON and not exact.endswith("...")
    over = act.slurm_reason(["x" * (act.MAX_REASON - len(prefix) + 1)])
    assert len(over) == act.MAX_REASON and over.endswith("xx...")
    assert act.slurm_reason(["a", "b"], prefix="nhc:") == "nhc: a; b"


@pytest.mark.parametrize(
    ("verdict", "state", "reason", "action", "why"),
    [
        (BAD, "IDLE", "", "drain", OURS),
        (BAD, "IDLE+DRAIN", "gpufabric-health: an older reason", "drain", OURS),
        (BAD, "IDLE+DRAIN", OURS, "keep", "already drained for the same reason"),
        (
            BAD,
            "DRAINED",
            "operator: fan",
            "keep",
            "already drained by someone else (operator: fan)",
        ),
        (OK, "IDLE+DRAIN", "gpufabric-health: x", "resume", "healthy again"),
        (OK, "idle+drain", "gpufabric-health: x", "resume", "healthy again"),
        (OK, "IDLE+DRAIN", "operator: fan", "keep", "drained by someone else (operator: fan)"),
        (OK, "IDLE", "", "keep", "in service"),
        (OK, "IDLE", "gpufabric-health: stale", "keep", "in service"),
    ],
)
def test_slurm_plan_for_every_node_state(
    verdict: dict, state: str, reason: str, action: str, why: str
) -> None:
    nodes = {"n1": {"state": state, "reason": reason}}
    [planned] = act.plan_slurm({"n1": verdict}, nodes)
    assert (planned["node"], planned["action"], planned["why"]) == ("n1", action, why)
    if action == "keep":
        assert planned["argv"] == []


def test_a_host_slurm_does_not_know_is_kept_and_the_others_still_planned() -> None:
    nodes = {"n1": {"state": "IDLE", "reason": ""}}
    plan = act.plan_slurm({"a-gone": BAD, "n1": BAD}, nodes)
    assert plan == [
        {"node": "a-gone", "action": "keep", "why": "not a Slurm node", "argv": []},
        {
            "node": "n1",
            "action": "drain",
            "why": OURS,
            "argv": ["scontrol", "update", "NodeName=n1", "State=DRAIN", f"Reason={OURS}"],
        },
    ]
    [resume] = act.plan_slurm({"n1": OK}, {"n1": {"state": "DRAIN", "reason": OURS}})
    assert resume["node"] == "n1"


def test_the_prefix_asked_for_is_the_one_written_and_recognised() -> None:
    nodes = {"n1": {"state": "IDLE", "reason": ""}, "n2": {"state": "DRAIN", "reason": "nhc: x"}}
    plan = act.plan_slurm({"n1": BAD, "n2": OK}, nodes, prefix="nhc:")
    assert plan[0]["argv"][-1] == "Reason=nhc: mtu: eth0 mtu 9000, the peers' 1500"
    assert plan[1]["action"] == "resume"


def test_slurm_read_back() -> None:
    nodes = {
        "n1": {"state": "IDLE+DRAIN", "reason": OURS},
        "n2": {"state": "IDLE+DRAIN", "reason": "gpufabric-health: other"},
        "n3": {"state": "idle", "reason": ""},
    }
    actions = [
        {"node": "n1", "action": "drain", "why": OURS},
        {"node": "n2", "action": "drain", "why": OURS},
        {"node": "n3", "action": "resume", "why": "healthy again"},
        {"node": "n9", "action": "drain", "why": OURS},
        {"node": "n9", "action": "resume", "why": "healthy again"},
    ]
    assert act.slurm_unapplied(actions, nodes) == [
        "n2 not drained (State=IDLE+DRAIN)",
        "n9 not drained (State=)",
    ]
    drained_lower = {"n3": {"state": "idle+drain", "reason": ""}}
    assert act.slurm_unapplied(actions[2:3], drained_lower) == [
        "n3 still drained (State=idle+drain)"
    ]


def nodes_json(*items: dict) -> str:
    return json.dumps({"items": list(items)})


def test_kubectl_nodes_without_a_name_or_taints() -> None:
    text = nodes_json(
        {"metadata": {"name": "n1"}},
        {"metadata": {}, "spec": {"taints": [{"key": "x"}]}},
        {"metadata": {"name": "n2"}, "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}},
    )
    assert act.parse_kubectl_nodes(text) == {"n1": [], "n2": [{"key": "k", "effect": "NoSchedule"}]}
    assert act.parse_kubectl_nodes("[1, 2]") == {}
    assert act.parse_kubectl_nodes("") == {}
    assert act.parse_kubectl_nodes('{"items": [], "items": []}') == {}


def test_kubernetes_plan_for_every_node_state() -> None:
    taints = {
        "bad-tainted": [{"key": act.TAINT_KEY, "value": "bad", "effect": "NoSchedule"}],
        "bad-clean": [],
        "ok-clean": [{"key": "other"}],
        "ok-tainted": [{"key": "other"}, {"key": act.TAINT_KEY, "effect": "NoSchedule"}],
    }
    two = {**BAD, "reasons": ["a", "b"]}
    verdicts = {"bad-tainted": BAD, "bad-clean": two, "ok-clean": OK, "gone": BAD, "ok-tainted": OK}
    plan = {a["node"]: a for a in act.plan_k8s(verdicts, taints, kubectl="/opt/kubectl")}
    assert {n: (a["action"], a["why"], a["argv"]) for n, a in plan.items()} == {
        "bad-tainted": ("keep", "tainted", []),
        "bad-clean": (
            "taint",
            "a; b",
            [
                "/opt/kubectl",
                "taint",
                "nodes",
                "bad-clean",
                f"{act.TAINT_KEY}=bad:NoSchedule",
                "--overwrite",
            ],
        ),
        "ok-clean": ("keep", "in service", []),
        "gone": ("keep", "not a Kubernetes node", []),
        "ok-tainted": (
            "untaint",
            "healthy again",
            ["/opt/kubectl", "taint", "nodes", "ok-tainted", f"{act.TAINT_KEY}:NoSchedule-"],
        ),
    }
    [own] = act.plan_k8s({"n": OK}, {"n": [{"key": "example.com/x"}]}, key="example.com/x")
    assert own["argv"] == ["kubectl", "taint", "nodes", "n", "example.com/x:NoSchedule-"]
