"""Ansible inventory plugin: GPU nodes from gpufabric's Pulumi stack outputs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin

from gpufabric import discovery
from gpufabric.errors import UserError
from gpufabric.inventory import build, outputs

DOCUMENTATION = r"""
name: gpufabric_pulumi
short_description: GPU nodes of a gpufabric cluster from Pulumi stack outputs
description:
  - Reads the JSON that C(pulumi stack output --json --show-secrets) prints (from a file, or by
    running the Pulumi CLI for a stack) and finds the nodes of the node groups it names, in the
    stack's cloud (through that cloud's SDK and its usual credentials) or offline in the JSON
    the cloud's CLI printed. Each registered cloud brings its own discovery
    (gpufabric.clouds.<cloud>.discovery); docs/ansible.md lists what each asks and reads.
  - Builds groups C(gpu_nodes) (with the cluster switches C(gpufabric_fabric),
    C(gpufabric_encryption), ... as group variables), C(cluster_<name>), C(leaf_<id>) where the
    leaf switch is known and C(partition_<n>) where the cloud splits the fabric into
    InfiniBand partitions.
  - A node that is not running or has no private address is named in a warning and left out.
  - The inventory file name must end in C(.gpufabric_pulumi.yml) or C(.gpufabric_pulumi.yaml).
options:
  plugin:
    description: Token that marks this file as a gpufabric_pulumi inventory.
    required: true
    choices: [gpufabric_pulumi]
  outputs_file:
    description:
      - Path of a file holding C(pulumi stack output --json --show-secrets); relative to this file.
    type: str
  stack:
    description:
      - Stack whose outputs to read with C(pulumi stack output --json --show-secrets).
      - Set either O(outputs_file) or O(stack); both is an error.
    type: str
  discovery_file:
    description:
      - Find the nodes offline in these files instead of asking the cloud; relative to this file.
      - Each is the JSON the stack's cloud's CLI prints, the command each cloud's package
        declares (its CloudSpec's discovery_input, listed in docs/ansible.md); a file another
        cloud's CLI printed is refused in one line that names the command for the stack's cloud.
    type: list
    elements: str
  leaf_map_file:
    description:
      - YAML/JSON file mapping host name or address to its leaf switch; relative to this file.
        Wins over the leaves discovery found.
    type: str
  topology:
    description:
      - Live discovery, also look up each node's leaf switch where the cloud's API reports it
        (the cloud's discovery decides; docs/ansible.md, column leaf).
    type: bool
    default: true
"""

EXAMPLES = r"""
# h100.gpufabric_pulumi.yml, offline: saved outputs and what the cloud's CLI printed.
# Live (the Pulumi CLI and the cloud's credentials): `stack: h100` and no discovery_file.
plugin: gpufabric_pulumi
outputs_file: h100.outputs.json
discovery_file: [instances.json]
"""


class InventoryModule(BaseInventoryPlugin):
    NAME = "gpufabric_pulumi"

    def verify_file(self, path: str) -> bool:
        return super().verify_file(path) and path.endswith(
            (".gpufabric_pulumi.yml", ".gpufabric_pulumi.yaml")
        )

    def parse(self, inventory: Any, loader: Any, path: str, cache: bool = True) -> None:
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        here = os.path.dirname(os.path.abspath(path))

        def local(name: str) -> Path:
            return Path(here, os.path.expanduser(name))

        outputs_file = self.get_option("outputs_file")
        stack = self.get_option("stack")
        try:
            if outputs_file and stack:
                raise UserError(
                    f"{path}: set outputs_file or stack, not both (outputs_file {outputs_file!r}, "
                    f"stack {stack!r})"
                )
            if outputs_file:
                data = outputs.load_file(local(outputs_file))
            elif stack:
                data = outputs.load_stack(stack, cwd=here)
            else:
                raise UserError(f"{path}: set outputs_file or stack")
            files = self.get_option("discovery_file") or []
            if files:
                found = discovery.from_files(data, [local(f) for f in files])
            else:
                found = discovery.live(data, topology=bool(self.get_option("topology")))
            leaf_map_file = self.get_option("leaf_map_file")
            leaf_map = outputs.load_leaf_map(local(leaf_map_file)) if leaf_map_file else None
            inv = build.inventory(data, found.nodes, leaf_map)
        except UserError as exc:
            raise AnsibleParserError(str(exc)) from None
        for warning in found.warnings:
            self.display.warning(f"gpufabric_pulumi: {warning}")
        for key in build.unmatched(leaf_map or {}, found.nodes):
            self.display.warning(
                f"gpufabric_pulumi: leaf map {leaf_map_file}: {key!r} matches no node found "
                f"of stack {data.cluster.stack}; unused"
            )
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
