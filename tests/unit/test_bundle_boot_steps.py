"""The boot script's steps one by one, in-process: the plays (their command lines, environment
and inventory), the recap, the result file, fetching with retries and the node's identity,
the sha256 check and unpacking."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import tarfile
import urllib.error
from pathlib import Path
from typing import Any

import pytest

from gpufabric.bundle import boot, render

RECAP_LINE = (
    "n1                         : ok=3    changed=1    unreachable=0    failed=0    skipped=2"
)


class Plays:
    """subprocess.run for ansible-playbook: records the call, answers (rc, out, err)."""

    def __init__(self, *answers: tuple[int, str, str]) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[list[str], dict[str, Any]]] = []
        self.inventories: list[Any] = []

    def __call__(self, argv: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        self.calls.append((argv, kw))
        self.inventories.append(json.loads(Path(argv[argv.index("-i") + 1]).read_text()))
        rc, out, err = self.answers.pop(0)
        return subprocess.CompletedProcess(argv, rc, out, err)


def _bundle(tmp: Path, host_entry: dict[str, Any] | None = None) -> Path:
    bundle = tmp / "work" / "abc"
    (bundle / "groups").mkdir(parents=True)
    (bundle / "groups" / "gpu_nodes.json").write_text(json.dumps({"a": 1, "b": 2}))
    if host_entry is not None:
        (bundle / "hosts").mkdir()
        (bundle / "hosts" / "n1.json").write_text(json.dumps(host_entry))
    return bundle


CFG = {"group": "gpu_nodes", "playbooks": ["one.yml", "two.yml"], "skip_tags": ["t1", "t2"]}
OK = (0, f"PLAY RECAP ***\n{RECAP_LINE}\n", "")


def test_play_runs_each_playbook_locally_with_the_bundles_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = _bundle(tmp_path)
    plays = Plays(OK, OK)
    monkeypatch.setattr(boot.subprocess, "run", plays)
    monkeypatch.setattr(boot, "NODE_PYTHON", tmp_path / "no-python3")
    monkeypatch.setenv("HOME", "/home/x")
    python = tmp_path / "venv" / "bin" / "python"
    log = io.StringIO()
    totals = boot.play(bundle, CFG, "n1", python, log)
    assert totals == {"ok": 6, "changed": 2, "unreachable": 0, "failed": 0, "skipped": 4}
    inv = str(tmp_path / "work" / "abc.inventory.yml")
    argvs = [c[0] for c in plays.calls]
    assert argvs == [
        [str(tmp_path / "venv" / "bin" / "ansible-playbook"), "-c", "local", "-i", inv,
         "--limit", "n1", "--skip-tags", "t1,t2", str(bundle / "playbooks" / book)]
        for book in ("one.yml", "two.yml")
    ]  # fmt: skip
    kw = plays.calls[0][1]
    env = kw.pop("env")
    assert kw == {"cwd": bundle, "capture_output": True, "text": True, "check": False}
    assert env == {
        **os.environ,
        "PATH": f"{python.parent}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "PYTHONPATH": str(bundle / "lib"),
        "ANSIBLE_CONFIG": str(bundle / "ansible.cfg"),
        "ANSIBLE_FORCE_COLOR": "0",
        "ANSIBLE_NOCOLOR": "1",
        "HOME": "/home/x",
    }
    # the modules run with the given Python where the node has no /usr/bin/python3
    host_vars = plays.inventories[0]["all"]["hosts"]["n1"]
    assert host_vars["ansible_python_interpreter"] == str(python)
    assert log.getvalue() == "".join(f"$ {' '.join(a)}\n{OK[1]}" for a in argvs)


def test_play_without_skipped_tags_or_home_and_with_the_nodes_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node_python = tmp_path / "usr-bin-python3"
    node_python.write_text("")
    monkeypatch.setattr(boot, "NODE_PYTHON", node_python)
    monkeypatch.delenv("HOME", raising=False)
    plays = Plays(OK)
    monkeypatch.setattr(boot.subprocess, "run", plays)
    cfg = {"group": "gpu_nodes", "playbooks": ["one.yml"]}
    boot.play(_bundle(tmp_path), cfg, "n1", tmp_path / "bin" / "python", io.StringIO())
    assert "--skip-tags" not in plays.calls[0][0]
    assert plays.calls[0][1]["env"]["HOME"] == "/root"
    hosts = plays.inventories[0]["all"]["hosts"]
    assert hosts["n1"]["ansible_python_interpreter"] == str(node_python)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ((2, "x\nfatal: [n1]: FAILED! => {}\n", ""), "exited 2: fatal: [n1]: FAILED! => {}"),
        ((4, "", "ERROR! the playbook could not be found\n"),
         "exited 4: ERROR! the playbook could not be found"),
        ((0, f"{RECAP_LINE.replace('failed=0', 'failed=1')}\n", ""), "exited 0: see the log"),
        ((0, f"{RECAP_LINE.replace('unreachable=0', 'unreachable=1')}\n", ""),
         "exited 0: see the log"),
        ((1, "no recap\n", "[ERROR]: a task failed\n"), "exited 1: [ERROR]: a task failed"),
    ],
)  # fmt: skip
def test_a_play_fails_on_its_exit_status_failed_or_unreachable_hosts(
    answer: tuple[int, str, str], reason: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plays = Plays(answer, OK)
    monkeypatch.setattr(boot.subprocess, "run", plays)
    log = io.StringIO()
    with pytest.raises(boot.BootError) as err:
        boot.play(_bundle(tmp_path), CFG, "n1", tmp_path / "python", log)
    assert str(err.value) == f"ansible-playbook one.yml {reason}"
    assert len(plays.calls) == 1  # the next playbook is not run
    assert log.getvalue().endswith(answer[1] + answer[2])


def test_a_play_that_matched_no_host_of_this_node_is_no_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A play for the controller only: ansible-playbook exits 0, this host has no recap."""
    plays = Plays((0, "skipping: no hosts matched\n", ""), OK)
    monkeypatch.setattr(boot.subprocess, "run", plays)
    totals = boot.play(_bundle(tmp_path), CFG, "n1", tmp_path / "python", io.StringIO())
    assert totals == {"ok": 3, "changed": 1, "unreachable": 0, "failed": 0, "skipped": 2}
    assert len(plays.calls) == 2


