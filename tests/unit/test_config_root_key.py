"""A root volume's key is taken only where the cloud declares its format: on the test-only
Sixth cloud (tests/clouds/sixthcloud), whose stack model keeps the shared root volume, a key is
one line naming it; once its model declares a format, the key is taken in that format."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.unit.test_sixth_cloud import STACK

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _catalog_read_afresh() -> Iterator[None]:
    """The catalog is loaded once per process: read it again with Sixth's instances.yaml, and
    again after, for the tests that run next without Sixth."""
    from gpufabric.catalog import catalog

    catalog.cache_clear()
    yield
    catalog.cache_clear()


def _sixth_config(monkeypatch: pytest.MonkeyPatch, root_volume: dict[str, Any]) -> Any:
    """A Sixth stack's config parsed in-process, with `gpufabric:rootVolume` set."""
    import yaml

    from gpufabric.config.load import parse

    monkeypatch.syspath_prepend(str(REPO / "tests" / "clouds"))
    monkeypatch.setenv("GPUFABRIC_CLOUDS", "sixth=sixthcloud")
    raw = {**yaml.safe_load(STACK)["config"], "gpufabric:rootVolume": root_volume}
    return parse(raw, "sixth-demo")


def test_a_root_key_is_refused_where_the_cloud_declares_no_format(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sixth's stack model keeps the shared RootVolume: a key there would pass unchecked and
    unused, so it is one line naming the key."""
    from gpufabric.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        _sixth_config(monkeypatch, {"kmsKeyId": "arn:aws:kms:us-east-1:1:key/x"})
    assert str(err.value) == (
        "gpufabric:rootVolume.kmsKeyId: 'arn:aws:kms:us-east-1:1:key/x' is not valid; Sixth "
        "declares no key format for root volumes: leave it unset (root volumes keep the "
        "cloud's own encryption)"
    )
    assert _sixth_config(monkeypatch, {"sizeGib": 600}).root_volume.kms_key_id is None


def test_a_cloud_that_declares_the_format_takes_the_key_in_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from typing import Annotated

    from pydantic import AfterValidator

    from gpufabric.clouds import registry
    from gpufabric.config.model import RootVolume
    from gpufabric.errors import ConfigError

    monkeypatch.syspath_prepend(str(REPO / "tests" / "clouds"))
    monkeypatch.setenv("GPUFABRIC_CLOUDS", "sixth=sixthcloud")
    settings = registry.module("sixth", "settings")

    def sixth_key(value: str) -> str:
        if not value.startswith("sixth-key/"):
            raise ValueError("must be a Sixth key (sixth-key/NAME)")
        return value

    class SixthRootVolume(RootVolume):
        kms_key_id: Annotated[str, AfterValidator(sixth_key)] | None = None  # pyright: ignore[reportIncompatibleVariableOverride]

    class Declaring(settings.SixthStackConfig):
        root_volume: SixthRootVolume = SixthRootVolume()  # pyright: ignore[reportIncompatibleVariableOverride]

    monkeypatch.setattr(settings, "CONFIG", Declaring)
    cfg = _sixth_config(monkeypatch, {"kmsKeyId": "sixth-key/boot"})
    assert cfg.root_volume.kms_key_id == "sixth-key/boot"
    with pytest.raises(ConfigError, match=r"must be a Sixth key \(sixth-key/NAME\)"):
        _sixth_config(monkeypatch, {"kmsKeyId": "alias/x"})
