"""The ipsec role's preflight (Ansible side of gpufabric_encryption), run on localhost.

provider-native must be backed by the catalog (through the role's filter plugin and
gpufabric.catalog.lookup), none must be explicit, weak proposals are refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLAY = Path(__file__).resolve().parent / "ipsec_playbooks" / "preflight.yml"


def run(**extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANSIBLE_ROLES_PATH": str(REPO / "roles"), "ANSIBLE_NOCOLOR": "1",
           "ANSIBLE_LOCALHOST_WARNING": "0", "ANSIBLE_INVENTORY_UNPARSED_WARNING": "0"}  # fmt: skip
    argv = [str(Path(sys.executable).parent / "ansible-playbook"), "-i", "localhost,", str(PLAY)]
    argv += ["-e", json.dumps(extra)]
    return subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_provider_native_on_a_native_type_passes_and_skips_ipsec() -> None:
    proc = run(gpufabric_encryption="provider-native", gpufabric_instance_type="p5.48xlarge")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ipsec: skipped: gpufabric_encryption is provider-native" in proc.stdout


@pytest.mark.parametrize(("itype", "verdict"), [("p5e.48xlarge", "unconfirmed")])
def test_provider_native_on_an_unconfirmed_type_fails_clearly(itype: str, verdict: str) -> None:
    proc = run(gpufabric_encryption="provider-native", gpufabric_instance_type=itype)
    assert proc.returncode != 0
    assert (
        f"gpufabric_encryption: 'provider-native' is not valid; {itype} is not known to encrypt "
        f"node-to-node traffic natively (catalog says '{verdict}')"
    ) in " ".join(proc.stdout.split())


def test_unknown_instance_type_names_the_key() -> None:
    proc = run(gpufabric_encryption="provider-native", gpufabric_instance_type="p5.48xlarg")
    assert proc.returncode != 0
    assert "gpufabric_instance_type: 'p5.48xlarg' is not valid; did you mean 'p5.48xlarge'?" in (
        proc.stdout + proc.stderr
    )


def test_encryption_mode_must_be_explicit() -> None:
    proc = run()
    assert proc.returncode != 0
    assert (
        "gpufabric_encryption: (unset) is not valid; use one of provider-native, ipsec, none"
        in proc.stdout
    )


def test_none_is_accepted_and_says_so() -> None:
    proc = run(gpufabric_encryption="none")
    assert proc.returncode == 0, proc.stdout
    assert "chosen explicitly: cluster traffic is not encrypted by this project" in proc.stdout


def test_weak_proposals_are_refused() -> None:
    proc = run(gpufabric_encryption="ipsec", ipsec_ike_proposals="aes128-sha1-modp1024")
    assert proc.returncode != 0
    assert "ipsec proposals are not valid: aes128-sha1-modp1024: not allowed" in proc.stdout
