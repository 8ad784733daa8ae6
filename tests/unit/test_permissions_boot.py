"""Boot mode's part of the deploy identity's permissions, on each cloud that has boot mode, held
against what the program really creates (the plan under mocks): the deploy identity may make the
stack's boot bucket and grant its one read, and can grant nothing wider.

- GCP: a separate role, bound with a condition on the boot buckets' names; its permissions are
  bucket permissions only, and the name prefix in the condition is the one the plan gives.
- Azure: the role assignment permissions live in their own role, assigned only with an ABAC
  condition that allows Storage Blob Data Reader for a service principal and nothing else (the
  role and principal type the plan's RoleAssignment uses); the main deploy role cannot assign.
- OCI: buckets and objects only where the bucket is the boot bucket.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from tests.pulumi.plans import plan_for
from tests.unit.test_permissions import (
    OCI_STATEMENT,
    azure_actions,
    gcp_permissions,
    oci_statements,
)

from gpufabric.clouds.azure.bundle import BLOB_DATA_READER

PERMS = Path(__file__).resolve().parents[2] / "permissions"
BOOT = "gpufabric:boot.enabled=true"
GCP_SA = "gpufabric:gcp.serviceAccount=nodes@my-gpu-project.iam.gserviceaccount.com"
OCI_END = "gpufabric:oci.bootUrlExpires=2031-01-01T00:00:00Z"


def _gcp_boot_role() -> tuple[dict[str, object], str]:
    text = (PERMS / "gcp" / "deploy-boot.yaml").read_text()
    return yaml.safe_load(text), text


def test_gcp_boot_role_holds_bucket_permissions_only() -> None:
    role, _ = _gcp_boot_role()
    perms = role["includedPermissions"]
    assert isinstance(perms, list) and perms == sorted(set(perms))
    assert all(p.startswith("storage.buckets.") for p in perms), perms
    # what the program's Bucket and BucketIAMMember need, and no more
    assert set(perms) == {
        "storage.buckets.create", "storage.buckets.delete", "storage.buckets.get",
        "storage.buckets.update", "storage.buckets.getIamPolicy", "storage.buckets.setIamPolicy",
    }  # fmt: skip


def test_gcp_deploy_role_itself_sets_no_iam_policy() -> None:
    """Only the conditioned boot role may change a bucket's IAM policy."""
    assert not [p for p in gcp_permissions("deploy") if p.endswith("IamPolicy")]


def test_gcp_boot_role_is_bound_to_the_boot_buckets_the_plan_creates() -> None:
    _, text = _gcp_boot_role()
    (expression,) = re.findall(r"^#   (resource\.type .+)$", text, re.MULTILINE)
    assert expression == (
        'resource.type != "storage.googleapis.com/Bucket" || '
        'resource.name.startsWith("projects/_/buckets/CLUSTER-boot-")'
    )
    plan = plan_for("gcp-a3-mega", BOOT, GCP_SA)
    (bucket,) = plan.of_type("gcp:storage/bucket:Bucket")
    # no fixed name: Pulumi names it <resource name>-<7 hex>, inside the condition's prefix
    assert "name" not in bucket.inputs and bucket.name == "gcp-a3-mega-boot"
    (member,) = plan.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")
    assert member.inputs["role"] == "roles/storage.objectViewer"


def _azure_condition() -> dict[str, tuple[set[str], set[str]]]:
    """action -> (role definition GUIDs, principal types) the condition allows for it."""
    text = (PERMS / "azure" / "deploy-boot-access.condition").read_text()
    found: dict[str, tuple[set[str], set[str]]] = {}
    for action, source in (("write", "Request"), ("delete", "Resource")):
        clause = re.search(
            r"!\(ActionMatches\{'Microsoft\.Authorization/roleAssignments/" + action + r"'\}\)"
            r"\s*\)\s*OR\s*\((.*?)\)\s*\)",
            text,
            re.DOTALL,
        )
        assert clause, f"no clause for roleAssignments/{action}"
        body = clause[1]
        attr = rf"@{source}\[Microsoft\.Authorization/roleAssignments:"
        roles = re.search(attr + r"RoleDefinitionId\] ForAnyOfAnyValues:GuidEquals \{(.*?)\}", body)
        kinds = re.search(
            attr + r"PrincipalType\] ForAnyOfAnyValues:StringEqualsIgnoreCase \{(.*?)\}", body
        )
        assert roles and kinds, f"roleAssignments/{action}: role or principal type unchecked"
        assert re.sub(r"\s+", " ", body).count(" AND ") == 1, body
        found[action] = (
            {r.strip() for r in roles[1].split(",")},
            {k.strip().strip("'") for k in kinds[1].split(",")},
        )
    return found


