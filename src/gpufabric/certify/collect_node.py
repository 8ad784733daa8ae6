#!/usr/bin/env python3
"""Run on each node by `gpufabric certify` (standard library only, reads; dcgmi diag is the only
program it runs, and only where installed). Prints one JSON object:

gpus            GPUs the NVIDIA driver lists (/proc/driver/nvidia/gpus)
nccl_conf       /etc/nccl.conf text ("" when absent), nccl_env the environment file's
roce_v2         True when an RDMA port lists a RoCE v2 GID type
rdma            RDMA devices in /sys/class/infiniband
paths           {path: exists} for the paths given as arguments (plugin libraries) and the
                NCCL_TOPO_FILE that /etc/nccl.conf names
tools           {nvbandwidth, dcgmi, nvidia-smi: path or ""}
dcgm            {"rc", "tail"} of `dcgmi diag -r 1` where dcgmi exists
storage         with --storage=PATH: {"path", "dir": is a directory, "mount": the mount point
                holding it (/proc/self/mounts), "fstype"}; null without

The node's own files (/proc, /sys, /etc) are read under `root` ("/" on the node; tests point it
at a tree of their own); the paths given as arguments are looked up as they are.
"""

import glob
import json
import os
import shutil
import subprocess
import sys

# the node's own files, under root
GPUS = "proc/driver/nvidia/gpus"
NCCL_CONF = "etc/nccl.conf"
ENV_FILE = "etc/profile.d/gpufabric-nccl.sh"
INFINIBAND = "sys/class/infiniband"
MOUNTS = "proc/self/mounts"
# how /proc/self/mounts writes a space, tab, newline or backslash in a mount point (the
# backslash last: what it leaves is never read as another escape)
ESCAPES = (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\"))


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def roce_v2(root):
    for path in glob.glob(os.path.join(root, INFINIBAND, "*/ports/*/gid_attrs/types/*")):
        if "roce v2" in read(path).lower():
            return True
    return False


def conf_value(conf, key):
    """KEY's value in nccl.conf text as certify reads it (gpufabric.certify.clustermax
    parse_conf): `#` starts a comment, spaces and quotes around the value dropped, the last
    line wins; "" when unset."""
    value = ""
    for line in conf.splitlines():
        name, sep, rest = line.split("#", 1)[0].partition("=")
        if sep and name.strip() == key:
            value = rest.strip().strip('"').strip("'")
    return value


def storage(path, root):
    """Where PATH lives: the longest mount point of /proc/self/mounts that holds it."""
    real = os.path.realpath(path)
    best, fstype = "", ""
    for line in read(os.path.join(root, MOUNTS)).splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        mount = fields[1]
        for code, char in ESCAPES:
            mount = mount.replace(code, char)
        inside = real == mount or real.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, fstype = mount, fields[2]
    return {"path": path, "dir": os.path.isdir(path), "mount": best, "fstype": fstype}


def main(argv, root="/"):
    store = [a.split("=", 1)[1] for a in argv if a.startswith("--storage=")]
    tools = {t: shutil.which(t) or "" for t in ("nvbandwidth", "dcgmi", "nvidia-smi")}
    conf = read(os.path.join(root, NCCL_CONF))
    topo = conf_value(conf, "NCCL_TOPO_FILE")
    infiniband = os.path.join(root, INFINIBAND)
    out = {
        "gpus": len(glob.glob(os.path.join(root, GPUS, "*"))),
        "nccl_conf": conf,
        "nccl_env": read(os.path.join(root, ENV_FILE)),
        "roce_v2": roce_v2(root),
        "rdma": sorted(os.listdir(infiniband)) if os.path.isdir(infiniband) else [],
        # the absolute arguments: the flags (--no-dcgm, --storage=PATH) are no paths
        "paths": {p: os.path.exists(p) for p in [*argv, topo] if p.startswith("/")},
        "tools": tools,
        "dcgm": None,
        "storage": storage(store[0], root) if store and store[0].startswith("/") else None,
    }
    if tools["dcgmi"] and "--no-dcgm" not in argv:
        proc = subprocess.run(
            [tools["dcgmi"], "diag", "-r", "1"],
            capture_output=True,
            encoding="utf-8",
            errors="replace",  # as read(): a stray byte is no reason to print no report
            check=False,
        )
        out["dcgm"] = {"rc": proc.returncode, "tail": (proc.stdout + proc.stderr)[-2000:]}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
