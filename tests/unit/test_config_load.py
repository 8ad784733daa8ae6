"""A stack's raw config turned into a StackConfig (gpufabric.config.load), word for word: unknown
keys and their near misses, another cloud's section, the region each cloud takes it from, the
one line pydantic's errors become, secret values kept out of every error, and the Pulumi
program's own entry (its config from the environment Pulumi sets). In-process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpufabric.config import load
from gpufabric.config.load import known_keys, parse, scrub, secret_values
from gpufabric.errors import ConfigError, MissingConfigError, UserError
from gpufabric.inputs.errors import InputError
from gpufabric.plan.project import read_stack

REPO = Path(__file__).resolve().parents[2]
KNOWN = (
    "aws, azure, boot, capacity, clusterName, encryption, gcp, instanceType, nebius, network, "
    "nodeGroup, nodes, oci, rootVolume, storage, tags, userData, zone"
)


def stack(name: str, **changes: Any) -> dict[str, Any]:
    """A shipped stack's raw config; a change of None removes the key."""
    raw = read_stack(REPO, name)
    for key, value in changes.items():
        key = key.replace("__", ":")
        if value is None:
            raw.pop(key, None)
        else:
            raw[key] = value
    return raw


def refusal(raw: dict[str, Any], secrets: tuple[str, ...] = ()) -> UserError:
    with pytest.raises(UserError) as err:
        parse(raw, "s", secrets)
    return err.value


def test_known_keys_are_the_common_keys_and_each_clouds_section() -> None:
    assert ", ".join(known_keys()) == KNOWN


def test_an_unknown_key_names_its_near_miss_or_every_known_key() -> None:
    assert str(refusal(stack("aws-h100", gpufabric__nodez=3))) == (
        f"gpufabric:nodez: 3 is not valid; did you mean 'gpufabric:nodes'? unknown key; "
        f"known keys: {KNOWN}"
    )
    assert str(refusal(stack("aws-h100", gpufabric__qqqqqq=3))) == (
        f"gpufabric:qqqqqq: 3 is not valid; unknown key; known keys: {KNOWN}"
    )


def test_a_key_with_a_second_colon_is_an_unknown_key_not_another_namespace() -> None:
    # the namespace ends at the first colon: 'gpufabric:nodes:x' is gpufabric's key 'nodes:x'
    assert str(refusal(stack("aws-h100", **{"gpufabric__nodes:x": 3}))) == (
        f"gpufabric:nodes:x: 3 is not valid; did you mean 'gpufabric:nodes'? unknown key; "
        f"known keys: {KNOWN}"
    )


def test_keys_of_other_namespaces_are_left_to_their_programs() -> None:
    cfg = parse(stack("aws-h100", other__thing={"x": 1}, aws__profile="p"), "s")
    assert cfg.nodes == 16 and cfg.stack == "s"


@pytest.mark.parametrize(
    ("name", "section", "line"),
    [
        ("aws-h100", "gcp", "gcp-only settings; this is an AWS stack (p5.48xlarge): remove the "
         "section, use gpufabric:aws"),
        ("gcp-a3-mega", "aws", "aws-only settings; this is a GCP stack (a3-megagpu-8g): remove "
         "the section, use gpufabric:gcp"),
        ("oci-h100", "nebius", "nebius-only settings; this is an OCI stack (BM.GPU.H100.8): "
         "remove the section, use gpufabric:oci"),
        ("azure-ndv5", "oci", "oci-only settings; this is an Azure stack "
         "(Standard_ND96isr_H100_v5): remove the section, use gpufabric:azure"),
    ],
)  # fmt: skip
def test_another_clouds_section_is_refused_naming_this_stacks_cloud(
    name: str, section: str, line: str
) -> None:
    err = refusal(stack(name, **{f"gpufabric__{section}": {}}))
    assert str(err) == f"gpufabric:{section}: '(set)' is not valid; {line}"


def test_a_misspelt_instance_type_drops_the_cloud_sections_and_says_so_first() -> None:
    err = refusal(stack("aws-h100", gpufabric__instanceType="p5.48xlarg", aws__region=None))
    assert str(err).startswith(
        "gpufabric:instanceType: 'p5.48xlarg' is not valid; did you mean 'p5.48xlarge'?"
    )
    err = refusal(stack("aws-h100", gpufabric__instanceType="p5.48xlarg"))
    assert str(err).startswith("gpufabric:instanceType: 'p5.48xlarg' is not valid; did you mean")


# --- the region ---------------------------------------------------------------------------


