"""`lab up --boot`: hosts that configure themselves at first boot through cloud-init.

Before the hosts start, the lab renders the configuration bundle (gpufabric.bundle.render) for
its own variables (the same ones its push inventory carries) into its object-store stand-in,
<lab dir>/objects, which every host sees read-only at OBJECTS_MOUNT. Each host gets a NoCloud
seed (/var/lib/cloud/seed/nocloud/{user-data,meta-data}) whose user data is the renderer's
node user data (gpufabric.bundle.userdata) for that bundle, and cloud-init is switched on in its
overlay (the base image ships it switched off). Debian's cloud-init then runs the boot script
in cloud-final: fetch, sha256 check, `ansible-playbook -c local`, /var/lib/gpufabric/
boot-result.json. Lab hosts have no package index, so the bundle carries the node runtime as
wheels (downloaded once on this machine, cached beside the base image).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import uuid
from pathlib import Path

import yaml

from gpufabric.bundle import render as bundle_render
from gpufabric.bundle import userdata
from gpufabric.bundle.render import Bundle, BundleSpec
from gpufabric.errors import Arg, UserError
from gpufabric.inputs.errors import InputError, one_line
from gpufabric.inputs.formats import parse_json
from gpufabric.lab import rootfs
from gpufabric.lab.hosts import OBJECTS_MOUNT
from gpufabric.lab.inventory import lab_vars
from gpufabric.lab.layout import HostPlan, LabLayout

RESULT_PATH = userdata.RESULT_PATH
REPO = Path(__file__).resolve().parents[3]
GROUP = "gpu_nodes"
# cloud-init's settings on a booting lab host: leave the lab what it owns (the addresses, set
# from outside; the ssh host keys in its known_hosts; root's login; the hostname; apt sources)
# and skip the locale (the image generates none: update-locale would fail the stage)
CLOUD_CFG_DROPIN = "etc/cloud/cloud.cfg.d/90-gpufabric-lab.cfg"
CLOUD_CFG = {
    "datasource_list": ["NoCloud"],
    "network": {"config": "disabled"},
    "ssh_deletekeys": False,
    "ssh_genkeytypes": [],
    "disable_root": False,
    "preserve_hostname": True,
    "manage_etc_hosts": False,
    "users": [],
    "locale": False,
    "apt": {"preserve_sources_list": True},
}


def lab_spec(layout: LabLayout) -> BundleSpec:
    """The lab's variables as one node group, and each host's own (leaf, groups): what the
    push inventory (gpufabric.lab.inventory) gives the same hosts."""
    hosts = {
        h.name: {
            "vars": {"gpufabric_leaf": h.leaf},
            "groups": [h.leaf, *(["controller"] if i == 0 else [])],
        }
        for i, h in enumerate(layout.hosts)
    }
    return BundleSpec(layout.name, {GROUP: lab_vars(layout)}, hosts=hosts)


def wheels_dir() -> Path:
    """The node runtime as wheels for this machine's Python (cached by requirements)."""
    reqs = "\n".join(bundle_render.NODE_REQUIREMENTS) + "\n"
    key = hashlib.sha256(f"{sys.version_info[:2]}\n{reqs}".encode()).hexdigest()[:16]
    dest = rootfs.cache_dir().parent / "wheels" / key
    if (dest / ".complete").is_file():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    req_file = dest / "requirements.txt"
    req_file.write_text(reqs)
    pip = [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:"]
    proc = subprocess.run(
        [*pip, "-d", str(dest), "-r", str(req_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError(
            "lab ", Arg("boot"), f": downloading the node runtime's wheels failed: {last}"
        )
    (dest / ".complete").write_text("")
    return dest


def publish(layout: LabLayout, objects: Path) -> Bundle:
    """Render the lab's bundle into the object-store stand-in."""
    if not (REPO / "roles").is_dir() or not (REPO / "ansible.cfg").is_file():
        raise UserError(
            "lab ", Arg("boot"), f" needs the project's roles and playbooks next to {REPO}"
        )
    return bundle_render.render(lab_spec(layout), REPO, objects, wheels_dir())


def seed(root: Path, host: HostPlan, bundle: Bundle) -> str:
    """Write the host's NoCloud seed and switch cloud-init on in its overlay; returns the
    user data."""
    url = f"file://{OBJECTS_MOUNT}/{bundle.name}"
    data = userdata.render(userdata.boot_config(bundle, url, GROUP, runtime="wheels"))
    nocloud = root / "var/lib/cloud/seed/nocloud"
    nocloud.mkdir(parents=True, exist_ok=True)
    (nocloud / "user-data").write_text(data)
    meta = {"instance-id": f"{host.machine}-{uuid.uuid4().hex[:8]}", "local-hostname": host.name}
    (nocloud / "meta-data").write_text(yaml.safe_dump(meta, sort_keys=True))
    dropin = root / CLOUD_CFG_DROPIN
    dropin.parent.mkdir(parents=True, exist_ok=True)
    dropin.write_text("# gpufabric lab up --boot\n" + yaml.safe_dump(CLOUD_CFG, sort_keys=False))
    (root / rootfs.CLOUD_INIT_DISABLED).unlink(missing_ok=True)
    return data


def read_result(text: str | None) -> tuple[str, str]:
    """(state, reason) from a host's boot-result.json (a node report: read strictly, shown as
    one printable line): configured / not configured / configuring."""
    if text is None or not text.strip():
        return "not configured", "no boot result yet (cloud-init has not run the bundle)"
    try:
        doc = parse_json(text, where=RESULT_PATH)
    except InputError as exc:
        return "not configured", one_line(str(exc))
    if not isinstance(doc, dict):
        return "not configured", f"{RESULT_PATH}: not a JSON object"
    status = doc.get("status")
    if status == "configured":
        recap = doc.get("recap")
        changed = recap.get("changed", "?") if isinstance(recap, dict) else "?"
        seconds = doc.get("seconds", "?")
        return "configured", one_line(f"changed={changed} in {seconds} s")
    if status == "running":
        return "configuring", one_line(f"since {doc.get('started', '?')}")
    return "not configured", one_line(str(doc.get("reason") or f"status {status!r}"))
