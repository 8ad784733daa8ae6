"""Unreviewed previews decrypt nothing: stacks that hold secrets get the offline plan only."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def _stack_matrix():
    spec = importlib.util.spec_from_file_location(
        "stack_matrix", REPO / ".github" / "scripts" / "stack_matrix.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stacks_with_secure_values_or_esc_are_found(tmp_path: Path) -> None:
    sm = _stack_matrix()
    (tmp_path / "stacks").mkdir()
    files = {
        "plain": {"config": {"gpufabric:nodes": 2}},
        "secure": {"config": {"gpufabric:userData": {"secure": "v1:abc"}}},
        "nested": {"config": {"gpufabric:x": {"a": [{"secure": "v1:abc"}]}}},
        "esc": {"environment": ["gpufabric/prod"], "config": {}},
    }
    for name, doc in files.items():
        (tmp_path / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(doc))
    assert sm.stacks_with_secrets(tmp_path) == {"secure", "nested", "esc"}
    clouds = dict.fromkeys(files, "aws")
    chosen, skipped = sm.select(clouds, {"aws"}, None, sm.stacks_with_secrets(tmp_path))
    assert [c["stack"] for c in chosen] == ["plain"]
    assert all("holds secrets" in line for line in skipped) and len(skipped) == 3
    kept, _ = sm.select(clouds, {"aws"}, None)  # deploy keeps them (reviewed, may decrypt)
    assert len(kept) == 4


def test_the_preview_job_leaves_out_stacks_with_secrets() -> None:
    doc = yaml.safe_load((REPO / ".github" / "workflows" / "pr.yml").read_text())
    runs = "\n".join(str(s.get("run", "")) for s in doc["jobs"]["preview-stacks"]["steps"])
    assert "stack_matrix.py" in runs and "--without-secrets" in runs
    deploy = yaml.safe_load((REPO / ".github" / "workflows" / "deploy.yml").read_text())
    assert "--without-secrets" not in yaml.safe_dump(deploy)
