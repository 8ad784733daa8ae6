"""The lab's base root filesystem: built once with debootstrap, cached by its package list.

Cache layout: <cache>/<key>/rootfs (the tree every host overlays) and <key>/manifest.json,
where <key> is a hash of packages.yaml's content (suite, variant, sorted package names) and of
RECIPE_VERSION. A changed package list builds a new base on the next `lab up`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from gpufabric.errors import UserError
from gpufabric.inputs import packaged
from gpufabric.inputs.formats import parse_yaml

# Bump when the build steps below change in a way that makes old caches wrong.
RECIPE_VERSION = 2
DEFAULT_CACHE = Path("/var/cache/gpufabric/rootfs")
# Units that would start (and fail: no configuration yet) at every boot; the roles that own
# them enable them. Keeps `systemctl is-system-running` at "running" on a fresh host.
DISABLED_UNITS = ("slurmd", "slurmctld", "munge", "strongswan", "iperf3")
# cloud-init runs only on hosts of `lab up --boot` (gpufabric.lab.boot removes this marker in
# their overlay and writes their cloud-init settings)
CLOUD_INIT_DISABLED = "etc/cloud/cloud-init.disabled"


@dataclass(frozen=True)
class PackageList:
    suite: str
    variant: str
    packages: tuple[str, ...]

    def key(self) -> str:
        """Cache key: changes exactly when what goes into the image changes."""
        doc = {
            "recipe": RECIPE_VERSION,
            "suite": self.suite,
            "variant": self.variant,
            "packages": sorted(set(self.packages)),
        }
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


def load_packages(text: str | None = None) -> PackageList:
    """Parse packages.yaml (or the given text); names are checked, duplicates allowed."""
    if text is None:
        text = packaged.read_text("gpufabric.lab", "packages.yaml")
    doc = parse_yaml(text, where="lab packages.yaml")
    if not isinstance(doc, dict) or not isinstance(doc.get("packages"), list):
        raise UserError("lab packages.yaml: expected a mapping with a 'packages' list")
    names: list[str] = []
    for entry in doc["packages"]:
        name = entry.get("name") if isinstance(entry, dict) else entry
        if (
            not isinstance(name, str)
            or not name
            or not all(c.isalnum() or c in "+-.:" for c in name)
        ):
            raise UserError(f"lab packages.yaml: bad package entry {entry!r}")
        names.append(name)
    return PackageList(
        str(doc.get("suite", "bookworm")), str(doc.get("variant", "minbase")), tuple(names)
    )


@dataclass(frozen=True)
class AptSource:
    uri: str
    suite: str
    components: tuple[str, ...]


def parse_apt_sources(files: dict[str, str]) -> list[AptSource]:
    """`deb` entries of apt source files (one-line *.list and deb822 *.sources), in order."""
    out: list[AptSource] = []
    for fname in sorted(files, key=lambda f: (not f.endswith("sources.list"), f)):
        text = files[fname]
        if fname.endswith(".list"):
            for raw in text.splitlines():
                words = raw.split("#", 1)[0].split()
                if len(words) >= 3 and words[0] == "deb":
                    words = [w for w in words[1:] if not w.startswith("[")]
                    if words and words[0].endswith("]"):
                        words = words[1:]
                    out.append(AptSource(words[0].rstrip("/"), words[1], tuple(words[2:])))
        elif fname.endswith(".sources"):
            for stanza in text.split("\n\n"):
                fields: dict[str, str] = {}
                for raw in stanza.splitlines():
                    if raw.startswith("#") or ":" not in raw or raw[:1].isspace():
                        continue
                    key, _, value = raw.partition(":")
                    fields[key.strip().lower()] = value.strip()
                if "deb" not in fields.get("types", "").split():
                    continue
                if fields.get("enabled", "yes").lower() == "no":
                    continue
                for uri in fields.get("uris", "").split():
                    for suite in fields.get("suites", "").split():
                        comps = tuple(fields.get("components", "").split())
                        out.append(AptSource(uri.rstrip("/"), suite, comps))
    return out


def read_machine_sources(etc: Path = Path("/etc/apt")) -> list[AptSource]:
    files: dict[str, str] = {}
    main = etc / "sources.list"
    if main.is_file():
        files[str(main)] = main.read_text()
    d = etc / "sources.list.d"
    if d.is_dir():
        for f in sorted(d.iterdir()):
            if f.suffix in (".list", ".sources") and f.is_file():
                files[str(f)] = f.read_text()
    return parse_apt_sources(files)


def mirror_for(sources: list[AptSource], suite: str) -> tuple[str, list[AptSource]]:
    """The machine's mirror for `suite`, and every entry for it (updates, security) to copy."""
    related = [s for s in sources if s.suite == suite or s.suite.startswith(suite + "-")]
    main = [s for s in related if s.suite == suite]
    if not main:
        raise UserError(
            f"no '{suite}' entry in /etc/apt/sources.list*: the lab base image "
            "uses the machine's own Debian mirror"
        )
    return main[0].uri, related


