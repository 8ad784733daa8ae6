"""encryption-in-transit-explicit: the mode is exported, consistent, and possible."""

from __future__ import annotations

from gpufabric.policies import check_stack
from gpufabric.policies.model import Resource

from .helpers import by_policy, mutate, stack

POLICY = "encryption-in-transit-explicit"


def test_missing_mode_is_a_violation() -> None:
    view = stack("aws-h100")
    cluster = {k: v for k, v in view.outputs["cluster"].items() if k != "encryption"}
    view.outputs = {**view.outputs, "cluster": cluster}
    found = by_policy(check_stack(view), POLICY)
    assert len(found) == 1 and "cluster.encryption: Field required" in found[0].reason


def test_outputs_without_the_contract_are_a_violation() -> None:
    view = stack("aws-h100")
    view.outputs = {k: v for k, v in view.outputs.items() if k != "cluster"}
    found = by_policy(check_stack(view), POLICY)
    assert len(found) == 1 and "no 'cluster' section" in found[0].reason


def test_unknown_mode_is_a_violation() -> None:
    view = stack("aws-h100")
    view.outputs = {**view.outputs, "cluster": {**view.outputs["cluster"], "encryption": "maybe"}}
    found = by_policy(check_stack(view), POLICY)
    assert len(found) == 1 and "'provider-native', 'ipsec' or 'none'" in found[0].reason


def test_provider_native_on_a_type_not_known_to_encrypt_is_a_violation() -> None:
    view = stack(
        "azure-ndv5"
    )  # the config model refuses this up front; the pack does not rely on it
    view.outputs = {
        **view.outputs,
        "cluster": {**view.outputs["cluster"], "encryption": "provider-native"},
    }
    found = by_policy(check_stack(view), POLICY)
    assert len(found) == 1 and "Standard_ND96isr_H100_v5 is not known to encrypt" in found[0].reason


def test_none_on_purpose_is_explicit() -> None:
    assert check_stack(stack("aws-h100", "gpufabric:encryption=none")) == []


def test_mutating_the_template_type_is_read_from_the_plan() -> None:
    view = mutate(
        stack("aws-h100"),
        "aws:ec2/launchTemplate:LaunchTemplate",
        lambda p: p.update(instanceType="p5en.48xlarge"),
    )
    found = by_policy(check_stack(view), POLICY)
    assert len(found) == 1 and "p5en.48xlarge" in found[0].reason


def test_a_nodes_own_type_overrides_its_templates() -> None:
    """EC2 launches the instance type a RunInstances call names over its launch template's."""
    view = stack("aws-h100")
    view.outputs = {
        **view.outputs,
        "cluster": {**view.outputs["cluster"], "encryption": "provider-native"},
    }
    native = Resource(
        "aws:ec2/launchTemplate:LaunchTemplate", "lt", "lt-1", {"instanceType": "p5.48xlarge"}
    )
    untyped = Resource("aws:ec2/launchTemplate:LaunchTemplate", "bare", "lt-2", {})

    def found(own: str | None, template: Resource) -> list[str]:
        props = {"launchTemplate": {"id": template.id}}
        node = Resource(
            "aws:ec2/instance:Instance", "n", "i-1", props | ({"instanceType": own} if own else {})
        )
        view.resources = [template, node]
        return [v.reason for v in by_policy(check_stack(view), POLICY)]

    (reason,) = found("p5en.48xlarge", native)
    assert "p5en.48xlarge is not known to encrypt" in reason
    assert found("p5.48xlarge", untyped) == []
    assert found(None, native) == []
