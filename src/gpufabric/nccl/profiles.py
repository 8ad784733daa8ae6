"""NCCL fabric profiles from versioned data: select one, render it for a host.

The profiles are this package's profiles.yaml (one per fabric, wherever it runs) and each
cloud package's own nccl_profiles.yaml (found through the registry): on a stack of that cloud
its profile for a fabric is chosen first. The choice reads the fabric and the data; nothing
here names a cloud.

`render(facts, fabric, ...)` returns what the nccl role writes: NCCL_* settings for
/etc/nccl.conf (NCCL reads it with setenv without overwrite, so a job's own environment still
wins: docs/sources.md F.2) and the other variables for the environment file, each with its
source, plus what a net plugin sets itself and is therefore left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gpufabric.clouds import registry
from gpufabric.errors import UserError
from gpufabric.inputs import packaged
from gpufabric.vocabulary import Fabric

_COND = re.compile(r"^(<=|>=|<|>|==)\s*(\d+(?:\.\d+)*)$")
# Never written to /etc/nccl.conf, not even in a comment: ClusterMAX's nccl-autoconfig check
# greps the whole file for these names (clustermax 0.2.1 scripts/1-audit/host-check.sh,
# `grep -qE "NCCL_MIN_NCHANNELS|NCCL_PROTO|NCCL_ALGO" /etc/nccl.conf`), and a pin there
# overrides NCCL's own tuning for every job. A vendor-required pin goes to the environment file
# (the job's environment) with its source beside it.
JOB_ENV_ONLY = ("NCCL_MIN_NCHANNELS", "NCCL_PROTO", "NCCL_ALGO")
# ClusterMAX networking criteria: NCCL_IB_GID_INDEX=3 for RoCEv2 (clustermax.ai/criteria/networking)
ROCE_V2_GID_INDEX = 3


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScaleOut(_Strict):
    """The value to use instead on a multi-tier fabric (fabric_is_multi_tier)."""

    value: str
    source: str = Field(min_length=5)


class Setting(_Strict):
    name: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    value: str | None = None
    value_from: str | None = None
    prepend: list[str] | None = None
    when: dict[str, str] = Field(default_factory=dict)
    scale_out: ScaleOut | None = None
    source: str = Field(min_length=5)

    @model_validator(mode="after")
    def _one_value(self) -> Setting:
        given = [x for x in (self.value, self.value_from, self.prepend) if x is not None]
        if len(given) != 1:
            raise ValueError(f"{self.name}: give exactly one of value, value_from, prepend")
        if self.value_from is not None and self.value_from not in COMPUTED:
            raise ValueError(f"{self.name}: unknown value_from {self.value_from!r}")
        for software, cond in self.when.items():
            if not _COND.match(cond):
                raise ValueError(f"{self.name}: bad version condition {software}: {cond!r}")
        if self.name.startswith("NCCL_") and self.name not in JOB_ENV_ONLY:
            for pinned in JOB_ENV_ONLY:  # its source is a comment in /etc/nccl.conf
                if pinned in self.source:
                    raise ValueError(f"{self.name}: its source names {pinned} (nccl.conf comment)")
        return self


class Plugin(_Strict):
    name: str
    library: str


class Profile(_Strict):
    fabric: Fabric
    cloud: str | None = None
    """The cloud whose package ships it (set from where it is read); None: this package's."""
    lab: bool = False
    description: str
    plugin_managed: str | None = None
    net_plugin: Plugin
    tuner_plugin: str
    source_scripts: list[str] = Field(default_factory=list)
    settings: list[Setting]


class Deprecated(_Strict):
    name: str
    use: str
    source: str


class PluginVar(_Strict):
    name: str
    note: str


class ProfileBook(_Strict):
    version: int
    nccl_reference: str
    deprecated: list[Deprecated]
    plugin_managed: dict[str, list[PluginVar]]
    profiles: dict[str, Profile]

    @model_validator(mode="after")
    def _consistent(self) -> ProfileBook:
        banned = {d.name for d in self.deprecated}
        for key, prof in self.profiles.items():
            managed = {v.name for v in self.plugin_managed.get(prof.plugin_managed or "", [])}
            if prof.plugin_managed and prof.plugin_managed not in self.plugin_managed:
                raise ValueError(f"profile {key}: unknown plugin_managed {prof.plugin_managed!r}")
            for s in prof.settings:
                if s.name in banned:
                    raise ValueError(f"profile {key}: {s.name} is deprecated")
                if s.name in managed and not s.when:
                    raise ValueError(
                        f"profile {key}: {s.name} is set by {prof.plugin_managed} "
                        "itself; write it only under a version condition"
                    )
        return self


CLOUD_PROFILES = "nccl_profiles.yaml"
_CLOUD_KEYS = {"profiles", "plugin_managed"}


def book() -> ProfileBook:
    """Every profile: each cloud package's (in the registry's order), then the shared ones."""
    return _book(tuple(registry.packages().items()))


