"""Boot mode's wiring on each cloud, field by field: what the node's boot script is told about
reading the bundle (`auth`), every input of the boot bucket / object / grant the program plans,
the user-data limit at its exact edge and its refusal line, and where the program finds the
project it bundles (gpufabric.clouds.boot.project_root).

The plans are the real program under mocks (tests.pulumi.plans); the expected values are written
out here, not taken from the code under test.
"""

from __future__ import annotations

import base64
import hashlib
import json
import tarfile
from pathlib import Path

import pytest
from tests.pulumi.plans import REPO, plan_for
from tests.pulumi.test_boot_plan import (
    BOOT,
    GCP_SA,
    OCI_END,
    _boot_settings,
    _one,
    _unwrap,
)

import gpufabric
from gpufabric.clouds import boot
from gpufabric.errors import UserError
from gpufabric.plan import Plan, run_plan

AWS_TAGS = {"gpufabric:cluster": "aws-h100", "gpufabric:stack": "aws-h100"}


def _aws_text(plan: Plan) -> str:
    return base64.b64decode(
        _one(plan, "aws:ec2/launchTemplate:LaunchTemplate")["userData"]
    ).decode()


def _gcp_text(plan: Plan) -> str:
    (text,) = {
        n.inputs["metadata"]["user-data"] for n in plan.of_type("gcp:compute/instance:Instance")
    }
    return text


def _azure_text(plan: Plan) -> str:
    (encoded,) = {
        _unwrap(s.inputs)["virtualMachineProfile"]["osProfile"]["customData"]
        for s in plan.of_type("azure-native:compute:VirtualMachineScaleSet")
    }
    return base64.b64decode(encoded).decode()


def _oci_metadata(plan: Plan) -> dict[str, str]:
    (config_resource,) = plan.of_type("oci:Core/instanceConfiguration:InstanceConfiguration")
    return _unwrap(config_resource.inputs)["instanceDetails"]["launchDetails"]["metadata"]


def test_aws_node_signs_with_sigv4_and_the_imdsv2_credentials() -> None:
    settings = _boot_settings(_aws_text(plan_for("aws-h100", BOOT)))
    assert settings["auth"] == {
        "kind": "sigv4",
        "region": "us-east-1",
        "service": "s3",
        "session_url": "http://169.254.169.254/latest/api/token",
        "session_headers": {"X-aws-ec2-metadata-token-ttl-seconds": "21600"},
        "session_header": "X-aws-ec2-metadata-token",
        "credentials_url": "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    }
    # the stack's boot runtime reaches the node (the default: install from the index)
    assert settings["runtime"] == "index"


def test_aws_boot_resources_carry_the_stack_tags_and_the_one_statement() -> None:
    plan = plan_for("aws-h100", BOOT)
    bucket = _one(plan, "aws:s3/bucket:Bucket")
    assert bucket == {"tags": AWS_TAGS}
    assert [r.name for r in plan.of_type("aws:s3/bucket:Bucket")] == ["aws-h100-boot"]
    obj = _one(plan, "aws:s3/bucketObjectv2:BucketObjectv2")
    name = obj["key"].rsplit("/", 1)[1]
    assert obj == {
        "bucket": "<aws-h100-boot.id>",
        "contentType": "application/gzip",
        "key": f"gpufabric/bundles/{name}",
        "source": {"fileAsset": name},
        "tags": AWS_TAGS,
    }
    assert [r.name for r in plan.of_type("aws:s3/bucketObjectv2:BucketObjectv2")] == [
        "aws-h100-bundle"
    ]
    assert _one(plan, "aws:s3/bucketOwnershipControls:BucketOwnershipControls")["bucket"] == (
        "<aws-h100-boot.id>"
    )
    (policy,) = plan.of_type("aws:s3/bucketPolicy:BucketPolicy")
    assert policy.name == "aws-h100-boot"
    assert json.loads(policy.inputs["policy"]) == {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "TheNodesReadTheBootBundle",
                "Effect": "Allow",
                "Principal": {"AWS": "arn:aws:iam:us-east-1:123456789012:aws-h100-node"},
                "Action": "s3:GetObject",
                "Resource": f"arn:aws:s3:::aws-h100-boot/gpufabric/bundles/{name}",
            }
        ],
    }


