#!/usr/bin/python3
"""gpufabric-boot: a node configures itself from the stack's configuration bundle.

Runs on the node at first boot (cloud-init runcmd, see gpufabric.bundle.userdata), as root,
with the Python standard library only:

    gpufabric-boot /etc/gpufabric/boot.json

1. fetch the bundle (file://, http://, https://; tries for ten minutes at first boot, a few on
day 2; from private object storage with the node's own identity where the settings say how:
`auth`, below), 2. check its sha256 against the
one the user data names (a mismatch stops here: nothing of it is run), 3. unpack it (regular
files only, no absolute or `..` paths), 4. make the Ansible runtime (a venv from the bundle's
wheels, or from the node's package index, or a given interpreter), 5. write a one-host
inventory (the node group's variables, the host's own where the bundle has them) and run each
playbook with `ansible-playbook -c local`, 6. write the result:

    /var/lib/gpufabric/boot-result.json   {"status": "configured" | "not-configured" |
                                            "running", "reason", "bundle", "version", "group",
                                            "host", "recap", "started", "finished", "log"}

`auth` in the settings (written by the stack's program; none for a public or pre-signed URL):

    {"kind": "bearer", "token_url": URL, "token_headers": {...}, "headers": {...}}
        GET token_url (the instance metadata service) -> JSON "access_token"; the bundle is
        fetched with "Authorization: Bearer <token>" and `headers`
    {"kind": "sigv4", "region": R, "service": S, "session_url": URL, "session_headers": {...},
     "session_header": NAME, "credentials_url": URL}
        PUT session_url -> a session token (sent as header `session_header`); GET
        credentials_url -> the role name, GET credentials_url + name -> AccessKeyId,
        SecretAccessKey, Token; the GET is signed with Signature Version 4

Exit status 0 when configured, 1 when not (cloud-init then reports the runcmd as failed).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.parse
import urllib.request
from pathlib import Path, PurePosixPath
from typing import Any

MAX_BUNDLE = 1 << 30  # bytes
FETCH_TRIES = 4  # waits of 1, 2, 4, 8, then 10 s between tries
# at first boot, tries go on for this long: the node's read grant is made by the same `pulumi
# up` that starts it, and a new grant takes minutes to take effect (one cloud's IAM documents
# "typically 2 minutes, potentially 7 minutes or longer"); a day-2 fan-out, whose grant is
# old, gives up after FETCH_TRIES
FIRST_BOOT_FETCH_SECONDS = 600
RECAP = re.compile(r"^(\S+)\s+:\s+((?:\w+=\d+\s*)+)$")
# where the settings name none (the user data names the result and the log)
RESULT_PATH = Path("/var/lib/gpufabric/boot-result.json")
LOG_PATH = Path("/var/log/gpufabric-boot.log")
WORKDIR = Path("/var/lib/gpufabric/bundle")
VENVS = Path("/opt/gpufabric")  # the Ansible runtimes made from a bundle's requirements
NODE_PYTHON = Path("/usr/bin/python3")  # the node's own Python, for the Ansible modules


class BootError(Exception):
    """Why the node is not configured (one line)."""


def _ask(url: str, headers: dict[str, str], method: str = "GET") -> bytes:
    """A small answer from the instance metadata service."""
    request = urllib.request.Request(url, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=10) as answer:  # URL from the settings
        return answer.read(1 << 20)


def sigv4_headers(
    method: str,
    url: str,
    headers: dict[str, str],
    key: tuple[str, str],
    region: str,
    service: str,
    amz_date: str,
    payload_sha256: str = hashlib.sha256(b"").hexdigest(),
) -> dict[str, str]:
    """`headers` plus x-amz-date, x-amz-content-sha256 and the Authorization header of a
    Signature Version 4 request (header-based auth, empty payload)."""
    parts = urllib.parse.urlsplit(url)
    signed = {k.lower(): v.strip() for k, v in headers.items()}
    signed.update({"host": parts.netloc, "x-amz-date": amz_date})
    signed["x-amz-content-sha256"] = payload_sha256
    names = sorted(signed)
    query = "&".join(
        f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}"
        for k, v in sorted(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
    )
    canonical = "\n".join(
        [
            method,
            # S3 signs the object key URI-encoded once: a key the URL already escapes
            # (%20) is decoded first, not escaped twice
            urllib.parse.quote(urllib.parse.unquote(parts.path) or "/", safe="/-_.~"),
            query,
            "".join(f"{n}:{signed[n]}\n" for n in names),
            ";".join(names),
            payload_sha256,
        ]
    )
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    k = ("AWS4" + key[1]).encode()
    for part in (amz_date[:8], region, service, "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    out = {n: signed[n] for n in names if n != "host"}
    out["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={key[0]}/{scope}, "
        f"SignedHeaders={';'.join(names)}, Signature={signature}"
    )
    return out


def auth_headers(auth: dict[str, Any] | None, url: str) -> dict[str, str]:
    """The headers that let the node's own identity read `url` (see `auth` above)."""
    if not auth:
        return {}
    try:
        if auth["kind"] == "bearer":
            doc = json.loads(_ask(auth["token_url"], dict(auth.get("token_headers", {}))))
            return {"Authorization": f"Bearer {doc['access_token']}", **auth.get("headers", {})}
        if auth["kind"] == "sigv4":
            session = _ask(auth["session_url"], dict(auth["session_headers"]), "PUT").decode()
            ask = {auth["session_header"]: session}
            role = _ask(auth["credentials_url"], ask).decode().split()[0]
            creds = json.loads(_ask(auth["credentials_url"] + role, ask))
            token = {"x-amz-security-token": creds["Token"]}
            now = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            key = (creds["AccessKeyId"], creds["SecretAccessKey"])
            return sigv4_headers("GET", url, token, key, auth["region"], auth["service"], now)
    except (OSError, ValueError, KeyError, IndexError) as exc:
        raise BootError(f"node identity for {url}: {type(exc).__name__}: {exc}") from None
    raise BootError(f"auth kind {auth.get('kind')!r}: expected bearer or sigv4")


