"""Boot mode (gpufabric:boot.enabled) in the real program under mocks, on every cloud that has it.

Per cloud: the bundle goes into a bucket / container of the stack that is private (public access
blocked, uniform access, no anonymous access), as an object whose name carries the bundle's
sha256; the nodes' user data is the boot cloud-config naming that object and that sha256, and
fits the cloud's user-data limit; the one read grant goes to the nodes' identity. Config that
cannot work is refused in one line naming the key. What boot mode changes in one stack's plan
is kept as a golden file, the bundle's hash (it changes with every role or library edit)
replaced by a placeholder.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.pulumi.plans import REPO, plan_for

from gpufabric import config
from gpufabric.bundle import userdata
from gpufabric.clouds.aws.rules import USER_DATA_MAX_BYTES
from gpufabric.clouds.azure.bundle import CUSTOM_DATA_MAX_BYTES
from gpufabric.clouds.gcp.bundle import METADATA_VALUE_MAX_BYTES
from gpufabric.clouds.oci.bundle import METADATA_MAX_BYTES
from gpufabric.errors import UserError
from gpufabric.plan import Plan
from gpufabric.plan.project import apply_overrides, read_stack

GOLDEN = Path(__file__).parent / "golden" / "boot"
BOOT = "gpufabric:boot.enabled=true"
GCP_SA = "gpufabric:gcp.serviceAccount=nodes@my-gpu-project.iam.gserviceaccount.com"
OCI_END = "gpufabric:oci.bootUrlExpires=2031-01-01T00:00:00Z"
SIG_KEY = "4dabf18193072939515e22adb298388d"


def _unwrap(value: Any) -> Any:
    """A secret's value (the mocks see secrets as signature wrappers)."""
    if isinstance(value, dict) and SIG_KEY in value:
        return _unwrap(value["value"])
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


def _boot_settings(text: str) -> dict[str, Any]:
    doc = yaml.safe_load(text)
    files = {f["path"]: f for f in doc["write_files"]}
    assert files[userdata.SCRIPT_PATH]["encoding"] == "gz+b64"
    assert doc["runcmd"] == [[userdata.SCRIPT_PATH, userdata.CONFIG_PATH]]
    return json.loads(files[userdata.CONFIG_PATH]["content"])


def _one(plan: Plan, token: str) -> dict[str, Any]:
    found = plan.of_type(token)
    assert len(found) == 1, f"{token}: {len(found)}"
    return _unwrap(found[0].inputs)


def _bundle_sha(key: str) -> str:
    match = re.fullmatch(r"gpufabric/bundles/gpufabric-[a-z0-9-]+-([0-9a-f]{16})\.tar\.gz", key)
    assert match, key
    return match[1]


def test_aws_bucket_is_private_and_only_the_node_role_reads_the_bundle() -> None:
    plan = plan_for("aws-h100", BOOT)
    assert _one(plan, "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock") == {
        "bucket": "<aws-h100-boot.id>",
        "blockPublicAcls": True,
        "blockPublicPolicy": True,
        "ignorePublicAcls": True,
        "restrictPublicBuckets": True,
    }
    owner = _one(plan, "aws:s3/bucketOwnershipControls:BucketOwnershipControls")
    assert owner["rule"] == {"objectOwnership": "BucketOwnerEnforced"}  # no ACLs
    assert "acl" not in _one(plan, "aws:s3/bucket:Bucket")
    obj = _one(plan, "aws:s3/bucketObjectv2:BucketObjectv2")
    assert "acl" not in obj and obj["source"] == {"fileAsset": obj["key"].rsplit("/", 1)[1]}
    short = _bundle_sha(obj["key"])
    # the one grant: s3:GetObject on that object, to the node role (the instance profile's)
    policy = _one(plan, "aws:s3/bucketPolicy:BucketPolicy")
    assert policy["bucket"] == "<aws-h100-boot.id>"
    (statement,) = json.loads(policy["policy"])["Statement"]
    assert statement["Effect"] == "Allow" and statement["Action"] == "s3:GetObject"
    assert statement["Principal"] == {"AWS": "arn:aws:iam:us-east-1:123456789012:aws-h100-node"}
    assert statement["Resource"] == f"arn:aws:s3:::aws-h100-boot/{obj['key']}"
    assert _one(plan, "aws:iam/instanceProfile:InstanceProfile")["role"] == "aws-h100-node"
    assert not plan.of_type("aws:iam/rolePolicy:RolePolicy")
    # the nodes' user data names that object, its sha256, and signs with the node's role
    template = _one(plan, "aws:ec2/launchTemplate:LaunchTemplate")
    text = base64.b64decode(template["userData"]).decode()
    assert len(text.encode()) <= USER_DATA_MAX_BYTES
    settings = _boot_settings(text)
    assert settings["url"] == f"https://aws-h100-boot.s3.us-east-1.amazonaws.com/{obj['key']}"
    assert settings["sha256"].startswith(short) and len(settings["sha256"]) == 64
    assert settings["auth"]["kind"] == "sigv4" and settings["auth"]["region"] == "us-east-1"
    assert settings["group"] == "gpu_nodes" and settings["playbooks"] == ["tune-fabric.yml"]


