"""Writers of other programs' formats escape or refuse (gpufabric.inputs.writers), and the
topology emitters use them: hostile values below are constructed for these tests."""

from __future__ import annotations

import shlex

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from gpufabric.errors import UserError
from gpufabric.inputs import writers
from gpufabric.topology.emit import hostfile, kubernetes, slurm
from gpufabric.topology.model import Host, Topology

EVIL = "leaf0\nSwitchName=evil Nodes=n[1-2]"


def _topology(**kw: object) -> Topology:
    hosts = (Host("n1", ("spine0", "leaf0")), Host("n2", ("spine0", "leaf1")))
    return Topology(hosts, **kw)  # type: ignore[arg-type]


def _slurm_lines(text: str) -> list[str]:
    """The lines Slurm's parser reads as settings: what is left once comments are cut."""
    return [line for line in text.splitlines() if line.split("#", 1)[0].strip()]


def test_comment_is_one_line_whatever_it_holds() -> None:
    assert writers.comment("plain text") == "# plain text"
    line = writers.comment("a\nSwitchName=evil\r\x00\\ \u0441")
    assert "\n" not in line and "\r" not in line and "\x00" not in line
    assert line == "# a\\nSwitchName=evil\\r\\x00\\\\ \\u0441"
    assert len(writers.comment("x" * 5000)) == 2 + writers.COMMENT_MAX


@given(st.text())
def test_generated_comments_stay_one_printable_line(text: str) -> None:
    line = writers.comment(text)
    assert line.startswith("# ")
    assert all(0x20 <= ord(c) < 0x7F for c in line)


def test_tree_conf_label_with_a_newline_stays_a_comment() -> None:
    """A labels entry of the file source (free text) cannot write a SwitchName= line."""
    text = slurm.tree_conf(_topology(labels={"leaf0": EVIL}))
    assert [line for line in _slurm_lines(text) if "evil" in line] == []
    assert "# leaf0=leaf0\\nSwitchName=evil Nodes=n[1-2]" in text


def test_tree_conf_source_with_a_newline_stays_a_comment() -> None:
    text = slurm.tree_conf(_topology(source="x\nSwitchName=evil"))
    assert _slurm_lines(text) == [
        "SwitchName=spine0 Switches=leaf0,leaf1",
        "SwitchName=leaf0 Nodes=n1",
        "SwitchName=leaf1 Nodes=n2",
    ]


def test_topology_yaml_source_with_a_newline_stays_a_comment() -> None:
    text = slurm.topology_yaml(_topology(source="x\n- topology: evil"))
    doc = yaml.safe_load(text)
    assert [d["topology"] for d in doc] == ["network"]


def test_block_conf_comment_escaped() -> None:
    hosts = (
        Host("n1", ("s", "l"), nvlink_domain="nvl:0"),
        Host("n2", ("s", "l"), nvlink_domain="nvl:0"),
    )
    text = slurm.block_conf(Topology(hosts, source="a\nBlockName=evil"))
    assert [line for line in _slurm_lines(text) if "evil" in line] == []


@pytest.mark.parametrize(
    ("path", "nvlink", "field"),
    [
        (("spine0", EVIL), None, "path[1]"),
        (("spine\t0", "leaf0"), None, "path[0]"),
        (("spine0", "leaf0"), "nvl\n0", "nvlink_domain"),
    ],
)
def test_topology_refuses_ids_a_file_cannot_hold(
    path: tuple[str, ...], nvlink: str | None, field: str
) -> None:
    """A node-reported id (OCI local-block-id, a Nebius switch id, GCP physical_host, the file
    source's path) with a newline or white space is refused, naming the host and the field."""
    with pytest.raises(UserError) as err:
        Topology((Host("n1", path, nvlink_domain=nvlink),), source="oci")
    assert str(err.value).startswith(f"topology from oci: host 'n1': {field} ")
    assert "\n" not in str(err.value)


def test_host_name_with_a_trailing_newline_refused() -> None:
    with pytest.raises(UserError, match="host name 'n1\\\\n' is not a valid node name"):
        Topology((Host("n1\n", ("s", "l")),))


def test_hostfile_refuses_a_name_a_hostfile_cannot_hold() -> None:
    assert hostfile.hostfile([Host("n1", ("l",))], "mpirun", 8) == "n1 slots=8\n"
    with pytest.raises(UserError, match=r"^hostfile line 1: host name 'n1 slots=99'"):
        writers.hostfile(["n1 slots=99"])
    with pytest.raises(UserError, match="hostfile line 2"):
        writers.hostfile(["n1", "n2\n# x"])