def test_each_cloud_takes_its_region_from_its_provider_key() -> None:
    assert parse(stack("aws-h100"), "s").region == "us-east-1"
    gcp = read_stack(REPO, "gcp-a3-mega")
    assert parse(gcp, "s").region == gcp["gcp:region"]
    oci = read_stack(REPO, "oci-h100")
    assert parse(oci, "s").region == oci["oci:region"]


def test_on_nebius_the_zone_names_the_region() -> None:
    raw = read_stack(REPO, "nebius-h100")
    assert parse(raw, "s").region == raw["gpufabric:zone"]
    err = refusal(stack("nebius-h100", gpufabric__zone=None))
    assert str(err) == (
        "gpufabric:zone: None is not valid; required on Nebius: the region, e.g. eu-north1"
    )
    assert str(refusal(stack("nebius-h100", gpufabric__zone=""))) == (
        "gpufabric:zone: '' is not valid; required on Nebius: the region, e.g. eu-north1"
    )


@pytest.mark.parametrize("region", [None, ""])
def test_no_region_names_every_clouds_key(region: str | None) -> None:
    err = refusal(stack("aws-h100", aws__region=region))
    assert str(err) == (
        "aws:region: None is not valid; set the provider region (aws:region, gcp:region, "
        "azure-native:location, oci:region; on Nebius gpufabric:zone names the region)"
    )
    assert str(refusal({"gpufabric:nodes": 2})) == str(err)


def test_a_provider_setting_repeated_in_the_section_must_agree() -> None:
    raw = read_stack(REPO, "gcp-a3-mega")
    project = raw["gpufabric:gcp"]["project"]
    assert parse({**raw, "gcp:project": project}, "s").gcp.project == project  # type: ignore[attr-defined]
    assert parse({**raw, "gcp:project": ""}, "s").gcp.project == project  # type: ignore[attr-defined]
    assert str(refusal({**raw, "gcp:project": "someone-else"})) == (
        f"gpufabric:gcp.project: {project!r} is not valid; it must match gcp:project "
        "'someone-else' (the provider's project)"
    )


# --- pydantic's errors as one line -------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        ({"gpufabric__nodes": "many"}, "gpufabric:nodes: 'many' is not valid; input should be a "
         "valid integer"),
        ({"gpufabric__tags": {"a": 1}}, "gpufabric:tags.a: 1 is not valid; input should be a "
         "valid string"),
        ({"gpufabric__storage": {"type": "managed-lustre"}}, "gpufabric:storage.type: "
         "'managed-lustre' is not valid; on AWS use fsx-lustre or none"),
        ({"gpufabric__storage": {"type": "fsx-lustre", "capacityGib": "x"}},
         "gpufabric:storage.capacityGib: 'x' is not valid; input should be a valid integer"),
        ({"gpufabric__storage": {"capacityGib": 1200}}, "gpufabric:storage.type: "
         "{'capacityGib': 1200} is not valid; unable to extract tag using discriminator 'type'"),
        ({"gpufabric__capacity": {"type": "reservation", "reservations": [
            {"id": "cr-0a0000000000000aa", "nodes": "x"}]}},
         "gpufabric:capacity.reservations.0.nodes: 'x' is not valid; input should be a valid "
         "integer"),
        ({"gpufabric__capacity": {"type": "reservation", "reservations": [
            {"id": "cr-0a0000000000000aa", "nodes": 16, "x": 1}]}},
         "gpufabric:capacity.reservations.0.x: 1 is not valid; extra inputs are not permitted"),
        ({"gpufabric__nodes": None}, "gpufabric:nodes: not set; required: an integer number of "
         "GPU nodes, 1-4096"),
    ],
)  # fmt: skip
def test_a_bad_value_is_one_line_naming_its_key(changes: dict[str, Any], line: str) -> None:
    assert str(refusal(stack("aws-h100", **changes))) == line


def test_a_missing_key_of_a_clouds_section_gives_its_description() -> None:
    raw = read_stack(REPO, "oci-h100")
    oci = {k: v for k, v in raw["gpufabric:oci"].items() if k != "compartmentId"}
    err = refusal({**raw, "gpufabric:oci": oci})
    assert isinstance(err, MissingConfigError)
    assert str(err) == (
        "gpufabric:oci.compartmentId: not set; required: the compartment OCID for every resource"
    )


