"""IOR and mdtest parsers on real output of the versions in use: 3.3.0, 4.0.0 (the latest
release) and master (4.1.0+dev), captured here (tests/unit/storage_data/PROVENANCE.md,
hpc-ior/). Before, mdtest 4.0.0 and master gave "mdtest summary has no rows" / "no 'SUMMARY
rate:'" and the gate exited 2; IOR 3.3.0's JSON (segmentCount, blockSize and transferSize
written twice in each summary object) was refused as "key 'segmentCount' given twice"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpufabric.cli.main import app
from gpufabric.errors import UserError
from gpufabric.storage.ior import MIB, parse_ior, parse_mdtest

DATA = Path(__file__).parent / "storage_data"
IOR = DATA / "hpc-ior"

# (version, ior.txt write / read mean MiB/s, ior.json write mean, mdtest File creation mean)
VERSIONS = [
    ("3.3.0", 2518.89, 17616.52, 5229.7484, 3862.405),
    ("4.0.0", 484.08, 4365.26, 2534.3112, 3231.704),
    ("master", 1320.74, 3965.89, 1511.9439, 1663.025),
]


@pytest.mark.parametrize(("version", "write", "read", "json_write", "creates"), VERSIONS)
def test_real_ior_and_mdtest_output_is_read(
    version: str, write: float, read: float, json_write: float, creates: float
) -> None:
    d = IOR / version
    text = parse_ior((d / "ior.txt").read_text(), "ior.txt")
    assert text.mean_gbps == pytest.approx({"write": write * MIB / 1e9, "read": read * MIB / 1e9})
    js = parse_ior((d / "ior.json").read_text(), "ior.json")
    assert js.mean_gbps["write"] == pytest.approx(json_write * MIB / 1e9)
    rates = parse_mdtest((d / "mdtest.txt").read_text(), "mdtest.txt")
    assert rates["File creation"] == pytest.approx(creates)
    # every row, none dropped (3.3.0 has no Directory rename row)
    assert len(rates) == (9 if version == "3.3.0" else 10) and "Tree removal" in rates


def test_ior_3_3_0_json_repeats_keys_with_one_value_only() -> None:
    """3.3.0 writes segmentCount twice into each summary object, with one value (read); a
    second, different value is a report no IOR writes and stays refused."""
    text = (IOR / "3.3.0" / "ior.json").read_text()
    summary = text.index('"summary"')
    second = text.index('"segmentCount": 1,', text.index('"segmentCount": 1,', summary) + 1)
    forged = text[:second] + '"segmentCount": 2,' + text[second + len('"segmentCount": 1,') :]
    with pytest.raises(
        UserError, match=r"^ior\.json: key 'segmentCount' given twice in one JSON object$"
    ):
        parse_ior(forged, "ior.json")


def test_mdtest_rates_stop_before_the_time_summary() -> None:
    """-P prints 'SUMMARY time' after the rates: times (seconds) are never read as rates."""
    rates = parse_mdtest((IOR / "4.0.0" / "mdtest-P.txt").read_text(), "mdtest.txt")
    assert rates["File creation"] == pytest.approx(1682.567)  # the rate, not 0.243 s
    assert len(rates) == 10


def test_mdtest_times_only_is_refused_in_one_line() -> None:
    text = (IOR / "4.0.0" / "mdtest-P.txt").read_text()
    times_only = text[text.index("SUMMARY time") :]
    with pytest.raises(UserError, match="no 'SUMMARY rate' in it"):
        parse_mdtest(times_only, "mdtest.txt")


def test_ior_header_without_its_mean_column_is_one_line() -> None:
    text = (IOR / "master" / "ior.txt").read_text().replace("Mean(MiB)", "Avg(MiB)")
    with pytest.raises(UserError, match="IOR summary header without Mean"):
        parse_ior(text, "ior.txt")


@pytest.mark.parametrize("version", ["3.3.0", "4.0.0", "master"])
def test_the_storage_gate_reads_current_ior_and_mdtest(tmp_path: Path, version: str) -> None:
    results = tmp_path / "results"
    shutil.copytree(DATA / "fio-3.33", results)
    shutil.copy(IOR / version / "ior.txt", results / "ior.txt")
    shutil.copy(IOR / version / "mdtest.txt", results / "mdtest.txt")
    result = CliRunner().invoke(app, ["storage", "gate", str(results)])
    assert result.exit_code == 0, result.output
    assert "PASS mdtest      summary: Directory creation" in result.output
    assert "PASS ior         write:" in result.output


FIO_VERSIONS = sorted(p.name for p in DATA.glob("fio-*") if p.is_dir())


def test_fio_captures_span_the_versions_in_use() -> None:
    """Ubuntu 22.04's fio 3.28, Debian 12's 3.33 and the newest release, 3.42 (PROVENANCE.md)."""
    assert {"fio-3.28", "fio-3.33", "fio-3.42"} <= set(FIO_VERSIONS)


@pytest.mark.parametrize("version", FIO_VERSIONS)
def test_each_fio_version_is_read_and_gated(version: str) -> None:
    from gpufabric.storage.fio import read_fio
    from gpufabric.storage.gate import gate
    from gpufabric.storage.results import load_results

    run = read_fio(DATA / version / "a" / "write.json")
    assert run.version == version
    results = load_results(DATA / version, ["a", "b"])
    # the storage_bench command lines at the capture's sizes: 2 jobs x 32 MiB, 2 x 500 files
    assert [n.amount for n in results.phases["write"].nodes] == [64 * 2**20] * 2
    assert [n.amount for n in results.phases["mdcreate"].nodes] == [1000] * 2
    report = gate(results, None)
    assert report.passed, [v.line() for v in report.verdicts]
    assert report.figures["write_gbps"] > 0 and report.figures["creates_per_s"] > 0
