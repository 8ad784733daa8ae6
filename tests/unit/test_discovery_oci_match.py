"""OCI discovery's matching rules word for word: which file is which listing, which VNIC gives
the address (attached, primary, lowest NIC index), what each left-out instance's warning says
and the one-line refusals of listings or outputs it cannot match."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.pulumi.plans import plan_for
from tests.unit import cli_json
from tests.unit.test_discovery_garbage import _oci

from gpufabric import discovery
from gpufabric.clouds.oci import discovery as oci
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs, parse

ZONE = "Uocm:US-ASHBURN-AD-1"
IID = "ocid1.instance.oc1.iad.node0000"
CLI = (
    "`oci compute-management instance-pool list-instances`, `oci compute vnic-attachment list` "
    "and `oci network vnic get` / `oci compute instance list-vnics`"
)


def _outputs() -> StackOutputs:
    return parse(plan_for("oci-h100").outputs)


def _pool(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"data": list(entries)}


def _entry(name: str = "inst-a", iid: str = IID, **kw: Any) -> dict[str, Any]:
    return {**cli_json.oci_pool_instance(iid, name, zone=ZONE), **kw}


def _att(vnic: str, **kw: Any) -> dict[str, Any]:
    return {**cli_json.oci_vnic_attachment(IID, vnic, zone=ZONE), **kw}


def _vnic(vnic: str, ip: str, **kw: Any) -> dict[str, Any]:
    return {**cli_json.oci_vnic(vnic, ip)["data"], **kw}


def test_shape_tells_the_three_listings_apart() -> None:
    assert oci.shape(_pool(_entry())) == "oci-pool"
    assert oci.shape({"data": [{"display-name": "x", "state": "Running"}]}) == "oci-pool"
    assert oci.shape({"data": [{"instance-configuration-id": "c"}]}) == "oci-pool"
    assert oci.shape({"data": [_att("v")]}) == "oci-attachments"
    assert oci.shape(cli_json.oci_vnic("v", "10.0.0.5")) == "oci-vnics"  # one VNIC: an object
    assert oci.shape({"data": [_vnic("v", "10.0.0.5")]}) == "oci-vnics"
    for other in (
        {"data": []},
        {"data": [1]},
        {"data": [{"display-name": "x"}]},
        {"data": [{"vnic-id": "v"}]},
        {"data": "x"},
        [],
        None,
    ):
        assert oci.shape(other) == "unknown", other


def _match(*docs: Any) -> Any:
    return oci.match(_outputs(), [(f"f{i}", d) for i, d in enumerate(docs)])


def test_the_primary_attached_vnic_of_lowest_index_gives_the_address() -> None:
    atts = {
        "data": [
            _att("v-second", **{"nic-index": 1}),
            _att("v-detaching", **{"lifecycle-state": "DETACHING", "nic-index": None}),
            _att("v-secondary", **{"nic-index": None}),
            _att("v-first"),
        ]
    }
    vnics = {
        "data": [
            _vnic("v-second", "10.0.0.2"),
            _vnic("v-detaching", "10.0.0.3"),
            _vnic("v-secondary", "10.0.0.4", **{"is-primary": False}),
            _vnic("v-first", "10.0.0.5"),
        ]
    }
    found = _match(_pool(_entry()), atts, vnics)
    assert [(n.name, n.address, n.instance_id) for n in found.nodes] == [
        ("inst-a", "10.0.0.5", IID)
    ]


def test_an_attachment_without_a_state_or_vnic_fields_still_counts() -> None:
    att = _att("v-1")
    del att["lifecycle-state"], att["nic-index"]
    vnic = _vnic("v-1", "10.0.0.5")
    del vnic["is-primary"]
    found = _match(_pool(_entry()), {"data": [att]}, {"data": [vnic]})
    assert [n.address for n in found.nodes] == ["10.0.0.5"]


def test_each_left_out_instance_says_why() -> None:
    out = _outputs()
    entries = [
        _entry("inst-ad2", "ocid1.instance.oc1.iad.a", **{"availability-domain": "Uocm:AD-2"}),
        _entry("inst-stopped", "ocid1.instance.oc1.iad.b", state="Stopped"),
        _entry("inst-nostate", "ocid1.instance.oc1.iad.c"),
        _entry("inst-novnic", "ocid1.instance.oc1.iad.d", state="RUNNING"),
        _entry("inst-ok", "ocid1.instance.oc1.iad.e", state="running"),
    ]
    del entries[2]["state"]
    atts = {"data": [cli_json.oci_vnic_attachment("ocid1.instance.oc1.iad.e", "v-e", zone=ZONE)]}
    found = _match(
        _pool(*entries), atts, {"data": [_vnic("v-e", "10.0.0.9", **{"private-ip": "10.0.0.9"})]}
    )
    group = out.nodes.groups[0].name
    assert found.warnings == [
        f"inst-ad2 ({group}): availability domain Uocm:AD-2, not the stack's {ZONE}; left out",
        f"inst-stopped ({group}): state Stopped; left out",
        f"inst-nostate ({group}): state unknown; left out",
        f"inst-novnic ({group}): no primary VNIC address among the discovery files; left out",
    ]
    assert [n.name for n in found.nodes] == ["inst-ok"]


def test_a_listing_that_is_not_ocis_is_refused() -> None:
    with pytest.raises(UserError) as err:
        _match(_pool(_entry()), {"data": [{"what": 1}]})
    assert str(err.value) == f"f1: not OCI CLI output I know; give {CLI} (JSON)"


def test_without_a_pool_listing_the_files_to_give_are_named() -> None:
    with pytest.raises(UserError) as err:
        _match({"data": [_att("v")]}, cli_json.oci_vnic("v", "10.0.0.5"))
    assert str(err.value) == (f"discovery files: no instance pool listing among them; give {CLI}")


@pytest.mark.parametrize("missing", ["id", "display-name"])
def test_an_instance_without_its_id_or_name_is_refused(missing: str) -> None:
    entry = _entry()
    entry[missing] = ""
    with pytest.raises(UserError) as err:
        _match(_pool(entry))
    assert str(err.value) == "f0: an instance has no id or display-name"


def test_an_instance_id_of_another_kind_is_refused_naming_it() -> None:
    with pytest.raises(UserError) as err:
        _match(_pool(_entry(iid="ocid1.vnic.oc1.iad.x")))
    assert str(err.value).startswith("f0: instance 'inst-a': id 'ocid1.vnic.oc1.iad.x' ")


def test_outputs_without_a_cluster_network_cannot_be_matched(tmp_path: Path) -> None:
    out = _outputs()
    group = out.nodes.groups[0].model_copy(update={"id": None})
    out = out.model_copy(update={"nodes": out.nodes.model_copy(update={"groups": [group]})})
    message = (
        "stack outputs: nodes.groups has no cluster-network with its instance pool id; "
        "these outputs cannot be matched on OCI"
    )
    with pytest.raises(UserError) as err:
        discovery.from_files(out, _oci(tmp_path, [{"name": "inst-a", "ip": "10.0.0.5"}]))
    assert str(err.value) == message
    with pytest.raises(UserError) as err:
        oci.live(out, object())
    assert str(err.value) == message


def test_live_needs_the_compartment() -> None:
    out = _outputs()
    cluster = out.cluster.model_copy(update={"compartment": None})
    with pytest.raises(UserError) as err:
        oci.live(out.model_copy(update={"cluster": cluster}), object())
    assert str(err.value) == "stack outputs: cluster.compartment: not set; oci discovery needs it"


def test_recognise_only_bodies_under_data() -> None:
    assert oci.recognise({"data": []}) == "oci"
    assert oci.recognise({"data": {}}) == "oci"
    for other in ({"data": "x"}, {"items": []}, [], None):
        assert oci.recognise(other) is None


def test_files_are_read_in_any_order(tmp_path: Path) -> None:
    files = _oci(tmp_path, [{"name": "inst-a", "ip": "10.0.0.5"}])
    found = discovery.from_files(_outputs(), list(reversed(files)))
    assert [(n.name, n.address) for n in found.nodes] == [("inst-a", "10.0.0.5")]
    assert json.loads(files[0].read_text())["data"][0]["display-name"] == "inst-a"


def test_an_instance_of_another_compartment_is_named_with_both() -> None:
    out = _outputs()
    other = "ocid1.compartment.oc1..other"
    found = _match(_pool(_entry(**{"compartment-id": other})))
    assert found.warnings == [
        f"inst-a ({out.nodes.groups[0].name}): compartment {other}, not the stack's "
        f"{out.cluster.compartment}; left out"
    ]


def test_outputs_with_two_cluster_networks_are_refused_not_merged() -> None:
    """The pool listing does not say which pool an instance is in: with two cluster networks
    every node would be put in the first one's group."""
    out = _outputs()
    first = out.nodes.groups[0]
    second = first.model_copy(update={"id": f"{first.id}2", "name": "other-cn"})
    out = out.model_copy(update={"nodes": out.nodes.model_copy(update={"groups": [first, second]})})
    with pytest.raises(UserError) as err:
        oci.match(out, [("f0", _pool(_entry()))])
    assert str(err.value) == (
        f"stack outputs: nodes.groups has 2 cluster networks ({first.name}, other-cn); OCI "
        "discovery matches one (its listings do not say which pool an instance is in)"
    )
