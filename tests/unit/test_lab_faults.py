"""`gpufabric lab fault` / `restart`: argument checks (no root needed) and the state's faults."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gpufabric.errors import UserError
from gpufabric.lab import faults
from gpufabric.lab.layout import make_layout
from gpufabric.lab.state import LabState


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["h1", "unplug"],
            "fault: 'unplug' is not valid; use one of slow-link, mtu, link-down, flap",
        ),
        (["h1", "mtu", "--mtu", "100"], "--mtu: 100 is not valid; use 1280-65535"),
        (["h1", "flap", "--flaps", "0"], "--flaps: 0 is not valid; use 1-50"),
        (["h1", "slow-link", "--rate", "fast"], "--rate: 'fast' is not valid"),
    ],
)
def test_bad_fault_arguments_are_one_line_exit_2(args: list[str], message: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", "lab", "fault", *args, "--name", "nosuchlab"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_unknown_host_is_named() -> None:
    lay = make_layout("t", 4, 2, set())
    with pytest.raises(UserError, match="host: 'h9' is not a host of lab 't' \\(h1, h2, h3, h4\\)"):
        faults.find_host(lay, "h9")
    assert faults.port(faults.find_host(lay, "h3")) == "h3"


def test_state_keeps_faults_and_reads_old_state_files() -> None:
    st = LabState(
        layout=make_layout("t", 2, 1, set()), spine_rate=None, rootfs="/x", faults={"h2": ["mtu"]}
    )
    assert LabState.from_json(st.to_json()).faults == {"h2": ["mtu"]}
    old = st.to_json().replace('"faults": {\n    "h2": [\n      "mtu"\n    ]\n  },\n', "")
    assert '"faults"' not in old and LabState.from_json(old).faults == {}
