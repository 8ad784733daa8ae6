#!/usr/bin/env python3
"""Read a node's fabric health counters without sending traffic; print them as JSON.

gpufabric fabric_health role, step 1. Reads sysfs (netdevs, their PCIe link, RDMA ports and
their counters), `ethtool -S` of mlx5 ports and the GPUs' PCIe link from nvidia-smi, only where
present. Changes nothing. Parsing and judging happen on the controller (gpufabric.health).
Standard library only (Python >= 3.7).
"""

import glob
import json
import os
import shutil
import subprocess

# type: the ARPHRD link type (1 Ethernet, 32 InfiniBand, 65534 none: a layer-3 TUN device)
NET_FILES = ("operstate", "carrier", "mtu", "speed", "carrier_changes", "type")
NET_STATS = ("rx_errors", "tx_errors", "rx_dropped", "tx_dropped", "rx_crc_errors")
PCIE_FILES = ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")
PORT_FILES = ("state", "phys_state", "rate", "link_layer")
NVSMI_QUERY = (
    "index,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,"
    "pcie.link.width.current,pcie.link.width.max"
)
EXTRA_PATH = ["/usr/sbin", "/sbin"]


def read(path):
    try:
        with open(path) as fh:
            return fh.read().strip()
    except OSError:
        return None


def which(name):
    return shutil.which(name, path=os.pathsep.join([os.environ.get("PATH", ""), *EXTRA_PATH]))


def run(argv):
    try:
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout if proc.returncode == 0 else ""


def files(directory, names=None):
    if names is None:
        names = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
    out = {}
    for name in names:
        value = read(os.path.join(directory, name))
        if value is not None:
            out[name] = value
    return out


def netdev(path):
    name = os.path.basename(path)
    info = files(path, NET_FILES)
    info["stats"] = files(os.path.join(path, "statistics"), NET_STATS)
    device = os.path.join(path, "device")
    info["pcie"] = files(device, PCIE_FILES) if os.path.exists(device) else {}
    driver = os.path.realpath(os.path.join(device, "driver")) if os.path.exists(device) else ""
    info["driver"] = os.path.basename(driver)
    ethtool = which("ethtool")
    if info["driver"] == "mlx5_core" and ethtool:
        info["ethtool"] = run([ethtool, "-S", name])
    return name, info


def rdma(path):
    ports = {}
    for port in sorted(glob.glob(os.path.join(path, "ports", "*"))):
        p = files(port, PORT_FILES)
        p["counters"] = files(os.path.join(port, "counters"))
        p["hw_counters"] = files(os.path.join(port, "hw_counters"))
        ports[os.path.basename(port)] = p
    nets = sorted(os.path.basename(n) for n in glob.glob(os.path.join(path, "device", "net", "*")))
    return os.path.basename(path), {"ports": ports, "netdevs": nets}


def main():
    net = dict(netdev(p) for p in sorted(glob.glob("/sys/class/net/*")))
    ib = dict(rdma(p) for p in sorted(glob.glob("/sys/class/infiniband/*")))
    nvsmi = which("nvidia-smi")
    gpus = (
        run([nvsmi, "--query-gpu=" + NVSMI_QUERY, "--format=csv,noheader,nounits"]) if nvsmi else ""
    )
    print(json.dumps({"net": net, "ib": ib, "nvidia_smi_pcie": gpus}, sort_keys=True))


if __name__ == "__main__":
    main()
