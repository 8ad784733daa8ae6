"""docs/troubleshooting.md quotes the lines the commands really print (a wording change in the
code must reach the page)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpufabric.catalog import lookup
from gpufabric.cli.conventions import error_line
from gpufabric.config import parse
from gpufabric.config.stack_reader import parse_stack_document
from gpufabric.errors import UserError
from gpufabric.nccl.gate.verdict import gate
from gpufabric.nccl.parse.capture import parse_text
from gpufabric.nccl.tune.tunerconf import validate
from gpufabric.topology.sources import file

DOC = (Path(__file__).resolve().parents[2] / "docs" / "troubleshooting.md").read_text()
AWS: dict[str, Any] = {
    "aws:region": "us-east-1",
    "gpufabric:instanceType": "p5.48xlarge",
    "gpufabric:nodes": 2,
    "gpufabric:zone": "us-east-1a",
    "gpufabric:encryption": "provider-native",
}


def _error(call: Any) -> str:
    with pytest.raises(UserError) as err:
        call()
    return str(err.value)


def _cli_line(call: Any) -> str:
    """The line the CLI prints for the library's error (arguments said as flags)."""
    with pytest.raises(UserError) as err:
        call()
    return error_line(err.value)


def _formats(name: str) -> Any:
    from gpufabric.inputs import formats

    return getattr(formats, name)


def _after_path(message: str) -> str:
    """The part of a message after the file it names (the page shortens paths)."""
    return message.split(": ", 1)[1] if message.startswith(("f:", "t.json:")) else message


def _nodes_line() -> str:
    from tests.unit.test_nccl_strict import GOOD_ROWS, _ranks, table

    text = _ranks(16, 2) + table(*GOOD_ROWS)
    report = gate([parse_text(text, "x.txt")], lookup("p5.48xlarge"), 4)
    return next(v.line() for v in report.verdicts if v.check == "nodes")


def _read(data: bytes, what: str, parse: Any = None) -> str:
    import tempfile

    from gpufabric.inputs import files

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f"
        path.write_bytes(data)
        if parse is None:
            return _error(lambda: files.read_text(path, what=what)).replace(str(path), "f")
        return _error(lambda: parse(path, what=what)).replace(str(path), "f")


def _fifo() -> str:
    import os
    import tempfile

    from gpufabric.inputs import files

    with tempfile.TemporaryDirectory() as tmp:
        os.mkfifo(Path(tmp) / "f")
        message = _error(lambda: files.read_text(Path(tmp) / "f", what="a NCCL log"))
        return message.replace(str(Path(tmp) / "f"), "f")


def _any_file(data: bytes, what: str, load: str | None = None) -> str:
    """The line for a file named `f`, as the first table of the page shows it."""
    line = _read(data, what, _formats(load) if load else None)
    return "error: " + line


def _oci_store_line() -> str:
    pytest.importorskip("oci")
    from gpufabric.clouds.oci.secret import fetch

    return "error: " + _error(lambda: fetch("ocid1.vault.oc1.iad.x", object(), object()))


def _nebius_config_line() -> str:
    """The line without credentials or a CLI config, the home folder said as `~`."""
    pytest.importorskip("nebius")
    import os

    from gpufabric.clouds.nebius.secret import fetch

    home = os.environ.get("HOME", "")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("HOME", "/nonexistent-home")
        env.delenv("NEBIUS_IAM_TOKEN", raising=False)
        line = _error(lambda: fetch("mbsec-e00example"))
    assert os.environ.get("HOME", "") == home
    return "error: " + line.replace("/nonexistent-home", "~")


