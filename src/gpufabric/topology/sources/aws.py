"""AWS: DescribeInstanceTopology responses -> Topology.

`NetworkNodes` are listed top-down: the first id is the top layer, the last the node the
instance attaches to (AWS User Guide, how-ec2-instance-topology-works). The AWS CLI's own
example (fixtures/aws-topology) agrees: two instances sharing all three ids, a third sharing only
the first one - only possible if the first id is the widest. 3-level types (p4d, p5, p5e, p5en,
trn1...) and 4-level types (p6-b200, p6-b300) may be mixed; `CapacityBlockId` (UltraServers)
is the NVLink domain.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gpufabric.errors import UserError
from gpufabric.topology.model import Host, Topology

MAX_IDS_PER_CALL = 100  # DescribeInstanceTopology: at most 100 explicit instance ids


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
                nvlink_domain=item.get("CapacityBlockId") or None,
                address=iid,
                instance_id=iid,
                instance_type=item.get("InstanceType"),
            )
        )
    last = data[-1] if isinstance(data, list) and data else data
    if isinstance(last, dict) and last.get("NextToken"):
        skipped.append(("NextToken", "the last page has a NextToken: later pages are missing"))
    return Topology(tuple(hosts), source=origin, skipped=tuple(skipped), unplaced=tuple(unplaced))


def chunks(ids: Sequence[str], size: int = MAX_IDS_PER_CALL) -> list[list[str]]:
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]


def describe_instance_topology(
    client: Any,
    instance_ids: Sequence[str] | None = None,
    filters: Sequence[Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """All pages of DescribeInstanceTopology, at most 100 instance ids per call."""
    pages: list[dict[str, Any]] = []
    base: dict[str, Any] = {"Filters": list(filters)} if filters else {}
    requests = (
        [{**base, "InstanceIds": chunk} for chunk in chunks(instance_ids)]
        if instance_ids
        else [base]
    )
    for request in requests:
        token: str | None = None
        while True:
            call = dict(request)
            if token:
                call["NextToken"] = token
            page = client.describe_instance_topology(**call)
            page.pop("ResponseMetadata", None)
            pages.append(page)
            token = page.get("NextToken")
            if not token:
                break
    return pages


def private_dns_names(client: Any, instance_ids: Iterable[str]) -> dict[str, str]:
    """Instance id -> short private DNS name (`ip-10-1-2-3`), via DescribeInstances."""
    out: dict[str, str] = {}
    for chunk in chunks(list(instance_ids)):
        token: str | None = None
        while True:
            call: dict[str, Any] = {"InstanceIds": chunk}
            if token:
                call["NextToken"] = token
            page = client.describe_instances(**call)
            for reservation in page.get("Reservations", []):
                for inst in reservation.get("Instances", []):
                    dns = inst.get("PrivateDnsName") or ""
                    if dns:
                        out[inst["InstanceId"]] = dns.split(".", 1)[0]
            token = page.get("NextToken")
            if not token:
                break
    return out


def discover(
    client: Any,
    instance_ids: Sequence[str] | None = None,
    filters: Sequence[Mapping[str, Any]] | None = None,
    names: Mapping[str, str] | None = None,
    name_by: str = "instance-id",
) -> Topology:
    """Live discovery with a boto3 EC2 client (needs ec2:DescribeInstanceTopology and, for
    `name_by="private-dns"`, ec2:DescribeInstances)."""
    from botocore.exceptions import BotoCoreError, ClientError  # with the client's boto3

    try:
        pages = describe_instance_topology(client, instance_ids, filters)
        if names is None and name_by == "private-dns":
            ids = [i["InstanceId"] for i in _instances(pages, "aws")]
            names = private_dns_names(client, ids)
    except (BotoCoreError, ClientError) as exc:  # no credentials, denied, bad region...
        raise UserError(f"aws: DescribeInstanceTopology failed: {exc}") from None
    return parse(pages, names, origin="aws")
