"""The AWS nodes and FSx for Lustre under recording mocks, for the choices the example stacks do
not make: the file system's own key and zone, an export-only or scratch file system, where each
resource sits in the component's tree, and a file system answer the mount command refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.pulumi.plans import REPO, plan_for
from tests.unit.test_cluster_wiring import check_tree, planned

from gpufabric.clouds.aws.nodes import placement_group_name
from gpufabric.errors import UserError
from gpufabric.plan import run_plan
from gpufabric.plan.mocks import RecordingMocks

FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
DRA = "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation"
KEY = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def _fsx(**extra: object) -> str:
    return "gpufabric:storage=" + json.dumps({"type": "fsx-lustre", **extra})


@pytest.mark.parametrize(
    ("arn", "name"),
    [
        ("arn:aws:ec2:us-east-1:123456789012:placement-group/p5-reserved", "p5-reserved"),
        # a name is up to 255 ASCII characters, "/" among them
        ("arn:aws:ec2:us-east-1:123456789012:placement-group/ml/p5-pool", "ml/p5-pool"),
        ("arn:aws:ec2:us-east-1:123456789012:placement-group/", None),
        ("", None),
        (None, None),
    ],
)
def test_placement_group_name_is_what_follows_placement_group_in_its_arn(
    arn: str | None, name: str | None
) -> None:
    assert placement_group_name(arn) == name


def test_fsx_is_encrypted_with_the_stacks_key() -> None:
    (fs,) = plan_for("aws-h100", _fsx(kmsKeyId=KEY)).of_type(FSX)
    assert fs.inputs["kmsKeyId"] == KEY


def test_fsx_in_another_zone_is_named_in_the_storage_output() -> None:
    plan = plan_for("aws-h100", _fsx(zone="us-east-1b"))
    assert plan.outputs["storage"]["zone"] == "us-east-1b"
    assert plan.outputs["cluster"]["zone"] == "us-east-1a"


def test_scratch_fsx_has_no_throughput_tier_and_no_metadata_configuration() -> None:
    # throughputPerTib left at its default (1000, SCRATCH_2's fixed rate): FSx takes no tier
    (fs,) = plan_for("aws-h100", _fsx(deploymentType="SCRATCH_2", capacityGib=2400)).of_type(FSX)
    assert fs.inputs["deploymentType"] == "SCRATCH_2"
    assert "perUnitStorageThroughput" not in fs.inputs
    assert "metadataConfiguration" not in fs.inputs


def test_export_only_s3_repository_exports_the_listed_events_and_imports_none() -> None:
    repo = {
        "dataRepositoryPath": "s3://example-checkpoints/run-7",
        "fileSystemPath": "/checkpoints",
        "autoImport": [],
        "autoExport": ["NEW", "CHANGED"],
    }
    plan = plan_for("aws-h100", _fsx(s3=repo))
    (dra,) = plan.of_type(DRA)
    assert dra.name == "aws-h100-fsx-s3"
    assert dra.inputs["fileSystemPath"] == "/checkpoints"
    assert dra.inputs["batchImportMetaDataOnCreate"] is True
    assert dra.inputs["s3"] == {"autoExportPolicy": {"events": ["NEW", "CHANGED"]}}
    assert dra.inputs["tags"] == {"gpufabric:cluster": "aws-h100", "gpufabric:stack": "aws-h100"}


def test_file_system_and_its_s3_association_sit_under_the_cluster_component() -> None:
    repo = {"dataRepositoryPath": "s3://example-training-data/x"}
    plan, tree = planned("aws-h100", _fsx(s3=repo))
    check_tree(plan, tree, "aws")
    assert {t for t, *_ in tree.nodes.values()} >= {FSX, DRA}


class ControlCharacterMountNameMocks(RecordingMocks):
    """A cloud whose file system answers with a mount name holding a newline."""

    def _computed(self, typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        out = super()._computed(typ, name, inputs)
        if typ == FSX:
            out["mountName"] = "abc\ndef"
        return out


def test_mount_name_with_a_control_character_is_refused_naming_the_mount_command() -> None:
    with pytest.raises(UserError) as caught:
        run_plan(REPO, "aws-h100", [], make_mocks=ControlCharacterMountNameMocks)
    assert str(caught.value) == (
        "storage.mountCommand: word 6 "
        "'<aws-h100-fsx.id>.fsx.us-east-1.amazonaws.com@tcp:/abc\\ndef' "
        "holds the control character '\\n'"
    )


CR_GROUP = "arn:aws:resource-groups:us-east-1:123456789012:group/p5-blocks"


@pytest.mark.parametrize(
    ("capacity", "source"),
    [
        ({"type": "reservation", "reservationId": "cr-0123456789abcdef0"}, "reservation"),
        ({"type": "capacity-block", "resourceGroupArn": CR_GROUP}, "none"),
    ],
)
def test_placement_output_says_where_the_group_comes_from(
    capacity: dict[str, str], source: str
) -> None:
    plan = plan_for("aws-h100", "gpufabric:capacity=" + json.dumps(capacity))
    # the plan drops the null name and strategy
    assert plan.outputs["network"]["placementGroup"] == {"source": source}