def test_a_recap_of_other_hosts_is_not_this_hosts(tmp_path: Path) -> None:
    out = f"{RECAP_LINE.replace('n1 ', 'n2 ').replace('failed=0', 'failed=5')}\n"
    assert boot.recap(out) == {
        "n2": {"ok": 3, "changed": 1, "unreachable": 0, "failed": 5, "skipped": 2}
    }
    assert boot.recap("  " + RECAP_LINE + "  \nok=1\nn3 : ok=x\n")["n1"]["skipped"] == 2
    assert set(boot.recap(f"{RECAP_LINE}\nn3 : ok=1 changed=0\n")) == {"n1", "n3"}


def test_first_failure_is_the_first_error_line_cut_to_300() -> None:
    out = "ok: [n1]\nfailed: [n1] (item=x)\nfatal: [n1]: later\n"
    assert boot.first_failure(out) == "failed: [n1] (item=x)"
    assert boot.first_failure("ERROR! " + "x" * 400 + "   ") == "ERROR! " + "x" * 293
    assert boot.first_failure("[ERROR]: bad  \n") == "[ERROR]: bad"
    assert boot.first_failure(" fatal: indented\nok\n") == ""


def test_inventory_is_the_groups_variables_then_the_hosts_own(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, {"vars": {"b": 3, "c": 4}, "groups": ["controller", "gpu_nodes"]})
    assert boot.inventory(bundle, "gpu_nodes", "n1", "/py") == {
        "all": {
            "hosts": {
                "n1": {"a": 1, "b": 3, "c": 4, "ansible_connection": "local",
                       "ansible_python_interpreter": "/py"},
            },
            "children": {"gpu_nodes": {"hosts": {"n1": None}},
                         "controller": {"hosts": {"n1": None}}},
        }
    }  # fmt: skip
    other = boot.inventory(bundle, "gpu_nodes", "n9", "/py")["all"]
    assert other["hosts"]["n9"] == {
        "a": 1, "b": 2, "ansible_connection": "local", "ansible_python_interpreter": "/py"
    }  # fmt: skip
    assert other["children"] == {"gpu_nodes": {"hosts": {"n9": None}}}
    (bundle / "hosts" / "n2.json").write_text("{}")
    assert boot.inventory(bundle, "gpu_nodes", "n2", "/py")["all"] == other | {
        "hosts": {"n2": other["hosts"]["n9"]},
        "children": {"gpu_nodes": {"hosts": {"n2": None}}},
    }
    with pytest.raises(boot.BootError) as err:
        boot.inventory(bundle, "cpu_nodes", "n1", "/py")
    assert str(err.value) == "node group 'cpu_nodes': not in the bundle"


