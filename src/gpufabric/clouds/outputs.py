"""Pulumi glue for the stack outputs contract (gpufabric.stack_outputs): one Output holding
the whole `StackOutputs`, registered on the component and exported key by key."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import pulumi

from gpufabric.catalog import InstanceType
from gpufabric.stack_outputs import EXPORTS, StackOutputs


@dataclass
class ClusterOutputs:
    outputs: pulumi.Output[StackOutputs]
    """Built by `gpufabric.stack_outputs.build` inside one `.apply` of the component."""

    def _exports(self) -> dict[str, pulumi.Output]:
        return {name: self.outputs.apply(lambda o, n=name: o.exports()[n]) for name in EXPORTS}

    def register(self, component: pulumi.ComponentResource) -> None:
        """The component's registered outputs: the stack's exports."""
        component.register_outputs(self._exports())

    def export(self, secrets: Collection[str] = ()) -> None:
        """Export the outputs; one that holds a secret config value is exported as a secret
        (encrypted in the state, "[secret]" in `pulumi stack output`)."""
        for name, value in self._exports().items():
            pulumi.export(name, keep_secret(value, secrets))


def holds(value: Any, secrets: Collection[str]) -> bool:
    """Whether `value` (JSON-like) contains one of the secret texts."""
    if isinstance(value, dict):
        return any(holds(k, secrets) or holds(v, secrets) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(holds(v, secrets) for v in value)
    return value is not None and any(s in str(value) for s in secrets)


def keep_secret(output: pulumi.Input[Any], secrets: Collection[str]) -> pulumi.Output[Any]:
    """`output`, made secret when its value holds a secret config value."""
    out = pulumi.Output.from_input(output)
    if not secrets:
        return out
    return out.apply(lambda v: pulumi.Output.secret(v) if holds(v, secrets) else v)


def check_instance(args_name: str, cloud: str, config_type: str, itype: InstanceType) -> None:
    """Constructor check shared by the components: the catalog entry is this cloud's and the
    config's; names the bad input."""
    if itype.cloud != cloud:
        raise ValueError(f"{args_name}.instance: {itype.name} is a {itype.cloud} type, not {cloud}")
    if config_type != itype.name:
        raise ValueError(
            f"{args_name}.instance: {itype.name} does not match config instanceType {config_type}"
        )


def user_data_input(text: str, sent: str | None = None) -> pulumi.Input[str]:
    """The nodes' user data as the cloud takes it (`sent`, e.g. base64 of `text`; default
    `text`), held as a Pulumi secret when `text` holds a secret config value: encrypted in the
    state, "[secret]" in `pulumi preview --diff`, whatever the provider's schema says."""
    from gpufabric.config.load import secret_config_value_texts

    value = text if sent is None else sent
    return pulumi.Output.secret(value) if holds(text, secret_config_value_texts()) else value