def test_a_missing_key_without_a_description_reads_required_once() -> None:
    # inside the storage union and a list of reservations no description is found
    s3 = {"type": "fsx-lustre", "capacityGib": 4800, "s3": {}}
    err = refusal(stack("aws-h100", gpufabric__storage=s3))
    assert isinstance(err, MissingConfigError)
    assert str(err) == "gpufabric:storage.s3.dataRepositoryPath: not set; required"
    capacity = {"type": "reservation", "reservations": [{"nodes": 16}]}
    err = refusal(stack("aws-h100", gpufabric__capacity=capacity, gpufabric__nodeGroup="instances"))
    assert str(err) == "gpufabric:capacity.reservations.0.id: not set; required"


def test_the_description_of_a_field_is_found_through_nested_sections_or_is_empty() -> None:
    model = load.registry.module("oci", "settings").CONFIG
    assert load._description(model, ["oci", "compartmentId"]) == (
        "the compartment OCID for every resource"
    )
    assert load._description(model, ["oci", "compartment_id"]) == (
        "the compartment OCID for every resource"
    )
    assert load._description(model, ["oci", "nothing"]) == ""
    assert load._description(model, ["nodes", "deeper"]) == ""


def test_the_value_shown_is_the_one_at_the_errors_place() -> None:
    values = {"a": {"b": [10, {"c": "x"}]}}
    assert load._lookup(values, ["a", "b", "1", "c"]) == "x"
    assert load._lookup(values, ["a", "b", "0"]) == 10
    assert load._lookup(values, ["a", "b", "2"]) == [10, {"c": "x"}]
    assert load._lookup(values, ["a", "zz"]) == {"b": [10, {"c": "x"}]}
    assert load._lookup(values, ["zz"]) is None
    assert load._lookup(values, []) == values


# --- secrets ------------------------------------------------------------------------------

SECRET = "hunter2-correct-horse"


def test_secret_values_are_every_scalar_longest_first_without_empties() -> None:
    raw = {
        "gpufabric:x": {"a": ["one", {"b": "three"}, None, ""], "c": ("tuple-item", 12)},
        "gpufabric:y": "plain",
        "gpufabric:z": "zz",
    }
    found = secret_values(raw, ["gpufabric:x", "gpufabric:z", "gpufabric:absent"])
    assert sorted(found) == ["12", "one", "three", "tuple-item", "zz"]
    assert [len(v) for v in found] == [10, 5, 3, 2, 2]
    assert secret_values({"gpufabric:x": ["a", "a"]}, ["gpufabric:x"]) == ["a"]
    assert secret_values(raw, []) == []


def test_scrub_replaces_the_longest_secret_first() -> None:
    assert scrub("key abc and abcdef", ["abc", "abcdef"]) == "key [secret] and [secret]"
    assert scrub("nothing", ["abc"]) == "nothing"


def test_a_secret_value_refused_reads_secret_in_the_line() -> None:
    raw = stack("aws-h100", gpufabric__clusterName=SECRET, gpufabric__nodes=SECRET)
    plain = refusal(raw)
    assert SECRET in str(plain)
    hidden = refusal(raw, ("gpufabric:nodes",))
    assert isinstance(hidden, ConfigError)
    assert str(hidden) == (
        "gpufabric:nodes: [secret] is not valid; input should be a valid integer"
    )
    assert hidden.key == "gpufabric:nodes"


def test_a_secret_inside_another_keys_error_is_scrubbed_from_the_value_and_the_text() -> None:
    raw = stack("aws-h100", gpufabric__nodez=SECRET, gpufabric__userData=SECRET)
    err = refusal(raw, ("gpufabric:userData",))
    assert isinstance(err, ConfigError)
    assert str(err).startswith("gpufabric:nodez: [secret] is not valid; did you mean")
    assert SECRET not in str(err) and SECRET not in err.allowed


def test_a_secret_in_an_allowed_text_is_scrubbed() -> None:
    # the secret value is the region: the line's allowed text names it
    raw = stack("aws-h100", aws__region="us-east-1", gpufabric__zone="eu-west-1a")
    err = refusal(raw, ("aws:region",))
    assert isinstance(err, ConfigError)
    assert "us-east-1" not in str(err) and "us-east-1" not in err.allowed
    assert "[secret]" in err.allowed


def test_a_user_error_holding_a_secret_is_scrubbed_and_one_without_kept() -> None:
    raw = stack("aws-h100", gpufabric__instanceType="p5.48xlarg-" + SECRET)
    err = refusal(raw, ("gpufabric:instanceType",))
    assert SECRET not in str(err) and "[secret]" in str(err)
    # secrets that the error does not hold leave it as it is
    raw = stack("aws-h100", gpufabric__instanceType="p5.48xlarg", gpufabric__clusterName=SECRET)
    err = refusal(raw, ("gpufabric:clusterName",))
    assert str(err).startswith("gpufabric:instanceType: 'p5.48xlarg' is not valid; did you mean")


