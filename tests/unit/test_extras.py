"""Install by need: each cloud's SDKs come with an extra, and a missing one is one line naming it."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from gpufabric.clouds import registry
from gpufabric.errors import UserError
from gpufabric.extras import extras, require

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
EXTRAS = extras()
PULUMI_SDK = {spec.extra: spec.pulumi_sdk for spec in registry.specs()}
# requirement name -> import name, where they differ beyond '-' -> '_'
IMPORT_NAME: dict[str, str] = {
    "google-cloud-compute": "google.cloud.compute_v1",
    "azure-identity": "azure.identity",
    "azure-mgmt-compute": "azure.mgmt.compute",
    "azure-mgmt-network": "azure.mgmt.network",
}


def run_without(modules: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """`gpufabric ARGS` in a fresh interpreter where `modules` cannot be imported, as if not
    installed (a None entry in sys.modules: find_spec returns None, import raises)."""
    code = (
        "import sys\n"
        f"for m in {modules!r}: sys.modules[m] = None\n"
        "from gpufabric.cli.main import main\n"
        f"sys.argv = ['gpufabric', *{list(args)!r}]\n"
        "main()\n"
    )
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _module(requirement: str) -> str:
    name = requirement.split("[")[0]
    for sep in "=<>!~ ;":
        name = name.split(sep)[0]
    return IMPORT_NAME.get(name, name.replace("-", "_"))


def test_the_extras_table_is_pyproject_s() -> None:
    optional = PYPROJECT["optional-dependencies"]
    for extra, modules in EXTRAS.items():
        assert sorted(_module(r) for r in optional[extra]) == sorted(modules), extra
    assert optional["all"] == [f"gpufabric[{','.join(EXTRAS)}]"]
    assert "gpufabric[all]" in optional["dev"]
    core = {_module(r) for r in PYPROJECT["dependencies"]}
    assert not core & {m for modules in EXTRAS.values() for m in modules}
    assert set(PULUMI_SDK) == set(EXTRAS) and all(
        PULUMI_SDK[cloud] in EXTRAS[cloud] for cloud in PULUMI_SDK
    )


def test_require_names_the_extra_in_one_line() -> None:
    require("pulumi_aws", "x")  # installed here: nothing to say
    saved = sys.modules.get("boto3")
    sys.modules["boto3"] = None  # type: ignore[assignment]
    try:
        with pytest.raises(UserError) as err:
            require("boto3", "AWS node discovery")
    finally:
        if saved is None:
            del sys.modules["boto3"]
        else:
            sys.modules["boto3"] = saved
    assert str(err.value) == (
        "AWS node discovery needs the aws extra (boto3 is not installed): "
        "pip install 'gpufabric[aws]'"
    )


def test_aws_plan_imports_no_other_cloud_s_sdk() -> None:
    others = [m for extra, modules in EXTRAS.items() if extra != "aws" for m in modules]
    proc = run_without(others, "plan", "-s", "aws-h100")
    assert proc.returncode == 0, proc.stderr
    assert "p5.48xlarge" in proc.stdout


@pytest.mark.parametrize(
    ("stack", "extra", "module"),
    [
        ("gcp-a3-mega", "gcp", "pulumi_gcp"),
        ("azure-ndv5", "azure", "pulumi_azure_native"),
        ("aws-h100", "aws", "pulumi_aws"),
        ("oci-h100", "oci", "pulumi_oci"),
        ("nebius-h100", "nebius", "pulumi_nebius"),
    ],
)
def test_a_stack_without_its_sdk_names_the_extra(stack: str, extra: str, module: str) -> None:
    proc = run_without([module], "plan", "-s", stack)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith(f"error: stack {stack} (")
    assert lines[0].endswith(
        f"needs the {extra} extra ({module} is not installed): pip install 'gpufabric[{extra}]'"
    )


def test_the_supported_pythons_agree_everywhere() -> None:
    """requires-python, the classifiers, the CI matrix and the Makefile name the same range."""
    import re

    import yaml

    low, high = re.fullmatch(r">=3\.(\d+),<3\.(\d+)", PYPROJECT["requires-python"]).groups()  # type: ignore[union-attr]
    versions = [f"3.{minor}" for minor in range(int(low), int(high))]
    assert versions == ["3.11", "3.12", "3.13"]
    classifiers = [
        c.rsplit(" :: ", 1)[1]
        for c in PYPROJECT["classifiers"]
        if c.startswith("Programming Language :: Python :: 3.")
    ]
    assert classifiers == versions
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "pr.yml").read_text())
    assert workflow["jobs"]["test"]["strategy"]["matrix"]["python"] == versions
    makefile = (REPO / "Makefile").read_text()
    assert f"$(foreach v,{' '.join(reversed(versions))}," in makefile