def test_aws_bundle_is_the_file_the_program_rendered() -> None:
    plan = plan_for("aws-h100", BOOT)
    obj = _one(plan, "aws:s3/bucketObjectv2:BucketObjectv2")
    path = REPO / "build" / "bundles" / obj["source"]["fileAsset"]
    settings = _boot_settings(
        base64.b64decode(_one(plan, "aws:ec2/launchTemplate:LaunchTemplate")["userData"]).decode()
    )
    assert hashlib.sha256(path.read_bytes()).hexdigest() == settings["sha256"]


def test_gcp_bucket_is_private_and_only_the_node_service_account_reads() -> None:
    plan = plan_for("gcp-a3-mega", BOOT, GCP_SA)
    bucket = _one(plan, "gcp:storage/bucket:Bucket")
    assert bucket["uniformBucketLevelAccess"] is True
    assert bucket["publicAccessPrevention"] == "enforced"
    obj = _one(plan, "gcp:storage/bucketObject:BucketObject")
    short = _bundle_sha(obj["name"])
    members = plan.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")
    assert [(m.inputs["role"], m.inputs["member"]) for m in members] == [
        (
            "roles/storage.objectViewer",
            "serviceAccount:nodes@my-gpu-project.iam.gserviceaccount.com",
        )
    ]
    assert not plan.of_type("gcp:storage/bucketIAMBinding:BucketIAMBinding")
    assert not plan.of_type("gcp:storage/bucketACL:BucketACL")
    nodes = plan.of_type("gcp:compute/instance:Instance")
    assert nodes
    for node in nodes:
        text = node.inputs["metadata"]["user-data"]
        assert len(text.encode()) <= METADATA_VALUE_MAX_BYTES
        assert node.inputs["serviceAccount"]["email"].startswith("nodes@")
        settings = _boot_settings(text)
        assert settings["url"] == f"https://storage.googleapis.com/gcp-a3-mega-boot/{obj['name']}"
        assert settings["sha256"].startswith(short)
        assert settings["auth"]["token_headers"] == {"Metadata-Flavor": "Google"}


def test_azure_container_is_private_and_only_the_node_identity_reads() -> None:
    plan = plan_for("azure-ndv5", BOOT)
    account = _one(plan, "azure-native:storage:StorageAccount")
    assert account["allowBlobPublicAccess"] is False
    assert account["enableHttpsTrafficOnly"] is True
    assert account["minimumTlsVersion"] == "TLS1_2"
    assert re.fullmatch(r"[a-z0-9]{3,24}", account["accountName"])
    container = _one(plan, "azure-native:storage:BlobContainer")
    assert container["publicAccess"] == "None"
    blob = _one(plan, "azure-native:storage:Blob")
    short = _bundle_sha(blob["blobName"])
    (grant,) = plan.of_type("azure-native:authorization:RoleAssignment")
    assert grant.inputs["principalId"] == "<azure-ndv5-nodes.principalId>"
    assert grant.inputs["scope"] == "<azure-ndv5-boot.id>"  # the container, not the account
    assert grant.inputs["roleDefinitionId"].endswith(
        "/roleDefinitions/2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"  # Storage Blob Data Reader
    )
    for scale_set in plan.of_type("azure-native:compute:VirtualMachineScaleSet"):
        profile = _unwrap(scale_set.inputs)["virtualMachineProfile"]
        text = base64.b64decode(profile["osProfile"]["customData"]).decode()
        assert len(text.encode()) <= CUSTOM_DATA_MAX_BYTES
        settings = _boot_settings(text)
        assert settings["url"] == (
            f"https://{account['accountName']}.blob.core.windows.net/gpufabric/{blob['blobName']}"
        )
        assert settings["sha256"].startswith(short)
        assert "client_id=<azure-ndv5-nodes.clientId>" in settings["auth"]["token_url"]


def test_oci_bucket_is_private_and_the_read_url_is_a_secret() -> None:
    plan = plan_for("oci-h100", BOOT, OCI_END)
    assert _one(plan, "oci:ObjectStorage/bucket:Bucket")["accessType"] == "NoPublicAccess"
    obj = _one(plan, "oci:ObjectStorage/storageObject:StorageObject")
    short = _bundle_sha(obj["object"])
    par = _one(plan, "oci:ObjectStorage/preauthrequest:Preauthrequest")
    assert par["accessType"] == "ObjectRead"  # that one object, no listing, no writes
    assert par["objectName"] == obj["object"] and par["timeExpires"] == "2031-01-01T00:00:00Z"
    (config_resource,) = plan.of_type("oci:Core/instanceConfiguration:InstanceConfiguration")
    assert config_resource.inputs["instanceDetails"].get(SIG_KEY), "user data not secret"
    metadata = _unwrap(config_resource.inputs)["instanceDetails"]["launchDetails"]["metadata"]
    assert len(json.dumps(metadata).encode()) <= METADATA_MAX_BYTES
    settings = _boot_settings(base64.b64decode(metadata["user_data"]).decode())
    assert settings["url"].startswith("https://objectstorage.us-ashburn-1.oraclecloud.com/p/")
    assert settings["url"].endswith(f"/o/{obj['object']}")
    assert settings["sha256"].startswith(short) and "auth" not in settings


