"""The configuration bundle: one versioned, content-hashed tarball per stack.

A bundle holds what a node needs to configure itself with `ansible-playbook -c local`:

    manifest.json            format, gpufabric version, stack, playbooks, skipped tags, groups,
                             every file's sha256
    ansible.cfg              the repository's Ansible settings (roles, filter plugins)
    playbooks/*.yml          every playbook of the repository (they import each other)
    roles/...                every role
    plugins/...              the filter and inventory plugins
    lib/gpufabric/...        the gpufabric library the filter plugins import
    groups/<group>.json      each node group's variables (from the stack outputs)
    hosts/<host>.json        a host's own variables and groups, where known before boot
    node-requirements.txt    what the node's Ansible runtime installs (pinned)
    wheels/*.whl             optional: those requirements as wheels, for nodes without an index

The archive is deterministic (sorted entries, fixed times and owners, gzip without a time
stamp), so the same inputs give the same bytes and the same sha256: the hash names the bundle
(`gpufabric-<stack>-<sha256[:16]>.tar.gz`) and the node checks it before it runs anything.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gpufabric
from gpufabric.errors import UserError

FORMAT = 1
# the node's Ansible runtime: ansible-core and what the filter plugins import from gpufabric
NODE_REQUIREMENTS = (
    "ansible-core==2.19.14",
    "pydantic>=2.13,<3",
    "PyYAML>=6",
    "jinja2>=3.1",
    "cryptography>=42",
)
DEFAULT_PLAYBOOKS = ("tune-fabric.yml",)
# Cluster-wide plays that gather every node on the controller (the Slurm topology file, the
# hostfile): written once by the controller, not by each node at boot.
DEFAULT_SKIP_TAGS = ("topology",)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
_SKIP_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}


@dataclass(frozen=True)
class BundleSpec:
    stack: str
    groups: Mapping[str, Mapping[str, Any]]
    """node group -> its variables (gpufabric_* switches from the stack outputs)."""
    playbooks: Sequence[str] = DEFAULT_PLAYBOOKS
    skip_tags: Sequence[str] = DEFAULT_SKIP_TAGS
    hosts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """host -> {"vars": {...}, "groups": [...]}, for hosts known before boot (the lab)."""


@dataclass(frozen=True)
class Bundle:
    path: Path
    sha256: str
    version: str
    spec: BundleSpec

    @property
    def name(self) -> str:
        return self.path.name


def spec_from_outputs(
    outputs: Any,
    playbooks: Sequence[str] = DEFAULT_PLAYBOOKS,
    skip_tags: Sequence[str] = DEFAULT_SKIP_TAGS,
) -> BundleSpec:
    """Each node group's variables from a stack's outputs (gpufabric.stack_outputs)."""
    base = outputs.group_vars()
    base["gpufabric_topology_source"] = _topology_source(outputs.cluster.cloud)
    groups = {g.name: {**base, "gpufabric_node_group": g.name} for g in outputs.nodes.groups}
    return BundleSpec(outputs.cluster.stack, groups, tuple(playbooks), tuple(skip_tags))


def _topology_source(cloud: str) -> str:
    """Where the topology role looks at boot: the cloud's own source (no leaves known yet)."""
    from gpufabric.clouds import registry

    return registry.get(cloud).topology_source


def check_spec(spec: BundleSpec, repo: Path) -> None:
    """Names that become paths or command-line words must be plain."""
    for what, names in (
        ("stack", [spec.stack]),
        ("node group", list(spec.groups)),
        ("host", list(spec.hosts)),
        ("skip tag", list(spec.skip_tags)),
    ):
        for name in names:
            if not _NAME.match(name):
                raise UserError(f"bundle {what} {name!r}: letters, digits, '_', '.', '-' only")
    if not spec.groups:
        raise UserError("bundle: no node group")
    for book in spec.playbooks:
        if "/" in book or not _NAME.match(book) or not (repo / "playbooks" / book).is_file():
            raise UserError(f"bundle playbook {book!r}: not a playbook in {repo / 'playbooks'}")
    for host, entry in spec.hosts.items():
        unknown = set(entry) - {"vars", "groups"}
        if unknown:
            raise UserError(f"bundle host {host}: unknown key(s) {', '.join(sorted(unknown))}")
        for group in entry.get("groups", []):
            if not _NAME.match(str(group)):
                raise UserError(f"bundle host {host}: group {group!r} is not a plain name")


