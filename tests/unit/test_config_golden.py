"""The full line for every bad config case of the config tests, plus the edges of each AWS rule
(what is accepted right at a limit), pinned in tests/unit/golden/config_messages.json.
Regenerate after an intended change with GPUFABRIC_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.unit import (
    test_config_aws,
    test_config_azure,
    test_config_gcp,
    test_config_nebius,
    test_config_oci,
    test_stack_file,
)

from gpufabric.config import parse
from gpufabric.config.stack_reader import parse_stack_document
from gpufabric.errors import UserError

GOLDEN = Path(__file__).resolve().parent / "golden" / "config_messages.json"
AWS = test_config_aws.BASE
FSX = {"type": "fsx-lustre", "capacityGib": 4800}


def _fsx(**kw: Any) -> dict[str, Any]:
    return {"gpufabric:storage": {**FSX, **kw}}


# (case, override of the AWS base): accepted or refused, right at each rule's edge
EDGES: list[tuple[str, dict[str, Any]]] = [
    *[(f"fsx throughput {t}", _fsx(throughputPerTib=t)) for t in (125, 250, 500, 1000, 300, 0)],
    *[(f"fsx capacity {c}", _fsx(capacityGib=c)) for c in (1200, 2400, 3600, 4800, 7200, 1199)],
    *[
        (f"fsx efa {t} capacity {c}", _fsx(efa=True, throughputPerTib=t, capacityGib=c))
        for t, c in (
            (125, 38400),
            (250, 19200),
            (500, 9600),
            (1000, 4800),
            (1000, 2400),
            (500, 4800),
        )
    ],
    ("fsx scratch", _fsx(deploymentType="SCRATCH_2", throughputPerTib=None, capacityGib=2400)),
    ("fsx scratch efa", _fsx(deploymentType="SCRATCH_2", throughputPerTib=None, efa=True)),
    ("fsx scratch throughput", _fsx(deploymentType="SCRATCH_2", throughputPerTib=500)),
    *[
        (
            f"capacity block {n}",
            {
                "gpufabric:nodes": n,
                "gpufabric:capacity": {
                    "type": "capacity-block",
                    "reservationId": "cr-0123456789abcdef0",
                },
            },
        )
        for n in (63, 64, 65)
    ],
    ("user data 16384", {"gpufabric:userData": "x" * 16384}),
    ("user data 16385", {"gpufabric:userData": "x" * 16385}),
    ("user data multibyte", {"gpufabric:userData": "é" * 8193}),
    ("storage zone other", _fsx(zone="us-east-1b")),
    ("storage zone other region", _fsx(zone="us-west-2a")),
    ("storage zone efa other", _fsx(zone="us-east-1b", efa=True)),
    ("zone other region", {"gpufabric:zone": "us-west-2a"}),
    ("region eu", {"aws:region": "eu-west-1", "gpufabric:zone": "eu-west-1a"}),
    ("region china", {"aws:region": "cn-north-1", "gpufabric:zone": "cn-north-1a"}),
    ("mount point root", _fsx(mountPoint="/")),
    ("mount point double slash", _fsx(mountPoint="//fsx")),
    ("mount point dot", _fsx(mountPoint="/fsx/./x")),
    ("mount point deep", _fsx(mountPoint="/mnt/a-b/c_d.e")),
    ("endpoints without organization", {"gpufabric:network": {"egress": "endpoints"}}),
    ("storage of another cloud", {"gpufabric:storage": {"type": "filestore"}}),
    ("cidr with host bits", {"gpufabric:network": {"cidr": "10.0.0.1/16"}}),
    (
        "fabric subnet just big enough",
        {"gpufabric:nodes": 3, "gpufabric:network": {"fabricSubnet": "10.0.0.0/29"}},
    ),
    (
        "fabric subnet one short",
        {"gpufabric:nodes": 4, "gpufabric:network": {"fabricSubnet": "10.0.0.0/29"}},
    ),
    ("region far from any", {"aws:region": "zz", "gpufabric:zone": "zza"}),
    ("mount point dot first", _fsx(mountPoint="/./fsx")),
    ("mount point dotdot first", _fsx(mountPoint="/../fsx")),
    ("vpc nat", {"gpufabric:aws": {"existingVpcId": "vpc-0123456789abcdef0"}}),
    (
        "vpc endpoints",
        {
            "gpufabric:aws": {
                "existingVpcId": "vpc-0123456789abcdef0",
                "organizationId": "o-a1b2c3d4e5",
            },
            "gpufabric:network": {"egress": "endpoints"},
        },
    ),
]


def _message(raw: dict[str, Any]) -> str:
    try:
        cfg = parse(raw, "golden")
    except UserError as exc:
        return str(exc)
    return f"ok ({cfg.instance_type} x {cfg.nodes})"


def _stack_file(data: bytes) -> str:
    try:
        return f"ok {sorted(parse_stack_document(data, 'f', 'gpufabric'))}"
    except UserError as exc:
        return str(exc)


def _actual() -> dict[str, str]:
    out: dict[str, str] = {}
    for module in (
        test_config_aws,
        test_config_gcp,
        test_config_azure,
        test_config_oci,
        test_config_nebius,
    ):
        name = module.__name__.rsplit("_", 1)[-1]
        for case, override, _key, _words in module.BAD:
            out[f"{name}: {case}"] = _message({**module.BASE, **override})
    for case, base, change, _key, _words in test_stack_file.BAD_CONFIG:
        out[f"cross-cloud: {case}"] = _message({**base, **change})
    for case, data, _words in test_stack_file.BAD_FILES:
        out[f"stack file: {case}"] = _stack_file(data)
    for case, override in EDGES:
        out[f"aws edge: {case}"] = _message({**AWS, **override})
    return out


def test_config_messages_match_golden() -> None:
    actual = _actual()
    if os.environ.get("GPUFABRIC_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(actual, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    assert GOLDEN.is_file(), "no golden messages: run with GPUFABRIC_UPDATE_GOLDEN=1"
    golden = json.loads(GOLDEN.read_text())
    for key in sorted(set(golden) | set(actual)):
        assert actual.get(key) == golden.get(key), f"config message changed for {key!r}"
