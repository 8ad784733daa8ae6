"""Every shipped NCCL profile's /etc/nccl.conf against ClusterMAX's networking checks.

The file is rendered through the nccl role's own template. Where the `clustermax` package is
installed (the [dev] extra), its own rules run: the grep of scripts/1-audit/host-check.sh with
the real grep, and checks/platform_config.py's queue-pair summary. Otherwise the
re-implementation in gpufabric.certify.clustermax (same sources) judges alone.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2
import pytest
from ansible.plugins.filter.core import comment

from gpufabric.certify import clustermax
from gpufabric.nccl import profiles

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "roles" / "nccl" / "templates"
ROCE_FACTS = {
    "rdma_devices": [
        {"name": f"mlx5_{i}", "ports": [{"number": 1, "state": "Active", "link_layer": "Ethernet"}]}
        for i in range(8)
    ]
}
IB_FACTS = {
    "rdma_devices": [
        {
            "name": f"mlx5_{i}",
            "ports": [{"number": 1, "state": "Active", "link_layer": "InfiniBand"}],
        }
        for i in range(8)
    ]
}
LAB_FACTS = {"netdevs": [{"name": "eth0", "operstate": "UP", "kind": "veth", "master": ""}]}
RDMA_FABRICS = ("infiniband", "roce")


def facts_for(fabric: str) -> dict[str, Any]:
    return {"roce": ROCE_FACTS, "infiniband": IB_FACTS, "lab": LAB_FACTS}.get(fabric, {})


def render_file(name: str, profile: dict[str, Any]) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), keep_trailing_newline=True)
    env.filters["comment"] = comment
    env.filters["quote"] = lambda s: f"'{s}'"
    return env.get_template(name).render(
        ansible_managed="Ansible managed: do not edit", __nccl_profile=profile
    )


def cases() -> list[tuple[str, dict[str, str], int, int]]:
    """(profile, versions, nodes, tiers): every profile, small and large, old and new plugins."""
    out = []
    for name in profiles.book().profiles:
        for versions in ({}, {"aws_ofi_nccl": "1.5.0"}):
            out += [(name, versions, 8, 1), (name, versions, 128, 0), (name, versions, 16, 3)]
    return out


def rendered(name: str, versions: dict[str, str], nodes: int, tiers: int) -> dict[str, Any]:
    prof = profiles.book().profiles[name]
    return profiles.render(
        facts_for(prof.fabric),
        prof.fabric,
        cloud=prof.cloud or "",
        profile=name,
        versions=versions,
        nodes=nodes,
        tiers=tiers,
    )


def cmax_scripts() -> Path | None:
    from tests import cmax_audit

    return cmax_audit.scripts()


def cmax_grep_pattern(scripts: Path) -> str:
    """The pattern host-check.sh greps /etc/nccl.conf with (read from the installed tool)."""
    text = (scripts / "host-check.sh").read_text()
    m = re.search(r'grep -qE "([^"]+)" /etc/nccl\.conf', text)
    assert m, "host-check.sh no longer greps /etc/nccl.conf this way: re-read clustermax"
    return m.group(1)


def cmax_platform_config(scripts: Path) -> ModuleType:
    from tests import cmax_audit

    return cmax_audit.platform_config(scripts)


@pytest.mark.parametrize(("name", "versions", "nodes", "tiers"), cases())
def test_nccl_conf_passes_clustermax_autoconfig(name, versions, nodes, tiers, tmp_path):
    prof = rendered(name, versions, nodes, tiers)
    conf = render_file("nccl.conf.j2", prof)
    assert clustermax.autoconfig(conf).status == "pass", conf
    # a vendor pin the profile has is kept, in the environment file, with its source above it
    env = render_file("nccl-env.sh.j2", prof)
    for e in prof["env"]:
        if e["name"] in profiles.JOB_ENV_ONLY:
            assert f'# {e["source"]}\nexport {e["name"]}="{e["value"]}"' in env
    scripts = cmax_scripts()
    if scripts is None:
        return
    (tmp_path / "nccl.conf").write_text(conf)
    grep = subprocess.run(
        ["grep", "-qE", cmax_grep_pattern(scripts), str(tmp_path / "nccl.conf")], check=False
    )
    assert grep.returncode == 1, f"cmax's grep matches the {name} profile's nccl.conf"


def test_vendor_pins_moved_to_the_job_environment():
    tcpx = rendered("gcp-tcpx", {}, 2, 0)
    assert {"NCCL_ALGO", "NCCL_PROTO"} <= {e["name"] for e in tcpx["env"]}
    assert not {"NCCL_ALGO", "NCCL_PROTO"} & {e["name"] for e in tcpx["conf"]}
    efa_old = rendered("efa", {"aws_ofi_nccl": "1.5.0"}, 2, 0)
    assert {"name": "NCCL_PROTO", "value": "simple"}.items() <= next(
        e for e in efa_old["env"] if e["name"] == "NCCL_PROTO"
    ).items()
    efa_new = rendered("efa", {"aws_ofi_nccl": "1.22.0"}, 2, 0)
    assert "NCCL_PROTO" not in render_file("nccl.conf.j2", efa_new)  # not even 'omitted: ...'
    assert "omitted: NCCL_PROTO" in render_file("nccl-env.sh.j2", efa_new)
    extra = profiles.render(LAB_FACTS, "lab", extra={"NCCL_ALGO": "Tree"})
    assert "NCCL_ALGO" in {e["name"] for e in extra["env"]}


def test_the_autoconfig_rule_fails_a_pin_even_in_a_comment():
    assert clustermax.autoconfig("NCCL_ALGO=Ring\n").status == "fail"
    assert clustermax.autoconfig("# NCCL_MIN_NCHANNELS was 4\n").status == "fail"
    assert clustermax.autoconfig("NCCL_IB_HCA==mlx5_0:1\n").status == "pass"


@pytest.mark.parametrize(
    ("nodes", "tiers", "want"),
    [(8, 1, "1"), (64, 0, "1"), (65, 0, "2"), (16, 2, "2"), (512, 1, "1")],
)
def test_queue_pairs_by_fabric_tier_and_size(nodes, tiers, want):
    for name, prof in profiles.book().profiles.items():
        if prof.fabric not in RDMA_FABRICS or prof.net_plugin.name != "built-in IB verbs":
            continue
        conf = {e["name"]: e["value"] for e in rendered(name, {}, nodes, tiers)["conf"]}
        assert conf["NCCL_IB_QPS_PER_CONNECTION"] == want, name


@pytest.mark.parametrize(("nodes", "tiers"), [(128, 0), (16, 2), (8, 1), (32, 0)])
def test_queue_pairs_satisfy_clustermax_qps_check(nodes, tiers):
    for name, prof in profiles.book().profiles.items():
        if prof.fabric not in RDMA_FABRICS or prof.net_plugin.name != "built-in IB verbs":
            continue
        conf = render_file("nccl.conf.j2", rendered(name, {}, nodes, tiers))
        ours = clustermax.qps(conf, {}, rdma=True, nodes=nodes, tiers=tiers)
        assert ours.status in ("pass", "not_applicable"), (name, ours)
        scripts = cmax_scripts()
        if scripts is None:
            continue
        pc = cmax_platform_config(scripts)
        value = int(pc.parse_nccl_conf(conf).get("NCCL_IB_QPS_PER_CONNECTION", "1"))
        report = {
            "nccl": {
                "qps_per_connection": value,
                "qps_source": "nccl.conf",
                "rdma": {"devices": ["mlx5_0"], "fabric": prof.fabric, "sysfs_read": True},
            }
        }
        theirs = pc.summarize_nccl_ib_qps(
            reports=[report],
            node_count=nodes,
            node_count_scope="cluster",
            fabric_tiers=tiers,
            clos_node_threshold=pc.DEFAULT_CLOS_NODE_THRESHOLD,
            errors=[],
        )
        assert theirs["status"] == ours.status, (name, theirs["message"])


def test_roce_profiles_write_gid_index_3():
    for name in ("roce", "oci-roce"):
        conf = render_file("nccl.conf.j2", rendered(name, {}, 8, 1))
        assert clustermax.gid_index(conf, roce_v2=True).status == "pass", name
        scripts = cmax_scripts()
        if scripts is None or shutil.which("grep") is None:
            continue
        text = (scripts / "host-check.sh").read_text()
        m = re.search(r"grep -oP '([^']*NCCL_IB_GID_INDEX[^']*)' /etc/nccl\.conf", text)
        assert m, "host-check.sh no longer reads the GID index this way"
        got = subprocess.run(
            ["grep", "-oP", m.group(1)], input=conf, capture_output=True, text=True, check=False
        )
        assert got.stdout.split()[0] == "3"
    # the host's own RoCE v2 entry, as roce_qos reads it, wins (and the audit warns about it)
    own = profiles.render(ROCE_FACTS, "roce", gid_index=5)
    assert {e["name"]: e["value"] for e in own["conf"]}["NCCL_IB_GID_INDEX"] == "5"
    assert clustermax.gid_index("NCCL_IB_GID_INDEX=5\n", roce_v2=True).status == "warning"
    assert clustermax.gid_index("", roce_v2=True).status == "fail"


def fake_host(tmp: Path, conf: str, fabric: str) -> Path:
    """A host root for cmax's collector (platform_config.py --root): /etc/nccl.conf, and for
    an RDMA fabric one RDMA device whose port has the fabric's link layer."""
    (tmp / "etc").mkdir(parents=True)
    (tmp / "etc" / "nccl.conf").write_text(conf)
    (tmp / "sys" / "class" / "net").mkdir(parents=True)
    if fabric in RDMA_FABRICS:
        port = tmp / "sys" / "class" / "infiniband" / "mlx5_0" / "ports" / "1"
        port.mkdir(parents=True)
        layer = "InfiniBand" if fabric == "infiniband" else "Ethernet"
        (port / "link_layer").write_text(layer + "\n")
    return tmp