def _rule_raising(monkeypatch: pytest.MonkeyPatch, error: UserError) -> None:
    """The stack's cloud rules raise `error` (a cloud's own rules may raise any UserError)."""

    def check(cfg: Any, itype: Any) -> None:
        raise error

    monkeypatch.setattr(load.registry.module("aws", "rules"), "check", check)


def test_a_plain_user_error_from_a_rule_holding_a_secret_is_scrubbed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _rule_raising(monkeypatch, InputError("ssh config", f"host {SECRET} cannot be reached"))
    raw = stack("aws-h100", gpufabric__clusterName=SECRET)
    err = refusal(raw, ("gpufabric:clusterName",))
    assert type(err) is UserError
    assert str(err) == "ssh config: host [secret] cannot be reached"
    assert err.__cause__ is None and err.__suppress_context__


def test_a_plain_user_error_holding_no_secret_is_raised_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # its own type (and exit code) kept, whether secrets are set or not
    raised = InputError("ssh config", "no host")
    _rule_raising(monkeypatch, raised)
    raw = stack("aws-h100", gpufabric__clusterName=SECRET)
    assert refusal(raw, ("gpufabric:clusterName",)) is raised
    assert refusal(raw) is raised
    assert refusal(raw, ("gpufabric:absent",)) is raised


def test_a_missing_key_is_raised_as_missing_whatever_the_secrets() -> None:
    err = refusal(stack("aws-h100", gpufabric__nodes=None, gpufabric__clusterName=SECRET),
                  ("gpufabric:clusterName",))  # fmt: skip
    assert isinstance(err, MissingConfigError)
    assert str(err) == "gpufabric:nodes: not set; required: an integer number of GPU nodes, 1-4096"


# --- the Pulumi program's entry -----------------------------------------------------------


