"""Cloud code that writes another program's format through the writers: cloud-init YAML built
by the dumper, mount commands quoted. Hostile values are constructed for these tests."""

from __future__ import annotations

import shlex
from typing import Any

import yaml

from gpufabric.config import parse

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFMWp3s4NJdNa6ti+9HIIEOmZQzdt5n/GoatO3rtzRpH"
NEBIUS: dict[str, Any] = {
    "gpufabric:instanceType": "gpu-h100-sxm/8gpu-128vcpu-1600gb",
    "gpufabric:nodes": 2,
    "gpufabric:zone": "eu-north1",
    "gpufabric:encryption": "none",
    "gpufabric:nodeGroup": "instances",
    "gpufabric:network": {"egress": "none"},
    "gpufabric:storage": {"type": "nebius-filesystem", "filesystemType": "NETWORK_SSD"},
}


def _cloud_init(cfg: Any) -> str:
    # imported here: gpufabric.clouds.nebius.nodes imported before gpufabric.config is a cycle
    from gpufabric.clouds.nebius.nodes import cloud_init

    return cloud_init(cfg)


def _nebius(key_comment: str, user_data: str | None = None) -> Any:
    raw = {
        **NEBIUS,
        "gpufabric:nebius": {
            "projectId": "project-e00abc123",
            "infinibandFabric": "fabric-3",
            "sshPublicKey": f"{KEY} {key_comment}",
        },
    }
    if user_data is not None:
        raw["gpufabric:userData"] = user_data
    return parse(raw, "test")


def test_nebius_cloud_init_key_comment_stays_a_string() -> None:
    """An ssh key comment with ': ' and ' #' (allowed by the key rule) was a YAML mapping and a
    YAML comment when cloud-init was built by string formatting."""
    cfg = _nebius("me: admin #1")
    doc = yaml.safe_load(_cloud_init(cfg))
    assert doc["users"][0]["ssh_authorized_keys"] == [f"{KEY} me: admin #1"]
    assert doc["mounts"] == [["shared", "/shared", "virtiofs", "defaults,nofail", "0", "2"]]


def test_nebius_cloud_init_user_data_kept_byte_for_byte() -> None:
    """User data whose first line is indented lost that indentation inside a `|` block."""
    script = "   #!/bin/sh indented\necho 'a: b'\n\n"
    cfg = _nebius("me", script)
    text = _cloud_init(cfg)
    assert text.startswith("#cloud-config\n")
    assert yaml.safe_load(text)["write_files"][0]["content"] == script


def test_nebius_cloud_init_writes_the_user_data_executable_and_runs_it() -> None:
    script = "#!/bin/sh\necho ready\n"
    doc = yaml.safe_load(_cloud_init(_nebius("me", script)))
    assert doc["write_files"] == [
        {"path": "/var/lib/gpufabric/user-data", "permissions": "0700", "content": script}
    ]
    assert doc["runcmd"] == [["/var/lib/gpufabric/user-data"]]
    user = doc["users"][0]
    assert (user["sudo"], user["shell"]) == ("ALL=(ALL) NOPASSWD:ALL", "/bin/bash")
    without = yaml.safe_load(_cloud_init(_nebius("me")))
    assert "write_files" not in without and "runcmd" not in without


def test_mount_command_is_one_quoted_command() -> None:
    from gpufabric.inputs.writers import shell_words

    words = ["mount", "-t", "lustre", "10.0.0.2@tcp:/lustre", "/lustre"]
    assert shell_words(words, "storage.mountCommand") == " ".join(words)
    assert shlex.split(shell_words([*words[:4], "/a b"], "m")) == [*words[:4], "/a b"]
