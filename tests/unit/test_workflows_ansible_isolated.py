"""The fabric job runs Ansible with nothing from the runner's home: a callback plugin planted in
~/.ansible/plugins/callback/ (by an earlier job on a reused runner) runs inside a plain
ansible-playbook, and does not run through .github/scripts/ansible_isolated.py.

Real ansible-playbook, against localhost (connection local), with a scratch HOME."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / ".github" / "scripts" / "ansible_isolated.py"
PLAYBOOK = (
    "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug: {msg: hi}\n"
)


def _isolated():
    spec = importlib.util.spec_from_file_location("ansible_isolated", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plant(home: Path, marker: Path) -> None:
    """What an attacker leaves on a reused runner: a callback plugin and a user config."""
    callback = home / ".ansible" / "plugins" / "callback"
    callback.mkdir(parents=True)
    (callback / "planted.py").write_text(
        "from ansible.plugins.callback import CallbackBase\n"
        f"open({str(marker)!r}, 'w').write('loaded')\n"
        "class CallbackModule(CallbackBase):\n"
        "    CALLBACK_VERSION = 2.0\n"
        "    CALLBACK_TYPE = 'notification'\n"
        "    CALLBACK_NAME = 'planted'\n"
    )
    (home / ".ansible.cfg").write_text(f"[defaults]\ncallback_plugins = {callback}\n")


def run(argv: list[str], home: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    book = tmp / "ping.yml"
    book.write_text(PLAYBOOK)
    env = {**os.environ, "HOME": str(home), "RUNNER_TEMP": str(tmp)}
    env.pop("ANSIBLE_CONFIG", None)
    ansible = str(Path(sys.executable).parent / "ansible-playbook")
    cmd = [*argv, ansible, "-i", "localhost,", "-c", "local", str(book)]
    return subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True, check=False)


def test_a_planted_callback_runs_in_plain_ansible_but_not_isolated(tmp_path: Path) -> None:
    if not (Path(sys.executable).parent / "ansible-playbook").exists():
        pytest.skip("ansible-playbook not in this venv")
    home, marker = tmp_path / "runner-home", tmp_path / "stolen"
    plant(home, marker)
    plain = run([], home, tmp_path)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert marker.exists(), "the attack is not reproduced: the test proves nothing"
    marker.unlink()
    isolated = run([sys.executable, str(SCRIPT)], home, tmp_path)
    assert isolated.returncode == 0, isolated.stdout[-2000:] + isolated.stderr[-2000:]
    assert "ok=1" in isolated.stdout
    assert not marker.exists(), "a planted callback ran inside the isolated Ansible"
    assert [p.name for p in tmp_path.glob("ansible-home.*")] == []  # the fresh HOME is gone


def test_isolated_env_pins_every_path_into_the_repository(tmp_path: Path) -> None:
    mod = _isolated()
    inherited = {
        "ANSIBLE_CALLBACK_PLUGINS": "/home/runner/evil",
        "ANSIBLE_CONFIG": "/home/runner/.ansible.cfg",
        "ANSIBLE_CALLBACKS_ENABLED": "evil",
        "ANSIBLE_PRIVATE_KEY_FILE": "/tmp/key",
        "PYTHONPATH": "/home/runner/py",
        "PATH": "/usr/bin",
    }
    env = mod.isolated_env(inherited, tmp_path / "h", REPO)
    assert env["HOME"] == str(tmp_path / "h") and env["ANSIBLE_CONFIG"] == str(REPO / "ansible.cfg")
    assert "ANSIBLE_CALLBACKS_ENABLED" not in env and "PYTHONPATH" not in env
    assert env["ANSIBLE_PRIVATE_KEY_FILE"] == "/tmp/key" and env["PATH"] == "/usr/bin"
    for name in mod.PLUGIN_PATHS:
        assert env[name].startswith(str(REPO) + "/"), name
    assert env["ANSIBLE_FILTER_PLUGINS"] == str(REPO / "plugins" / "filter")


def test_every_ansible_step_of_the_workflows_runs_isolated() -> None:
    """Every step that runs an ansible-* program in a job holding credentials goes through
    the wrapper (the lint and test jobs hold none)."""
    found = 0
    for path in sorted((REPO / ".github" / "workflows").glob("*.yml")):
        for job_id, job in yaml.safe_load(path.read_text())["jobs"].items():
            if "id-token" not in job.get("permissions", {}):
                continue
            for step in job.get("steps", []):
                # one command per line (continuation lines joined)
                run = str(step.get("run", "")).replace("\\\n", " ")
                for line in run.splitlines():
                    if "bin/ansible" in line or "gpufabric certify" in line:
                        found += 1
                        assert "ansible_isolated.py" in line, f"{path.name}:{job_id}: {line}"
    assert found >= 5  # inventory graph, tune-fabric, topology, benchmark, certify
