"""Boot mode on AWS: the stack's bundle in its own private S3 bucket, read by the node role.

- a bucket of the stack (named by Pulumi from `<cluster>-boot`), every public access blocked
  (BucketPublicAccessBlock: the four settings on) and ACLs off (BucketOwnershipControls
  BucketOwnerEnforced): nothing in it is readable but through IAM;
- the bundle as one object (`gpufabric/bundles/gpufabric-<stack>-<sha256[:16]>.tar.gz`);
- a bucket policy: the node role may s3:GetObject that one object, nothing else (a grant on
  the bucket, not on the role: the deploy identity may write the policies of the stack's boot
  buckets, never a role's inline policy, which could grant the nodes anything);
- the nodes' user data (the launch template's, base64): the boot cloud-config with the object's
  virtual-hosted-style URL and its sha256. The node signs its GET with Signature Version 4 and
  the credentials of its instance profile, read from IMDSv2 (the launch template requires
  session tokens, hop limit 2).

EC2 takes at most 16 KB of user data before base64 (rules.USER_DATA_MAX_BYTES): the boot
script goes in gzipped.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufabric.catalog import InstanceType
from gpufabric.clouds.aws.rules import USER_DATA_MAX_BYTES
from gpufabric.clouds.aws.settings import AwsStackConfig
from gpufabric.clouds.boot import StackBundle, render_bundle

IMDS = "http://169.254.169.254/latest"
# IMDSv2: PUT api/token with a TTL header gives the session token every later GET carries
# ([P] EC2 User Guide, "Use the Instance Metadata Service to access instance metadata")
IMDS_TOKEN_TTL_HEADER = "X-aws-ec2-metadata-token-ttl-seconds"
IMDS_TOKEN_HEADER = "X-aws-ec2-metadata-token"


@dataclass
class AwsBoot:
    stack_bundle: StackBundle
    bucket: aws.s3.Bucket
    object: aws.s3.BucketObjectv2
    public_access_block: aws.s3.BucketPublicAccessBlock
    user_data: pulumi.Output[str]
    """base64 of the cloud-config, as the launch template takes it."""


def node_auth(region: str) -> dict[str, object]:
    """How gpufabric-boot signs its GET: SigV4 for s3 in the bucket's region, with the
    instance profile's credentials from IMDSv2."""
    return {
        "kind": "sigv4",
        "region": region,
        "service": "s3",
        "session_url": f"{IMDS}/api/token",
        "session_headers": {IMDS_TOKEN_TTL_HEADER: "21600"},
        "session_header": IMDS_TOKEN_HEADER,
        "credentials_url": f"{IMDS}/meta-data/iam/security-credentials/",
    }


def build_bundle(
    cfg: AwsStackConfig, itype: InstanceType, tags: dict[str, str], parent: pulumi.Resource
) -> AwsBoot:
    opts = pulumi.ResourceOptions(parent=parent)
    sb = render_bundle(cfg, itype)
    bucket = aws.s3.Bucket(f"{cfg.name}-boot", tags=tags, opts=opts)
    blocked = aws.s3.BucketPublicAccessBlock(
        f"{cfg.name}-boot",
        bucket=bucket.id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
        opts=opts,
    )
    owned = aws.s3.BucketOwnershipControls(
        f"{cfg.name}-boot",
        bucket=bucket.id,
        rule=aws.s3.BucketOwnershipControlsRuleArgs(object_ownership="BucketOwnerEnforced"),
        opts=opts,
    )
    obj = aws.s3.BucketObjectv2(
        f"{cfg.name}-bundle",
        bucket=bucket.id,
        key=sb.key,
        source=sb.asset,
        content_type="application/gzip",
        tags=tags,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[blocked, owned]),
    )
    url = pulumi.Output.concat("https://", bucket.bucket_regional_domain_name, "/", obj.key)
    user_data = sb.user_data(
        url,
        node_auth(cfg.region),
        USER_DATA_MAX_BYTES,
        "EC2 user data (before base64)",
    ).apply(lambda text: base64.b64encode(text.encode()).decode())
    return AwsBoot(sb, bucket, obj, blocked, user_data)


def grant_read(boot: AwsBoot, role: aws.iam.Role, name: str, parent: pulumi.Resource) -> None:
    """The node role may read the bundle's object, and nothing else of the bucket (a bucket
    policy naming the role: in one account either the principal's or the bucket's policy
    grants)."""
    aws.s3.BucketPolicy(
        f"{name}-boot",
        bucket=boot.bucket.id,
        policy=pulumi.Output.all(boot.bucket.arn, boot.object.key, role.arn).apply(
            lambda v: json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "TheNodesReadTheBootBundle",
                            "Effect": "Allow",
                            "Principal": {"AWS": v[2]},
                            "Action": "s3:GetObject",
                            "Resource": f"{v[0]}/{v[1]}",
                        }
                    ],
                }
            )
        ),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[boot.public_access_block]),
    )
