"""The NCCL environment file (/etc/profile.d/gpufabric-nccl.sh) and the nccl-tests launcher
never leave an empty entry in LD_LIBRARY_PATH.

glibc reads an empty entry (a leading, trailing or doubled ':') as the current directory and
searches it before ld.so.cache (ld.so(8)), so a login shell with LD_LIBRARY_PATH unset would
load libraries from wherever it stands. The real templates are rendered and sourced by real
shells (sh and bash), with the variable unset, empty and set.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import jinja2
import pytest

from gpufabric.nccl import profiles

REPO = Path(__file__).resolve().parents[2]
# every profile that prepends library folders (efa, gcp-tcpx, gcp-tcpxo, gcp-gib today)
PROFILES = sorted(
    name
    for name, p in profiles.book().profiles.items()
    if any(s.prepend for s in p.settings if s.name == "LD_LIBRARY_PATH")
)


def _env() -> jinja2.Environment:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["comment"] = lambda text: "\n".join(f"# {line}" for line in str(text).splitlines())
    env.filters["quote"] = lambda text: shlex.quote(str(text))
    return env


def render_nccl_env(profile: str) -> str:
    fabric = profiles.book().profiles[profile].fabric
    out = profiles.render({}, fabric, profile=profile, versions={"aws_ofi_nccl": "1.22.0"})
    template = (REPO / "roles/nccl/templates/nccl-env.sh.j2").read_text()
    return _env().from_string(template).render(ansible_managed="managed", __nccl_profile=out)


def source(shell: str, script: Path, before: str | None) -> str:
    """LD_LIBRARY_PATH after `shell` sources `script` (`before`: its value, None = unset)."""
    env = {"PATH": "/usr/bin:/bin"}
    if before is not None:
        env["LD_LIBRARY_PATH"] = before
    proc = subprocess.run(
        [shell, "-c", f'. {shlex.quote(str(script))}; printf "%s" "${{LD_LIBRARY_PATH-UNSET}}"'],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


def entries(value: str) -> list[str]:
    return value.split(":")


@pytest.mark.parametrize("shell", ["sh", "bash"])
@pytest.mark.parametrize("profile", PROFILES)
def test_profile_file_has_no_empty_library_path_entry(
    profile: str, shell: str, tmp_path: Path
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} not installed")
    script = tmp_path / "gpufabric-nccl.sh"
    script.write_text(render_nccl_env(profile))
    unset = source(shell, script, None)
    assert "" not in entries(unset), f"{profile}: LD_LIBRARY_PATH={unset!r} (empty entry = cwd)"
    assert unset != "UNSET" and all(e.startswith("/") for e in entries(unset)), unset
    assert "" not in entries(source(shell, script, "")), "an empty LD_LIBRARY_PATH"
    kept = source(shell, script, "/opt/site/lib")
    assert entries(kept)[-1] == "/opt/site/lib" and "" not in entries(kept), kept
    assert entries(kept)[:-1] == entries(unset)


def test_glibc_searches_no_current_directory(tmp_path: Path) -> None:
    """ld.so itself: with the profile sourced and LD_LIBRARY_PATH unset before, the search
    path LD_DEBUG=libs prints for a program holds no empty (current-directory) entry."""
    if shutil.which("bash") is None or not Path("/bin/true").exists():
        pytest.skip("bash or /bin/true missing")
    script = tmp_path / "gpufabric-nccl.sh"
    script.write_text(render_nccl_env("efa"))
    proc = subprocess.run(
        ["bash", "-c", f". {shlex.quote(str(script))}; LD_DEBUG=libs /bin/true"],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    # ld.so prints "search path=DIR:DIR...\t\t(LD_LIBRARY_PATH)"; an empty entry shows as
    # relative directories ("tls", "x86_64", ...: the current directory) and a trailing ':'
    lines = [ln for ln in proc.stderr.splitlines() if "(LD_LIBRARY_PATH)" in ln]
    assert lines, proc.stderr[-2000:]  # ld.so printed what it searched
    for line in lines:
        path = line.split("search path=", 1)[1].split("\t")[0]
        relative = [d for d in path.split(":") if not d.startswith("/")]
        assert relative == [], f"ld.so searches the current directory: {relative}"


def test_nccl_tests_launcher_has_no_empty_library_path_entry(tmp_path: Path) -> None:
    template = (REPO / "roles/nccl_tests/templates/run-nccl-tests.sh.j2").read_text()
    line = next(ln for ln in template.splitlines() if ln.startswith("export LD_LIBRARY_PATH="))
    rendered = (
        _env()
        .from_string(line)
        .render(
            __nccl_tests_nccl_home="/opt/nccl",
            nccl_tests_mpi_home="/opt/mpi",
            nccl_tests_cuda_home="/usr/local/cuda",
        )
    )
    script = tmp_path / "launcher-env.sh"
    script.write_text(rendered + "\n")
    assert "" not in entries(source("sh", script, None)), rendered
    assert source("sh", script, "/x").endswith(":/x")
