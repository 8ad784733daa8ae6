"""Ansible inventory plugin: GPU nodes from gpufabric's Pulumi stack outputs."""

from __future__ import annotations

import os
from typing import Any

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin

DOCUMENTATION = r"""
name: gpufabric_pulumi
short_description: GPU nodes of a gpufabric cluster from Pulumi stack outputs
description:
  - Reads the JSON that C(pulumi stack output --json) prints (from a file, or by running the
    Pulumi CLI for a stack) and builds groups C(gpu_nodes) (with the cluster switches
    C(gpufabric_fabric), C(gpufabric_encryption), ... as group variables), C(cluster_<name>)
    and, where the leaf switch is known, C(leaf_<id>).
  - When the outputs list no addresses (an autoscaling group), finds the nodes with EC2
    describe_instances using the outputs' discovery filters, and their leaf with
    describe_instance_topology (AWS credentials from the usual boto3 sources).
  - The inventory file name must end in C(.gpufabric_pulumi.yml) or C(.gpufabric_pulumi.yaml).
options:
  plugin:
    description: Token that marks this file as a gpufabric_pulumi inventory.
    required: true
    choices: [gpufabric_pulumi]
  outputs_file:
    description: Path of a file holding C(pulumi stack output --json); relative to this file.
    type: str
  stack:
    description: Stack whose outputs to read with C(pulumi stack output --json --stack).
    type: str
  leaf_map_file:
    description:
      - YAML/JSON file mapping host name or address to its leaf switch (e.g. exported from a
        topology file); relative to this file. Wins over the outputs' own leaf map.
    type: str
  topology:
    description: Look up each AWS node's leaf switch with describe_instance_topology.
    type: bool
    default: true
"""

EXAMPLES = r"""
# inventory/aws-h100.gpufabric_pulumi.yml
plugin: gpufabric_pulumi
stack: aws-h100
"""


class InventoryModule(BaseInventoryPlugin):
    NAME = "gpufabric_pulumi"

    def verify_file(self, path: str) -> bool:
        return super().verify_file(path) and path.endswith(
            (".gpufabric_pulumi.yml", ".gpufabric_pulumi.yaml"))

    def parse(self, inventory: Any, loader: Any, path: str, cache: bool = True) -> None:
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        try:
            from gpufabric.errors import UserError
            from gpufabric.inventory import build, outputs
        except ImportError as exc:
            raise AnsibleParserError(f"gpufabric_pulumi: the gpufabric library is not importable "
                                     f"({exc}); use the project's venv") from None
        outputs_file = self.get_option("outputs_file")
        stack = self.get_option("stack")
        try:
            if outputs_file:
                outputs_file = os.path.join(os.path.dirname(os.path.abspath(path)),
                                            os.path.expanduser(outputs_file))
                data = outputs.load_file(outputs_file)
            elif stack:
                data = outputs.load_stack(stack, cwd=os.path.dirname(path))
            else:
                raise UserError("gpufabric_pulumi: set outputs_file or stack")
            leaf_map_file = self.get_option("leaf_map_file")
            if leaf_map_file:
                data = outputs.with_leaves(data, outputs.load_leaf_map(os.path.join(
                    os.path.dirname(os.path.abspath(path)), os.path.expanduser(leaf_map_file))))
            inv = build.from_outputs(data, topology=bool(self.get_option("topology")))
        except UserError as exc:
            raise AnsibleParserError(str(exc)) from None
        self._populate(inv)

    def _populate(self, inv: dict[str, Any]) -> None:
        target = self.inventory
        assert target is not None  # set by BaseInventoryPlugin.parse
        for group, body in inv.items():
            if group in ("_meta", "all"):
                continue
            target.add_group(group)
            for host in body.get("hosts", []):
                target.add_host(host, group=group)
            for key, value in body.get("vars", {}).items():
                target.set_variable(group, key, value)
        for host, hostvars in inv["_meta"]["hostvars"].items():
            for key, value in hostvars.items():
                target.set_variable(host, key, value)
