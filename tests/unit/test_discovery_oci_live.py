"""OCI live discovery: the SDK's answers (its own models, from fake clients) become the CLI's
JSON and are matched by the same rules as saved CLI output; SDK errors are one line."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from tests.pulumi.plans import plan_for

from gpufabric import discovery
from gpufabric.errors import UserError
from gpufabric.stack_outputs import parse

oci = pytest.importorskip("oci")
from gpufabric.clouds.oci.live import OciApi  # noqa: E402

ZONE = "Uocm:US-ASHBURN-AD-1"


def _page(data: Any, next_page: str | None = None) -> Any:
    return SimpleNamespace(data=data, next_page=next_page)


class FakeManagement:
    def __init__(self, instances: list[Any]) -> None:
        self.instances, self.calls = instances, []

    def list_instance_pool_instances(self, compartment: str, pool: str, **kw: Any) -> Any:
        self.calls.append((compartment, pool, kw.get("page")))
        half = len(self.instances) // 2
        if kw.get("page") is None:  # two pages: the client must follow next_page
            return _page(self.instances[:half], "p2")
        return _page(self.instances[half:])


class FakeCompute:
    def list_vnic_attachments(self, compartment: str, instance_id: str, **kw: Any) -> Any:
        n = instance_id.rsplit("node", 1)[-1]
        return _page([
            oci.core.models.VnicAttachment(
                instance_id=instance_id, vnic_id=f"ocid1.vnic.oc1.iad.v{n}", nic_index=0,
                lifecycle_state="ATTACHED", availability_domain=ZONE)
        ])  # fmt: skip


class FakeNetwork:
    def get_vnic(self, vnic_id: str) -> Any:
        n = int(vnic_id.rsplit("v", 1)[-1])
        return _page(
            oci.core.models.Vnic(id=vnic_id, private_ip=f"10.0.0.{10 + n}", is_primary=True)
        )


def _instances(count: int, compartment: str) -> list[Any]:
    found = [
        oci.core.models.InstanceSummary(
            id=f"ocid1.instance.oc1.iad.node{i:04d}", display_name=f"inst-{i:04d}",
            state="Running", availability_domain=ZONE, compartment_id=compartment,
            shape="BM.GPU.H100.8")
        for i in range(count)
    ]  # fmt: skip
    found.append(
        oci.core.models.InstanceSummary(
            id="ocid1.instance.oc1.iad.gone", display_name="inst-gone", state="Terminated",
            availability_domain=ZONE, compartment_id=compartment, shape="BM.GPU.H100.8")
    )  # fmt: skip
    return found


def test_live_oci_discovery_matches_like_the_cli_files() -> None:
    outputs = parse(plan_for("oci-h100").outputs)
    compartment = str(outputs.cluster.compartment)
    management = FakeManagement(_instances(16, compartment))
    api = OciApi("us-ashburn-1", management, FakeCompute(), FakeNetwork())
    found = discovery.live(outputs, api)
    assert len(found.nodes) == 16
    assert (found.nodes[0].name, found.nodes[0].address) == ("inst-0000", "10.0.0.10")
    assert any("inst-gone" in w and "Terminated" in w for w in found.warnings)
    pool = outputs.nodes.groups[0].id
    assert management.calls == [(compartment, pool, None), (compartment, pool, "p2")]


def test_live_oci_service_errors_are_one_line() -> None:
    class Refusing(FakeManagement):
        def list_instance_pool_instances(self, compartment: str, pool: str, **kw: Any) -> Any:
            raise oci.exceptions.ServiceError(404, "NotAuthorizedOrNotFound", {}, "no pool\nmore")

    outputs = parse(plan_for("oci-h100").outputs)
    api = OciApi("us-ashburn-1", Refusing([]), FakeCompute(), FakeNetwork())
    with pytest.raises(UserError) as err:
        discovery.live(outputs, api)
    message = str(err.value)
    assert message.startswith("oci ListInstancePoolInstances ") and "404 no pool" in message
    assert "\n" not in message


def test_without_a_client_the_sdk_clients_are_built_for_the_stacks_region(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpufabric.clouds.oci import live

    built: list[tuple[Any, ...]] = []
    listed: list[tuple[Any, ...]] = []

    class Recording(OciApi):
        def __init__(self, *args: Any) -> None:
            built.append(args)

    def listings(api: Any, compartment: str, pools: list[str]) -> list[Any]:
        listed.append((api, compartment, pools))
        return []

    monkeypatch.setattr(live, "OciApi", Recording)
    monkeypatch.setattr(live, "listings", listings)
    outputs = parse(plan_for("oci-h100").outputs)
    with pytest.raises(UserError, match="no running node"):
        discovery.live(outputs)
    assert built == [(outputs.cluster.region,)]
    ((api, compartment, pools),) = listed
    assert isinstance(api, Recording)
    assert (compartment, pools) == (outputs.cluster.compartment, [outputs.nodes.groups[0].id])
