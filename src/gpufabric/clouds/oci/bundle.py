"""Boot mode on OCI: the stack's bundle in its own private Object Storage bucket, read by the
nodes through a pre-authenticated request.

- a bucket of the stack in its compartment (`<cluster>-boot`), access type NoPublicAccess;
- the bundle as one object (`gpufabric/bundles/gpufabric-<stack>-<sha256[:16]>.tar.gz`);
- a pre-authenticated request for reading that one object (ObjectRead, no listing), ending at
  gpufabric:oci.bootUrlExpires. Its URL is the credential: the nodes' user data that carries it
  is a Pulumi secret (encrypted in the state, "[secret]" in a preview), and on the node
  /etc/gpufabric/boot.json is mode 0600. OCI's other way, instance principals allowed by a
  dynamic-group policy, needs OCI's request signing on the node, which the boot script (Python
  standard library only) does not do;
- the nodes' user data (the instance configuration's metadata `user_data`, base64): the boot
  cloud-config with that URL and the bundle's sha256.

The metadata and extendedMetadata of an instance hold at most 32,000 bytes together
([P] docs.oracle.com/iaas/Content/Compute/Tasks/updatinginstancemetada.htm): the base64 user
data is measured with the SSH key beside it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import pulumi
import pulumi_oci as oci

from gpufabric.catalog import InstanceType
from gpufabric.clouds.boot import StackBundle, render_bundle
from gpufabric.clouds.oci.settings import OciStackConfig

METADATA_MAX_BYTES = 32000


@dataclass
class OciBoot:
    stack_bundle: StackBundle
    bucket: oci.objectstorage.Bucket
    object: oci.objectstorage.StorageObject
    request: oci.objectstorage.Preauthrequest
    user_data: pulumi.Output[str]
    """base64 of the cloud-config (a secret: it carries the pre-authenticated URL)."""


def build_bundle(
    cfg: OciStackConfig,
    itype: InstanceType,
    compartment: str,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> OciBoot:
    opts = pulumi.ResourceOptions(parent=parent)
    sb = render_bundle(cfg, itype)
    namespace = oci.objectstorage.get_namespace_output(
        compartment_id=compartment, opts=pulumi.InvokeOutputOptions(parent=parent)
    ).namespace
    bucket = oci.objectstorage.Bucket(
        f"{cfg.name}-boot",
        compartment_id=compartment,
        namespace=namespace,
        name=f"{cfg.name}-boot",
        access_type="NoPublicAccess",
        freeform_tags=tags,
        opts=opts,
    )
    obj = oci.objectstorage.StorageObject(
        f"{cfg.name}-bundle",
        bucket=bucket.name,
        namespace=namespace,
        object=sb.key,
        source=str(sb.bundle.path),
        content_type="application/gzip",
        opts=opts,
    )
    request = oci.objectstorage.Preauthrequest(
        f"{cfg.name}-boot-read",
        access_type="ObjectRead",
        bucket=bucket.name,
        namespace=namespace,
        name=f"{cfg.name}-boot-read",
        object_name=obj.object,
        time_expires=cfg.oci.boot_url_expires,
        opts=opts,
    )
    url = pulumi.Output.secret(
        pulumi.Output.concat(
            f"https://objectstorage.{cfg.region}.oraclecloud.com", request.access_uri
        )
    )
    beside = len(f"ssh_authorized_keys{cfg.oci.ssh_public_key}user_data".encode())
    user_data = sb.user_data(
        url,
        None,
        METADATA_MAX_BYTES - beside,
        "OCI instance metadata (32,000 bytes with the SSH key)",
        sent=lambda text: base64.b64encode(text.encode()).decode(),
    )
    return OciBoot(sb, bucket, obj, request, user_data)
