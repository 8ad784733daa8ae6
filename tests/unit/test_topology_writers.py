"""What the topology writers put in files other programs read (Slurm's topology.conf and
topology.yaml, Kubernetes labels, hostfiles): ids a node reported are refused or made into
names the program reads as one name, never two switches of one name."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import yaml

from gpufabric.cli.conventions import error_line
from gpufabric.clouds.aws import topology as aws
from gpufabric.clouds.spec import LabelScheme
from gpufabric.errors import UserError
from gpufabric.topology.emit import hostfile, kubernetes, slurm
from gpufabric.topology.emit.names import _short_hash, label_value, slurm_names
from gpufabric.topology.model import Host, Topology


def _line(exc: pytest.ExceptionInfo[UserError]) -> str:
    return error_line(exc.value)


@pytest.mark.parametrize(
    ("host", "line"),
    [
        (
            Host("n1", ("s", "l\nSwitchName=evil")),
            "error: topology from f.json: host 'n1': path[1] 'l\\nSwitchName=evil' holds the "
            "control character '\\n'",
        ),
        (
            Host("n1", ("s", "l"), "d\n1"),
            "error: topology from f.json: host 'n1': nvlink_domain 'd\\n1' holds the control "
            "character '\\n'",
        ),
    ],
)
def test_a_reported_id_with_a_newline_is_refused_naming_host_and_field(
    host: Host, line: str
) -> None:
    with pytest.raises(UserError) as err:
        Topology((host,), source="f.json")
    assert _line(err) == line


def test_leaves_hold_their_hosts_in_natural_order() -> None:
    n2, n10, n1 = Host("n2", ("s", "l2")), Host("n10", ("s", "l1")), Host("n1", ("s", "l1"))
    assert Topology((n2, n10, n1)).leaves() == {"l1": [n1, n10], "l2": [n2]}


def _switches(text: str) -> list[str]:
    return [ln.split()[0].split("=", 1)[1] for ln in text.splitlines() if ln.startswith("Switch")]


def test_a_renamed_id_never_takes_the_name_of_another_switch() -> None:
    """'a/b' becomes 'a_b' and then 'a_b-<hash>' since 'a_b' is taken: a node that reports
    exactly that name must not get a second switch of it (slurmctld stops on one)."""
    taken = f"a_b-{_short_hash('a/b')}"
    t = Topology(
        tuple(Host(f"n{i}", ("top", leaf)) for i, leaf in enumerate([taken, "a_b", "a/b"]))
    )
    names = _switches(slurm.tree_conf(t))
    assert len(names) == len(set(names)) == 4
    assert {taken, "a_b", "top"} <= set(names)  # safe ids keep their names
    blocks = Topology(tuple(Host(f"n{i}", ("l",), d) for i, d in enumerate(["a/b", "a_b", taken])))
    conf = slurm.block_conf(blocks)
    bnames = [ln.split()[0] for ln in conf.splitlines() if ln.startswith("BlockName=")]
    assert len(set(bnames)) == 3 and {f"BlockName={taken}", "BlockName=a_b"} <= set(bnames)


def test_slurm_names_keep_safe_ids_and_cut_long_ones_to_64() -> None:
    long = "y" * 80
    names = slurm_names(["a/b", "a_b", "c.d-e_1", long, long + "z"])
    assert names["a_b"] == "a_b" and names["c.d-e_1"] == "c.d-e_1"
    assert names["a/b"] == f"a_b-{_short_hash('a/b')}"
    assert names[long] == f"{'y' * 55}-{_short_hash(long)}"
    assert len(set(names.values())) == 5 and max(map(len, names.values())) == 64
    assert slurm_names(["x" * 64]) == {"x" * 64: "x" * 64}


def test_a_node_named_like_the_added_root_is_refused() -> None:
    t = Topology((Host("n1", ("fabric", "l1")), Host("n2", ("top2", "l2"))), source="f.json")
    for render in (slurm.tree_conf, slurm.topology_yaml):
        with pytest.raises(UserError) as err:
            render(t)
        assert _line(err) == (
            "error: topology from f.json: network node 'fabric' has the name of the switch "
            "added above the 2 top nodes"
        )
    one_top = Topology((Host("n1", ("fabric", "l1")), Host("n2", ("fabric", "l2"))))
    assert _switches(slurm.tree_conf(one_top))[0] == "fabric"


def test_block_sizes_stay_within_the_16_levels_slurm_reads() -> None:
    """slurmctld stops on a BlockSizes entry above base x 2^15 ("Invalid BlockSizes value")."""
    assert slurm.block_sizes([2, 2], [1, 1 << 15]) == [1, 1 << 15]
    with pytest.raises(UserError) as err:
        slurm.block_sizes([2, 2], [1, 1 << 16])
    assert _line(err) == (
        "error: --block-sizes: 65536 is more than 2^15 times the base 1; Slurm reads at most "
        "16 block levels"
    )
    with pytest.raises(UserError) as err:
        slurm.block_sizes([2, 2], [1, 2, 1 << 17])
    assert _line(err).startswith("error: --block-sizes: 131072 is more than 2^15 times the base 1")
    default = slurm.block_sizes([1] * (1 << 16))
    assert default == [1 << k for k in range(16)]
    assert slurm.block_sizes([1] * ((1 << 16) - 1))[-1] == 1 << 15
    assert slurm.block_sizes([1] * ((1 << 15) - 1))[-1] == 1 << 14


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        (
            {"CapacityBlockId": 5},
            "error: r.json: instance i-1: 'CapacityBlockId' 5 is not a string",
        ),
        (
            {"InstanceType": ["p5"]},
            "error: r.json: instance i-1: 'InstanceType' ['p5'] is not a string",
        ),
        (
            {"CapacityBlockId": "cr-1\nBlockName=evil"},
            "error: r.json: instance i-1: 'CapacityBlockId' 'cr-1\\nBlockName=evil' holds the "
            "control character '\\n'",
        ),
    ],
)
def test_aws_instance_fields_that_are_no_ids_are_refused(
    extra: dict[str, object], line: str
) -> None:
    """A number as CapacityBlockId was a traceback in slurm-block; a list was written to JSON."""
    data = {"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["a", "b"], **extra}]}
    with pytest.raises(UserError) as err:
        aws.parse(data, origin="r.json")
    assert _line(err) == line


def test_aws_instance_fields_are_kept_and_empty_ones_dropped() -> None:
    item = {"InstanceId": "i-1", "NetworkNodes": ["a", "b"]}
    full = {**item, "CapacityBlockId": "cr-1", "InstanceType": "p6e-gb200.36xlarge"}
    (host,) = aws.parse({"Instances": [full]}).hosts
    assert (host.nvlink_domain, host.instance_type) == ("cr-1", "p6e-gb200.36xlarge")
    (host,) = aws.parse(
        {"Instances": [{**item, "CapacityBlockId": "", "InstanceType": None}]}
    ).hosts
    assert (host.nvlink_domain, host.instance_type) == (None, None)


def test_a_host_id_that_is_no_string_is_refused_by_the_model() -> None:
    for host, field in ((Host("n", ("a", 5)), "path[1]"), (Host("n", ("a",), 5), "nvlink_domain")):  # type: ignore[arg-type]
        with pytest.raises(UserError) as err:
            Topology((host,), source="x")
        assert _line(err) == f"error: topology from x: host 'n': {field} 5 is not a string"


def test_tree_conf_of_two_top_nodes_line_by_line() -> None:
    """The whole file Slurm reads: the added root first, top nodes and hosts in natural order
    (t2 before t10), a human label and a renamed id in comments, unplaced nodes last."""
    t = Topology(
        (
            Host("n10", ("t10", "l/1")),
            Host("n9", ("t10", "l/1")),
            Host("n2", ("t2", "l2")),
        ),
        source="f.json",
        labels={"l2": "rack 2"},
        unplaced=("u10", "u9"),
    )
    renamed = "l_1"  # 'l/1' with '_' for '/': not taken, so no hash
    assert slurm.tree_conf(t).splitlines() == [
        "# Slurm topology/tree from f.json; generated by gpufabric topology",
        "# fabric=added root above the provider's top layer",
        "SwitchName=fabric Switches=t2,t10",
        "SwitchName=t2 Switches=l2",
        "SwitchName=t10 Switches=" + renamed,
        "# l2=rack 2",
        "SwitchName=l2 Nodes=n2",
        f"# {renamed}=l/1",
        f"SwitchName={renamed} Nodes=n[9-10]",
        "# no-topology=nodes without topology information",
        "SwitchName=no-topology Nodes=u[9-10]",
    ]


def test_block_conf_names_a_renamed_domain_in_a_comment() -> None:
    t = Topology(
        (Host("n1", ("l",), "cr/1"), Host("n2", ("l",), "cr/1"), Host("n3", ("l",), "cr-2")),
        source="f.json",
    )
    renamed = "cr_1"
    assert slurm.block_conf(t, [1, 2]).splitlines() == [
        "# Slurm topology/block from f.json; one block per NVLink domain",
        f"# {renamed}=cr/1",
        f"BlockName={renamed} Nodes=n[1-2]",
        "BlockName=cr-2 Nodes=n3",
        "BlockSizes=1,2",
    ]
    doc = yaml.safe_load(slurm.topology_yaml(t, [1]))
    assert doc[1]["block"]["block_sizes"] == [1]  # the sizes asked for, not the default
    assert yaml.safe_load(slurm.topology_yaml(t))[1]["block"]["block_sizes"] == [1, 2]


@pytest.mark.parametrize(
    ("blocks", "sizes", "line"),
    [
        ([4, 4], [0, 2], "error: --block-sizes: 0 is not a positive size"),
        (
            [4, 2],
            [4, 8],
            "error: --block-sizes: base 4 is larger than the smallest block (2 nodes, e.g. a "
            "partly allocated NVLink domain); every block must hold the base size",
        ),
        ([4, 4], [2, 6], "error: --block-sizes: 6 after 2 is not a power-of-two multiple of it"),
        ([4, 4], [1, 3], "error: --block-sizes: 3 after 1 is not a power-of-two multiple of it"),
        ([4, 4], [2, 2], "error: --block-sizes: 2 after 2 is not a power-of-two multiple of it"),
    ],
)
def test_requested_block_sizes_are_refused_naming_the_option(
    blocks: list[int], sizes: list[int], line: str
) -> None:
    with pytest.raises(UserError) as err:
        slurm.block_sizes(blocks, sizes)
    assert _line(err) == line


def test_no_nvlink_domains_names_where_each_cloud_reports_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = Topology((Host("n1", ("l",)),), source="f.json")
    with pytest.raises(UserError) as err:
        slurm.block_conf(t)
    assert _line(err) == (
        "error: topology from f.json has no NVLink domains (e.g. AWS CapacityBlockId); "
        "use --format slurm-tree"
    )
    two = [
        SimpleNamespace(display_name="A", nvlink_domain_field="blockA"),
        SimpleNamespace(display_name="B", nvlink_domain_field=""),
        SimpleNamespace(display_name="C", nvlink_domain_field="groupC"),
    ]
    monkeypatch.setattr(slurm.registry, "specs", lambda: two)
    with pytest.raises(UserError) as err:
        slurm.block_conf(t)
    assert _line(err) == (
        "error: topology from f.json has no NVLink domains (e.g. A blockA, C groupC); "
        "use --format slurm-tree"
    )
    monkeypatch.setattr(slurm.registry, "specs", lambda: two[1:2])
    with pytest.raises(UserError) as err:
        slurm.block_conf(t)
    assert (
        _line(err) == "error: topology from f.json has no NVLink domains; use --format slurm-tree"
    )


def _two_level() -> Topology:
    return Topology(
        (Host("n1", ("s", "l1"), "d1"), Host("n2", ("s", "l2"))),
        source="f.json",
    )


def test_k8s_option_errors_name_the_option_and_the_choices() -> None:
    t = _two_level()
    with pytest.raises(UserError) as err:
        kubernetes.k8s_labels(t, "nope")
    line = _line(err)
    assert line.startswith("error: --label-scheme 'nope': choose one of gpufabric, ")
    assert line.endswith(", topograph") and ", eks, " in line
    with pytest.raises(UserError) as err:
        kubernetes.kueue_topology(t, api="v1")
    assert _line(err) == "error: --kueue-api 'v1': choose one of v1beta2, v1beta1"
    four = Topology((Host("n1", ("c", "s", "a", "l")),))
    with pytest.raises(UserError) as err:
        kubernetes.label_keys(four, "topograph")
    assert _line(err) == (
        "error: --label-scheme topograph: topograph labels 3 levels (core, spine, leaf); "
        "this topology has 4"
    )


def test_a_host_kubernetes_cannot_name_is_refused_with_the_fix() -> None:
    t = Topology((Host("GPU1", ("s", "l")),))
    with pytest.raises(UserError) as err:
        kubernetes.node_labels(t)
    assert _line(err) == (
        "error: host 'GPU1' is not a Kubernetes node name (lowercase letters, digits, '-' and "
        "'.', at most 253): rename it with --names"
    )


def test_node_labels_default_to_gpufabric_keys_and_label_the_nvlink_domain() -> None:
    assert kubernetes.node_labels(_two_level()) == {
        "n1": {
            "network.gpufabric.io/spine": "s",
            "network.gpufabric.io/leaf": "l1",
            "network.gpufabric.io/nvlink-domain": "d1",
        },
        "n2": {"network.gpufabric.io/spine": "s", "network.gpufabric.io/leaf": "l2"},
    }


def test_a_scheme_with_a_key_kubernetes_refuses_names_the_node(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cloud package's scheme is data too: its keys are checked where labels are made."""
    bad = {
        "bad": LabelScheme(name="bad", key="Bad Key/{level}"),
        "badnvl": LabelScheme(name="badnvl", key="ok.io/{level}", nvlink_key="nv link"),
    }
    monkeypatch.setattr(kubernetes, "label_schemes", lambda: bad)
    t = _two_level()
    with pytest.raises(UserError) as err:
        kubernetes.node_labels(t, "bad")
    assert _line(err).startswith("error: n1: label key 'Bad Key/spine' ")
    with pytest.raises(UserError) as err:
        kubernetes.node_labels(t, "badnvl")
    assert _line(err).startswith("error: n1: label key 'nv link' ")
    with pytest.raises(UserError) as err:
        kubernetes.kueue_topology(t, scheme="bad")
    assert _line(err) == "error: 'Bad Key/spine' is not a label key Kueue accepts as a level"


