"""`lab up --boot` without root: the lab's bundle variables, the NoCloud seed, the read-only
object-store mount, the state flag and how a host's boot result is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpufabric.bundle import render, userdata
from gpufabric.lab import boot, rootfs
from gpufabric.lab.hosts import OBJECTS_MOUNT, nspawn_argv
from gpufabric.lab.inventory import render as render_inventory
from gpufabric.lab.layout import make_layout
from gpufabric.lab.state import LabState

REPO = Path(__file__).resolve().parents[2]


def test_bundle_variables_are_the_push_inventorys() -> None:
    lay = make_layout("t", 4, 2, set())
    spec = boot.lab_spec(lay)
    inv = yaml.safe_load(render_inventory(lay, Path("/k"), Path("/kh")))["all"]
    pushed = {k: v for k, v in inv["vars"].items() if k.startswith("gpufabric_")}
    assert dict(spec.groups["gpu_nodes"]) == pushed
    for h in lay.hosts:
        entry = spec.hosts[h.name]
        assert entry["vars"] == {
            "gpufabric_leaf": inv["children"]["gpu_nodes"]["hosts"][h.name]["gpufabric_leaf"]
        }
        member_of = {g for g, body in inv["children"].items() if h.name in (body["hosts"] or {})}
        assert {"gpu_nodes", *entry["groups"]} == member_of


def test_seed_writes_nocloud_user_data_and_switches_cloud_init_on(tmp_path: Path) -> None:
    lay = make_layout("t", 2, 1, set())
    bundle = render.render(boot.lab_spec(lay), REPO, tmp_path / "objects")
    root = tmp_path / "root"
    (root / "etc/cloud").mkdir(parents=True)
    (root / rootfs.CLOUD_INIT_DISABLED).write_text("")
    data = boot.seed(root, lay.hosts[1], bundle)
    seed = root / "var/lib/cloud/seed/nocloud"
    assert (seed / "user-data").read_text() == data
    doc = yaml.safe_load(data)
    settings = json.loads(
        next(f["content"] for f in doc["write_files"] if f["path"] == userdata.CONFIG_PATH)
    )
    assert settings["url"] == f"file://{OBJECTS_MOUNT}/{bundle.name}"
    assert settings["sha256"] == bundle.sha256
    assert settings["runtime"] == "wheels"
    meta = yaml.safe_load((seed / "meta-data").read_text())
    assert meta["local-hostname"] == "h2"
    assert meta["instance-id"].startswith(lay.hosts[1].machine + "-")
    assert not (root / rootfs.CLOUD_INIT_DISABLED).exists()
    assert yaml.safe_load((root / boot.CLOUD_CFG_DROPIN).read_text()) == boot.CLOUD_CFG


def test_cloud_init_settings_leave_the_lab_its_addresses_keys_and_root_login() -> None:
    cfg = boot.CLOUD_CFG
    assert cfg["datasource_list"] == ["NoCloud"]
    assert cfg["network"] == {"config": "disabled"}
    assert cfg["ssh_deletekeys"] is False and cfg["ssh_genkeytypes"] == []
    assert cfg["disable_root"] is False
    assert cfg["preserve_hostname"] is True
    assert cfg["locale"] is False  # the image has no generated locale


def test_objects_are_bound_read_only_only_when_booting() -> None:
    lay = make_layout("t", 1, 1, set())
    plain = nspawn_argv(Path("/r"), lay.hosts[0], Path("/s"))
    booting = nspawn_argv(Path("/r"), lay.hosts[0], Path("/s"), Path("/o"))
    assert not [a for a in plain if OBJECTS_MOUNT in a]
    assert f"--bind-ro=/o:{OBJECTS_MOUNT}" in booting


def test_state_keeps_the_boot_flag() -> None:
    lay = make_layout("t", 1, 1, set())
    st = LabState(layout=lay, spine_rate=None, rootfs="/x", boot=True)
    assert LabState.from_json(st.to_json()).boot is True
    old = json.loads(st.to_json())
    del old["boot"]  # a state file written before --boot existed
    assert LabState.from_json(json.dumps(old)).boot is False


@pytest.mark.parametrize(
    ("text", "state", "why"),
    [
        (None, "not configured", "no boot result yet"),
        (
            json.dumps({"status": "configured", "recap": {"changed": 7}, "seconds": 41.5}),
            "configured",
            "changed=7 in 41.5 s",
        ),
        (json.dumps({"status": "running", "started": 1.5}), "configuring", "since 1.5"),
        (
            json.dumps(
                {"status": "not-configured", "reason": "bundle sha256 mismatch: x\n\x1b[2J"}
            ),
            "not configured",
            "bundle sha256 mismatch: x\\n\\x1b[2J",
        ),
        ('{"status": "configured", "status": "x"}', "not configured", "given twice"),
        ("[1]", "not configured", "not a JSON object"),
        ("{", "not configured", "not valid JSON"),
    ],
)
def test_boot_result_is_shown_as_one_line(text: str | None, state: str, why: str) -> None:
    got_state, got_why = boot.read_result(text)
    assert got_state == state
    assert why in got_why
    assert "\n" not in got_why and "\x1b" not in got_why