CASES = {
    "input bom": lambda: _read(b"\xef\xbb\xbfx", "a NCCL log"),
    "input control": lambda: _read(b"a\nb\x1b[0m", "a NCCL log"),
    "input fifo": _fifo,
    "input json twice": lambda: _read(
        b'{"error": 5, "error": 0}', "a fio JSON report", _formats("load_json")
    ),
    "input cut short": lambda: _read(b'{\n  "a": [1,\n', "x", _formats("load_json")),
    "duplicate key": lambda: _error(
        lambda: parse_stack_document(
            b"config:\n  gpufabric:nodes: 1\n  gpufabric:nodes: 2\n", "f", "gpufabric"
        )
    ),
    "unknown section": lambda: _error(
        lambda: parse_stack_document(b"confg:\n  a: 1\n", "f", "gpufabric")
    ),
    "other cloud": lambda: _error(lambda: parse({**AWS, "gpufabric:gcp": {}}, "s")),
    "mount point": lambda: _error(
        lambda: parse(
            {**AWS, "gpufabric:storage": {"type": "fsx-lustre", "mountPoint": "/fsx;reboot"}}, "s"
        )
    ),
    "cycle": lambda: _error(
        lambda: file.parse(
            {"hosts": [{"name": "a", "path": ["s1", "s2"]}, {"name": "b", "path": ["s2", "s1"]}]},
            "t.json",
        )
    ),
    "efa devices": lambda: next(
        v.line()
        for v in gate(
            [
                parse_text(
                    "h:1:1 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is "
                    "efa-direct (found 31 nics)\n",
                    "log.txt",
                )
            ],
            lookup("p5.48xlarge"),
            2,
        ).verdicts
        if "EFA devices" in v.message
    ),
    "nodes": lambda: _nodes_line(),
    "oci store id": lambda: _oci_store_line(),
    "nebius no config": lambda: _nebius_config_line(),
    "nvls ll": lambda: validate("allreduce,0,65535,nvls,ll,16,-1,-1\n", caveat=False)[0].text(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_page_quotes_the_real_line(case: str) -> None:
    line = CASES[case]()
    quoted = _after_path(line)
    assert quoted.split(" (line")[0] in DOC, f"docs/troubleshooting.md lacks: {quoted}"


# ------------------------------------------------------------- lines made from files on disk
# Each case builds its input under a scratch folder (the working directory), so the line names
# the same short relative paths the page shows ("results/a/write.json").
STORAGE = Path(__file__).resolve().parent / "storage_data" / "fio-3.33"


def _results() -> Path:
    import shutil

    shutil.copytree(STORAGE, "results")
    return Path("results")


def _edit_write(change: Any) -> Path:
    import json

    results = _results()
    doc = json.loads((results / "a" / "write.json").read_text())
    change(doc)
    (results / "a" / "write.json").write_text(json.dumps(doc))
    return results


def _storage_error(results: Path, hosts: list[str] | None = None) -> str:
    from gpufabric.storage.results import load_results

    return _cli_line(lambda: load_results(results, hosts))


def _dup_key() -> str:
    from gpufabric.storage.fio import read_fio

    results = _results()
    path = results / "a" / "write.json"
    path.write_text(path.read_text().replace('"error" : 0,', '"error" : 5,\n"error" : 0,', 1))
    return _cli_line(lambda: read_fio(path))


def _ior_disagree() -> str:
    import json

    from tests.unit.test_storage_bench import ior_summary

    results = _results()
    (results / "ior.txt").write_text(ior_summary([("write", 0.6, 0.4, 0.5)]))
    (results / "ior.json").write_text(
        json.dumps({"summary": [{"operation": "write", "bwMaxMIB": 91000, "bwMeanMIB": 90000}]})
    )
    return _storage_error(results)


def _zero_ms(doc: dict[str, Any]) -> None:
    doc["jobs"][0]["write"].update(io_bytes=4 << 30, runtime=0)


def _apart() -> str:
    from gpufabric.storage.gate import gate
    from gpufabric.storage.results import load_results

    results = _results()
    path = results / "b" / "write.json"
    import json

    doc = json.loads(path.read_text())
    doc["timestamp_ms"] += 3_600_000
    path.write_text(json.dumps(doc))
    report = gate(load_results(results), None)
    return next(v.line() for v in report.verdicts if v.status == "fail")


def _missing_host() -> str:
    from gpufabric.storage.gate import gate
    from gpufabric.storage.results import load_results

    report = gate(load_results(_results(), ["a", "b", "c"]), None)
    return next(v.line() for v in report.verdicts if v.subject == "c")


def _old_host() -> str:
    import shutil

    results = _results()
    shutil.copytree(results / "b", results / "old-node")
    return _storage_error(results, ["a", "b"])


def _mdtest_times_only() -> str:
    from gpufabric.storage.ior import parse_mdtest

    return _cli_line(
        lambda: parse_mdtest("SUMMARY time: (of 2 iterations)\n", "results/mdtest.txt")
    )


HPC_IOR = Path(__file__).resolve().parent / "storage_data" / "hpc-ior" / "3.3.0"


def _ior_changed(old: str, new: str) -> str:
    from gpufabric.storage.ior import parse_ior

    text = (HPC_IOR / "ior.txt").read_text()
    return _cli_line(lambda: parse_ior(text.replace(old, new, 1), "results/ior.txt"))


def _mdtest_row_short() -> str:
    from gpufabric.storage.ior import parse_mdtest

    text = (HPC_IOR / "mdtest.txt").read_text().replace("3862.405        500.454", "3862.405")
    return _cli_line(lambda: parse_mdtest(text, "results/mdtest.txt"))


def _health(stdout: str) -> str:
    import subprocess

    from gpufabric.cli import health

    proc = subprocess.CompletedProcess(["ansible-playbook"], 4, stdout, "")
    return "error: " + str(health._no_report(proc, Path("inventory.yml"), Path("out/ansible.log")))


UNREACHABLE = (
    "PLAY RECAP *****\n"
    "h1   : ok=2    changed=0    unreachable=1    failed=0    skipped=0\n"
    "h2   : ok=2    changed=0    unreachable=1    failed=0    skipped=0\n"
)


def _tune_nodes() -> str:
    from tests.unit.test_nccl_tune import write_table

    from gpufabric.nccl.tune.run import RecordedRunner, pick, run_sweep
    from gpufabric.nccl.tune.sweep import plan_sweep

    plan = plan_sweep(lookup("p5.48xlarge"), 16)
    Path("trials").mkdir()
    for trial in plan.trials:
        (Path("trials") / f"{trial.id}.txt").write_text(write_table(trial, nodes=4))
    with pytest.raises(UserError) as err:  # the line the CLI prints: the flag, not the argument
        pick(plan, run_sweep(plan, RecordedRunner(Path("trials"))))
    return error_line(err.value)


def _tune_json() -> str:
    import json

    from gpufabric.nccl.report.tunefile import read_tune

    choice = {"algorithm": "tree", "protocol": "ll", "channels": -16}
    Path("tune.json").write_text(
        json.dumps(
            {
                "picks": [
                    {"collective": "all_reduce", "bucket": "<64K", "gain": 0.2, "choice": choice}
                ]
            }
        )
    )
    return _cli_line(lambda: read_tune(Path("tune.json")))


def _tune_nothing() -> str:
    from tests.unit.test_nccl_tune import write_table

    from gpufabric.nccl.tune.run import RecordedRunner, pick, run_sweep
    from gpufabric.nccl.tune.sweep import plan_sweep

    plan = plan_sweep(lookup("p5.48xlarge"), 2)
    Path("trials").mkdir()
    for trial in plan.trials:
        text = write_table(trial) if trial.stage == "default" else "NCCL WARN failed\n"
        (Path("trials") / f"{trial.id}.txt").write_text(text)
    return _cli_line(lambda: pick(plan, run_sweep(plan, RecordedRunner(Path("trials")))))


def _tune_no_node_count() -> str:
    from tests.unit.test_nccl_tune import write_table

    from gpufabric.nccl.tune.run import RecordedRunner, pick, run_sweep
    from gpufabric.nccl.tune.sweep import plan_sweep

    plan = plan_sweep(lookup("p5.48xlarge"), 2)
    Path("trials").mkdir()
    for trial in plan.trials:
        nodes = None if trial.id == "sendrecv.global0" else 2
        (Path("trials") / f"{trial.id}.txt").write_text(write_table(trial, nodes=nodes))
    return _cli_line(lambda: pick(plan, run_sweep(plan, RecordedRunner(Path("trials")))))


def _health_other_hosts() -> str:
    import json
    import subprocess

    from gpufabric.cli import health

    Path("work").mkdir()
    Path("out").mkdir()
    report = {"hosts": {"h1": {"status": "ok", "reasons": [], "warnings": []}}}
    (Path("work") / "health.json").write_text(json.dumps(report))
    recap = "PLAY RECAP ***\nh1 : ok=9 changed=0 unreachable=0 failed=0\nh2 : ok=9 changed=0 unreachable=0 failed=0\n"
    real_run = subprocess.run

    def fake_run(*_a: Any, **_k: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], 0, recap, "")

    subprocess.run = fake_run  # type: ignore[assignment]
    try:
        return _cli_line(
            lambda: health.run_playbook(
                Path("inventory.yml"), "none", Path("work"), [], log=Path("out/ansible.log")
            )
        )
    finally:
        subprocess.run = real_run


def _usage(*args: str) -> str:
    import contextlib
    import io
    import sys

    from gpufabric.cli.main import main

    err = io.StringIO()
    argv = sys.argv
    sys.argv = ["gpufabric", *args]
    try:
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit):
            main()
    finally:
        sys.argv = argv
    return err.getvalue().strip()


