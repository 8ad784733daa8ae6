"""`gpufabric:sixth:Cluster`: stand-in node resources and the common stack outputs."""

from __future__ import annotations

import pulumi

from gpufabric import stack_outputs
from gpufabric.clouds.outputs import ClusterOutputs
from gpufabric.stack_outputs import NodeGroup
from sixthcloud.settings import SixthStackConfig


class Node(pulumi.CustomResource):
    """A stand-in GPU node (only the plan's mocks see it)."""

    def __init__(self, name: str, props: dict, opts: pulumi.ResourceOptions) -> None:
        super().__init__("sixth:compute:Node", name, props, opts)


class Rule(pulumi.CustomResource):
    """A stand-in firewall rule: who may reach the nodes on one TCP port."""

    def __init__(self, name: str, props: dict, opts: pulumi.ResourceOptions) -> None:
        super().__init__("sixth:network:Rule", name, props, opts)


class SixthCluster(pulumi.ComponentResource):
    outputs: ClusterOutputs

    def __init__(self, cfg: SixthStackConfig) -> None:
        super().__init__("gpufabric:sixth:Cluster", cfg.name, None, None)
        child = pulumi.ResourceOptions(parent=self)
        names = [f"{cfg.name}-{i}" for i in range(cfg.nodes)]
        for name in names:
            Node(
                name,
                {
                    "project": cfg.sixth.project,
                    "machineType": cfg.instance_type,
                    "zone": cfg.zone,
                    "rack": f"{cfg.name}-rack",
                },
                child,
            )
        admin = cfg.network.management_cidr or cfg.network.management_subnet
        Rule(f"{cfg.name}-ssh", {"source": admin, "port": 22}, child)
        outputs = stack_outputs.build(
            cfg,
            cfg.instance,
            groups=[NodeGroup(kind="instances", name=cfg.name, count=cfg.nodes, members=names)],
            network={"cidr": cfg.network.cidr},
            storage=None,
            project=cfg.sixth.project,
        )
        self.outputs = ClusterOutputs(pulumi.Output.from_input(outputs))
        self.outputs.register(self)


def build(cfg: SixthStackConfig) -> ClusterOutputs:
    return SixthCluster(cfg).outputs
