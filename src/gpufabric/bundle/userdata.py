"""Node user data: a cloud-config that fetches the bundle, checks it and runs it locally.

The document is built as data and written with a YAML dumper (never by string formatting):
`write_files` puts the boot script (gpufabric/bundle/boot.py, standard library only) at
/usr/local/sbin/gpufabric-boot and its settings at /etc/gpufabric/boot.json; `runcmd` runs it
once per instance (cloud-init's runcmd frequency). The bundle's URL and sha256 are the only
per-stack values; everything else is fixed.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpufabric.bundle.render import Bundle
from gpufabric.errors import UserError

BOOT_SCRIPT = Path(__file__).with_name("boot.py")
SCRIPT_PATH = "/usr/local/sbin/gpufabric-boot"
CONFIG_PATH = "/etc/gpufabric/boot.json"
RESULT_PATH = "/var/lib/gpufabric/boot-result.json"
LOG_PATH = "/var/log/gpufabric-boot.log"
RUNTIMES = ("wheels", "index")
_URL = re.compile(r"^(file:///|https?://)[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]+$")
_SHA = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class BootConfig:
    url: str
    sha256: str
    version: str
    group: str
    playbooks: tuple[str, ...]
    skip_tags: tuple[str, ...]
    runtime: str = "index"
    auth: dict[str, Any] | None = None
    """How the node's own identity reads a private URL (gpufabric.bundle.boot: `auth`)."""

    def to_dict(self) -> dict[str, Any]:
        auth = {"auth": self.auth} if self.auth else {}
        return auth | {
            "url": self.url,
            "sha256": self.sha256,
            "version": self.version,
            "group": self.group,
            "playbooks": list(self.playbooks),
            "skip_tags": list(self.skip_tags),
            "runtime": self.runtime,
            "result": RESULT_PATH,
            "log": LOG_PATH,
        }


def boot_config(
    bundle: Bundle,
    url: str,
    group: str,
    runtime: str = "index",
    auth: dict[str, Any] | None = None,
) -> BootConfig:
    """The node's settings for `bundle` published at `url`, for node group `group`."""
    if not _URL.match(url):
        raise UserError(f"bundle url {url!r}: a file:///, http:// or https:// URL without spaces")
    if not _SHA.match(bundle.sha256):
        raise UserError(f"bundle sha256 {bundle.sha256!r}: 64 lower-case hex digits")
    if group not in bundle.spec.groups:
        raise UserError(
            f"node group {group!r}: not in the bundle (groups: {', '.join(bundle.spec.groups)})"
        )
    if runtime not in RUNTIMES and not runtime.startswith("python:/"):
        raise UserError(f"runtime {runtime!r}: choose wheels, index or python:/ABSOLUTE/PATH")
    return BootConfig(
        url,
        bundle.sha256,
        bundle.version,
        group,
        tuple(bundle.spec.playbooks),
        tuple(bundle.spec.skip_tags),
        runtime,
        auth,
    )


def _script(compress: bool) -> dict[str, str]:
    text = BOOT_SCRIPT.read_text()
    if not compress:
        return {"content": text}
    # cloud-init's write_files decodes `gz+b64` (base64 of gzip); mtime 0: the same bytes
    # every time, so the user data changes only when the script does
    packed = gzip.compress(text.encode(), compresslevel=9, mtime=0)
    return {"encoding": "gz+b64", "content": base64.b64encode(packed).decode()}


def cloud_config(cfg: BootConfig, compress: bool = False) -> dict[str, Any]:
    """`compress`: the boot script gzipped (what a cloud with a small user-data limit takes)."""
    return {
        "write_files": [
            {
                "path": SCRIPT_PATH,
                "permissions": "0755",
                "owner": "root:root",
                **_script(compress),
            },
            {
                "path": CONFIG_PATH,
                "permissions": "0600",
                "owner": "root:root",
                "content": json.dumps(cfg.to_dict(), indent=2, sort_keys=True) + "\n",
            },
        ],
        "runcmd": [[SCRIPT_PATH, CONFIG_PATH]],
    }


def render(cfg: BootConfig, compress: bool = False) -> str:
    """The user data: `#cloud-config` and the document, dumped by PyYAML."""
    body = yaml.safe_dump(
        cloud_config(cfg, compress), sort_keys=False, default_flow_style=False, width=1000
    )
    return "#cloud-config\n" + body
