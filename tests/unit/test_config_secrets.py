"""Secret config stays secret: never printed in an error, and an output that carries a secret
config value is exported as a Pulumi secret (encrypted in state and outputs)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pulumi
import pytest

from gpufabric.clouds.outputs import ClusterOutputs, holds, keep_secret, user_data_input
from gpufabric.config.load import parse, secret_values
from gpufabric.config.stack_reader import load_stack_file
from gpufabric.errors import ConfigError, UserError
from gpufabric.stack_outputs import EXPORTS

SECRET = "hunter2-correct-horse"
REPO = Path(__file__).resolve().parents[2]
RAW = load_stack_file(REPO / "stacks" / "Pulumi.aws-h100.yaml", "gpufabric")


@pytest.mark.parametrize(
    "raw",
    [
        {**RAW, "gpufabric:nodes": SECRET},  # wrong type
        {**RAW, "gpufabric:network": {**RAW["gpufabric:network"], "managementCidr": SECRET}},
    ],
)
def test_a_bad_secret_value_is_never_printed(raw: dict[str, Any]) -> None:
    key = next(k for k, v in raw.items() if SECRET in str(v))
    with pytest.raises(UserError) as plain:
        parse(raw, "s")
    assert SECRET in str(plain.value)  # without the secret marking the value is shown ...
    with pytest.raises(ConfigError) as hidden:
        parse(raw, "s", [key])
    assert SECRET not in str(hidden.value) and "[secret]" in str(hidden.value)  # ... with: never
    assert str(hidden.value).startswith("gpufabric:")


def test_secret_values_cover_structured_values() -> None:
    raw = {"gpufabric:x": {"a": ["one-secret", {"b": "two-secret"}]}, "gpufabric:y": "plain"}
    assert set(secret_values(raw, ["gpufabric:x"])) == {"one-secret", "two-secret"}


class _Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        return args.name, dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[Any]]:
        return {}, []


def _secret(output: pulumi.Output[Any]) -> bool:
    return asyncio.get_event_loop().run_until_complete(output.is_secret())


def test_an_output_holding_a_secret_value_is_exported_as_secret() -> None:
    pulumi.runtime.set_mocks(_Mocks(), preview=False)
    holding = keep_secret({"inventory": {"sshUser": SECRET}}, [SECRET])
    other = keep_secret({"inventory": {"sshUser": "ubuntu"}}, [SECRET])
    none = keep_secret({"inventory": {"sshUser": SECRET}}, [])
    assert _secret(holding) and not _secret(other) and not _secret(none)
    assert _value(holding) == {"inventory": {"sshUser": SECRET}}  # the value itself is kept


def test_a_secret_is_found_in_any_list_tuple_dict_key_or_value() -> None:
    assert holds([1, ("b", f"x-{SECRET}")], [SECRET])
    assert holds({SECRET: "value"}, [SECRET]) and holds({"k": [SECRET]}, [SECRET])
    assert not holds([1, None, ("b",), {"k": "v"}], [SECRET])


def _value(output: pulumi.Output[Any]) -> Any:
    return asyncio.get_event_loop().run_until_complete(output.future())


def test_user_data_holding_a_secret_is_a_secret_in_the_form_the_cloud_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pulumi.runtime.set_mocks(_Mocks(), preview=False)
    from gpufabric.config import load

    monkeypatch.setattr(load, "secret_config_value_texts", lambda: [SECRET])
    sent = user_data_input(f"#cloud-config\npassword: {SECRET}\n", "QkFTRTY0")
    assert isinstance(sent, pulumi.Output) and _secret(sent) and _value(sent) == "QkFTRTY0"
    assert user_data_input("#cloud-config\n", "QkFTRTY0") == "QkFTRTY0"
    assert user_data_input("#cloud-config\n") == "#cloud-config\n"
    plain = user_data_input(f"#cloud-config\npassword: {SECRET}\n")
    assert (
        isinstance(plain, pulumi.Output) and _value(plain) == f"#cloud-config\npassword: {SECRET}\n"
    )


def test_each_stack_output_holding_a_secret_is_exported_as_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pulumi.runtime.set_mocks(_Mocks(), preview=False)
    exported: dict[str, pulumi.Output[Any]] = {}
    monkeypatch.setattr(pulumi, "export", lambda name, value: exported.setdefault(name, value))

    class Outputs:
        def exports(self) -> dict[str, Any]:
            return {name: {"sshUser": SECRET} if name == "nodes" else name for name in EXPORTS}

    ClusterOutputs(pulumi.Output.from_input(Outputs())).export([SECRET])  # type: ignore[arg-type]
    assert list(exported) == list(EXPORTS)
    assert [n for n, v in exported.items() if _secret(v)] == ["nodes"]
