"""Run the real Pulumi program (infra/__main__.py) under recording mocks, offline."""

from __future__ import annotations

import gc
import json
import runpy
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpufabric import config as stack_config
from gpufabric.errors import UserError
from gpufabric.plan.mocks import CapturingMonitor, MockFacts, RecordingMocks
from gpufabric.plan.project import PROJECT, apply_overrides, read_stack

OFFLINE_NOTICE = (
    "offline preview: the real program under mocks; no provider validation, "
    "no credentials, nothing created"
)


@dataclass(frozen=True)
class PlannedResource:
    type: str
    name: str
    id: str
    inputs: dict[str, Any]
    timeouts: dict[str, str] = field(default_factory=dict)
    """Custom create / update / delete timeouts the program set (pulumi CustomTimeouts)."""


@dataclass(frozen=True)
class Plan:
    stack: str
    config: stack_config.StackConfig
    resources: list[PlannedResource]
    outputs: dict[str, Any]

    def to_json(self) -> str:
        doc = {
            "stack": self.stack,
            "notice": OFFLINE_NOTICE,
            "resources": [
                {"type": r.type, "name": r.name, "id": r.id, "inputs": r.inputs}
                | ({"timeouts": r.timeouts} if r.timeouts else {})
                for r in self.resources
            ],
            "outputs": self.outputs,
        }
        return json.dumps(doc, indent=2, sort_keys=True)

    def of_type(self, token: str) -> list[PlannedResource]:
        return [r for r in self.resources if r.type == token]


def run_plan(
    root: Path,
    stack: str,
    overrides: list[str] | None = None,
    make_mocks: Callable[[MockFacts], RecordingMocks] = RecordingMocks,
    secret_keys: Collection[str] = (),
) -> Plan:
    """Validate the stack's config, then run the program under mocks and record it.

    `make_mocks` lets tests stand in a fake cloud that answers differently (e.g. a
    capacity reservation in another zone); `secret_keys` are the config keys the program sees
    as Pulumi secrets (as after `pulumi config set --secret`)."""
    raw = apply_overrides(read_stack(root, stack), overrides or [])
    cfg = stack_config.parse(raw, stack)  # bad config stops here, before any resource
    program = root / "infra" / "__main__.py"
    if not program.is_file():
        raise UserError(f"{root}: no Pulumi program at infra/__main__.py; run from the project")
    mocks = make_mocks(MockFacts(region=cfg.region, zone=cfg.zone))
    monitor = _run_program(program, stack, raw, mocks, sorted(secret_keys))
    resources = sorted(
        (
            PlannedResource(
                r.type, r.name, r.id, _tidy(r.inputs), monitor.timeouts.get((r.type, r.name), {})
            )
            for r in mocks.records
            if r.custom and not r.read and not r.type.startswith("pulumi:providers:")
        ),
        key=lambda r: (r.type, r.name),
    )
    return Plan(stack, cfg, resources, _tidy(monitor.stack_outputs))


def _run_program(
    program: Path, stack: str, raw: dict[str, Any], mocks: RecordingMocks, secret_keys: list[str]
):
    import pulumi
    from pulumi.runtime import settings
    from pulumi.runtime.config import set_all_config
    from pulumi.runtime.stack import run_in_stack
    from pulumi.runtime.sync_await import _sync_await

    settings.ROOT.set(None)
    monitor = CapturingMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=False, monitor=monitor)
    settings.ROOT.set(None)  # set_mocks made a root stack; run_in_stack makes its own
    runtime_settings: Any = settings.SETTINGS
    runtime_settings.rpc_manager.clear()
    runtime_settings.outputs.clear()
    # always a list: None would keep the secret keys of the previous run in this process
    set_all_config({key: _encode(value) for key, value in raw.items()}, secret_keys)
    # the program's objects (each resource's outputs, futures, tasks) live until it ends: the
    # cyclic collector would rescan them ever more often as they grow (half the CPU of a plan
    # of 2,048 instances, for no memory back); reference counting still frees the rest
    collecting = gc.isenabled()
    gc.disable()
    try:
        _sync_await(run_in_stack(lambda: _run_main(program)))
    except pulumi.RunError as exc:
        raise UserError(str(exc)) from None
    finally:
        if collecting:
            gc.enable()
    return monitor


def _run_main(program: Path) -> None:
    runpy.run_path(str(program), run_name="__main__")


def _encode(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _tidy(value: Any) -> Any:
    """Integral floats (how numbers cross the wire) back to ints; drop None; sort maps; a file
    asset (an object's upload) as its file's name."""
    import pulumi

    if isinstance(value, pulumi.FileAsset):
        return {"fileAsset": Path(str(value.path)).name}
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _tidy(v) for k, v in sorted(value.items()) if v is not None}
    if isinstance(value, list | tuple):
        return [_tidy(v) for v in value]
    return value
