"""Boot mode on GCP: the stack's bundle in its own private Cloud Storage bucket, read by the
nodes' service account.

- a bucket of the stack in its region (named by Pulumi from `<cluster>-boot`), uniform
  bucket-level access (no object ACLs) and public access prevention `enforced`;
- the bundle as one object (`gpufabric/bundles/gpufabric-<stack>-<sha256[:16]>.tar.gz`);
- roles/storage.objectViewer on that bucket for the nodes' service account
  (gpufabric:gcp.serviceAccount, required in boot mode: rules.py) and nobody else;
- the nodes' `user-data` metadata: the boot cloud-config with the object's JSON API download
  URL (https://storage.googleapis.com/<bucket>/<object>) and its sha256. The node fetches it
  with an OAuth token of its service account from the metadata server (the nodes have the
  cloud-platform scope).

A metadata value holds at most 262144 bytes (compute v1 Metadata.items.value).
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp.storage as storage

from gpufabric.catalog import InstanceType
from gpufabric.clouds.boot import StackBundle, render_bundle
from gpufabric.clouds.gcp.settings import GcpStackConfig

METADATA_VALUE_MAX_BYTES = 262144
TOKEN_URL = (
    "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token"
)
READER_ROLE = "roles/storage.objectViewer"


@dataclass
class GcpBoot:
    stack_bundle: StackBundle
    bucket: storage.Bucket
    object: storage.BucketObject
    user_data: pulumi.Output[str]


def node_auth() -> dict[str, object]:
    """A bearer token of the instance's service account, from the metadata server."""
    return {
        "kind": "bearer",
        "token_url": TOKEN_URL,
        "token_headers": {"Metadata-Flavor": "Google"},
    }


def build_bundle(
    cfg: GcpStackConfig, itype: InstanceType, labels: dict[str, str], parent: pulumi.Resource
) -> GcpBoot:
    opts = pulumi.ResourceOptions(parent=parent)
    sb = render_bundle(cfg, itype)
    bucket = storage.Bucket(
        f"{cfg.name}-boot",
        project=cfg.gcp.project,
        location=cfg.region,
        uniform_bucket_level_access=True,
        public_access_prevention="enforced",
        labels=labels,
        opts=opts,
    )
    obj = storage.BucketObject(
        f"{cfg.name}-bundle",
        bucket=bucket.name,
        name=sb.key,
        source=sb.asset,
        content_type="application/gzip",
        opts=opts,
    )
    storage.BucketIAMMember(
        f"{cfg.name}-boot-reader",
        bucket=bucket.name,
        role=READER_ROLE,
        member=f"serviceAccount:{cfg.gcp.service_account}",
        opts=opts,
    )
    url = pulumi.Output.concat("https://storage.googleapis.com/", bucket.name, "/", obj.name)
    user_data = sb.user_data(
        url, node_auth(), METADATA_VALUE_MAX_BYTES, "a Compute Engine metadata value"
    )
    return GcpBoot(sb, bucket, obj, user_data)
