"""Day 2: every node runs a new bundle locally, launched by an existing fan-out engine.

The controller does not run the playbooks: it starts `gpufabric-boot` (already on every node
from its first boot) on all nodes with the new bundle's URL and sha256, through

- ClusterShell (`clush`), flat or in tree mode: a topology file routes the head to one gateway
  per leaf and each gateway to its leaf's nodes (the gateways need ClusterShell installed);
- Slurm (`srun -N <n> --ntasks-per-node=1`), which launches through slurmd's own tree
  (`TreeWidth`).

Each node checks the hash, runs `ansible-playbook -c local` and writes its result file, as at
first boot; the controller's work per node is one line of the engine's output.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from gpufabric.bundle.userdata import CONFIG_PATH, SCRIPT_PATH
from gpufabric.errors import Arg, ArgumentError, UserError

ENGINES = ("clush", "srun")
_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_URL = re.compile(r"^(file:///|https?://)[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]+$")


def _check_hosts(hosts: Sequence[str]) -> None:
    if not hosts:
        raise UserError("fan-out: no node")
    for h in hosts:
        if not _HOST.match(h):  # no ',' either: it would split the node list
            raise UserError(f"fan-out: node name {h!r} is not a plain host name")


def topology_conf(head: str, leaves: Mapping[str, Sequence[str]]) -> str:
    """ClusterShell's topology.conf: the head -> one gateway per leaf (its first node) -> the
    leaf's other nodes."""
    _check_hosts([head, *[h for hosts in leaves.values() for h in hosts]])
    gateways = {leaf: hosts[0] for leaf, hosts in sorted(leaves.items()) if hosts}
    lines = ["[routes]", f"{head}: {','.join(gateways.values())}"]
    for leaf, gateway in gateways.items():
        rest = [h for h in leaves[leaf][1:] if h != gateway]
        if rest:
            lines.append(f"{gateway}: {','.join(rest)}")
    return "\n".join(lines) + "\n"


def command(
    engine: str,
    hosts: Sequence[str],
    url: str,
    sha256: str,
    topology: str | None = None,
    fanout: int | None = None,
    options: Sequence[str] = (),
) -> list[str]:
    """The argv that runs the bundle on every host through `engine` (clush or srun);
    `options`: the engine's own further options (e.g. clush's ssh options)."""
    _check_hosts(hosts)
    if not _SHA.match(sha256):
        raise ArgumentError("sha256", "64 lower-case hex digits", value=repr(sha256))
    if not _URL.match(url):
        raise ArgumentError(
            "bundle", "a file:///, http:// or https:// URL without spaces", value=repr(url)
        )
    run = [SCRIPT_PATH, CONFIG_PATH, "--bundle", url, "--sha256", sha256]
    if engine == "clush":
        argv = ["clush", "-w", ",".join(hosts), "-b", "-S"]
        if topology:
            argv += [f"--topology={topology}"]
        if fanout:
            argv += ["-f", str(fanout)]
        return [*argv, *options, "--", *run]
    if engine == "srun":
        if topology:
            raise UserError(Arg("topology"), " is ClusterShell's; srun uses Slurm's TreeWidth")
        argv = [
            "srun",
            f"--nodes={len(hosts)}",
            "--ntasks-per-node=1",
            f"--nodelist={','.join(hosts)}",
        ]
        return [*argv, *options, *run]
    raise ArgumentError("engine", f"choose one of {', '.join(ENGINES)}", value=repr(engine))