def test_label_values_fit_kubernetes_at_their_edges() -> None:
    assert label_value("a" * 63) == "a" * 63  # the longest value kept as it is
    assert label_value("a" * 64) == f"{'a' * 54}-{_short_hash('a' * 64)}"  # 63 characters
    cut = "x" * 53 + "-" + "y" * 20  # cut at 54 ends in '-', which is dropped
    assert label_value(cut) == f"{'x' * 53}-{_short_hash(cut)}"
    assert label_value("rack a/1") == "rack-a-1"
    assert label_value(".a_") == "a"  # alphanumeric at both ends
    assert label_value("---") == _short_hash("---")  # nothing left: the hash alone


def test_hostfile_lines_and_refusals() -> None:
    hosts = [Host("b1", ("l",)), Host("a1", ("l",))]
    assert hostfile.hostfile(hosts) == "b1\na1\n"  # rank order kept, one name a line
    assert hostfile.hostfile(hosts, "mpirun", 1) == "b1 slots=1\na1 slots=1\n"
    assert hostfile.hostfile(hosts, "srun", 2) == "b1\nb1\na1\na1\n"
    bad = [hosts[0], Host("a b", ("l",))]
    for render, line in (
        (lambda: hostfile.hostfile(hosts, "plain", 0), "error: --slots 0: must be at least 1"),
        (
            lambda: hostfile.hostfile(hosts, "pbs"),
            "error: --hostfile-style 'pbs': choose one of plain, mpirun, torchrun, srun",
        ),
        (
            lambda: hostfile.hostfile(bad),
            "error: hostfile line 2: host name 'a b' must be a Slurm name: 1-64 letters, digits, "
            "'.', '_' or '-', starting and ending with a letter or digit",
        ),
    ):
        with pytest.raises(UserError) as err:
            render()
        assert _line(err) == line


