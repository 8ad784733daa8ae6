"""Discovery at thousands of nodes: one look-up per instance, the same answers as before.

`Found.add` keeps the first node of each name with a set (it compared every node with every
other); AWS matches an instance to its group through one index of ASG names and instance ids
(it scanned every group's member list per instance). benchmarks/scale_4096.py prints the time.
"""

from __future__ import annotations

from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric.clouds.aws import discovery as aws
from gpufabric.discovery import Found, Node
from gpufabric.stack_outputs import NodeGroup, StackOutputs, parse


def test_found_keeps_the_first_node_of_each_name_in_order() -> None:
    found = Found()
    for name, address in [("b", "1"), ("a", "2"), ("b", "3"), ("c", "4"), ("a", "5")]:
        found.add(Node(name=name, address=address, group="g"))
    assert [(n.name, n.address) for n in found.nodes] == [("b", "1"), ("a", "2"), ("c", "4")]


def test_found_given_nodes_still_refuses_their_names() -> None:
    found = Found(nodes=[Node(name="a", address="1", group="g")])
    found.add(Node(name="a", address="2", group="g"))
    found.add(Node(name="b", address="3", group="g"))
    assert [(n.name, n.address) for n in found.nodes] == [("a", "1"), ("b", "3")]


def _outputs(groups: list[NodeGroup]) -> StackOutputs:
    out = parse(plan_for("aws-a100").outputs)
    return out.model_copy(update={"nodes": out.nodes.model_copy(update={"groups": groups})})


def test_aws_instance_in_two_groups_goes_to_the_one_listed_first() -> None:
    asg = NodeGroup(name="asg-a", kind="autoscaling-group", count=1)
    ids = NodeGroup(name="fixed", kind="instances", count=2, members=["i-0a", "i-0b"])
    both = cli_json.aws_instance("i-0a", "10.0.0.5", asg="asg-a")
    only_id = cli_json.aws_instance("i-0b", "10.0.0.6")
    only_asg = cli_json.aws_instance("i-0c", "10.0.0.7", asg="asg-a")
    stranger = cli_json.aws_instance("i-0d", "10.0.0.8", asg="asg-other")
    doc = cli_json.aws_describe_instances(both, only_id, only_asg, stranger)
    for order, first in (([asg, ids], "asg-a"), ([ids, asg], "fixed")):
        found = aws.match(_outputs(order), [("test", doc)])
        groups = {n.instance_id: n.group for n in found.nodes}
        assert groups == {"i-0a": first, "i-0b": "fixed", "i-0c": "asg-a"}
