"""OCI capacity read live: the SDK's own models from fake ComputeClients, every page followed,
the capacity topology's bare-metal hosts (or the compute hosts without one) read as the CLI's
JSON; SDK errors are one line."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from tests.unit import capacity_shapes as shapes

from gpufabric.capacity.choose import choose
from gpufabric.errors import UserError

oci = pytest.importorskip("oci")
from gpufabric.clouds.oci import capacity  # noqa: E402

ZONE = "Uocm:US-ASHBURN-AD-1"
COMPARTMENT = "ocid1.compartment.oc1..aaaa"
TOPOLOGY = "ocid1.computecapacitytopology.oc1.iad.t1"


def _page(items: list[Any], collection: Any, next_page: str | None = None) -> Any:
    return SimpleNamespace(data=collection(items=items), next_page=next_page)


def _bm(i: int, block: str, details: str = "AVAILABLE", instance: str | None = None) -> Any:
    return oci.core.models.ComputeBareMetalHostSummary(
        id=f"ocid1.computebaremetalhost.{i}", compute_capacity_topology_id=TOPOLOGY,
        compute_hpc_island_id="ocid1.computehpcisland.1", compute_network_block_id=block,
        compute_local_block_id=f"lb-{block}", instance_id=instance,
        instance_shape=shapes.OCI_SHAPE, lifecycle_state="ACTIVE", lifecycle_details=details)  # fmt: skip


def _host(i: int, block: str, state: str = "AVAILABLE", health: str = "HEALTHY") -> Any:
    return oci.core.models.ComputeHostSummary(
        id=f"ocid1.computehost.{i}", availability_domain=ZONE, compartment_id=COMPARTMENT,
        hpc_island_id="ocid1.computehpcisland.2", network_block_id=block,
        local_block_id="ocid1.computelocalblock.2", shape=shapes.OCI_SHAPE, health=health,
        lifecycle_state=state)  # fmt: skip


class FakeCompute:
    """Two pages of each list; records every call with its arguments."""

    def __init__(self, topologies: list[Any], bare_metal: list[Any], hosts: list[Any]) -> None:
        self.topologies, self.bare_metal, self.hosts = topologies, bare_metal, hosts
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def _two_pages(self, items: list[Any], collection: Any, page: str | None) -> Any:
        half = len(items) // 2
        if page is None:
            return _page(items[:half], collection, "p2")
        return _page(items[half:], collection)

    def list_compute_capacity_topologies(self, compartment_id: str, **kw: Any) -> Any:
        self.calls.append(("topologies", compartment_id, kw))
        models = oci.core.models
        return self._two_pages(
            self.topologies, models.ComputeCapacityTopologyCollection, kw.get("page")
        )

    def list_compute_capacity_topology_compute_bare_metal_hosts(
        self, topology_id: str, **kw: Any
    ) -> Any:
        self.calls.append(("bare-metal", topology_id, kw))
        models = oci.core.models
        return self._two_pages(
            self.bare_metal, models.ComputeBareMetalHostCollection, kw.get("page")
        )

    def list_compute_hosts(self, compartment_id: str, **kw: Any) -> Any:
        self.calls.append(("hosts", compartment_id, kw))
        return self._two_pages(self.hosts, oci.core.models.ComputeHostCollection, kw.get("page"))


def _topology(tid: str, state: str) -> Any:
    return oci.core.models.ComputeCapacityTopologySummary(
        id=tid, availability_domain=ZONE, compartment_id=COMPARTMENT, lifecycle_state=state
    )


def test_live_reads_every_page_of_the_capacity_topology_hosts() -> None:
    bare_metal = [_bm(i, "nb1") for i in range(5)] + [_bm(5, "nb1", instance="ocid1.instance.x")]
    bare_metal += [_bm(6, "nb2"), _bm(7, "nb2", "DEGRADED")]
    topologies = [_topology(TOPOLOGY, "ACTIVE"), _topology("ocid1.gone", "DELETED")]
    fake = FakeCompute(topologies, bare_metal, [])
    docs = capacity.CapacityClient("us-ashburn-1", fake).read(COMPARTMENT, ZONE)
    cap = capacity.capacity(docs, shapes.OCI_SHAPE, "live")
    units = {u.id: u for u in cap.units}
    # both pages read: 5 free hosts on nb1 (the sixth holds an instance); nb2 has a DEGRADED host
    assert units["nb1"].free == 5 and units["nb1"].group == "ocid1.computehpcisland.1"
    assert not units["nb2"].healthy
    assert choose(cap, 4).units[0].id == "nb1"
    topo_calls = [(what, kw.get("page")) for what, _, kw in fake.calls if what == "topologies"]
    assert topo_calls == [("topologies", None), ("topologies", "p2")]
    bm_calls = [(who, kw.get("page")) for what, who, kw in fake.calls if what == "bare-metal"]
    assert bm_calls == [(TOPOLOGY, None), (TOPOLOGY, "p2")]  # the DELETED topology is not read
    assert all(kw.get("availability_domain") == ZONE for _, _, kw in fake.calls)
    assert not [c for c in fake.calls if c[0] == "hosts"]


def test_live_without_a_capacity_topology_reads_the_compute_hosts() -> None:
    hosts = [_host(i, "nb3") for i in range(3)] + [_host(3, "nb3", "OCCUPIED")]
    hosts += [_host(4, "nb4"), _host(5, "nb4", health="UNHEALTHY")]
    fake = FakeCompute([], [], hosts)
    docs = capacity.CapacityClient("us-ashburn-1", fake).read(COMPARTMENT, ZONE)
    assert [origin for origin, _ in docs] == ["oci ListComputeHosts"]
    units = {u.id: u for u in capacity.capacity(docs, shapes.OCI_SHAPE, "live").units}
    assert units["nb3"].free == 3 and units["nb3"].healthy
    assert not units["nb4"].healthy and units["nb4"].note == "1 UNHEALTHY host(s)"
    calls = [(what, who, kw.get("page")) for what, who, kw in fake.calls if what == "hosts"]
    assert calls == [("hosts", COMPARTMENT, None), ("hosts", COMPARTMENT, "p2")]


def test_live_service_errors_are_one_line() -> None:
    class Refusing(FakeCompute):
        def list_compute_capacity_topologies(self, compartment_id: str, **kw: Any) -> Any:
            raise oci.exceptions.ServiceError(404, "NotAuthorizedOrNotFound", {}, "denied\nmore")

    with pytest.raises(UserError) as err:
        capacity.CapacityClient("us-ashburn-1", Refusing([], [], [])).read(COMPARTMENT, ZONE)
    message = str(err.value)
    assert message == "oci ListComputeCapacityTopologies in us-ashburn-1: 404 denied"


def test_check_places_oci_nodes_by_the_hosts_the_capacity_lists() -> None:
    """OCI node discovery reports no position: the bare-metal hosts the capacity read lists
    under each node's instance id place it (island, network block, local block)."""
    from tests.pulumi.plans import plan_for
    from tests.unit.test_discovery_oci_live import (
        FakeCompute as DiscoveryCompute,
    )
    from tests.unit.test_discovery_oci_live import (
        FakeManagement,
        FakeNetwork,
        _instances,
    )

    from gpufabric.capacity.check import landed_outside
    from gpufabric.capacity.landed import landed
    from gpufabric.clouds.oci.live import OciApi
    from gpufabric.stack_outputs import parse

    outputs = parse(plan_for("oci-h100").outputs)
    api = OciApi(
        "us-ashburn-1",
        FakeManagement(_instances(4, str(outputs.cluster.compartment))),
        DiscoveryCompute(),
        FakeNetwork(),
    )
    blocks = ["nb1", "nb1", "nb2"]  # the fourth node's host is not listed
    hosts = [
        _bm(i, b, instance=f"ocid1.instance.oc1.iad.node{i:04d}") for i, b in enumerate(blocks)
    ]
    hosts.append(_bm(9, "nb1"))  # a free host
    fake = FakeCompute([_topology(TOPOLOGY, "ACTIVE")], hosts, [])
    docs = capacity.CapacityClient("us-ashburn-1", fake).read(COMPARTMENT, ZONE)
    where = landed(outputs, None, api, positions=capacity.positions(docs))
    assert {h.name: h.path for h in where.hosts}["inst-0002"] == (
        "ocid1.computehpcisland.1",
        "nb2",
        "lb-nb2",
    )
    result = landed_outside(capacity.capacity(docs, shapes.OCI_SHAPE, "live"), ["nb1"], where)
    assert result.inside == ("inst-0000", "inst-0001")
    assert result.outside == (
        ("inst-0002", "lb-nb2"),
        ("inst-0003", "no position reported"),
    )
    with pytest.raises(UserError, match="none with a network position"):
        landed(outputs, None, api)  # without the capacity's hosts: nothing places them


