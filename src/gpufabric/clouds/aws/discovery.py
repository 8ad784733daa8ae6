"""AWS: a stack's instances (EC2 DescribeInstances) and their leaf (DescribeInstanceTopology).

Linkage: EC2 tags every instance an Auto Scaling group launches with `aws:autoscaling:groupName`
= the group's name; individual instances are the ids the outputs list. Host name: the short
private DNS name (`ip-10-0-1-12`, the node's own hostname on the usual AMIs), else the id.
The leaf is the last of `NetworkNodes` (listed top-down: docs/sources.md A.5).

`Ec2` is the one EC2 client of the project: the inventory and `gpufabric topology discover
--source aws` both page through it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from gpufabric.clouds.aws import ids as aws_ids
from gpufabric.discovery import Found, Node
from gpufabric.errors import UserError
from gpufabric.extras import require
from gpufabric.inputs import types
from gpufabric.stack_outputs import NodeGroup, StackOutputs

GROUP_TAG = "aws:autoscaling:groupName"
MAX_IDS_PER_CALL = 100  # DescribeInstanceTopology: at most 100 instance ids per call


def chunks(ids: Sequence[str], size: int = MAX_IDS_PER_CALL) -> list[list[str]]:
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]


class Ec2:
    """A boto3 EC2 client, paged. Errors (no credentials, denied, no network) are one line."""

    def __init__(self, region: str, client: Any = None) -> None:
        if client is None:
            require("boto3", "AWS node discovery")
            import boto3  # only when really talking to AWS

            client = boto3.client("ec2", region_name=region)
        self.client = client
        self.region = region

    def _pages(self, operation: str, **params: Any) -> Iterator[dict[str, Any]]:
        from botocore.exceptions import BotoCoreError, ClientError

        token: str | None = None
        try:
            while True:
                call = dict(params, NextToken=token) if token else dict(params)
                page = getattr(self.client, operation)(**call)
                page.pop("ResponseMetadata", None)
                yield page
                token = page.get("NextToken")
                if not token:
                    return
        except (BotoCoreError, ClientError) as exc:
            where = f" in {self.region}" if self.region else ""
            raise UserError(f"aws {operation}{where}: {exc}") from None

    def describe_instances(
        self, filters: Sequence[Mapping[str, Any]] = (), instance_ids: Sequence[str] = ()
    ) -> dict[str, Any]:
        """Every page merged into one `aws ec2 describe-instances` document."""
        reservations: list[Any] = []
        for ids in chunks(instance_ids) if instance_ids else [[]]:
            params: dict[str, Any] = {"Filters": list(filters)} if filters else {}
            if ids:
                params["InstanceIds"] = ids
            for page in self._pages("describe_instances", **params):
                reservations.extend(page.get("Reservations", []))
        return {"Reservations": reservations}

    def describe_instance_topology(
        self, instance_ids: Sequence[str] = (), filters: Sequence[Mapping[str, Any]] = ()
    ) -> list[dict[str, Any]]:
        """All pages of DescribeInstanceTopology, at most 100 instance ids per call."""
        base: dict[str, Any] = {"Filters": list(filters)} if filters else {}
        requests = (
            [{**base, "InstanceIds": c} for c in chunks(instance_ids)] if instance_ids else [base]
        )
        return [
            page
            for request in requests
            for page in self._pages("describe_instance_topology", **request)
        ]


def _tags(inst: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(t.get("Key")): str(t.get("Value"))
        for t in inst.get("Tags") or []
        if isinstance(t, dict)
    }


def _group_index(groups: Sequence[NodeGroup]) -> dict[tuple[str, str], tuple[int, NodeGroup]]:
    """(kind, ASG name or instance id) -> (position, group); the first group listed wins."""
    index: dict[tuple[str, str], tuple[int, NodeGroup]] = {}
    for pos, group in enumerate(groups):
        if group.kind == "autoscaling-group":
            index.setdefault(("asg", group.name), (pos, group))
        elif group.kind == "instances":
            for iid in group.members:
                index.setdefault(("id", iid), (pos, group))
    return index


def _group_of(
    inst: Mapping[str, Any], index: Mapping[tuple[str, str], tuple[int, NodeGroup]]
) -> NodeGroup | None:
    """The first listed group the instance belongs to (by its ASG tag or its id)."""
    tag = _tags(inst).get(GROUP_TAG)
    hits = [
        index.get(("asg", tag)) if tag is not None else None,
        index.get(("id", str(inst.get("InstanceId")))),
    ]
    found = [h for h in hits if h is not None]
    return min(found, key=lambda h: h[0])[1] if found else None


def instances(doc: Any, origin: str) -> Iterator[dict[str, Any]]:
    """The Instance entries of a describe-instances document."""
    for reservation in doc.get("Reservations") or []:
        items = reservation.get("Instances") if isinstance(reservation, dict) else None
        if not isinstance(items, list):
            raise UserError(f"{origin}: a reservation has no 'Instances' list")
        for inst in items:
            if not isinstance(inst, dict) or not isinstance(inst.get("InstanceId"), str):
                raise UserError(f"{origin}: an instance has no 'InstanceId'")
            yield inst


def leaves(topology_docs: Sequence[Any]) -> dict[str, tuple[str, str]]:
    """instance id -> (leaf network node, NVLink domain) from DescribeInstanceTopology pages."""
    out: dict[str, tuple[str, str]] = {}
    for doc in topology_docs:
        for item in doc.get("Instances") or []:
            nodes = item.get("NetworkNodes") if isinstance(item, dict) else None
            if isinstance(nodes, list) and nodes and isinstance(item.get("InstanceId"), str):
                out[item["InstanceId"]] = (str(nodes[-1]), str(item.get("CapacityBlockId") or ""))
    return out


def match(
    outputs: StackOutputs,
    docs: Sequence[tuple[str, Any]],
    topology: Mapping[str, tuple[str, str]] | None = None,
) -> Found:
    """The stack's nodes among describe-instances documents ((origin, doc) pairs).

    A node must also sit in the stack's own network: an instance of the group (or with one of
    its ids) in another VPC or subnet is left out, with a warning."""
    found = Found()
    vpc, subnets = _stack_network(outputs)
    index = _group_index(outputs.nodes.groups)
    for origin, doc in docs:
        for inst in instances(doc, origin):
            group = _group_of(inst, index)
            if group is None:
                continue
            iid = inst["InstanceId"]
            where = _outside(inst, vpc, subnets)
            if where:
                found.warnings.append(f"{iid} ({group.name}): {where}; left out")
                continue
            state = (inst.get("State") or {}).get("Name", "")
            address = inst.get("PrivateIpAddress") or ""
            if state != "running" or not address:
                why = f"state {state or 'unknown'}" if state != "running" else "no private address"
                found.warnings.append(f"{iid} ({group.name}): {why}; left out")
                continue
            dns = str(inst.get("PrivateDnsName") or "").split(".", 1)[0]
            leaf, nvlink = (topology or {}).get(iid, ("", ""))
            found.add(
                Node(
                    name=dns or iid,
                    address=address,
                    group=group.name,
                    instance_id=iid,
                    leaf=leaf,
                    nvlink_domain=nvlink,
                )
            )
    return found


def _stack_network(outputs: StackOutputs) -> tuple[str | None, set[str]]:
    """The stack's VPC id and subnet ids from its outputs (offline plans hold placeholders,
    which check nothing)."""
    vpc = outputs.network.get("vpcId")
    raw = outputs.network.get("subnets")
    subnets = (
        {str(s) for s in raw.values() if not types.problem(aws_ids.SubnetId, s)}
        if isinstance(raw, dict)
        else set()
    )
    return (
        vpc if isinstance(vpc, str) and not types.problem(aws_ids.VpcId, vpc) else None
    ), subnets


def _outside(inst: Mapping[str, Any], vpc: str | None, subnets: set[str]) -> str:
    """Why the instance is not in the stack's network ('' when it is)."""
    if vpc is not None and inst.get("VpcId") != vpc:
        return f"in {inst.get('VpcId') or 'no VPC'}, not the stack's {vpc}"
    if subnets and inst.get("SubnetId") not in subnets:
        return f"in subnet {inst.get('SubnetId') or '(none)'}, not one of the stack's"
    return ""


