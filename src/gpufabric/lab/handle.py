"""A running lab as tests and benchmarks use it: inventory, hosts, and ways in.

with LabHandle.start("gftest", nodes=4, leaves=2) as lab:
    lab.run("h1", "systemctl", "is-system-running")
    lab.ansible_playbook("playbooks/tune-fabric.yml")
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from gpufabric.lab import faults, lab, network
from gpufabric.lab.state import LabPaths, LabState, state_root

REPO = Path(__file__).resolve().parents[3]


def venv_bin(tool: str) -> str:
    """A tool of the running Python's venv (ansible-playbook, gpufabric), else from PATH."""
    candidate = Path(sys.executable).parent / tool
    return str(candidate) if candidate.exists() else tool


def process_lab_name(prefix: str) -> str:
    """A lab name for this process (`<prefix><pid>`): concurrent test runs never share a lab."""
    return f"{prefix}{os.getpid()}"


def reap_stale_labs(prefix: str) -> list[str]:
    """Take down labs named `<prefix><pid>` whose process is gone (a crashed or killed run)."""
    pattern = re.compile(rf"^{re.escape(prefix)}(\d+)$")
    names = {d.name for d in state_root().iterdir()} if state_root().is_dir() else set()
    names |= {
        ns.split("-")[1]
        for ns in network.existing_netns()
        if ns.startswith("gf-") and ns.count("-") == 2
    }
    stale = []
    for name in sorted(names):
        m = pattern.match(name)
        if m and not Path(f"/proc/{m.group(1)}").exists():
            lab.down(name)
            stale.append(name)
    return stale


@dataclass
class LabHandle:
    name: str
    state: LabState
    paths: LabPaths
    boot: dict[str, str] = field(default_factory=dict)  # host -> is-system-running after up

    # ---- lifecycle
    @classmethod
    def start(
        cls,
        name: str,
        nodes: int = 4,
        leaves: int = 2,
        spine_rate: str | None = None,
        boot: bool = False,
    ) -> LabHandle:
        """Bring lab `name` up (after removing a leftover lab of that name); `boot`: the hosts
        configure themselves through cloud-init (`lab up --boot`)."""
        lab.down(name)
        res = lab.up(name, nodes, leaves, spine_rate, boot=boot)
        return cls(name, res.state, res.paths, res.boot)

    @classmethod
    def attach(cls, name: str) -> LabHandle:
        st, paths = lab.load_up(name)
        return cls(name, st, paths)

    def stop(self) -> None:
        lab.down(self.name)

    def __enter__(self) -> LabHandle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ---- facts
    @property
    def inventory(self) -> Path:
        return self.paths.inventory

    @property
    def hosts(self) -> list[str]:
        return [h.name for h in self.state.layout.hosts]

    @property
    def addresses(self) -> dict[str, str]:
        return {h.name: h.address for h in self.state.layout.hosts}

    @property
    def leaves(self) -> dict[str, str]:
        """Host -> leaf (leaf1, leaf2, ...)."""
        return {h.name: h.leaf for h in self.state.layout.hosts}

    @property
    def controller(self) -> str:
        """The inventory's `controller` group (the first host)."""
        return self.hosts[0]

    @property
    def controller_netns(self) -> str:
        return self.state.layout.controller_netns

    # ---- ways in
    def run(
        self,
        host: str,
        *argv: str,
        check: bool = True,
        timeout: float = 300,
        input_text: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run a command inside `host` as root (nsenter; no ssh). Raises on failure if check."""
        proc = lab.run_in_host(self.state, host, list(argv), timeout=timeout, input_text=input_text)
        if check and proc.returncode != 0:
            raise AssertionError(
                f"{host}: {' '.join(argv)} -> exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
            )
        return proc

    def sh(
        self, host: str, script: str, check: bool = True, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """Run a shell script inside `host`."""
        return self.run(host, "sh", "-c", script, check=check, timeout=timeout)

    def ctl(self, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Run a command in the controller namespace (on the lab network, machine's files)."""
        return subprocess.run(
            ["ip", "netns", "exec", self.controller_netns, *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def ansible_playbook(
        self,
        playbook: str | Path,
        *args: str,
        timeout: float = 1800,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """`ansible-playbook -i <inventory> PLAYBOOK ARGS` from the normal shell, in the repo."""
        full_env = {**os.environ, "ANSIBLE_FORCE_COLOR": "0", **(env or {})}
        return subprocess.run(
            [venv_bin("ansible-playbook"), "-i", str(self.inventory), str(playbook), *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=full_env,
            check=False,
        )

    def set_spine_rate(self, rate: str | None) -> None:
        """Shape the spine (tc rate such as 1gbit), or None to remove the shaping."""
        self.state = lab.set_spine_rate(self.name, rate)

    def fault(self, host: str, kind: str, **options: str | int) -> str:
        """Inject a fault (slow-link | mtu | link-down | flap); heal it with restart(host)."""
        what = faults.fault(self.name, host, kind, **options)  # type: ignore[arg-type]
        self.state = lab.load_up(self.name)[0]
        return what

    def restart(self, host: str) -> str:
        """Stop `host`, give it a fresh link (heals every fault), boot it; returns systemd state."""
        self.state, boot = faults.restart(self.name, host)
        return boot
