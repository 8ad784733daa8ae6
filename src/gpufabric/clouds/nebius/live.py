"""Nebius node discovery through the Nebius Python SDK (`nebius`): the project's instances,
every page of InstanceService.List, turned into the JSON `nebius compute instance list
--format json` prints ({"items": [Instance]}, proto field names), so that discovery.match
applies the same rules to both.

Calls ([P] the nebius SDK: nebius.api.nebius.compute.v1.InstanceServiceClient.list with
ListInstancesRequest(parent_id, page_size, page_token), ListInstancesResponse.items /
next_page_token; nebius.base.protos.json_format.message_to_dict). Credentials: the SDK's own
sources, $NEBIUS_IAM_TOKEN first (what the pipeline's cloud-login sets), else the Nebius CLI's
profile (~/.nebius/config.yaml).
"""

from __future__ import annotations

import os
from typing import Any

from gpufabric.errors import UserError
from gpufabric.extras import require

PAGE_SIZE = 100


def sdk(purpose: str) -> Any:
    """An SDK instance from the usual credentials (one line naming the extra when missing)."""
    require("nebius", purpose)
    from nebius.sdk import SDK

    if os.environ.get("NEBIUS_IAM_TOKEN"):
        from nebius.aio.token.static import EnvBearer

        return SDK(credentials=EnvBearer("NEBIUS_IAM_TOKEN"), user_agent_prefix="gpufabric")
    from nebius.aio.cli_config import Config, ConfigError

    try:
        return SDK(config_reader=Config(), user_agent_prefix="gpufabric")
    except (ConfigError, OSError, ValueError) as exc:  # no CLI config, or one it refuses
        first = (str(exc).splitlines() or [""])[0] or type(exc).__name__
        raise UserError(f"{purpose}: the Nebius CLI config: {first}") from None


class NebiusApi:
    """The instance service node discovery needs; errors are one line naming the call."""

    def __init__(self, instances: Any = None) -> None:
        if instances is None:
            from nebius.api.nebius.compute.v1 import InstanceServiceClient

            instances = InstanceServiceClient(sdk("Nebius node discovery"))
        self.instances = instances

    def list_instances(self, project: str) -> list[dict[str, Any]]:
        """Every instance of the project, as the CLI prints it."""
        require("nebius", "Nebius node discovery")
        from nebius.aio.service_error import RequestError
        from nebius.api.nebius.compute.v1 import ListInstancesRequest
        from nebius.base.protos.json_format import message_to_dict

        found: list[dict[str, Any]] = []
        token = ""
        try:
            while True:
                request = ListInstancesRequest(
                    parent_id=project, page_size=PAGE_SIZE, page_token=token
                )
                response = self.instances.list(request).wait()
                found += [
                    message_to_dict(i, preserving_proto_field_name=True) for i in response.items
                ]
                token = response.next_page_token
                if not token:
                    return found
        except RequestError as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise UserError(f"nebius InstanceService.List {project}: {message}") from None
