"""Root squash on the stacks' Lustre file systems, through the real program under mocks: on by
default (root on one node must not rewrite everyone's files), off only when the stack says so,
with exceptions only where something is squashed, each bad value one line naming its key."""

from __future__ import annotations

import json

import pytest
from tests.pulumi.plans import plan_for

from gpufabric.errors import UserError

FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
OCI = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"


def _storage(kind: str, **extra: object) -> str:
    return "gpufabric:storage=" + json.dumps({"type": kind, **extra})


def test_fsx_squashes_root_by_default() -> None:
    (fsx,) = plan_for("aws-h100", _storage("fsx-lustre")).of_type(FSX)
    assert fsx.inputs["rootSquashConfiguration"] == {"rootSquash": "65534:65534"}


def test_fsx_keeps_root_for_the_listed_clients_only() -> None:
    nids = ["10.0.64.10@tcp", "10.0.[2-3].[1-255]@tcp"]
    (fsx,) = plan_for("aws-h100", _storage("fsx-lustre", noSquashNids=nids)).of_type(FSX)
    assert fsx.inputs["rootSquashConfiguration"] == {
        "rootSquash": "65534:65534",
        "noSquashNids": nids,
    }


def test_fsx_opt_out_sets_no_squash() -> None:
    (fsx,) = plan_for("aws-h100", _storage("fsx-lustre", rootSquash=False)).of_type(FSX)
    assert "rootSquashConfiguration" not in fsx.inputs


def test_oci_lustre_squashes_root_by_default() -> None:
    (fs,) = plan_for("oci-h100").of_type(OCI)
    assert fs.inputs["rootSquashConfiguration"] == {"identitySquash": "ROOT"}


def test_oci_lustre_exceptions_and_opt_out() -> None:
    with_admin = _storage("oci-lustre", noSquashNids=["10.0.64.5@tcp"])
    (fs,) = plan_for("oci-h100", with_admin).of_type(OCI)
    assert fs.inputs["rootSquashConfiguration"] == {
        "identitySquash": "ROOT",
        "clientExceptions": ["10.0.64.5@tcp"],
    }
    (fs,) = plan_for("oci-h100", _storage("oci-lustre", rootSquash=False)).of_type(OCI)
    assert fs.inputs["rootSquashConfiguration"] == {"identitySquash": "NONE"}


@pytest.mark.parametrize(
    ("stack", "kind", "extra", "message"),
    [
        ("aws-h100", "fsx-lustre", {"rootSquash": False, "noSquashNids": ["10.0.1.6@tcp"]},
         "rootSquash is false"),
        ("gcp-a3-mega", "managed-lustre", {"rootSquash": False, "noSquashRanges": ["10.0.0.5/32"]},
         "rootSquash is false"),
        ("azure-ndv5", "azure-managed-lustre", {"noSquashNids": ["10.1.0.5"]}, "Lustre client NID"),
        ("aws-h100", "fsx-lustre", {"noSquashNids": ["10.0.1.6@tcp;reboot"]}, "Lustre client NID"),
        ("aws-h100", "fsx-lustre", {"rootSquash": "no"}, "rootSquash"),
        ("oci-h100", "oci-lustre", {"noSquashNids": [f"10.0.0.{i}@tcp" for i in range(11)]},
         "at most 10"),
    ],
)  # fmt: skip
def test_bad_root_squash_values_are_one_line_naming_the_key(
    stack: str, kind: str, extra: dict[str, object], message: str
) -> None:
    with pytest.raises(UserError) as err:
        plan_for(stack, _storage(kind, **extra))
    text = str(err.value)
    assert "\n" not in text and "storage" in text and message in text, text


GCP = "gcp:lustre/instance:Instance"
AZURE = "azure-native:storagecache:AmlFilesystem"


def test_gcp_managed_lustre_squashes_root_by_default_to_65534() -> None:
    (fs,) = plan_for("gcp-a3-mega").of_type(GCP)
    assert fs.inputs["accessRulesOptions"] == {
        "defaultSquashMode": "ROOT_SQUASH",
        "defaultSquashUid": 65534,  # unset, the service squashes to 0: nothing
        "defaultSquashGid": 65534,
    }
    admin = _storage("managed-lustre", noSquashRanges=["10.0.0.5/32"])
    (fs,) = plan_for("gcp-a3-mega", admin).of_type(GCP)
    assert fs.inputs["accessRulesOptions"]["accessRules"] == [
        {"name": "admin", "ipAddressRanges": ["10.0.0.5/32"], "squashMode": "NO_SQUASH"}
    ]
    (fs,) = plan_for("gcp-a3-mega", _storage("managed-lustre", rootSquash=False)).of_type(GCP)
    assert "accessRulesOptions" not in fs.inputs


def test_azure_managed_lustre_squashes_root_by_default() -> None:
    (fs,) = plan_for("azure-ndv5").of_type(AZURE)
    assert fs.inputs["rootSquashSettings"] == {
        "mode": "RootOnly",
        "squashUID": 65534,
        "squashGID": 65534,
    }
    admin = _storage("azure-managed-lustre", noSquashNids=["10.1.0.5@tcp", "10.1.0.6@tcp"])
    (fs,) = plan_for("azure-ndv5", admin).of_type(AZURE)
    assert fs.inputs["rootSquashSettings"]["noSquashNidLists"] == "10.1.0.5@tcp;10.1.0.6@tcp"
    off = _storage("azure-managed-lustre", rootSquash=False)
    (fs,) = plan_for("azure-ndv5", off).of_type(AZURE)
    assert fs.inputs["rootSquashSettings"] == {"mode": "None"}