def cache_dir() -> Path:
    return Path(os.environ.get("GPUFABRIC_LAB_CACHE", DEFAULT_CACHE))


def ensure_rootfs(packages: PackageList | None = None) -> Path:
    """Path of the cached base rootfs for the package list, building it if missing.

    The build log is <cache>/<key>.log (kept after the lab goes down, for a failed build).
    """
    pkgs = packages or load_packages()
    base = cache_dir()
    final = base / pkgs.key()
    log = base / f"{pkgs.key()}.log"
    base.mkdir(parents=True, exist_ok=True)
    with open(base / f"{pkgs.key()}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two labs coming up at once build it once
        if not (final / "manifest.json").is_file():
            _build(final, pkgs, log)
    return final / "rootfs"


def _run(argv: list[str], log: Path, what: str, env: dict[str, str] | None = None) -> None:
    with open(log, "a") as out:
        out.write(f"$ {' '.join(argv)}\n")
        out.flush()
        proc = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
    if proc.returncode != 0:
        raise UserError(
            f"building the lab base image failed at {what} (exit {proc.returncode}); see {log}"
        )


def _build(final: Path, pkgs: PackageList, log: Path) -> None:
    uri, related = mirror_for(read_machine_sources(), pkgs.suite)
    tmp = final.with_name(final.name + ".building")
    for stale in (tmp, final):  # leftovers of an interrupted build
        if stale.exists():
            shutil.rmtree(stale)
    root = tmp / "rootfs"
    root.mkdir(parents=True)
    started = time.monotonic()
    _run(
        ["debootstrap", f"--variant={pkgs.variant}", pkgs.suite, str(root), uri], log, "debootstrap"
    )
    policy = root / "usr/sbin/policy-rc.d"  # package scripts start no services in the chroot
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)
    (root / "etc/apt/sources.list").write_text(
        "".join(f"deb {s.uri} {s.suite} {' '.join(s.components)}\n" for s in related)
    )
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "DEBIAN_FRONTEND": "noninteractive",
        "LC_ALL": "C",
    }
    names = " ".join(sorted(set(pkgs.packages)))
    disable = " ".join(DISABLED_UNITS)
    script = (
        f"set -e; mount -t proc proc {root}/proc; "
        f"chroot {root} apt-get update -q; "
        f"chroot {root} apt-get install -y -q --no-install-recommends {names}; "
        f"chroot {root} apt-get clean; "
        f"for u in {disable}; do chroot {root} systemctl disable $u.service 2>/dev/null || true; done"
    )
    # A private mount namespace: /proc for the package scripts vanishes with it.
    _run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        log,
        "apt-get install",
        env=env,
    )
    policy.unlink()
    if (root / "etc/cloud").is_dir():
        (root / CLOUD_INIT_DISABLED).write_text("")
    for key in (root / "etc/ssh").glob("ssh_host_*"):
        key.unlink()  # every host gets its own
    (root / "etc/machine-id").write_text("")
    (root / "etc/hostname").write_text("lab\n")
    manifest = {
        "packages": sorted(set(pkgs.packages)),
        "suite": pkgs.suite,
        "variant": pkgs.variant,
        "mirror": uri,
        "recipe": RECIPE_VERSION,
        "build_seconds": round(time.monotonic() - started, 1),
    }
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    tmp.rename(final)
