"""encryption-in-transit-explicit: the mode is exported, consistent, and possible."""

from __future__ import annotations

from gpufabric.policies import check_stack

from .helpers import by_policy, mutate, stack

POLICY = "encryption-in-transit-explicit"


def test_missing_mode_is_a_violation() -> None:
    view = stack("aws-h100")
    view.outputs = {k: v for k, v in view.outputs.items() if k != "encryption"}
    found = by_policy(check_stack(view), POLICY)
    assert len(found) == 1 and "stack output 'encryption' is None" in found[0].reason


def test_inventory_disagreeing_with_the_stack_is_a_violation() -> None:
    view = stack("aws-h100")
    view.outputs = {
        **view.outputs,
        "inventory": {**view.outputs["inventory"], "encryption": "none"},
    }
    assert (
        "tune-fabric would configure the wrong mode"
        in by_policy(check_stack(view), POLICY)[0].reason
    )


def test_provider_native_on_a_type_not_known_to_encrypt_is_a_violation() -> None:
    view = stack(
        "azure-ndv5"
    )  # the config model refuses this up front; the pack does not rely on it
    view.outputs = {**view.outputs, "encryption": "provider-native"}
    view.outputs["inventory"] = {**view.outputs["inventory"], "encryption": "provider-native"}
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