def test_write_result_makes_the_file_with_its_mode_from_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settings hold a signed URL: never readable by others, not even before the chmod."""
    path = tmp_path / "etc" / "boot.json"
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "boot.tmp").write_text("stale")
    (tmp_path / "etc" / "boot.tmp").chmod(0o644)
    modes: list[int] = []
    real_replace = Path.replace

    def replace(self: Path, target: Any) -> Path:
        modes.append(self.stat().st_mode & 0o777)
        return real_replace(self, target)

    monkeypatch.setattr(Path, "chmod", lambda self, mode: None)
    monkeypatch.setattr(Path, "replace", replace)
    old = os.umask(0o022)
    try:
        boot.write_result(path, {"b": 1, "a": [2]}, mode=0o600)
    finally:
        os.umask(old)
    assert modes == [0o600]
    assert os.listdir(tmp_path / "etc") == ["boot.json"]  # the stale temporary file gone
    assert path.read_text() == '{\n  "a": [\n    2\n  ],\n  "b": 1\n}\n'


def test_write_result_sets_the_exact_mode_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        boot.write_result(tmp_path / "new" / "dir" / "r.json", {}, mode=0o644)
    finally:
        os.umask(old)
    assert (tmp_path / "new" / "dir" / "r.json").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in (tmp_path / "new" / "dir").iterdir()] == ["r.json"]


# ---------------------------------------------------------------- fetch, verify, unpack
@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(boot.time, "sleep", slept.append)
    return slept


def test_fetch_reads_a_file_url_without_waiting(tmp_path: Path, sleeps: list[float]) -> None:
    (tmp_path / "b.tar.gz").write_bytes(b"bytes")
    assert boot.fetch(f"file://{tmp_path}/b.tar.gz") == b"bytes"
    assert sleeps == []


def test_fetch_tries_again_waiting_longer_each_time_but_not_after_the_last(
    tmp_path: Path, sleeps: list[float]
) -> None:
    with pytest.raises(boot.BootError) as err:
        boot.fetch(f"file://{tmp_path}/missing.tar.gz")
    assert str(err.value).startswith(
        f"bundle file://{tmp_path}/missing.tar.gz: not fetched after 4 tries ("
    )
    assert "No such file or directory" in str(err.value)
    assert sleeps == [1, 2, 4]
    del sleeps[:]
    with pytest.raises(boot.BootError):
        boot.fetch(f"file://{tmp_path}/missing.tar.gz", tries=7)
    assert sleeps == [1, 2, 4, 8, 10, 10]


def test_fetch_within_seconds_tries_on_until_that_much_time_has_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [1000.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(boot.time, "sleep", sleep)
    monkeypatch.setattr(boot.time, "monotonic", lambda: clock[0])
    with pytest.raises(boot.BootError) as err:
        boot.fetch(f"file://{tmp_path}/missing.tar.gz", within=600)
    # 1 + 2 + 4 + 8 = 15 s, then 10 s waits until 600 s have passed: 59 more waits
    assert slept == [1, 2, 4, 8] + [10] * 59
    assert "not fetched after 64 tries" in str(err.value)
    # fewer seconds than the tries take: the tries still all happen
    slept.clear()
    with pytest.raises(boot.BootError, match="after 4 tries"):
        boot.fetch(f"file://{tmp_path}/missing.tar.gz", within=2)
    assert slept == [1, 2, 4]
    # the time is up once exactly that many seconds have passed (1 + 2 + 4 = 7)
    slept.clear()
    with pytest.raises(boot.BootError, match="after 4 tries"):
        boot.fetch(f"file://{tmp_path}/missing.tar.gz", tries=1, within=7)
    assert slept == [1, 2, 4]


def test_fetch_names_the_http_reason_and_succeeds_on_a_later_try(
    monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    answers: list[Any] = [urllib.error.URLError("connection refused"), io.BytesIO(b"data")]
    seen: list[Any] = []

    def urlopen(request: Any, timeout: float) -> Any:
        seen.append((request.full_url, dict(request.header_items()), timeout))
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(boot.urllib.request, "urlopen", urlopen)
    assert boot.fetch("https://store.example/b.tar.gz") == b"data"
    assert seen == [("https://store.example/b.tar.gz", {}, 60)] * 2
    assert sleeps == [1]
    answers[:] = [urllib.error.URLError("connection refused")]
    with pytest.raises(boot.BootError) as err:
        boot.fetch("http://store.example/b.tar.gz", tries=1)
    assert str(err.value) == (
        "bundle http://store.example/b.tar.gz: not fetched after 1 tries (connection refused)"
    )


def test_fetch_names_a_failure_that_has_no_reason_and_tries_at_least_zero_times(
    monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    def urlopen(request: Any, timeout: float) -> Any:
        raise ConnectionResetError("reset by peer")

    monkeypatch.setattr(boot.urllib.request, "urlopen", urlopen)
    with pytest.raises(boot.BootError) as err:
        boot.fetch("https://s.example/b", tries=1)
    assert str(err.value) == "bundle https://s.example/b: not fetched after 1 tries (reset by peer)"
    with pytest.raises(boot.BootError) as err:
        boot.fetch("https://s.example/b", tries=0)
    assert str(err.value) == "bundle https://s.example/b: not fetched after 0 tries ()"


class _Endless:
    """An answer that never ends: read() without a size would never return."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def __enter__(self) -> _Endless:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def read(self, size: int | None = None) -> bytes:
        assert size is not None and size >= 0, "read without a limit"
        self.sizes.append(size)
        return b"x" * size


