"""Supply chain on the nodes: NCCL and nccl-tests by commit, the DOCA repository key by its
fingerprint (checked against real gpg output)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from gpufabric.errors import UserError
from gpufabric.facts.gpg import check_fingerprint, primary_fingerprints

REPO = Path(__file__).resolve().parents[2]


def test_nccl_and_nccl_tests_are_fetched_by_full_commit() -> None:
    defaults = yaml.safe_load((REPO / "roles/nccl_tests/defaults/main.yml").read_text())
    for key in ("nccl_tests_nccl_commit", "nccl_tests_commit"):
        assert re.fullmatch(r"[0-9a-f]{40}", defaults[key]), key
    install = yaml.safe_load((REPO / "roles/nccl_tests/tasks/install.yml").read_text())
    gits = [t["ansible.builtin.git"] for t in install if "ansible.builtin.git" in t]
    assert [g["version"] for g in gits] == [
        "{{ nccl_tests_nccl_commit }}",
        "{{ nccl_tests_commit }}",
    ]
    asserts = [t for t in install if "ansible.builtin.assert" in t]
    assert sum("git.after ==" in str(t) for t in asserts) == 2  # the checkout is verified


@pytest.fixture(scope="module")
def gpg_key(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(gpg --show-keys --with-colons output, fingerprint) of a fresh key made by real gpg."""
    if shutil.which("gpg") is None:
        pytest.skip("gpg is not installed")
    home = tmp_path_factory.mktemp("gnupg")
    home.chmod(0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    gpg = ["gpg", "--batch", "--quiet"]
    subprocess.run([*gpg, "--passphrase", "", "--quick-gen-key", "repo <repo@example.org>",
                    "ed25519", "sign", "never"], env=env, check=True, timeout=60)  # fmt: skip
    listing = subprocess.run([*gpg, "--with-colons", "--list-keys"], env=env, check=True,
                             capture_output=True, text=True).stdout  # fmt: skip
    fpr = next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:"))
    key = home / "key.asc"
    key.write_bytes(subprocess.run([*gpg, "--armor", "--export"], env=env, check=True,
                                   capture_output=True).stdout)  # fmt: skip
    shown = subprocess.run([*gpg, "--show-keys", "--with-colons", "--with-fingerprint", str(key)],
                           env=env, check=True, capture_output=True, text=True).stdout  # fmt: skip
    return shown, fpr


def test_the_pinned_fingerprint_is_accepted(gpg_key: tuple[str, str]) -> None:
    shown, fpr = gpg_key
    assert primary_fingerprints(shown) == [fpr]
    spaced = " ".join(fpr[i : i + 4] for i in range(0, len(fpr), 4)).lower()
    assert check_fingerprint(shown, spaced, "doca_ofed_repo_key_fingerprint") == fpr


def test_another_key_a_short_id_or_no_fingerprint_is_refused(gpg_key: tuple[str, str]) -> None:
    shown, fpr = gpg_key
    other = ("0" if fpr[0] != "0" else "1") + fpr[1:]
    with pytest.raises(UserError, match="doca_ofed_repo_key_fingerprint: the downloaded key is"):
        check_fingerprint(shown, other, "doca_ofed_repo_key_fingerprint")
    with pytest.raises(UserError, match="short key ids can be forged"):
        check_fingerprint(shown, fpr[-16:], "doca_ofed_repo_key_fingerprint")
    with pytest.raises(UserError, match="doca_ofed_repo_key_fingerprint: not set"):
        check_fingerprint(shown, "", "doca_ofed_repo_key_fingerprint")
    with pytest.raises(UserError, match="no key"):
        check_fingerprint("", fpr, "doca_ofed_repo_key_fingerprint")


@pytest.fixture(scope="module")
def two_keys_with_subkeys(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, list[str]]:
    """(gpg --show-keys listing of one key, of a file holding two keys, the two primary
    fingerprints); each key has an encryption subkey, made by real gpg."""
    if shutil.which("gpg") is None:
        pytest.skip("gpg is not installed")
    home = tmp_path_factory.mktemp("gnupg2")
    home.chmod(0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    gpg = ["gpg", "--batch", "--quiet", "--passphrase", ""]
    fprs = []
    for name in ("one", "two"):
        subprocess.run([*gpg, "--quick-gen-key", f"{name} <{name}@example.org>", "ed25519",
                        "sign", "never"], env=env, check=True, timeout=60)  # fmt: skip
        listing = subprocess.run([*gpg, "--with-colons", "--list-keys", f"{name}@example.org"],
                                 env=env, check=True, capture_output=True, text=True).stdout  # fmt: skip
        fprs.append(next(ln.split(":")[9] for ln in listing.splitlines() if ln.startswith("fpr:")))
        subprocess.run([*gpg, "--quick-add-key", fprs[-1], "cv25519", "encr", "never"], env=env,
                       check=True, timeout=60)  # fmt: skip

    def shown(*who: str) -> str:
        key = home / "key.asc"
        key.write_bytes(subprocess.run([*gpg, "--armor", "--export", *who], env=env, check=True,
                                       capture_output=True).stdout)  # fmt: skip
        return subprocess.run([*gpg, "--show-keys", "--with-colons", "--with-fingerprint",
                               str(key)], env=env, check=True, capture_output=True,
                              text=True).stdout  # fmt: skip

    return shown(fprs[0]), shown(*fprs), fprs


def test_only_primary_keys_count_and_a_second_key_in_the_file_is_refused(
    two_keys_with_subkeys: tuple[str, str, list[str]],
) -> None:
    one, both, (first, second) = two_keys_with_subkeys
    assert "\nsub:" in one  # the subkey's own fpr line follows it, and is not the key's
    assert primary_fingerprints(one) == [first]
    assert primary_fingerprints(both) == [first, second]
    with pytest.raises(UserError) as err:
        check_fingerprint(both, first, "doca_ofed_repo_key_fingerprint")
    assert str(err.value) == (
        f"doca_ofed_repo_key_fingerprint: the downloaded key is {first}, {second}, not {first}; "
        "not trusted"
    )


def test_fingerprint_lines_are_read_one_per_primary_key_and_only_whole() -> None:
    fpr = "496CFFA0CE033E34AB13DFC11F7A4E6986655F46"
    other = "D593F625EEE0C0C3AE4C91760FD914C78C0FBB28"
    pub = "pub:u:3072:1:1F7A4E6986655F46:1796485104:::u:::scESC::::::23::0:"
    # a fingerprint before any primary key, or a second one after it, is no primary's
    assert primary_fingerprints(f"fpr:::::::::{other}:\n{pub}\nfpr:::::::::{fpr}:") == [fpr]
    assert primary_fingerprints(f"{pub}\nfpr:::::::::{fpr}:\nfpr:::::::::{other}:") == [fpr]
    # a subkey's fingerprint is never its primary's, even where the primary printed none
    sub = "sub:u:3072:1:0FD914C78C0FBB28:1796485104::::::e::::::23:"
    assert primary_fingerprints(f"{pub}\n{sub}\nfpr:::::::::{other}:") == []
    # the tenth field is the fingerprint, with or without fields after it; a line cut before
    # it is none
    assert primary_fingerprints(f"{pub}\nfpr:::::::::{fpr.lower()}") == [fpr]
    assert primary_fingerprints(f"{pub}\nfpr::::::::") == []
    with pytest.raises(UserError) as err:
        check_fingerprint("", fpr, "k")
    assert str(err.value) == f"k: the downloaded key is no key, not {fpr}; not trusted"
    with pytest.raises(UserError) as err:
        check_fingerprint(pub, fpr[-16:], "k")
    assert str(err.value) == (
        f"{fpr[-16:]!r} is not a full key fingerprint (40 or 64 hex digits); "
        "short key ids can be forged"
    )


def test_doca_repository_is_signed_by_the_checked_key_only() -> None:
    install = (REPO / "roles/doca_ofed/tasks/install.yml").read_text()
    assert "signed_by: /etc/apt/keyrings/doca-ofed.asc" in install
    assert "gpufabric_gpg_fingerprint_check" in install
    assert 'signed_by: "{{ doca_ofed_repo_key_url }}"' not in install


def test_nccl_tests_runs_unprivileged_and_never_as_root() -> None:
    bench = yaml.safe_load((REPO / "roles/nccl_tests/tasks/benchmark.yml").read_text())
    (run,) = [t for t in bench if "collective across the nodes" in t.get("name", "")]
    assert run["ansible.builtin.command"]["argv"].startswith(
        "{{ ['runuser', '-u', nccl_tests_run_user, '--', __nccl_tests_script"
    )
    refuse = next(t for t in bench if "as root" in t.get("name", ""))
    assert "nccl_tests_run_user != 'root'" in refuse["ansible.builtin.assert"]["that"]
    out = next(t for t in bench if "the run user's only" in t.get("name", ""))
    assert out["ansible.builtin.file"]["mode"] == "0700"
