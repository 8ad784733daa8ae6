"""Step 2's measuring commands and their parsers: one implementation per traffic tool.

The bisection (bisect.py) only sees {"fwd": [Gbit/s...], "rev": [...], "error": ""} per group;
these functions turn its tests into per-host command lists (the playbook runs them, all hosts
in parallel) and the commands' stdout back into results.

- iperf3 (the lab, and any TCP fabric): every host of a group sends to the next one in a ring
  (a pair: the first to the second) with `--bidir`, paced at `rate_mbit` per direction, so
  both directions of every hop are measured at once; a direction's sample per interval is the
  slowest hop's rate (a ring collective runs at its slowest link).
- nccl-tests (GPU nodes): the group's first host launches all_reduce_perf over the group with
  mpirun, `repeats` times in host order (forward ring) and `repeats` times in reverse order;
  a sample is the largest message size's bus bandwidth in Gbit/s (8 x GB/s).
"""

from __future__ import annotations

import math
from typing import Any

from gpufabric.health.bisect import Result, Test
from gpufabric.inputs.errors import InputError
from gpufabric.inputs.formats import parse_json

TOOLS = ("iperf3", "nccl-tests")


def hops(hosts: list[str]) -> list[tuple[str, str]]:
    if len(hosts) == 2:
        return [(hosts[0], hosts[1])]
    return list(zip(hosts, hosts[1:] + hosts[:1], strict=True))


def iperf3_commands(
    tests: list[Test],
    addresses: dict[str, str],
    port: int = 5201,
    seconds: int = 2,
    interval: float = 0.5,
    rate_mbit: int = 200,
) -> dict[str, list[list[str]]]:
    """Host -> the iperf3 client commands it runs this round (servers run all along)."""
    out: dict[str, list[list[str]]] = {}
    for t in tests:
        for src, dst in hops(list(t["hosts"])):
            out.setdefault(src, []).append(
                [
                    "iperf3",
                    "--client",
                    addresses.get(dst, dst),
                    "--port",
                    str(port),
                    "--bidir",
                    "--time",
                    str(seconds),
                    "--interval",
                    f"{interval:g}",
                    "--bitrate",
                    f"{rate_mbit}M",
                    "--json",
                ]
            )
    return out


def parse_iperf3(text: str, interval: float = 0.5) -> tuple[list[float], list[float], str]:
    """`iperf3 --bidir --json` -> (forward Gbit/s per interval, reverse, error)."""
    if not isinstance(text, str) or not text.strip():
        return [], [], "iperf3 printed no JSON"
    try:
        # iperf3 3.12 writes sock_bufsize / sndbuf_actual / rcvbuf_actual twice per --bidir
        # report (tests/unit/data/health/iperf3_bidir_lab.json): the same value is taken
        doc = parse_json(text, where="iperf3 --json", duplicates="identical")
    except InputError as exc:
        return [], [], f"iperf3 printed no JSON ({exc.problem})"
    if not isinstance(doc, dict):
        return [], [], "iperf3 printed no JSON object"
    if doc.get("error"):
        return [], [], f"iperf3: {doc['error']}"
    fwd: list[float] = []
    rev: list[float] = []
    intervals = doc.get("intervals") or []
    if not isinstance(intervals, list):
        return [], [], "iperf3 intervals is not a list"
    for n, iv in enumerate(intervals):
        s = iv.get("sum") if isinstance(iv, dict) else None
        r = (iv.get("sum_bidir_reverse") or {}) if isinstance(iv, dict) else None
        if not isinstance(s, dict) or not isinstance(r, dict):
            return [], [], f"iperf3 interval {n}: not an object with a sum"
        seconds, forward, reverse = (
            _number(s.get("seconds", 0)),
            _number(s.get("bits_per_second", math.nan)),
            _number(r.get("bits_per_second", math.nan)),
        )
        if seconds is None or forward is None or reverse is None:
            return [], [], f"iperf3 interval {n}: seconds or bits_per_second is not a number"
        if seconds < interval / 2:  # a stub interval at the end
            continue
        fwd.append(forward / 1e9)  # a missing rate is NaN: judged as no sample
        rev.append(reverse / 1e9)
    if not fwd:
        return [], [], "iperf3 reported no interval"
    return fwd, rev, ""


