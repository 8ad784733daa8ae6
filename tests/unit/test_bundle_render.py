"""The bundle, exactly: which names it takes, which files it holds (and which it leaves out),
its manifest, the archive's bytes (entries, owners, times, modes, gzip header) and reading a
rendered bundle back (a bad file refused in one line)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import gpufabric
from gpufabric.bundle import render
from gpufabric.bundle.render import BundleSpec
from gpufabric.clouds import registry
from gpufabric.errors import UserError

LIB = Path(gpufabric.__file__).parent


def _repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    for rel, text in {
        "ansible.cfg": "[defaults]\n",
        "playbooks/site.yml": "- hosts: all\n",
        "playbooks/other.yml": "- hosts: all\n",
        "roles/r/tasks/main.yml": "- debug: {}\n",
        "roles/r/__pycache__/x.cpython-311.pyc": "junk",
        "roles/r/.pytest_cache/v": "junk",
        "plugins/filter/f.py": "X = 1\n",
        "plugins/filter/f.pyc": "junk",
        "plugins/filter/f.pyo": "junk",
        "plugins/filter/g.py": "G = 1\n",  # after the compiled files: still bundled
        "plugins/.mypy_cache/m": "junk",
        "plugins/.ruff_cache/r": "junk",
        "not-bundled.txt": "x",
    }.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / "roles" / "r" / "link.yml").symlink_to(repo / "roles" / "r" / "tasks" / "main.yml")
    return repo


def _spec(**kw: Any) -> BundleSpec:
    return BundleSpec(**{"stack": "s1", "groups": {"g1": {"v": 1}}, "playbooks": ("site.yml",),
                         "skip_tags": ("topology",)} | kw)  # fmt: skip


# ---------------------------------------------------------------- the spec
def test_spec_from_outputs_gives_each_node_group_the_stack_variables() -> None:
    for cloud in registry.names():
        outputs = SimpleNamespace(
            group_vars=lambda: {"gpufabric_fabric": "f", "gpufabric_node_group": "stale"},
            cluster=SimpleNamespace(cloud=cloud, stack="st"),
            nodes=SimpleNamespace(groups=[SimpleNamespace(name="a"), SimpleNamespace(name="b")]),
        )
        source = registry.get(cloud).topology_source
        base = {"gpufabric_fabric": "f", "gpufabric_topology_source": source}
        assert render.spec_from_outputs(outputs) == BundleSpec(
            "st",
            {
                "a": {**base, "gpufabric_node_group": "a"},
                "b": {**base, "gpufabric_node_group": "b"},
            },
            ("tune-fabric.yml",),
            ("topology",),
        )
        spec = render.spec_from_outputs(outputs, ["x.yml", "y.yml"], ["t"])
        assert (spec.playbooks, spec.skip_tags, spec.hosts) == (("x.yml", "y.yml"), ("t",), {})


@pytest.mark.parametrize("name", ["a", "A9", "a_b.c-d", "9" * 63])
def test_plain_names_are_taken(name: str, tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    spec = _spec(stack=name, groups={name: {}}, skip_tags=(name,), hosts={name: {}})
    assert f"groups/{name}.json" in render.contents(spec, repo)


@pytest.mark.parametrize(
    ("kw", "line"),
    [
        ({"stack": "a" * 64}, f"bundle stack {'a' * 64!r}: letters, digits, '_', '.', '-' only"),
        ({"stack": "_a"}, "bundle stack '_a': letters, digits, '_', '.', '-' only"),
        ({"stack": ""}, "bundle stack '': letters, digits, '_', '.', '-' only"),
        ({"groups": {"g/1": {}}}, "bundle node group 'g/1': letters, digits, '_', '.', '-' only"),
        ({"hosts": {"h 1": {}}}, "bundle host 'h 1': letters, digits, '_', '.', '-' only"),
        ({"skip_tags": ("t", "-t")}, "bundle skip tag '-t': letters, digits, '_', '.', '-' only"),
        ({"groups": {}}, "bundle: no node group"),
        ({"playbooks": ("site.yml", "roles")}, "bundle playbook 'roles': not a playbook in {repo}/playbooks"),
        ({"playbooks": ("r/tasks/main.yml",)}, "bundle playbook 'r/tasks/main.yml': not a playbook in {repo}/playbooks"),
        ({"playbooks": (".hidden",)}, "bundle playbook '.hidden': not a playbook in {repo}/playbooks"),
        ({"hosts": {"h1": {"vars": {}, "z": 1, "a": 2}}}, "bundle host h1: unknown key(s) a, z"),
        ({"hosts": {"h1": {"groups": ["ok", "bad name"]}}}, "bundle host h1: group 'bad name' is not a plain name"),
    ],
)  # fmt: skip
def test_a_bad_spec_is_one_exact_line(kw: dict[str, Any], line: str, tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "playbooks" / "roles").mkdir()
    (repo / "playbooks" / "r" / "tasks").mkdir(parents=True)
    (repo / "playbooks" / "r" / "tasks" / "main.yml").write_text("")
    (repo / "playbooks" / ".hidden").write_text("")
    with pytest.raises(UserError) as err:
        render.render(_spec(**kw), repo, tmp_path / "out")
    assert str(err.value) == line.format(repo=repo)
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- the files
def test_contents_are_the_repository_parts_the_library_and_the_manifest(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    spec = _spec(
        groups={"g2": {"b": 2, "a": [1]}, "g1": {"v": 1}},
        playbooks=("site.yml", "other.yml"),
        hosts={"h2": {"vars": {"x": 1}, "groups": ["z", "c"]}, "h1": {}},
    )
    files = render.contents(spec, repo)
    lib = {
        f"lib/gpufabric/{p.relative_to(LIB).as_posix()}"
        for p in LIB.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
    }
    assert set(files) == {
        "ansible.cfg", "playbooks/other.yml", "playbooks/site.yml", "roles/r/tasks/main.yml",
        "plugins/filter/f.py", "plugins/filter/g.py", "groups/g1.json", "groups/g2.json", "hosts/h1.json",
        "hosts/h2.json", "node-requirements.txt", "manifest.json", *lib,
    }  # fmt: skip
    assert list(files)[-1] == "manifest.json"
    assert files["lib/gpufabric/bundle/render.py"] == (LIB / "bundle" / "render.py").read_bytes()
    assert files["roles/r/tasks/main.yml"] == b"- debug: {}\n"
    assert files["groups/g2.json"] == b'{\n  "a": [\n    1\n  ],\n  "b": 2\n}\n'
    assert json.loads(files["hosts/h2.json"]) == {"vars": {"x": 1}, "groups": ["c", "z"]}
    assert json.loads(files["hosts/h1.json"]) == {"vars": {}, "groups": []}
    assert files["node-requirements.txt"] == ("\n".join(render.NODE_REQUIREMENTS) + "\n").encode()
    manifest = files["manifest.json"]
    assert manifest == (json.dumps(json.loads(manifest), indent=2, sort_keys=True) + "\n").encode()
    doc = json.loads(manifest)
    assert doc.pop("files") == {
        name: hashlib.sha256(data).hexdigest() for name, data in files.items()
        if name != "manifest.json"
    }  # fmt: skip
    assert doc == {
        "format": 1,
        "gpufabric": gpufabric.__version__,
        "stack": "s1",
        "playbooks": ["site.yml", "other.yml"],
        "skip_tags": ["topology"],
        "groups": ["g1", "g2"],
        "hosts": ["h1", "h2"],
        "wheels": False,
    }


def test_wheels_go_in_when_given(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "b-1-py3-none-any.whl").write_bytes(b"B")
    (wheels / "a-1-py3-none-any.whl").write_bytes(b"A")
    (wheels / "notes.txt").write_text("")
    files = render.contents(_spec(), repo, wheels)
    assert {n: d for n, d in files.items() if n.startswith("wheels/")} == {
        "wheels/a-1-py3-none-any.whl": b"A",
        "wheels/b-1-py3-none-any.whl": b"B",
    }
    assert json.loads(files["manifest.json"])["wheels"] is True
    (wheels / "a-1-py3-none-any.whl").unlink()
    (wheels / "b-1-py3-none-any.whl").unlink()
    with pytest.raises(UserError) as err:
        render.contents(_spec(), repo, wheels)
    assert str(err.value) == f"bundle wheels {wheels}: no *.whl file"


# ---------------------------------------------------------------- the archive
def test_the_archive_is_sorted_owned_by_root_at_time_zero(tmp_path: Path) -> None:
    data = render.archive({"b/x": b"BB", "a": b"A", "c": b""})
    assert data == render.archive({"c": b"", "a": b"A", "b/x": b"BB"})
    raw = gzip.decompress(data)
    assert data[4:8] == b"\0\0\0\0"  # gzip MTIME 0
    assert data[3] & 0x08 == 0  # no file name in the gzip header
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
        members = tar.getmembers()
        assert [(m.name, m.size, m.mode, m.mtime, m.uid, m.gid, m.uname, m.gname)
                for m in members] == [
            (name, size, 0o644, 0, 0, 0, "", "")
            for name, size in (("a", 1), ("b/x", 2), ("c", 0))
        ]  # fmt: skip
        assert all(m.isfile() for m in members)
        member = tar.extractfile("b/x")
        assert member is not None and member.read() == b"BB"
    assert b"ustar" in raw[:512]


def test_render_writes_the_archive_named_by_its_hash(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    out = tmp_path / "a" / "b"
    bundle = render.render(_spec(), repo, out)
    data = (out / bundle.name).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert data == render.archive(render.contents(_spec(), repo))
    assert bundle == render.Bundle(
        out / f"gpufabric-s1-{digest[:16]}.tar.gz",
        digest,
        f"{gpufabric.__version__}+{digest[:12]}",
        _spec(),
    )
    assert os.listdir(out) == [bundle.name]


# ---------------------------------------------------------------- reading a bundle back
def test_load_reads_the_manifest_and_the_hash(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    spec = _spec(groups={"g2": {"a": 1}, "g1": {}}, playbooks=("site.yml", "other.yml"),
                 skip_tags=("t1", "t2"))  # fmt: skip
    made = render.render(spec, repo, tmp_path / "out")
    back = render.load(made.path)
    assert back == render.Bundle(
        made.path,
        made.sha256,
        made.version,
        BundleSpec("s1", {"g1": {}, "g2": {}}, ("site.yml", "other.yml"), ("t1", "t2")),
    )


def _tarball(tmp: Path, manifest: bytes | None, name: str = "manifest.json") -> Path:
    files = {} if manifest is None else {name: manifest}
    path = tmp / "b.tar.gz"
    path.write_bytes(render.archive({"x": b"", **files}))
    return path


def test_load_takes_a_manifest_without_the_optional_lists(tmp_path: Path) -> None:
    path = _tarball(tmp_path, b'{"format": 1, "stack": "s", "gpufabric": "9.9"}')
    bundle = render.load(path)
    assert bundle.spec == BundleSpec("s", {}, (), ())
    assert bundle.version == f"9.9+{hashlib.sha256(path.read_bytes()).hexdigest()[:12]}"


@pytest.mark.parametrize(
    ("manifest", "line"),
    [
        (None, "not a gpufabric bundle (no readable manifest.json)"),
        (b"\xff\xfe", "not a gpufabric bundle (no readable manifest.json)"),
        (b"[1]", "manifest.json is not a JSON object"),
        (b'{"format": 2, "stack": "s"}', "manifest format 2, expected 1"),
        (b'{"stack": "s"}', "manifest format None, expected 1"),
        (b'{"format": true, "stack": "s"}', "manifest format True, expected 1"),
        (b'{"format": 1.0, "stack": "s"}', "manifest format 1.0, expected 1"),
        (b'{"format": 1}', "manifest stack None, expected a name"),
        (b'{"format": 1, "stack": 7}', "manifest stack 7, expected a name"),
        (b'{"format": 1, "stack": "s", "groups": "g1"}', "manifest groups 'g1', expected a list of names"),
        (b'{"format": 1, "stack": "s", "playbooks": [1]}', "manifest playbooks [1], expected a list of names"),
        (b'{"format": 1, "stack": "s", "skip_tags": {}}', "manifest skip_tags {}, expected a list of names"),
    ],
)  # fmt: skip
def test_load_refuses_a_file_that_is_no_bundle_in_one_line(
    manifest: bytes | None, line: str, tmp_path: Path
) -> None:
    path = _tarball(tmp_path, manifest)
    with pytest.raises(UserError) as err:
        render.load(path)
    assert str(err.value) == f"bundle {path}: {line}"


def test_load_refuses_a_file_that_is_no_tarball_and_a_bad_json_manifest(tmp_path: Path) -> None:
    path = tmp_path / "b.tar.gz"
    for data in (b"plain text", gzip.compress(b"not a tar")):
        path.write_bytes(data)
        with pytest.raises(UserError) as err:
            render.load(path)
        assert str(err.value) == (
            f"bundle {path}: not a gpufabric bundle (no readable manifest.json)"
        )
    path = _tarball(tmp_path, b'{"format": 1, "format": 1}')
    with pytest.raises(UserError) as err:
        render.load(path)
    assert str(err.value).startswith(f"{path}:manifest.json")


def test_load_reads_the_file_through_the_input_boundary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpufabric.inputs import files

    path = _tarball(tmp_path, b'{"format": 1, "stack": "s"}')
    asked: list[tuple[Any, dict[str, Any]]] = []
    real = files.read_bytes

    def read_bytes(p: Any, **kw: Any) -> bytes:
        asked.append((p, kw))
        return real(p, **kw)

    monkeypatch.setattr(files, "read_bytes", read_bytes)
    render.load(path)
    assert asked == [(path, {"what": "bundle", "max_bytes": 1 << 30})]
    with pytest.raises(UserError) as err:
        render.load(tmp_path / "missing.tar.gz")
    assert "expected bundle" in str(err.value)


def test_render_puts_the_given_wheels_in_the_archive(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "a-1-py3-none-any.whl").write_bytes(b"A")
    bundle = render.render(_spec(), _repo(tmp_path), tmp_path / "out", wheels)
    with tarfile.open(bundle.path, "r:gz") as tar:
        member = tar.extractfile("wheels/a-1-py3-none-any.whl")
        assert member is not None and member.read() == b"A"


def test_load_wants_the_gzip_the_node_unpacks(tmp_path: Path) -> None:
    """The node opens the bundle as .tar.gz: a plain tar with a good manifest is no bundle."""
    path = tmp_path / "b.tar"
    path.write_bytes(
        gzip.decompress(_tarball(tmp_path, b'{"format": 1, "stack": "s"}').read_bytes())
    )
    with pytest.raises(UserError) as err:
        render.load(path)
    assert str(err.value) == f"bundle {path}: not a gpufabric bundle (no readable manifest.json)"


def test_load_reads_a_manifest_folder_as_an_empty_manifest(tmp_path: Path) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        info = tarfile.TarInfo("manifest.json")
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    path = tmp_path / "b.tar.gz"
    path.write_bytes(raw.getvalue())
    with pytest.raises(UserError) as err:
        render.load(path)
    assert str(err.value) == (
        f"{path}:manifest.json: line 1 column 1: not valid JSON (Expecting value; cut short?)"
    )
