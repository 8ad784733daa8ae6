"""The cross-field rules every cloud shares (gpufabric.config.validate), word for word: which
clouds take capacity resource groups, several reservations and boot mode, how several
reservations must add up, user data beside boot mode, flow logs where gpufabric sets none up,
and the catalog entry kept on a config. In-process: the shipped stacks with `-c` overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.catalog import lookup
from gpufabric.config.load import parse
from gpufabric.config.model import StackConfig
from gpufabric.config.validate import check, refuse_flow_logs, region_keys
from gpufabric.errors import ConfigError
from gpufabric.plan.project import apply_overrides, read_stack

REPO = Path(__file__).resolve().parents[2]
CR_A, CR_B = "cr-0a0000000000000aa", "cr-0b0000000000000bb"


def config(stack: str, *overrides: str) -> StackConfig:
    return parse(apply_overrides(read_stack(REPO, stack), list(overrides)), stack)


def refusal(stack: str, *overrides: str) -> str:
    with pytest.raises(ConfigError) as err:
        config(stack, *overrides)
    return str(err.value)


def test_check_looks_the_instance_type_up_for_a_config_built_otherwise() -> None:
    """A config that did not come through parse has no catalog entry yet: check looks it up,
    keeps it on the config and returns it."""
    cfg = config("aws-h100")
    cfg._instance = None
    entry = check(cfg)
    assert entry == lookup("p5.48xlarge")
    assert cfg.instance == entry


def test_region_keys_name_each_clouds_provider_region_key() -> None:
    assert region_keys() == {
        "aws": "aws:region",
        "gcp": "gcp:region",
        "azure": "azure-native:location",
        "oci": "oci:region",
    }


# --- several reservations --------------------------------------------------------------


def test_several_reservations_on_a_cloud_that_places_no_node_on_them() -> None:
    assert refusal(
        "oci-h100",
        "gpufabric:capacity.type=reservation",
        'gpufabric:capacity.reservations=[{"id":"ocid1.capacityreservation.oc1..a","nodes":16}]',
    ) == (
        "gpufabric:capacity.reservations: ['ocid1.capacityreservation.oc1..a'] is not valid; "
        "AWS/GCP-only; BM.GPU.H100.8 is oci"
    )


@pytest.mark.parametrize(
    ("first", "total", "ok"), [(9, 15, False), (10, 16, True), (11, 17, False)]
)
def test_several_reservations_must_add_up_to_the_nodes(first: int, total: int, ok: bool) -> None:
    overrides = (
        "gpufabric:nodeGroup=instances",
        "gpufabric:capacity.type=reservation",
        f'gpufabric:capacity.reservations=[{{"id":"{CR_A}","nodes":{first}}},'
        f'{{"id":"{CR_B}","nodes":6}}]',
    )
    if ok:
        assert config("aws-h100", *overrides).capacity.target_ids() == [CR_A, CR_B]
        return
    assert refusal("aws-h100", *overrides) == (
        f"gpufabric:capacity.reservations: ['{CR_A}: {first}', '{CR_B}: 6'] is not valid; "
        f"the shares add up to {total}, but gpufabric:nodes is 16"
    )


def test_several_reservations_need_one_instance_per_node() -> None:
    assert refusal(
        "aws-h100",
        "gpufabric:nodeGroup=group",
        "gpufabric:capacity.type=reservation",
        f'gpufabric:capacity.reservations=[{{"id":"{CR_A}","nodes":16}}]',
    ) == (
        "gpufabric:nodeGroup: 'group' is not valid; several reservations place each node on its "
        "own: use nodeGroup instances"
    )


# --- capacity resource groups ------------------------------------------------------------


def test_a_capacity_resource_group_is_refused_off_aws_naming_the_type_and_cloud() -> None:
    arn = "arn:aws:resource-groups:us-east-1:123456789012:group/p5-blocks"
    assert refusal(
        "oci-h100",
        "gpufabric:capacity.type=reservation",
        f"gpufabric:capacity.resourceGroupArn={arn}",
    ) == (
        f"gpufabric:capacity.resourceGroupArn: {arn!r} is not valid; capacity reservation "
        "resource groups are AWS-only; BM.GPU.H100.8 is oci"
    )


# --- boot mode ---------------------------------------------------------------------------


def test_boot_mode_is_refused_where_the_program_has_no_object_storage() -> None:
    assert refusal("nebius-h100", "gpufabric:boot.enabled=true") == (
        "gpufabric:boot.enabled: True is not valid; the Nebius program has no object storage "
        "to put the bundle in (AWS/GCP/Azure/OCI have); render and upload it yourself "
        "(docs/scale.md)"
    )


def test_boot_mode_and_user_data_are_one_document_not_two() -> None:
    assert refusal(
        "aws-h100", "gpufabric:boot.enabled=true", "gpufabric:userData=#cloud-config\n"
    ) == (
        "gpufabric:userData: '<14 bytes>' is not valid; with gpufabric:boot.enabled the nodes' "
        "user data is the boot cloud-config; unset one of them"
    )


def test_boot_mode_alone_and_user_data_alone_are_taken() -> None:
    assert config("aws-h100", "gpufabric:boot.enabled=true").boot.enabled
    assert config("aws-h100", "gpufabric:userData=#cloud-config\n").user_data == "#cloud-config\n"
    assert config("nebius-h100", "gpufabric:boot.enabled=false").boot.enabled is False


# --- flow logs ---------------------------------------------------------------------------


def test_flow_logs_where_gpufabric_sets_none_up_are_refused_naming_the_cloud() -> None:
    refuse_flow_logs(config("oci-h100"), "oci")  # none asked: nothing to refuse
    assert refusal("oci-h100", 'gpufabric:network.flowLogs={"destination":"bucket"}') == (
        "gpufabric:network.flowLogs: {'destination': 'bucket'} is not valid; not available on "
        "oci in gpufabric; remove it"
    )
