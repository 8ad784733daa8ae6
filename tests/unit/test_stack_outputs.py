"""The stack outputs contract (gpufabric.stack_outputs): its lists and rules are the only ones,
it is pulumi-free, and it refuses what is not a gpufabric stack's outputs in one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.pulumi.plans import REPO, plan_for

from gpufabric.catalog import catalog
from gpufabric.clouds import registry
from gpufabric.errors import UserError
from gpufabric.nccl.gate.thresholds import thresholds
from gpufabric.stack_outputs import EXPORTS, parse
from gpufabric.topology.load import FABRIC_SOURCES, sources
from gpufabric.vocabulary import (
    CLOUD_FABRICS,
    ENCRYPTION_MODES,
    FABRICS,
    encryption_problem,
    switch_problem,
)

LIST_LITERAL = re.compile(r"\[([^\[\]]*)\]")


def _spelled_lists(text: str) -> list[str]:
    """List literals (YAML flow lists, Jinja lists) naming several fabrics or modes."""
    found = []
    for m in LIST_LITERAL.finditer(text):
        items = {i.strip().strip("'\"") for i in m.group(1).split(",")}
        if len(items & set(FABRICS)) >= 3 or len(items & set(ENCRYPTION_MODES)) >= 2:
            found.append(m.group(0))
    return found


def test_no_playbook_or_role_spells_out_the_lists() -> None:
    files = [
        p
        for top in ("playbooks", "roles")
        for p in (REPO / top).rglob("*")
        if p.suffix in (".yml", ".yaml", ".j2")
    ]
    assert len(files) > 50
    spelled = {str(p.relative_to(REPO)): _spelled_lists(p.read_text()) for p in files}
    assert {k: v for k, v in spelled.items() if v} == {}


def test_the_spelled_list_check_catches_a_copy() -> None:
    assert _spelled_lists("that: x in ['efa', 'infiniband', 'roce', 'tcpxo', 'lab']")
    assert _spelled_lists("choices: [provider-native, ipsec, none]")
    assert not _spelled_lists("when: gpufabric_fabric in ['infiniband', 'roce']")  # a decision


def test_every_cloud_has_a_topology_source() -> None:
    for spec in registry.specs():
        assert spec.topology_source in sources(), spec.name
        assert spec.topology_source in (spec.name, *FABRIC_SOURCES), spec.name


def test_lists_are_the_catalogs_and_the_gates() -> None:
    assert {e.fabric for e in catalog().values()} == set(CLOUD_FABRICS)
    assert set(thresholds().fabrics) == set(CLOUD_FABRICS)
    assert (*CLOUD_FABRICS, "lab") == FABRICS


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("gpufabric_fabric", "tcpx", ""),
        ("gpufabric_fabric", "lab", ""),
        ("gpufabric_fabric", "TCPX", "gpufabric_fabric: 'TCPX' is not valid; use one of efa,"),
        ("gpufabric_fabric", None, "gpufabric_fabric: (unset) is not valid"),
        ("gpufabric_fabric", ["efa"], "gpufabric_fabric: ['efa'] is not valid"),
        ("gpufabric_encryption", "none", ""),
        ("gpufabric_encryption", "none\n", "gpufabric_encryption: 'none\\n' is not valid"),
    ],
)
def test_switch_problem(name: str, value: object, problem: str) -> None:
    got = switch_problem(name, value)
    assert got.startswith(problem) if problem else got == ""


def test_switch_problem_unknown_switch() -> None:
    with pytest.raises(UserError, match="gpufabric_fabrik: not a gpufabric switch"):
        switch_problem("gpufabric_fabrik", "efa")


def test_provider_native_rule() -> None:
    assert encryption_problem("provider-native", "p5.48xlarge", "native") == ""
    assert encryption_problem("ipsec", "p5en.48xlarge", "unconfirmed") == ""
    assert encryption_problem("provider-native", "p5en.48xlarge", "unconfirmed") == (
        "p5en.48xlarge is not known to encrypt node-to-node traffic natively (catalog says "
        "'unconfirmed'); use 'ipsec', or 'none' on purpose"
    )


def test_exports_round_trip_through_the_contract() -> None:
    raw = plan_for("azure-ndv5").outputs
    out = parse(raw)
    assert tuple(raw) == tuple(sorted(EXPORTS))
    assert out.exports() == raw
    assert out.group_vars()["gpufabric_fabric"] == "infiniband"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("nodes"), "no 'nodes' section"),
        (lambda d: d.pop("cluster"), "no 'cluster' section"),
        (lambda d: d["cluster"].update(fabric="ethernet"), "cluster.fabric: Input should be"),
        (lambda d: d["cluster"].update(encryption="tls"), "cluster.encryption"),
        (lambda d: d["nodes"].update(groups=[]), "nodes.groups: List should have at least 1"),
        (lambda d: d["nodes"]["groups"][0].update(kind="fleet"), "nodes.groups.0.kind"),
        (lambda d: d["cluster"].update(extra=1), "cluster.extra: Extra inputs"),
    ],
)
def test_bad_outputs_are_one_line(change, message: str) -> None:
    import copy

    data = copy.deepcopy(plan_for("aws-h100").outputs)
    change(data)
    with pytest.raises(UserError, match=re.escape(message)) as err:
        parse(data, "outputs file o.json")
    assert str(err.value).startswith("outputs file o.json: ") and "\n" not in str(err.value)


def test_contract_inventory_and_discovery_never_import_pulumi() -> None:
    code = (
        "import sys, gpufabric.stack_outputs, gpufabric.inventory.build, "
        "gpufabric.clouds.aws.discovery, gpufabric.clouds.gcp.discovery, gpufabric.clouds.azure.discovery, "
        "gpufabric.policies.transit; "
        "print(sorted(m for m in sys.modules if m.split('.')[0].startswith('pulumi')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(REPO)
    )
    assert proc.stdout.strip() == "[]"


def test_parsing_the_config_looks_the_catalog_up_once_and_returns_it(monkeypatch) -> None:
    from gpufabric.catalog import lookup
    from gpufabric.config import load, parse, validate

    calls: list[str] = []

    def counting(name: str, key: str = "gpufabric:instanceType") -> object:
        calls.append(name)
        return lookup(name, key)

    monkeypatch.setattr(load, "lookup", counting)
    monkeypatch.setattr(validate, "lookup", counting)
    goal = '{"type": "fsx-lustre", "checkpoint": {"sizeGiB": 2000, "writeSeconds": 60}}'
    raw = {
        "aws:region": "us-east-1",
        "gpufabric:instanceType": "p5.48xlarge",
        "gpufabric:nodes": 2,
        "gpufabric:zone": "us-east-1a",
        "gpufabric:encryption": "none",
        "gpufabric:storage": json.loads(goal),
    }
    cfg = parse(raw, "s")
    assert calls == ["p5.48xlarge"]
    assert cfg.instance is lookup("p5.48xlarge")  # passed down: build_cluster(cfg) reads it
