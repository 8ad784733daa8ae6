"""Base image package list, its cache key, and the machine's apt mirror (pure; no root)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.lab import rootfs
from gpufabric.lab.rootfs import AptSource, load_packages, mirror_for, parse_apt_sources

LIST = """suite: bookworm
variant: minbase
packages:
  - {name: systemd, why: init}
  - {name: python3, why: ansible}
"""


def test_shipped_list_has_what_the_lab_needs() -> None:
    names = set(load_packages().packages)
    assert {
        "systemd",
        "systemd-sysv",
        "openssh-server",
        "python3",
        "python3-apt",
        "iperf3",
        "strongswan-swanctl",
        "libcharon-extra-plugins",
        "openmpi-bin",
        "slurm-wlm",
    } <= names


def test_key_ignores_order_comments_and_duplicates() -> None:
    base = load_packages(LIST).key()
    reordered = (
        LIST.replace("  - {name: systemd, why: init}\n", "")
        + "  - systemd  # again\n  - {name: systemd, why: dup}\n"
    )
    assert load_packages(reordered).key() == base


def test_key_changes_with_packages_suite_or_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    base = load_packages(LIST).key()
    assert load_packages(LIST + "  - {name: ethtool, why: x}\n").key() != base
    assert load_packages(LIST.replace("bookworm", "trixie")).key() != base
    monkeypatch.setattr(rootfs, "RECIPE_VERSION", rootfs.RECIPE_VERSION + 1)
    assert load_packages(LIST).key() != base


@pytest.mark.parametrize(
    "bad", ["packages: nope\n", "packages:\n  - {why: no name}\n", "packages:\n  - 'rm -rf'\n"]
)
def test_bad_package_lists(bad: str) -> None:
    with pytest.raises(UserError, match=r"^lab packages\.yaml: "):
        load_packages(bad)


DEB822 = """Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main

Types: deb-src
URIs: http://src.example/debian
Suites: bookworm
Components: main
"""


def test_deb822_sources_like_this_machine() -> None:
    srcs = parse_apt_sources({"/etc/apt/sources.list.d/debian.sources": DEB822})
    uri, related = mirror_for(srcs, "bookworm")
    assert uri == "http://deb.debian.org/debian"
    assert [s.suite for s in related] == ["bookworm", "bookworm-updates", "bookworm-security"]


def test_one_line_sources_and_main_file_first() -> None:
    srcs = parse_apt_sources(
        {
            "/etc/apt/sources.list.d/extra.list": "deb http://other.example/debian bookworm main\n",
            "/etc/apt/sources.list": "# c\ndeb [arch=amd64 signed-by=/k.gpg] http://m.example/debian/ "
            "bookworm main contrib\ndeb-src http://m.example/debian bookworm main\n",
        }
    )
    assert srcs[0] == AptSource("http://m.example/debian", "bookworm", ("main", "contrib"))
    assert mirror_for(srcs, "bookworm")[0] == "http://m.example/debian"


def test_no_mirror_for_the_suite() -> None:
    srcs = parse_apt_sources({"/etc/apt/sources.list": "deb http://m.example/debian trixie main\n"})
    with pytest.raises(UserError, match="no 'bookworm' entry"):
        mirror_for(srcs, "bookworm")


def test_cached_base_is_reused_and_a_new_list_builds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GPUFABRIC_LAB_CACHE", str(tmp_path))
    built: list[str] = []

    def fake_build(final: Path, pkgs: rootfs.PackageList, log: Path) -> None:
        built.append(pkgs.key())
        (final / "rootfs").mkdir(parents=True)
        (final / "manifest.json").write_text("{}")

    monkeypatch.setattr(rootfs, "_build", fake_build)
    pkgs = load_packages(LIST)
    first = rootfs.ensure_rootfs(pkgs)
    again = rootfs.ensure_rootfs(pkgs)
    assert first == again == tmp_path / pkgs.key() / "rootfs"
    assert built == [pkgs.key()]  # built once, then reused
    other = load_packages(LIST + "  - {name: ethtool, why: x}\n")
    assert rootfs.ensure_rootfs(other) != first
    assert built == [pkgs.key(), other.key()]
