"""The node collector (collect_node.py, run on each node by certify), in-process against a tree
of the node's own files (/proc, /sys, /etc under a root of the test's) and stand-in programs on
PATH: which mount holds the shared path (the longest, the last over-mount, escaped names),
RoCE v2 from the GID types, the `dcgmi diag` it runs, and the one JSON object it prints, which
certify's stage 1 reads as a NodeReport."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from gpufabric.certify import collect_node
from gpufabric.certify.stages import NodeReport

# the mount table, with {b} for the test's own directory (the mount points exist there)
MOUNTS = """\
rootfs / rootfs rw 0 0
/dev/sda1 / ext4 rw 0 0
nfs:/srv {b}/srv nfs rw 0 0
fs@tcp:/lustre {b}/srv/shared lustre rw 0 0
tmpfs {b}/srv/shared2 tmpfs rw 0 0
short line
dev {b}/srv/three xfs
fs:/x {b}/srv/my\\040share nfs4 rw 0 0
fs:/t {b}/srv/tab\\011new\\012line gpfs rw 0 0
fs:/w {b}/srv/back\\134040slash weka rw 0 0
fs:/y {b}/srv/boX beegfs rw 0 0
"""


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """The test's directory as the kernel names it (the mount table holds real paths)."""
    return tmp_path.resolve()


@pytest.fixture
def root(base: Path) -> Path:
    """The node's own files: the mount table, and the mount points as directories."""
    node = base / "node"
    write(node, "proc/self/mounts", MOUNTS.format(b=base))
    for d in ("srv/shared/ckpt/run1", "srv/sharedx", "srv/shared2", "srv/three/x"):
        (base / d).mkdir(parents=True)
    for d in ("srv/my share/x", "srv/boX/y", "home/u", "srv/tab\tnew\nline/x"):
        (base / d).mkdir(parents=True)
    (base / "srv/back\\040slash/x").mkdir(parents=True)  # a backslash, then 040
    return node


@pytest.fixture
def tools(monkeypatch: pytest.MonkeyPatch, base: Path) -> Path:
    """PATH holds only a directory of the test's stand-in programs."""
    bin_dir = base / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def program(bin_dir: Path, name: str, script: str = "exit 0\n") -> str:
    path = write(bin_dir, name, "#!/bin/sh\n" + script)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    ("path", "mount", "fstype"),
    [
        ("srv/shared", "srv/shared", "lustre"),
        ("srv/shared/ckpt/run1", "srv/shared", "lustre"),
        ("srv/sharedx", "srv", "nfs"),  # a name that starts like a mount is not inside it
        ("srv/shared2", "srv/shared2", "tmpfs"),
        ("srv/three/x", "srv/three", "xfs"),  # a line of the three fields read is enough
        ("srv/my share/x", "srv/my share", "nfs4"),
        ("srv/tab\tnew\nline/x", "srv/tab\tnew\nline", "gpfs"),
        ("srv/back\\040slash/x", "srv/back\\040slash", "weka"),
        ("srv/boX/y", "srv/boX", "beegfs"),
    ],
)
def test_the_longest_mount_holding_the_path(
    base: Path, root: Path, path: str, mount: str, fstype: str
) -> None:
    assert collect_node.storage(f"{base}/{path}", str(root)) == {
        "path": f"{base}/{path}",
        "dir": True,
        "mount": f"{base}/{mount}",
        "fstype": fstype,
    }


def test_a_path_outside_every_other_mount_is_on_the_last_mount_of_root(
    base: Path, root: Path
) -> None:
    assert collect_node.storage(f"{base}/home/u", str(root))["mount"] == "/"
    assert collect_node.storage(f"{base}/home/u", str(root))["fstype"] == "ext4"  # not rootfs


def test_a_symlink_is_placed_by_where_it_leads(base: Path, root: Path) -> None:
    (base / "link").symlink_to(base / "srv/shared/ckpt")
    assert collect_node.storage(f"{base}/link", str(root)) == {
        "path": f"{base}/link",
        "dir": True,
        "mount": f"{base}/srv/shared",
        "fstype": "lustre",
    }


