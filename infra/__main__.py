"""The gpufabric Pulumi program: read stack config -> build the cluster -> export outputs."""

from pathlib import Path

import pulumi

from gpufabric.clouds import build_cluster
from gpufabric.config import from_pulumi
from gpufabric.config.load import secret_config_value_texts
from gpufabric.errors import UserError

try:  # one clean line under `pulumi up` (bad config, a cloud SDK not installed), no traceback
    config = from_pulumi(Path(__file__).resolve().parent.parent / "stacks")
    cluster = build_cluster(config)
except UserError as exc:
    raise pulumi.RunError(str(exc)) from None

# the exports are gpufabric.stack_outputs.StackOutputs, key by key, and nothing else; an
# output that carries a secret config value stays secret (encrypted in state and outputs)
cluster.export(secret_config_value_texts())