def test_the_bundle_runs_the_playbooks_the_stack_names() -> None:
    books = '["fabric-health.yml","tune-fabric.yml"]'
    plan = plan_for("aws-h100", BOOT, f"gpufabric:boot.playbooks={books}")
    key = _one(plan, "aws:s3/bucketObjectv2:BucketObjectv2")["key"]
    path = REPO / "build" / "bundles" / key.rsplit("/", 1)[1]
    with tarfile.open(path, "r:*") as tar:
        member = tar.extractfile("manifest.json")
        assert member is not None
        manifest = json.loads(member.read())
    assert manifest["playbooks"] == ["fabric-health.yml", "tune-fabric.yml"]


def test_gcp_boot_resources_and_the_node_token() -> None:
    plan = plan_for("gcp-a3-mega", BOOT, GCP_SA)
    labels = {"gpufabric-cluster": "gcp-a3-mega", "gpufabric-stack": "gcp-a3-mega"}
    (bucket,) = plan.of_type("gcp:storage/bucket:Bucket")
    assert bucket.name == "gcp-a3-mega-boot"
    assert bucket.inputs == {
        "labels": labels,
        "location": "us-central1",
        "project": "my-gpu-project",
        "publicAccessPrevention": "enforced",
        "uniformBucketLevelAccess": True,
    }
    (obj,) = plan.of_type("gcp:storage/bucketObject:BucketObject")
    name = obj.inputs["name"].rsplit("/", 1)[1]
    assert obj.name == "gcp-a3-mega-bundle"
    assert obj.inputs == {
        "bucket": "gcp-a3-mega-boot",
        "contentType": "application/gzip",
        "name": f"gpufabric/bundles/{name}",
        "source": {"fileAsset": name},
    }
    (member,) = plan.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")
    assert member.name == "gcp-a3-mega-boot-reader"
    assert member.inputs["bucket"] == "gcp-a3-mega-boot"
    settings = _boot_settings(_gcp_text(plan))
    assert settings["auth"] == {
        "kind": "bearer",
        "token_url": "http://metadata.google.internal/computeMetadata/v1/instance/"
        "service-accounts/default/token",
        "token_headers": {"Metadata-Flavor": "Google"},
    }


