"""Where a lab keeps its files, and its state file (what `down` must undo).

Everything a lab writes lives under <root>/<name>/ (root: /var/lib/gpufabric/lab, or
$GPUFABRIC_LAB_STATE_DIR): state.json, inventory.yml, the ssh key pair and known_hosts, and
each host's overlay (upper, work, mount point) and console log. `down` removes the directory.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gpufabric.inputs.errors import InputError
from gpufabric.inputs.files import MiB, read_text
from gpufabric.inputs.formats import parse_json
from gpufabric.lab.layout import HostPlan, LabLayout

DEFAULT_ROOT = Path("/var/lib/gpufabric/lab")


def state_root() -> Path:
    return Path(os.environ.get("GPUFABRIC_LAB_STATE_DIR", DEFAULT_ROOT))


@dataclass(frozen=True)
class LabPaths:
    root: Path

    @classmethod
    def of(cls, name: str) -> LabPaths:
        return cls(state_root() / name)

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def failed_logs(self) -> Path:
        """Console logs of a failed `up` (beside the lab's directory, which it removes)."""
        return self.root.with_name(self.root.name + ".failed")

    @property
    def inventory(self) -> Path:
        return self.root / "inventory.yml"

    @property
    def ssh_key(self) -> Path:
        return self.root / "ssh" / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.root / "ssh" / "known_hosts"

    @property
    def objects(self) -> Path:
        """`up --boot`: the object-store stand-in (bundles), read-only in every host."""
        return self.root / "objects"

    @property
    def shared(self) -> Path:
        """The directory every host sees at hosts.SHARED_MOUNT."""
        return self.root / "shared"

    def host_dir(self, host: str) -> Path:
        return self.root / "hosts" / host

    def host_root(self, host: str) -> Path:
        return self.host_dir(host) / "root"


@dataclass
class LabState:
    layout: LabLayout
    spine_rate: str | None
    rootfs: str
    pids: dict[str, int] = field(default_factory=dict)  # host -> systemd-nspawn PID
    mounts: list[str] = field(default_factory=list)  # overlay mount points
    phase: str = "starting"  # starting -> up
    faults: dict[str, list[str]] = field(default_factory=dict)  # host -> `lab fault` kinds
    boot: bool = False  # `up --boot`: hosts configure themselves through cloud-init

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "lab state") -> LabState:
        doc = parse_json(text, where=where)
        lay = doc["layout"]
        layout = LabLayout(
            **{k: v for k, v in lay.items() if k not in ("hosts", "leaves")},
            leaves=tuple(lay["leaves"]),
            hosts=tuple(HostPlan(**h) for h in lay["hosts"]),
        )
        return cls(
            layout=layout,
            spine_rate=doc["spine_rate"],
            rootfs=doc["rootfs"],
            pids={k: int(v) for k, v in doc["pids"].items()},
            mounts=list(doc["mounts"]),
            phase=doc["phase"],
            faults={k: list(v) for k, v in doc.get("faults", {}).items()},
            boot=bool(doc.get("boot", False)),
        )


def save(paths: LabPaths, state: LabState) -> None:
    tmp = paths.state.with_suffix(".tmp")
    tmp.write_text(state.to_json())
    tmp.replace(paths.state)


def load(paths: LabPaths) -> LabState | None:
    """The lab's state, or None if it has none (or an unreadable one: `down` then cleans up by
    the lab's names instead)."""
    try:
        text = read_text(paths.state, what="a lab state file", max_bytes=MiB)
        return LabState.from_json(text, str(paths.state))
    except (InputError, ValueError, KeyError, TypeError):
        return None


def other_labs_subnets(exclude: str) -> set[str]:
    """Address ranges held by the other labs on this machine."""
    taken: set[str] = set()
    root = state_root()
    if root.is_dir():
        for d in root.iterdir():
            if d.name == exclude:
                continue
            try:
                text = read_text(d / "state.json", what="a lab state file", max_bytes=MiB)
                st = LabState.from_json(text, str(d / "state.json"))
            except (InputError, ValueError, KeyError, TypeError):
                continue
            taken.add(st.layout.subnet)
    return taken
