#!/usr/bin/env python3
"""Gather raw fabric tool output on a node and print it as JSON (gpufabric fabric_facts role).

Runs each tool only if it is installed, reads a few sysfs files, changes nothing. Parsing is
done on the controller by the gpufabric library. Standard library only (Python >= 3.7).
"""

import glob
import json
import os
import re
import shutil
import subprocess

EXTRA_PATH = ["/opt/amazon/efa/bin", "/usr/sbin", "/sbin"]
TOOLS = {
    "nvidia_smi_topo": ("nvidia-smi", ["topo", "-m"]),
    "ibstat": ("ibstat", []),
    "ibv_devinfo": ("ibv_devinfo", []),
    "fi_info": ("fi_info", ["-p", "efa", "-t", "FI_EP_RDM"]),
    "ip_link": ("ip", ["-j", "-d", "link", "show"]),
    "ofed_info": ("ofed_info", ["-s"]),
}
PCI_VENDORS = ("0x10de", "0x15b3", "0x1d0f")
EFA_INSTALLED = "/opt/amazon/efa_installed_packages"
PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def which(name):
    path = os.pathsep.join([os.environ.get("PATH", "/usr/bin:/bin"), *EXTRA_PATH])
    return shutil.which(name, path=path) or ""


def run(argv):
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=30, check=False, text=True)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", str(exc)
    err = proc.stderr.strip().splitlines()[:1] if proc.returncode else []
    return proc.stdout, (f"rc={proc.returncode} " + " ".join(err)) if proc.returncode else ""


def read(path):
    try:
        with open(path) as fh:
            return fh.read().strip()
    except OSError:
        return ""


def device_info(dev_link):
    real = os.path.realpath(dev_link) if os.path.exists(dev_link) else ""
    addresses = [part for part in real.split("/") if PCI_ADDRESS.match(part)]
    return {
        "pci": addresses[-1] if addresses else "",
        "numa_node": read(os.path.join(dev_link, "numa_node")),
        "vendor": read(os.path.join(dev_link, "vendor")),
    }


def main():
    tools, outputs, errors = {}, {}, {}
    for key, (name, args) in TOOLS.items():
        path = which(name)
        tools[name] = path
        if path:
            outputs[key], err = run([path, *args])
            if err:
                errors[key] = err
    pci = []
    for dev in sorted(glob.glob("/sys/bus/pci/devices/*")):
        vendor = read(os.path.join(dev, "vendor"))
        if vendor in PCI_VENDORS:
            pci.append(
                {
                    "address": os.path.basename(dev),
                    "vendor": vendor,
                    "device": read(os.path.join(dev, "device")),
                    "class": read(os.path.join(dev, "class")),
                    "numa_node": read(os.path.join(dev, "numa_node")),
                }
            )
    net = {}
    for path in sorted(glob.glob("/sys/class/net/*")):
        info = device_info(os.path.join(path, "device"))
        info["speed"] = read(os.path.join(path, "speed"))
        net[os.path.basename(path)] = info
    rdma = {}
    for path in sorted(glob.glob("/sys/class/infiniband/*")):
        info = device_info(os.path.join(path, "device"))
        netdevs = glob.glob(os.path.join(path, "device", "net", "*"))
        info["netdevs"] = sorted(os.path.basename(p) for p in netdevs)
        rdma[os.path.basename(path)] = info
    efa_version = ""
    for line in read(EFA_INSTALLED).splitlines():
        if "installer version" in line.lower():
            efa_version = line.split(":", 1)[-1].strip()
    print(
        json.dumps(
            {
                "tools": tools,
                "outputs": {k: v for k, v in outputs.items() if k != "ofed_info"},
                "errors": errors,
                "ofed_version": outputs.get("ofed_info", "").strip().rstrip(":"),
                "efa_installer_version": efa_version,
                "sysfs": {"pci": pci, "net": net, "infiniband": rdma},
            },
            sort_keys=True,
        )
    )


if __name__ == "__main__":
    main()
