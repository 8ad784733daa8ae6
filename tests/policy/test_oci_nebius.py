"""The policy pack sees OCI and Nebius GPU nodes: public IPs and storage in another AD fail."""

from __future__ import annotations

from gpufabric.policies import check_stack

from .helpers import mutate, stack

OCI_CONF = "oci:Core/instanceConfiguration:InstanceConfiguration"
OCI_LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"


def _lines(view) -> list[str]:  # type: ignore[no-untyped-def]
    return [v.line() for v in check_stack(view)]


def test_oci_public_ip_on_the_front_end_fails() -> None:
    view = mutate(
        stack("oci-h100"),
        OCI_CONF,
        lambda p: p["instanceDetails"]["launchDetails"]["createVnicDetails"].update(
            assignPublicIp=True
        ),
    )
    assert any("assignPublicIp" in line for line in _lines(view)), _lines(view)


def test_oci_lustre_in_another_ad_fails() -> None:
    view = mutate(
        stack("oci-h100"), OCI_LUSTRE, lambda p: p.update(availabilityDomain="Uocm:US-ASHBURN-AD-2")
    )
    assert any("US-ASHBURN-AD-2" in line for line in _lines(view)), _lines(view)


def test_nebius_public_ip_fails() -> None:
    view = stack(
        "nebius-h100",
        'gpufabric:nebius={"projectId": "project-e00abc123", "infinibandFabric": "fabric-3", '
        '"sshPublicKey": "ssh-ed25519 AAAAC3Nza x", "publicIp": true}',
    )
    assert any("publicIpAddress" in line for line in _lines(view)), _lines(view)