def test_fetch_reads_no_more_than_one_byte_past_the_limit(
    monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    answer = _Endless()
    monkeypatch.setattr(boot, "MAX_BUNDLE", 8)
    monkeypatch.setattr(boot.urllib.request, "urlopen", lambda request, timeout: answer)
    with pytest.raises(boot.BootError) as err:
        boot.fetch("https://s.example/b")
    assert str(err.value) == "bundle https://s.example/b: larger than 8 bytes"
    assert len(answer.sizes) == 1 and 8 < answer.sizes[0] <= 16


def test_fetch_refuses_a_bundle_larger_than_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    monkeypatch.setattr(boot, "MAX_BUNDLE", 4)
    (tmp_path / "four").write_bytes(b"1234")
    assert boot.fetch(f"file://{tmp_path}/four") == b"1234"
    (tmp_path / "five").write_bytes(b"12345")
    with pytest.raises(boot.BootError) as err:
        boot.fetch(f"file://{tmp_path}/five")
    assert str(err.value) == f"bundle file://{tmp_path}/five: larger than 4 bytes"
    assert sleeps == []  # not tried again


@pytest.mark.parametrize("url", ["ftp://x/y", "file://host/x", "/srv/b.tar.gz", "HTTPS://x/y"])
def test_fetch_refuses_other_urls(url: str, sleeps: list[float]) -> None:
    with pytest.raises(boot.BootError) as err:
        boot.fetch(url)
    assert str(err.value) == (f"bundle url {url!r}: only file://, http:// and https:// are fetched")


def test_verify_takes_the_hash_in_either_case_and_names_both_on_a_mismatch() -> None:
    sha = hashlib.sha256(b"x").hexdigest()
    boot.verify(b"x", sha)
    boot.verify(b"x", sha.upper())
    with pytest.raises(boot.BootError) as err:
        boot.verify(b"y", sha)
    assert str(err.value) == (
        f"bundle sha256 mismatch: expected {sha}, got {hashlib.sha256(b'y').hexdigest()}; not run"
    )


def test_unpack_writes_files_readable_by_all_and_replaces_the_old_copy(tmp_path: Path) -> None:
    archive = tmp_path / "b.tar.gz"
    archive.write_bytes(render.archive({"a/b/c.txt": b"C", "top": b"T"}))
    dest = tmp_path / "bundle"
    (dest / "old").mkdir(parents=True)
    (tmp_path / "bundle.part" / "junk").mkdir(parents=True)
    boot.unpack(archive, dest)
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*")) == [
        "a", "a/b", "a/b/c.txt", "top"
    ]  # fmt: skip
    assert (dest / "a" / "b" / "c.txt").read_bytes() == b"C"
    assert (dest / "top").stat().st_mode & 0o777 == 0o644
    assert not (tmp_path / "bundle.part").exists()


