"""The live cloud clients at their edges: the OCI SDK config and paging, the clients made when
none is given, which attachments and VNICs are read; the Nebius SDK's credentials and its error
lines; the Nebius token's refusals; the EFA layout's refusals and slots."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpufabric.catalog import lookup
from gpufabric.clouds.aws.efa import NicSlot, nic_layout
from gpufabric.clouds.nebius import token
from gpufabric.errors import UserError

# --- OCI -------------------------------------------------------------------------------------


def _oci_config(home: Path) -> None:
    key = home / "key.pem"
    key.write_text("not a key")
    (home / ".oci").mkdir()
    (home / ".oci" / "config").write_text(
        f"[DEFAULT]\nuser=ocid1.user.oc1..u\nfingerprint=aa:bb\nkey_file={key}\n"
        "tenancy=ocid1.tenancy.oc1..t\nregion=eu-frankfurt-1\n"
    )


def test_oci_sdk_config_is_the_profile_with_the_stacks_region(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import sdk_config

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OCI_CLI_PROFILE", raising=False)
    _oci_config(tmp_path)
    config = sdk_config("us-ashburn-1", "OCI node discovery")
    assert config["region"] == "us-ashburn-1"
    assert config["tenancy"] == "ocid1.tenancy.oc1..t"


def test_oci_sdk_config_reads_the_profile_oci_cli_profile_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import sdk_config

    monkeypatch.setenv("HOME", str(tmp_path))
    _oci_config(tmp_path)
    with (tmp_path / ".oci" / "config").open("a") as config:
        config.write("[TRAINING]\nuser=ocid1.user.oc1..training\n")
    monkeypatch.delenv("OCI_CLI_PROFILE", raising=False)
    assert sdk_config("us-ashburn-1", "x")["user"] == "ocid1.user.oc1..u"
    monkeypatch.setenv("OCI_CLI_PROFILE", "TRAINING")
    assert sdk_config("us-ashburn-1", "x")["user"] == "ocid1.user.oc1..training"
    monkeypatch.setenv("OCI_CLI_PROFILE", "OTHER")
    with pytest.raises(UserError) as err:
        sdk_config("us-ashburn-1", "OCI node discovery")
    assert str(err.value).startswith("OCI node discovery: Profile 'OTHER' not found")
    assert "\n" not in str(err.value)


def test_oci_sdk_config_without_a_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import sdk_config

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OCI_CONFIG_FILE", raising=False)
    with pytest.raises(UserError) as err:
        sdk_config("us-ashburn-1", "OCI capacity")
    assert str(err.value).startswith("OCI capacity: Could not find config file at ")
    assert "\n" not in str(err.value)


def test_oci_sdk_config_naming_a_key_file_that_is_not_there_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import sdk_config

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("OCI_CLI_PROFILE", raising=False)
    _oci_config(tmp_path)
    (tmp_path / "key.pem").unlink()
    with pytest.raises(UserError) as err:
        sdk_config("us-ashburn-1", "OCI node discovery")
    message = str(err.value)
    assert message.startswith("OCI node discovery: Config file ") and "key_file" in message
    assert "\n" not in message


def test_oci_pages_reads_collections_and_single_answers() -> None:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import pages

    answers = {
        None: SimpleNamespace(data=SimpleNamespace(items=[1, 2]), next_page="p2"),
        "p2": SimpleNamespace(data=[3], next_page="p3"),
        "p3": SimpleNamespace(data=SimpleNamespace(items=[4]), next_page=None),
    }
    asked: list[Any] = []

    def listing(**kw: Any) -> Any:
        asked.append(kw)
        return answers[kw.get("page")]

    assert pages("List", listing) == [1, 2, 3, 4]
    assert asked == [{}, {"page": "p2"}, {"page": "p3"}]
    one = SimpleNamespace(id="v1")
    assert pages("Get", lambda: SimpleNamespace(data=one)) == [one]


def test_oci_service_error_without_a_message_names_its_code() -> None:
    oci = pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import pages

    def refusing() -> Any:
        raise oci.exceptions.ServiceError(401, "NotAuthenticated", {}, None)

    with pytest.raises(UserError) as err:
        pages("GetVnic v1", refusing)
    assert str(err.value) == "oci GetVnic v1: 401 NotAuthenticated"


def test_oci_errors_name_the_call_and_region() -> None:
    oci = pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import OciApi

    class Network:
        def get_vnic(self, vnic_id: str) -> Any:
            raise oci.exceptions.ServiceError(404, "NotFound", {}, "no such vnic")

    api = OciApi("us-ashburn-1", object(), object(), Network())
    with pytest.raises(UserError) as err:
        api.vnic("ocid1.vnic.v9")
    assert str(err.value) == "oci GetVnic ocid1.vnic.v9 in us-ashburn-1: 404 no such vnic"


@pytest.mark.parametrize("given", [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)])
def test_oci_clients_not_given_are_made_from_the_sdk_config(
    monkeypatch: pytest.MonkeyPatch, given: tuple[int, ...]
) -> None:
    oci = pytest.importorskip("oci")
    from gpufabric.clouds.oci import live

    asked: list[tuple[str, str]] = []

    def sdk_config(region: str, what: str) -> dict[str, Any]:
        asked.append((region, what))
        return {"region": region}

    def client(kind: str) -> Any:
        return lambda config: (kind, config["region"])

    monkeypatch.setattr(live, "sdk_config", sdk_config)
    monkeypatch.setattr(oci.core, "ComputeManagementClient", client("management"))
    monkeypatch.setattr(oci.core, "ComputeClient", client("compute"))
    monkeypatch.setattr(oci.core, "VirtualNetworkClient", client("network"))
    mine = ["mine-management", "mine-compute", "mine-network"]
    args = [mine[i] if i in given else None for i in range(3)]
    api = live.OciApi("us-ashburn-1", *args)
    made = [
        ("management", "us-ashburn-1"),
        ("compute", "us-ashburn-1"),
        ("network", "us-ashburn-1"),
    ]
    for i in given:
        made[i] = mine[i]  # type: ignore[call-overload]
    assert [api.compute_management, api.compute, api.network] == made
    assert asked == [("us-ashburn-1", "OCI node discovery")]
    assert api.region == "us-ashburn-1"


@pytest.mark.parametrize(
    ("fingerprint", "key", "line"),
    [
        ("aa:bb", "", "InvalidConfig: {'fingerprint': 'malformed'}"),
        ("11:22:33:44:55:66:77:88:99:00:aa:bb:cc:dd:ee:ff", "not a key", "InvalidPrivateKey: "),
    ],
)
@pytest.mark.parametrize("reader", ["OCI node discovery", "OCI capacity"])
def test_oci_a_config_the_sdk_clients_refuse_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fingerprint: str,
    key: str,
    line: str,
    reader: str,
) -> None:
    """Node discovery and the capacity reader make their clients from the same config."""
    pytest.importorskip("oci")
    from gpufabric.clouds.oci import capacity, live

    (tmp_path / "key.pem").write_text(key)
    config = {
        "user": "ocid1.user.oc1..aaaa",
        "fingerprint": fingerprint,
        "key_file": str(tmp_path / "key.pem"),
        "tenancy": "ocid1.tenancy.oc1..aaaa",
        "region": "us-ashburn-1",
    }
    monkeypatch.setattr(live, "sdk_config", lambda region, what: config)
    make = {"OCI node discovery": live.OciApi, "OCI capacity": capacity.CapacityClient}[reader]
    with pytest.raises(UserError) as err:
        make("us-ashburn-1")
    assert str(err.value).startswith(f"{reader}: {line}")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("missing", [1, 2])
def test_oci_each_client_made_names_node_discovery_when_its_config_is_refused(
    monkeypatch: pytest.MonkeyPatch, missing: int
) -> None:
    """The clients not given are made from the config one by one; whichever the SDK refuses,
    the line names node discovery."""
    pytest.importorskip("oci")
    from gpufabric.clouds.oci import live

    config = {
        "user": "ocid1.user.oc1..aaaa",
        "fingerprint": "aa:bb",
        "key_file": "/nonexistent/key.pem",
        "tenancy": "ocid1.tenancy.oc1..aaaa",
        "region": "us-ashburn-1",
    }
    monkeypatch.setattr(live, "sdk_config", lambda region, what: config)
    given: list[Any] = ["m", "c", "n"]
    given[missing] = None
    with pytest.raises(UserError) as err:
        live.OciApi("us-ashburn-1", *given)
    assert str(err.value) == "OCI node discovery: InvalidConfig: {'fingerprint': 'malformed'}"


def test_oci_all_clients_given_need_no_config(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci import live

    def sdk_config(region: str, what: str) -> dict[str, Any]:
        raise AssertionError("no config needed")

    monkeypatch.setattr(live, "sdk_config", sdk_config)
    api = live.OciApi("r", "m", "c", "n")
    assert (api.compute_management, api.compute, api.network) == ("m", "c", "n")


class _Api:
    """OciApi's three calls, answered from dicts (as kebab() makes them)."""

    def __init__(self, pool: list[dict[str, Any]], attachments: list[dict[str, Any]]) -> None:
        self.pool, self.attachments = pool, attachments
        self.asked: list[tuple[str, ...]] = []

    def pool_instances(self, compartment: str, pool_id: str) -> list[dict[str, Any]]:
        self.asked.append(("pool", compartment, pool_id))
        return [i for i in self.pool if i["pool"] == pool_id]

    def vnic_attachments(self, compartment: str, instance_id: str) -> list[dict[str, Any]]:
        self.asked.append(("attachments", compartment, instance_id))
        return [a for a in self.attachments if a["instance-id"] == instance_id]

    def vnic(self, vnic_id: str) -> dict[str, Any]:
        self.asked.append(("vnic", vnic_id))
        return {"id": vnic_id}


