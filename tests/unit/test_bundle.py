"""The configuration bundle, the node user data and the boot script (without a cloud).

The boot script's run for real (`python boot.py` and the real ansible-playbook):
test_bundle_boot_real.py.
"""

from __future__ import annotations

import hashlib
import io
import json
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