def test_unpack_takes_directory_entries_in_any_order(tmp_path: Path) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        info = tarfile.TarInfo("d/e/f")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"F"))
        for name in ("d", "d/e", "x/y/z"):  # after their files; a folder inside a new one
            info = tarfile.TarInfo(name)
            info.type = tarfile.DIRTYPE
            tar.addfile(info)
    (tmp_path / "b.tar.gz").write_bytes(raw.getvalue())
    boot.unpack(tmp_path / "b.tar.gz", tmp_path / "new" / "out")
    assert (tmp_path / "new" / "out" / "d" / "e" / "f").read_bytes() == b"F"
    assert (tmp_path / "new" / "out" / "x" / "y" / "z").is_dir()


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("/abs", tarfile.REGTYPE, "path leaves the bundle"),
        (".", tarfile.DIRTYPE, "path leaves the bundle"),
        ("a/..", tarfile.DIRTYPE, "path leaves the bundle"),
        ("fifo", tarfile.FIFOTYPE, "not a regular file"),
        ("dev", tarfile.CHRTYPE, "not a regular file"),
    ],
)
def test_unpack_refusals_are_exact_lines(
    name: str, kind: bytes, reason: str, tmp_path: Path
) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.type = kind
        tar.addfile(info)
    (tmp_path / "b.tar.gz").write_bytes(raw.getvalue())
    with pytest.raises(boot.BootError) as err:
        boot.unpack(tmp_path / "b.tar.gz", tmp_path / "out")
    assert str(err.value) == f"bundle entry {name!r}: {reason}"


# ---------------------------------------------------------------- the node's identity
class Imds:
    """boot._ask: answers by URL, records (url, headers, method)."""

    def __init__(self, answers: dict[str, bytes | Exception]) -> None:
        self.answers = answers
        self.asked: list[tuple[str, dict[str, str], str]] = []

    def __call__(self, url: str, headers: dict[str, str], method: str = "GET") -> bytes:
        self.asked.append((url, headers, method))
        answer = self.answers[url]
        if isinstance(answer, Exception):
            raise answer
        return answer


