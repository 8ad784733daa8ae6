"""Boot mode on Azure: the stack's bundle in its own storage account, read by the nodes'
managed identity.

- a StorageV2 account of the stack (its name from the resource group and cluster: storage
  account names are global), anonymous blob access off, HTTPS only, TLS 1.2 at least;
- a private container (`publicAccess: None`) holding the bundle as one block blob
  (`gpufabric/bundles/gpufabric-<stack>-<sha256[:16]>.tar.gz`);
- Storage Blob Data Reader on that container for the nodes' user-assigned identity (the scale
  sets' only identity), and for nobody else;
- the nodes' customData: the boot cloud-config with the blob's URL and its sha256. The node
  fetches it with an Entra ID token of its identity from the instance metadata service
  (resource https://storage.azure.com/, the identity's client id) and `x-ms-version`.

customData decodes to at most 65535 bytes (Compute API, osProfile.customData).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi_azure_native import authorization, managedidentity, storage

from gpufabric.catalog import InstanceType
from gpufabric.clouds.azure.settings import AzureStackConfig
from gpufabric.clouds.boot import StackBundle, render_bundle

CUSTOM_DATA_MAX_BYTES = 65535
CONTAINER = "gpufabric"
# Built-in role "Storage Blob Data Reader" ([P] learn.microsoft.com/azure/role-based-access-
# control/built-in-roles/storage): read blobs and list containers, nothing else
BLOB_DATA_READER = "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"
IMDS_TOKEN = "http://169.254.169.254/metadata/identity/oauth2/token"
# the oldest Blob service version that takes Entra ID bearer tokens is 2017-11-09
BLOB_API_VERSION = "2021-08-06"


@dataclass
class AzureBoot:
    stack_bundle: StackBundle
    account: storage.StorageAccount
    container: storage.BlobContainer
    blob: storage.Blob
    user_data: pulumi.Output[str]
    """base64 of the cloud-config, as customData takes it."""


def account_name(resource_group: str, cluster: str) -> str:
    """3-24 lower-case letters and digits, globally unique: a hash of where the stack lives."""
    return "gfboot" + hashlib.sha256(f"{resource_group}/{cluster}".encode()).hexdigest()[:18]


def node_auth(client_id: str) -> dict[str, Any]:
    """An Entra ID token of the nodes' identity for Azure Storage, from IMDS."""
    query = (
        f"api-version=2018-02-01&resource=https%3A%2F%2Fstorage.azure.com%2F&client_id={client_id}"
    )
    return {
        "kind": "bearer",
        "token_url": f"{IMDS_TOKEN}?{query}",
        "token_headers": {"Metadata": "true"},
        "headers": {"x-ms-version": BLOB_API_VERSION},
    }


def build_bundle(
    cfg: AzureStackConfig,
    itype: InstanceType,
    resource_group: pulumi.Input[str],
    identity: managedidentity.UserAssignedIdentity,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> AzureBoot:
    opts = pulumi.ResourceOptions(parent=parent)
    sb = render_bundle(cfg, itype)
    name = account_name(cfg.azure.resource_group or f"{cfg.name}-rg", cfg.name)
    account = storage.StorageAccount(
        f"{cfg.name}-boot",
        account_name=name,
        resource_group_name=resource_group,
        location=cfg.region,
        kind=storage.Kind.STORAGE_V2,
        sku=storage.SkuArgs(name=storage.SkuName.STANDARD_LRS),
        allow_blob_public_access=False,
        enable_https_traffic_only=True,
        minimum_tls_version=storage.MinimumTlsVersion.TLS1_2,
        tags=tags,
        opts=opts,
    )
    container = storage.BlobContainer(
        f"{cfg.name}-boot",
        account_name=account.name,
        container_name=CONTAINER,
        resource_group_name=resource_group,
        public_access=storage.PublicAccess.NONE,
        opts=opts,
    )
    blob = storage.Blob(
        f"{cfg.name}-bundle",
        account_name=account.name,
        container_name=container.name,
        blob_name=sb.key,
        resource_group_name=resource_group,
        source=sb.asset,
        type=storage.BlobType.BLOCK,
        content_type="application/gzip",
        opts=opts,
    )
    subscription = authorization.get_client_config_output().subscription_id
    authorization.RoleAssignment(
        f"{cfg.name}-boot-reader",
        principal_id=identity.principal_id,
        principal_type=authorization.PrincipalType.SERVICE_PRINCIPAL,
        role_definition_id=pulumi.Output.concat(
            "/subscriptions/",
            subscription,
            "/providers/Microsoft.Authorization/roleDefinitions/",
            BLOB_DATA_READER,
        ),
        scope=container.id,
        opts=opts,
    )
    url = pulumi.Output.concat(
        "https://", account.name, ".blob.core.windows.net/", container.name, "/", sb.key
    )
    user_data = sb.user_data(
        url,
        identity.client_id.apply(node_auth),
        CUSTOM_DATA_MAX_BYTES,
        "Azure customData (decoded)",
    ).apply(lambda text: base64.b64encode(text.encode()).decode())
    return AzureBoot(sb, account, container, blob, user_data)