def test_a_path_that_is_no_directory_says_so(base: Path, root: Path) -> None:
    write(base, "srv/shared/file", "")
    assert collect_node.storage(f"{base}/srv/shared/file", str(root))["dir"] is False
    assert collect_node.storage(f"{base}/srv/shared/absent", str(root))["dir"] is False
    assert collect_node.storage("/srv/shared", str(base / "empty")) == {
        "path": "/srv/shared",
        "dir": False,
        "mount": "",
        "fstype": "",
    }


def test_read_is_empty_for_a_missing_file_and_replaces_bad_bytes(tmp_path: Path) -> None:
    assert collect_node.read(str(tmp_path / "absent")) == ""
    (tmp_path / "f").write_bytes(b"ok \xff end")
    assert collect_node.read(str(tmp_path / "f")) == "ok \ufffd end"


def gid_type(root: Path, dev: str, port: int, index: int, text: str) -> None:
    write(root, f"sys/class/infiniband/{dev}/ports/{port}/gid_attrs/types/{index}", text)


def test_roce_v2_from_any_gid_type_of_any_port(tmp_path: Path) -> None:
    gid_type(tmp_path, "mlx5_0", 1, 0, "IB/RoCE v1\n")
    gid_type(tmp_path, "mlx5_0", 1, 1, "IB/RoCE v1\n")
    assert collect_node.roce_v2(str(tmp_path)) is False
    gid_type(tmp_path, "mlx5_1", 2, 3, "RoCE v2\n")
    assert collect_node.roce_v2(str(tmp_path)) is True
    assert collect_node.roce_v2(str(tmp_path / "absent")) is False


def run_main(argv: list[str], root: Path | None = None) -> dict[str, Any]:
    out = io.StringIO()
    with redirect_stdout(out):
        if root is None:
            collect_node.main(argv)
        else:
            collect_node.main(argv, str(root))
    assert out.getvalue().count("\n") == 1  # one JSON object on one line
    return json.loads(out.getvalue())


def test_the_report_of_a_tuned_gpu_node(base: Path, root: Path, tools: Path) -> None:
    topo = write(base, "nccl/topo.xml", "<system/>")
    plugin = base / "plugin"
    plugin.mkdir()
    conf = f"# profile\nNCCL_TOPO_FILE = {topo}\n"
    write(root, "etc/nccl.conf", conf)
    write(root, "etc/profile.d/gpufabric-nccl.sh", "export X=1\n")
    for i in range(8):
        (root / f"proc/driver/nvidia/gpus/0000:{i:02x}:00.0").mkdir(parents=True)
    gid_type(root, "mlx5_1", 1, 0, "IB/RoCE v1\n")
    (root / "sys/class/infiniband/mlx5_0").mkdir()
    dcgmi = program(tools, "dcgmi", "echo dcgmi $*\necho warn >&2\nexit 3\n")
    smi = program(tools, "nvidia-smi")
    doc = run_main(
        [str(plugin), f"{base}/absent", "relative", f"--storage={base}/srv/shared"], root
    )
    assert doc == {
        "gpus": 8,
        "nccl_conf": conf,
        "nccl_env": "export X=1\n",
        "roce_v2": False,
        "rdma": ["mlx5_0", "mlx5_1"],
        "paths": {str(plugin): True, f"{base}/absent": False, str(topo): True},
        "tools": {"nvbandwidth": "", "dcgmi": dcgmi, "nvidia-smi": smi},
        # what `dcgmi diag -r 1` printed, and its exit status (not raised)
        "dcgm": {"rc": 3, "tail": "dcgmi diag -r 1\nwarn\n"},
        "storage": {
            "path": f"{base}/srv/shared",
            "dir": True,
            "mount": f"{base}/srv/shared",
            "fstype": "lustre",
        },
    }
    NodeReport.model_validate(doc)  # what stage 1 accepts


