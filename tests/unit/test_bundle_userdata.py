"""The node's user data, exactly: the settings file the boot script reads (every key it
reads, none it would fall back from), the cloud-config document cloud-init reads (paths,
modes, owners, the runcmd), its YAML layout, and the gzip that makes it the same every time."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.unit.test_bundle import REPO, _spec

from gpufabric.bundle import render, userdata
from gpufabric.errors import UserError

SHA = "ab" * 32
CFG = userdata.BootConfig(
    "https://b.example/x.tar.gz", SHA, "1.2.3", "gpu_nodes", ("tune-fabric.yml", "health.yml"),
    ("slow",), "wheels", None,
)  # fmt: skip
SETTINGS = {
    "url": "https://b.example/x.tar.gz",
    "sha256": SHA,
    "version": "1.2.3",
    "group": "gpu_nodes",
    "playbooks": ["tune-fabric.yml", "health.yml"],
    "skip_tags": ["slow"],
    "runtime": "wheels",
    "result": "/var/lib/gpufabric/boot-result.json",
    "log": "/var/log/gpufabric-boot.log",
}


def test_the_settings_are_every_key_the_boot_script_reads() -> None:
    """boot.py falls back to defaults for a missing runtime, version, result or log: a key
    written under another name would silently give the node the default."""
    assert CFG.to_dict() == SETTINGS
    auth: dict[str, Any] = {"kind": "bearer", "token_url": "http://169.254.169.254/t"}
    with_auth = userdata.BootConfig(*[getattr(CFG, f) for f in ("url", "sha256", "version",
        "group", "playbooks", "skip_tags", "runtime")], auth=auth)  # fmt: skip
    assert with_auth.to_dict() == {"auth": auth, **SETTINGS}
    assert userdata.RESULT_PATH == "/var/lib/gpufabric/boot-result.json"
    source = userdata.BOOT_SCRIPT.read_text()
    for key in SETTINGS:  # the boot script reads each under the same name
        assert f'cfg["{key}"]' in source or f'cfg.get("{key}"' in source, key


def test_the_cloud_config_document_exactly() -> None:
    assert userdata.cloud_config(CFG) == {
        "write_files": [
            {
                "path": "/usr/local/sbin/gpufabric-boot",
                "permissions": "0755",
                "owner": "root:root",
                "content": userdata.BOOT_SCRIPT.read_text(),
            },
            {
                "path": "/etc/gpufabric/boot.json",
                "permissions": "0600",  # a signed URL in it is a credential
                "owner": "root:root",
                "content": json.dumps(SETTINGS, indent=2, sort_keys=True) + "\n",
            },
        ],
        "runcmd": [["/usr/local/sbin/gpufabric-boot", "/etc/gpufabric/boot.json"]],
    }


def test_the_compressed_script_is_the_same_bytes_every_time() -> None:
    """gzip with mtime 0 and the best compression: the user data changes only when the script
    does (a changed user data replaces a launch template / instance on some clouds)."""
    packed = userdata.cloud_config(CFG, compress=True)["write_files"][0]
    assert packed["encoding"] == "gz+b64"
    raw = base64.b64decode(packed["content"])
    assert raw[4:8] == b"\0\0\0\0"  # MTIME 0 (RFC 1952)
    assert raw[8] == 2  # XFL 2: maximum compression
    assert gzip.decompress(raw).decode() == userdata.BOOT_SCRIPT.read_text()
    assert userdata.render(CFG, compress=True) == userdata.render(CFG, compress=True)


def test_the_rendered_yaml_keeps_its_order_block_style_and_one_line_settings() -> None:
    text = userdata.render(CFG, compress=True)
    lines = text.splitlines()
    assert lines[:6] == [
        "#cloud-config",
        "write_files:",
        "- path: /usr/local/sbin/gpufabric-boot",
        "  permissions: '0755'",
        "  owner: root:root",
        "  encoding: gz+b64",
    ]
    assert lines[6].startswith("  content: H4sI")
    assert lines[7:10] == [
        "- path: /etc/gpufabric/boot.json",
        "  permissions: '0600'",
        "  owner: root:root",
    ]
    assert lines[10].startswith('  content: "{\\n  \\"group\\": \\"gpu_nodes\\",')
    assert lines[11:] == [
        "runcmd:",
        "- - /usr/local/sbin/gpufabric-boot",
        "  - /etc/gpufabric/boot.json",
    ]
    assert yaml.safe_load(text) == userdata.cloud_config(CFG, compress=True)


def test_boot_config_takes_the_bundles_values(tmp_path: Path) -> None:
    b = render.render(_spec(), REPO, tmp_path)
    cfg = userdata.boot_config(b, "file:///srv/x.tar.gz", "gpu_nodes", "python:/opt/py/bin/python")
    assert (cfg.sha256, cfg.version, cfg.group, cfg.runtime) == (
        b.sha256, b.version, "gpu_nodes", "python:/opt/py/bin/python"
    )  # fmt: skip
    assert (cfg.playbooks, cfg.skip_tags) == (tuple(b.spec.playbooks), tuple(b.spec.skip_tags))


def test_boot_config_refusals_are_exact_lines(tmp_path: Path) -> None:
    b = render.render(_spec(groups={"gpu_nodes": {}, "cpu_nodes": {}}), REPO, tmp_path)
    with pytest.raises(UserError) as err:
        userdata.boot_config(b, "https://ok/x", "other")
    assert str(err.value) == "node group 'other': not in the bundle (groups: gpu_nodes, cpu_nodes)"
    bad = render.Bundle(**{**vars(b), "sha256": "AB" * 32})
    with pytest.raises(UserError) as err:
        userdata.boot_config(bad, "https://ok/x", "gpu_nodes")
    assert str(err.value) == f"bundle sha256 {'AB' * 32!r}: 64 lower-case hex digits"
    with pytest.raises(UserError) as err:
        userdata.boot_config(b, "s3://b/x", "gpu_nodes")
    assert str(err.value) == (
        "bundle url 's3://b/x': a file:///, http:// or https:// URL without spaces"
    )
    with pytest.raises(UserError) as err:
        userdata.boot_config(b, "https://ok/x", "gpu_nodes", "conda")
    assert str(err.value) == "runtime 'conda': choose wheels, index or python:/ABSOLUTE/PATH"
