"""Topology sources lose nothing silently: a value of the wrong type is refused naming where it
is, an entry left out is named in a note. Inputs are constructed here in the sources' real
shapes, except the cut ibnetdiscover output, which is a real capture cut short."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import capture

from gpufabric.clouds.nebius.topology import parse as nebius_parse
from gpufabric.clouds.oci.topology import parse as oci_parse
from gpufabric.errors import UserError
from gpufabric.inputs.formats import parse_yaml
from gpufabric.topology.emit import slurm
from gpufabric.topology.sources import file, ib


def _file(doc: Any) -> Any:
    return file.parse(doc, "topo.yaml")


@pytest.mark.parametrize(
    ("host", "words"),
    [
        ({"name": "n1", "path": [True]}, "path[0]: True must be a string, not the boolean true"),
        ({"name": False, "path": ["s"]}, "'name' must be a non-empty string, not False"),
        ({"name": "n1", "path": ["s", ["x"]]}, "path[1]: ['x'] must be a string, not a list"),
        ({"name": "n1", "path": ["s", 1.5]}, "path[1]: 1.5 must be a string, not a float"),
        ({"name": "n1", "path": ["s"], "nvlink_domain": True}, "nvlink_domain: True"),
        ({"name": "n1", "path": ["s\nSwitchName=x"]}, "path[0]: 's\\nSwitchName=x' holds"),
    ],
)
def test_file_source_refuses_what_is_not_a_node_id(host: dict[str, Any], words: str) -> None:
    """`path: [true]` became `SwitchName=True`; `name: false` became host False."""
    with pytest.raises(UserError) as err:
        _file({"hosts": [host]})
    assert str(err.value).startswith("topo.yaml: hosts[0]")
    assert words in str(err.value)


def test_yaml_no_is_the_name_no_and_true_is_refused() -> None:
    """Read as YAML 1.2 (gpufabric.inputs): `name: no` is the string "no", `path: [true]` a
    boolean, which the file source refuses."""
    doc = parse_yaml("hosts:\n  - name: no\n    path: [s1]\n", where="topo.yaml")
    assert _file(doc).hosts[0].name == "no"
    doc = parse_yaml("hosts:\n  - name: n1\n    path: [true]\n", where="topo.yaml")
    with pytest.raises(UserError, match=r"path\[0\]: True must be a string"):
        _file(doc)


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ({"labels": {"s": ["rack", "A"]}}, "labels['s']: ['rack', 'A'] must be a string"),
        ({"labels": {"s": "rack\nSwitchName=evil"}}, "holds the control character"),
        ({"source": ["x"]}, "source: ['x'] must be a string"),
        ({"source": "x\ny"}, "source: 'x\\ny' holds the control character"),
    ],
)
def test_file_source_labels_and_source_typed(doc: dict[str, Any], words: str) -> None:
    with pytest.raises(UserError) as err:
        _file({"hosts": [{"name": "n1", "path": ["s"]}], **doc})
    assert words in str(err.value)


def test_file_source_integers_stay_ids() -> None:
    topo = _file({"hosts": [{"name": 7, "path": [1, 2]}]})
    assert topo.hosts[0].name == "7" and topo.hosts[0].path == ("1", "2")
    assert "SwitchName=1 Switches=2" in slurm.tree_conf(topo)


@pytest.mark.parametrize("iid", [12345, "12345", "ocid1.computehost.oc1.iad.x", ["x"]])
def test_oci_instance_id_that_is_not_one_is_refused(iid: object) -> None:
    """An instance id 12345 made its host vanish (read as 'no instance': free capacity)."""
    items = [
        {
            "instanceId": "ocid1.instance.oc1.iad.a",
            "computeHpcIslandId": "i",
            "computeNetworkBlockId": "b",
            "computeLocalBlockId": "l1",
        },
        {
            "instanceId": iid,
            "computeHpcIslandId": "i",
            "computeNetworkBlockId": "b",
            "computeLocalBlockId": "l2",
        },
    ]
    with pytest.raises(UserError, match=r"^oci.json: items\[1\]: instanceId "):
        oci_parse({"items": items}, None, "oci.json")


def test_oci_host_without_instance_is_free_capacity() -> None:
    items = [
        {"instanceId": "ocid1.instance.oc1.iad.a", "computeHpcIslandId": "i",
         "computeNetworkBlockId": "b", "computeLocalBlockId": "l1"},
        {"instanceId": None, "computeHpcIslandId": "i", "computeNetworkBlockId": "b",
         "computeLocalBlockId": "l2"},
    ]  # fmt: skip
    assert [h.instance_id for h in oci_parse({"items": items}, None, "oci.json").hosts] == [
        "ocid1.instance.oc1.iad.a"
    ]


@pytest.mark.parametrize("iid", [12345, "12345", "computegpucluster-e00x"])
def test_nebius_instance_id_that_is_not_one_is_refused(iid: object) -> None:
    inst = {
        "metadata": {"name": "gpu-0", "id": iid},
        "status": {"infiniband_topology_path": {"path": ["r", "s", "l"]}},
    }
    with pytest.raises(UserError, match=r"^nebius.json: instance id: "):
        nebius_parse({"items": [inst]}, {"gpu-0": "gpu-0"}, "nebius.json")


def test_ibnetdiscover_cut_short_names_the_lost_hosts() -> None:
    """A real fat-tree capture cut after its first host HCAs: the hosts whose Ca entries are
    missing are named in a note instead of disappearing."""
    text = capture("infiniband/ibnetdiscover_dgx_h100_superpod_ndr_fattree.txt").read_text()
    lines = text.splitlines()
    cas = [i for i, ln in enumerate(lines) if ln.startswith("Ca\t") and "mlx5" in ln]
    whole = ib.parse(text, "ib")
    cut = ib.parse("\n".join(lines[: cas[2]]) + "\n", "ib")
    assert whole.skipped == tuple(s for s in whole.skipped if "cut" not in s[1])
    lost = {h.name for h in whole.hosts} - {h.name for h in cut.hosts}
    assert lost
    noted = {name for name, why in cut.skipped if "ibnetdiscover output cut?" in why}
    assert lost <= noted


def test_node_reports_checked_before_the_role_writes_them() -> None:
    """The topology role's filter: each node's metadata answer parsed strictly and run through
    the source's parser; a hostile answer is refused naming the node and the field."""
    from gpufabric.topology.load import node_reports

    good = {"n1": "/c1/r1/h1", "n2": "/c1/r2/h2"}
    assert node_reports("gcp", good, json_documents=False) == good
    with pytest.raises(UserError, match=r"host 'n2': path\[1\] 'c1/r2\\nSwitchName=x'"):
        node_reports("gcp", {**good, "n2": "/c1/r2\nSwitchName=x/h2"}, json_documents=False)
    with pytest.raises(UserError, match=r"^node n1: oci instance metadata"):
        node_reports("oci", {"n1": "{not json"}, json_documents=True)
    with pytest.raises(UserError, match="not a cloud topology source"):
        node_reports("file", good, json_documents=False)