def test_live_reads_every_active_or_updating_topology_as_the_clis_listing() -> None:
    class TwoTopologies(FakeCompute):
        def list_compute_capacity_topology_compute_bare_metal_hosts(
            self, topology_id: str, **kw: Any
        ) -> Any:
            self.calls.append(("bare-metal", topology_id, kw))
            hosts = [_bm(1, "nb1")] if topology_id == TOPOLOGY else [_bm(2, "nb2")]
            return _page(hosts, oci.core.models.ComputeBareMetalHostCollection)

    topologies = [
        _topology(TOPOLOGY, "ACTIVE"),
        _topology("ocid1.creating", "CREATING"),
        _topology("ocid1.updating", "UPDATING"),
        _topology("ocid1.failed", "FAILED"),
    ]
    fake = TwoTopologies(topologies, [], [])
    docs = capacity.CapacityClient("us-ashburn-1", fake).read(COMPARTMENT, ZONE)
    assert [c[:2] for c in fake.calls] == [
        ("topologies", COMPARTMENT),
        ("topologies", COMPARTMENT),
        ("bare-metal", TOPOLOGY),
        ("bare-metal", "ocid1.updating"),
    ]
    from gpufabric.clouds.oci.live import kebab

    assert docs == [
        (
            "oci ListComputeCapacityTopologyComputeBareMetalHosts",
            {"data": {"items": [kebab(_bm(1, "nb1")), kebab(_bm(2, "nb2"))]}},
        )
    ]


