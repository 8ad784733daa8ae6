"""Optional installs: each cloud's SDKs come with an extra (`pip install 'gpufabric[aws]'`).

Code that needs one checks for it first, so a missing SDK is one line naming the extra to
install, never an ImportError traceback. The extras themselves are listed in pyproject.toml;
tests/unit/test_extras.py keeps this table and that list in step.
"""

from __future__ import annotations

from importlib.util import find_spec

from gpufabric.errors import UserError

# extra -> the importable modules it provides (keyed as in pyproject's optional-dependencies)
EXTRAS: dict[str, tuple[str, ...]] = {
    "aws": ("pulumi_aws", "boto3"),
    "gcp": ("pulumi_gcp", "google.cloud.compute_v1"),
    "azure": ("pulumi_azure_native", "azure.identity", "azure.mgmt.compute", "azure.mgmt.network"),
    "oci": ("pulumi_oci",),
    "nebius": ("pulumi_nebius",),
}

# requirement name -> import name, where they differ beyond '-' -> '_'
IMPORT_NAME: dict[str, str] = {
    "google-cloud-compute": "google.cloud.compute_v1",
    "azure-identity": "azure.identity",
    "azure-mgmt-compute": "azure.mgmt.compute",
    "azure-mgmt-network": "azure.mgmt.network",
}

# the Pulumi SDK each cloud's component is built on
PULUMI_SDK: dict[str, str] = {
    "aws": "pulumi_aws",
    "gcp": "pulumi_gcp",
    "azure": "pulumi_azure_native",
    "oci": "pulumi_oci",
    "nebius": "pulumi_nebius",
}


def extra_for(module: str) -> str:
    """The extra that installs `module`."""
    for extra, modules in EXTRAS.items():
        if module in modules:
            return extra
    raise KeyError(module)


def require(module: str, purpose: str) -> None:
    """Raise a one-line UserError when `module` is not installed, naming the extra to install."""
    try:
        spec = find_spec(module)
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        spec = None
    if spec is None:
        extra = extra_for(module)
        raise UserError(
            f"{purpose} needs the {extra} extra ({module} is not installed): "
            f"pip install 'gpufabric[{extra}]'"
        )