def cmax_networking(tmp: Path, conf: str, fabric: str, nodes: int, tiers: int) -> dict[str, Any]:
    """cmax's networking grading of one rendered /etc/nccl.conf: host-check.sh's grep (real
    grep) for ncclAutoConfig, platform_config.py's collector on the host root and its fold for
    the queue pairs and topology file, audit_report.evaluate for the verdicts."""
    from tests import cmax_audit

    where = cmax_audit.scripts()
    assert where is not None
    root = fake_host(tmp, conf, fabric)
    grep = subprocess.run(
        ["grep", "-qE", cmax_grep_pattern(where), str(root / "etc" / "nccl.conf")]
    )
    worker = {"WORKER_NCCL_CONF_OVERRIDES": "true" if grep.returncode == 0 else "false"}
    report = cmax_audit.platform_config(where).collect_host(
        root=root, harness=cmax_audit.HARNESS, hostname="node"
    )
    vals = cmax_audit.values(where, [worker], [report], nodes, tiers, topology_plugin=None)
    return cmax_audit.grade(where, vals)


# Flags cmax raises on a shipped profile that are known and why (profile, check key).
KNOWN_FLAGS = {
    ("gcp-gib", "nccl_ib_qps.status"): "the gIB profile takes its IB settings from Google's "
    "/usr/local/gib/scripts/set_nccl_env.sh in the job environment, which cmax's collector "
    "(nccl.conf, else its own environment) does not read: advisory on a multi-tier fabric",
}


