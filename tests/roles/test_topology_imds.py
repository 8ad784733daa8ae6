"""roles/topology with a source each node reads from its instance metadata (oci, nebius, and a
sixth cloud that lives only in the test tree): every node's document (served here by a loopback
stand-in for the IMDS, in the documents' real shapes) becomes the rendered topology. The
endpoint and its headers are what each cloud's package declares (CloudSpec.topology_metadata),
the role names no cloud; only the URL's host and port are the stand-in's."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from gpufabric.clouds import registry

REPO = Path(__file__).resolve().parents[2]
ISLAND = "ocid1.computehpcisland.oc1.iad.island"
OCI = {
    "n1": {
        "customerHPCIslandId": ISLAND,
        "customerNetworkBlock": "nb1",
        "customerLocalBlock": "lb1",
    },
    "n2": {
        "customerHPCIslandId": ISLAND,
        "customerNetworkBlock": "nb1",
        "customerLocalBlock": "lb1",
    },
    "n3": {
        "customerHPCIslandId": ISLAND,
        "customerNetworkBlock": "nb2",
        "customerLocalBlock": "lb7",
    },
}
NEBIUS = {
    name: {
        "id": f"computeinstance-{name}",
        "hostname": name,
        "gpu_cluster_id": "computegpucluster-1",
        "infiniband_fabric": "fabric-3",
        "infiniband_topology_path": ["r", "s1", leaf],
    }
    for name, leaf in (("n1", "l1"), ("n2", "l2"), ("n3", "l2"))
}
SIXTH = {name: {"path": ["spine", leaf]} for name, leaf in (("n1", "a"), ("n2", "b"), ("n3", "b"))}
EXPECTED_HEADER = {
    "oci": ("Authorization", "Bearer Oracle"),
    "nebius": ("Metadata", "true"),
    "sixth": ("Sixth-Metadata", "yes"),
}
DOCS = {"oci": OCI, "nebius": NEBIUS, "sixth": SIXTH}


@pytest.fixture()
def imds() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    seen: list[tuple[str, str]] = []
    turns, turn_lock = itertools.count(), threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            source, _, node = self.path.strip("/").partition("/")
            if source == "sixth":  # one URL for every node: the documents in turn
                with turn_lock:
                    node = ("n1", "n2", "n3")[next(turns) % 3]
            header, value = EXPECTED_HEADER[source]
            seen.append((self.path, self.headers.get(header, "")))
            if self.headers.get(header) != value:
                self.send_response(401)
                self.end_headers()
                return
            body = json.dumps(DOCS[source][node]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()


def _play(
    tmp_path: Path, base: str, source: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """playbooks/topology.yml over three local nodes whose IMDS is the stand-in at `base` (the
    URL alone replaced through topology_metadata: the headers stay the cloud's own)."""
    inv = tmp_path / "inventory.yml"
    hosts = {
        n: {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
        for n in ("n1", "n2", "n3")
    }
    inv.write_text(yaml.safe_dump({"all": {"children": {"gpu_nodes": {"hosts": hosts}}}}))
    extra: dict[str, object] = {
        "topology_source": source,
        "topology_workdir": str(tmp_path / "work"),
        "topology_login_host": "",
    }
    if base:
        extra["topology_metadata"] = {"url": f"{base}/{source}/{{{{ inventory_hostname }}}}"}
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-playbook"),
            "-i",
            str(inv),
            "playbooks/topology.yml",
            "-e",
            json.dumps(extra),
            "-e",
            "ansible_become=false",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env=env,
    )
    return proc


@pytest.mark.parametrize("source", ["oci", "nebius"])
def test_the_headers_are_the_clouds_own(source: str) -> None:
    metadata = registry.get(source).topology_metadata
    assert metadata is not None and EXPECTED_HEADER[source] in metadata.headers


@pytest.mark.parametrize("source", ["oci", "nebius"])
def test_imds_sources_render_the_fabric(tmp_path: Path, imds, source: str) -> None:
    base, seen = imds
    proc = _play(tmp_path, base, source)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert len(seen) == 3 and all(h for _p, h in seen)  # each node asked, with the header
    written = json.loads((tmp_path / "work" / "input.json").read_text())
    assert set(written) == {"n1", "n2", "n3"}
    score = json.loads((tmp_path / "work" / "score.json").read_text())
    assert score["nodes"] == 3 and score["leaves"] == 2
    assert f"3 nodes on 2 leaves ({source})" in proc.stdout


@pytest.mark.parametrize(
    ("source", "doc", "words"),
    [
        ("oci", {**OCI["n3"], "customerLocalBlock": "lb7\nSwitchName=evil"},
         "n3: customerLocalBlock: 'lb7\\nSwitchName=evil' holds the control character"),
        ("nebius", {**NEBIUS["n3"], "infiniband_topology_path": ["r", "s1", "l2\nx"]},
         "host 'n3': path[2] 'l2\\nx' holds the control character"),
        ("nebius", {**NEBIUS["n3"], "id": 12345}, "instance id: 12345 must be a string"),
    ],
)  # fmt: skip
def test_a_hostile_node_report_is_refused_before_it_is_written(
    tmp_path: Path, imds, monkeypatch: pytest.MonkeyPatch, source: str, doc: dict, words: str
) -> None:
    """A node's own metadata is untrusted input: an id with a newline (which would write its
    own SwitchName= line) stops the role naming the node and the field; nothing is written."""
    monkeypatch.setitem(OCI if source == "oci" else NEBIUS, "n3", doc)
    base, _seen = imds
    proc = _play(tmp_path, base, source)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert words in out, out[-3000:]
    assert "Traceback" not in out
    assert not (tmp_path / "work" / "input.json").exists()


def test_a_cloud_from_the_test_tree_is_gathered_with_no_edit_to_the_role(tmp_path: Path, imds):
    """The sixth cloud's package declares its metadata endpoint (read from SIXTH_METADATA_URL
    here, so it can point at the stand-in): the role reads it from the CLI and asks each node.
    Data from a command is never templated, so the URL is one for every node, as on a cloud."""
    base, seen = imds
    path = os.pathsep.join(filter(None, [str(REPO / "tests/clouds"), os.environ.get("PYTHONPATH")]))
    env = {
        **os.environ,
        "GPUFABRIC_CLOUDS": "sixth=sixthcloud",
        "PYTHONPATH": path,
        "SIXTH_METADATA_URL": f"{base}/sixth",
    }
    proc = _play(tmp_path, "", "sixth", env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert seen == [("/sixth", "yes")] * 3
    assert "3 nodes on 2 leaves (sixth)" in proc.stdout


def test_an_unknown_source_is_named_with_the_known_ones(tmp_path: Path) -> None:
    proc = _play(tmp_path, "", "seventh")
    assert proc.returncode != 0
    assert "topology_source=seventh: choose inventory or one of aws, gcp" in proc.stdout
