"""Day-2 fan-out: the clush / srun command lines and ClusterShell's tree topology file."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.bundle import fanout
from gpufabric.bundle.userdata import CONFIG_PATH, SCRIPT_PATH
from gpufabric.cli.conventions import error_line
from gpufabric.errors import UserError

SHA = "ab" * 32
URL = "https://bucket.example/gpufabric-s-abc.tar.gz?X-Sig=a%2Fb"
RUN = [SCRIPT_PATH, CONFIG_PATH, "--bundle", URL, "--sha256", SHA]


def test_clush_runs_the_boot_script_with_the_new_bundle() -> None:
    argv = fanout.command("clush", ["n1", "n2"], URL, SHA, topology="/t.conf", fanout=64)
    assert argv == [
        "clush",
        "-w",
        "n1,n2",
        "-b",
        "-S",
        "--topology=/t.conf",
        "-f",
        "64",
        "--",
        *RUN,
    ]


def test_srun_launches_one_task_per_node() -> None:
    argv = fanout.command("srun", ["n1", "n2", "n3"], URL, SHA)
    assert argv == [
        "srun", "--nodes=3", "--ntasks-per-node=1", "--nodelist=n1,n2,n3", *RUN
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("engine", "hosts", "url", "sha", "kw", "line"),
    [
        ("pdsh", ["n1"], URL, SHA, {}, "--engine 'pdsh': choose one of clush, srun"),
        ("clush", [], URL, SHA, {}, "fan-out: no node"),
        ("clush", ["n1;reboot"], URL, SHA, {}, "fan-out: node name 'n1;reboot' is not a plain host name"),
        ("clush", ["a,b"], URL, SHA, {}, "fan-out: node name 'a,b' is not a plain host name"),
        ("clush", ["n1"], URL, "xyz", {}, "--sha256 'xyz': 64 lower-case hex digits"),
        (
            "clush", ["n1"], "https://x/a b", SHA, {},
            "--bundle 'https://x/a b': a file:///, http:// or https:// URL without spaces",
        ),
        (
            "srun", ["n1"], URL, SHA, {"topology": "/t"},
            "--topology is ClusterShell's; srun uses Slurm's TreeWidth",
        ),
    ],
)  # fmt: skip
def test_bad_values_are_refused_in_one_exact_line(
    engine: str, hosts: list[str], url: str, sha: str, kw: dict[str, str], line: str
) -> None:
    with pytest.raises(UserError) as err:
        fanout.command(engine, hosts, url, sha, **kw)  # type: ignore[arg-type]
    assert error_line(err.value) == f"error: {line}"  # what the CLI prints: arguments as flags


def test_engine_options_go_before_the_command_and_no_fanout_is_clushs_default() -> None:
    argv = fanout.command("clush", ["n1"], URL, SHA, options=["-o", "-oPort=2222"])
    assert argv == ["clush", "-w", "n1", "-b", "-S", "-o", "-oPort=2222", "--", *RUN]
    srun = fanout.command("srun", ["n1"], URL, SHA, options=["--partition=gpu"])
    assert srun == [
        "srun", "--nodes=1", "--ntasks-per-node=1", "--nodelist=n1", "--partition=gpu", *RUN
    ]  # fmt: skip


def test_topology_has_one_gateway_per_leaf() -> None:
    text = fanout.topology_conf("head", {"leaf2": ["h3", "h4", "h5"], "leaf1": ["h1", "h2"]})
    assert text == "[routes]\nhead: h1,h3\nh1: h2\nh3: h4,h5\n"


def test_topology_file_is_what_clustershell_reads(tmp_path: Path) -> None:
    from ClusterShell.Topology import TopologyParser

    conf = tmp_path / "topology.conf"
    conf.write_text(fanout.topology_conf("head", {"leaf1": ["h1", "h2"], "leaf2": ["h3", "h4"]}))
    root = TopologyParser(str(conf)).tree("head").root
    assert root is not None
    assert str(root.nodeset) == "head"
    assert str(root.children_ns()) == "h[1,3]"  # the gateways
    leaves = sorted(str(gw.children_ns()) for gw in root.children())
    assert leaves == ["h2", "h4"]
