"""The node collector (collect_node.py, run on each node by certify), in-process with the node's
files stood in for: which mount holds the shared path (the longest, the last over-mount, an
escaped space), RoCE v2 from the GID types, and the one JSON object it prints, which certify's
stage 1 reads as a NodeReport."""

from __future__ import annotations

import io
import json
import subprocess
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from gpufabric.certify import collect_node
from gpufabric.certify.stages import NodeReport

MOUNTS = """\
rootfs / rootfs rw 0 0
/dev/sda1 / ext4 rw 0 0
nfs:/srv /srv nfs rw 0 0
fs@tcp:/lustre /srv/shared lustre rw 0 0
tmpfs /srv/shared2 tmpfs rw 0 0
short line
fs:/x /srv/my\\040share nfs4 rw 0 0
"""


@pytest.fixture
def node(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    """The node's files (path -> text); anything else reads as absent."""
    files: dict[str, str] = {"/proc/self/mounts": MOUNTS}
    monkeypatch.setattr(collect_node, "read", lambda p: files.get(p, ""))
    monkeypatch.setattr(collect_node.os.path, "realpath", lambda p: p)
    monkeypatch.setattr(collect_node.os.path, "isdir", lambda p: p in files.get("dirs", ""))
    return files


@pytest.mark.parametrize(
    ("path", "mount", "fstype"),
    [
        ("/srv/shared", "/srv/shared", "lustre"),
        ("/srv/shared/ckpt/run1", "/srv/shared", "lustre"),
        ("/srv/sharedx", "/srv", "nfs"),  # a name that starts like a mount is not inside it
        ("/srv/shared2", "/srv/shared2", "tmpfs"),
        ("/srv/my share/x", "/srv/my share", "nfs4"),
        ("/home/u", "/", "ext4"),  # the last mount of / (over rootfs)
    ],
)
def test_the_longest_mount_holding_the_path(node, path: str, mount: str, fstype: str) -> None:
    node["dirs"] = path
    assert collect_node.storage(path) == {
        "path": path,
        "dir": True,
        "mount": mount,
        "fstype": fstype,
    }


def test_a_path_that_is_no_directory_says_so(node) -> None:
    assert collect_node.storage("/srv/shared")["dir"] is False
    node["/proc/self/mounts"] = ""
    assert collect_node.storage("/srv/shared") == {
        "path": "/srv/shared",
        "dir": False,
        "mount": "",
        "fstype": "",
    }


def test_read_is_empty_for_a_missing_file_and_replaces_bad_bytes(tmp_path: Path) -> None:
    assert collect_node.read(str(tmp_path / "absent")) == ""
    (tmp_path / "f").write_bytes(b"ok \xff end")
    assert collect_node.read(str(tmp_path / "f")) == "ok \ufffd end"


def test_roce_v2_from_any_gid_type(monkeypatch: pytest.MonkeyPatch) -> None:
    types = {"/sys/x/0": "IB/RoCE v1\n", "/sys/x/1": "RoCE v2\n"}
    monkeypatch.setattr(collect_node, "read", lambda p: types.get(p, ""))
    monkeypatch.setattr(collect_node.glob, "glob", lambda pattern: list(types))
    assert collect_node.roce_v2() is True
    types["/sys/x/1"] = "IB/RoCE v1\n"
    assert collect_node.roce_v2() is False


def run_main(
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    files: dict[str, str],
    exists: set[str],
    tools: dict[str, str],
    dcgm: tuple[int, str, str] = (0, "", ""),
) -> tuple[dict[str, Any], list[list[str]]]:
    ran: list[list[str]] = []

    def fake_run(args: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        ran.append(args)
        return subprocess.CompletedProcess(args, dcgm[0], dcgm[1], dcgm[2])

    def fake_glob(pattern: str) -> list[str]:
        if pattern == "/proc/driver/nvidia/gpus/*":
            return [f"/proc/driver/nvidia/gpus/0000:{i:02x}:00.0" for i in range(8)]
        return []

    monkeypatch.setattr(collect_node, "read", lambda p: files.get(p, ""))
    monkeypatch.setattr(collect_node.glob, "glob", fake_glob)
    monkeypatch.setattr(collect_node.shutil, "which", lambda t: tools.get(t))
    monkeypatch.setattr(collect_node.subprocess, "run", fake_run)
    monkeypatch.setattr(collect_node.os.path, "exists", lambda p: p in exists)
    monkeypatch.setattr(collect_node.os.path, "isdir", lambda p: p in exists)
    monkeypatch.setattr(collect_node.os.path, "realpath", lambda p: p)
    monkeypatch.setattr(collect_node.os, "listdir", lambda p: ["mlx5_1", "mlx5_0"])
    out = io.StringIO()
    with redirect_stdout(out):
        collect_node.main(argv)
    assert out.getvalue().count("\n") == 1  # one JSON object on one line
    return json.loads(out.getvalue()), ran


def test_the_report_of_a_tuned_gpu_node(monkeypatch: pytest.MonkeyPatch) -> None:
    conf = "# profile\nNCCL_TOPO_FILE = /etc/nccl/topo.xml\n"
    files = {
        "/etc/nccl.conf": conf,
        "/etc/profile.d/gpufabric-nccl.sh": "export X=1\n",
        "/proc/self/mounts": MOUNTS,
    }
    exists = {"/opt/plugin", "/etc/nccl/topo.xml", "/sys/class/infiniband", "/srv/shared"}
    tools = {"dcgmi": "/usr/bin/dcgmi", "nvidia-smi": "/usr/bin/nvidia-smi"}
    long_out = "x" * 3000 + "\nPass\n"
    doc, ran = run_main(
        monkeypatch,
        ["/opt/plugin", "/opt/absent", "relative", "--storage=/srv/shared"],
        files,
        exists,
        tools,
        dcgm=(0, long_out, "warn\n"),
    )
    assert ran == [["/usr/bin/dcgmi", "diag", "-r", "1"]]
    assert doc == {
        "gpus": 8,
        "nccl_conf": conf,
        "nccl_env": "export X=1\n",
        "roce_v2": False,
        "rdma": ["mlx5_0", "mlx5_1"],
        "paths": {"/opt/plugin": True, "/opt/absent": False, "/etc/nccl/topo.xml": True},
        "tools": {
            "nvbandwidth": "",
            "dcgmi": "/usr/bin/dcgmi",
            "nvidia-smi": "/usr/bin/nvidia-smi",
        },
        "dcgm": {"rc": 0, "tail": (long_out + "warn\n")[-2000:]},
        "storage": {"path": "/srv/shared", "dir": True, "mount": "/srv/shared", "fstype": "lustre"},
    }
    assert len(doc["dcgm"]["tail"]) == 2000
    NodeReport.model_validate(doc)  # what stage 1 accepts


def test_the_report_of_a_bare_node(monkeypatch: pytest.MonkeyPatch) -> None:
    doc, ran = run_main(
        monkeypatch, ["--no-dcgm", "--storage=relative"], {}, set(), {"dcgmi": "/d"}
    )
    assert ran == []  # --no-dcgm: dcgmi is not run even where installed
    assert doc["dcgm"] is None and doc["storage"] is None  # a relative path is not looked up
    assert doc["paths"] == {} and doc["rdma"] == [] and doc["nccl_conf"] == ""
    assert doc["tools"]["dcgmi"] == "/d"
    NodeReport.model_validate(doc)


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("NCCL_TOPO_FILE=/etc/nccl/topo.xml # the file # and more", "/etc/nccl/topo.xml"),
        ('NCCL_TOPO_FILE = "/etc/nccl/a=b.xml"', "/etc/nccl/a=b.xml"),
        ("NCCL_TOPO_FILE='/etc/nccl/t.xml'  # quoted", "/etc/nccl/t.xml"),
        ("# NCCL_TOPO_FILE=/commented/out", ""),
    ],
)
def test_the_collector_reads_nccl_conf_as_certify_does(line: str, value: str) -> None:
    """The node's collector and certify's audit read one nccl.conf line the same way: what
    the node reports is what certify judges (two comments, '=' inside a value, quotes)."""
    from gpufabric.certify.clustermax import parse_conf

    conf = f"NCCL_DEBUG=WARN\n{line}\n"
    assert collect_node.conf_value(conf, "NCCL_TOPO_FILE") == value
    assert parse_conf(conf).get("NCCL_TOPO_FILE", "") == value