def test_live_compute_hosts_are_the_clis_listing() -> None:
    from gpufabric.clouds.oci.live import kebab

    hosts = [_host(1, "nb1"), _host(2, "nb1")]
    fake = FakeCompute([], [], hosts)
    docs = capacity.CapacityClient("us-ashburn-1", fake).read(COMPARTMENT, ZONE)
    assert docs == [("oci ListComputeHosts", {"data": {"items": [kebab(h) for h in hosts]}})]
    in_zone = {"availability_domain": ZONE}
    assert fake.calls == [
        ("topologies", COMPARTMENT, in_zone),
        ("topologies", COMPARTMENT, {**in_zone, "page": "p2"}),
        ("hosts", COMPARTMENT, in_zone),
        ("hosts", COMPARTMENT, {**in_zone, "page": "p2"}),
    ]


def test_live_listing_errors_name_the_call_and_region() -> None:
    denied = oci.exceptions.ServiceError(404, "NotAuthorizedOrNotFound", {}, "denied\nmore")

    class RefusingHosts(FakeCompute):
        def list_compute_capacity_topology_compute_bare_metal_hosts(
            self, topology_id: str, **kw: Any
        ) -> Any:
            raise denied

        def list_compute_hosts(self, compartment_id: str, **kw: Any) -> Any:
            raise denied

    with pytest.raises(UserError) as err:
        fake = RefusingHosts([_topology(TOPOLOGY, "ACTIVE")], [], [])
        capacity.CapacityClient("us-ashburn-1", fake).read(COMPARTMENT, ZONE)
    assert str(err.value) == (
        f"oci ListComputeCapacityTopologyComputeBareMetalHosts {TOPOLOGY} in us-ashburn-1: "
        "404 denied"
    )
    with pytest.raises(UserError) as err:
        capacity.CapacityClient("us-ashburn-1", RefusingHosts([], [], [])).read(COMPARTMENT, ZONE)
    assert str(err.value) == "oci ListComputeHosts in us-ashburn-1: 404 denied"


def test_without_a_client_the_sdks_is_made_for_the_region(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufabric.clouds.oci import live

    asked: list[tuple[str, str]] = []

    def sdk_config(region: str, what: str) -> dict[str, Any]:
        asked.append((region, what))
        return {"region": region, "tenancy": "t"}

    monkeypatch.setattr(live, "sdk_config", sdk_config)
    monkeypatch.setattr(oci.core, "ComputeClient", lambda config: ("compute", config))
    client = capacity.CapacityClient("us-ashburn-1")
    assert asked == [("us-ashburn-1", "OCI capacity")]
    assert client.compute == ("compute", {"region": "us-ashburn-1", "tenancy": "t"})
    assert client.region == "us-ashburn-1"
