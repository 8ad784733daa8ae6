"""What AWS fills in under the plan's recording mocks (gpufabric.plan.mocks)."""

from __future__ import annotations

from typing import Any

from gpufabric.plan.mocks import MockFacts, Recorded, placeholder_id


def answer(token: str, facts: MockFacts) -> dict[str, Any]:
    """The provider functions the AWS component calls."""
    if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
        names = [f"{facts.region}{s}" for s in "abcd"]
        return {"names": names, "zoneIds": [f"use1-az{i}" for i in range(1, 5)]}
    if token == "aws:index/getCallerIdentity:getCallerIdentity":
        return {"accountId": facts.account, "arn": "arn:aws:iam::123456789012:user/plan"}
    if token == "aws:index/getRegion:getRegion":
        return {"name": facts.region, "region": facts.region}
    if token == "aws:index/getPartition:getPartition":
        return {"partition": "aws", "dnsSuffix": "amazonaws.com"}
    return {}


def computed(
    typ: str, name: str, inputs: dict[str, Any], records: list[Recorded], facts: MockFacts
) -> dict[str, Any]:
    """ARNs, DNS names, zones: what AWS fills in for the types the component reads back."""
    service = typ.split(":")[1].split("/")[0]
    out: dict[str, Any] = {
        "arn": f"arn:aws:{service}:{facts.region}:{facts.account}:{name}",
        "tagsAll": inputs.get("tags", {}),
    }
    if typ == "aws:fsx/lustreFileSystem:LustreFileSystem":
        out["dnsName"] = f"{placeholder_id(name)}.fsx.{facts.region}.amazonaws.com"
        out["mountName"] = "abcdef01"
    if typ == "aws:ec2/launchTemplate:LaunchTemplate":
        out["latestVersion"] = 1
    if typ == "aws:ec2/capacityReservation:CapacityReservation":
        out.setdefault("availabilityZone", facts.zone)
    if typ == "aws:ec2/subnet:Subnet":
        out["availabilityZone"] = inputs.get("availabilityZone", facts.zone)
    if typ == "aws:s3/bucket:Bucket":
        out["bucket"] = inputs.get("bucket", name)
        out["bucketRegionalDomainName"] = f"{out['bucket']}.s3.{facts.region}.amazonaws.com"
        out["arn"] = f"arn:aws:s3:::{out['bucket']}"
    if typ == "aws:ec2/vpcEndpoint:VpcEndpoint" and inputs.get("vpcEndpointType") == "Gateway":
        out["prefixListId"] = f"<{name}.prefixListId>"  # the service's prefix list (pl-...)
    if typ == "aws:ec2/instance:Instance":
        out["privateIp"] = "10.0.0.10"
        out["privateDns"] = f"ip-10-0-0-10.{facts.region}.compute.internal"
    return out
