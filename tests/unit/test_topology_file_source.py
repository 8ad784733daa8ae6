"""The file source (`--source file`): every field it reads comes back as written, absent
optional fields stay absent, and each refusal is one line naming the file and the entry."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.errors import UserError
from gpufabric.inputs.formats import parse_json
from gpufabric.topology.emit.topology_file import topology_json
from gpufabric.topology.model import Host
from gpufabric.topology.sources import file

FULL: dict[str, Any] = {
    "source": "lab rack survey",
    "hosts": [
        {
            "name": "node01",
            "path": ["spine0", "leaf0"],
            "nvlink_domain": "nvl0",
            "address": "10.0.0.1",
            "instance_id": "i-0abc",
            "instance_type": "p5.48xlarge",
        },
        {"name": "node02", "path": ["spine0", "leaf1"]},
    ],
    "labels": {"leaf0": "rack A ToR", "leaf1": "rack B ToR"},
    "unplaced": ["node99"],
}


def test_every_field_is_read_as_written() -> None:
    t = file.parse(FULL, "topo.yaml")
    assert t.hosts == (
        Host(
            name="node01",
            path=("spine0", "leaf0"),
            nvlink_domain="nvl0",
            address="10.0.0.1",
            instance_id="i-0abc",
            instance_type="p5.48xlarge",
        ),
        Host(name="node02", path=("spine0", "leaf1")),
    )
    assert t.source == "lab rack survey"
    assert dict(t.labels) == {"leaf0": "rack A ToR", "leaf1": "rack B ToR"}
    assert t.unplaced == ("node99",)


def test_render_json_round_trips_every_field() -> None:
    """`render --format json` output fed back in is the same topology."""
    t = file.parse(FULL, "topo.yaml")
    back = file.parse(parse_json(topology_json(t), where="t.json"), "t.json")
    assert (back.hosts, back.source, dict(back.labels), back.unplaced) == (
        t.hosts,
        t.source,
        dict(t.labels),
        t.unplaced,
    )


def test_empty_optional_fields_are_absent_and_source_defaults_to_the_origin() -> None:
    doc = {
        "hosts": [
            {
                "name": "n1",
                "path": ["s"],
                "nvlink_domain": "",
                "address": "",
                "instance_id": None,
                "instance_type": "",
            }
        ],
        "labels": None,
        "unplaced": None,
    }
    t = file.parse(doc, "topo.yaml")
    assert t.hosts == (Host(name="n1", path=("s",)),)
    assert t.hosts[0].address == "" and t.hosts[0].nvlink_domain is None
    assert (t.source, dict(t.labels), t.unplaced) == ("topo.yaml", {}, ())
    assert file.parse({"hosts": [{"name": "n1", "path": ["s"]}]}).source == "file"


def test_integer_label_keys_are_ids() -> None:
    t = file.parse({"hosts": [{"name": "n1", "path": [7]}], "labels": {7: "rack 7"}})
    assert dict(t.labels) == {"7": "rack 7"} and t.label("7") == "rack 7"


_ONE = [{"name": "n1", "path": ["s"]}]


@pytest.mark.parametrize(
    ("doc", "line"),
    [
        ([], "file: expected a mapping with a 'hosts' list"),
        ({"hosts": {"n1": ["s"]}}, "file: expected a mapping with a 'hosts' list"),
        ({"hosts": ["n1"]}, "file: hosts[0]: expected a mapping with 'name' and 'path'"),
        (
            {"hosts": [{"path": ["s"]}]},
            "file: hosts[0]: 'name' must be a non-empty string, not None",
        ),
        (
            {"hosts": [{"name": "", "path": ["s"]}]},
            "file: hosts[0]: 'name' must be a non-empty string, not ''",
        ),
        (
            {"hosts": [{"name": 1.5, "path": ["s"]}]},
            "file: hosts[0]: 'name' must be a non-empty string, not 1.5",
        ),
        (
            {"hosts": [*_ONE, {"name": "n2", "path": "s1"}]},
            "file: hosts[1] (n2): 'path' must be a non-empty list of node ids",
        ),
        (
            {"hosts": [{"name": "n2", "path": []}]},
            "file: hosts[0] (n2): 'path' must be a non-empty list of node ids",
        ),
        ({"hosts": _ONE, "labels": ["s"]}, "file: 'labels' must be a mapping of node id -> name"),
        ({"hosts": _ONE, "unplaced": "n2"}, "file: 'unplaced' must be a list of host names"),
        ({"hosts": _ONE, "unplaced": ["n2", 3]}, "file: 'unplaced' must be a list of host names"),
    ],
)
def test_refusals_are_one_exact_line(doc: Any, line: str) -> None:
    with pytest.raises(UserError) as err:
        file.parse(doc)
    assert str(err.value) == line


@pytest.mark.parametrize(
    ("doc", "start"),
    [
        ({"hosts": _ONE, "labels": {"s\nx": "r"}}, "topo.yaml: labels key: 's\\nx' holds"),
        (
            {"hosts": [{"name": "n1", "path": ["s"], "address": "10.0.0.1\nx"}]},
            "topo.yaml: hosts[0] (n1): address: '10.0.0.1\\nx' holds",
        ),
        (
            {"hosts": [{"name": "n1", "path": ["s"], "instance_id": ["i"]}]},
            "topo.yaml: hosts[0] (n1): instance_id: ['i'] must be a string",
        ),
        (
            {"hosts": [{"name": "n1", "path": ["s"], "instance_type": True}]},
            "topo.yaml: hosts[0] (n1): instance_type: True must be a string",
        ),
    ],
)
def test_optional_fields_and_label_keys_are_typed(doc: Any, start: str) -> None:
    with pytest.raises(UserError) as err:
        file.parse(doc, "topo.yaml")
    assert str(err.value).startswith(start)