def test_oci_listings_read_running_instances_and_attached_vnics_only() -> None:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import listings

    pool = [
        {"id": "i1", "pool": "p1", "state": "RUNNING"},
        {"id": "i2", "pool": "p1", "state": "Stopped"},
        {"id": "i3", "pool": "p2"},
        {"id": "i4", "pool": "p2", "state": "Running"},
    ]
    attachments = [
        {"instance-id": "i1", "vnic-id": "v1", "lifecycle-state": "ATTACHED"},
        {"instance-id": "i1", "vnic-id": "v1b", "lifecycle-state": "DETACHING"},
        {"instance-id": "i4", "vnic-id": "v4"},
        {"instance-id": "i4", "vnic-id": None},
        {"instance-id": "i2", "vnic-id": "v2"},
    ]
    api = _Api(pool, attachments)
    docs = listings(api, "c1", ["p1", "p2"])  # type: ignore[arg-type]
    assert docs == [
        ("oci ListInstancePoolInstances", {"data": pool}),
        ("oci ListVnicAttachments", {"data": attachments[:4]}),
        ("oci GetVnic", {"data": [{"id": "v1"}, {"id": "v4"}]}),
    ]
    assert [a for a in api.asked if a[0] != "vnic"] == [
        ("pool", "c1", "p1"),
        ("pool", "c1", "p2"),
        ("attachments", "c1", "i1"),
        ("attachments", "c1", "i4"),
    ]


