"""How a node reads its bundle from private object storage, and the compressed user data.

The boot script (standard library only) signs S3 requests with Signature Version 4: checked
against the published example of the S3 API reference and against botocore's own signer. Its
bearer-token and SigV4 fetches run for real against a local HTTP server standing in for the
instance metadata service and the object store, which answers 403 without the right headers.
The gzipped boot script in the user data is decoded by the real cloud-init of the lab's Debian
root filesystem where one is built.
"""

from __future__ import annotations

import base64
import datetime
import gzip
import hashlib
import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml

from gpufabric.bundle import boot, render, userdata
from gpufabric.bundle.render import BundleSpec

REPO = Path(__file__).resolve().parents[2]
BUNDLE = b"the bundle's bytes"
TOKEN = "node-token-5f1c"
CREDS = {"AccessKeyId": "ASIAEXAMPLE", "SecretAccessKey": "s3cr3t", "Token": "session-tok"}
ROOTFS = Path("/var/cache/gpufabric/rootfs")


def test_sigv4_matches_the_s3_reference_example() -> None:
    """S3 API reference, "Signature Calculations for the Authorization Header", example GET
    Object (examplebucket/test.txt, Range bytes=0-9, 20130524T000000Z): its published
    signature."""
    headers = boot.sigv4_headers(
        "GET",
        "https://examplebucket.s3.amazonaws.com/test.txt",
        {"Range": "bytes=0-9"},
        ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        "us-east-1",
        "s3",
        "20130524T000000Z",
    )
    assert headers["Authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    )


def test_sigv4_matches_botocore_with_a_session_token() -> None:
    pytest.importorskip("botocore")
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    url = "https://c1-boot-0a1b2c.s3.eu-west-1.amazonaws.com/gpufabric/bundles/gpufabric-c1-0123.tar.gz"
    request = AWSRequest(method="GET", url=url, headers={})
    fixed = datetime.datetime(2026, 12, 4, 22, 0, 0)
    with mock.patch("botocore.auth.datetime") as clock:
        clock.datetime.utcnow.return_value = fixed
        clock.datetime.now.return_value = fixed
        S3SigV4Auth(Credentials("AKID", "SECRET", "TOKEN123"), "s3", "eu-west-1").add_auth(request)
    amz_date = request.headers["X-Amz-Date"]
    ours = boot.sigv4_headers(
        "GET",
        url,
        {"x-amz-security-token": "TOKEN123"},
        ("AKID", "SECRET"),
        "eu-west-1",
        "s3",
        amz_date,
    )
    assert ours["Authorization"] == request.headers["Authorization"]


class _Store(BaseHTTPRequestHandler):
    """IMDS stand-in (token, role, credentials) and an object store that wants the headers."""

    seen: list[dict[str, str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PUT(self) -> None:
        ok = self.path == "/imds/api/token" and self.headers.get("X-ttl") == "21600"
        self._send(200 if ok else 403, b"imds-session" if ok else b"")

    def do_GET(self) -> None:
        _Store.seen.append({k.lower(): v for k, v in self.headers.items()})
        if self.path.startswith("/imds/token"):
            ok = self.headers.get("Metadata") == "true"
            return self._send(200 if ok else 400, json.dumps({"access_token": TOKEN}).encode())
        if self.path.startswith("/imds/creds/"):
            if self.headers.get("X-session") != "imds-session":
                return self._send(401, b"")
            role = self.path.removeprefix("/imds/creds/")
            return self._send(200, json.dumps(CREDS).encode() if role else b"node-role\n")
        if self.path == "/bucket/bearer.tar.gz":
            ok = self.headers.get("Authorization") == f"Bearer {TOKEN}"
            ok = ok and self.headers.get("x-ms-version") == "2021-08-06"
            return self._send(200 if ok else 403, BUNDLE if ok else b"")
        if self.path == "/bucket/signed.tar.gz":
            auth = self.headers.get("Authorization", "")
            ok = auth.startswith("AWS4-HMAC-SHA256 Credential=ASIAEXAMPLE/")
            ok = ok and self.headers.get("x-amz-security-token") == "session-tok"
            return self._send(200 if ok else 403, BUNDLE if ok else b"")
        return self._send(404, b"")


@pytest.fixture
def store() -> Iterator[str]:
    _Store.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Store)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_bearer_fetch_gets_a_token_and_sends_it(store: str) -> None:
    auth = {
        "kind": "bearer",
        "token_url": f"{store}/imds/token?resource=x",
        "token_headers": {"Metadata": "true"},
        "headers": {"x-ms-version": "2021-08-06"},
    }
    assert boot.fetch(f"{store}/bucket/bearer.tar.gz", tries=1, auth=auth) == BUNDLE
    with pytest.raises(boot.BootError, match="not fetched after 1 tries"):
        boot.fetch(f"{store}/bucket/bearer.tar.gz", tries=1)  # no identity: 403


def test_sigv4_fetch_reads_the_role_credentials_and_signs(store: str) -> None:
    auth = {
        "kind": "sigv4",
        "region": "eu-west-1",
        "service": "s3",
        "session_url": f"{store}/imds/api/token",
        "session_headers": {"X-ttl": "21600"},
        "session_header": "X-session",
        "credentials_url": f"{store}/imds/creds/",
    }
    assert boot.fetch(f"{store}/bucket/signed.tar.gz", tries=1, auth=auth) == BUNDLE
    sent = _Store.seen[-1]
    assert "Credential=ASIAEXAMPLE/" in sent["authorization"]
    assert sent["x-amz-content-sha256"] == hashlib.sha256(b"").hexdigest()


def test_a_missing_identity_is_a_one_line_reason(store: str) -> None:
    auth = {"kind": "bearer", "token_url": f"{store}/imds/nothing", "token_headers": {}}
    with pytest.raises(boot.BootError) as err:
        boot.fetch(f"{store}/bucket/bearer.tar.gz", tries=1, auth=auth)
    assert str(err.value).startswith(f"bundle {store}/bucket/bearer.tar.gz: not fetched")
    assert "node identity" in str(err.value) and "\n" not in str(err.value)


def _bundle(tmp: Path) -> render.Bundle:
    spec = BundleSpec("c1", {"gpu_nodes": {"gpufabric_fabric": "efa"}})
    return render.render(spec, REPO, tmp)


def test_compressed_user_data_carries_the_same_script_and_the_auth(tmp_path: Path) -> None:
    b = _bundle(tmp_path)
    auth = {"kind": "bearer", "token_url": "http://169.254.169.254/t", "token_headers": {}}
    cfg = userdata.boot_config(b, "https://store.example/o.tar.gz", "gpu_nodes", auth=auth)
    plain, packed = userdata.render(cfg), userdata.render(cfg, compress=True)
    assert len(packed) < len(plain) // 2
    doc = yaml.safe_load(packed)
    script = doc["write_files"][0]
    assert script["encoding"] == "gz+b64"
    assert gzip.decompress(base64.b64decode(script["content"])).decode() == (
        userdata.BOOT_SCRIPT.read_text()
    )
    settings = json.loads(doc["write_files"][1]["content"])
    assert settings["auth"] == auth and settings["sha256"] == b.sha256
    assert userdata.render(cfg, compress=True) == packed  # the same bytes every time


def _cloud_init_rootfs() -> Path | None:
    for root in sorted(ROOTFS.glob("*/rootfs")) if ROOTFS.is_dir() else []:
        if (root / "usr/lib/python3/dist-packages/cloudinit/config/cc_write_files.py").is_file():
            return root
    return None


def test_real_cloud_init_decodes_the_compressed_script(tmp_path: Path) -> None:
    root = _cloud_init_rootfs()
    if root is None or shutil.which("chroot") is None:
        pytest.skip("no lab root filesystem with cloud-init (gpufabric lab up builds one)")
    cfg = userdata.boot_config(_bundle(tmp_path), "https://store.example/o.tar.gz", "gpu_nodes")
    code = (
        "import sys, yaml\n"
        "from cloudinit.config.cc_write_files import canonicalize_extraction, extract_contents\n"
        "f = yaml.safe_load(sys.stdin.read())['write_files'][0]\n"
        "sys.stdout.buffer.write(extract_contents(f['content'], "
        "canonicalize_extraction(f['encoding'])))\n"
    )
    proc = subprocess.run(
        ["chroot", str(root), "python3", "-c", code],
        input=userdata.render(cfg, compress=True).encode(),
        capture_output=True,
        check=False,
        timeout=120,
    )
    if proc.returncode != 0 and b"Operation not permitted" in proc.stderr:
        pytest.skip("chroot needs root")
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == userdata.BOOT_SCRIPT.read_bytes()
