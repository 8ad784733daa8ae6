"""roles/nccl_tests + playbooks/benchmark.yml: conventions, the no-GPU skip, the launcher
script (run against stand-in mpirun/srun that record their arguments) and the gate step
(run on real fixtures through Ansible). Nothing here needs a GPU; the GPU path itself
(building NCCL/nccl-tests, real runs) is not exercised on this machine.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from tests.conftest import FIXTURES, needs_captures

REPO = Path(__file__).resolve().parents[2]
ROLE = REPO / "roles" / "nccl_tests"
BIN = Path(sys.executable).parent
PLAYBOOK = BIN / "ansible-playbook"


def run_playbook(playbook: Path, inventory: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(REPO / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
    }
    return subprocess.run(
        [str(PLAYBOOK), "-i", str(inventory), str(playbook), *extra],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def local_inventory(tmp_path: Path, host_vars: dict | None = None) -> Path:
    inv = {
        "all": {
            "children": {
                "gpu_nodes": {
                    "hosts": {
                        "labhost": {
                            "ansible_connection": "local",
                            "ansible_python_interpreter": sys.executable,
                            **(host_vars or {}),
                        }
                    }
                }
            },
            "vars": {"gpufabric_fabric": "lab"},
        }
    }
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump(inv))
    return path


def test_role_conventions() -> None:
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
    specs = yaml.safe_load((ROLE / "meta" / "argument_specs.yml").read_text())
    options = specs["argument_specs"]["main"]["options"]
    assert set(options) == set(defaults)
    assert all(options[k]["default"] == v for k, v in defaults.items())
    assert all(k.startswith("nccl_tests_") for k in defaults)
    main = yaml.safe_load((ROLE / "tasks" / "main.yml").read_text())
    assert [t["name"] for t in main] == ["Preflight", "Install", "Configure", "Verify"]
    for path in ROLE.rglob("*.yml"):
        for task in yaml.safe_load(path.read_text()) or []:
            if isinstance(task, dict) and "name" in task and path.parent.name == "tasks":
                modules = [k for k in task if "." in k and not k.startswith("__")]
                assert all(m.startswith("ansible.builtin.") for m in modules), (path, modules)
    assert (
        (ROLE / "templates" / "run-nccl-tests.sh.j2")
        .read_text()
        .startswith("#!/bin/bash\n{{ ansible_managed | comment }}")
    )
    assert (ROLE / "README.md").exists()


@pytest.mark.slow
def test_ansible_lint_production_profile() -> None:
    proc = subprocess.run(
        [str(BIN / "ansible-lint"), "roles/nccl_tests", "playbooks/benchmark.yml"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '')}", "NO_COLOR": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Profile 'production' was required, and it passed" in proc.stderr + proc.stdout


@pytest.mark.parametrize("check", [False, True], ids=["run", "check-mode"])
def test_benchmark_playbook_skips_in_one_line_without_gpu(tmp_path: Path, check: bool) -> None:
    if Path("/dev/nvidia0").exists():
        pytest.skip("this machine has a GPU")
    proc = run_playbook(
        REPO / "playbooks" / "benchmark.yml",
        local_inventory(tmp_path),
        *(["--check"] if check else []),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    skips = [line for line in proc.stdout.splitlines() if "nccl_tests: labhost: skipped" in line]
    assert len(skips) == 1 and "no NVIDIA GPU" in skips[0]
    assert "nothing benchmarked, nothing gated" in proc.stdout
    assert "changed=0" in proc.stdout.split("PLAY RECAP")[1]


def render_script(tmp_path: Path, launcher: str) -> Path:
    """Render run-nccl-tests.sh with the role's configure step, pointing at stand-in tools."""
    mpi = tmp_path / "mpi" / "bin"
    mpi.mkdir(parents=True)
    record = tmp_path / "record.json"
    stub = (
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv, 'env': dict(os.environ)}}, open({str(record)!r}, 'w'))\n"
        "print('# Avg bus bandwidth    : 1.0')\n"
    )
    for tool in ("mpirun", "srun"):
        (mpi / tool).write_text(stub)
        (mpi / tool).chmod(0o755)
    (tmp_path / "hostfile").write_text(
        "# topology order\nnode-b slots=8\nnode-a slots=8\nnode-c slots=8\n"
    )
    play = tmp_path / "configure.yml"
    play.write_text(
        yaml.safe_dump(
            [
                {
                    "hosts": "all",
                    "gather_facts": False,
                    "tasks": [
                        {
                            "ansible.builtin.include_role": {
                                "name": "nccl_tests",
                                "tasks_from": "configure",
                            }
                        }
                    ],
                }
            ]
        )
    )
    variables = {
        "nccl_tests_prefix": str(tmp_path / "prefix"),
        "nccl_tests_mpi_home": str(tmp_path / "mpi"),
        "nccl_tests_hostfile": str(tmp_path / "hostfile"),
        "nccl_tests_launcher": launcher,
        "nccl_tests_timeout_s": 60,
    }
    (tmp_path / "prefix").mkdir()
    proc = run_playbook(play, local_inventory(tmp_path), "-e", json.dumps(variables))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    return tmp_path / "prefix" / "run-nccl-tests.sh"


