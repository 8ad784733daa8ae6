"""GCP's topology reader word for word: the instance list in each form gcloud prints (list,
items, aggregatedList), each host's path, address, id and machine type, the unplaced ones,
and each refusal's whole line."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.clouds.gcp import topology as gcp
from gpufabric.errors import UserError
from gpufabric.topology.model import Host

TOPO = {"cluster": "c1", "block": "b2", "subblock": "s3"}
PATH = ("c1", "c1/b2", "c1/b2/s3")


def inst(name: str, status: Any = None, **kw: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"name": name, **kw}
    if status is not None:
        doc["resourceStatus"] = status
    return doc


def test_an_aggregated_list_is_every_zones_instances() -> None:
    data = {
        "items": {
            "zones/us-central1-a": {"instances": [inst("a", {"physicalHostTopology": TOPO})]},
            "zones/us-central1-b": {"warning": {"code": "NO_RESULTS_ON_PAGE"}},
            "zones/us-central1-c": {"instances": [inst("b", {"physicalHost": "/c1/r9/h1"})]},
            "zones/odd": "not an object",
        }
    }
    topo = gcp.parse(data, "saved.json")
    assert topo.hosts == (Host("a", PATH), Host("b", ("c1", "c1/r9")))
    assert topo.source == "saved.json" and topo.unplaced == ()


def test_each_hosts_address_id_and_machine_type() -> None:
    data = {
        "items": [
            inst(
                "a",
                {"physicalHostTopology": TOPO},
                id="123",
                machineType="https://www.googleapis.com/compute/v1/projects/p/zones/z/machineTypes/a3-megagpu-8g",
                networkInterfaces=["junk", {"name": "nic0"}, {"networkIP": "10.0.0.5"}, {"networkIP": "10.1.0.5"}],
            ),
            inst("unplaced", {}),
            inst("b", {"physicalHostTopology": TOPO}),
        ]
    }  # fmt: skip
    topo = gcp.parse(data)
    assert topo.hosts == (
        Host("a", PATH, address="10.0.0.5", instance_id="123", instance_type="a3-megagpu-8g"),
        Host("b", PATH, address="", instance_id=None, instance_type=None),
    )
    assert topo.source == "gcp" and topo.unplaced == ("unplaced",)


def test_a_mapping_of_host_to_physical_host() -> None:
    topo = gcp.parse({"h1": "/c/r1/h1", "h2": "/c/r2/h2"}, "names.yaml")
    assert topo.hosts == (Host("h1", ("c", "c/r1")), Host("h2", ("c", "c/r2")))
    assert topo.source == "names.yaml"


@pytest.mark.parametrize(
    ("data", "line"),
    [
        ("text", "o: expected an instances list or a mapping hostname -> physical_host"),
        ({"h1": 5}, "o: expected an instances list or a mapping hostname -> physical_host"),
        ({"h1": "/c/r1"}, "o: h1: physical_host '/c/r1' is not of the form /cluster/rack/host"),
        ([5], "o: an instance entry has no 'name'"),
        ([{"id": "1"}], "o: an instance entry has no 'name'"),
        ([inst("a", [1])], "o: a: resourceStatus is not an object"),
        (
            [inst("a", {"physicalHostTopology": [1]})],
            "o: a: physicalHostTopology is a list, expected an object with cluster, block, subblock",
        ),
        (
            [inst("a", {"physicalHostTopology": {"cluster": "c", "block": 5, "subblock": ""}})],
            "o: a: physicalHostTopology lacks block, subblock (a non-empty string each)",
        ),
        (
            [inst("a", {"physicalHost": 7})],
            "o: a: physical_host is an int, expected a string",
        ),
        (
            [inst("a", {"physicalHost": "c/r/h"})],
            "o: a: physical_host 'c/r/h' is not of the form /cluster/rack/host",
        ),
    ],
)
def test_refusals_name_the_file_and_the_host(data: Any, line: str) -> None:
    with pytest.raises(UserError) as err:
        gcp.parse(data, "o")
    assert str(err.value) == line


def test_load_maps_host_names_and_keeps_where_it_read() -> None:
    data = [inst("vm-1", {"physicalHostTopology": TOPO}), inst("vm-2", {"physicalHost": "/c1/r/h"})]
    named = gcp.load(data, {"vm-1": "node1"}, "f.json")
    assert named.hosts == (Host("node1", PATH),)
    assert named.skipped == (("vm-2", "not in the names file"),) and named.source == "f.json"
    plain = gcp.load(data, None, "f.json")
    assert [h.name for h in plain.hosts] == ["vm-1", "vm-2"] and plain.source == "f.json"
