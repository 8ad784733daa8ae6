"""The fabric verdicts (NIC count, devices of another link layer) and the numbers they are
judged by, word for word: the thresholds given to the gate are the ones used, devices printed
without a link layer still count, and an error in thresholds.yaml names the file."""

from __future__ import annotations

import pytest
import yaml
from tests.conftest import capture

from gpufabric.catalog import lookup
from gpufabric.inputs.errors import FormatError
from gpufabric.nccl.gate.thresholds import (
    InstanceOverride,
    expected_net_devices,
    parse_thresholds,
    thresholds,
)
from gpufabric.nccl.gate.verdict import GateReport, gate
from gpufabric.nccl.parse.capture import parse_file, parse_text

P4D_LOG = "nccl-tests/all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"


def _lines(report: GateReport, check: str) -> list[str]:
    return [v.line() for v in report.verdicts if v.check == check]


def test_the_nic_count_expected_comes_from_the_thresholds_given() -> None:
    """The real 2 x p4d log uses its 4 EFA NICs; thresholds that expect 8 net devices on
    p4d make the same log fail, so the gate judges by the table it was handed."""
    base = thresholds()
    eight = InstanceOverride(net_devices=8, sources=["test"])
    limits = base.model_copy(update={"instances": {**base.instances, "p4d.24xlarge": eight}})
    log = parse_file(capture(P4D_LOG))
    assert _lines(gate([log], lookup("p4d.24xlarge")), "nics") == [
        "PASS nics        fabric: NET channels use NIC 0, 1, 2, 3 (4/4 expected)"
    ]
    assert _lines(gate([log], lookup("p4d.24xlarge"), limits=limits), "nics") == [
        "FAIL nics        fabric: NET channels use NIC 0, 1, 2, 3: 4 of the 8 NCCL net devices "
        "expected on p4d.24xlarge (4 x 100G)"
    ]


IB_NO_LINK = (
    "h:1:1 [0] NCCL INFO NET/IB : Using "
    + " ".join(f"[{i}]mlx5_{i}:1" for i in range(8))
    + " ; OOB eth0:10.2.0.4<0>\n"
)


def test_hcas_listed_without_a_link_layer_count_and_are_not_foreign() -> None:
    """NET/IB's list without '/IB' after each HCA: all 8 count on an 8-HCA InfiniBand type,
    and none is reported as a device of another link layer."""
    report = gate([parse_text(IB_NO_LINK, "log.txt")], lookup("Standard_ND96isr_H100_v5"), 2)
    assert _lines(report, "nics") == [
        "PASS nics        fabric: NCCL lists mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_4, mlx5_5, "
        "mlx5_6, mlx5_7 (8/8 expected)"
    ]


def test_a_roce_device_among_ib_hcas_is_named_with_its_link_layer() -> None:
    text = IB_NO_LINK.replace("[7]mlx5_7:1", "[7]mlx5_bond_0:1/RoCE").replace(
        "[0]mlx5_0:1", "[0]mlx5_0:1/IB"
    )
    report = gate([parse_text(text, "log.txt")], lookup("Standard_ND96isr_H100_v5"), 2)
    assert _lines(report, "nics")[-1] == (
        "WARN nics        fabric: RoCE device mlx5_bond_0 listed among the IB HCAs: exclude it "
        "with NCCL_IB_HCA"
    )


def test_without_a_fabric_rule_every_nic_of_the_type_is_expected() -> None:
    doc = thresholds().model_dump()
    del doc["fabrics"]["infiniband"]
    limits = parse_thresholds(yaml.safe_dump(doc))
    nd = lookup("Standard_ND96isr_H100_v5")
    assert expected_net_devices(nd, limits) == nd.fabric_nics == 8
    # and the gate says so as a warning (which --strict counts as a failure)
    rule = gate([parse_text(IB_NO_LINK, "log.txt")], nd, 2, limits=limits).verdicts[0]
    assert (rule.check, rule.status) == ("transport", "warn")


def test_one_node_with_a_net_channel_of_an_unknown_plugin_is_not_passed_as_single_node() -> None:
    """A NET/ channel on a one-node run means NCCL went through a network; when the log does
    not name it the gate cannot say which, so it warns instead of passing 'single node'."""
    text = "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/NewPlugin/0\n"
    report = gate([parse_text(text, "log.txt")], lookup("p5.48xlarge"), 1)
    assert _lines(report, "transport") == [
        "WARN transport   fabric: the log does not name the network NCCL used (need the "
        "'NET/...' / 'Using network' INFO lines)"
    ]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("max_nodes: 1\nmax_nodes: 2\n", "thresholds.yaml: line 2: key 'max_nodes' given twice"),
        ("max_nodes: [\n", "thresholds.yaml: line 2: not valid YAML"),
    ],
)
def test_a_broken_thresholds_file_names_itself(text: str, line: str) -> None:
    with pytest.raises(FormatError) as err:
        parse_thresholds(text)
    assert str(err.value).startswith(line)