def test_oci_listings_leave_empty_listings_out() -> None:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import listings

    api = _Api([{"id": "i1", "pool": "p1", "state": "Stopped"}], [])
    assert listings(api, "c1", ["p1"]) == [  # type: ignore[arg-type]
        (
            "oci ListInstancePoolInstances",
            {"data": [{"id": "i1", "pool": "p1", "state": "Stopped"}]},
        )
    ]
    assert listings(_Api([], []), "c1", ["p1"]) == []  # type: ignore[arg-type]


def test_oci_kebab_is_the_clis_key_spelling() -> None:
    oci = pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import kebab

    model = oci.core.models.VnicAttachment(vnic_id="v1", lifecycle_state="ATTACHED")
    found = kebab(model)
    assert found["vnic-id"] == "v1" and found["lifecycle-state"] == "ATTACHED"
    assert not any("_" in key for key in found)


def test_oci_api_asks_for_the_pool_attachments_and_vnic_it_is_given() -> None:
    oci = pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import OciApi

    asked: list[Any] = []

    class Management:
        def list_instance_pool_instances(self, compartment: str, pool: str, **kw: Any) -> Any:
            asked.append(("pool", compartment, pool, kw))
            return SimpleNamespace(data=[oci.core.models.InstanceSummary(id="i1")])

    class Compute:
        def list_vnic_attachments(self, compartment: str, **kw: Any) -> Any:
            asked.append(("attachments", compartment, kw))
            return SimpleNamespace(data=[oci.core.models.VnicAttachment(vnic_id="v1")])

    class Network:
        def get_vnic(self, vnic_id: str) -> Any:
            asked.append(("vnic", vnic_id))
            return SimpleNamespace(data=oci.core.models.Vnic(private_ip="10.0.0.1"))

    api = OciApi("r", Management(), Compute(), Network())
    assert api.pool_instances("c1", "p1")[0]["id"] == "i1"
    assert api.vnic_attachments("c1", "i1")[0]["vnic-id"] == "v1"
    assert api.vnic("v1")["private-ip"] == "10.0.0.1"
    assert asked == [
        ("pool", "c1", "p1", {}),
        ("attachments", "c1", {"instance_id": "i1"}),
        ("vnic", "v1"),
    ]