def test_kueue_name_with_a_trailing_newline_refused() -> None:
    with pytest.raises(UserError, match="is not a DNS-1123 subdomain"):
        kubernetes.kueue_topology(_topology(), name="gpufabric-network\n")


def test_label_writer_names_the_node_and_the_key() -> None:
    assert writers.label("network.gpufabric.io/leaf", "leaf-1", "n1") == (
        "network.gpufabric.io/leaf",
        "leaf-1",
    )
    with pytest.raises(UserError, match=r"^n1: label network\.gpufabric\.io/leaf 'a b' must be"):
        writers.label("network.gpufabric.io/leaf", "a b", "n1")
    with pytest.raises(UserError, match=r"^n1: label key 'Bad/x'"):
        writers.label("Bad/x", "v", "n1")


def test_k8s_labels_of_hostile_ids_are_valid_labels() -> None:
    hosts = (Host("n1", ("spine/0", "leaf:0;x")), Host("n2", ("spine/0", "l" * 90)))
    labels = kubernetes.node_labels(Topology(hosts))
    for values in labels.values():
        for key, value in values.items():
            assert writers.label(key, value, "n") == (key, value)


def test_shell_words_quote_and_refuse() -> None:
    line = writers.shell_words(["mount", "-t", "lustre", "a@tcp:/fs", "/x;reboot"], "mount")
    assert shlex.split(line) == ["mount", "-t", "lustre", "a@tcp:/fs", "/x;reboot"]
    assert writers.shell_words(["mount", "/lustre"], "m") == "mount /lustre"
    with pytest.raises(UserError, match=r"^storage\.mountCommand: word 2 "):
        writers.shell_words(["mount", "/a\nreboot"], "storage.mountCommand")


@given(st.lists(st.text(st.characters(min_codepoint=0x20, exclude_characters="\x7f")), min_size=1))
def test_generated_shell_words_split_back(argv: list[str]) -> None:
    assert shlex.split(writers.shell_words(argv, "x")) == argv


def test_cloud_config_is_yaml_that_reads_back() -> None:
    doc = {
        "users": [{"name": "ubuntu", "ssh_authorized_keys": ["ssh-ed25519 AAAA x: y # z"]}],
        "write_files": [{"path": "/p", "content": "  indented first line\n\ttab\n"}],
    }
    text = writers.cloud_config(doc)
    assert text.startswith("#cloud-config\n")
    assert yaml.safe_load(text) == doc


def test_escape_keeps_printable_ascii_and_escapes_the_rest() -> None:
    assert writers.escape("a b~") == "a b~"
    assert writers.escape("a\x7fb\\ \u0441") == "a\\x7fb\\\\ \\u0441"  # DEL is a control


def test_a_comment_is_cut_only_past_its_limit() -> None:
    assert writers.comment("x" * writers.COMMENT_MAX) == "# " + "x" * writers.COMMENT_MAX
    assert writers.comment("x" * 11, limit=10) == "# " + "x" * 7 + "..."


def test_shell_words_refusals_word_for_word() -> None:
    with pytest.raises(UserError) as err:
        writers.shell_words(["mount", 5], "storage.mountCommand")  # type: ignore[list-item]
    assert str(err.value) == "storage.mountCommand: word 2 5 is not a string"
    with pytest.raises(UserError) as err:
        writers.shell_words(["mount", "/a", "b\x7f"], "m")
    assert str(err.value) == "m: word 3 'b\\x7f' holds the control character '\\x7f'"


def test_yaml_text_is_block_style_ascii_in_the_given_order_on_one_line_per_value() -> None:
    long = "caf\u00e9 " + "x " * 60  # longer than a dumper's default 80 columns
    text = writers.yaml_text({"b": [1, 2], "a": {"c": long}})
    assert text == f'b:\n- 1\n- 2\na:\n  c: "caf\\xE9 {"x " * 60}"\n'
    assert writers.yaml_text({"b": 1, "a": 2}, sort_keys=True) == "a: 2\nb: 1\n"


def test_yaml_text_refuses_what_does_not_read_back() -> None:
    with pytest.raises(UserError) as err:
        writers.yaml_text({"gain": float("nan")})  # NaN is not equal to itself once read
    assert str(err.value) == "YAML writer: the document does not read back as written"
