"""The roce_qos role's filters (plugins/filter) on the real fixtures: the plan per port and the NCCL outputs."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from ansible.errors import AnsibleFilterError
from tests.conftest import FIXTURES, needs_captures

REPO = Path(__file__).resolve().parents[2]
MLNX_QOS = FIXTURES / "mlnx_qos"
SPEC = {
    "pfc_priority": "3",
    "roce_dscp": "26",
    "cnp_dscp": "48",
    "cnp_priority": "6",
    "roce_bw_percent": "50",
}  # fmt: skip  (strings: Ansible templates them so)


@pytest.fixture(scope="module")
def filters() -> dict[str, object]:
    path = REPO / "plugins" / "filter" / "gpufabric.py"
    spec = importlib.util.spec_from_file_location("gpufabric_filters", path)
    assert spec and spec.loader
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FilterModule().filters()


@needs_captures
def test_plans_per_port(filters: dict) -> None:  # type: ignore[type-arg]
    text = (MLNX_QOS / "mlnx_qos_cx5_dcbx_fw_dscp_pfc3.txt").read_text()
    plans = filters["gpufabric_roce_qos_plans"]([text, ""], ["mce0", "mce1"], SPEC)
    assert [p["status"] for p in plans] == ["configured", "unsupported"]
    other = filters["gpufabric_roce_qos_plans"]([text], ["mce0"], {**SPEC, "pfc_priority": "4"})
    assert other[0]["status"] == "change" and other[0]["mlnx_qos_args"][:3] == [
        "mlnx_qos",
        "-i",
        "mce0",
    ]


@needs_captures
def test_nccl_outputs_match_the_qos(filters: dict) -> None:  # type: ignore[type-arg]
    gids = (MLNX_QOS / "show_gids_cx5_roce_v1_v2.txt").read_text()
    env = filters["gpufabric_roce_qos_nccl_env"](SPEC, gids, "mce0")
    assert env == {"NCCL_IB_TC": 106, "NCCL_IB_SL": 3, "NCCL_IB_GID_INDEX": 3}
    assert "NCCL_IB_GID_INDEX" not in filters["gpufabric_roce_qos_nccl_env"](SPEC, "", "mce0")


def test_bad_spec_is_one_clear_line(filters: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(AnsibleFilterError, match="roce_qos_pfc_priority: 9 is not valid"):
        filters["gpufabric_roce_qos_plans"]([""], ["mce0"], {**SPEC, "pfc_priority": "9"})
