"""Size of a fresh virtual environment per install extra: what `pip install gpufabric[X]` costs.

Each extra is installed into its own new venv (editable, from this checkout; pip's cache is
shared, so only the first download is paid), then every file under the venv is counted.
Printed, not asserted: the figures are this machine's (Python version, wheels for its platform).

    .venv/bin/python benchmarks/venv_size.py [--python python3.13] [--extras core aws gcp azure all]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def tree_bytes(root: Path) -> int:
    """Apparent size of every regular file under root (links not followed)."""
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink():
                total += path.stat().st_size
    return total


def venv_for(python: str, extra: str, where: Path) -> int:
    venv = where / (extra or "core")
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
    ]
    target = f"{REPO}[{extra}]" if extra != "core" else str(REPO)
    subprocess.run([*pip, "-e", target], check=True, stdout=subprocess.DEVNULL)
    size = tree_bytes(venv)
    shutil.rmtree(venv)
    return size


def main() -> None:
    extras = list(
        tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    )
    clouds = [e for e in extras if e not in ("all", "dev", "fabric")]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--extras", nargs="+", default=["core", *clouds, "all"])
    args = ap.parse_args()
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="gpufabric-venv-size-") as tmp:
        for extra in args.extras:
            sizes[extra] = venv_for(args.python, extra, Path(tmp))
            print(f"measured {extra}", file=sys.stderr, flush=True)
    version = subprocess.run([args.python, "--version"], capture_output=True, text=True).stdout
    print(f"venv size per extra ({version.strip()}, editable install of this checkout)")
    reference = sizes.get("all") or max(sizes.values())
    for extra, size in sizes.items():
        print(f"  {extra:8} {size / 2**20:8.0f} MiB   {size / reference:5.2f} of [all]")


if __name__ == "__main__":
    main()
