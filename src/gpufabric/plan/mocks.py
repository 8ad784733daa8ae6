"""Recording mocks: every resource the program registers, with readable fake ids.

Computed attributes the program reads back (ARNs, DNS names, zones) get realistic values,
so inputs built from them are never silently None.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc

from gpufabric.clouds import registry


@dataclass(frozen=True)
class Recorded:
    type: str
    name: str
    id: str
    inputs: dict[str, Any]
    custom: bool
    read: bool


def placeholder_id(name: str) -> str:
    return f"<{name}.id>"


@dataclass
class MockFacts:
    """What the fake cloud answers: the stack's region and zone."""

    region: str
    zone: str
    account: str = "123456789012"


class RecordingMocks(pulumi.runtime.Mocks):
    def __init__(self, facts: MockFacts) -> None:
        self.facts = facts
        self.records: list[Recorded] = []
        # type token -> its cloud's mocks module: looked up in the registry once per token, not
        # once per resource (thousands of instances share one token)
        self._cloud_mocks: dict[str, ModuleType | None] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
        rid = args.resource_id or placeholder_id(args.name)
        inputs = dict(args.inputs)
        self.records.append(
            Recorded(args.typ, args.name, rid, inputs, bool(args.custom), bool(args.resource_id))
        )
        return rid, {**inputs, **self._computed(args.typ, args.name, inputs)}

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:  # type: ignore[override]
        # a bare dict: pulumi's MockMonitor iterates the failures of a (result, failures) pair
        return self._answer(args)

    def _answer(self, args: pulumi.runtime.MockCallArgs) -> dict:
        """A provider function's answer, from the cloud whose token it is."""
        mocks = self._mocks_for(args.token)
        return mocks.answer(args.token, self.facts) if mocks is not None else {}

    def _computed(self, typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        """Attributes the cloud would fill in, for the types whose outputs the program reads."""
        out: dict[str, Any] = {"name": inputs.get("name", name)}
        mocks = self._mocks_for(typ)
        if mocks is not None:
            out.update(mocks.computed(typ, name, inputs, self.records, self.facts))
        return out

    def _mocks_for(self, token: str) -> ModuleType | None:
        if token not in self._cloud_mocks:
            self._cloud_mocks[token] = registry.mocks_for_type(token)
        return self._cloud_mocks[token]


class CapturingMonitor(pulumi_mocks.MockMonitor):
    """A MockMonitor that also keeps the root stack's registered outputs (the exports) and each
    resource's custom timeouts (resource options the mocks' new_resource does not see)."""

    def __init__(self, mocks: RecordingMocks) -> None:
        super().__init__(mocks)
        self.stack_outputs: dict[str, Any] = {}
        self.timeouts: dict[tuple[str, str], dict[str, str]] = {}

    def RegisterResource(self, request):
        if request.HasField("customTimeouts"):
            given = request.customTimeouts
            kept = {
                k: getattr(given, k) for k in ("create", "update", "delete") if getattr(given, k)
            }
            if kept:
                self.timeouts[(request.type, request.name)] = kept
        return super().RegisterResource(request)

    def RegisterResourceOutputs(self, request):
        if "::pulumi:pulumi:Stack::" in request.urn:
            self.stack_outputs = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)