def recognise(data: Any) -> str | None:
    """'aws' for `aws ec2 describe-instances`, 'aws-topology' for describe-instance-topology."""
    if isinstance(data, dict) and isinstance(data.get("Reservations"), list):
        return "aws"
    if isinstance(data, dict) and isinstance(data.get("Instances"), list):
        return "aws-topology"
    return None


def from_docs(outputs: StackOutputs, docs: Sequence[tuple[Path, str, Any]]) -> Found:
    topology = leaves([doc for _, kind, doc in docs if kind == "aws-topology"])
    listings = [(f"discovery file {p}", doc) for p, kind, doc in docs if kind == "aws"]
    return match(outputs, listings, topology)


def live(outputs: StackOutputs, client: Any = None, *, topology: bool = True) -> Found:
    """Instances of every node group (one DescribeInstances per kind), then their leaves."""
    ec2 = client if isinstance(client, Ec2) else Ec2(outputs.cluster.region, client)
    docs: list[tuple[str, Any]] = []
    asgs = [g.name for g in outputs.nodes.groups if g.kind == "autoscaling-group"]
    if asgs:
        docs.append(
            ("aws", ec2.describe_instances(filters=[{"Name": f"tag:{GROUP_TAG}", "Values": asgs}]))
        )
    ids = [i for g in outputs.nodes.groups if g.kind == "instances" for i in g.members]
    if ids:
        docs.append(("aws", ec2.describe_instances(instance_ids=ids)))
    found = match(outputs, docs)
    if topology and found.nodes:
        where = leaves(ec2.describe_instance_topology(sorted(n.instance_id for n in found.nodes)))
        return match(outputs, docs, where)
    return found