SIGV4 = {
    "kind": "sigv4", "region": "eu-west-1", "service": "s3", "session_url": "http://imds/token",
    "session_headers": {"ttl": "60"}, "session_header": "X-session",
    "credentials_url": "http://imds/creds/",
}  # fmt: skip
CREDS = {"AccessKeyId": "ASIAX", "SecretAccessKey": "k", "Token": "tok"}
URL = "https://b.s3.eu-west-1.amazonaws.com/gpufabric/x.tar.gz"


def test_no_auth_is_no_headers() -> None:
    assert boot.auth_headers(None, URL) == {}
    assert boot.auth_headers({}, URL) == {}


def test_bearer_auth_sends_the_token_and_the_extra_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    imds = Imds({"http://imds/t": b'{"access_token": "T1"}'})
    monkeypatch.setattr(boot, "_ask", imds)
    auth = {"kind": "bearer", "token_url": "http://imds/t", "token_headers": {"Metadata": "true"},
            "headers": {"x-ms-version": "2021-08-06"}}  # fmt: skip
    assert boot.auth_headers(auth, URL) == {
        "Authorization": "Bearer T1", "x-ms-version": "2021-08-06"
    }  # fmt: skip
    assert imds.asked == [("http://imds/t", {"Metadata": "true"}, "GET")]
    imds.asked.clear()
    plain = {"kind": "bearer", "token_url": "http://imds/t"}
    assert boot.auth_headers(plain, URL) == {"Authorization": "Bearer T1"}
    assert imds.asked == [("http://imds/t", {}, "GET")]


def test_sigv4_auth_reads_the_role_credentials_and_signs_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    imds = Imds({
        "http://imds/token": b"sess",
        "http://imds/creds/": b"node-role\nother\n",
        "http://imds/creds/node-role": json.dumps(CREDS).encode(),
    })  # fmt: skip
    monkeypatch.setattr(boot, "_ask", imds)
    monkeypatch.setattr(boot.time, "gmtime", lambda: (2026, 12, 4, 22, 0, 0, 4, 338, 0))
    headers = boot.auth_headers(SIGV4, URL)
    assert imds.asked == [
        ("http://imds/token", {"ttl": "60"}, "PUT"),
        ("http://imds/creds/", {"X-session": "sess"}, "GET"),
        ("http://imds/creds/node-role", {"X-session": "sess"}, "GET"),
    ]
    assert headers == boot.sigv4_headers(
        "GET", URL, {"x-amz-security-token": "tok"}, ("ASIAX", "k"), "eu-west-1", "s3",
        "20261204T220000Z",
    )  # fmt: skip
    assert headers["x-amz-date"] == "20261204T220000Z"
    assert headers["x-amz-security-token"] == "tok"


