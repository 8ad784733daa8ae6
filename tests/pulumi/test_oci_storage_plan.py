"""OCI File Storage with Lustre through the real program under mocks: the stack's choices reach
the file system, and the `storage` output mounts what the cloud answers (its MGS address, its
LNet network, its file system name)."""

from __future__ import annotations

import json

import pulumi
import pytest
from tests.pulumi.plans import REPO, plan_for

from gpufabric.errors import UserError
from gpufabric.plan import run_plan
from gpufabric.plan.mocks import RecordingMocks

STACK = "oci-h100"
OCI_LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
AD = "Uocm:US-ASHBURN-AD-1"
KEY = "ocid1.key.oc1.iad.aaaaaaaakey"
CHOSEN = {
    "type": "oci-lustre",
    "capacityGb": 41600,
    "performanceTier": "MBPS_PER_TB_250",
    "fileSystemName": "ckpt",
    "mountPoint": "/mnt/ckpt",
    "kmsKeyId": KEY,
    "availabilityDomain": AD,
}


def _storage(doc: dict[str, object]) -> str:
    return "gpufabric:storage=" + json.dumps(doc)


def test_the_stacks_choices_reach_the_file_system_and_the_mount_output() -> None:
    plan = plan_for(STACK, _storage(CHOSEN))
    (fs,) = plan.of_type(OCI_LUSTRE)
    assert fs.name == f"{STACK}-lustre"
    assert fs.inputs == {
        "availabilityDomain": AD,
        "capacityInGbs": 41600,
        "compartmentId": "ocid1.compartment.oc1..aaaaaaaareplacewithyourcompartment",
        "displayName": f"{STACK}-lustre",
        "fileSystemName": "ckpt",
        "freeformTags": {"gpufabric-cluster": STACK, "gpufabric-stack": STACK},
        "kmsKeyId": KEY,  # the stack's Vault key encrypts it, not an Oracle-managed one
        "performanceTier": "MBPS_PER_TB_250",
        "rootSquashConfiguration": {"identitySquash": "ROOT"},
        "subnetId": f"<{STACK}-storage.id>",
    }
    assert plan.outputs["storage"] == {
        "type": "oci-lustre",
        "dnsName": f"<{STACK}-lustre.mgsAddress>",
        "mountName": "ckpt",
        "mountPoint": "/mnt/ckpt",
        "mountCommand": f"mount -t lustre '<{STACK}-lustre.mgsAddress>@tcp:/ckpt' /mnt/ckpt",
        "availabilityDomain": AD,
        "capacityGb": 41600,
        "performanceTier": "MBPS_PER_TB_250",
    }


def _lustre_answering(**answer: object) -> type[RecordingMocks]:
    """A fake cloud whose Lustre file system answers `answer` (MGS address, LNet, name)."""

    class Answer(RecordingMocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
            rid, out = super().new_resource(args)
            return rid, ({**out, **answer} if args.typ == OCI_LUSTRE else out)

    return Answer


@pytest.mark.parametrize(
    ("lnet", "nid"), [("tcp1", "10.0.64.9@tcp1"), (None, "10.0.64.9@tcp"), ("", "10.0.64.9@tcp")]
)
def test_the_mount_command_names_the_lnet_the_cloud_answers_else_tcp(
    lnet: str | None, nid: str
) -> None:
    mocks = _lustre_answering(managementServiceAddress="10.0.64.9", lnet=lnet, fileSystemName="fs1")
    plan = run_plan(REPO, STACK, [], make_mocks=mocks)
    storage = plan.outputs["storage"]
    assert storage["dnsName"] == "10.0.64.9"
    assert storage["mountName"] == "fs1"  # the name the cloud reports, not only the one asked
    assert storage["mountCommand"] == f"mount -t lustre {nid}:/fs1 /lustre"


def test_an_mgs_address_the_mount_command_cannot_hold_is_one_line_naming_it() -> None:
    mocks = _lustre_answering(managementServiceAddress="10.0.64.9\r")
    with pytest.raises(UserError) as err:
        run_plan(REPO, STACK, [], make_mocks=mocks)
    assert str(err.value) == (
        "storage.mountCommand: word 4 '10.0.64.9\\r@tcp:/lustre' holds the control character '\\r'"
    )