@cache
def _book(packages: tuple[tuple[str, str], ...]) -> ProfileBook:
    data = dict(packaged.load_yaml("gpufabric.nccl", "profiles.yaml"))
    profiles: dict[str, Any] = {}
    managed: dict[str, Any] = dict(data.get("plugin_managed") or {})
    for cloud, package in packages:
        file = resources.files(package).joinpath(CLOUD_PROFILES)
        if not file.is_file():
            continue
        own = packaged.load_resource(file)
        if set(own) - _CLOUD_KEYS:
            raise ValueError(f"{file}: only {', '.join(sorted(_CLOUD_KEYS))} belong here")
        for name, raw in (own.get("profiles") or {}).items():
            if name in profiles:
                raise ValueError(f"{file}: profile {name} is already {profiles[name]['cloud']}'s")
            profiles[name] = {**raw, "cloud": cloud}
        managed.update(own.get("plugin_managed") or {})
    for name, raw in data["profiles"].items():
        if name in profiles or "cloud" in raw:
            raise ValueError(
                f"gpufabric/nccl/profiles.yaml: profile {name}: a cloud's own goes in its package"
            )
        profiles[name] = raw
    return ProfileBook.model_validate({**data, "plugin_managed": managed, "profiles": profiles})


def select(fabric: str, cloud: str = "") -> str:
    """The profile name for a fabric: the cloud's own for that fabric, where its package ships
    one; else the shared one; else the one profile there is (a fabric of one cloud only)."""
    candidates = [k for k, p in book().profiles.items() if p.fabric == fabric]
    if not candidates:
        raise UserError(
            f"gpufabric_fabric: {fabric!r} has no NCCL profile; use one of "
            f"{', '.join(sorted({p.fabric for p in book().profiles.values()}))}"
        )
    for key in candidates:
        if book().profiles[key].cloud == cloud and cloud:
            return key
    generic = [k for k in candidates if book().profiles[k].cloud is None]
    return generic[0] if generic else candidates[0]


def fabric_is_multi_tier(nodes: int, tiers: int, clos_node_threshold: int = 64) -> bool:
    """A spine tier exists: the topology's tier count when known (> 0), else more nodes than one
    leaf reaches. The same reading as ClusterMAX's nccl-ib-qps-entropy check (clustermax 0.2.1
    scripts/1-audit/checks/platform_config.py classify_fabric_shape, threshold 64)."""
    if tiers > 0:
        return tiers >= 2
    return nodes > clos_node_threshold


def version_matches(version: str, condition: str) -> bool:
    """'1.5.0' vs '<=1.5.0'. An unknown version ('') means current: old-version rules don't apply."""
    m = _COND.match(condition)
    if m is None:
        raise UserError(f"NCCL profile: bad version condition {condition!r}")
    if not version:
        return False
    have, want = _vtuple(version), _vtuple(m.group(2))
    return {
        "<=": have <= want,
        ">=": have >= want,
        "<": have < want,
        ">": have > want,
        "==": have == want,
    }[m.group(1)]


def _vtuple(version: str) -> tuple[int, ...]:
    parts = re.findall(r"\d+", version.split("-")[0])
    if not parts:
        raise UserError(f"NCCL profile: version {version!r} has no numbers")
    padded = [*map(int, parts), 0, 0, 0]
    return tuple(padded[:3])


# --- values computed from the host's gpufabric_facts ----------------------------------------


def _hcas(facts: dict[str, Any], layer: str) -> str:
    ports = [
        f"{d['name']}:{p['number']}"
        for d in facts.get("rdma_devices") or []
        for p in d.get("ports") or []
        if p.get("link_layer") == layer
        and str(p.get("state", "")).lower() in ("active", "port_active")
    ]
    return "=" + ",".join(ports) if ports else ""


def _lab_ifname(facts: dict[str, Any], _opts: dict[str, Any]) -> str:
    up = [
        n
        for n in facts.get("netdevs") or []
        if n.get("operstate") == "UP" and n.get("kind") in ("", "veth") and not n.get("master")
    ]
    return "=" + up[0]["name"] if up else ""


def _catalog(opts: dict[str, Any]) -> Any:
    instance_type = str(opts.get("instance_type") or "")
    if not instance_type:
        return None
    from gpufabric.catalog import lookup  # the catalog is the one place instance facts live

    return lookup(instance_type, key="nccl_instance_type")


def _catalog_rdma_hcas(facts: dict[str, Any], opts: dict[str, Any]) -> str:
    """The type's RoCE HCAs as the catalog names them (the front-end NIC is not one of them);
    without an instance type, or where the catalog names none, the host's active RoCE ports."""
    entry = _catalog(opts)
    if entry is None or not entry.fabric_hcas:
        return _hcas(facts, "Ethernet")
    return "=" + ",".join(entry.fabric_hcas)


def _catalog_ib_ports(_facts: dict[str, Any], opts: dict[str, Any]) -> str:
    """The type's InfiniBand HCAs as the catalog names them, port 1 each."""
    entry = _catalog(opts)
    return ",".join(f"{h}:1" for h in entry.fabric_hcas) if entry else ""


def _catalog_topology_file(_facts: dict[str, Any], opts: dict[str, Any]) -> str:
    """The NCCL topology file the type's image ships, where the catalog names one."""
    entry = _catalog(opts)
    return (entry.nccl_topology_file or "") if entry else ""


