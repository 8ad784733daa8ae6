"""The configuration bundle, the node user data and the boot script (without a cloud).

The boot script runs for real here: a bundle of a small project (its own playbook writes one
file) is fetched from a file:// URL, checked, unpacked and run with the real
`ansible-playbook -c local` of this venv; a tampered copy is refused before anything runs.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufabric.bundle import boot, render, userdata
from gpufabric.bundle.render import BundleSpec
from gpufabric.errors import UserError

REPO = Path(__file__).resolve().parents[2]
VENV_PYTHON = Path(sys.executable)


def _spec(**kw: Any) -> BundleSpec:
    base: dict[str, Any] = {
        "stack": "lab",
        "groups": {"gpu_nodes": {"gpufabric_fabric": "lab", "gpufabric_encryption": "none"}},
    }
    return BundleSpec(**{**base, **kw})


def test_same_inputs_same_bytes_and_hash(tmp_path: Path) -> None:
    a = render.render(_spec(), REPO, tmp_path / "a")
    b = render.render(_spec(), REPO, tmp_path / "b")
    assert a.path.read_bytes() == b.path.read_bytes()
    assert a.sha256 == b.sha256 == hashlib.sha256(a.path.read_bytes()).hexdigest()
    assert a.name == f"gpufabric-lab-{a.sha256[:16]}.tar.gz"
    assert a.version.endswith("+" + a.sha256[:12])
    changed = render.render(
        _spec(groups={"gpu_nodes": {"gpufabric_fabric": "efa"}}), REPO, tmp_path / "c"
    )
    assert changed.sha256 != a.sha256


def _members(path: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(path, "r:gz") as tar:
        return {m.name: m for m in tar.getmembers()}


def test_bundle_holds_roles_playbooks_library_and_group_variables(tmp_path: Path) -> None:
    spec = _spec(hosts={"h1": {"vars": {"gpufabric_leaf": "leaf1"}, "groups": ["controller"]}})
    b = render.render(spec, REPO, tmp_path)
    members = _members(b.path)
    assert "roles/host_tuning/tasks/main.yml" in members
    assert "playbooks/tune-fabric.yml" in members
    assert "plugins/filter/gpufabric.py" in members
    assert "lib/gpufabric/stack_outputs.py" in members
    assert not [n for n in members if "__pycache__" in n or n.endswith(".pyc")]
    assert {m.mtime for m in members.values()} == {0}
    assert {(m.uid, m.gid) for m in members.values()} == {(0, 0)}
    with tarfile.open(b.path, "r:gz") as tar:

        def read(name: str) -> Any:
            f = tar.extractfile(name)
            assert f is not None
            return json.loads(f.read())

        assert read("groups/gpu_nodes.json") == dict(spec.groups["gpu_nodes"])
        assert read("hosts/h1.json") == {
            "vars": {"gpufabric_leaf": "leaf1"},
            "groups": ["controller"],
        }
        manifest = read("manifest.json")
    assert manifest["playbooks"] == ["tune-fabric.yml"]
    assert manifest["skip_tags"] == ["topology"]
    assert set(manifest["files"]) == set(members) - {"manifest.json"}


def test_bundle_from_stack_outputs_has_one_file_per_node_group(tmp_path: Path) -> None:
    from tests.pulumi.plans import plan_for

    from gpufabric import stack_outputs

    outputs = stack_outputs.parse(plan_for("aws-h100").outputs, "plan")
    spec = render.spec_from_outputs(outputs)
    assert list(spec.groups) == [g.name for g in outputs.nodes.groups]
    variables = next(iter(spec.groups.values()))
    assert variables["gpufabric_fabric"] == "efa"
    assert variables["gpufabric_cloud"] == "aws"
    assert variables["gpufabric_node_group"] == outputs.nodes.groups[0].name
    b = render.render(spec, REPO, tmp_path)
    assert f"groups/{outputs.nodes.groups[0].name}.json" in _members(b.path)


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"stack": "a b"}, "bundle stack 'a b'"),
        ({"groups": {"../x": {}}}, "node group '../x'"),
        ({"playbooks": ("../ansible.cfg",)}, "bundle playbook"),
        ({"playbooks": ("nope.yml",)}, "bundle playbook 'nope.yml'"),
        ({"skip_tags": ("a,b",)}, "skip tag 'a,b'"),
        ({"groups": {}}, "no node group"),
        ({"hosts": {"h1": {"vars": {}, "extra": 1}}}, "unknown key(s) extra"),
    ],
)
def test_bad_spec_is_refused_naming_it(kw: dict[str, Any], needle: str, tmp_path: Path) -> None:
    with pytest.raises(UserError, match=None) as err:
        render.render(_spec(**kw), REPO, tmp_path)
    assert needle in str(err.value)
    assert not list(tmp_path.iterdir())


def test_user_data_is_cloud_config_with_the_script_and_settings(tmp_path: Path) -> None:
    b = render.render(_spec(), REPO, tmp_path)
    cfg = userdata.boot_config(b, "https://bucket.example/x.tar.gz?sig=a%2Fb&x=1", "gpu_nodes")
    text = userdata.render(cfg)
    assert text.startswith("#cloud-config\n")
    doc = yaml.safe_load(text)
    files = {f["path"]: f for f in doc["write_files"]}
    assert files[userdata.SCRIPT_PATH]["content"] == userdata.BOOT_SCRIPT.read_text()
    assert files[userdata.SCRIPT_PATH]["permissions"] == "0755"
    settings = json.loads(files[userdata.CONFIG_PATH]["content"])
    assert settings["sha256"] == b.sha256
    assert settings["url"] == "https://bucket.example/x.tar.gz?sig=a%2Fb&x=1"
    assert settings["playbooks"] == ["tune-fabric.yml"]
    assert doc["runcmd"] == [[userdata.SCRIPT_PATH, userdata.CONFIG_PATH]]


@pytest.mark.parametrize(
    ("url", "group", "runtime", "needle"),
    [
        ("s3://bucket/x", "gpu_nodes", "index", "bundle url"),
        ("https://a b/x", "gpu_nodes", "index", "bundle url"),
        ("https://ok/x\n- evil", "gpu_nodes", "index", "bundle url"),
        ("https://ok/x", "other", "index", "node group 'other'"),
        ("https://ok/x", "gpu_nodes", "conda", "runtime 'conda'"),
    ],
)
def test_user_data_refuses_bad_values(
    url: str, group: str, runtime: str, needle: str, tmp_path: Path
) -> None:
    b = render.render(_spec(), REPO, tmp_path)
    with pytest.raises(UserError) as err:
        userdata.boot_config(b, url, group, runtime)
    assert needle in str(err.value)


# ---------------------------------------------------------------- the boot script, for real
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


def _tar_with(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = link
        data = b"x" if kind == tarfile.REGTYPE else b""
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


@pytest.mark.parametrize(
    ("name", "kind", "link", "needle"),
    [
        ("../evil", tarfile.REGTYPE, "", "path leaves the bundle"),
        ("/etc/evil", tarfile.REGTYPE, "", "path leaves the bundle"),
        ("a/../../evil", tarfile.REGTYPE, "", "path leaves the bundle"),
        ("link", tarfile.SYMTYPE, "/etc/shadow", "not a regular file"),
        ("hard", tarfile.LNKTYPE, "x", "not a regular file"),
    ],
)
def test_unpack_refuses_entries_leaving_the_bundle(
    name: str, kind: bytes, link: str, needle: str, tmp_path: Path
) -> None:
    archive = tmp_path / "b.tar.gz"
    archive.write_bytes(_tar_with(name, kind, link))
    with pytest.raises(boot.BootError, match=needle):
        boot.unpack(archive, tmp_path / "dest")
    assert not (tmp_path / "dest").exists()
    assert not (tmp_path / "evil").exists()


def test_fetch_refuses_other_schemes_and_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(boot.BootError, match="only file://"):
        boot.fetch("ftp://x/y")
    with pytest.raises(boot.BootError, match="not fetched after 1 tries"):
        boot.fetch(f"file://{tmp_path}/missing.tar.gz", tries=1)


def test_recap_is_read_per_host() -> None:
    out = "PLAY RECAP ***\nn1   : ok=3    changed=1    unreachable=0    failed=0    skipped=2\n"
    assert boot.recap(out) == {
        "n1": {"ok": 3, "changed": 1, "unreachable": 0, "failed": 0, "skipped": 2}
    }


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


def test_cli_renders_a_stack_bundle_and_its_user_data(tmp_path: Path) -> None:
    from tests.pulumi.plans import plan_for
    from typer.testing import CliRunner

    from gpufabric.cli.main import app

    (tmp_path / "outputs.json").write_text(json.dumps(plan_for("aws-h100").outputs))
    runner = CliRunner()
    res = runner.invoke(
        app,
        ["bundle", "render", "--outputs", str(tmp_path / "outputs.json"), "--out", str(tmp_path)],
    )
    assert res.exit_code == 0, res.output
    path, sha = res.output.splitlines()[0], res.output.splitlines()[1].split()[1]
    assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == sha
    group = plan_for("aws-h100").outputs["nodes"]["groups"][0]["name"]
    res = runner.invoke(
        app,
        ["bundle", "user-data", "--bundle", path, "--url", "https://b.example/x", "--group", group],
    )
    assert res.exit_code == 0, res.output
    doc = yaml.safe_load(res.output)
    settings = json.loads(doc["write_files"][1]["content"])
    assert (settings["sha256"], settings["group"]) == (sha, group)
    res = runner.invoke(
        app, ["bundle", "user-data", "--bundle", path, "--url", "s3://b/x", "--group", group]
    )
    assert isinstance(res.exception, UserError)  # main() prints it as one line, exit 2
    assert "bundle url 's3://b/x'" in str(res.exception)