@pytest.fixture
def pulumi_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Config as Pulumi hands it to the program: PULUMI_CONFIG (JSON text values) and the
    secret keys; no config set in-process."""
    import pulumi
    from pulumi.runtime import config as runtime_config

    token = runtime_config.CONFIG.set({})
    secret_token = runtime_config._SECRET_KEYS.set(set())
    monkeypatch.setattr(pulumi, "get_stack", lambda: "aws-h100")
    yield monkeypatch
    runtime_config.CONFIG.reset(token)
    runtime_config._SECRET_KEYS.reset(secret_token)


def _as_pulumi(raw: dict[str, Any]) -> str:
    return json.dumps({k: v if isinstance(v, str) else json.dumps(v) for k, v in raw.items()})


def test_the_program_reads_pulumis_config_through_the_same_checks(
    pulumi_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    raw = read_stack(REPO, "aws-h100")
    pulumi_env.setenv("PULUMI_CONFIG", _as_pulumi(raw))
    cfg = load.from_pulumi()
    assert (cfg.stack, cfg.nodes, cfg.region) == ("aws-h100", 16, "us-east-1")
    assert load.from_pulumi(tmp_path).nodes == 16  # no stack file there: none read
    assert load.secret_config_keys() == []
    assert load.secret_config_value_texts() == []


def test_the_programs_stack_file_is_read_strictly_first(
    pulumi_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pulumi_env.setenv("PULUMI_CONFIG", _as_pulumi(read_stack(REPO, "aws-h100")))
    (tmp_path / "Pulumi.aws-h100.yaml").write_text("config:\n  a: 1\n  a: 2\n")
    with pytest.raises(UserError) as err:
        load.from_pulumi(tmp_path)
    assert (
        str(err.value) == f"{tmp_path / 'Pulumi.aws-h100.yaml'}: line 3: key 'a' given twice (YAML)"
    )


def test_the_programs_secret_keys_keep_their_values_out_of_errors(
    pulumi_env: pytest.MonkeyPatch,
) -> None:
    raw = {**read_stack(REPO, "aws-h100"), "gpufabric:nodes": SECRET}
    pulumi_env.setenv("PULUMI_CONFIG", _as_pulumi(raw))
    pulumi_env.setenv("PULUMI_CONFIG_SECRET_KEYS", json.dumps(["gpufabric:nodes"]))
    assert load.secret_config_keys() == ["gpufabric:nodes"]
    assert load.secret_config_value_texts() == [SECRET]
    with pytest.raises(ConfigError) as err:
        load.from_pulumi()
    assert (
        str(err.value) == "gpufabric:nodes: [secret] is not valid; input should be a valid integer"
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [("16", 16), ('{"a": [1, true]}', {"a": [1, True]}), ("us-east-1", "us-east-1"), (7, 7)],
)
def test_pulumi_passes_structured_and_numeric_values_as_json_text(text: Any, value: Any) -> None:
    assert load._decode("gpufabric:x", text) == value


def test_a_shorter_secret_inside_a_longer_one_leaves_no_piece_of_it() -> None:
    assert scrub("x ab", ["b", "ab"]) == "x [secret]"
    assert scrub("x ab", ["ab", "b"]) == "x [secret]"


def test_an_instance_type_that_is_no_string_is_one_line() -> None:
    err = refusal(stack("aws-h100", gpufabric__instanceType=["p5.48xlarge"]))
    assert str(err).startswith("gpufabric:instanceType: ['p5.48xlarge'] is not valid; ")


def test_a_description_is_empty_where_there_is_none() -> None:
    model = load.registry.module("aws", "settings").CONFIG
    assert load._description(model, []) == ""
    assert load._description(model, ["stack"]) == ""


def test_the_programs_stack_file_names_the_project_in_its_example(
    pulumi_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pulumi_env.setenv("PULUMI_CONFIG", _as_pulumi(read_stack(REPO, "aws-h100")))
    (tmp_path / "Pulumi.aws-h100.yaml").write_text("config:\n  a:b:c: 1\n")
    with pytest.raises(UserError) as err:
        load.from_pulumi(tmp_path)
    assert str(err.value) == (
        f"{tmp_path / 'Pulumi.aws-h100.yaml'}: config key 'a:b:c' is not of the form "
        "<namespace>:<name> (e.g. gpufabric:nodes)"
    )


def test_a_pulumi_config_value_gpufabric_refuses_names_its_key(
    pulumi_env: pytest.MonkeyPatch,
) -> None:
    raw = {**read_stack(REPO, "aws-h100")}
    text = _as_pulumi(raw)[:-1] + ', "gpufabric:capacity": "{\\"a\\": 1, \\"a\\": 2}"}'
    pulumi_env.setenv("PULUMI_CONFIG", text)
    with pytest.raises(UserError) as err:
        load.from_pulumi()
    assert str(err.value) == "gpufabric:capacity: key 'a' given twice in one JSON object"


def test_keys_pulumi_marks_secret_in_process_are_secret_too(
    pulumi_env: pytest.MonkeyPatch,
) -> None:
    from pulumi.runtime import config as runtime_config

    raw = {**read_stack(REPO, "aws-h100"), "gpufabric:clusterName": SECRET}
    pulumi_env.setenv("PULUMI_CONFIG", _as_pulumi(raw))
    runtime_config._SECRET_KEYS.set({"gpufabric:clusterName"})
    assert load.secret_config_keys() == ["gpufabric:clusterName"]


def test_an_error_inside_a_secret_section_hides_its_whole_value() -> None:
    raw = stack("aws-h100", gpufabric__storage={"capacityGib": 1200})
    err = refusal(raw, ("gpufabric:storage",))
    assert str(err) == (
        "gpufabric:storage.type: [secret] is not valid; unable to extract tag using "
        "discriminator 'type'"
    )


def test_a_clouds_one_storage_type_is_named_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cloud of one's own (the test-only Sixth) whose stack takes one storage type."""
    from typing import Annotated

    import yaml
    from pydantic import Field
    from tests.unit.test_sixth_cloud import STACK

    from gpufabric.catalog import catalog

    monkeypatch.syspath_prepend(str(REPO / "tests" / "clouds"))
    monkeypatch.setenv("GPUFABRIC_CLOUDS", "sixth=sixthcloud")
    settings = load.registry.module("sixth", "settings")

    class ScratchOnly(settings.SixthStackConfig):
        storage: Annotated[settings.SixthScratch, Field(discriminator="type")] = None  # pyright: ignore

    monkeypatch.setattr(settings, "CONFIG", ScratchOnly)
    raw = {**yaml.safe_load(STACK)["config"], "gpufabric:storage": {"type": "none"}}
    catalog.cache_clear()  # read again with Sixth's instances.yaml, and again after
    try:
        err = refusal(raw)
    finally:
        catalog.cache_clear()
    assert str(err) == "gpufabric:storage.type: 'none' is not valid; on Sixth use sixth-scratch"
