"""Reaching the nodes: the inventory's hosts, commands on them (Ansible ad-hoc, JSON back), and
holding them out of service (Slurm drain / Kubernetes taint, through gpufabric.health.act).

A node is held from the start with a reason starting with PREFIX; a node that fails a stage
gets that stage and reason in its hold; a node that passes every stage is released. As with the
fabric doctor, only holds carrying PREFIX are ever released (an operator's drain is kept).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gpufabric.errors import ArgumentError, UserError
from gpufabric.health import act
from gpufabric.inputs.files import read_text
from gpufabric.inputs.formats import parse_json

REPO = Path(__file__).resolve().parents[3]  # ansible.cfg (plugins, roles) lives here
PREFIX = "gpufabric-certify:"
TAINT_KEY = "gpufabric.io/certify"
HOLDS = ("none", "slurm", "k8s")
HELD = "held until certified"


class Runner(Protocol):
    def run(self, hosts: list[str], argv: list[str]) -> dict[str, dict[str, Any]]: ...

    def script(
        self, hosts: list[str], path: Path, args: list[str]
    ) -> dict[str, dict[str, Any]]: ...


def _bin(name: str) -> str:
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else name


@dataclass
class Inventory:
    hosts: list[str]
    controller: str
    hostvars: dict[str, dict[str, Any]]
    groups: dict[str, list[str]] = field(default_factory=dict)

    def var(self, name: str, default: Any = "") -> Any:
        """A variable every host shares (the cluster's switches), else `default`."""
        values = {json.dumps(v.get(name, default)) for v in self.hostvars.values()}
        return parse_json(values.pop(), where=name) if len(values) == 1 else default

    def leaves(self) -> dict[str, list[str]]:
        """leaf -> its GPU hosts: the hosts' gpufabric_leaf, else groups named leaf*."""
        by_var: dict[str, list[str]] = {}
        for h in self.hosts:
            leaf = self.hostvars.get(h, {}).get("gpufabric_leaf")
            if leaf:
                by_var.setdefault(str(leaf), []).append(h)
        if by_var:
            return by_var
        return {
            g: [h for h in hs if h in self.hosts]
            for g, hs in sorted(self.groups.items())
            if g.startswith("leaf") and any(h in self.hosts for h in hs)
        }


def parse_inventory(text: str) -> Inventory:
    """`ansible-inventory --list` JSON -> the gpu_nodes hosts, the controller, hostvars."""
    doc = parse_json(text, where="ansible-inventory --list")
    groups = {
        g: list(v.get("hosts") or [])
        for g, v in doc.items()
        if isinstance(v, dict) and g != "_meta"
    }
    hosts = groups.get("gpu_nodes") or []
    if not hosts:
        raise UserError("inventory: no host in the gpu_nodes group")
    hostvars = (doc.get("_meta") or {}).get("hostvars") or {}
    controller = (groups.get("controller") or hosts)[0]
    return Inventory(hosts, controller, {h: dict(hostvars.get(h) or {}) for h in hosts}, groups)


class AnsibleRunner:
    """Commands on hosts through `ansible` (ad-hoc, JSON callback), as root."""

    def __init__(self, inventory: Path) -> None:
        self.inventory = inventory

    def list_inventory(self) -> Inventory:
        proc = subprocess.run(
            [_bin("ansible-inventory"), "-i", str(self.inventory), "--list"],
            capture_output=True,
            text=True,
            check=False,
            cwd=REPO,
        )
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            raise ArgumentError("inventory", f"ansible-inventory failed: {tail[0]}")
        return parse_inventory(proc.stdout)

    def _adhoc(self, hosts: list[str], module: str, args: dict[str, Any]) -> dict[str, Any]:
        """Each host's module result (ansible's --tree: one JSON file per host)."""
        env = {**os.environ, "ANSIBLE_FORCE_COLOR": "0"}
        with tempfile.TemporaryDirectory(prefix="gfcert-") as tree:
            argv = [_bin("ansible"), ",".join(hosts), "-i", str(self.inventory), "--become"]
            argv += ["-m", module, "-a", json.dumps(args), "--tree", tree]
            proc = subprocess.run(
                argv, capture_output=True, text=True, env=env, check=False, cwd=REPO
            )
            out: dict[str, Any] = {}
            for h in hosts:
                path = Path(tree) / h
                if path.is_file():
                    try:
                        out[h] = parse_json(
                            read_text(path, what="an ansible --tree result"),
                            where=f"ansible's result for {h}",
                        )
                    except UserError:
                        out[h] = {"failed": True, "msg": "unreadable result"}
        if not out and proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
            raise UserError(f"ansible exited {proc.returncode}: {tail[0]}")
        return out

    def run(self, hosts: list[str], argv: list[str]) -> dict[str, dict[str, Any]]:
        return self._adhoc(hosts, "ansible.builtin.command", {"argv": argv})

    def script(self, hosts: list[str], path: Path, args: list[str]) -> dict[str, dict[str, Any]]:
        cmd = " ".join([str(path), *[json.dumps(a) for a in args]])
        return self._adhoc(
            hosts, "ansible.builtin.script", {"cmd": cmd, "executable": "/usr/bin/python3"}
        )


class Holder:
    """Holds, re-labels and releases nodes (none | slurm | k8s)."""

    def __init__(self, mode: str, runner: Runner, controller: str, kubectl: str = "kubectl"):
        if mode not in HOLDS:
            raise ArgumentError("hold", f"{mode!r} is not valid; use one of {', '.join(HOLDS)}")
        self.mode, self.runner, self.controller, self.kubectl = mode, runner, controller, kubectl
        self.log: list[dict[str, Any]] = []  # {"node", "action", "why"}

    def _apply(self, verdicts: dict[str, dict[str, Any]]) -> None:
        if self.mode == "slurm":
            res = self.runner.run([self.controller], ["scontrol", "show", "node", "--oneliner"])
            nodes = act.parse_scontrol_nodes(str(res.get(self.controller, {}).get("stdout", "")))
            actions = act.plan_slurm(verdicts, nodes, PREFIX)
            for a in actions:
                if a["argv"]:  # RESUME of a never-registered node clears the drain, exits 1
                    self.runner.run([self.controller], a["argv"])
            res = self.runner.run([self.controller], ["scontrol", "show", "node", "--oneliner"])
            after = act.parse_scontrol_nodes(str(res.get(self.controller, {}).get("stdout", "")))
            missing = act.slurm_unapplied(actions, after)
            if missing:
                raise UserError(f"Slurm did not apply: {'; '.join(missing)}")
        elif self.mode == "k8s":
            actions = act.plan_k8s(verdicts, self._taints(), self.kubectl, TAINT_KEY)
            for a in actions:
                if a["argv"]:
                    self._kubectl(a["argv"][1:])
            if any(a["argv"] for a in actions):  # read back, as for Slurm: a hold is proven
                after = self._taints()
                missing = [
                    f"{a['node']} {'not tainted' if a['action'] == 'taint' else 'still tainted'}"
                    for a in actions
                    if a["argv"]
                    and any(t.get("key") == TAINT_KEY for t in after.get(a["node"], []))
                    != (a["action"] == "taint")
                ]
                if missing:
                    raise UserError(f"Kubernetes did not apply: {'; '.join(missing)}")
        else:
            actions = [
                {"node": h, "action": "release" if v["status"] == "ok" else "hold", "why": ""}
                for h, v in verdicts.items()
            ]
        for a in actions:
            if a["action"] != "keep":
                self.log.append({k: a[k] for k in ("node", "action", "why")})

    def _kubectl(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                [self.kubectl, *args], capture_output=True, text=True, check=False
            )
        except OSError as exc:
            raise ArgumentError("kubectl", f"{self.kubectl!r}: {exc.strerror}") from None

    def _taints(self) -> dict[str, list[dict[str, str]]]:
        proc = self._kubectl(["get", "nodes", "-o", "json"])
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            raise UserError(f"kubectl get nodes exited {proc.returncode}: {tail[0]}")
        return act.parse_kubectl_nodes(proc.stdout)

    def hold(self, hosts: list[str]) -> None:
        self._apply({h: {"status": "bad", "reasons": [HELD]} for h in hosts})

    def fail(self, host: str, reason: str) -> None:
        self._apply({host: {"status": "bad", "reasons": [reason]}})

    def release(self, host: str) -> None:
        self._apply({host: {"status": "ok", "reasons": []}})