def _tree(root: Path, prefix: str) -> Iterator[tuple[str, Path]]:
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not path.is_symlink() and not (_SKIP_PARTS & set(rel.parts)):
            if path.suffix in (".pyc", ".pyo"):
                continue
            yield f"{prefix}/{rel.as_posix()}", path


def _json(doc: Any) -> bytes:
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()


def contents(spec: BundleSpec, repo: Path, wheels: Path | None = None) -> dict[str, bytes]:
    """Every file of the bundle (archive path -> bytes), manifest last."""
    check_spec(spec, repo)
    files: dict[str, bytes] = {"ansible.cfg": (repo / "ansible.cfg").read_bytes()}
    for sub in ("playbooks", "roles", "plugins"):
        files.update({name: p.read_bytes() for name, p in _tree(repo / sub, sub)})
    lib = Path(gpufabric.__file__).parent
    files.update({name: p.read_bytes() for name, p in _tree(lib, "lib/gpufabric")})
    for group, variables in sorted(spec.groups.items()):
        files[f"groups/{group}.json"] = _json(dict(variables))
    for host, entry in sorted(spec.hosts.items()):
        files[f"hosts/{host}.json"] = _json(
            {"vars": dict(entry.get("vars", {})), "groups": sorted(entry.get("groups", []))}
        )
    files["node-requirements.txt"] = ("\n".join(NODE_REQUIREMENTS) + "\n").encode()
    if wheels is not None:
        found = sorted(wheels.glob("*.whl"))
        if not found:
            raise UserError(f"bundle wheels {wheels}: no *.whl file")
        files.update({f"wheels/{w.name}": w.read_bytes() for w in found})
    manifest = {
        "format": FORMAT,
        "gpufabric": gpufabric.__version__,
        "stack": spec.stack,
        "playbooks": list(spec.playbooks),
        "skip_tags": list(spec.skip_tags),
        "groups": sorted(spec.groups),
        "hosts": sorted(spec.hosts),
        "wheels": wheels is not None,
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }
    files["manifest.json"] = _json(manifest)
    return files


def archive(files: Mapping[str, bytes]) -> bytes:
    """A deterministic .tar.gz of `files` (same input, same bytes)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(files):
            data = files[name]
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def render(spec: BundleSpec, repo: Path, out_dir: Path, wheels: Path | None = None) -> Bundle:
    """Write the bundle into `out_dir`; its name and version carry its sha256."""
    data = archive(contents(spec, repo, wheels))
    digest = hashlib.sha256(data).hexdigest()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"gpufabric-{spec.stack}-{digest[:16]}.tar.gz"
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return Bundle(path, digest, f"{gpufabric.__version__}+{digest[:12]}", spec)


def load(path: Path) -> Bundle:
    """A rendered bundle read back (its manifest and its sha256), e.g. to write user data."""
    from gpufabric.inputs.files import read_bytes
    from gpufabric.inputs.formats import parse_json

    data = read_bytes(path, what="bundle", max_bytes=1 << 30)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            member = tar.extractfile("manifest.json")
            text = member.read().decode() if member is not None else ""
    except (tarfile.TarError, KeyError, OSError, UnicodeDecodeError):
        raise UserError(
            f"bundle {path}: not a gpufabric bundle (no readable manifest.json)"
        ) from None
    doc = parse_json(text, where=f"{path}:manifest.json")
    if not isinstance(doc, dict):
        raise UserError(f"bundle {path}: manifest.json is not a JSON object")
    if type(doc.get("format")) is not int or doc["format"] != FORMAT:  # true == 1 in Python
        raise UserError(f"bundle {path}: manifest format {doc.get('format')!r}, expected {FORMAT}")
    stack = doc.get("stack")
    if not isinstance(stack, str):
        raise UserError(f"bundle {path}: manifest stack {stack!r}, expected a name")
    spec = BundleSpec(
        stack,
        {g: {} for g in _manifest_names(doc, "groups", path)},
        _manifest_names(doc, "playbooks", path),
        _manifest_names(doc, "skip_tags", path),
    )
    digest = hashlib.sha256(data).hexdigest()
    return Bundle(path, digest, f"{doc.get('gpufabric')}+{digest[:12]}", spec)


def _manifest_names(doc: dict[str, Any], key: str, path: Path) -> tuple[str, ...]:
    names = doc.get(key, [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise UserError(f"bundle {path}: manifest {key} {names!r}, expected a list of names")
    return tuple(names)