def fetch(
    url: str, tries: int = FETCH_TRIES, auth: dict[str, Any] | None = None, within: float = 0
) -> bytes:
    """The bundle at `url`: `tries` tries, and more until `within` seconds have passed since the
    first, waiting longer before each (1, 2, 4, 8, then 10 s)."""
    if not url.startswith(("file:///", "http://", "https://")):
        raise BootError(f"bundle url {url!r}: only file://, http:// and https:// are fetched")
    last = ""
    deadline = time.monotonic() + within
    done = 0
    while done < tries or time.monotonic() < deadline:
        if done:
            time.sleep(min(2 ** (done - 1), 10))
        done += 1
        try:
            headers = auth_headers(auth, url)  # fresh credentials each try
        except BootError as exc:
            last = str(exc)
            continue
        try:
            request = urllib.request.Request(url, headers=headers)
            with urllib.request.urlopen(request, timeout=60) as answer:  # schemes checked above
                data = answer.read(MAX_BUNDLE + 1)
            if len(data) > MAX_BUNDLE:
                raise BootError(f"bundle {url}: larger than {MAX_BUNDLE} bytes")
            return data
        except OSError as exc:
            last = str(getattr(exc, "reason", None) or exc)
    raise BootError(f"bundle {url}: not fetched after {done} tries ({last})")


def verify(data: bytes, expected: str) -> None:
    got = hashlib.sha256(data).hexdigest()
    if got != expected.lower():
        raise BootError(f"bundle sha256 mismatch: expected {expected}, got {got}; not run")


def unpack(archive: Path, dest: Path) -> None:
    """Regular files and directories only; every path stays below `dest`."""
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            if member.name.startswith("/") or ".." in parts or not parts:
                raise BootError(f"bundle entry {member.name!r}: path leaves the bundle")
            if not (member.isfile() or member.isdir()):
                raise BootError(f"bundle entry {member.name!r}: not a regular file")
            target = tmp.joinpath(*parts)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is None:
                raise BootError(f"bundle entry {member.name!r}: unreadable")
            with source, open(target, "wb") as out:
                shutil.copyfileobj(source, out)
            target.chmod(0o644)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def runtime(bundle: Path, spec: str, log: Any) -> Path:
    """The Python that has ansible-core and the library's dependencies."""
    if spec.startswith("python:"):
        python = Path(spec.removeprefix("python:"))
        if not python.is_file():
            raise BootError(f"runtime {spec}: no such interpreter")
        return python
    if spec not in ("wheels", "index"):
        raise BootError(f"runtime {spec!r}: choose wheels, index or python:PATH")
    reqs = (bundle / "node-requirements.txt").read_bytes()
    wheels = bundle / "wheels"
    if spec == "wheels" and not wheels.is_dir():
        raise BootError("runtime wheels: the bundle has no wheels/ folder")
    key = hashlib.sha256(reqs + spec.encode()).hexdigest()[:12]
    venv = VENVS / f"venv-{key}"
    python = venv / "bin" / "python"
    if (venv / ".complete").is_file():
        return python
    shutil.rmtree(venv, ignore_errors=True)
    _run([sys.executable, "-m", "venv", str(venv)], log, "making the Ansible venv")
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if spec == "wheels":
        pip += ["--no-index", "--find-links", str(wheels)]
    _run([*pip, "-r", str(bundle / "node-requirements.txt")], log, "installing ansible-core")
    (venv / ".complete").write_text("")
    return python