@pytest.mark.parametrize(("name", "versions", "nodes", "tiers"), cases())
def test_cmax_networking_grading_passes_every_profile(name, versions, nodes, tiers, tmp_path):
    """No shipped profile is flagged by a graded networking check of `cmax audit networking`
    (Slurm harness; cmax grades configuration findings as warnings): ncclAutoConfig passes,
    the queue-pair and topology-file checks pass or do not apply."""
    if cmax_audit_missing():
        pytest.skip("clustermax is not installed (the [dev] extra)")
    prof = profiles.book().profiles[name]
    conf = render_file("nccl.conf.j2", rendered(name, versions, nodes, tiers))
    graded = cmax_networking(tmp_path, conf, prof.fabric, nodes, tiers)
    assert graded["networking.ncclAutoConfig"][0] == "pass", graded
    flagged = {k for k, (status, _a) in graded.items() if status in ("fail", "warning")}
    assert flagged <= {k for p, k in KNOWN_FLAGS if p == name}, graded


def test_cmax_networking_grading_fails_a_pin_and_warns_on_one_queue_pair(tmp_path):
    """The same path flags a pin in a comment of nccl.conf and one QP on a multi-tier RDMA
    fabric (cmax's grade for both: warning): the grading above can fail."""
    if cmax_audit_missing():
        pytest.skip("clustermax is not installed (the [dev] extra)")
    pinned = cmax_networking(tmp_path / "a", "# NCCL_ALGO=Ring\n", "lab", 8, 1)
    assert pinned["networking.ncclAutoConfig"] == ("warning", "Check failed"), pinned
    one_qp = cmax_networking(tmp_path / "b", "NCCL_IB_QPS_PER_CONNECTION=1\n", "infiniband", 128, 3)
    assert one_qp["nccl_ib_qps.status"][0] == "warning", one_qp


def cmax_audit_missing() -> bool:
    return cmax_scripts() is None
