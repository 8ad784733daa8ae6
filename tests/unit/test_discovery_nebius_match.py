"""Nebius discovery's matching rules word for word: which VMs are the stack's (name listed or
GPU cluster joined), what a node carries (id, address, InfiniBand path in either JSON
spelling), what each left-out VM's warning says and the one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.clouds.nebius import discovery as nebius
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs, parse

CLI = "`nebius compute instance list --parent-id PROJECT --format json`"
PATH = ["root-1", "spine-2", "leaf-3"]


def _outputs() -> tuple[StackOutputs, list[str], str]:
    out = parse(plan_for("nebius-h100").outputs)
    group = out.nodes.groups[0]
    return out, group.members, str(group.id)


def _vm(name: str, ip: str = "10.0.0.5", cluster: str | None = None, **kw: Any) -> dict[str, Any]:
    return cli_json.nebius_instance(name, ip, project="p", gpu_cluster=cluster, **kw)


def _match(out: StackOutputs, *items: Any) -> Any:
    return nebius.match(out, [("f", {"items": list(items)})])


def test_nodes_carry_their_id_address_group_and_path() -> None:
    out, names, cluster = _outputs()
    by_name = _vm(names[0], "10.0.0.5", path=PATH)
    by_cluster = _vm("joined-later", "10.0.0.6", cluster)
    found = _match(out, by_name, by_cluster)
    group = out.nodes.groups[0].name
    assert [(n.name, n.instance_id, n.address, n.group, n.leaf, n.path) for n in found.nodes] == [
        (names[0], f"computeinstance-{names[0]}", "10.0.0.5", group, "leaf-3", tuple(PATH)),
        ("joined-later", "computeinstance-joined-later", "10.0.0.6", group, "", ()),
    ]


def test_camel_case_proto_json_is_read_too() -> None:
    out, _names, cluster = _outputs()
    vm = _vm("camel", "10.0.0.7")
    vm["spec"]["gpuCluster"] = {"id": cluster}
    vm["status"]["infinibandTopologyPath"] = {"path": PATH}
    del vm["metadata"]["id"]
    found = _match(out, vm)
    assert [(n.name, n.instance_id, n.leaf) for n in found.nodes] == [("camel", "", "leaf-3")]


def test_each_left_out_vm_says_why_and_the_rest_are_kept() -> None:
    out, names, _cluster = _outputs()
    group = out.nodes.groups[0].name
    stranger = _vm("bastion")
    small = _vm(names[0])
    small["spec"]["resources"]["preset"] = "1gpu-16vcpu-200gb"
    stopped = _vm(names[1], state="STOPPED")
    no_state = _vm(names[2])
    del no_state["status"]["state"]
    no_address = _vm(names[3], "")
    no_resources = _vm(names[4], "10.0.0.9")
    del no_resources["spec"]["resources"]  # no shape listed: not checked
    found = _match(out, stranger, small, stopped, no_state, no_address, no_resources)
    assert found.warnings == [
        f"{names[0]} ({group}): shape gpu-h100-sxm/1gpu-16vcpu-200gb, not the stack's "
        "gpu-h100-sxm/8gpu-128vcpu-1600gb; left out",
        f"{names[1]} ({group}): state STOPPED; left out",
        f"{names[2]} ({group}): state unknown; left out",
        f"{names[3]} ({group}): no private address; left out",
    ]
    assert [n.name for n in found.nodes] == [names[4]]


@pytest.mark.parametrize(
    ("doc", "line"),
    [
        ({"instances": []}, f"not {CLI} output (no 'items' list)"),
        ([], f"not {CLI} output (no 'items' list)"),
        ({"items": [1]}, "an instance entry is not an object"),
        ({"items": [{"metadata": {}}]}, "an instance has no metadata.name"),
        ({"items": [{"metadata": {"name": ""}}]}, "an instance has no metadata.name"),
        ({"items": [{"metadata": {"name": 5}}]}, "an instance has no metadata.name"),
    ],
)
def test_a_malformed_listing_is_one_line(doc: Any, line: str) -> None:
    out, _names, _cluster = _outputs()
    with pytest.raises(UserError) as err:
        nebius.match(out, [("f", doc)])
    assert str(err.value) == f"f: {line}"


def test_an_instance_id_that_is_not_one_is_refused(tmp_path: Path) -> None:
    out, names, _cluster = _outputs()
    vm = _vm(names[0])
    vm["metadata"]["id"] = "vm-1"
    path = tmp_path / "instances.json"
    path.write_text(json.dumps({"items": [vm]}))
    with pytest.raises(UserError) as err:
        discovery.from_files(out, [path])
    assert str(err.value) == (
        f"discovery file {path}: instance {names[0]!r}: metadata.id: 'vm-1' must be a Nebius "
        "computeinstance id like computeinstance-e00abc123"
    )


def test_a_path_of_the_wrong_depth_is_refused_by_name() -> None:
    out, names, _cluster = _outputs()
    with pytest.raises(UserError) as err:
        _match(out, _vm(names[0], path=["a", "b"]))
    assert str(err.value) == (
        f"f: {names[0]}: infiniband_topology_path has 2 switches, expected 3 (root -> leaf)"
    )


def test_recognise_only_instance_lists() -> None:
    assert nebius.recognise({"items": []}) == "nebius"
    assert nebius.recognise({"items": [{"metadata": {}}]}) == "nebius"
    for other in ({"items": [{}]}, {"items": [1]}, {"items": {}}, [], None):
        assert nebius.recognise(other) is None
    assert nebius.shape({"items": [{"metadata": {}}]}) == "nebius"
    for other in ({"items": []}, {"items": [{}]}, [], None):
        assert nebius.shape(other) == "unknown"


def test_live_needs_a_project_id() -> None:
    out, _names, _cluster = _outputs()
    for project, line in (
        (None, "stack outputs: cluster.project: not set; nebius discovery needs it"),
        (
            "x",
            "stack outputs: cluster.project: 'x' must be a Nebius project id like "
            "project-e00abc123",
        ),
    ):
        cluster = out.cluster.model_copy(update={"project": project})
        with pytest.raises(UserError) as err:
            nebius.live(out.model_copy(update={"cluster": cluster}), object())
        assert str(err.value) == line


def test_a_shape_half_listed_is_not_checked() -> None:
    out, names, _cluster = _outputs()
    vm = _vm(names[0])
    del vm["spec"]["resources"]["platform"]
    assert [n.name for n in _match(out, vm).nodes] == [names[0]]