def test_the_report_keeps_the_last_2000_characters_of_dcgmi_diag(
    tmp_path: Path, tools: Path
) -> None:
    program(tools, "dcgmi", "echo " + "x" * 3000 + "\necho Pass\necho warn >&2\n")
    doc = run_main([], tmp_path)
    expected = ("x" * 3000 + "\nPass\nwarn\n")[-2000:]
    assert doc["dcgm"] == {"rc": 0, "tail": expected}
    assert len(doc["dcgm"]["tail"]) == 2000


def test_a_stray_byte_from_dcgmi_diag_is_replaced_not_fatal(tmp_path: Path, tools: Path) -> None:
    program(tools, "dcgmi", "printf 'Pass \\377\\n'\nexit 1\n")
    doc = run_main([], tmp_path)
    assert doc["dcgm"] == {"rc": 1, "tail": "Pass \ufffd\n"}


def test_the_report_of_a_bare_node(tmp_path: Path, tools: Path) -> None:
    dcgmi = program(tools, "dcgmi", "echo ran >> " + str(tmp_path / "ran") + "\n")
    doc = run_main(["--no-dcgm", "--storage=relative"], tmp_path / "node")
    assert not (tmp_path / "ran").exists()  # --no-dcgm: dcgmi is not run even where installed
    assert doc == {
        "gpus": 0,
        "nccl_conf": "",
        "nccl_env": "",
        "roce_v2": False,
        "rdma": [],
        "paths": {},
        "tools": {"nvbandwidth": "", "dcgmi": dcgmi, "nvidia-smi": ""},
        "dcgm": None,
        "storage": None,  # a relative path is not looked up
    }
    NodeReport.model_validate(doc)


def test_a_storage_path_holding_an_equals_sign_is_kept_whole(base: Path, root: Path) -> None:
    (base / "srv/shared/a=b=c").mkdir()
    doc = run_main(["--no-dcgm", f"--storage={base}/srv/shared/a=b=c"], root)
    assert doc["storage"] == {
        "path": f"{base}/srv/shared/a=b=c",
        "dir": True,
        "mount": f"{base}/srv/shared",
        "fstype": "lustre",
    }
    assert doc["paths"] == {}  # the storage argument is no plugin path


def test_on_the_node_its_own_files_are_read_from_the_root_directory() -> None:
    """Without a root of the test's, the collector reads this machine's own mount table."""
    with open("/proc/self/mounts", encoding="utf-8") as f:
        fstypes = [line.split()[2] for line in f if line.split()[1:2] == ["/"]]
    doc = run_main(["--no-dcgm", "--storage=/"])
    assert doc["storage"] == {"path": "/", "dir": True, "mount": "/", "fstype": fstypes[-1]}
    gpus = "/proc/driver/nvidia/gpus"
    assert doc["gpus"] == (len(os.listdir(gpus)) if os.path.isdir(gpus) else 0)
    NodeReport.model_validate(doc)


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("NCCL_TOPO_FILE=/etc/nccl/topo.xml # the file # and more", "/etc/nccl/topo.xml"),
        ('NCCL_TOPO_FILE = "/etc/nccl/a=b.xml"', "/etc/nccl/a=b.xml"),
        ("NCCL_TOPO_FILE='/etc/nccl/t.xml'  # quoted", "/etc/nccl/t.xml"),
        ("# NCCL_TOPO_FILE=/commented/out", ""),
        # a value that begins or ends with the letter X keeps it
        ('NCCL_TOPO_FILE="X/topo/X"', "X/topo/X"),
        ("NCCL_TOPO_FILE='X/topo/X'", "X/topo/X"),
        ("NCCL_TOPO_FILE=X/topo/X", "X/topo/X"),
    ],
)
def test_the_collector_reads_nccl_conf_as_certify_does(line: str, value: str) -> None:
    """The node's collector and certify's audit read one nccl.conf line the same way: what
    the node reports is what certify judges (two comments, '=' inside a value, quotes)."""
    from gpufabric.certify.clustermax import parse_conf

    conf = f"NCCL_DEBUG=WARN\n{line}\n"
    assert collect_node.conf_value(conf, "NCCL_TOPO_FILE") == value
    assert parse_conf(conf).get("NCCL_TOPO_FILE", "") == value
