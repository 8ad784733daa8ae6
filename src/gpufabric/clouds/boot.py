"""Boot mode in a stack's program (`gpufabric:boot.enabled`): the bundle and the user data.

The program renders the stack's configuration bundle (gpufabric.bundle.render) while it runs,
from the validated config: the node group's variables are those the stack outputs give every
host (gpufabric_* switches), known before any resource exists. Each cloud's package
(gpufabric.clouds.<cloud>.bundle) puts the file in the stack's own private object storage,
lets the nodes' identity read it, and hands this module the object's URL; the nodes' user data
is then the cloud-config of gpufabric.bundle.userdata with that URL, the bundle's sha256 and
how the node's identity reads the URL (`auth`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi

import gpufabric
from gpufabric import stack_outputs
from gpufabric.bundle import userdata
from gpufabric.bundle.render import Bundle, render, spec_from_outputs
from gpufabric.catalog import InstanceType
from gpufabric.config.model import StackConfig
from gpufabric.errors import UserError
from gpufabric.stack_outputs import NodeGroup

GROUP = "gpu_nodes"
"""The bundle's one node group: every GPU node of the stack gets its variables."""
OBJECT_PREFIX = "gpufabric/bundles/"
"""Where in the store the bundle goes (its file name carries the stack and the sha256)."""


@dataclass(frozen=True)
class StackBundle:
    bundle: Bundle
    key: str
    """The object's name in the store: OBJECT_PREFIX + the bundle's file name."""
    cfg: StackConfig

    @property
    def asset(self) -> pulumi.FileAsset:
        return pulumi.FileAsset(str(self.bundle.path))

    def user_data(
        self,
        url: pulumi.Input[str],
        auth: pulumi.Input[dict[str, Any]] | None,
        limit: int,
        where: str,
        sent: Callable[[str], str] = lambda text: text,
    ) -> pulumi.Output[str]:
        """The nodes' user data for the bundle at `url`, read with `auth` (a secret `url` gives
        a secret user data), as the cloud takes it (`sent`, e.g. base64); refused when `sent` of it is over
        the cloud's `limit` in bytes (`where` names the field and its source)."""

        def build(values: list[Any]) -> str:
            resolved, how = values
            cfg = userdata.boot_config(self.bundle, resolved, GROUP, self.cfg.boot.runtime, how)
            value = sent(userdata.render(cfg, compress=True))
            if len(value.encode()) > limit:
                raise pulumi.RunError(
                    f"gpufabric:boot: the nodes' user data is {len(value.encode())} bytes; "
                    f"{where} takes at most {limit}"
                )
            return value

        return pulumi.Output.all(url, auth).apply(build)


def project_root() -> Path:
    """The project the program runs from: its playbooks and roles go into the bundle."""
    for root in (Path(gpufabric.__file__).resolve().parents[2], Path.cwd()):
        if (root / "playbooks").is_dir() and (root / "roles").is_dir():
            return root
    raise UserError(
        "gpufabric:boot.enabled: no playbooks/ and roles/ beside the program; "
        "run `pulumi up` from the gpufabric project"
    )


def render_bundle(cfg: StackConfig, itype: InstanceType) -> StackBundle:
    """The stack's bundle, written to build/bundles/ of the project (content-addressed: the same
    roles, playbooks, library and config give the same file and sha256)."""
    outputs = stack_outputs.build(
        cfg,
        itype,
        groups=[NodeGroup(kind="instances", name=GROUP, count=cfg.nodes)],
        network={},
        storage=None,
    )
    spec = spec_from_outputs(outputs, playbooks=cfg.boot.playbooks)
    root = project_root()
    bundle = render(spec, root, root / "build" / "bundles")
    return StackBundle(bundle, OBJECT_PREFIX + bundle.name, cfg)
