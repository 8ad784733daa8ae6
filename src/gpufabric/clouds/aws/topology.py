"""AWS: DescribeInstanceTopology responses -> Topology.

`NetworkNodes` are listed top-down: the first id is the top layer, the last the node the
instance attaches to (AWS User Guide, how-ec2-instance-topology-works). The AWS CLI's own
example (fixtures/aws-topology) agrees: two instances sharing all three ids, a third sharing only
the first one - only possible if the first id is the widest. 3-level types (p4d, p5, p5e, p5en,
trn1...) and 4-level types (p6-b200, p6-b300) may be mixed; `CapacityBlockId` (UltraServers)
is the NVLink domain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpufabric.clouds.aws.discovery import Ec2, instances
from gpufabric.errors import UserError
from gpufabric.extras import require
from gpufabric.inputs import types
from gpufabric.topology.model import Host, Topology


def _instances(data: Any, origin: str) -> list[dict[str, Any]]:
    """Instances from one response, a list of responses (pages), or a bare instance list."""
    pages = data if isinstance(data, list) else [data]
    out: list[dict[str, Any]] = []
    for page in pages:
        if isinstance(page, dict) and "Instances" in page:
            items = page["Instances"]
        elif isinstance(page, dict) and "InstanceId" in page:
            items = [page]
        else:
            raise UserError(
                f"{origin}: not a DescribeInstanceTopology response (no 'Instances' list)"
            )
        if not isinstance(items, list):
            raise UserError(f"{origin}: 'Instances' is not a list")
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("InstanceId"), str):
                raise UserError(f"{origin}: an instance entry has no 'InstanceId'")
            out.append(item)
    return out


def _optional(item: Mapping[str, Any], key: str, iid: str, origin: str) -> str | None:
    """A string field of an instance (None when absent or empty), or one line naming it."""
    value = item.get(key)
    if value is None or value == "":
        return None
    why = types.problem(types.NodeId, value) if isinstance(value, str) else "is not a string"
    if why:
        raise UserError(f"{origin}: instance {iid}: {key!r} {types.show(value)} {why}")
    return value


def parse(
    data: Any,
    names: Mapping[str, str] | None = None,
    origin: str = "aws",
) -> Topology:
    """Build a Topology from recorded DescribeInstanceTopology output.

    `names` maps instance id -> node name (a names file, or private DNS names); with a names
    map, instances it does not name are left out (reported in `skipped`).
    """
    hosts: list[Host] = []
    skipped: list[tuple[str, str]] = []
    unplaced: list[str] = []
    seen: dict[str, list[str]] = {}
    for item in _instances(data, origin):
        iid = item["InstanceId"]
        nodes = item.get("NetworkNodes") or []
        if not isinstance(nodes, list) or not all(isinstance(n, str) and n for n in nodes):
            raise UserError(f"{origin}: instance {iid}: 'NetworkNodes' is not a list of ids")
        if iid in seen:
            if seen[iid] != nodes:  # listed twice, under two different network paths
                raise UserError(
                    f"{origin}: instance {iid} is listed twice with different NetworkNodes "
                    f"({'/'.join(seen[iid]) or '-'} and {'/'.join(nodes) or '-'})"
                )
            continue  # the same entry again (overlapping pages)
        seen[iid] = nodes
        if names is not None and iid not in names:
            skipped.append((iid, "not in the names map"))
            continue
        if not nodes:  # not running, or a type without topology: kept, under no-topology
            unplaced.append(names[iid] if names is not None else iid)
            continue
        hosts.append(
            Host(
                name=names[iid] if names is not None else iid,
                path=tuple(nodes),
                nvlink_domain=_optional(item, "CapacityBlockId", iid, origin),
                address=iid,
                instance_id=iid,
                instance_type=_optional(item, "InstanceType", iid, origin),
            )
        )
    last = data[-1] if isinstance(data, list) and data else data
    if isinstance(last, dict) and last.get("NextToken"):
        skipped.append(("NextToken", "the last page has a NextToken: later pages are missing"))
    return Topology(tuple(hosts), source=origin, skipped=tuple(skipped), unplaced=tuple(unplaced))


def _region(client: Any) -> str:
    return str(getattr(getattr(client, "meta", None), "region_name", "") or "")


def private_dns_names(client: Any, instance_ids: Sequence[str]) -> dict[str, str]:
    """Instance id -> short private DNS name (`ip-10-1-2-3`), via DescribeInstances."""
    ec2 = client if isinstance(client, Ec2) else Ec2(_region(client), client)
    doc = ec2.describe_instances(instance_ids=instance_ids) if instance_ids else {}
    return {
        i["InstanceId"]: str(i["PrivateDnsName"]).split(".", 1)[0]
        for i in instances(doc, "aws")
        if i.get("PrivateDnsName")
    }


def discover(
    client: Any,
    instance_ids: Sequence[str] | None = None,
    filters: Sequence[Mapping[str, Any]] | None = None,
    names: Mapping[str, str] | None = None,
    name_by: str = "instance-id",
) -> Topology:
    """Live discovery through the project's one EC2 client (gpufabric.clouds.aws.discovery.Ec2; a
    boto3 client is wrapped in it). Needs ec2:DescribeInstanceTopology and, for
    `name_by="private-dns"`, ec2:DescribeInstances."""
    ec2 = client if isinstance(client, Ec2) else Ec2(_region(client), client)
    pages = ec2.describe_instance_topology(instance_ids or (), filters or ())
    if names is None and name_by == "private-dns":
        names = private_dns_names(ec2, [i["InstanceId"] for i in _instances(pages, "aws")])
    return parse(pages, names, origin="aws")


def load(data: Any, names: Mapping[str, str] | None, origin: str) -> Topology:
    """The topology of a recorded DescribeInstanceTopology answer."""
    return parse(data, names, origin)


def live(
    region: str | None,
    instance_ids: Sequence[str] | None,
    names: Mapping[str, str] | None,
    name_by: str,
) -> Topology:
    """Ask DescribeInstanceTopology (credentials from boto3's usual sources)."""
    require("boto3", "live AWS topology discovery (--source aws without --input)")
    import boto3  # only for live discovery: recorded input needs no AWS SDK session
    from botocore.exceptions import BotoCoreError

    try:
        client = boto3.client("ec2", region_name=region)
    except BotoCoreError as exc:
        raise UserError(f"aws: cannot create an EC2 client: {exc}") from None
    return discover(client, instance_ids, None, dict(names) if names else None, name_by)
