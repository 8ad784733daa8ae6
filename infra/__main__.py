"""The gpufabric Pulumi program: read stack config -> build the cluster -> export outputs."""

from pathlib import Path

import pulumi

from gpufabric.catalog import lookup
from gpufabric.clouds import build_cluster
from gpufabric.config import from_pulumi
from gpufabric.config.load import secret_config_value_texts
from gpufabric.errors import UserError

try:  # one clean line under `pulumi up` (bad config, a cloud SDK not installed), no traceback
    config = from_pulumi(Path(__file__).resolve().parent.parent / "stacks")
    cluster = build_cluster(config, lookup(config.instance_type))
except UserError as exc:
    raise pulumi.RunError(str(exc)) from None

# outputs that carry a secret config value stay secret (encrypted in state and outputs)
cluster.export(secret_config_value_texts())
pulumi.export("fabric", lookup(config.instance_type).fabric)
pulumi.export("encryption", config.encryption)