@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        ({"http://imds/token": OSError("no route")}, "OSError: no route"),
        ({"http://imds/token": b"s", "http://imds/creds/": b""}, "IndexError: list index out of range"),
        ({"http://imds/token": b"s", "http://imds/creds/": b"r", "http://imds/creds/r": b"{"},
         "JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        ({"http://imds/token": b"s", "http://imds/creds/": b"r", "http://imds/creds/r": b"{}"},
         "KeyError: 'Token'"),
    ],
)  # fmt: skip
def test_a_node_identity_that_cannot_be_read_is_one_line(
    answers: dict[str, Any], reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(boot, "_ask", Imds(answers))
    with pytest.raises(boot.BootError) as err:
        boot.auth_headers(SIGV4, URL)
    assert str(err.value) == f"node identity for {URL}: {reason}"


def test_an_unknown_auth_kind_is_refused() -> None:
    with pytest.raises(boot.BootError) as err:
        boot.auth_headers({"kind": "basic"}, URL)
    assert str(err.value) == "auth kind 'basic': expected bearer or sigv4"
    with pytest.raises(boot.BootError) as err:
        boot.auth_headers({"token_url": "x"}, URL)
    assert str(err.value) == f"node identity for {URL}: KeyError: 'kind'"


def test_fetch_asks_for_fresh_credentials_each_try(
    monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    tokens = iter([boot.BootError("node identity: down"), "T2"])

    def auth_headers(auth: Any, url: str) -> dict[str, str]:
        assert url == URL
        token = next(tokens)
        if isinstance(token, Exception):
            raise token
        return {"Authorization": f"Bearer {token}"}

    sent: list[dict[str, str]] = []

    def urlopen(request: Any, timeout: float) -> Any:
        sent.append(dict(request.header_items()))
        return io.BytesIO(b"data")

    monkeypatch.setattr(boot, "auth_headers", auth_headers)
    monkeypatch.setattr(boot.urllib.request, "urlopen", urlopen)
    assert boot.fetch(URL, auth={"kind": "bearer"}) == b"data"
    assert sent == [{"Authorization": "Bearer T2"}]
    assert sleeps == [1]
    tokens = iter([boot.BootError("node identity: down")] * 2)
    with pytest.raises(boot.BootError) as err:
        boot.fetch(URL, tries=2, auth={"kind": "bearer"})
    assert str(err.value) == f"bundle {URL}: not fetched after 2 tries (node identity: down)"


def _botocore_authorization(url: str) -> tuple[str, str]:
    """(x-amz-date, Authorization) of botocore's own S3 signer for a GET of `url`."""
    import datetime
    from unittest import mock

    pytest.importorskip("botocore")
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method="GET", url=url, headers={})
    fixed = datetime.datetime(2026, 12, 4, 22, 0, 0)
    with mock.patch("botocore.auth.datetime") as clock:
        clock.datetime.utcnow.return_value = fixed
        clock.datetime.now.return_value = fixed
        S3SigV4Auth(Credentials("AKID", "SECRET", "TOK"), "s3", "eu-west-1").add_auth(request)
    return request.headers["X-Amz-Date"], request.headers["Authorization"]


@pytest.mark.parametrize(
    "url",
    [
        "https://b.s3.eu-west-1.amazonaws.com/k/x.tar.gz?versionId=3&a=b%2Fc&z=&a=a&k%2F1=v",
        "https://b.s3.eu-west-1.amazonaws.com/k/my%20bundle~1.tar.gz",
    ],
)
def test_sigv4_matches_botocore_for_a_query_and_an_escaped_key(url: str) -> None:
    amz_date, expected = _botocore_authorization(url)
    ours = boot.sigv4_headers(
        "GET", url, {"X-Amz-Security-Token": " TOK "}, ("AKID", "SECRET"), "eu-west-1", "s3",
        amz_date,
    )  # fmt: skip
    assert ours["Authorization"] == expected
    assert ours["x-amz-security-token"] == "TOK" and "host" not in ours
    assert ours["x-amz-content-sha256"] == hashlib.sha256(b"").hexdigest()


def test_sigv4_signs_an_empty_path_as_the_root() -> None:
    """urllib asks for "/" where the URL has no path: that is the path signed."""
    args = ({}, ("AKID", "SECRET"), "eu-west-1", "s3", "20261204T220000Z")
    assert boot.sigv4_headers("GET", "https://b.example", *args) == boot.sigv4_headers(
        "GET", "https://b.example/", *args
    )


def test_ask_reads_a_small_answer_and_gives_up_on_a_silent_service(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The metadata service answers in milliseconds: 10 seconds at most, 1 MiB at most."""
    asked: list[tuple[str, str, dict[str, str], float]] = []

    def urlopen(request: Any, timeout: float) -> Any:
        asked.append(
            (request.full_url, request.get_method(), dict(request.header_items()), timeout)
        )
        return io.BytesIO(b"x" * ((1 << 20) + 5))

    monkeypatch.setattr(boot.urllib.request, "urlopen", urlopen)
    assert boot._ask("http://imds/t", {"A": "1"}, "PUT") == b"x" * (1 << 20)
    assert asked == [("http://imds/t", "PUT", {"A": "1"}, 10)]
    assert len(boot._ask("http://imds/t", {})) == 1 << 20
    assert asked[1][1] == "GET"
