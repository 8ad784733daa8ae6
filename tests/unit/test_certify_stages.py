"""certify's stages one by one, in-process: what each node's collector report must hold to be
read at all, the GPU count against the instance type or the peers (and never zero outside the
lab), the configuration audit on every shipped profile as the nccl role renders it, dcgmi's
verdicts, and the fabric doctor's report turned into rows. Each failure is checked word for
word: the reason is what the operator reads in the scorecard and in the node's drain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.unit.certify_fakes import FakeRunner, doctor_report, node_report
from tests.unit.test_certify_nccl_conf import rendered

from gpufabric.certify import stages
from gpufabric.certify.hosts import Holder, Inventory
from gpufabric.certify.limits import advice
from gpufabric.certify.run import Options, certify
from gpufabric.nccl import profiles


class Answers:
    """A runner whose node collector answers with the given ansible results, verbatim."""

    def __init__(self, results: dict[str, dict[str, Any]]) -> None:
        self.results = results
        self.args: list[list[str]] = []

    def script(self, hosts: list[str], path: Path, args: list[str]) -> dict[str, dict[str, Any]]:
        assert path == stages.COLLECTOR
        self.args.append(list(args))
        return {h: self.results[h] for h in hosts}

    def run(self, hosts: list[str], argv: list[str]) -> dict[str, dict[str, Any]]:
        raise AssertionError("the collector only")


def answered(**over: Any) -> dict[str, Any]:
    return {"rc": 0, "stdout": json.dumps(node_report(**over))}


def test_collect_passes_the_paths_the_dcgm_switch_and_the_storage_path() -> None:
    runner = Answers({"h1": answered()})
    stages.collect(runner, ["h1"], ["/var/lib/tcpx/lib64"], dcgm=False, storage="/srv/shared")
    stages.collect(runner, ["h1"], ["/var/lib/tcpx/lib64"], dcgm=True)
    assert runner.args == [
        ["/var/lib/tcpx/lib64", "--no-dcgm", "--storage=/srv/shared"],
        ["/var/lib/tcpx/lib64"],
    ]


def test_collect_keeps_only_reports_the_collector_could_have_printed() -> None:
    """A node that did not answer, whose command failed, or whose report is not the
    collector's (not JSON, a wrong type, a field missing or unknown) is left out, so stage 1
    holds it; the nodes after it are still read."""
    good = node_report(gpus=8, dcgm={"rc": 0, "tail": "Pass"})
    bad_reports = {
        "not-json": {"rc": 0, "stdout": "Traceback (most recent call last):"},
        "empty": {"rc": 0, "stdout": ""},
        "a-list": {"rc": 0, "stdout": "[8]"},
        "gpus-text": answered(gpus="8"),
        "gpus-true": answered(gpus=True),
        "gpus-negative": answered(gpus=-1),
        "gpus-float": answered(gpus=8.0),
        "no-conf": {
            "rc": 0,
            "stdout": json.dumps({k: v for k, v in good.items() if k != "nccl_conf"}),
        },
        "paths-a-list": answered(paths=["/opt/plugin"]),
        "path-there-text": answered(paths={"/opt/plugin": "yes"}),
        "tools-a-list": answered(tools=["dcgmi"]),
        "dcgm-no-rc": answered(dcgm={"tail": "Fail"}),
        "dcgm-rc-text": answered(dcgm={"rc": "0", "tail": ""}),
        "storage-no-mount": answered(storage={"path": "/srv", "dir": True, "fstype": "nfs"}),
        "unknown-key": answered(hacked=True),
    }
    results: dict[str, dict[str, Any]] = {
        "unreachable": {"unreachable": True, "rc": 0, "stdout": json.dumps(good)},
        "failed": {"failed": True, "rc": 0, "stdout": json.dumps(good)},
        "exit-1": {"rc": 1, "stdout": json.dumps(good)},
        **bad_reports,
        "last": {"stdout": json.dumps(good)},  # ansible's result without rc: the report counts
    }
    data = stages.collect(Answers(results), list(results), [], dcgm=True)
    assert data == {"last": {**good, "storage": None}}


def test_a_storage_mount_report_is_read_as_the_collector_prints_it() -> None:
    mount = {"path": "/srv/shared", "dir": True, "mount": "/srv/shared", "fstype": "lustre"}
    data = stages.collect(Answers({"h1": answered(storage=mount)}), ["h1"], [], dcgm=True)
    assert data["h1"]["storage"] == mount


def sanity_rows(
    counts: dict[str, int | None], want: int | None, lab: bool = False
) -> dict[str, tuple[str, str, str]]:
    data = {h: node_report(gpus=n) for h, n in counts.items() if n is not None}
    rows = stages.sanity(list(counts), data, want, lab=lab)
    assert all(r["stage"] == 1 and r["stage_name"] == "sanity" for r in rows)
    assert [r["name"] for r in rows] == [f"1 sanity: {h}" for h in counts]
    assert [r["host"] for r in rows] == list(counts)
    return {r["host"]: (r["status"], r["measurement"], r["reason"]) for r in rows}


def test_gpu_count_against_the_instance_type() -> None:
    got = sanity_rows({"h1": 8, "h2": 4, "h3": None, "h4": 0}, want=8)
    assert got == {
        "h1": ("passed", "8 GPU(s), the instance type 8", ""),
        "h2": ("failed", "4 GPU(s)", "gpu-count: 4 GPU(s), the instance type 8"),
        "h3": ("failed", "no answer", "unreachable: no answer over ssh"),
        "h4": ("failed", "0 GPU(s)", "gpu-count: 0 GPU(s), the instance type 8"),
    }


def test_gpu_count_against_the_peers_without_an_instance_type() -> None:
    got = sanity_rows({"h1": 8, "h2": 4, "h3": 8}, want=None)
    assert got == {
        "h1": ("passed", "8 GPU(s), the peers 8", ""),
        "h2": ("failed", "4 GPU(s)", "gpu-count: 4 GPU(s), the peers 8"),
        "h3": ("passed", "8 GPU(s), the peers 8", ""),
    }


def test_a_whole_cluster_short_of_the_instance_types_gpus_fails() -> None:
    """Every node agreeing on 4 GPUs does not make 4 right on an 8-GPU instance type."""
    got = sanity_rows({"h1": 4, "h2": 4, "h3": 8}, want=8)
    assert got == {
        "h1": ("failed", "4 GPU(s)", "gpu-count: 4 GPU(s), the instance type 8"),
        "h2": ("failed", "4 GPU(s)", "gpu-count: 4 GPU(s), the instance type 8"),
        "h3": ("passed", "8 GPU(s), the instance type 8", ""),
    }


def test_no_gpu_on_any_node_fails_outside_the_lab_and_passes_in_it() -> None:
    """Peers that all list no GPU agree with each other; outside the lab that is a node with no
    GPU driver, not a count that matches."""
    zero = "gpu-count: 0 GPU(s): the NVIDIA driver lists none (/proc/driver/nvidia/gpus)"
    assert sanity_rows({"h1": 0, "h2": 0}, want=None) == {
        "h1": ("failed", "0 GPU(s)", zero),
        "h2": ("failed", "0 GPU(s)", zero),
    }
    assert sanity_rows({"h1": 0, "h2": 0}, want=None, lab=True) == {
        "h1": ("passed", "0 GPU(s), the peers 0", ""),
        "h2": ("passed", "0 GPU(s), the peers 0", ""),
    }
    # the strict judgement is the default: only a caller that says "lab" gets the lenient one
    default = stages.sanity(["h1"], {"h1": node_report(gpus=0)}, None)
    assert (default[0]["status"], default[0]["reason"]) == ("failed", zero)
    assert sanity_rows({"h1": None, "h2": None}, want=None, lab=True) == {
        h: ("failed", "no answer", "unreachable: no answer over ssh") for h in ("h1", "h2")
    }


def test_certify_outside_the_lab_holds_nodes_that_list_no_gpu() -> None:
    hosts = ["n1", "n2"]
    inv = Inventory(hosts, "n1", {h: {"gpufabric_fabric": "infiniband"} for h in hosts}, {})
    runner = FakeRunner({h: node_report() for h in hosts}, {})
    report = certify(
        inv,
        runner,
        Holder("none", runner, "n1"),
        lambda hs, _label: doctor_report(hs, {}),
        None,
        Options(),
    )
    assert report["verdict"] == "not certified"
    for h in hosts:
        assert report["hosts"][h]["stage"] == "1 sanity"
        assert report["hosts"][h]["reason"].startswith("gpu-count: 0 GPU(s): the NVIDIA driver")


def test_rows_carry_what_to_do_only_when_failed() -> None:
    passed = stages.row(4, "h1", "passed", "checked")
    assert passed == {
        "stage": 4,
        "stage_name": "fabric",
        "name": "4 fabric: h1",
        "host": "h1",
        "status": "passed",
        "measurement": "checked",
        "reason": "",
        "todo": "",
        "extra": {},
    }
    failed = stages.row(4, "h1", "failed", "checked", "mtu: eth0 mtu 9000, the peers' 1500")
    assert failed["todo"] == advice("mtu: x") and failed["todo"].startswith("set the fabric's MTU")
    skipped = stages.row(4, "h1", "skipped", "no traffic", "mtu: x")
    assert skipped["todo"] == ""
    assert stages.skipped(3, ["a", "b"], "why") == [
        {
            "stage": 3,
            "stage_name": "node",
            "name": "3 node: 2 host(s)",
            "host": "",
            "status": "skipped",
            "measurement": "why",
            "reason": "",
            "todo": "",
            "extra": {},
        }
    ]


def test_the_paths_a_profile_relies_on_are_its_plugin_directory() -> None:
    assert stages.profile_paths("tcpxo", "gcp") == ["/var/lib/tcpxo/lib64"]
    assert stages.profile_paths("roce", "gcp") == ["/usr/local/gib/lib64"]
    assert stages.profile_paths("roce", "") == []
    assert stages.profile_paths("efa", "aws") == []  # a library name, no directory to check


def profile_conf(name: str) -> str:
    """/etc/nccl.conf as the nccl role writes it for `name` (8 nodes, one tier)."""
    prof = rendered(name, {}, 8, 1)
    return f'# gpufabric NCCL profile "{prof["profile"]}"\n' + "".join(
        f"{e['name']}={e['value']}\n" for e in prof["conf"]
    )


def tuned(name: str, **over: Any) -> dict[str, Any]:
    prof = profiles.book().profiles[name]
    rdma = prof.fabric in ("roce", "infiniband")
    doc = {
        "nccl_conf": profile_conf(name),
        "paths": dict.fromkeys(stages.profile_paths(prof.fabric, prof.cloud or ""), True),
        "roce_v2": prof.fabric == "roce",  # every RoCE node's ports carry RoCE v2 GIDs
        "rdma": ["mlx5_0"] if rdma else [],
    }
    return node_report(**{**doc, **over})


PROFILES = sorted(profiles.book().profiles)


@pytest.mark.parametrize("name", PROFILES)
def test_every_shipped_profile_as_rendered_passes_and_each_fixed_setting_is_required(name):
    prof = profiles.book().profiles[name]
    fabric, cloud = prof.fabric, prof.cloud or ""
    assert stages.audit_host(tuned(name), fabric, cloud, 8, 1) == ([], [])
    conf = profile_conf(name)
    checked = 0
    for line in conf.splitlines()[1:]:
        key = line.split("=", 1)[0]
        fixed = next((s for s in prof.settings if s.name == key), None)
        cut = conf.replace(line + "\n", "")
        problems, _w = stages.audit_host(tuned(name, nccl_conf=cut), fabric, cloud, 8, 1)
        if fixed is not None and fixed.value is not None and fixed.scale_out is None:
            assert problems[0] == f"nccl-conf: {line} missing from /etc/nccl.conf", line
            # the GID index is ClusterMAX's check too
            assert all(p.startswith("nccl-gid-index: ") for p in problems[1:]), problems
            checked += 1
    assert checked or name == "infiniband"  # its only fixed-looking setting scales out


def test_the_gid_index_is_judged_on_a_node_with_roce_v2_gids_only() -> None:
    """The roce profile writes the index from the host's GID table; a node whose ports carry no
    RoCE v2 GID is not judged on it (ClusterMAX grades RoCE v2 hosts only)."""
    conf = "".join(
        line + "\n"
        for line in profile_conf("roce").splitlines()
        if not line.startswith("NCCL_IB_GID_INDEX=")
    )
    v1 = tuned("roce", nccl_conf=conf, roce_v2=False)
    assert stages.audit_host(v1, "roce", "", 8, 1) == ([], [])
    v2 = tuned("roce", nccl_conf=conf)
    assert stages.audit_host(v2, "roce", "", 8, 1)[0] == [
        "nccl-gid-index: NCCL_IB_GID_INDEX not set on a RoCE v2 host"
    ]


def test_settings_the_conf_does_not_hold_are_not_required() -> None:
    """Job-environment pins (TCPX's NCCL_ALGO), settings other than NCCL's (Azure's
    CUDA_DEVICE_ORDER) and version-bound ones (old EFA plugins' NCCL_PROTO) live elsewhere."""
    assert "NCCL_ALGO" not in profile_conf("gcp-tcpx")
    assert "CUDA_DEVICE_ORDER" not in profile_conf("azure-nd")
    assert "NCCL_PROTO" not in profile_conf("efa")
    assert stages.audit_host(tuned("gcp-tcpx"), "tcpx", "gcp", 8, 1)[0] == []
    assert stages.audit_host(tuned("azure-nd"), "infiniband", "azure", 8, 1)[0] == []
    assert stages.audit_host(tuned("efa"), "efa", "aws", 8, 1)[0] == []


def test_the_profile_header_and_the_environment_file_are_required() -> None:
    assert stages.audit_host(tuned("lab", nccl_env=""), "lab", "", 2, 0)[0] == [
        "nccl-conf: /etc/profile.d/gpufabric-nccl.sh is missing"
    ]
    other = profile_conf("lab").replace('profile "lab"', 'profile "roce"')
    assert stages.audit_host(tuned("lab", nccl_conf=other), "lab", "", 2, 0)[0] == [
        "nccl-conf: /etc/nccl.conf is not the lab profile"
    ]


def test_a_plugin_or_topology_file_the_node_did_not_report_is_missing() -> None:
    """Present only where the node says so: a report without the path is no proof."""
    assert stages.audit_host(tuned("gcp-tcpxo", paths={}), "tcpxo", "gcp", 8, 1)[0] == [
        "net-plugin: /var/lib/tcpxo/lib64 is missing"
    ]
    assert stages.audit_host(tuned("gcp-gib", paths={}), "roce", "gcp", 8, 1)[0] == [
        "net-plugin: /usr/local/gib/lib64 is missing"  # the cloud's profile, not plain RoCE
    ]
    gone = {"/var/lib/tcpxo/lib64": False}
    assert stages.audit_host(tuned("gcp-tcpxo", paths=gone), "tcpxo", "gcp", 8, 1)[0] == [
        "net-plugin: /var/lib/tcpxo/lib64 is missing"
    ]
    conf = profile_conf("lab") + "NCCL_TOPO_FILE=/etc/nccl/topo.xml\n"
    for paths in ({}, {"/etc/nccl/topo.xml": False}):
        assert stages.audit_host(tuned("lab", nccl_conf=conf, paths=paths), "lab", "", 2, 0)[0] == [
            "topo-file: /etc/nccl/topo.xml is missing"
        ]
    there = {"/etc/nccl/topo.xml": True}
    assert stages.audit_host(tuned("lab", nccl_conf=conf, paths=there), "lab", "", 2, 0) == ([], [])


def test_the_clustermax_checks_fail_or_warn_as_clustermax_grades_them() -> None:
    pinned = profile_conf("lab") + "NCCL_ALGO=Ring\n"
    assert stages.audit_host(tuned("lab", nccl_conf=pinned), "lab", "", 2, 0)[0] == [
        "nccl-autoconfig: /etc/nccl.conf names NCCL_ALGO (pins NCCL's tuning for every job): "
        "move a vendor-required pin to the job environment"
    ]
    no_gid = profile_conf("roce").replace("NCCL_IB_GID_INDEX=3\n", "")
    assert stages.audit_host(tuned("roce", nccl_conf=no_gid), "roce", "", 8, 1)[0] == [
        "nccl-gid-index: NCCL_IB_GID_INDEX not set on a RoCE v2 host"
    ]


def test_configuration_rows_name_problems_and_keep_warnings_apart() -> None:
    gid5 = profile_conf("roce").replace("NCCL_IB_GID_INDEX=3", "NCCL_IB_GID_INDEX=5")
    data = {
        "ok": tuned("roce"),
        "warned": tuned("roce", nccl_conf=gid5),
        "bad": tuned("roce", nccl_conf=gid5.replace("NCCL_IB_TC=106\n", ""), nccl_env=""),
    }
    rows = stages.configuration(list(data), data, "roce", "", tiers=1)
    got = {r["host"]: (r["stage"], r["status"], r["measurement"], r["reason"]) for r in rows}
    gid_warning = (
        "nccl-gid-index: NCCL_IB_GID_INDEX=5, ClusterMAX expects 3 on RoCE v2 (right only if "
        "this host's RoCE v2 GID sits at that index: show_gids)"
    )
    assert got == {
        "ok": (2, "passed", "roce profile in place", ""),
        "warned": (2, "passed", f"roce profile in place; warnings: {gid_warning}", ""),
        "bad": (
            2,
            "failed",
            f"2 problem(s); warnings: {gid_warning}",
            "nccl-conf: NCCL_IB_TC=106 missing from /etc/nccl.conf; "
            "nccl-conf: /etc/profile.d/gpufabric-nccl.sh is missing",
        ),
    }


def test_configuration_names_the_clouds_profile() -> None:
    data = {"g1": tuned("gcp-gib")}
    [only] = stages.configuration(["g1"], data, "roce", "gcp", tiers=1)
    assert (only["status"], only["measurement"]) == ("passed", "gcp-gib profile in place")


@pytest.mark.parametrize(
    ("nodes", "tiers", "warned"), [(8, 2, True), (8, 0, False), (65, 0, True), (64, 0, False)]
)
def test_queue_pairs_warn_on_a_multi_tier_fabric_by_tiers_or_size(nodes, tiers, warned) -> None:
    hosts = [f"h{i}" for i in range(nodes)]
    data = dict.fromkeys(hosts, tuned("infiniband"))
    rows = stages.configuration(hosts, data, "infiniband", "", tiers=tiers)
    qps = (
        "; warnings: nccl-ib-qps-entropy: NCCL_IB_QPS_PER_CONNECTION=1 on a multi-tier fabric: "
        "set 2 (up to 4) on every rank"
    )
    assert {r["status"] for r in rows} == {"passed"}
    assert {r["measurement"] for r in rows} == {
        "infiniband profile in place" + (qps if warned else "")
    }


def test_node_checks_without_any_gpu_tool_is_one_skipped_line() -> None:
    data = {h: node_report() for h in ("h1", "h2")}
    assert stages.node_checks(["h1", "h2"], data) == stages.skipped(
        3, ["h1", "h2"], "nvbandwidth, dcgmi and nvidia-smi not installed: GPU checks skipped"
    )


def test_node_checks_judge_dcgmi_diag_per_node() -> None:
    tools = {"nvbandwidth": "", "dcgmi": "/usr/bin/dcgmi", "nvidia-smi": "/usr/bin/nvidia-smi"}
    data = {
        "no-dcgmi": node_report(tools={**tools, "dcgmi": ""}),
        "pass": node_report(tools=tools, dcgm={"rc": 0, "tail": "| Diagnostic | Pass |\n"}),
        "fail": node_report(
            tools=tools,
            dcgm={
                "rc": 226,
                "tail": "| Diagnostic | Pass |\n| Memory | Fail |\nError: GPU 3 memory ECC errors\n\n",
            },
        ),
        "fail-silent": node_report(tools=tools, dcgm={"rc": 1, "tail": "  \n"}),
    }
    rows = stages.node_checks(list(data), data)
    got = {r["host"]: (r["stage"], r["status"], r["measurement"], r["reason"]) for r in rows}
    assert got == {
        "no-dcgmi": (3, "skipped", "dcgmi not installed", ""),
        "pass": (3, "passed", "dcgmi diag -r 1 passed", ""),
        "fail": (3, "failed", "dcgmi diag -r 1 exit 226", "dcgm: Error: GPU 3 memory ECC errors"),
        "fail-silent": (3, "failed", "dcgmi diag -r 1 exit 1", "dcgm: "),
    }
    assert rows[2]["todo"].startswith("dcgmi diag -r 1 on the host")


def test_fabric_rows_from_the_doctors_report() -> None:
    report = {
        "hosts": {
            "ok": {"status": "ok", "reasons": [], "warnings": ["flap: eth1 1 flap"]},
            "bad": {"status": "bad", "reasons": ["mtu: eth0 mtu 9000", "errors: eth0 12 CRC"]},
        }
    }
    rows = stages.fabric_rows(4, ["ok", "bad", "gone"], report, "checks + bisection")
    got = {r["host"]: (r["stage"], r["status"], r["measurement"], r["reason"]) for r in rows}
    assert got == {
        "ok": (4, "passed", "checks + bisection", ""),
        "bad": (4, "failed", "checks + bisection", "mtu: eth0 mtu 9000; errors: eth0 12 CRC"),
        "gone": (4, "failed", "not judged", "unreachable: not in the doctor's report"),
    }
    assert rows[0]["extra"] == {"warnings": ["flap: eth1 1 flap"]}
    assert rows[2]["todo"] == advice("unreachable")
    soak = stages.fabric_rows(7, ["bad"], report, "repeat 1")
    assert soak[0]["reason"] == (
        "inconsistent: passed the fabric stage, failed a repeat: mtu: eth0 mtu 9000; "
        "errors: eth0 12 CRC"
    )
    assert stages.fabric_rows(4, ["ok"], {}, "x")[0]["reason"].startswith("unreachable: ")


@pytest.mark.parametrize(
    "conf",
    [
        "NCCL_TOPO_FILE=/etc/nccl/topo.xml\n",
        "  NCCL_TOPO_FILE = /etc/nccl/topo.xml  # the role's\n",
        'NCCL_TOPO_FILE="/etc/nccl/topo.xml"\n',
        "NCCL_TOPO_FILE=/old.xml\nNCCL_TOPO_FILE='/etc/nccl/topo.xml'\n",
        "# NCCL_TOPO_FILE=/commented.xml\nNCCL_TOPO_FILE=/etc/nccl/topo.xml\n",
    ],
)
def test_the_collector_reports_the_topology_file_the_audit_checks(conf: str) -> None:
    from gpufabric.certify import clustermax, collect_node

    assert collect_node.conf_value(conf, "NCCL_TOPO_FILE") == "/etc/nccl/topo.xml"
    assert clustermax.parse_conf(conf)["NCCL_TOPO_FILE"] == "/etc/nccl/topo.xml"
    assert collect_node.conf_value("NCCL_TOPO_FILE_X=/x\n", "NCCL_TOPO_FILE") == ""


def test_two_warnings_are_listed_apart_and_enough_queue_pairs_warn_of_nothing() -> None:
    gid5 = profile_conf("roce").replace("NCCL_IB_GID_INDEX=3", "NCCL_IB_GID_INDEX=5")
    [row] = stages.configuration(["r1"], {"r1": tuned("roce", nccl_conf=gid5)}, "roce", "", 2)
    assert row["status"] == "passed"
    assert row["measurement"].startswith("roce profile in place; warnings: nccl-gid-index: ")
    assert "show_gids); nccl-ib-qps-entropy: NCCL_IB_QPS_PER_CONNECTION=1 on" in row["measurement"]
    # the profile rendered for a multi-tier fabric sets 2 queue pairs: no warning
    prof = rendered("infiniband", {}, 8, 2)
    conf = '# gpufabric NCCL profile "infiniband"\n' + "".join(
        f"{e['name']}={e['value']}\n" for e in prof["conf"]
    )
    assert "NCCL_IB_QPS_PER_CONNECTION=2\n" in conf
    data = {"i1": tuned("infiniband", nccl_conf=conf)}
    [row] = stages.configuration(["i1"], data, "infiniband", "", 2)
    assert (row["status"], row["measurement"]) == ("passed", "infiniband profile in place")