def _run(argv: list[str], log: Any, what: str, **kw: Any) -> None:
    log.write(f"$ {' '.join(argv)}\n")
    log.flush()
    proc = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, check=False, **kw)
    if proc.returncode != 0:
        raise BootError(f"{what} failed (exit {proc.returncode})")


def inventory(bundle: Path, group: str, host: str, python: str) -> dict[str, Any]:
    """One host: the node group's variables, then the host's own (where the bundle has them)."""
    group_file = bundle / "groups" / f"{group}.json"
    if not group_file.is_file():
        raise BootError(f"node group {group!r}: not in the bundle")
    variables: dict[str, Any] = json.loads(group_file.read_text())
    groups = ["gpu_nodes"]
    host_file = bundle / "hosts" / f"{host}.json"
    if host_file.is_file():
        entry = json.loads(host_file.read_text())
        variables.update(entry.get("vars", {}))
        groups += [g for g in entry.get("groups", []) if g != "gpu_nodes"]
    variables.update({"ansible_connection": "local", "ansible_python_interpreter": python})
    return {
        "all": {
            "hosts": {host: variables},
            "children": {g: {"hosts": {host: None}} for g in groups},
        }
    }


def recap(output: str) -> dict[str, dict[str, int]]:
    """PLAY RECAP lines: host -> {ok, changed, unreachable, failed, ...}."""
    out: dict[str, dict[str, int]] = {}
    for line in output.splitlines():
        m = RECAP.match(line.strip())
        if m:
            out[m.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
    return out


def first_failure(output: str) -> str:
    for line in output.splitlines():
        if line.startswith(("fatal:", "failed:", "ERROR!", "[ERROR]")):
            return line.strip()[:300]
    return ""


def play(bundle: Path, cfg: dict[str, Any], host: str, python: Path, log: Any) -> dict[str, Any]:
    module_python = str(NODE_PYTHON if NODE_PYTHON.is_file() else python)
    inv = bundle.parent / f"{bundle.name}.inventory.yml"
    inv.write_text(json.dumps(inventory(bundle, cfg["group"], host, module_python)))
    env = dict(
        os.environ,
        PATH=f"{python.parent}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        PYTHONPATH=str(bundle / "lib"),
        ANSIBLE_CONFIG=str(bundle / "ansible.cfg"),
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_NOCOLOR="1",
        HOME=os.environ.get("HOME", "/root"),
    )
    totals: dict[str, int] = {}
    for book in cfg["playbooks"]:
        argv = [str(python.parent / "ansible-playbook"), "-c", "local", "-i", str(inv)]
        argv += ["--limit", host]
        if cfg.get("skip_tags"):
            argv += ["--skip-tags", ",".join(cfg["skip_tags"])]
        argv.append(str(bundle / "playbooks" / book))
        log.write(f"$ {' '.join(argv)}\n")
        log.flush()
        proc = subprocess.run(
            argv, cwd=bundle, env=env, capture_output=True, text=True, check=False
        )
        log.write(proc.stdout + proc.stderr)
        log.flush()
        counts = recap(proc.stdout).get(host, {})
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
        if proc.returncode != 0 or counts.get("failed", 0) or counts.get("unreachable", 0):
            why = first_failure(proc.stdout + "\n" + proc.stderr) or "see the log"
            raise BootError(f"ansible-playbook {book} exited {proc.returncode}: {why}")
    return totals


def write_result(path: Path, doc: dict[str, Any], mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    # made with its mode: the settings hold a signed URL, never readable by others meanwhile
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), "w") as out:
        out.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    tmp.chmod(mode)  # exactly `mode`, whatever the umask
    tmp.replace(path)


