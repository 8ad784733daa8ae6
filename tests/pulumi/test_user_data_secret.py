"""A user-data value held as a Pulumi secret stays secret through the plan, on every cloud.

The program runs under the recording mocks with `gpufabric:userData` marked secret (as after
`pulumi config set --secret`). Pulumi's mocks receive a secret input as the wrapper
{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": ...}
(pulumi.runtime.rpc: the secret signature); every other value arrives as plain data. The test
walks every recorded input and output: the secret text, and its base64 form, may appear only
inside such a wrapper, never in clear (which is what the state would hold and what
`pulumi preview --diff` would print).
"""

from __future__ import annotations

import base64
import contextlib
from typing import Any

import pytest
from tests.pulumi.plans import REPO

from gpufabric.plan import Plan, run_plan

SIG_KEY = "4dabf18193072939515e22adb298388d"  # pulumi.runtime.rpc._special_sig_key
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"  # pulumi.runtime.rpc._special_secret_sig
TOKEN = "gf-user-data-token-8c1d5e"  # a made-up credential the user's script carries
SCRIPT = f"#!/bin/bash\nexport REGISTRY_TOKEN={TOKEN}\necho ready\n"


def _forms() -> list[str]:
    encoded = base64.b64encode(SCRIPT.encode()).decode()
    return [TOKEN, encoded[:40]]  # the clear text, and the start of its base64 form


def _walk(value: Any, where: str, secret: bool, found: list[tuple[str, bool]]) -> None:
    if isinstance(value, dict):
        wrapped = value.get(SIG_KEY) == SECRET_SIG
        for key, item in value.items():
            _walk(item, f"{where}.{key}", secret or wrapped, found)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, f"{where}[{i}]", secret, found)
    elif isinstance(value, str) and any(form in value for form in _forms()):
        found.append((where, secret))


def trace(plan: Plan) -> list[tuple[str, bool]]:
    """Every place the secret reaches: (path, held as a secret there)."""
    found: list[tuple[str, bool]] = []
    for r in plan.resources:
        _walk(r.inputs, f"{r.type} {r.name}", False, found)
    _walk(plan.outputs, "outputs", False, found)
    return found


@pytest.mark.parametrize(
    ("stack", "where"),
    [
        ("aws-h100", "aws:ec2/launchTemplate:LaunchTemplate"),  # userData (base64)
        ("aws-a100", "aws:ec2/launchTemplate:LaunchTemplate"),  # individual instances
        ("gcp-a3-mega", "gcp:compute/instance:Instance"),  # metadata.user-data, 1 per node
        ("gcp-a3-ultra", "gcp:compute/instanceTemplate:InstanceTemplate"),
        ("azure-ndv5", "azure-native:compute:VirtualMachineScaleSet"),  # customData (base64)
        ("oci-h100", "oci:Core/instanceConfiguration:InstanceConfiguration"),  # user_data
        ("nebius-h100", "nebius:index/computeV1Instance:ComputeV1Instance"),  # cloud-init
    ],
)
def test_secret_user_data_never_reaches_the_plan_in_clear(stack: str, where: str) -> None:
    plan = run_plan(
        REPO, stack, [f"gpufabric:userData={SCRIPT}"], secret_keys=["gpufabric:userData"]
    )
    found = trace(plan)
    assert any(path.startswith(where) for path, _ in found), found  # it did reach the nodes
    clear = [path for path, secret in found if not secret]
    assert clear == [], f"the secret user data is in clear at: {clear}"


def test_the_trace_sees_user_data_that_is_not_secret() -> None:
    """The same user data without the secret marking is plain: the trace can tell them apart."""
    plan = run_plan(REPO, "aws-h100", [f"gpufabric:userData={SCRIPT}"])
    found = trace(plan)
    assert found and not any(secret for _, secret in found), found


def test_boot_user_data_with_a_pre_authenticated_url_never_reaches_the_plan_in_clear() -> None:
    """OCI boot mode: the bundle's URL is a pre-authenticated request (a credential); the user
    data built from it, and everything holding that user data, stays secret."""
    plan = run_plan(
        REPO,
        "oci-h100",
        ["gpufabric:boot.enabled=true", "gpufabric:oci.bootUrlExpires=2031-01-01T00:00:00Z"],
    )
    token = "mock-par-token-"  # the mocks' access URI (gpufabric.clouds.oci.mocks)
    found: list[tuple[str, bool]] = []

    def walk(value: Any, where: str, secret: bool) -> None:
        if isinstance(value, dict):
            wrapped = value.get(SIG_KEY) == SECRET_SIG
            for key, item in value.items():
                walk(item, f"{where}.{key}", secret or wrapped)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{where}[{i}]", secret)
        elif isinstance(value, str):
            text = value
            with contextlib.suppress(ValueError):
                text += base64.b64decode(value, validate=True).decode()
            if token in text:
                found.append((where, secret))

    for r in plan.resources:
        walk(r.inputs, f"{r.type} {r.name}", False)
    walk(plan.outputs, "outputs", False)
    assert any(p.startswith("oci:Core/instanceConfiguration") for p, _ in found), found
    assert [p for p, secret in found if not secret] == []


def test_oci_user_data_is_sent_base64() -> None:
    """OCI's instance metadata `user_data` must be base64 (cloud-init decodes it): the script
    in clear there is not run."""
    plan = run_plan(REPO, "oci-h100", [f"gpufabric:userData={SCRIPT}"])
    (config,) = [
        r for r in plan.resources
        if r.type == "oci:Core/instanceConfiguration:InstanceConfiguration"
    ]  # fmt: skip
    sent = config.inputs["instanceDetails"]["launchDetails"]["metadata"]["user_data"]
    assert base64.b64decode(sent, validate=True).decode() == SCRIPT
