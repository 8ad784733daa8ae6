"""OCI and Nebius storage mount points (written into cloud-init and into the mount command) are
typed: shell and YAML metacharacters and '..' are refused naming the key. Constructed values."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit import test_config_nebius as nebius
from tests.unit import test_config_oci as oci

from gpufabric.config import parse
from gpufabric.errors import ConfigError

HOSTILE = ['/shared"x', "/lustre;reboot", "/lustre$(id)", "/shared/../etc", "/a b", "/x\nmounts:"]
STACKS = {"oci": (oci.BASE, oci.LUSTRE), "nebius": (nebius.BASE, nebius.FS)}


@pytest.mark.parametrize("cloud", sorted(STACKS))
@pytest.mark.parametrize("path", HOSTILE)
def test_hostile_mount_point_refused(cloud: str, path: str) -> None:
    base, storage = STACKS[cloud]
    raw: dict[str, Any] = {**base, "gpufabric:storage": {**storage, "mountPoint": path}}
    with pytest.raises(ConfigError) as err:
        parse(raw, "test")
    assert str(err.value).startswith(f"gpufabric:storage.mountPoint: {path!r} is not valid; ")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("cloud", sorted(STACKS))
def test_plain_mount_point_taken(cloud: str) -> None:
    base, storage = STACKS[cloud]
    cfg = parse({**base, "gpufabric:storage": {**storage, "mountPoint": "/mnt/fs-1"}}, "test")
    assert cfg.storage is not None
    assert cfg.storage.model_dump()["mount_point"] == "/mnt/fs-1"


@pytest.mark.parametrize("image", ["x;reboot", "ubuntu 22.04", "$(id)", "../x", "a\nb"])
def test_hostile_image_names_refused(image: str) -> None:
    raw = {**nebius.BASE, "gpufabric:nebius": {**nebius.NEB, "imageFamily": image}}
    with pytest.raises(ConfigError) as err:
        parse(raw, "test")
    assert str(err.value).startswith(f"gpufabric:nebius.imageFamily: {image!r} is not valid; ")