def test_azure_boot_resources_and_the_node_token() -> None:
    plan = plan_for("azure-ndv5", BOOT)
    # storage account names are global: a hash of the resource group and the cluster
    digest = hashlib.sha256(b"azure-ndv5-rg/azure-ndv5").hexdigest()
    account_name = "gfboot" + digest[:18]
    (account,) = plan.of_type("azure-native:storage:StorageAccount")
    assert account.name == "azure-ndv5-boot"
    assert account.inputs == {
        "accountName": account_name,
        "allowBlobPublicAccess": False,
        "enableHttpsTrafficOnly": True,
        "kind": "StorageV2",
        "location": "eastus",
        "minimumTlsVersion": "TLS1_2",
        "resourceGroupName": "azure-ndv5-rg",
        "sku": {"name": "Standard_LRS"},
        "tags": {"gpufabric:cluster": "azure-ndv5", "gpufabric:stack": "azure-ndv5"},
    }
    (container,) = plan.of_type("azure-native:storage:BlobContainer")
    assert container.name == "azure-ndv5-boot"
    assert container.inputs == {
        "accountName": account_name,
        "containerName": "gpufabric",
        "publicAccess": "None",
        "resourceGroupName": "azure-ndv5-rg",
    }
    (blob,) = plan.of_type("azure-native:storage:Blob")
    name = blob.inputs["blobName"].rsplit("/", 1)[1]
    assert blob.name == "azure-ndv5-bundle"
    assert blob.inputs == {
        "accountName": account_name,
        "blobName": f"gpufabric/bundles/{name}",
        "containerName": "gpufabric",
        "contentType": "application/gzip",
        "resourceGroupName": "azure-ndv5-rg",
        "source": {"fileAsset": name},
        "type": "Block",
    }
    (grant,) = plan.of_type("azure-native:authorization:RoleAssignment")
    assert grant.name == "azure-ndv5-boot-reader"
    assert grant.inputs["principalType"] == "ServicePrincipal"
    assert grant.inputs["roleDefinitionId"] == (
        "/subscriptions/00000000-0000-0000-0000-000000000000/providers/"
        "Microsoft.Authorization/roleDefinitions/2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"
    )
    settings = _boot_settings(_azure_text(plan))
    assert settings["auth"] == {
        "kind": "bearer",
        "token_url": "http://169.254.169.254/metadata/identity/oauth2/token?api-version="
        "2018-02-01&resource=https%3A%2F%2Fstorage.azure.com%2F"
        "&client_id=<azure-ndv5-nodes.clientId>",
        "token_headers": {"Metadata": "true"},
        "headers": {"x-ms-version": "2021-08-06"},
    }


def test_azure_boot_account_name_is_of_the_stacks_own_resource_group() -> None:
    """A stack in a resource group of its own choosing gets an account name of that group
    (not of the `<cluster>-rg` default)."""
    plan = plan_for("azure-ndv5", BOOT, "gpufabric:azure.resourceGroup=shared-rg")
    (account,) = plan.of_type("azure-native:storage:StorageAccount")
    digest = hashlib.sha256(b"shared-rg/azure-ndv5").hexdigest()
    assert account.inputs["accountName"] == "gfboot" + digest[:18]
    assert account.inputs["resourceGroupName"] == "shared-rg"


def test_oci_boot_resources() -> None:
    plan = plan_for("oci-h100", BOOT, OCI_END)
    compartment = "ocid1.compartment.oc1..aaaaaaaareplacewithyourcompartment"
    (bucket,) = plan.of_type("oci:ObjectStorage/bucket:Bucket")
    assert bucket.name == "oci-h100-boot"
    assert bucket.inputs == {
        "accessType": "NoPublicAccess",
        "compartmentId": compartment,
        "freeformTags": {"gpufabric-cluster": "oci-h100", "gpufabric-stack": "oci-h100"},
        "name": "oci-h100-boot",
        "namespace": "mocktenancyns",
    }
    (obj,) = plan.of_type("oci:ObjectStorage/storageObject:StorageObject")
    key = obj.inputs["object"]
    assert obj.name == "oci-h100-bundle"
    assert obj.inputs == {
        "bucket": "oci-h100-boot",
        "contentType": "application/gzip",
        "namespace": "mocktenancyns",
        "object": key,
        "source": str(REPO / "build" / "bundles" / key.rsplit("/", 1)[1]),
    }
    (request,) = plan.of_type("oci:ObjectStorage/preauthrequest:Preauthrequest")
    assert request.name == "oci-h100-boot-read"
    assert request.inputs == {
        "accessType": "ObjectRead",
        "bucket": "oci-h100-boot",
        "name": "oci-h100-boot-read",
        "namespace": "mocktenancyns",
        "objectName": key,
        "timeExpires": "2031-01-01T00:00:00Z",
    }


def test_aws_user_data_at_the_limit_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit is 'at most': user data of exactly the limit's size goes through."""
    from gpufabric.clouds.aws import bundle

    size = len(_aws_text(plan_for("aws-h100", BOOT)).encode())
    monkeypatch.setattr(bundle, "USER_DATA_MAX_BYTES", size)
    assert len(_aws_text(run_plan(REPO, "aws-h100", [BOOT])).encode()) == size