def _number(value: Any) -> float | None:
    """A JSON number as a float (NaN stays NaN: no sample); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def outputs_of(registered: Any) -> list[str]:
    """An Ansible registered loop result -> the stdout of each command ([] when skipped)."""
    if not isinstance(registered, dict):
        return []
    if "results" in registered:
        return [
            str(r.get("stdout", ""))
            for r in registered["results"]
            if isinstance(r, dict) and not r.get("skipped")
        ]
    return [] if registered.get("skipped") else [str(registered.get("stdout", ""))]


def iperf3_results(
    tests: list[Test], outputs: dict[str, list[str]], interval: float = 0.5
) -> list[Result]:
    results: list[Result] = []
    for t in tests:
        per_hop: list[tuple[list[float], list[float]]] = []
        error = ""
        for src, dst in hops(list(t["hosts"])):
            texts = outputs.get(src) or []
            if not texts:
                error = f"{src} -> {dst}: no output (host unreachable?)"
                break
            fwd, rev, err = parse_iperf3(texts[0], interval)
            if err:
                error = f"{src} -> {dst}: {err}"
                break
            per_hop.append((fwd, rev))
        if error:
            results.append({"fwd": [], "rev": [], "error": error})
            continue
        n = min(len(f) for f, _r in per_hop)
        results.append(
            {
                "fwd": [min(f[i] for f, _r in per_hop) for i in range(n)],
                "rev": [min(r[i] for _f, r in per_hop) for i in range(n)],
                "error": "",
            }
        )
    return results


def nccl_commands(
    tests: list[Test],
    gpus_per_host: int,
    repeats: int = 3,
    mpirun: str = "mpirun",
    binary: str = "all_reduce_perf",
    size: str = "4G",
) -> dict[str, list[list[str]]]:
    """Launcher host -> mpirun commands: `repeats` in host order, `repeats` reversed."""
    out: dict[str, list[list[str]]] = {}
    for t in tests:
        hosts = list(t["hosts"])
        runs = []
        for order in (hosts, hosts[::-1]):
            runs += [
                [
                    mpirun,
                    "-np",
                    str(len(order) * gpus_per_host),
                    "-H",
                    ",".join(f"{h}:{gpus_per_host}" for h in order),
                    "--map-by",
                    f"ppr:{gpus_per_host}:node",
                    binary,
                    "-b",
                    size,
                    "-e",
                    size,
                    "-g",
                    "1",
                    "-c",
                    "0",
                    "-n",
                    "20",
                    "-w",
                    "5",
                ]
            ] * repeats
        out.setdefault(hosts[0], []).extend(runs)
    return out


def parse_nccl(text: str) -> tuple[float | None, str]:
    """nccl-tests output -> (bus bandwidth of its largest size in Gbit/s, error)."""
    from gpufabric.nccl.parse.tests_text import parse_tests_text

    results = parse_tests_text(text or "")
    rows = [r for res in results for r in res.rows]
    if not rows:
        return None, "nccl-tests printed no result row"
    largest = max(rows, key=lambda r: r.size)
    return largest.best_busbw() * 8, ""


def nccl_results(
    tests: list[Test], outputs: dict[str, list[str]], repeats: int = 3
) -> list[Result]:
    results: list[Result] = []
    for t in tests:
        texts = outputs.get(t["hosts"][0]) or []
        if len(texts) < 2 * repeats:
            results.append(
                {
                    "fwd": [],
                    "rev": [],
                    "error": f"{t['hosts'][0]}: "
                    f"{len(texts)} of {2 * repeats} nccl-tests runs came back",
                }
            )
            continue
        samples: list[float] = []
        errors: list[str] = []
        for text in texts[: 2 * repeats]:
            v, err = parse_nccl(text)
            samples.append(math.nan if v is None else v)
            if err:
                errors.append(err)
        results.append(
            {
                "fwd": samples[:repeats],
                "rev": samples[repeats:],
                "error": errors[0] if len(errors) > repeats else "",
            }
        )
    return results
