"""OCI node discovery through the OCI SDK: the same three listings the CLI prints (the pool's
instances, their VNIC attachments, the VNICs), turned into the CLI's JSON shape so that
discovery.match applies the same rules to both.

Calls ([P] oracle/oci-python-sdk: ComputeManagementClient.list_instance_pool_instances,
ComputeClient.list_vnic_attachments, VirtualNetworkClient.get_vnic); credentials and region
from ~/.oci/config (oci.config.from_file, profile DEFAULT or $OCI_CLI_PROFILE), the region
overridden by the stack's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from gpufabric.errors import UserError
from gpufabric.extras import require


def kebab(model: Any) -> dict[str, Any]:
    """An SDK model as the CLI prints it: snake_case attributes as kebab-case keys."""
    import oci

    return {key.replace("_", "-"): value for key, value in oci.util.to_dict(model).items()}


def sdk_config(region: str, what: str) -> dict[str, Any]:
    """The OCI SDK's config (~/.oci/config, profile DEFAULT or $OCI_CLI_PROFILE) for `region`;
    a missing file or profile, or a key_file that is not a file, is one line."""
    require("oci", what)
    import oci

    try:
        config = oci.config.from_file(profile_name=os.environ.get("OCI_CLI_PROFILE", "DEFAULT"))
    except (
        oci.exceptions.ConfigFileNotFound,
        oci.exceptions.ProfileNotFound,
        oci.exceptions.InvalidKeyFilePath,
    ) as exc:
        raise UserError(f"{what}: {str(exc).splitlines()[0]}") from None
    return {**config, "region": region}


def pages(what: str, fn: Callable[..., Any]) -> list[Any]:
    """Every page of an OCI list call (or the one answer of a get call): a list answer, or a
    collection's `items`; a service error is one line naming `what`."""
    import oci

    items: list[Any] = []
    page: str | None = None
    try:
        while True:
            response = fn(page=page) if page else fn()
            data = response.data
            if isinstance(getattr(data, "items", None), list):  # a collection
                data = data.items
            items += data if isinstance(data, list) else [data]
            page = getattr(response, "next_page", None)
            if not page:
                return items
    except oci.exceptions.ServiceError as exc:
        message = str(exc.message or exc.code).splitlines()[0]
        raise UserError(f"oci {what}: {exc.status} {message}") from None


def sdk_client(kind: Callable[[dict[str, Any]], Any], config: dict[str, Any], what: str) -> Any:
    """One SDK client of `kind`; a config the SDK refuses while making it (a malformed value, a
    key file that is no private key: the SDK checks them here) is one line."""
    import oci

    try:
        return kind(config)
    except (oci.exceptions.InvalidConfig, oci.exceptions.InvalidPrivateKey) as exc:
        raise UserError(f"{what}: {type(exc).__name__}: {str(exc).splitlines()[0]}") from None


class OciApi:
    """The three OCI clients node discovery needs; errors are one line naming the call."""

    def __init__(
        self,
        region: str,
        compute_management: Any = None,
        compute: Any = None,
        network: Any = None,
    ) -> None:
        self.region = region
        if compute_management is None or compute is None or network is None:
            import oci

            what = "OCI node discovery"
            config = sdk_config(region, what)
            compute_management = compute_management or sdk_client(
                oci.core.ComputeManagementClient, config, what
            )
            compute = compute or sdk_client(oci.core.ComputeClient, config, what)
            network = network or sdk_client(oci.core.VirtualNetworkClient, config, what)
        self.compute_management, self.compute, self.network = compute_management, compute, network

    def _call(self, what: str, fn: Callable[..., Any]) -> list[Any]:
        """Every page of a list call (or the one answer of a get call)."""
        return pages(f"{what} in {self.region}", fn)

    def pool_instances(self, compartment: str, pool_id: str) -> list[dict[str, Any]]:
        found = self._call(
            f"ListInstancePoolInstances {pool_id}",
            lambda **page: self.compute_management.list_instance_pool_instances(
                compartment, pool_id, **page
            ),
        )
        return [kebab(i) for i in found]

    def vnic_attachments(self, compartment: str, instance_id: str) -> list[dict[str, Any]]:
        found = self._call(
            f"ListVnicAttachments {instance_id}",
            lambda **page: self.compute.list_vnic_attachments(
                compartment, instance_id=instance_id, **page
            ),
        )
        return [kebab(a) for a in found]

    def vnic(self, vnic_id: str) -> dict[str, Any]:
        (found,) = self._call(f"GetVnic {vnic_id}", lambda: self.network.get_vnic(vnic_id))
        return kebab(found)


def listings(api: OciApi, compartment: str, pool_ids: list[str]) -> list[tuple[str, Any]]:
    """The pools' instances, their attachments and primary-candidate VNICs, as CLI documents
    (empty listings left out)."""
    pool = [i for pid in pool_ids for i in api.pool_instances(compartment, pid)]
    attachments = [
        a
        for inst in pool
        if str(inst.get("state", "")).lower() == "running"
        for a in api.vnic_attachments(compartment, str(inst["id"]))
    ]
    vnics = [
        api.vnic(str(a["vnic-id"]))
        for a in attachments
        if str(a.get("lifecycle-state", "ATTACHED")) == "ATTACHED" and a.get("vnic-id")
    ]
    docs = [("oci ListInstancePoolInstances", pool), ("oci ListVnicAttachments", attachments)]
    docs.append(("oci GetVnic", vnics))
    return [(origin, {"data": items}) for origin, items in docs if items]