@pytest.mark.parametrize(
    ("stack", "overrides", "module", "limit_name", "where"),
    [
        ("gcp-a3-mega", [BOOT, GCP_SA], "gcp", "METADATA_VALUE_MAX_BYTES", "a Compute Engine metadata value"),
        ("azure-ndv5", [BOOT], "azure", "CUSTOM_DATA_MAX_BYTES", "Azure customData (decoded)"),
    ],
)  # fmt: skip
def test_user_data_over_the_limit_is_one_line_naming_its_size_and_field(
    monkeypatch: pytest.MonkeyPatch,
    stack: str,
    overrides: list[str],
    module: str,
    limit_name: str,
    where: str,
) -> None:
    import importlib

    text = {"gcp": _gcp_text, "azure": _azure_text}[module](plan_for(stack, *overrides))
    size = len(text.encode())
    monkeypatch.setattr(
        importlib.import_module(f"gpufabric.clouds.{module}.bundle"), limit_name, size - 1
    )
    with pytest.raises(UserError) as err:
        run_plan(REPO, stack, overrides)
    assert str(err.value) == (
        f"gpufabric:boot: the nodes' user data is {size} bytes; {where} takes at most {size - 1}"
    )


def test_oci_user_data_limit_counts_the_ssh_key_beside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """OCI's 32,000 bytes hold the base64 user data, the SSH key and both keys' names."""
    from gpufabric.clouds.oci import bundle

    metadata = _oci_metadata(plan_for("oci-h100", BOOT, OCI_END))
    used = len(metadata["user_data"]) + len(
        "ssh_authorized_keys" + metadata["ssh_authorized_keys"] + "user_data"
    )
    monkeypatch.setattr(bundle, "METADATA_MAX_BYTES", used)
    taken = _oci_metadata(run_plan(REPO, "oci-h100", [BOOT, OCI_END]))
    assert taken["user_data"] == metadata["user_data"]
    monkeypatch.setattr(bundle, "METADATA_MAX_BYTES", used - 1)
    with pytest.raises(UserError) as err:
        run_plan(REPO, "oci-h100", [BOOT, OCI_END])
    size = len(metadata["user_data"])
    limit = size - 1
    assert str(err.value) == (
        f"gpufabric:boot: the nodes' user data is {size} bytes; "
        f"OCI instance metadata (32,000 bytes with the SSH key) takes at most {limit}"
    )


def _project(root: Path, *dirs: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in dirs:
        (root / name).mkdir(parents=True)
    return root


def test_project_root_is_the_checkout_the_library_is_installed_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """From anywhere, an editable install finds its own checkout's playbooks and roles."""
    monkeypatch.chdir(_project(tmp_path, "playbooks", "roles"))
    assert boot.project_root() == Path(gpufabric.__file__).resolve().parents[2]


def test_project_root_falls_back_to_the_working_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    installed = _project(tmp_path / "site", "gpufabric", "playbooks")  # no roles/ there
    monkeypatch.setattr(gpufabric, "__file__", str(installed / "lib" / "gpufabric" / "__init__.py"))
    monkeypatch.chdir(_project(tmp_path / "project", "playbooks", "roles"))
    assert boot.project_root() == tmp_path / "project"


@pytest.mark.parametrize("present", [(), ("playbooks",), ("roles",)])
def test_without_playbooks_and_roles_boot_mode_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, present: tuple[str, ...]
) -> None:
    monkeypatch.setattr(
        gpufabric, "__file__", str(tmp_path / "site" / "lib" / "gpufabric" / "x.py")
    )
    monkeypatch.chdir(_project(tmp_path / "project", *present))
    with pytest.raises(UserError) as err:
        boot.project_root()
    assert str(err.value) == (
        "gpufabric:boot.enabled: no playbooks/ and roles/ beside the program; "
        "run `pulumi up` from the gpufabric project"
    )