COMPUTED: dict[str, Callable[[dict[str, Any], dict[str, Any]], str]] = {
    "ib_hcas": lambda facts, _o: _hcas(facts, "InfiniBand"),
    "roce_hcas": lambda facts, _o: _hcas(facts, "Ethernet"),
    # RoCE v2: the index given (the host's table as roce_qos read it, or the inventory's), else 3
    "gid_index": lambda _f, opts: str(
        opts.get("gid_index") if opts.get("gid_index") is not None else ROCE_V2_GID_INDEX
    ),
    "lab_ifname": _lab_ifname,
    "catalog_topology_file": _catalog_topology_file,
    "catalog_rdma_hcas": _catalog_rdma_hcas,
    "catalog_ib_ports": _catalog_ib_ports,
}


def render(
    facts: dict[str, Any],
    fabric: str,
    *,
    cloud: str = "",
    instance_type: str = "",
    profile: str = "auto",
    versions: dict[str, str] | None = None,
    gid_index: int | None = None,
    extra: dict[str, str] | None = None,
    qos: dict[str, Any] | None = None,
    nodes: int = 0,
    tiers: int = 0,
) -> dict[str, Any]:
    """Everything the nccl role writes for one host (JSON-safe dict).

    `qos` is what the roce_qos role configured on the NIC (NCCL_IB_TC, NCCL_IB_SL,
    NCCL_IB_GID_INDEX): it replaces the profile's value of the same name, so NCCL's traffic
    class always matches the PFC/DSCP state; `extra` (inventory) replaces both."""
    name = select(fabric, cloud) if profile in ("", "auto") else profile
    if name not in book().profiles:
        raise UserError(
            f"nccl_profile: {name!r} is not a profile; use auto or one of "
            f"{', '.join(book().profiles)}"
        )
    prof = book().profiles[name]
    versions = versions or {}
    opts = {"instance_type": instance_type, "gid_index": gid_index}
    multi_tier = fabric_is_multi_tier(nodes, tiers)
    conf: list[dict[str, str]] = []
    env: list[dict[str, str]] = []
    omitted: list[str] = []
    for s in prof.settings:
        failed = [
            f"{sw} {cond}"
            for sw, cond in s.when.items()
            if not version_matches(versions.get(sw, ""), cond)
        ]
        if failed:
            omitted.append(f"{s.name} (only for {', '.join(failed)})")
            continue
        if s.prepend is not None:
            # ${X:+:$X}: no empty entry when X is unset or empty (ld.so reads an empty
            # LD_LIBRARY_PATH entry as the current directory)
            value = ":".join(s.prepend) + "${" + s.name + ":+:$" + s.name + "}"
        elif s.value_from is not None:
            value = COMPUTED[s.value_from](facts, opts)
            if not value:
                omitted.append(f"{s.name} (nothing found on this host for {s.value_from})")
                continue
        else:
            value = s.value or ""
        source = s.source
        if s.scale_out is not None and multi_tier:
            value, source = s.scale_out.value, s.scale_out.source
        entry = {"name": s.name, "value": value, "source": source}
        (conf if _in_conf(s.name) else env).append(entry)
    banned = {d.name for d in book().deprecated}
    overrides: dict[str, tuple[str, str]] = {}
    for origin, values in (
        ("roce_qos role (the NIC's QoS as configured)", qos),
        ("nccl_extra_settings (inventory)", extra),
    ):
        for key, value in sorted((values or {}).items()):
            if key in banned:
                raise UserError(f"nccl_extra_settings: {key} is deprecated; see profiles.yaml")
            overrides[key] = (str(value), origin)
    for entry in conf + env:
        if entry["name"] in overrides:
            entry["value"], entry["source"] = overrides.pop(entry["name"])
    omitted = [o for o in omitted if o.split(" ", 1)[0] not in overrides]
    for key, (value, origin) in overrides.items():
        (conf if _in_conf(key) else env).append({"name": key, "value": value, "source": origin})
    managed = book().plugin_managed.get(prof.plugin_managed or "", [])
    return {
        "profile": name,
        "version": book().version,
        "description": prof.description,
        "lab": prof.lab,
        "net_plugin": prof.net_plugin.model_dump(),
        "tuner_plugin": prof.tuner_plugin,
        "source_scripts": list(prof.source_scripts),
        "conf": conf,
        "env": env,
        "left_to_plugin": [
            {"name": v.name, "note": v.note}
            for v in managed
            if v.name not in {e["name"] for e in conf + env}
        ],
        "omitted": omitted,
        # what each file's comments may name (nccl.conf never names a JOB_ENV_ONLY variable)
        "omitted_conf": [o for o in omitted if _in_conf(o.split(" ", 1)[0])],
        "omitted_env": [o for o in omitted if not _in_conf(o.split(" ", 1)[0])],
    }


def _in_conf(name: str) -> bool:
    """/etc/nccl.conf carries NCCL_* settings but the pins ClusterMAX refuses there."""
    return name.startswith("NCCL_") and name not in JOB_ENV_ONLY
