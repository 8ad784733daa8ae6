"""The gpufabric Pulumi program: read stack config -> build the cluster -> export outputs."""

from pathlib import Path

import pulumi

from gpufabric.catalog import lookup
from gpufabric.clouds import build_cluster
from gpufabric.config import from_pulumi
from gpufabric.errors import UserError

try:
    config = from_pulumi(Path(__file__).resolve().parent.parent / "stacks")
except UserError as exc:  # one clean line under `pulumi up`, no traceback
    raise pulumi.RunError(str(exc)) from None

build_cluster(config, lookup(config.instance_type)).export()
pulumi.export("fabric", lookup(config.instance_type).fabric)
pulumi.export("encryption", config.encryption)