def _names_twice() -> str:
    from gpufabric.topology.files import read_names

    Path("names.txt").write_text("i-1 a\ni-1 b\n")
    return _cli_line(lambda: read_names(Path("names.txt")))


def _discovery(node: dict[str, Any]) -> str:
    """The inventory plugin's line (or warning) for OCI CLI output with one odd node."""
    from tests.unit.test_discovery_garbage import GOOD, _oci, _outputs

    from gpufabric import discovery

    files = _oci(Path(), [GOOD, node])
    try:
        found = discovery.from_files(_outputs("oci-h100"), files)
    except UserError as exc:
        return str(exc)
    return "gpufabric_pulumi: " + found.warnings[0]


def _inventory_both() -> str:
    """What `ansible-inventory` prints for a source naming both outputs_file and stack."""
    import subprocess

    from tests.pulumi.plans import REPO, plan_for
    from tests.unit.test_inventory import _source
    from tests.unit.test_inventory_stacks import ANSIBLE_INVENTORY

    source = _source(Path(), plan_for("aws-h100").outputs, {})
    source = source.rename("inventory.gpufabric_pulumi.yml")
    source.write_text("plugin: gpufabric_pulumi\noutputs_file: outputs.json\nstack: aws-h100\n")
    proc = subprocess.run(
        [ANSIBLE_INVENTORY, "-i", str(source.resolve()), "--list"],
        cwd=REPO,  # its ansible.cfg enables the plugin
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    marker = "'gpufabric_pulumi' plugin: "
    line = next(ln for ln in proc.stderr.splitlines() if marker in ln)
    return line.split(marker, 1)[1].strip().replace(f"{Path.cwd()}/", "")


def _missing() -> str:
    from gpufabric.inputs import files

    return _cli_line(lambda: files.read_text(Path("f"), what="a NCCL log"))


def _stdin_twice() -> str:
    import io
    import sys

    from gpufabric.inputs import files

    stdin = sys.stdin
    files.reset_stdin()
    sys.stdin = io.TextIOWrapper(io.BytesIO(b"x"))
    try:
        files.read_text(Path("-"), what="a NCCL log")
        return _cli_line(lambda: files.read_text(Path("-"), what="a NCCL log"))
    finally:
        sys.stdin = stdin
        files.reset_stdin()


def _leaf_map_newline() -> str:
    from gpufabric.inventory.outputs import load_leaf_map

    Path("leaves.yml").write_text('h1: "nn-a\\nSwitchName=evil"\n')
    return _error(lambda: load_leaf_map(Path("leaves.yml")))


def _pulumi_fails() -> str:
    """`stack: dev` where Pulumi knows no such stack (a fake `pulumi` printing its line)."""
    import shutil

    from gpufabric.inventory import outputs

    script = Path("pulumi").resolve()
    script.write_text("#!/bin/sh\necho \"error: no stack named 'dev' found\" >&2\nexit 255\n")
    script.chmod(0o755)
    which = shutil.which
    outputs.shutil.which = lambda name: str(script)  # type: ignore[assignment]
    try:
        return _error(lambda: outputs.load_stack("dev"))
    finally:
        outputs.shutil.which = which


NESTED_YAML = b"a:\n" + b"".join(b"  " * i + b"- \n" for i in range(70))

FILE_CASES = {
    "any file missing": _missing,
    "any file fifo": lambda: "error: " + _fifo(),
    "any file too large": lambda: _any_file(b"x" * (70 << 20), "a NCCL log"),
    "any file bom": lambda: _any_file(b"\xef\xbb\xbfx", "a NCCL log"),
    "any file not utf-8": lambda: _any_file(b"a\nb\nc\xe9", "a stack file"),
    "any file control": lambda: _any_file(b"a\nb\x1b[0m", "a NCCL log"),
    "any file nul": lambda: _any_file(b"a\x00", "a NCCL log"),
    "any file json twice": lambda: _any_file(b'{"error": 5, "error": 0}', "x", "load_json"),
    "any file yaml twice": lambda: _any_file(b"i-1: a\ni-1: b\n", "x", "load_yaml"),
    "any file nan": lambda: _any_file(
        b"{" + b"".join(b'"k%d": %d,\n' % (i, i) for i in range(11)) + b'"io_bytes": NaN}',
        "x",
        "load_json",
    ),
    "any file deep json": lambda: _any_file(b"[" * 70 + b"]" * 70, "x", "load_json"),
    "any file deep yaml": lambda: _any_file(NESTED_YAML, "x", "load_yaml").replace(
        "error: f: line 65: ", ""
    ),
    "any file alias loop": lambda: _any_file(b"a: &x [*x]\n", "x", "load_yaml"),
    "any file cut short": lambda: _any_file(b'{\n  "a": [1,\n', "x", "load_json"),
    "any file stdin twice": _stdin_twice,
    "names file id twice": _names_twice,
    "inventory address": lambda: _discovery({"name": "inst-bad", "ip": "10.0.0.999"}),
    "inventory name": lambda: _discovery({"name": "x;reboot", "ip": "10.0.0.21"}),
    "inventory id": lambda: _discovery({"name": "inst-odd", "ip": "10.0.0.21", "id": "12345"}),
    "inventory outside": lambda: _discovery({"name": "inst-far", "ip": "10.1.0.5"}),
    "inventory both sources": _inventory_both,
    "inventory leaf map": _leaf_map_newline,
    "inventory pulumi fails": _pulumi_fails,
    "fio duplicate key": _dup_key,
    "ior disagree": _ior_disagree,
    "gigabytes in 0 ms": lambda: _storage_error(_edit_write(_zero_ms)),
    "clock in 1970": lambda: _storage_error(
        _edit_write(lambda d: d.update(timestamp_ms=86_400_000))
    ),
    "host not asked for": _old_host,
    "not run together": _apart,
    "asked host without reports": _missing_host,
    "mdtest times only": _mdtest_times_only,
    "ior row cut short": lambda: _ior_changed(
        "write        2890.32    2147.46    2518.89", "write        2890.32    2147.46\n"
    ),
    "ior header without mean": lambda: _ior_changed("Mean(MiB)", "Avg(MiB)"),
    "mdtest row cut short": _mdtest_row_short,
    "health no hosts": lambda: _health("[WARNING]: No hosts matched, nothing to do\n"),
    "health unreachable": lambda: _health(UNREACHABLE),
    "tune other nodes": _tune_nodes,
    "tune.json channels": _tune_json,
    "report not judged": lambda: (
        __import__("gpufabric.nccl.report.summary", fromlist=["NOT_MEASURED"]).NOT_MEASURED
    ),
    "tune nothing measured": _tune_nothing,
    "tune no node count": _tune_no_node_count,
    "health other hosts": _health_other_hosts,
    "usage bad value": lambda: _usage("storage", "gate", "results", "--size-gib", "1.5"),
    "usage unknown option": lambda: _usage("plan", "-s", "x", "--bogus"),
    "usage missing argument": lambda: _usage("nccl", "gate", "-t", "p5.48xlarge"),
    "usage missing option": lambda: _usage("nccl", "gate", "x.txt"),
}


@pytest.mark.parametrize("case", sorted(FILE_CASES))
def test_the_page_quotes_the_real_line_for_files(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    line = FILE_CASES[case]()
    assert "\n" not in line and line, line
    assert f"`{line}`" in DOC, f"docs/troubleshooting.md lacks: {line}"