class _Ec2Client:
    """A boto3 EC2 client as far as topology discovery uses it: one page of two instances."""

    def __init__(self, region: str | None) -> None:
        self.meta = SimpleNamespace(region_name=region)
        self.calls: list[dict[str, object]] = []

    def describe_instances(self, **call: object) -> dict[str, object]:
        dns = [{"InstanceId": "i-a", "PrivateDnsName": "ip-10-0-0-1.ec2.internal"}]
        return {"Reservations": [{"Instances": dns}]}

    def describe_instance_topology(self, **call: object) -> dict[str, object]:
        self.calls.append(call)
        return {
            "Instances": [
                {"InstanceId": "i-a", "NetworkNodes": ["x", "y"], "CapacityBlockId": "cr-1"},
                {"InstanceId": "i-b", "NetworkNodes": ["x", "z"]},
            ]
        }


def test_aws_live_asks_the_region_given_and_names_by_the_names_map(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import boto3

    made: list[tuple[str, str | None]] = []

    def client(service: str, region_name: str | None = None) -> _Ec2Client:
        made.append((service, region_name))
        return _Ec2Client(region_name)

    monkeypatch.setattr(boto3, "client", client)
    t = aws.live("eu-north-1", None, {"i-a": "gpu-1"}, "instance-id")
    assert made == [("ec2", "eu-north-1")]
    assert [(h.name, h.path, h.nvlink_domain) for h in t.hosts] == [("gpu-1", ("x", "y"), "cr-1")]
    assert t.skipped == (("i-b", "not in the names map"),) and t.source == "aws"
    assert [h.name for h in aws.live(None, None, None, "instance-id").hosts] == ["i-a", "i-b"]
    clients: list[_Ec2Client] = []
    monkeypatch.setattr(
        boto3,
        "client",
        lambda service, region_name=None: clients.append(_Ec2Client(region_name)) or clients[-1],
    )
    t = aws.live("us-east-1", ["i-a", "i-b"], None, "private-dns")
    assert clients[0].calls == [{"InstanceIds": ["i-a", "i-b"]}]
    assert [h.name for h in t.hosts] == ["ip-10-0-0-1"]  # i-b has no private DNS name
    with pytest.raises(UserError) as err:
        aws.parse({"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["a", 5]}]}, origin="r.json")
    assert _line(err) == "error: r.json: instance i-1: 'NetworkNodes' is not a list of ids"
    assert (
        aws.load(
            {"Instances": [{"InstanceId": "i-c", "NetworkNodes": ["q"]}]}, None, "r.json"
        ).source
        == "r.json"
    )


def test_aws_live_without_a_client_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3
    from botocore.exceptions import NoRegionError

    def client(service: str, region_name: str | None = None) -> None:
        raise NoRegionError()

    monkeypatch.setattr(boto3, "client", client)
    with pytest.raises(UserError) as err:
        aws.live(None, None, None, "instance-id")
    assert _line(err) == "error: aws: cannot create an EC2 client: You must specify a region."


def test_switch_names_stay_unique_when_ids_report_the_renamed_names() -> None:
    """Hostile ids that report the names gpufabric would give others: every switch still gets a
    name of its own, and a safe id of exactly 64 characters keeps it."""
    first = f"a_b-{_short_hash('a/b')}"
    second = f"a_b-{_short_hash('a/b#')}"
    names = slurm_names([first, second, "a_b", "a/b"])
    assert len(set(names.values())) == 4 and names[first] == first and names[second] == second
    edge = "x" * 63 + "_"  # what 'x...x/' becomes
    assert slurm_names(["x" * 63 + "/", edge])[edge] == edge


def test_label_values_keep_their_own_letters() -> None:
    assert label_value("X1") == "X1"
    assert label_value("X" * 64).startswith("X" * 54 + "-")
    cut = "a" * 53 + "X" + "b" * 20
    assert label_value(cut) == f"{'a' * 53}X-{_short_hash(cut)}"


def test_mpirun_hostfile_gives_eight_slots_by_default() -> None:
    assert hostfile.hostfile([Host("a1", ("l",))], "mpirun") == "a1 slots=8\n"


class _BadAnswers(_Ec2Client):
    def describe_instance_topology(self, **call: object) -> dict[str, object]:
        return {"Reservations": []}

    def describe_instances(self, **call: object) -> dict[str, object]:
        return {"Reservations": [{}]}


def test_malformed_live_answers_are_one_line_naming_aws() -> None:
    with pytest.raises(UserError) as err:
        aws.discover(_BadAnswers("us-east-1"), name_by="private-dns")
    assert _line(err) == (
        "error: aws: not a DescribeInstanceTopology response (no 'Instances' list)"
    )
    with pytest.raises(UserError) as err:
        aws.private_dns_names(_BadAnswers("us-east-1"), ["i-a"])
    assert _line(err) == "error: aws: a reservation has no 'Instances' list"


def test_yaml_is_written_by_libyaml_when_pyyaml_has_it(monkeypatch):
    """The C emitter is what makes 4096-node topology files cheap; it must be the one used."""
    import yaml

    from gpufabric.topology.emit import names

    used: list[type] = []

    class Recording(yaml.CSafeDumper):  # type: ignore[name-defined, misc]
        def __init__(self, *args, **kwargs):
            used.append(type(self))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(yaml, "CSafeDumper", Recording)
    assert names.dump_yaml({"b": [1, "x"], "a": {"c": None}}) == "b:\n- 1\n- x\na:\n  c: null\n"
    assert used == [Recording]


def test_yaml_without_libyaml_is_the_same_text_and_stays_safe(monkeypatch):
    import yaml

    from gpufabric.topology.emit import names

    doc = {"switches": [{"switch": "s1", "children": ["a", "b"]}], "n": 2}
    with_c = names.dump_yaml(doc, sort_keys=True)
    monkeypatch.delattr(yaml, "CSafeDumper")
    assert names.dump_yaml(doc, sort_keys=True) == with_c
    # only plain YAML reaches another program's file: no Python tags
    with pytest.raises(yaml.representer.RepresenterError):
        names.dump_yaml({"x": object()})
