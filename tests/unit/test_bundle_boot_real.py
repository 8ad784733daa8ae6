"""The boot script for real: `python boot.py` as cloud-init runs it, with the real
`ansible-playbook -c local` of this venv.

A bundle of a small project (its own playbook writes one file) is fetched from a file:// URL,
checked, unpacked and run; a tampered copy is refused before anything runs; a failed play is
the reason; day 2 switches the node to another bundle. The script runs in its own process
here, so mutation testing does not see it: test_bundle_boot.py and test_bundle_boot_steps.py
call the same functions in-process (these slow tests are left out of the mutation group).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from gpufabric.bundle import render, userdata
from gpufabric.bundle.render import BundleSpec

VENV_PYTHON = Path(sys.executable)


MINI_PLAYBOOK = """\
- name: Write the node's marker
  hosts: gpu_nodes
  gather_facts: false
  tasks:
    - name: Write it
      ansible.builtin.copy:
        dest: "{{ marker_path }}"
        content: "fabric={{ gpufabric_fabric }} leaf={{ gpufabric_leaf | default('none') }} groups={{ group_names | sort | join(',') }}\\n"
        mode: "0644"
"""


def _mini_repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    (repo / "playbooks").mkdir(parents=True)
    (repo / "roles").mkdir()
    (repo / "plugins").mkdir()
    (repo / "ansible.cfg").write_text("[defaults]\nretry_files_enabled = False\n")
    (repo / "playbooks" / "mini.yml").write_text(MINI_PLAYBOOK)
    return repo


def _boot(tmp: Path, bundle: render.Bundle, data: bytes, host: str) -> tuple[int, dict[str, Any]]:
    served = tmp / "served.tar.gz"
    served.write_bytes(data)
    cfg = userdata.boot_config(bundle, f"file://{served}", "gpu_nodes", f"python:{VENV_PYTHON}")
    settings = {
        **cfg.to_dict(),
        "result": str(tmp / "result.json"),
        "log": str(tmp / "boot.log"),
        "workdir": str(tmp / "work"),
        "host": host,
    }
    (tmp / "boot.json").write_text(json.dumps(settings))
    proc = subprocess.run(
        [sys.executable, str(userdata.BOOT_SCRIPT), str(tmp / "boot.json")],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    return proc.returncode, json.loads((tmp / "result.json").read_text())


def _mini_bundle(tmp: Path) -> render.Bundle:
    marker = tmp / "marker.txt"
    spec = BundleSpec(
        "mini",
        {"gpu_nodes": {"gpufabric_fabric": "lab", "marker_path": str(marker)}},
        playbooks=("mini.yml",),
        skip_tags=(),
        hosts={"n1": {"vars": {"gpufabric_leaf": "leaf7"}, "groups": ["controller"]}},
    )
    return render.render(spec, _mini_repo(tmp), tmp / "out")


def test_boot_script_fetches_checks_and_runs_the_playbook_locally(tmp_path: Path) -> None:
    b = _mini_bundle(tmp_path)
    code, result = _boot(tmp_path, b, b.path.read_bytes(), "n1")
    assert code == 0, (tmp_path / "boot.log").read_text()
    assert result["status"] == "configured"
    assert result["recap"]["changed"] == 1 and result["recap"]["failed"] == 0
    assert result["sha256"] == b.sha256
    assert (tmp_path / "marker.txt").read_text() == (
        "fabric=lab leaf=leaf7 groups=controller,gpu_nodes\n"
    )


def test_boot_script_refuses_a_tampered_bundle_and_runs_nothing(tmp_path: Path) -> None:
    b = _mini_bundle(tmp_path)
    raw = bytearray(b.path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    code, result = _boot(tmp_path, b, bytes(raw), "n1")
    assert code == 1
    assert result["status"] == "not-configured"
    assert result["reason"].startswith(f"bundle sha256 mismatch: expected {b.sha256}, got ")
    assert not (tmp_path / "marker.txt").exists()
    assert not (tmp_path / "work").exists()


def test_boot_script_reports_a_failed_play(tmp_path: Path) -> None:
    b = _mini_bundle(tmp_path)
    # the marker's path is a directory: the copy task fails
    (tmp_path / "marker.txt").mkdir()
    (tmp_path / "marker.txt" / "x").write_text("")
    code, result = _boot(tmp_path, b, b.path.read_bytes(), "n1")
    assert code == 1
    assert result["status"] == "not-configured"
    assert result["reason"].startswith("ansible-playbook mini.yml exited 2: ")
    assert "can not use content with a dir as dest" in result["reason"]


def test_day_two_run_switches_to_the_given_bundle_and_records_it(tmp_path: Path) -> None:
    first = _mini_bundle(tmp_path)
    code, _ = _boot(tmp_path, first, first.path.read_bytes(), "n1")
    assert code == 0
    (tmp_path / "marker.txt").unlink()
    spec = dataclasses.replace(
        first.spec,
        groups={"gpu_nodes": {**first.spec.groups["gpu_nodes"], "gpufabric_fabric": "x"}},
    )
    second = render.render(spec, tmp_path / "repo", tmp_path / "out2")
    argv = [sys.executable, str(userdata.BOOT_SCRIPT), str(tmp_path / "boot.json")]
    day2 = [*argv, "--bundle", f"file://{second.path}", "--sha256", second.sha256]
    proc = subprocess.run(day2, capture_output=True, text=True, check=False, timeout=300)
    assert proc.returncode == 0, (tmp_path / "boot.log").read_text()[-2000:]
    assert (tmp_path / "marker.txt").read_text().startswith("fabric=x ")
    settings = json.loads((tmp_path / "boot.json").read_text())
    assert (settings["url"], settings["sha256"]) == (f"file://{second.path}", second.sha256)
    assert (tmp_path / "boot.json").stat().st_mode & 0o777 == 0o600
    bad = subprocess.run(
        [*argv, "--bundle", "x", "--sha256", "nothex"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2 and "--sha256 'nothex'" in bad.stderr
    assert json.loads((tmp_path / "boot.json").read_text())["sha256"] == second.sha256
