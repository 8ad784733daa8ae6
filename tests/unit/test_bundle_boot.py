"""The boot script in-process: main, the Ansible runtime and the plays, with a fake runner.

test_bundle_boot_real.py runs the script for real (`python boot.py` and the real ansible-playbook); here
its functions are called in this process with temporary paths and `subprocess.run` replaced by
a runner that records each command and answers like pip / ansible-playbook would: what it
runs, with which environment, what it writes (the result, the log, the settings on day 2),
its exit codes and what it refuses before anything runs.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufabric.bundle import boot, render, userdata

# the node's own paths, as the script has them (the tests put them under tmp_path)
NODE_RESULT, NODE_LOG = str(boot.RESULT_PATH), str(boot.LOG_PATH)
RECAP = "PLAY RECAP ***\n{host}   : ok={ok}    changed={changed}    unreachable=0    failed=0\n"


class Runner:
    """subprocess.run for the boot script: records (argv, kwargs); ansible-playbook answers
    with a recap of the host (or `fail`'s exit and output), the others exit `codes[word]`."""

    def __init__(self, host: str = "n1") -> None:
        self.calls: list[tuple[list[str], dict[str, Any]]] = []
        self.host = host
        self.fail: dict[str, tuple[int, str, str]] = {}  # playbook name -> (rc, out, err)
        self.codes: dict[str, int] = {}  # "venv" / "pip" -> exit status
        self.seen_result: list[dict[str, Any]] = []
        self.result_path: Path | None = None

    def __call__(self, argv: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        self.calls.append((list(argv), kw))
        if self.result_path is not None:  # what the result said while this ran
            self.seen_result.append(json.loads(self.result_path.read_text()))
        if argv[0].endswith("ansible-playbook"):
            book = Path(argv[-1]).name
            rc, out, err = self.fail.get(book, (0, "", ""))
            n = len([c for c in self.calls if c[0][0].endswith("ansible-playbook")])
            out = out or RECAP.format(host=self.host, ok=2 * n, changed=n)
            return subprocess.CompletedProcess(argv, rc, out, err)
        word = "venv" if argv[1:3] == ["-m", "venv"] else "pip"
        if word == "venv":
            (Path(argv[3]) / "bin").mkdir(parents=True)
        kw["stdout"].write(f"({word} output)\n")
        return subprocess.CompletedProcess(argv, self.codes.get(word, 0))


@pytest.fixture(autouse=True)
def node_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The node's fixed paths under tmp_path: no test (nor a mutant of the script) writes to
    /var or /opt of the machine running the tests."""
    for name in ("RESULT_PATH", "LOG_PATH", "WORKDIR", "VENVS"):
        monkeypatch.setattr(boot, name, tmp_path / "node" / name.lower())


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> Runner:
    fake = Runner()
    monkeypatch.setattr(boot.subprocess, "run", fake)
    monkeypatch.setattr(boot.time, "sleep", lambda s: None)
    return fake


def _bundle_bytes(host_entry: dict[str, Any] | None = None) -> bytes:
    files = {
        "ansible.cfg": b"[defaults]\n",
        "groups/gpu_nodes.json": json.dumps({"gpufabric_fabric": "efa", "x": 1}).encode(),
        "node-requirements.txt": b"ansible-core==2.19.14\n",
        "playbooks/a.yml": b"- hosts: all\n",
        "playbooks/b.yml": b"- hosts: all\n",
    }
    if host_entry is not None:
        files["hosts/n1.json"] = json.dumps(host_entry).encode()
    return render.archive(files)


def _settings(tmp: Path, data: bytes, **kw: Any) -> dict[str, Any]:
    served = tmp / "served.tar.gz"
    served.write_bytes(data)
    interpreter = tmp / "py" / "bin" / "python"
    interpreter.parent.mkdir(parents=True, exist_ok=True)
    interpreter.write_text("")
    cfg = {
        "url": f"file://{served}",
        "sha256": hashlib.sha256(data).hexdigest(),
        "version": "1.0+abc",
        "group": "gpu_nodes",
        "playbooks": ["a.yml", "b.yml"],
        "skip_tags": ["topology"],
        "runtime": f"python:{interpreter}",
        "result": str(tmp / "result.json"),
        "log": str(tmp / "logs" / "boot.log"),
        "workdir": str(tmp / "work" / "bundles"),
        "host": "n1",
    }
    cfg.update(kw)
    return {k: v for k, v in cfg.items() if v is not None}


def _main(tmp: Path, cfg: dict[str, Any], *extra: str) -> tuple[int, dict[str, Any]]:
    (tmp / "boot.json").write_text(json.dumps(cfg))
    code = boot.main(["gpufabric-boot", str(tmp / "boot.json"), *extra])
    result = Path(cfg.get("result", boot.RESULT_PATH))
    return code, json.loads(result.read_text())


# ---------------------------------------------------------------- main
def test_first_boot_runs_each_playbook_and_writes_the_result(
    tmp_path: Path, runner: Runner
) -> None:
    data = _bundle_bytes()
    cfg = _settings(tmp_path, data)
    runner.result_path = tmp_path / "result.json"
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "boot.log").write_text("an earlier boot\n")
    code, result = _main(tmp_path, cfg)
    assert code == 0
    sha = cfg["sha256"]
    playbook = str(tmp_path / "py" / "bin" / "ansible-playbook")  # beside the interpreter
    assert [c[0][0] for c in runner.calls] == [playbook, playbook]
    assert [c[0][-1] for c in runner.calls] == [
        str(tmp_path / "work" / "bundles" / sha / "playbooks" / "a.yml"),
        str(tmp_path / "work" / "bundles" / sha / "playbooks" / "b.yml"),
    ]
    # while the plays ran, the result said so
    assert {r["status"] for r in runner.seen_result} == {"running"}
    assert "finished" not in runner.seen_result[0] and "recap" not in runner.seen_result[0]
    started, finished = result.pop("started"), result.pop("finished")
    assert (round(started, 3), round(finished, 3)) == (started, finished)  # milliseconds
    assert isinstance(finished, float) and isinstance(result["seconds"], float)
    assert started <= finished and result.pop("seconds") == round(finished - started, 1)
    assert result == {
        "status": "configured",
        "reason": "",
        "host": "n1",
        "group": "gpu_nodes",
        "bundle": cfg["url"],
        "sha256": sha,
        "version": "1.0+abc",
        "log": cfg["log"],
        "recap": {"ok": 2 + 4, "changed": 1 + 2, "unreachable": 0, "failed": 0},
    }
    assert (tmp_path / "work" / "bundles" / f"{sha}.tar.gz").read_bytes() == data
    assert (tmp_path / "work" / "bundles" / sha / "groups" / "gpu_nodes.json").is_file()
    log = Path(cfg["log"]).read_text()
    assert log.startswith("an earlier boot\n$ ")  # appended to
    assert log.endswith("gpufabric-boot: configured \n")
    assert log.count("PLAY RECAP") == 2
    assert json.loads((tmp_path / "boot.json").read_text()) == cfg  # first boot: unchanged


def test_the_result_times_the_run_in_tenths_of_a_second(
    tmp_path: Path, runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = iter([1000.0, 1012.3456])
    monkeypatch.setattr(boot.time, "time", lambda: next(clock))
    code, result = _main(tmp_path, _settings(tmp_path, _bundle_bytes()))
    assert code == 0
    assert (result["started"], result["finished"], result["seconds"]) == (1000.0, 1012.346, 12.3)


def test_the_result_file_is_whole_json_readable_by_all(tmp_path: Path, runner: Runner) -> None:
    cfg = _settings(tmp_path, _bundle_bytes())
    _main(tmp_path, cfg)
    path = tmp_path / "result.json"
    text = path.read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    assert path.stat().st_mode & 0o777 == 0o644
    assert not (tmp_path / "result.tmp").exists()


def test_defaults_where_the_settings_name_no_paths_runtime_or_host(
    tmp_path: Path, runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Missing result, log, workdir: the node's fixed paths; runtime: a venv from the node's
    package index; host: the short host name."""
    assert (NODE_RESULT, NODE_LOG) == (
        userdata.RESULT_PATH,
        userdata.LOG_PATH,
    )
    monkeypatch.setattr(boot, "RESULT_PATH", tmp_path / "var" / "result.json")
    monkeypatch.setattr(boot, "LOG_PATH", tmp_path / "var" / "log" / "gf" / "boot.log")
    monkeypatch.setattr(boot, "WORKDIR", tmp_path / "var" / "bundle")
    monkeypatch.setattr(boot, "VENVS", tmp_path / "opt")
    monkeypatch.setattr(boot.socket, "gethostname", lambda: "gpu-7.cluster.internal")
    runner.host = "gpu-7"
    data = _bundle_bytes()
    cfg = _settings(
        tmp_path, data, result=None, log=None, workdir=None, runtime=None, host=None, version=None
    )
    code, result = _main(tmp_path, cfg)
    assert code == 0, result["reason"]
    assert (result["host"], result["version"]) == ("gpu-7", "")
    assert result["log"] == str(tmp_path / "var" / "log" / "gf" / "boot.log")
    assert (tmp_path / "var" / "log" / "gf" / "boot.log").read_text().endswith("configured \n")
    assert (tmp_path / "var" / "bundle" / cfg["sha256"] / "ansible.cfg").is_file()
    venv = runner.calls[0][0]
    assert venv[1:3] == ["-m", "venv"] and venv[3].startswith(str(tmp_path / "opt" / "venv-"))
    assert "--no-index" not in runner.calls[1][0]  # index: from the node's package index
    assert runner.calls[2][0][:7] == [
        str(Path(venv[3]) / "bin" / "ansible-playbook"), "-c", "local", "-i",
        str(tmp_path / "var" / "bundle" / f"{cfg['sha256']}.inventory.yml"), "--limit", "gpu-7",
    ]  # fmt: skip


def test_the_settings_auth_is_how_the_bundle_is_fetched(
    tmp_path: Path, runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[Any, str]] = []

    def auth_headers(auth: Any, url: str) -> dict[str, str]:
        asked.append((auth, url))
        return {}

    monkeypatch.setattr(boot, "auth_headers", auth_headers)
    auth = {"kind": "bearer", "token_url": "http://169.254.169.254/t"}
    cfg = _settings(tmp_path, _bundle_bytes(), auth=auth)
    assert _main(tmp_path, cfg)[0] == 0
    assert asked == [(auth, cfg["url"])]
    asked.clear()
    assert _main(tmp_path, _settings(tmp_path, _bundle_bytes()))[0] == 0
    assert asked == [(None, cfg["url"])]


def test_a_tampered_bundle_runs_nothing_and_exits_1(tmp_path: Path, runner: Runner) -> None:
    cfg = _settings(tmp_path, _bundle_bytes(), sha256="0" * 64)
    code, result = _main(tmp_path, cfg)
    assert code == 1
    assert result["status"] == "not-configured"
    assert result["reason"].startswith(f"bundle sha256 mismatch: expected {'0' * 64}, got ")
    assert "recap" not in result and result["finished"] >= result["started"]
    assert runner.calls == []
    assert not (tmp_path / "work").exists()
    log = Path(cfg["log"]).read_text()
    assert log == f"gpufabric-boot: not-configured {result['reason']}\n"


def test_a_failed_play_stops_the_next_and_names_the_failure(tmp_path: Path, runner: Runner) -> None:
    runner.fail["a.yml"] = (2, "TASK [x]\nfatal: [n1]: FAILED! => {}\n", "")
    code, result = _main(tmp_path, _settings(tmp_path, _bundle_bytes()))
    assert code == 1
    assert result["reason"] == "ansible-playbook a.yml exited 2: fatal: [n1]: FAILED! => {}"
    assert len(runner.calls) == 1


def test_an_unexpected_error_still_leaves_a_result_that_says_why(
    tmp_path: Path, runner: Runner
) -> None:
    cfg = _settings(tmp_path, _bundle_bytes())
    del cfg["playbooks"]
    code, result = _main(tmp_path, cfg)
    assert (code, result["status"]) == (1, "not-configured")
    assert result["reason"] == "KeyError: 'playbooks'"
    assert Path(cfg["log"]).read_text().endswith("not-configured KeyError: 'playbooks'\n")


def test_day_two_runs_the_given_bundle_and_records_it_when_configured(
    tmp_path: Path, runner: Runner
) -> None:
    old = _settings(tmp_path, _bundle_bytes())
    assert _main(tmp_path, old)[0] == 0  # first boot, then day 2 beside it
    new_data = _bundle_bytes({"vars": {"gpufabric_leaf": "l2"}, "groups": []})
    new = tmp_path / "new.tar.gz"
    new.write_bytes(new_data)
    sha = hashlib.sha256(new_data).hexdigest()
    code, result = _main(tmp_path, old, "--bundle", f"file://{new}", "--sha256", sha)
    assert code == 0, result["reason"]
    assert (result["bundle"], result["sha256"]) == (f"file://{new}", sha)
    settings = tmp_path / "boot.json"
    assert json.loads(settings.read_text()) == {**old, "url": f"file://{new}", "sha256": sha}
    assert settings.stat().st_mode & 0o777 == 0o600


def test_first_boot_keeps_fetching_for_ten_minutes_and_day_two_does_not(
    tmp_path: Path, runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At first boot the node's read grant may still be taking effect; on day 2 it is old, and
    a fan-out over thousands of nodes must not wait minutes on each bad URL."""
    real_fetch = boot.fetch
    asked: list[float] = []

    def fetch(url: str, auth: Any = None, within: float = 0) -> bytes:
        asked.append(within)
        return real_fetch(url, auth=auth)

    monkeypatch.setattr(boot, "fetch", fetch)
    cfg = _settings(tmp_path, _bundle_bytes())
    assert _main(tmp_path, cfg)[0] == 0
    assert _main(tmp_path, cfg, "--bundle", cfg["url"], "--sha256", cfg["sha256"])[0] == 0
    assert asked == [600, 0] and boot.FIRST_BOOT_FETCH_SECONDS == 600


def test_day_two_keeps_the_settings_when_the_new_bundle_fails(
    tmp_path: Path, runner: Runner
) -> None:
    old = _settings(tmp_path, _bundle_bytes())
    code, result = _main(tmp_path, old, "--bundle", old["url"], "--sha256", "1" * 64)
    assert code == 1 and result["sha256"] == "1" * 64
    assert json.loads((tmp_path / "boot.json").read_text()) == old


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (None, "No such file or directory"),
        (
            "{",
            "not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        ),
        ("[1]", "not a JSON object"),
        ('{"url": "http://b", "sha256": 7}', "group, sha256 missing or not text"),
    ],
)
def test_settings_it_cannot_run_by_leave_a_result_that_says_why(
    text: str | None, why: str, tmp_path: Path, runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing or broken settings file is no traceback: the result at the node's usual place
    says why, as every other failure's does, and nothing runs."""
    path = tmp_path / "boot.json"
    if text is not None:
        path.write_text(text)
    assert boot.main(["gpufabric-boot", str(path)]) == 1
    result = json.loads(boot.RESULT_PATH.read_text())
    assert result["status"] == "not-configured"
    assert result["reason"] == f"settings {path}: {why}"
    assert capsys.readouterr().err == f"gpufabric-boot: settings {path}: {why}\n"
    assert runner.calls == []


def test_a_result_without_settings_names_the_node_by_its_short_host_name(
    tmp_path: Path, runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(boot.socket, "gethostname", lambda: "n7.example.internal")
    assert boot.main(["gpufabric-boot", str(tmp_path / "absent.json")]) == 1
    assert json.loads(boot.RESULT_PATH.read_text())["host"] == "n7"


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--bundle", "file:///x"],
        ["--sha256", "a" * 64, "--bundle", "file:///x"],
        ["--bundle", "file:///x", "--sha", "a" * 64],
        ["--bundle", "file:///x", "--sha256", "a" * 64, "more"],
    ],
)
def test_other_command_lines_print_the_usage_and_exit_2(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["gpufabric-boot"] if not extra else ["gpufabric-boot", "boot.json", *extra]
    assert boot.main(argv) == 2
    assert capsys.readouterr().err == boot.USAGE + "\n"


@pytest.mark.parametrize("sha", ["A" * 64, "a" * 63, "a" * 65, "g" * 64, "a" * 64 + "\n"])
def test_a_day_two_sha256_must_be_64_lower_case_hex_digits(
    sha: str, tmp_path: Path, runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _settings(tmp_path, _bundle_bytes())
    (tmp_path / "boot.json").write_text(json.dumps(cfg))
    argv = ["gpufabric-boot", str(tmp_path / "boot.json"), "--bundle", "file:///x"]
    assert boot.main([*argv, "--sha256", sha]) == 2
    assert capsys.readouterr().err == (
        f"gpufabric-boot: --sha256 {sha!r}: 64 lower-case hex digits\n"
    )
    assert not (tmp_path / "result.json").exists()
    assert runner.calls == []


# ---------------------------------------------------------------- the Ansible runtime
def _unpacked(tmp: Path, wheels: bool = False) -> Path:
    bundle = tmp / "b"
    bundle.mkdir()
    (bundle / "node-requirements.txt").write_text("ansible-core==2.19.14\n")
    if wheels:
        (bundle / "wheels").mkdir()
    return bundle


@pytest.fixture
def venvs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(boot, "VENVS", tmp_path / "opt")
    return tmp_path / "opt"


def test_wheels_runtime_installs_from_the_bundle_only(
    tmp_path: Path, runner: Runner, venvs: Path
) -> None:
    bundle = _unpacked(tmp_path, wheels=True)
    log = io.StringIO()
    python = boot.runtime(bundle, "wheels", log)
    key = hashlib.sha256(b"ansible-core==2.19.14\nwheels").hexdigest()[:12]
    venv = venvs / f"venv-{key}"
    assert python == venv / "bin" / "python"
    reqs = str(bundle / "node-requirements.txt")
    assert [c[0] for c in runner.calls] == [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
         "--no-index", "--find-links", str(bundle / "wheels"), "-r", reqs],
    ]  # fmt: skip
    assert [c[1] for c in runner.calls] == [
        {"stdout": log, "stderr": subprocess.STDOUT, "check": False}
    ] * 2
    assert log.getvalue() == (
        f"$ {' '.join(runner.calls[0][0])}\n(venv output)\n"
        f"$ {' '.join(runner.calls[1][0])}\n(pip output)\n"
    )
    assert (venv / ".complete").read_text() == ""


def test_a_complete_runtime_is_used_again_and_an_unfinished_one_made_again(
    tmp_path: Path, runner: Runner, venvs: Path
) -> None:
    bundle = _unpacked(tmp_path)
    index = boot.runtime(bundle, "index", io.StringIO())
    assert index.parent.parent.name == (
        "venv-" + hashlib.sha256(b"ansible-core==2.19.14\nindex").hexdigest()[:12]
    )
    assert len(runner.calls) == 2
    assert boot.runtime(bundle, "index", io.StringIO()) == index
    assert len(runner.calls) == 2  # nothing run again
    (index.parent.parent / ".complete").unlink()
    (index.parent.parent / "stale").write_text("")
    assert boot.runtime(bundle, "index", io.StringIO()) == index
    assert len(runner.calls) == 4
    assert not (index.parent.parent / "stale").exists()


@pytest.mark.parametrize(
    ("word", "reason"),
    [
        ("venv", "making the Ansible venv failed (exit 3)"),
        ("pip", "installing ansible-core failed (exit 3)"),
    ],
)
def test_a_failed_install_is_the_reason_and_the_runtime_stays_unfinished(
    word: str, reason: str, tmp_path: Path, runner: Runner, venvs: Path
) -> None:
    runner.codes[word] = 3
    with pytest.raises(boot.BootError) as err:
        boot.runtime(_unpacked(tmp_path), "index", io.StringIO())
    assert str(err.value) == reason
    assert not list(venvs.glob("*/.complete"))


@pytest.mark.parametrize(
    ("spec", "wheels", "reason"),
    [
        ("wheels", False, "runtime wheels: the bundle has no wheels/ folder"),
        ("conda", True, "runtime 'conda': choose wheels, index or python:PATH"),
        ("python:/nonexistent/python3", True, "runtime python:/nonexistent/python3: no such interpreter"),
    ],
)  # fmt: skip
def test_a_runtime_that_cannot_be_made_is_refused_before_anything_runs(
    spec: str, wheels: bool, reason: str, tmp_path: Path, runner: Runner, venvs: Path
) -> None:
    with pytest.raises(boot.BootError) as err:
        boot.runtime(_unpacked(tmp_path, wheels), spec, io.StringIO())
    assert str(err.value) == reason
    assert runner.calls == [] and not venvs.exists()


def test_a_given_interpreter_is_used_as_it_is(tmp_path: Path, runner: Runner) -> None:
    python = tmp_path / "python3"
    python.write_text("")
    assert boot.runtime(tmp_path / "no-bundle", f"python:{python}", io.StringIO()) == python
    assert runner.calls == []
