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

from gpufabric.errors import UserError
from gpufabric.topology.emit import other, slurm
from gpufabric.topology.model import Topology
from gpufabric.topology.order import address_order, topology_order
from gpufabric.topology.parallel import Parallelism
from gpufabric.topology.sources import aws
from gpufabric.topology.synthetic import synthetic

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GOLDEN = HERE / "golden" / "topology_outputs.json"


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
    return out


def _try(make: Callable[[], Any]) -> Any:
    try:
        return make()
    except UserError as exc:
        return f"UserError: {exc}"


def _outputs(t: Topology) -> dict[str, Any]:
    ring = topology_order(t)
    layout = Parallelism(tp=8, pp=2, gpus_per_node=8) if len(t.hosts) % 2 == 0 else None
    out: dict[str, Any] = {
        "slurm-tree": slurm.tree_conf(t),
        "slurm-block": _try(lambda: slurm.block_conf(t)),
        "slurm-yaml": _try(lambda: slurm.topology_yaml(t)),
        "order": [h.name for h in ring],
        "order layout": _try(lambda: [h.name for h in topology_order(t, layout)]),
        "address order": [h.name for h in address_order(t)],
        "json": other.topology_json(t, ring),
    }
    for style in other.HOSTFILE_STYLES:
        out[f"hostfile {style}"] = other.hostfile(ring, style, 2)
    for scheme in other.LABEL_SCHEMES:
        out[f"k8s-labels {scheme}"] = _try(lambda scheme=scheme: other.k8s_labels(t, scheme))
        for api in other.KUEUE_APIS:
            out[f"kueue {api} {scheme}"] = _try(
                lambda api=api, scheme=scheme: other.kueue_topology(t, api=api, scheme=scheme)
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
