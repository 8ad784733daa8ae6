"""GCP node discovery: which instances are the stack's (zone, group, network), what each node
carries (id, group, place in the physical topology), what each left-out instance's warning
says, the one-line refusals of malformed listings, and the Compute Engine client it builds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.api_core import exceptions as google_errors
from google.cloud import compute_v1
from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.clouds.gcp import discovery as gcp
from gpufabric.errors import UserError
from gpufabric.stack_outputs import NodeGroup, StackOutputs, parse

PROJECT = "my-gpu-project"
VPC = f"projects/{PROJECT}/global/networks/host-0"
TOPO = {"cluster": "c1", "block": "b2", "subblock": "s3"}


def _outputs(stack: str, **update: Any) -> StackOutputs:
    return parse(plan_for(stack).outputs).model_copy(update=update)


def _mega(**kw: Any) -> tuple[StackOutputs, list[str], str]:
    """The gcp-a3-mega stack (an instances group: names listed), its members and zone."""
    out = _outputs("gcp-a3-mega", **kw)
    return out, out.nodes.groups[0].members, out.cluster.zone


def _inst(name: str, ip: str, zone: str, **kw: Any) -> dict[str, Any]:
    return cli_json.gcp_instance(name, ip, zone=zone, project=PROJECT, **kw)


def _write(tmp: Path, doc: Any) -> Path:
    path = tmp / "instances.json"
    path.write_text(json.dumps(doc))
    return path


def test_nodes_carry_their_id_group_and_place_in_the_physical_topology(tmp_path: Path) -> None:
    out, names, zone = _mega()
    doc = [_inst(names[0], "10.0.0.2", zone, topology=TOPO), _inst(names[1], "10.0.0.3", zone)]
    found = discovery.from_files(out, [_write(tmp_path, doc)])
    group = out.nodes.groups[0].name
    assert [(n.name, n.group, n.instance_id, n.leaf, n.path) for n in found.nodes] == [
        (names[0], group, "7000000000000000001", "c1/b2/s3", ("c1", "c1/b2", "c1/b2/s3")),
        (names[1], group, "7000000000000000001", "", ()),
    ]


def test_an_instance_with_a_partial_topology_is_refused_by_name(tmp_path: Path) -> None:
    out, names, zone = _mega()
    path = _write(tmp_path, [_inst(names[0], "10.0.0.2", zone, topology={"cluster": "c1"})])
    with pytest.raises(UserError) as err:
        discovery.from_files(out, [path])
    assert str(err.value) == (
        f"discovery file {path}: {names[0]}: physicalHostTopology lacks block, subblock (a non-empty string each)"
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (7000000000000000005, "7000000000000000005"),  # a JSON number, as the API may print it
        ("7000000000000000006", "7000000000000000006"),  # gcloud prints it as a string
        (None, ""),
    ],
)
def test_the_instance_id_as_a_number_a_string_or_absent(value: Any, expected: str) -> None:
    out, names, zone = _mega()
    inst = _inst(names[0], "10.0.0.2", zone)
    if value is None:
        del inst["id"]
    else:
        inst["id"] = value
    found = gcp.match(out, [("f", [inst])])
    assert [n.instance_id for n in found.nodes] == [expected]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("12a", "'12a' must be a GCP instance id (an unsigned 64-bit number)"),
        (1.5, "1.5 must be a string, not a float"),
        (True, "True must be a string, not the boolean true"),
    ],
)
def test_an_instance_id_that_is_not_one_is_refused(
    tmp_path: Path, value: Any, problem: str
) -> None:
    out, names, zone = _mega()
    inst = _inst(names[0], "10.0.0.2", zone)
    inst["id"] = value
    path = _write(tmp_path, [inst])
    with pytest.raises(UserError) as err:
        discovery.from_files(out, [path])
    assert str(err.value) == f"discovery file {path}: instance {names[0]!r}: id: {problem}"


@pytest.mark.parametrize("entry", [1, {"status": "RUNNING"}, {"name": 5}])
def test_an_entry_without_a_name_is_refused(tmp_path: Path, entry: Any) -> None:
    out, names, zone = _mega()
    path = _write(tmp_path, [_inst(names[0], "10.0.0.2", zone), entry])
    with pytest.raises(UserError) as err:
        discovery.from_files(out, [path])
    assert str(err.value) == f"discovery file {path}: an instance has no 'name'"


def test_each_left_out_instance_says_why_and_the_rest_are_kept() -> None:
    out, names, zone = _mega(network={"networks": [VPC]})
    group = out.nodes.groups[0].name
    stranger = _inst("not-a-member", "10.0.0.9", zone)
    off_vpc = _inst(names[0], "10.0.0.2", zone)
    off_vpc["networkInterfaces"] = []
    no_status = _inst(names[1], "10.0.0.3", zone)
    del no_status["status"]
    stopped = _inst(names[2], "10.0.0.4", zone, status="TERMINATED")
    no_address = _inst(names[3], "", zone)
    kept = _inst(names[4], "10.0.0.6", zone)
    for inst in (no_status, stopped, no_address, kept):
        inst["networkInterfaces"][0]["network"] = f"https://www.googleapis.com/compute/v1/{VPC}"
    found = gcp.match(out, [("f", [stranger, off_vpc, no_status, stopped, no_address, kept])])
    assert found.warnings == [
        f"{names[0]} ({group}): on network (none), not one of the stack's; left out",
        f"{names[1]} ({group}): status unknown; left out",
        f"{names[2]} ({group}): status TERMINATED; left out",
        f"{names[3]} ({group}): no private address; left out",
    ]
    assert [n.name for n in found.nodes] == [names[4]]


def test_without_stack_networks_a_first_nic_that_is_not_an_object_gives_no_address() -> None:
    out, names, zone = _mega()
    odd = _inst(names[0], "10.0.0.2", zone)
    odd["networkInterfaces"] = ["nic0"]
    bare = _inst(names[1], "10.0.0.3", zone)
    bare["networkInterfaces"] = []
    found = gcp.match(out, [("f", [odd, bare])])
    group = out.nodes.groups[0].name
    assert found.nodes == []
    assert found.warnings == [
        f"{names[0]} ({group}): no private address; left out",
        f"{names[1]} ({group}): no private address; left out",
    ]


@pytest.mark.parametrize(
    "network",
    [
        {"networks": [f"projects/{PROJECT}/regions/r/subnetworks/host-0"]},  # not a VPC link
        {"networks": [f"projects/{PROJECT}/global/firewalls/ssh"]},  # nor is this
        {"networks": "host-0"},  # not a list
        {},  # no networks at all
    ],
)
def test_outputs_without_a_vpc_link_check_no_network(network: dict[str, Any]) -> None:
    out, names, zone = _mega(network=network)
    inst = _inst(names[0], "10.0.0.2", zone)
    inst["networkInterfaces"][0]["network"] = "https://example.invalid/elsewhere"
    assert [n.name for n in gcp.match(out, [("f", [inst])]).nodes] == [names[0]]


def test_a_zone_given_by_name_is_read_like_its_url() -> None:
    out, names, zone = _mega()
    inst = _inst(names[0], "10.0.0.2", zone)
    inst["zone"] = zone
    assert [n.name for n in gcp.match(out, [("f", [inst])]).nodes] == [names[0]]


def test_a_group_listed_first_that_does_not_match_does_not_hide_the_next() -> None:
    out, names, zone = _mega()
    mig = NodeGroup(kind="managed-instance-group", name="other-mig", count=1)
    both = out.nodes.model_copy(update={"groups": [mig, *out.nodes.groups]})
    out = out.model_copy(update={"nodes": both})
    found = gcp.match(out, [("f", [_inst(names[0], "10.0.0.2", zone)])])
    assert [(n.name, n.group) for n in found.nodes] == [(names[0], "gcp-a3-mega-node")]


def test_an_instance_without_created_by_is_no_member_of_a_managed_group() -> None:
    out = _outputs("gcp-a3-ultra")
    zone, mig = out.cluster.zone, out.nodes.groups[0].name
    loose = _inst("loose", "10.0.0.2", zone)
    loose["metadata"]["items"] = [1, {"key": "enable-oslogin", "value": "TRUE"}]
    found = gcp.match(out, [("f", [loose, _inst("n-1", "10.0.0.3", zone, mig=mig)])])
    assert [n.name for n in found.nodes] == ["n-1"]


# ------------------------------------------------------------------------------ the client
class _Groups:
    def __init__(self, *members: str, error: Exception | None = None) -> None:
        self.members, self.error, self.calls = members, error, []

    def list_managed_instances(self, **kw: str) -> list[Any]:
        self.calls.append(kw)
        if self.error:
            raise self.error
        return [compute_v1.ManagedInstance(instance=m) for m in self.members]


class _Instances:
    def __init__(self, *items: dict[str, Any], error: Exception | None = None) -> None:
        self.items, self.error, self.calls = items, error, []

    def list(self, **kw: str) -> list[Any]:
        self.calls.append(kw)
        if self.error:
            raise self.error
        return [compute_v1.Instance.from_json(json.dumps(i)) for i in self.items]


def test_live_builds_its_clients_for_the_stack_project_and_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = _outputs("gcp-a3-ultra")
    zone, mig = out.cluster.zone, out.nodes.groups[0].name
    groups = _Groups(f"https://x/zones/{zone}/instances/n-1")
    instances = _Instances(_inst("n-1", "10.0.0.2", zone), _inst("n-2", "10.0.0.3", zone))
    monkeypatch.setattr(compute_v1, "InstancesClient", lambda: instances)
    monkeypatch.setattr(compute_v1, "InstanceGroupManagersClient", lambda: groups)
    found = discovery.live(out)
    assert [n.name for n in found.nodes] == ["n-1"]
    assert groups.calls == [{"project": PROJECT, "zone": zone, "instance_group_manager": mig}]
    assert instances.calls == [{"project": PROJECT, "zone": zone}]


def test_a_client_given_for_one_side_only_gets_the_other_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = [_Instances(), _Groups()]
    monkeypatch.setattr(compute_v1, "InstancesClient", lambda: built[0])
    monkeypatch.setattr(compute_v1, "InstanceGroupManagersClient", lambda: built[1])
    mine = _Instances()
    assert gcp.Compute("p", "z", instances=mine).instances_client is mine
    assert gcp.Compute("p", "z", instances=mine).groups_client is built[1]
    mine_groups = _Groups()
    compute = gcp.Compute("p", "z", groups=mine_groups)
    assert (compute.instances_client, compute.groups_client) == (built[0], mine_groups)


def test_without_the_gcp_sdk_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import gpufabric.extras

    monkeypatch.setattr(gpufabric.extras, "find_spec", lambda _name: None)
    with pytest.raises(UserError) as err:
        gcp.Compute("p", "z")
    assert str(err.value) == (
        "GCP node discovery needs the gcp extra (google.cloud.compute_v1 is not installed): "
        "pip install 'gpufabric[gcp]'"
    )


@pytest.mark.parametrize("side", ["groups", "instances"])
def test_an_api_error_is_its_first_line(side: str) -> None:
    out = _outputs("gcp-a3-ultra")
    zone, mig = out.cluster.zone, out.nodes.groups[0].name
    error = google_errors.Forbidden("denied\nmore detail")
    groups = _Groups(error=error if side == "groups" else None)
    instances = _Instances(error=error if side == "instances" else None)
    with pytest.raises(UserError) as err:
        discovery.live(out, gcp.Compute(PROJECT, zone, instances, groups))
    what = f"listManagedInstances {mig}" if side == "groups" else "instances.list"
    assert str(err.value) == f"gcp {what} in {PROJECT}/{zone}: 403 denied"


def test_a_live_instance_without_a_name_names_the_api() -> None:
    out = _outputs("gcp-a3-ultra")
    compute = gcp.Compute(PROJECT, out.cluster.zone, _Instances({"status": "RUNNING"}), _Groups())
    with pytest.raises(UserError) as err:
        discovery.live(out, compute)
    assert str(err.value) == "gcp: an instance has no 'name'"


def test_live_needs_the_stack_project() -> None:
    out = _outputs("gcp-a3-ultra")
    out = out.model_copy(update={"cluster": out.cluster.model_copy(update={"project": None})})
    with pytest.raises(UserError) as err:
        discovery.live(out, gcp.Compute(PROJECT, "z", _Instances(), _Groups()))
    assert str(err.value) == "stack outputs: cluster.project: not set; gcp discovery needs it"


def test_an_instances_group_listed_first_does_not_hide_a_managed_group() -> None:
    out, _names, zone = _mega()
    mig = NodeGroup(kind="managed-instance-group", name="mig-b", count=1)
    both = out.nodes.model_copy(update={"groups": [*out.nodes.groups, mig]})
    out = out.model_copy(update={"nodes": both})
    found = gcp.match(out, [("f", [_inst("n-1", "10.0.0.2", zone, mig="mig-b")])])
    assert [(n.name, n.group) for n in found.nodes] == [("n-1", "mig-b")]