# --- Nebius ----------------------------------------------------------------------------------


class _SDK:
    made: list[dict[str, Any]]

    def __init__(self, **kwargs: Any) -> None:
        type(self).made.append(kwargs)


def test_nebius_sdk_uses_the_iam_token_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("nebius")
    import nebius.aio.token.static
    import nebius.sdk

    from gpufabric.clouds.nebius.live import sdk

    class SDK(_SDK):
        made = []

    monkeypatch.setattr(nebius.sdk, "SDK", SDK)
    monkeypatch.setattr(nebius.aio.token.static, "EnvBearer", lambda name: ("env", name))
    monkeypatch.setenv("NEBIUS_IAM_TOKEN", "t1.abc")
    assert isinstance(sdk("Nebius node discovery"), SDK)
    assert SDK.made == [
        {"credentials": ("env", "NEBIUS_IAM_TOKEN"), "user_agent_prefix": "gpufabric"}
    ]


def test_nebius_sdk_without_a_token_reads_the_cli_config(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("nebius")
    import nebius.aio.cli_config
    import nebius.sdk

    from gpufabric.clouds.nebius.live import sdk

    class SDK(_SDK):
        made = []

    monkeypatch.setattr(nebius.sdk, "SDK", SDK)
    monkeypatch.setattr(nebius.aio.cli_config, "Config", lambda: "cli-config")
    monkeypatch.setenv("NEBIUS_IAM_TOKEN", "")
    assert isinstance(sdk("x"), SDK)
    assert SDK.made == [{"config_reader": "cli-config", "user_agent_prefix": "gpufabric"}]


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (OSError("no such file\nmore"), "no such file"),
        (ValueError(""), "ValueError"),
        ("config", "bad profile"),
    ],
)
def test_nebius_sdk_with_a_config_it_refuses_is_one_line(
    monkeypatch: pytest.MonkeyPatch, error: Any, line: str
) -> None:
    pytest.importorskip("nebius")
    import nebius.aio.cli_config
    import nebius.sdk

    from gpufabric.clouds.nebius.live import sdk

    if error == "config":
        error = nebius.aio.cli_config.ConfigError("bad profile")

    def refusing(**kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(nebius.sdk, "SDK", refusing)
    monkeypatch.setattr(nebius.aio.cli_config, "Config", lambda: "cli-config")
    monkeypatch.delenv("NEBIUS_IAM_TOKEN", raising=False)
    with pytest.raises(UserError) as err:
        sdk("Nebius node discovery")
    assert str(err.value) == f"Nebius node discovery: the Nebius CLI config: {line}"


def test_nebius_api_without_a_client_makes_the_instance_service(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("nebius")
    import nebius.api.nebius.compute.v1 as compute

    from gpufabric.clouds.nebius import live

    asked: list[str] = []

    def sdk(purpose: str) -> Any:
        asked.append(purpose)
        return "the-sdk"

    monkeypatch.setattr(live, "sdk", sdk)
    monkeypatch.setattr(compute, "InstanceServiceClient", lambda channel: ("service", channel))
    assert live.NebiusApi().instances == ("service", "the-sdk")
    assert asked == ["Nebius node discovery"]
    assert live.NebiusApi("given").instances == "given"
    assert asked == ["Nebius node discovery"]


def test_nebius_request_error_without_text_names_its_type() -> None:
    pytest.importorskip("nebius")
    from nebius.aio.service_error import RequestError

    from gpufabric.clouds.nebius.live import NebiusApi

    class Silent(RequestError):
        def __str__(self) -> str:
            return ""

    class Instances:
        def list(self, request: Any) -> Any:
            def fail() -> Any:
                raise Silent(SimpleNamespace(code="UNAVAILABLE"))  # type: ignore[arg-type]

            return SimpleNamespace(wait=fail)

    with pytest.raises(UserError) as err:
        NebiusApi(Instances()).list_instances("project-e00x")
    assert str(err.value) == "nebius InstanceService.List project-e00x: Silent"


# --- Nebius token ----------------------------------------------------------------------------


def _key_file(tmp_path: Path) -> Path:
    creds = tmp_path / "credentials.json"
    creds.write_text("{}")
    return creds


def test_token_a_key_file_missing_a_field_says_so(tmp_path: Path) -> None:
    class Refusing:
        def __init__(self, **kwargs: Any) -> None:
            raise KeyError("subject-credentials")

    creds = _key_file(tmp_path)
    with pytest.raises(UserError) as err:
        token.fetch(creds, Refusing)
    assert str(err.value) == (
        f"nebius token exchange for {creds}: "
        "the file has no 'subject-credentials' (not a service account key file)"
    )


def test_token_an_error_without_text_names_its_type(tmp_path: Path) -> None:
    class Refusing:
        def __init__(self, **kwargs: Any) -> None:
            raise TimeoutError()

    creds = _key_file(tmp_path)
    with pytest.raises(UserError) as err:
        token.fetch(creds, Refusing)
    assert str(err.value) == f"nebius token exchange for {creds}: TimeoutError"


def test_token_an_empty_token_is_refused(tmp_path: Path) -> None:
    class Empty:
        def __init__(self, **kwargs: Any) -> None:
            pass

        def get_token_sync(self, timeout: float) -> Any:
            return SimpleNamespace(token="")

    creds = _key_file(tmp_path)
    with pytest.raises(UserError) as err:
        token.fetch(creds, Empty)
    assert str(err.value) == f"nebius token exchange for {creds}: an empty token"


def test_token_a_directory_is_not_a_key_file(tmp_path: Path) -> None:
    with pytest.raises(UserError) as err:
        token.fetch(tmp_path, object())
    assert str(err.value) == (f"{tmp_path}: not a regular file (the service account's key file)")


def test_token_main_prints_the_installed_sdks_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("nebius")
    import nebius.sdk

    made: list[dict[str, Any]] = []
    waited: list[float] = []

    class SDK:
        def __init__(self, **kwargs: Any) -> None:
            made.append(kwargs)

        def get_token_sync(self, timeout: float) -> Any:
            waited.append(timeout)
            return SimpleNamespace(token="t1.xyz")

    monkeypatch.setattr(nebius.sdk, "SDK", SDK)
    creds = _key_file(tmp_path)
    token.main(creds)
    assert capsys.readouterr().out == "t1.xyz\n"
    assert made == [{"credentials_file_name": str(creds), "user_agent_prefix": "gpufabric"}]
    assert waited == [60.0]


# --- EFA layout ------------------------------------------------------------------------------


def test_efa_layout_slots_in_launch_template_order() -> None:
    p5 = lookup("p5.48xlarge")
    assert nic_layout(p5, "efa-primary")[:3] == [
        NicSlot(0, 0, "efa"),
        NicSlot(1, 0, "efa-only"),
        NicSlot(2, 0, "efa-only"),
    ]
    ena = nic_layout(p5, "ena-primary")
    assert ena[:3] == [
        NicSlot(0, 0, "interface"),
        NicSlot(0, 1, "efa-only"),
        NicSlot(1, 0, "efa-only"),
    ]
    assert ena[-1] == NicSlot(31, 0, "efa-only") and len(ena) == 33


def test_efa_slot_flags() -> None:
    assert NicSlot(0, 0, "interface").is_primary and not NicSlot(0, 0, "interface").has_efa
    assert not NicSlot(0, 1, "efa-only").is_primary and NicSlot(0, 1, "efa-only").has_efa
    assert not NicSlot(1, 0, "efa").is_primary and NicSlot(1, 0, "efa").has_efa


def test_efa_layout_refuses_a_type_of_another_cloud() -> None:
    with pytest.raises(ValueError, match=r"^a3-megagpu-8g is not an AWS instance type$"):
        nic_layout(lookup("a3-megagpu-8g"), "efa-primary")


def test_efa_layout_refuses_more_cards_than_efa_devices() -> None:
    p5 = lookup("p5.48xlarge")
    odd = p5.model_copy(update={"wiring": p5.wiring.model_copy(update={"efa_devices": 16})})
    with pytest.raises(ValueError) as err:
        nic_layout(odd, "efa-primary")
    assert str(err.value) == (
        "p5.48xlarge: 16 EFA devices on 32 cards; this layout assumes one EFA per card"
    )


# --- without the cloud's SDK -----------------------------------------------------------------


def _without(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    import gpufabric.extras

    real = gpufabric.extras.find_spec
    monkeypatch.setattr(
        gpufabric.extras, "find_spec", lambda name: None if name == module else real(name)
    )


def test_without_the_nebius_sdk_the_token_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without(monkeypatch, "nebius")
    with pytest.raises(UserError) as err:
        token.fetch(_key_file(tmp_path))
    assert str(err.value).startswith("the Nebius login needs the nebius extra (nebius is not")


def test_without_the_nebius_sdk_discovery_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufabric.clouds.nebius.live import NebiusApi, sdk

    _without(monkeypatch, "nebius")
    with pytest.raises(UserError, match=r"^purpose needs the nebius extra \(nebius is not"):
        sdk("purpose")
    with pytest.raises(UserError, match=r"^Nebius node discovery needs the nebius extra"):
        NebiusApi("given").list_instances("project-e00x")


def test_without_the_oci_sdk_its_config_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufabric.clouds.oci.live import sdk_config

    _without(monkeypatch, "oci")
    with pytest.raises(UserError, match=r"^OCI capacity needs the oci extra \(oci is not"):
        sdk_config("us-ashburn-1", "OCI capacity")


def test_oci_attachments_follow_every_page_and_errors_name_the_instance() -> None:
    oci = pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import OciApi

    class Compute:
        calls = 0

        def list_vnic_attachments(self, compartment: str, **kw: Any) -> Any:
            Compute.calls += 1
            assert Compute.calls <= 2, "the second page was not asked for"
            if kw.get("page") is None:
                return SimpleNamespace(
                    data=[oci.core.models.VnicAttachment(vnic_id="v1")], next_page="p2"
                )
            return SimpleNamespace(data=[oci.core.models.VnicAttachment(vnic_id="v2")])

    class Refusing:
        def list_vnic_attachments(self, compartment: str, **kw: Any) -> Any:
            raise oci.exceptions.ServiceError(429, "TooManyRequests", {}, "slow down")

    found = OciApi("r", object(), Compute(), object()).vnic_attachments("c1", "i1")
    assert [a["vnic-id"] for a in found] == ["v1", "v2"]
    with pytest.raises(UserError) as err:
        OciApi("r", object(), Refusing(), object()).vnic_attachments("c1", "i1")
    assert str(err.value) == "oci ListVnicAttachments i1 in r: 429 slow down"


def test_oci_pool_instances_follow_every_page() -> None:
    oci = pytest.importorskip("oci")
    from gpufabric.clouds.oci.live import OciApi

    class Management:
        calls = 0

        def list_instance_pool_instances(self, compartment: str, pool: str, **kw: Any) -> Any:
            Management.calls += 1
            assert Management.calls <= 2, "the second page was not asked for"
            if kw.get("page") is None:
                first = [oci.core.models.InstanceSummary(id="i1")]
                return SimpleNamespace(data=first, next_page="p2")
            return SimpleNamespace(data=[oci.core.models.InstanceSummary(id="i2")])

    found = OciApi("r", Management(), object(), object()).pool_instances("c1", "p1")
    assert [i["id"] for i in found] == ["i1", "i2"]
