"""Every output `gpufabric topology` renders, for constructed, synthetic and real topologies,
pinned: a change to ordering, names or any emitted line shows up as a diff of
tests/unit/golden/topology_outputs.json. Regenerate after an intended change with
GPUFABRIC_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpufabric.cli.conventions import flag
from gpufabric.clouds.aws import topology as aws
from gpufabric.errors import UserError
from gpufabric.topology.emit import hostfile, kubernetes, slurm, topology_file
from gpufabric.topology.model import Topology, level_names
from gpufabric.topology.order import address_order, topology_order
from gpufabric.topology.parallel import Parallelism
from gpufabric.topology.synthetic import synthetic

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GOLDEN = HERE / "golden" / "topology_outputs.json"


def _named(t: Topology, names: dict[str, str]) -> Topology:
    from gpufabric.topology.model import apply_names

    return apply_names(t, names)


def _extra() -> dict[str, Topology]:
    """Topologies that exercise names files, labels, skipped and unplaced nodes, NVLink domains
    and trees deeper than 4 levels."""
    from gpufabric.topology.model import Host

    hosts = tuple(
        Host(
            f"n{i}",
            ("core", f"spine{i // 12}", f"agg{i // 6}", f"agg{i // 6}x", f"leaf{i // 3}"),
            nvlink_domain=f"nvl{i // 4}",
            instance_id=f"i-{i:03d}",
        )
        for i in range(24)
    )
    deep = Topology(hosts, source="deep", labels={"core": "the core", "leaf0": "rack A ToR"})
    pages = [
        {
            "Instances": [
                {
                    "InstanceId": f"i-{k}",
                    "NetworkNodes": ["a", f"b{k % 2}", f"c{k % 4}"],
                    "CapacityBlockId": f"cb{k // 4}",
                    "InstanceType": "p6e-gb200.36xlarge",
                }
                for k in range(8)
            ]
            + [{"InstanceId": "i-9", "NetworkNodes": []}]
        },
        {"Instances": [{"InstanceId": "i-8", "NetworkNodes": ["a", "b0", "c0"]}], "NextToken": "x"},
    ]
    names = {f"i-{k}": f"gpu-{k:02d}" for k in (0, 1, 2, 3, 4, 5, 6, 8, 9)}
    return {
        "deep 5 levels, labels, nvlink": deep,
        "deep renamed by instance id": _named(
            deep, {f"i-{i:03d}": f"node-{i}" for i in range(0, 24, 2)}
        ),
        "aws named, unplaced, missing pages": aws.parse(pages, names),
        "aws unnamed, unplaced": aws.parse(pages),
        "synthetic 3 levels nvlink": synthetic(36, levels=3, nvlink=4, seed=5),
    }


def _topologies() -> dict[str, Topology]:
    local = REPO / "tests" / "fixtures_topology"
    out = {
        "aws mixed p5 p6-b200": aws.parse(
            json.loads((local / "aws_mixed_p5_p6b200_pages.json").read_text())
        ),
        "aws ultraserver": aws.parse(
            json.loads((local / "aws_ultraserver_p6e_gb200.json").read_text())
        ),
        "synthetic 3 levels": synthetic(48, levels=3, seed=1),
        "synthetic 4 levels": synthetic(40, levels=4, seed=2),
        "synthetic 2 levels": synthetic(12, levels=2, seed=3),
    }
    out.update(_extra())
    return out


def _try(make: Callable[[], Any]) -> Any:
    try:
        return make()
    except UserError as exc:  # as the CLI prints it: arguments said as their flags
        return f"UserError: {exc.said(flag)}"


def _outputs(t: Topology) -> dict[str, Any]:
    ring = topology_order(t)
    layout = Parallelism(tp=8, pp=2, gpus_per_node=8) if len(t.hosts) % 2 == 0 else None
    out: dict[str, Any] = {
        "levels": list(level_names(t.depth)),
        "skipped": [list(x) for x in t.skipped],
        "unplaced": list(t.unplaced),
        "slurm-tree": slurm.tree_conf(t),
        "slurm-block sizes 1": _try(lambda: slurm.block_conf(t, [1, 2, 4])),
        "slurm-block": _try(lambda: slurm.block_conf(t)),
        "slurm-yaml": _try(lambda: slurm.topology_yaml(t)),
        "order": [h.name for h in ring],
        "order layout": _try(lambda: [h.name for h in topology_order(t, layout)]),
        "address order": [h.name for h in address_order(t)],
        "json": topology_file.topology_json(t, ring),
    }
    for style in hostfile.HOSTFILE_STYLES:
        out[f"hostfile {style}"] = hostfile.hostfile(ring, style, 2)
    for scheme in kubernetes.label_schemes():
        out[f"k8s-labels {scheme}"] = _try(lambda scheme=scheme: kubernetes.k8s_labels(t, scheme))
        for api in kubernetes.KUEUE_APIS:
            out[f"kueue {api} {scheme}"] = _try(
                lambda api=api, scheme=scheme: kubernetes.kueue_topology(t, api=api, scheme=scheme)
            )
    return out


def test_topology_outputs_match_golden() -> None:
    actual = {name: _outputs(t) for name, t in _topologies().items()}
    if os.environ.get("GPUFABRIC_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(actual, indent=1, sort_keys=True) + "\n")
    assert GOLDEN.is_file(), "no golden outputs: run with GPUFABRIC_UPDATE_GOLDEN=1"
    golden = json.loads(GOLDEN.read_text())
    for name in sorted(set(golden) | set(actual)):
        for key in sorted(set(golden.get(name, {})) | set(actual.get(name, {}))):
            assert actual.get(name, {}).get(key) == golden.get(name, {}).get(key), (
                f"topology output changed: {name} / {key}"
            )


def test_golden_checks_every_render_format() -> None:
    from gpufabric.cli.topology import RENDER_FORMATS

    covered = {
        "slurm-tree",
        "slurm-block",
        "slurm-yaml",
        "hostfile",
        "k8s-labels",
        "kueue-topology",
        "json",
    }
    assert set(RENDER_FORMATS) <= covered