@pytest.mark.parametrize(
    ("stack", "overrides", "needle"),
    [
        ("nebius-h100", [BOOT], "gpufabric:boot.enabled: True is not valid; the Nebius program"),
        ("aws-h100", [BOOT, "gpufabric:userData=#!/bin/sh"], "gpufabric:userData: '<9 bytes>'"),
        ("gcp-a3-mega", [BOOT], "gpufabric:gcp.serviceAccount: None is not valid; boot mode"),
        ("oci-h100", [BOOT], "gpufabric:oci.bootUrlExpires: None is not valid"),
        ("oci-h100", [BOOT, "gpufabric:oci.bootUrlExpires=2031-01-01"], "RFC 3339 UTC"),
        ("aws-h100", [BOOT, "gpufabric:boot.runtime=conda"], "index or python:/ABSOLUTE/PATH"),
        ("aws-h100", ['gpufabric:boot={"enabled":true,"playbooks":["../x.yml"]}'], "'../x.yml'"),
        ("aws-h100", ['gpufabric:boot={"enabled":"yes"}'], "boot.enabled"),
    ],
)
def test_boot_config_that_cannot_work_is_one_line_naming_the_key(
    stack: str, overrides: list[str], needle: str
) -> None:
    raw = apply_overrides(read_stack(REPO, stack), overrides)
    with pytest.raises(UserError) as err:
        config.parse(raw, stack)
    assert needle in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_without_boot_mode_there_is_no_bucket_and_no_boot_user_data() -> None:
    plan = plan_for("aws-h100")
    assert not plan.of_type("aws:s3/bucket:Bucket")
    assert "userData" not in _one(plan, "aws:ec2/launchTemplate:LaunchTemplate")


def _normalise(value: Any, sha: str) -> Any:
    """The bundle's hash (and its prefixes) as placeholders; base64 user data decoded first."""
    if isinstance(value, dict):
        return {k: _normalise(v, sha) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v, sha) for v in value]
    if isinstance(value, str):
        try:
            decoded = base64.b64decode(value, validate=True).decode()
        except ValueError:
            decoded = ""
        if decoded.startswith("#cloud-config"):
            return {"base64 of": _normalise(decoded, sha)}
        for part in (sha, sha[:16], sha[:12]):
            value = value.replace(part, f"<sha256[:{len(part)}]>")
        return value
    return value


def _delta(plain: Plan, boot: Plan) -> dict[str, Any]:
    """What boot mode changes in a plan: the resources it adds, and the inputs it changes on
    the others (so the golden file moves only with boot mode, not with the rest of the stack)."""
    before = {(r.type, r.name): r.inputs for r in plain.resources}
    added, changed = [], {}
    for r in boot.resources:
        old = before.get((r.type, r.name))
        if old is None:
            added.append({"type": r.type, "name": r.name, "inputs": r.inputs})
            continue
        diff = {k: v for k, v in r.inputs.items() if old.get(k) != v}
        if diff:
            changed[f"{r.type} {r.name}"] = diff
    gone = sorted(f"{t} {n}" for t, n in set(before) - {(r.type, r.name) for r in boot.resources})
    return {"added": added, "changed": changed, "removed": gone}


def test_boot_plan_matches_golden() -> None:
    plan = plan_for("aws-h100", BOOT)
    template = _one(plan, "aws:ec2/launchTemplate:LaunchTemplate")
    sha = _boot_settings(base64.b64decode(template["userData"]).decode())["sha256"]
    delta = _delta(plan_for("aws-h100"), plan)
    actual = json.dumps(_normalise(delta, sha), indent=2, sort_keys=True)
    assert sha not in actual and sha[:12] not in actual
    golden = GOLDEN / "aws-h100.json"
    if os.environ.get("GPUFABRIC_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(actual + "\n")
    assert golden.is_file(), "no golden boot plan: run with GPUFABRIC_UPDATE_GOLDEN=1"
    assert actual + "\n" == golden.read_text(), "boot plan of aws-h100 changed; review, regenerate"


def test_user_data_over_the_cloud_limit_stops_the_program(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit is enforced where the user data is built, naming the field and its limit."""
    from gpufabric.clouds.aws import bundle
    from gpufabric.plan import run_plan

    monkeypatch.setattr(bundle, "USER_DATA_MAX_BYTES", 4096)
    with pytest.raises(UserError, match=r"user data is \d+ bytes; EC2 user data .* at most 4096$"):
        run_plan(REPO, "aws-h100", [BOOT])