def _registered(
    monkeypatch: pytest.MonkeyPatch, stack: str, overrides: list[str]
) -> dict[tuple[str, str], tuple[str, list[str]]]:
    """Each resource's parent and dependencies as the program registers them (resource options
    the recording mocks do not see)."""
    from gpufabric.plan import runner
    from gpufabric.plan.mocks import CapturingMonitor

    seen: dict[tuple[str, str], tuple[str, list[str]]] = {}

    class Watching(CapturingMonitor):
        def RegisterResource(self, request):
            seen[(request.type, request.name)] = (request.parent, sorted(request.dependencies))
            return super().RegisterResource(request)

    monkeypatch.setattr(runner, "CapturingMonitor", Watching)
    run_plan(REPO, stack, overrides)
    return seen


@pytest.mark.parametrize(
    ("stack", "overrides", "cloud", "resources"),
    [
        ("aws-h100", [BOOT], "aws", [
            ("aws:s3/bucket:Bucket", "aws-h100-boot"),
            ("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "aws-h100-boot"),
            ("aws:s3/bucketOwnershipControls:BucketOwnershipControls", "aws-h100-boot"),
            ("aws:s3/bucketObjectv2:BucketObjectv2", "aws-h100-bundle"),
            ("aws:s3/bucketPolicy:BucketPolicy", "aws-h100-boot"),
        ]),
        ("gcp-a3-mega", [BOOT, GCP_SA], "gcp", [
            ("gcp:storage/bucket:Bucket", "gcp-a3-mega-boot"),
            ("gcp:storage/bucketObject:BucketObject", "gcp-a3-mega-bundle"),
            ("gcp:storage/bucketIAMMember:BucketIAMMember", "gcp-a3-mega-boot-reader"),
        ]),
        ("azure-ndv5", [BOOT], "azure", [
            ("azure-native:storage:StorageAccount", "azure-ndv5-boot"),
            ("azure-native:storage:BlobContainer", "azure-ndv5-boot"),
            ("azure-native:storage:Blob", "azure-ndv5-bundle"),
            ("azure-native:authorization:RoleAssignment", "azure-ndv5-boot-reader"),
        ]),
        ("oci-h100", [BOOT, OCI_END], "oci", [
            ("oci:ObjectStorage/bucket:Bucket", "oci-h100-boot"),
            ("oci:ObjectStorage/storageObject:StorageObject", "oci-h100-bundle"),
            ("oci:ObjectStorage/preauthrequest:Preauthrequest", "oci-h100-boot-read"),
        ]),
    ],
)  # fmt: skip
def test_boot_resources_belong_to_the_cluster(
    monkeypatch: pytest.MonkeyPatch,
    stack: str,
    overrides: list[str],
    cloud: str,
    resources: list[tuple[str, str]],
) -> None:
    """The boot bucket and what it holds are children of the stack's cluster component (their
    URNs, and what `pulumi destroy` of the cluster takes with it)."""
    seen = _registered(monkeypatch, stack, overrides)
    for key in resources:
        parent, _ = seen[key]
        assert parent.endswith(f"gpufabric:{cloud}:Cluster::{stack}"), (key, parent)
    if cloud == "aws":
        # the bundle is written, and the read granted, only once the bucket is closed to the
        # public and its ACLs are off
        closed = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock::aws-h100-boot"
        owned = "aws:s3/bucketOwnershipControls:BucketOwnershipControls::aws-h100-boot"
        _, object_deps = seen[("aws:s3/bucketObjectv2:BucketObjectv2", "aws-h100-bundle")]
        assert any(d.endswith(closed) for d in object_deps), object_deps
        assert any(d.endswith(owned) for d in object_deps), object_deps
        _, policy_deps = seen[("aws:s3/bucketPolicy:BucketPolicy", "aws-h100-boot")]
        assert any(d.endswith(closed) for d in policy_deps), policy_deps
