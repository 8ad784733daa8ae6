"""What OCI fills in under the plan's recording mocks (gpufabric.plan.mocks)."""

from __future__ import annotations

from typing import Any

from gpufabric.plan.mocks import MockFacts, Recorded


def computed(
    typ: str, name: str, inputs: dict[str, Any], records: list[Recorded], facts: MockFacts
) -> dict[str, Any]:
    """What OCI fills in: the cluster network's instance pool id, Lustre's MGS address."""
    out: dict[str, Any] = {}
    if typ == "oci:Core/clusterNetwork:ClusterNetwork":
        out["instancePools"] = [
            {**pool, "id": f"<{name}.pool{index}.id>"}
            for index, pool in enumerate(inputs.get("instancePools", []))
        ]
    if typ == "oci:ObjectStorage/preauthrequest:Preauthrequest":
        # the request's secret part: a made-up token of URL characters only
        out["accessUri"] = (
            f"/p/mock-par-token-{name}/n/{inputs.get('namespace')}/b/{inputs.get('bucket')}"
            f"/o/{inputs.get('objectName')}"
        )
    if typ == "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem":
        out["managementServiceAddress"] = f"<{name}.mgsAddress>"
        out["lnet"] = "tcp"
    return out


def answer(token: str, facts: MockFacts) -> dict[str, Any]:
    """The provider functions the OCI component calls: the region's Oracle services."""
    if token == "oci:ObjectStorage/getNamespace:getNamespace":
        return {"namespace": "mocktenancyns"}
    if token == "oci:Core/getServices:getServices":
        label = f"all-{facts.region}-services-in-oracle-services-network"
        return {
            "services": [
                {
                    "id": f"ocid1.service.oc1..{label}",
                    "cidrBlock": label,
                    "name": f"All {facts.region} Services In Oracle Services Network",
                    "description": "every Oracle service of the region",
                }
            ]
        }
    return {}
