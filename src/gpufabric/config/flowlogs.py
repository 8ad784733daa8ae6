"""`gpufabric:network.flowLogs` on each cloud: where the flow records go, checked per cloud.

AWS: VPC flow logs to an S3 bucket (`destination` = the bucket's ARN, optional prefix).
GCP: VPC flow logs on the subnets, delivered to Cloud Logging (`destination` unset).
Azure: VNet flow logs through the region's Network Watcher to a storage account
(`destination` = the storage account's resource id).
"""

from __future__ import annotations

import re

from gpufabric.config.model import StackConfig
from gpufabric.errors import ConfigError

KEY = "gpufabric:network.flowLogs.destination"
_S3_ARN = re.compile(r"^arn:aws[a-z-]*:s3:::[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[\w./-]*)?$")
_STORAGE_ID = re.compile(
    r"^/subscriptions/[0-9a-fA-F-]{36}/resourceGroups/[\w.()-]{1,90}"
    r"/providers/Microsoft\.Storage/storageAccounts/[a-z0-9]{3,24}$"
)


def check_flow_logs(cfg: StackConfig, cloud: str) -> None:
    flow = cfg.network.flow_logs
    if flow is None:
        return
    dest = flow.destination
    if cloud == "aws" and (dest is None or not _S3_ARN.match(dest)):
        raise ConfigError(KEY, dest, "on AWS the S3 bucket's ARN, e.g. arn:aws:s3:::my-flow-logs")
    if cloud == "azure" and (dest is None or not _STORAGE_ID.match(dest)):
        raise ConfigError(
            KEY,
            dest,
            "on Azure the storage account's resource id, /subscriptions/<id>/resourceGroups/<rg>"
            "/providers/Microsoft.Storage/storageAccounts/<name>",
        )
    if cloud == "gcp" and dest is not None:
        raise ConfigError(KEY, dest, "leave it unset on GCP: subnet flow logs go to Cloud Logging")
    if cloud not in ("aws", "azure", "gcp"):
        raise ConfigError(
            "gpufabric:network.flowLogs", {"destination": dest},
            f"not available on {cloud} in gpufabric; remove it"
        )  # fmt: skip