def test_mpirun_script_uses_hostfile_ranks_env_and_sizes(tmp_path: Path) -> None:
    script = render_script(tmp_path, "mpirun")
    out = tmp_path / "out" / "all_reduce.txt"
    proc = subprocess.run(
        [str(script), "all_reduce", str(out), "2", "8", "8", "1024", "NCCL_ALGO=Ring"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Avg bus bandwidth" in out.read_text()
    rec = json.loads((tmp_path / "record.json").read_text())
    argv = rec["argv"]
    joined = " ".join(argv)
    assert f"--hostfile {tmp_path / 'hostfile'}" in joined and "-np 16 -N 8" in joined
    assert argv[argv.index("-x", argv.index("--bind-to")) :].count("-x") >= 3
    assert "NCCL_ALGO" in argv and "NCCL_DEBUG" in argv and "LD_LIBRARY_PATH" in argv
    assert rec["env"]["NCCL_ALGO"] == "Ring" and rec["env"]["NCCL_DEBUG"] == "INFO"
    perf = next(a for a in argv if a.endswith("/all_reduce_perf"))
    assert "nccl-tests-v2.16.9/build" in perf
    assert argv[argv.index(perf) + 1 :][:4] == ["-b", "8", "-e", "1024"]


def test_srun_script_keeps_topology_order_one_line_per_task(tmp_path: Path) -> None:
    script = render_script(tmp_path, "srun")
    path_env = {**os.environ, "PATH": f"{tmp_path / 'mpi' / 'bin'}:{os.environ['PATH']}"}
    # the stand-in srun records SLURM_HOSTFILE's path; keep a copy before the script removes it
    wrapper = tmp_path / "mpi" / "bin" / "srun"
    wrapper.write_text(
        wrapper.read_text().replace(
            "print(",
            f"import shutil; shutil.copy(os.environ['SLURM_HOSTFILE'], {str(tmp_path / 'tasks')!r})\nprint(",
        )
    )
    out = tmp_path / "o.txt"
    proc = subprocess.run(
        [str(script), "alltoall", str(out), "2", "4"],
        capture_output=True,
        text=True,
        env=path_env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    rec = json.loads((tmp_path / "record.json").read_text())
    assert "--distribution=arbitrary" in rec["argv"] and "--ntasks=8" in rec["argv"]
    # 2 nodes x 4 ranks, first two hosts of the hostfile, in its (topology) order
    assert (tmp_path / "tasks").read_text().split() == ["node-b"] * 4 + ["node-a"] * 4


def gate_play(
    tmp_path: Path, outputs: dict[str, Path], instance_type: str
) -> subprocess.CompletedProcess[str]:
    results = tmp_path / "results"
    results.mkdir()
    for coll, src in outputs.items():
        shutil.copy(src, results / f"{coll}.txt")
    play = tmp_path / "gate.yml"
    play.write_text(
        yaml.safe_dump(
            [
                {
                    "hosts": "all",
                    "gather_facts": False,
                    "tasks": [{"ansible.builtin.group_by": {"key": "nccl_tests_gpu_nodes"}}],
                },
                {
                    "hosts": "localhost",
                    "connection": "local",
                    "gather_facts": False,
                    "tasks": [
                        {
                            "ansible.builtin.include_role": {
                                "name": "nccl_tests",
                                "tasks_from": "gate",
                            }
                        }
                    ],
                },
            ]
        )
    )
    variables = {
        "nccl_tests_results_dir": str(results),
        "nccl_tests_collectives": list(outputs),
        "nccl_tests_instance_type": instance_type,
        "nccl_tests_gpufabric": str(BIN / "gpufabric"),
        "nccl_tests_nodes": 2,  # the captures come from 2 nodes; this inventory has one host
    }
    return run_playbook(play, local_inventory(tmp_path), "-e", json.dumps(variables))


@needs_captures
def test_gate_step_passes_a_good_efa_run(tmp_path: Path) -> None:
    log = FIXTURES / "nccl-tests" / "all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"
    proc = gate_play(tmp_path, {"all_reduce": log}, "p4d.24xlarge")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (
        "PASS transport" in proc.stdout and "gate PASSED for p4d.24xlarge x 2 nodes" in proc.stdout
    )
    assert "PASS bandwidth   all_reduce.txt" in proc.stdout
    assert (tmp_path / "results" / "report" / "report.html").exists()


@needs_captures
def test_gate_step_fails_the_play_on_socket_fallback(tmp_path: Path) -> None:
    log = FIXTURES / "nccl-debug" / "net_socket_eth0.txt"
    proc = gate_play(tmp_path, {"all_reduce": log}, "p5.48xlarge")
    assert proc.returncode != 0
    assert "fabric gate FAILED: FAIL transport" in proc.stdout and "socket fallback" in proc.stdout


STAND_IN_MAKEFILES = {
    # NCCL's `make src.build` -> build/lib/libnccl.so
    "nccl": "src.build:\n\tmkdir -p build/lib && touch build/lib/libnccl.so\n",
    # nccl-tests' `make` -> build/<coll>_perf, here scripts printing a real footer line
    "nccl-tests": (
        "all:\n\tmkdir -p build && for c in all_reduce all_gather reduce_scatter alltoall sendrecv;"
        " do printf '#!/bin/sh\\necho \"# Avg bus bandwidth    : 42.0\"\\n' > build/$${c}_perf;"
        " chmod +x build/$${c}_perf; done\n"
    ),
}


def simulated_gpu_host(tmp_path: Path) -> tuple[Path, dict]:
    """A playbook applying the role, and extra vars that make this machine look like a GPU node:
    gpufabric_facts overridden with -e, stand-in nvcc/mpicc, local git remotes with the pinned
    tags whose Makefiles produce stand-in libraries and binaries."""
    for tool in ("cuda/bin/nvcc", "mpi/bin/mpicc"):
        path = tmp_path / tool
        path.parent.mkdir(parents=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
    repos, commits = {}, {}
    for name, tag in (("nccl", "v2.27.7-1"), ("nccl-tests", "v2.16.9")):
        repo = tmp_path / "remotes" / name
        repo.mkdir(parents=True)
        git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "Makefile").write_text(STAND_IN_MAKEFILES[name])
        subprocess.run([*git, "add", "Makefile"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "stand-in"], check=True)
        subprocess.run([*git, "tag", tag], check=True)
        repos[name] = f"file://{repo}"
        commits[name] = subprocess.run([*git, "rev-parse", "HEAD"], check=True,
                                       capture_output=True, text=True).stdout.strip()  # fmt: skip
    play = tmp_path / "build.yml"
    play.write_text(
        yaml.safe_dump([{"hosts": "all", "gather_facts": False, "roles": [{"role": "nccl_tests"}]}])
    )
    variables = {
        "gpufabric_facts": {"has_gpu": True, "gpu_count": 8, "summary": "simulated"},
        "nccl_tests_nccl_repo": repos["nccl"],
        "nccl_tests_repo": repos["nccl-tests"],
        "nccl_tests_nccl_commit": commits["nccl"],
        "nccl_tests_commit": commits["nccl-tests"],
        "nccl_tests_prefix": str(tmp_path / "prefix"),
        "nccl_tests_cuda_home": str(tmp_path / "cuda"),
        "nccl_tests_mpi_home": str(tmp_path / "mpi"),
        "nccl_tests_manage_packages": False,
        # an account that exists here, left as it is (the role creates its own on real nodes)
        "nccl_tests_run_user": "nobody",
        "nccl_tests_manage_run_user": False,
    }
    return play, variables


@pytest.mark.slow
def test_gpu_path_is_check_mode_safe(tmp_path: Path) -> None:
    """Install/configure/verify of a (simulated) GPU host under --check: no failure, nothing written."""
    play, variables = simulated_gpu_host(tmp_path)
    proc = run_playbook(play, local_inventory(tmp_path), "--check", "-e", json.dumps(variables))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "failed=0" in proc.stdout and "skipped, no NVIDIA GPU" not in proc.stdout
    assert "Install | Fetch nccl-tests at the pinned commit" in proc.stdout
    assert "one-node check skipped" in proc.stdout
    assert not (tmp_path / "prefix").exists()  # check mode wrote nothing


@pytest.mark.slow
def test_gpu_path_builds_verifies_and_is_idempotent(tmp_path: Path) -> None:
    """A real run on the simulated GPU host (stand-in sources), then a second run: changed=0."""
    play, variables = simulated_gpu_host(tmp_path)
    first = run_playbook(play, local_inventory(tmp_path), "-e", json.dumps(variables))
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr
    bin_dir = tmp_path / "prefix" / "src" / "nccl-tests-v2.16.9" / "build"
    assert (bin_dir / "sendrecv_perf").exists()
    assert (
        tmp_path / "prefix" / "src" / "nccl-v2.27.7-1" / "build" / "lib" / "libnccl.so"
    ).exists()
    assert (tmp_path / "prefix" / "run-nccl-tests.sh").exists()
    assert "Avg bus bandwidth    : 42.0" in first.stdout  # the one-node check ran the binary
    second = run_playbook(play, local_inventory(tmp_path), "-e", json.dumps(variables))
    assert second.returncode == 0
    assert "changed=0" in second.stdout.split("PLAY RECAP")[1], second.stdout[-3000:]


@needs_captures
@pytest.mark.slow
def test_benchmark_playbook_end_to_end_on_a_simulated_gpu_host(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """playbooks/benchmark.yml on a simulated GPU host: build (stand-ins), run the collective
    through the launcher script with a stand-in mpirun that prints the real p4d EKS log, fetch
    it to the controller and gate it there with the gpufabric CLI."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("runs nccl-tests as another user: needs root and runuser (util-linux)")
    # the node's side lives where the unprivileged run user can reach it (tmp_path is 0700)
    node = Path(tempfile.mkdtemp(prefix="gf-nccl-", dir="/var/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(node, ignore_errors=True))
    node.chmod(0o755)
    _play, variables = simulated_gpu_host(node)
    log = FIXTURES / "nccl-tests" / "all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"
    mpirun = node / "mpi" / "bin" / "mpirun"
    mpirun.write_text(f"#!/bin/sh\nid -un > {node}/ran-as\ncat {log}\n")
    mpirun.chmod(0o755)
    (node / "hostfile").write_text("node-a slots=8\nnode-b slots=8\n")
    (node / "ran-as").touch(mode=0o666)
    (node / "ran-as").chmod(0o666)
    results = tmp_path / "results"
    variables |= {
        "nccl_tests_hostfile": str(node / "hostfile"),
        "nccl_tests_collectives": ["all_reduce"],
        "nccl_tests_output_dir": str(node / "var" / "nccl-tests"),
        "nccl_tests_run_user": "nobody",
        "nccl_tests_results_dir": str(results),
        "nccl_tests_instance_type": "p4d.24xlarge",
        "nccl_tests_gpufabric": str(BIN / "gpufabric"),
        "nccl_tests_smoke": False,
        "nccl_tests_nodes": 2,  # the log is from 2 nodes; this inventory has one host
    }
    proc = run_playbook(
        REPO / "playbooks" / "benchmark.yml", local_inventory(tmp_path), "-e", json.dumps(variables)
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr
    assert (results / "all_reduce.txt").read_text() == log.read_text()
    # unprivileged, into its own 0700 directory; the launcher stays root's
    assert (node / "ran-as").read_text().strip() == "nobody"
    NOBODY = pwd.getpwnam("nobody").pw_uid
    out_dir = node / "var" / "nccl-tests"
    assert stat.S_IMODE(out_dir.stat().st_mode) == 0o700 and out_dir.stat().st_uid == NOBODY
    assert (out_dir / "all_reduce.txt").stat().st_uid == NOBODY
    script = node / "prefix" / "run-nccl-tests.sh"
    assert script.stat().st_uid == 0 and not script.stat().st_mode & 0o022
    assert "PASS transport   fabric: NCCL used efa, plugin aws-ofi-nccl" in proc.stdout
    assert "gate PASSED for p4d.24xlarge x 2 nodes" in proc.stdout
    assert "PASS bandwidth   all_reduce.txt: all_reduce: peak busbw 43.8 GB/s" in proc.stdout
    assert (results / "report" / "report.html").exists()