def short_hostname() -> str:
    """This node's host name without its domain, as the inventory names it."""
    return socket.gethostname().split(".", 1)[0]


def read_settings(path: Path) -> dict[str, Any]:
    """The boot settings: a JSON object whose group, bundle URL and sha256 are text."""
    try:
        cfg = json.loads(path.read_text())
    except OSError as exc:
        raise BootError(f"settings {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # not JSON, or not UTF-8
        raise BootError(f"settings {path}: not JSON ({exc})") from None
    if not isinstance(cfg, dict):
        raise BootError(f"settings {path}: not a JSON object")
    bad = [key for key in ("group", "url", "sha256") if not isinstance(cfg.get(key), str)]
    if bad:
        raise BootError(f"settings {path}: {', '.join(bad)} missing or not text")
    return cfg


USAGE = "usage: gpufabric-boot /etc/gpufabric/boot.json [--bundle URL --sha256 HEX]"
_HEX64 = re.compile(r"[0-9a-f]{64}")


def main(argv: list[str]) -> int:
    """First boot: run the bundle the settings name. Day 2 (a fan-out over the nodes): with
    --bundle and --sha256, run that bundle instead and record it in the settings when it
    configured the node."""
    if len(argv) not in (2, 6) or (len(argv) == 6 and argv[2::2] != ["--bundle", "--sha256"]):
        print(USAGE, file=sys.stderr)
        return 2
    cfg_path = Path(argv[1])
    try:
        cfg = read_settings(cfg_path)
    except BootError as exc:  # no settings to run by: the result at its usual place says why
        doc = {"status": "not-configured", "reason": str(exc), "host": short_hostname()}
        write_result(RESULT_PATH, doc)
        print(f"gpufabric-boot: {exc}", file=sys.stderr)
        return 1
    if len(argv) == 6:
        if not _HEX64.fullmatch(argv[5]):
            print(
                f"gpufabric-boot: --sha256 {argv[5]!r}: 64 lower-case hex digits", file=sys.stderr
            )
            return 2
        cfg.update(url=argv[3], sha256=argv[5])
    result_path = Path(cfg.get("result", RESULT_PATH))
    log_path = Path(cfg.get("log", LOG_PATH))
    workdir = Path(cfg.get("workdir", WORKDIR))
    host = cfg.get("host") or short_hostname()
    started = time.time()
    doc: dict[str, Any] = {
        "status": "running",
        "reason": "",
        "host": host,
        "group": cfg["group"],
        "bundle": cfg["url"],
        "sha256": cfg["sha256"],
        "version": cfg.get("version", ""),
        "log": str(log_path),
        "started": round(started, 3),
    }
    write_result(result_path, doc)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "a") as log:
        try:
            # first boot: the read grant may still be on its way; day 2: it is old
            within = FIRST_BOOT_FETCH_SECONDS if len(argv) == 2 else 0
            data = fetch(cfg["url"], auth=cfg.get("auth"), within=within)
            verify(data, cfg["sha256"])
            workdir.mkdir(parents=True, exist_ok=True)
            archive = workdir / f"{cfg['sha256']}.tar.gz"
            archive.write_bytes(data)
            bundle = workdir / cfg["sha256"]
            unpack(archive, bundle)
            python = runtime(bundle, cfg.get("runtime", "index"), log)
            doc["recap"] = play(bundle, cfg, host, python, log)
            doc["status"] = "configured"
        except BootError as exc:
            doc.update(status="not-configured", reason=str(exc))
        except Exception as exc:  # anything else: still leave a result that says why
            doc.update(status="not-configured", reason=f"{type(exc).__name__}: {exc}")
        log.write(f"gpufabric-boot: {doc['status']} {doc['reason']}\n")
    doc["finished"] = round(time.time(), 3)
    doc["seconds"] = round(doc["finished"] - started, 1)
    write_result(result_path, doc)
    if len(argv) == 6 and doc["status"] == "configured":  # the node's bundle from now on
        write_result(cfg_path, cfg, mode=0o600)  # a signed URL is a credential
    return 0 if doc["status"] == "configured" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