def test_azure_boot_grant_role_can_assign_the_blob_reader_role_to_a_service_principal_only() -> (
    None
):
    role = json.loads((PERMS / "azure" / "deploy-boot-access.json").read_text())
    assert role["Actions"] == [
        "Microsoft.Authorization/roleAssignments/delete",
        "Microsoft.Authorization/roleAssignments/read",
        "Microsoft.Authorization/roleAssignments/write",
    ]
    assert role["DataActions"] == [] and role["IsCustom"] is True
    plan = plan_for("azure-ndv5", BOOT)
    (grant,) = plan.of_type("azure-native:authorization:RoleAssignment")
    role_id = grant.inputs["roleDefinitionId"].rsplit("/", 1)[1]
    assert role_id == BLOB_DATA_READER
    allowed = _azure_condition()
    assert allowed == {
        "write": ({BLOB_DATA_READER}, {grant.inputs["principalType"]}),
        "delete": ({BLOB_DATA_READER}, {grant.inputs["principalType"]}),
    }


def test_azure_deploy_role_cannot_assign_roles_and_manages_the_boot_storage() -> None:
    actions = set(azure_actions("deploy"))
    assert not {a for a in actions if a.startswith("Microsoft.Authorization/")}
    for kind in ("storageAccounts", "storageAccounts/blobServices/containers"):
        for verb in ("read", "write", "delete"):
            assert f"Microsoft.Storage/{kind}/{verb}" in actions, (kind, verb)


def test_azure_deploy_role_can_upload_the_bundle_the_way_the_provider_does() -> None:
    """pulumi-azure-native's Blob lists the storage account's keys and writes with Shared Key
    (provider/pkg/resources/customresources/custom_storage_azidentity.go, since
    pulumi/pulumi-azure-native#3719), not with the blob data actions: without listkeys the
    upload fails, and with Shared Key access off on the account it fails too."""
    plan = plan_for("azure-ndv5", BOOT)
    (blob,) = plan.of_type("azure-native:storage:Blob")
    assert blob.inputs["type"] == "Block"
    (account,) = plan.of_type("azure-native:storage:StorageAccount")
    assert account.inputs.get("allowSharedKeyAccess", True) is True
    storage = {a for a in azure_actions("deploy") if a.startswith("Microsoft.Storage/")}
    assert storage == {
        # data actions: the Pulumi state (pulumi login azblob://), not the bundle
        "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete",
        "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read",
        "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write",
        "Microsoft.Storage/storageAccounts/blobServices/containers/delete",
        "Microsoft.Storage/storageAccounts/blobServices/containers/read",
        "Microsoft.Storage/storageAccounts/blobServices/containers/write",
        "Microsoft.Storage/storageAccounts/delete",
        "Microsoft.Storage/storageAccounts/listkeys/action",
        "Microsoft.Storage/storageAccounts/read",
        "Microsoft.Storage/storageAccounts/write",
    }


def test_oci_boot_statements_name_the_boot_bucket_the_plan_creates() -> None:
    boot = [s for s in oci_statements() if "-boot'" in s]
    kinds = set()
    for line in boot:
        match = OCI_STATEMENT.fullmatch(line)
        assert match, line
        assert (
            match[3] == "manage"
            and match[6] == " where target.bucket.name = 'example-gpufabric-boot'"
        )
        kinds.add(match[4])
    assert kinds == {"buckets", "objects"}
    plan = plan_for("oci-h100", BOOT, OCI_END)
    (bucket,) = plan.of_type("oci:ObjectStorage/bucket:Bucket")
    # the bucket's name is fixed (CLUSTER-boot): the statements' example stands for it
    assert bucket.inputs["name"] == "oci-h100-boot"
    buckets = [s for s in oci_statements() if " buckets " in s]
    assert buckets and all("where target.bucket.name" in s for s in buckets)
