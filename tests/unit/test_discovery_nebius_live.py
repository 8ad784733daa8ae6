"""Nebius live discovery: the SDK's own Instance messages (from a fake instance service) become
the CLI's JSON and are matched by the same rules as saved CLI output; every page is read; SDK
errors are one line; a project id that is not one is refused before any call."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs, parse

pytest.importorskip("nebius")
from nebius.aio.service_error import RequestError
from nebius.api.nebius.compute.v1 import Instance, ListInstancesResponse
from nebius.base.protos.json_format import parse_dict

from gpufabric.clouds.nebius.live import NebiusApi


class FakeInstances:
    """InstanceServiceClient.list(request) -> a request whose .wait() answers, two pages."""

    def __init__(self, instances: list[dict[str, Any]]) -> None:
        self.items = [parse_dict(i, Instance()) for i in instances]  # the SDK's own messages
        self.calls: list[tuple[str, str, int]] = []

    def list(self, request: Any) -> Any:
        self.calls.append((request.parent_id, request.page_token, request.page_size))
        half = len(self.items) // 2
        if not request.page_token:
            answer = ListInstancesResponse(items=self.items[:half], next_page_token="p2")
        else:
            answer = ListInstancesResponse(items=self.items[half:])
        return SimpleNamespace(wait=lambda: answer)


def _outputs() -> StackOutputs:
    return parse(plan_for("nebius-h100").outputs)


def _instances(outputs: StackOutputs) -> list[dict[str, Any]]:
    group = outputs.nodes.groups[0]
    project = str(outputs.cluster.project)
    found = [
        cli_json.nebius_instance(
            name, f"10.0.0.{10 + i}", project=project, gpu_cluster=group.id,
            path=["r", "s", f"leaf{i // 8}"])
        for i, name in enumerate(group.members)
    ]  # fmt: skip
    found.append(cli_json.nebius_instance("bastion", "10.0.0.5", project=project, gpu_cluster=None))
    found.append(
        cli_json.nebius_instance(
            "gone", "10.0.0.6", project=project, gpu_cluster=group.id, state="STOPPED"
        )
    )
    return found


def test_live_nebius_discovery_matches_like_the_cli_file() -> None:
    outputs = _outputs()
    service = FakeInstances(_instances(outputs))
    found = discovery.live(outputs, NebiusApi(service))
    members = outputs.nodes.groups[0].members
    assert [n.name for n in found.nodes] == sorted(members)
    assert found.nodes[0].leaf == "leaf0" and found.nodes[-1].leaf == "leaf1"
    assert found.nodes[0].address == "10.0.0.10"
    assert found.nodes[0].instance_id == f"computeinstance-{found.nodes[0].name}"
    assert any("gone" in w and "STOPPED" in w for w in found.warnings)
    project = str(outputs.cluster.project)
    assert service.calls == [(project, "", 100), (project, "p2", 100)]


def test_live_nebius_service_errors_are_one_line() -> None:
    class Refusing(FakeInstances):
        def list(self, request: Any) -> Any:
            def fail() -> Any:
                raise RequestError(SimpleNamespace(code="PERMISSION_DENIED"))  # type: ignore[arg-type]

            return SimpleNamespace(wait=fail)

    with pytest.raises(UserError) as err:
        discovery.live(_outputs(), NebiusApi(Refusing([])))
    message = str(err.value)
    assert message.startswith("nebius InstanceService.List project-e00replacewithyourproject: ")
    assert "PERMISSION_DENIED" in message and "\n" not in message


def test_an_empty_project_is_no_nodes_found() -> None:
    with pytest.raises(UserError, match="no running node of stack nebius-h100"):
        discovery.live(_outputs(), NebiusApi(FakeInstances([])))


def test_a_project_that_is_not_a_nebius_project_id_is_refused_before_any_call() -> None:
    outputs = _outputs()
    bad = outputs.model_copy(
        update={"cluster": outputs.cluster.model_copy(update={"project": "p;rm -rf /"})}
    )
    service = FakeInstances(_instances(outputs))
    with pytest.raises(UserError, match=r"stack outputs: cluster\.project"):
        discovery.live(bad, NebiusApi(service))
    assert service.calls == []


def test_without_a_client_the_sdk_client_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufabric.clouds.nebius import live

    built: list[tuple[Any, ...]] = []

    class Recording(NebiusApi):
        def __init__(self, *args: Any) -> None:
            built.append(args)
            super().__init__(FakeInstances([]))

    monkeypatch.setattr(live, "NebiusApi", Recording)
    with pytest.raises(UserError, match="no running node of stack nebius-h100"):
        discovery.live(_outputs())
    assert built == [()]
