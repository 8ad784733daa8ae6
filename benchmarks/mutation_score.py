"""Mutation score of the code users trust most: the NCCL gate, the config rules, the cloud
wiring, the topology order / emit / sources, and every module that reads input or judges a
result (the input layer, storage, health, discovery, inventory, IPsec, each cloud's config,
ids and wiring, NCCL output and tune, node facts, certify, capacity, the boot bundle, secret
stores); tests/unit/test_mutation_groups.py fails when a reader is in no group.

    .venv/bin/python benchmarks/mutation_score.py [GROUP ...] [--children N] [--survivors]
        [--only FILE ...] [--again]

For each group, mutmut (PyPI) runs in its own scratch copy of the project (never in the
worktree) with only the group's modules mutated and only the tests that cover them selected;
then one line per module: killed / all mutants, survivors, mutants no test reaches, timeouts,
and the score. Survivors are listed with `--survivors` (their names work with `mutmut show`
inside the kept scratch folder). Slow (minutes to an hour per group on 2 cores): not in CI.
The figures measured and the survivors judged equivalent: benchmarks/mutation_survivors.md.
`--again` reruns only the kept run's survivors against this checkout's tests (after writing
tests for them), so the score after costs minutes, not the whole run again.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRATCH = Path(os.environ.get("GPUFABRIC_MUTATION_DIR", "/tmp/gpufabric-mutation"))
# what the selected tests read besides src/ and tests/ (the Ansible tests run
# ansible-inventory / ansible-playbook from the copy's root: its ansible.cfg, plugins, plays;
# the secret-store tests read the workflow actions that call them; the certify tests read
# docs/certify.md and validate the scorecard with the CTRF schema `make venv` installs)
EXTRA = [
    "infra", "stacks", "policy", "Pulumi.yaml", "ansible.cfg", "plugins", "playbooks", "roles",
    ".github", "docs", ".venv/ctrf", "permissions",
]  # fmt: skip
COPY = ["src", "tests", *EXTRA, "pyproject.toml"]

# group -> (modules to mutate, tests that cover them)
GROUPS: dict[str, tuple[list[str], list[str]]] = {
    "gate": (
        [
            "src/gpufabric/nccl/gate/verdict.py",
            "src/gpufabric/nccl/gate/fabric.py",
            "src/gpufabric/nccl/gate/thresholds.py",
            "src/gpufabric/nccl/gate/latency.py",
            "src/gpufabric/nccl/parse/strict.py",
            "src/gpufabric/nccl/units.py",
            "src/gpufabric/nccl/gate/ceilings.py",
        ],
        [
            "tests/unit/test_nccl_gate.py",
            "tests/unit/test_nccl_gate_edges.py",
            "tests/unit/test_nccl_ceilings.py",
            "tests/unit/test_nccl_fabric_verdicts.py",
            "tests/unit/test_nccl_strict_problems.py",
            "tests/unit/test_nccl_units.py",
            "tests/unit/test_nccl_strict.py",
            "tests/unit/test_nccl_thresholds.py",
            "tests/unit/test_gate_golden.py",
            "tests/unit/test_nccl_fabric_data.py",
        ],
    ),
    "config": (
        [
            "src/gpufabric/config/validate.py",
            "src/gpufabric/clouds/aws/rules.py",
            "src/gpufabric/config/stack_reader.py",
            "src/gpufabric/config/base.py",
            "src/gpufabric/config/load.py",
            "src/gpufabric/plan/project.py",
            "src/gpufabric/clouds/nebius/fabrics.py",
            "src/gpufabric/config/model.py",
        ],
        [
            "tests/unit/test_config_aws.py",
            "tests/unit/test_config_gcp.py",
            "tests/unit/test_config_azure.py",
            "tests/unit/test_config_nebius.py",
            "tests/unit/test_config_secrets.py",
            "tests/unit/test_stack_file.py",
            "tests/unit/test_config_golden.py",
            "tests/unit/test_config_root_key.py",
            "tests/unit/test_config_validate.py",
            "tests/unit/test_config_stack_reader.py",
            "tests/unit/test_config_base.py",
            "tests/unit/test_config_load.py",
            "tests/unit/test_plan_project.py",
            "tests/unit/test_nebius_fabrics.py",
            "tests/unit/test_capacity_config.py",
            "tests/unit/test_config_oci.py",
            "tests/unit/test_config_gcp_edges.py",
            "tests/unit/test_config_azure_edges.py",
            "tests/unit/test_config_oci_edges.py",
            "tests/unit/test_config_nebius_edges.py",
            "tests/unit/test_config_settings_edges.py",
            "tests/unit/test_config_mount_points.py",
            "tests/unit/test_config_goal_tiers.py",
            "tests/unit/test_config_aws_rules.py",
            "tests/unit/test_rules_records.py",
        ],
    ),
    "cloud": (
        [
            "src/gpufabric/clouds/aws/nodes.py",
            "src/gpufabric/clouds/aws/storage.py",
            "src/gpufabric/clouds/oci/nodes.py",
            "src/gpufabric/clouds/nebius/nodes.py",
            "src/gpufabric/clouds/gcp/nodes.py",
            "src/gpufabric/clouds/azure/nodes.py",
            "src/gpufabric/clouds/aws/network.py",
            "src/gpufabric/clouds/gcp/network.py",
            "src/gpufabric/clouds/azure/network.py",
            "src/gpufabric/clouds/oci/network.py",
            "src/gpufabric/clouds/gcp/storage.py",
            "src/gpufabric/clouds/azure/storage.py",
            "src/gpufabric/clouds/oci/storage.py",
            "src/gpufabric/clouds/gcp/placement.py",
            "src/gpufabric/clouds/gcp/roce.py",
            "src/gpufabric/clouds/azure/partitions.py",
            "src/gpufabric/clouds/oci/security.py",
            "src/gpufabric/clouds/nebius/security.py",
        ],
        [
            "tests/pulumi/test_aws_plan.py",
            "tests/pulumi/test_golden_plans.py",
            "tests/pulumi/test_aws_plan_choices.py",
            "tests/pulumi/test_root_squash.py",
            "tests/pulumi/test_boot_plan.py",
            "tests/pulumi/test_user_data_secret.py",
            "tests/unit/test_cluster_wiring.py",
            "tests/pulumi/test_oci_plan.py",
            "tests/pulumi/test_nebius_plan.py",
            "tests/unit/test_cluster_wiring_azure_nebius.py",
            "tests/unit/test_inputs_cloud_writers.py",
            "tests/pulumi/test_gcp_plan.py",
            "tests/pulumi/test_azure_plan.py",
            "tests/pulumi/test_network_paths.py",
            "tests/pulumi/test_storage_plan.py",
            "tests/pulumi/test_flow_logs.py",
            "tests/pulumi/test_least_exposure.py",
            "tests/pulumi/test_plan_width.py",
            "tests/pulumi/test_plan_scale.py",
            "tests/pulumi/test_azure_network_storage_plan.py",
            "tests/pulumi/test_gcp_storage_plan.py",
            "tests/pulumi/test_oci_storage_plan.py",
            "tests/pulumi/test_gcp_roce_placement_plan.py",
            "tests/pulumi/test_oci_network_security_plan.py",
            "tests/pulumi/test_gcp_nodes_plan.py",
            "tests/unit/test_azure_partitions.py",
            "tests/pulumi/test_aws_network_plan.py",
            "tests/pulumi/test_gcp_network_plan.py",
            "tests/pulumi/test_azure_nodes_plan.py",
        ],
    ),
    "topology": (
        [
            "src/gpufabric/topology/order.py",
            "src/gpufabric/topology/model.py",
            "src/gpufabric/topology/emit/slurm.py",
            "src/gpufabric/topology/emit/hostfile.py",
            "src/gpufabric/topology/emit/kubernetes.py",
            "src/gpufabric/topology/emit/topology_file.py",
            "src/gpufabric/topology/emit/names.py",
            "src/gpufabric/clouds/aws/topology.py",
            "src/gpufabric/topology/hostlist.py",
            "src/gpufabric/topology/score.py",
            "src/gpufabric/topology/parallel.py",
        ],
        [
            "tests/unit/test_topology_order.py",
            "tests/unit/test_topology_emit.py",
            "tests/unit/test_topology_sources.py",
            "tests/unit/test_topology_strict.py",
            "tests/unit/test_topology_golden.py",
            "tests/unit/test_topology_writers.py",
            "tests/unit/test_topology_score.py",
            "tests/unit/test_rules_records.py",
        ],
    ),
    # where a node's place in the network is read from: files, ibnetdiscover, cloud metadata
    "topology-sources": (
        [
            "src/gpufabric/topology/load.py",
            "src/gpufabric/topology/files.py",
            "src/gpufabric/topology/sources/file.py",
            "src/gpufabric/topology/sources/ib.py",
            "src/gpufabric/clouds/oci/topology.py",
            "src/gpufabric/clouds/nebius/topology.py",
            "src/gpufabric/clouds/gcp/topology.py",
        ],
        [
            "tests/unit/test_topology_sources.py",
            "tests/unit/test_topology_sources_list.py",
            "tests/unit/test_topology_strict.py",
            "tests/unit/test_topology_silent_loss.py",
            "tests/unit/test_topology_oci.py",
            "tests/unit/test_topology_nebius.py",
            "tests/unit/test_topology_cli.py",
            "tests/unit/test_topology_file_source.py",
            "tests/unit/test_topology_files.py",
            "tests/unit/test_topology_load.py",
            "tests/unit/test_topology_oci_edges.py",
            "tests/unit/test_topology_nebius_edges.py",
            "tests/unit/test_topology_ib.py",
            "tests/unit/test_topology_gcp.py",
        ],
    ),
    # nccl-tests output and NCCL's own log, as the gate, the report and tune read them
    "nccl-parse": (
        [
            "src/gpufabric/nccl/parse/capture.py",
            "src/gpufabric/nccl/parse/debuglog.py",
            "src/gpufabric/nccl/parse/lines.py",
            "src/gpufabric/nccl/parse/tests_json.py",
            "src/gpufabric/nccl/parse/tests_text.py",
            "src/gpufabric/nccl/parse/transport.py",
            "src/gpufabric/nccl/model.py",
        ],
        [
            "tests/unit/test_nccl_parse.py",
            "tests/unit/test_nccl_json.py",
            "tests/unit/test_nccl_strict.py",
            "tests/unit/test_nccl_version_header.py",
            "tests/unit/test_nccl_library_boundary.py",
            "tests/unit/test_nccl_fabric_data.py",
            "tests/unit/test_nccl_parse_edges.py",
            "tests/unit/test_nccl_gate.py",
            "tests/unit/test_nccl_report_page.py",
            "tests/unit/test_rules_records.py",
        ],
    ),
    # the tune sweep, its saved state and the pick it judges from
    "nccl-tune": (
        [
            "src/gpufabric/nccl/tune/run.py",
            "src/gpufabric/nccl/tune/sweep.py",
            "src/gpufabric/nccl/tune/ncclrules.py",
            "src/gpufabric/nccl/tune/tunerconf.py",
            "src/gpufabric/nccl/report/tunefile.py",
        ],
        [
            "tests/unit/test_nccl_tune.py",
            "tests/unit/test_nccl_tune_resume.py",
            "tests/unit/test_nccl_tune_sweep.py",
            "tests/unit/test_nccl_tune_pick.py",
            "tests/unit/test_nccl_tuner_conf.py",
            "tests/unit/test_nccl_report.py",
        ],
    ),
    # what a node reports about itself, read by the fabric roles' decisions
    "facts": (
        [
            "src/gpufabric/facts/host.py",
            "src/gpufabric/facts/ip_link.py",
            "src/gpufabric/facts/ibstat.py",
            "src/gpufabric/facts/ibv_devinfo.py",
            "src/gpufabric/facts/fi_info.py",
            "src/gpufabric/facts/nvidia_smi_topo.py",
            "src/gpufabric/facts/sysctl.py",
            "src/gpufabric/facts/cloud_nics.py",
            "src/gpufabric/facts/decisions.py",
            "src/gpufabric/facts/report.py",
            "src/gpufabric/facts/gpg.py",
            "src/gpufabric/facts/models.py",
            "src/gpufabric/vocabulary.py",
        ],
        [
            "tests/unit/test_facts_host.py",
            "tests/unit/test_facts_parsers.py",
            "tests/unit/test_facts_sysctl.py",
            "tests/unit/test_facts_cloud_nics.py",
            "tests/unit/test_facts_strict.py",
            "tests/unit/test_facts_decisions.py",
            "tests/unit/test_fabric_traits.py",
            "tests/roles/test_filters.py",
            "tests/unit/test_supply_chain_pins.py",
            "tests/unit/test_config_aws.py",
            "tests/unit/test_rules_records.py",
        ],
    ),
    # gpufabric certify: the stages, their limits and the scorecard it judges from
    "certify": (
        [
            "src/gpufabric/certify/stages.py",
            "src/gpufabric/certify/limits.py",
            "src/gpufabric/certify/run.py",
            "src/gpufabric/certify/hosts.py",
            "src/gpufabric/certify/storage.py",
            "src/gpufabric/certify/collect_node.py",
            "src/gpufabric/certify/scorecard.py",
            "src/gpufabric/certify/clustermax.py",
        ],
        [
            "tests/unit/test_certify_run.py",
            "tests/unit/test_certify_cli.py",
            "tests/unit/test_certify_efficiency.py",
            "tests/unit/test_certify_nccl_conf.py",
            "tests/unit/test_certify_storage.py",
            "tests/unit/test_certify_stages.py",
            "tests/unit/test_certify_limits.py",
            "tests/unit/test_certify_flow.py",
            "tests/unit/test_certify_hosts.py",
            "tests/unit/test_certify_clustermax.py",
            "tests/unit/test_certify_scorecard.py",
            "tests/unit/test_certify_storage_stage.py",
            "tests/unit/test_certify_collect_node.py",
        ],
    ),
    # capacity position before launch: each cloud's answers read, the choice judged
    "capacity": (
        [
            "src/gpufabric/capacity/check.py",
            "src/gpufabric/capacity/choose.py",
            "src/gpufabric/capacity/landed.py",
            "src/gpufabric/capacity/model.py",
            "src/gpufabric/capacity/stackwrite.py",
            "src/gpufabric/clouds/gcp/capacity.py",
            "src/gpufabric/clouds/gcp/faulty.py",
            "src/gpufabric/clouds/aws/capacity.py",
            "src/gpufabric/clouds/oci/capacity.py",
        ],
        [
            "tests/unit/test_capacity_check.py",
            "tests/unit/test_capacity_choose.py",
            "tests/unit/test_capacity_config.py",
            "tests/unit/test_capacity_faulty.py",
            "tests/unit/test_capacity_landed.py",
            "tests/unit/test_capacity_readers.py",
            "tests/unit/test_cli_capacity.py",
            "tests/unit/test_capacity_oci_live.py",
            "tests/unit/test_capacity_model.py",
            "tests/unit/test_capacity_stackwrite.py",
            "tests/unit/test_capacity_landed_sources.py",
            "tests/unit/test_capacity_gcp.py",
            "tests/unit/test_capacity_aws.py",
            "tests/unit/test_capacity_oci.py",
        ],
    ),
    # the boot bundle and its user data, and the day-2 fan-out command lines
    "bundle": (
        [
            "src/gpufabric/bundle/render.py",
            "src/gpufabric/bundle/userdata.py",
            "src/gpufabric/bundle/boot.py",
            "src/gpufabric/bundle/fanout.py",
        ],
        [
            "tests/unit/test_bundle.py",
            "tests/unit/test_bundle_auth.py",
            "tests/unit/test_bundle_fanout.py",
            "tests/unit/test_bundle_userdata.py",
            "tests/unit/test_bundle_boot.py",
            "tests/unit/test_bundle_boot_steps.py",
            "tests/unit/test_bundle_render.py",
        ],
    ),
    # host keys and the IPsec CA's stores in each cloud's secret service
    "secrets": (
        [
            "src/gpufabric/hostkeys.py",
            "src/gpufabric/clouds/oci/secret.py",
            "src/gpufabric/clouds/nebius/secret.py",
        ],
        [
            "tests/unit/test_hostkeys.py",
            "tests/unit/test_oci_secret_store.py",
            "tests/unit/test_nebius_secret_store.py",
        ],
    ),
    # each cloud's id formats (OCIDs, AWS ids, self links, resource ids), typed at the boundary
    "cloud-ids": (
        [
            "src/gpufabric/clouds/aws/ids.py",
            "src/gpufabric/clouds/gcp/ids.py",
            "src/gpufabric/clouds/azure/ids.py",
            "src/gpufabric/clouds/oci/ids.py",
            "src/gpufabric/clouds/nebius/ids.py",
        ],
        [
            "tests/unit/test_config_aws.py",
            "tests/unit/test_config_gcp.py",
            "tests/unit/test_config_azure.py",
            "tests/unit/test_config_oci.py",
            "tests/unit/test_config_nebius.py",
            "tests/unit/test_discovery_oci.py",
            "tests/unit/test_discovery_nebius.py",
            "tests/unit/test_cloud_ids.py",
        ],
    ),
    # the boundary every input crosses: file limits, strict formats, typed values, writers
    "inputs": (
        [
            "src/gpufabric/inputs/errors.py",
            "src/gpufabric/inputs/files.py",
            "src/gpufabric/inputs/formats.py",
            "src/gpufabric/inputs/models.py",
            "src/gpufabric/inputs/packaged.py",
            "src/gpufabric/inputs/types.py",
            "src/gpufabric/inputs/writers.py",
            "src/gpufabric/inputs/yaml12.py",
        ],
        [
            "tests/unit/test_inputs_files.py",
            "tests/unit/test_inputs_files_messages.py",
            "tests/unit/test_inputs_formats.py",
            "tests/unit/test_inputs_types.py",
            "tests/unit/test_inputs_writers.py",
            "tests/unit/test_inputs_cloud_writers.py",
            "tests/unit/test_inputs_types_messages.py",
            "tests/unit/test_inputs_loaders.py",
            "tests/unit/test_inputs_tables_errors.py",
            "tests/unit/test_inputs_yaml12.py",
            "tests/unit/test_inputs_models.py",
        ],
    ),
    "storage": (
        [
            "src/gpufabric/storage/fio.py",
            "src/gpufabric/storage/ior.py",
            "src/gpufabric/storage/results.py",
            "src/gpufabric/storage/gate.py",
            "src/gpufabric/storage/report.py",
            "src/gpufabric/storage/sizing.py",
            "src/gpufabric/storage/network.py",
        ],
        [
            "tests/unit/test_storage_bench.py",
            "tests/unit/test_storage_fio_errors.py",
            "tests/unit/test_storage_gate_lines.py",
            "tests/unit/test_storage_goal.py",
            "tests/unit/test_storage_ior_errors.py",
            "tests/unit/test_storage_real_versions.py",
            "tests/unit/test_storage_results_dir.py",
            "tests/unit/test_storage_report.py",
            "tests/unit/test_storage_sizing.py",
            "tests/unit/test_storage_verdicts.py",
        ],
    ),
    "health": (
        [
            "src/gpufabric/health/parsers.py",
            "src/gpufabric/health/judge.py",
            "src/gpufabric/health/expect.py",
            "src/gpufabric/health/checks.py",
            "src/gpufabric/health/report.py",
            "src/gpufabric/health/act.py",
            "src/gpufabric/health/bisect.py",
            "src/gpufabric/health/traffic.py",
            "src/gpufabric/health/sim.py",
        ],
        [
            "tests/unit/test_health_checks.py",
            "tests/unit/test_health_checks_fabrics.py",
            "tests/unit/test_health_act_report.py",
            "tests/unit/test_health_bisect.py",
            "tests/unit/test_health_bisect_state.py",
            "tests/unit/test_health_cli.py",
            "tests/unit/test_health_iperf3_versions.py",
            "tests/unit/test_health_ipsec.py",
            "tests/unit/test_health_judge.py",
            "tests/unit/test_health_parsers.py",
            "tests/unit/test_health_report.py",
            "tests/unit/test_health_act.py",
            "tests/unit/test_health_sim.py",
            "tests/unit/test_health_traffic.py",
        ],
    ),
    "discovery": (
        [
            "src/gpufabric/discovery/__init__.py",
            "src/gpufabric/clouds/aws/discovery.py",
            "src/gpufabric/clouds/gcp/discovery.py",
            "src/gpufabric/clouds/azure/discovery.py",
            "src/gpufabric/clouds/oci/discovery.py",
            "src/gpufabric/clouds/nebius/discovery.py",
        ],
        [
            "tests/unit/test_discovery_garbage.py",
            "tests/unit/test_discovery_core.py",
            "tests/unit/test_discovery_aws.py",
            "tests/unit/test_discovery_gcp.py",
            "tests/unit/test_discovery_azure.py",
            "tests/unit/test_discovery_oci_match.py",
            "tests/unit/test_discovery_nebius_match.py",
            "tests/unit/test_discovery_network.py",
            "tests/unit/test_discovery_scale.py",
            "tests/unit/test_discovery_oci.py",
            "tests/unit/test_discovery_nebius.py",
            "tests/unit/test_discovery_oci_live.py",
            "tests/unit/test_discovery_nebius_live.py",
            "tests/unit/test_inventory.py",
        ],
    ),
    "inventory": (
        [
            "src/gpufabric/inventory/build.py",
            "src/gpufabric/inventory/outputs.py",
            "src/gpufabric/stack_outputs.py",
        ],
        [
            "tests/unit/test_inventory.py",
            "tests/unit/test_inventory_stacks.py",
            "tests/unit/test_stack_outputs.py",
            "tests/unit/test_inventory_build.py",
            "tests/unit/test_inventory_outputs.py",
            "tests/unit/test_stack_outputs_build.py",
        ],
    ),
    "ipsec": (
        [
            "src/gpufabric/ipsec/ca.py",
            "src/gpufabric/ipsec/capture.py",
            "src/gpufabric/ipsec/certs.py",
            "src/gpufabric/ipsec/crl.py",
            "src/gpufabric/ipsec/keyfile.py",
            "src/gpufabric/ipsec/members.py",
            "src/gpufabric/ipsec/offload.py",
            "src/gpufabric/ipsec/proposals.py",
            "src/gpufabric/ipsec/swanctl.py",
        ],
        [
            "tests/unit/test_ipsec_ca_cli.py",
            "tests/unit/test_ipsec_ca_key.py",
            "tests/unit/test_ipsec_certs.py",
            "tests/unit/test_ipsec_crl.py",
            "tests/unit/test_ipsec_members.py",
            "tests/unit/test_ipsec_offload.py",
            "tests/unit/test_ipsec_lib.py",
            "tests/unit/test_ipsec_parsers.py",
            "tests/unit/test_ipsec_security.py",
            "tests/unit/test_health_ipsec.py",
        ],
    ),
    # each cloud's config: its settings model and its rules (aws/rules.py is in "config")
    "clouds-config": (
        [
            "src/gpufabric/clouds/aws/settings.py",
            "src/gpufabric/clouds/gcp/settings.py",
            "src/gpufabric/clouds/gcp/rules.py",
            "src/gpufabric/clouds/azure/settings.py",
            "src/gpufabric/clouds/azure/rules.py",
            "src/gpufabric/clouds/oci/settings.py",
            "src/gpufabric/clouds/oci/rules.py",
            "src/gpufabric/clouds/nebius/settings.py",
            "src/gpufabric/clouds/nebius/rules.py",
        ],
        [
            "tests/unit/test_config_aws.py",
            "tests/unit/test_config_gcp.py",
            "tests/unit/test_config_azure.py",
            "tests/unit/test_config_oci.py",
            "tests/unit/test_config_nebius.py",
            "tests/unit/test_config_mount_points.py",
            "tests/unit/test_stack_file.py",
            "tests/unit/test_config_golden.py",
            "tests/unit/test_config_gcp_edges.py",
            "tests/unit/test_config_azure_edges.py",
            "tests/unit/test_config_oci_edges.py",
            "tests/unit/test_config_nebius_edges.py",
            "tests/unit/test_config_goal_tiers.py",
            "tests/unit/test_config_settings_edges.py",
        ],
    ),
    # each cloud's wiring: the catalog's wiring block typed (facts) and the cluster it builds
    "clouds-wiring": (
        [
            "src/gpufabric/clouds/aws/facts.py",
            "src/gpufabric/clouds/gcp/facts.py",
            "src/gpufabric/clouds/azure/facts.py",
            "src/gpufabric/clouds/oci/facts.py",
            "src/gpufabric/clouds/nebius/facts.py",
            "src/gpufabric/clouds/aws/cluster.py",
            "src/gpufabric/clouds/gcp/cluster.py",
            "src/gpufabric/clouds/azure/cluster.py",
            "src/gpufabric/clouds/oci/cluster.py",
            "src/gpufabric/clouds/nebius/cluster.py",
        ],
        [
            "tests/unit/test_catalog.py",
            "tests/unit/test_cloud_facts.py",
            "tests/pulumi/test_aws_plan.py",
            "tests/pulumi/test_gcp_plan.py",
            "tests/pulumi/test_azure_plan.py",
            "tests/pulumi/test_oci_plan.py",
            "tests/pulumi/test_nebius_plan.py",
            "tests/pulumi/test_golden_plans.py",
            "tests/unit/test_cluster_wiring.py",
            "tests/pulumi/test_boot_plan.py",
            "tests/unit/test_cluster_wiring_azure_nebius.py",
        ],
    ),
    # the RoCE QoS and GID readers of a node's own tools' output and the QoS plan
    "qos": (
        [
            "src/gpufabric/qos/mlnx_qos.py",
            "src/gpufabric/qos/gids.py",
            "src/gpufabric/qos/plan.py",
        ],
        [
            "tests/unit/test_qos_mlnx_qos.py",
            "tests/roles/test_qos_role_filters.py",
            "tests/roles/test_filters.py",
            "tests/unit/test_facts_decisions.py",
            "tests/unit/test_qos_parsers_and_plan.py",
        ],
    ),
    # the offline policies that judge a plan, and each cloud's rules of them
    "policies": (
        [
            "src/gpufabric/policies/model.py",
            "src/gpufabric/policies/pack.py",
            "src/gpufabric/policies/registry.py",
            "src/gpufabric/policies/offline.py",
            "src/gpufabric/policies/cloud.py",
            "src/gpufabric/policies/network.py",
            "src/gpufabric/policies/nodes.py",
            "src/gpufabric/policies/ingress.py",
            "src/gpufabric/policies/storage.py",
            "src/gpufabric/policies/transit.py",
            "src/gpufabric/policies/placement.py",
            "src/gpufabric/clouds/aws/policy.py",
            "src/gpufabric/clouds/aws/efa_policy.py",
            "src/gpufabric/clouds/gcp/policy.py",
            "src/gpufabric/clouds/gcp/network_policy.py",
            "src/gpufabric/clouds/azure/policy.py",
            "src/gpufabric/clouds/oci/policy.py",
            "src/gpufabric/clouds/nebius/policy.py",
        ],
        [
            "tests/policy/test_applies.py",
            "tests/policy/test_ingress.py",
            "tests/policy/test_network.py",
            "tests/policy/test_nodes.py",
            "tests/policy/test_pack.py",
            "tests/policy/test_placement.py",
            "tests/policy/test_real_plans.py",
            "tests/policy/test_scale.py",
            "tests/policy/test_storage.py",
            "tests/policy/test_transit.py",
            "tests/unit/test_stack_outputs.py",
            "tests/policy/test_cloud_readers.py",
            "tests/policy/test_aws_policy.py",
            "tests/policy/test_policy_core.py",
            "tests/policy/test_policy_rules.py",
        ],
    ),
    # what two clouds' live APIs answer, and the token that asks them
    "clouds-live": (
        [
            "src/gpufabric/clouds/oci/live.py",
            "src/gpufabric/clouds/nebius/live.py",
            "src/gpufabric/clouds/nebius/token.py",
            "src/gpufabric/clouds/aws/efa.py",
        ],
        [
            "tests/unit/test_capacity_oci_live.py",
            "tests/unit/test_discovery_oci_live.py",
            "tests/unit/test_discovery_nebius_live.py",
            "tests/unit/test_nebius_token.py",
            "tests/unit/test_catalog.py",
            "tests/unit/test_live_clients_edges.py",
        ],
    ),
    # boot mode's Pulumi wiring: each cloud's private bucket, its reader and the user data
    # what every cloud's component shares: the clouds' registry, the outputs kept secret,
    # the instance type checked (their own fast tests: the plans run every registry mutant)
    "clouds-core": (
        [
            "src/gpufabric/clouds/outputs.py",
            "src/gpufabric/clouds/registry.py",
        ],
        [
            "tests/unit/test_config_secrets.py",
            "tests/unit/test_cloud_registry.py",
            "tests/unit/test_cloud_packages.py",
            "tests/unit/test_sixth_cloud.py",
            "tests/unit/test_catalog.py",
            "tests/unit/test_cluster_wiring.py",
            "tests/unit/test_cluster_wiring_azure_nebius.py",
            "tests/unit/test_cloud_facts.py",
        ],
    ),
    "clouds-boot": (
        [
            "src/gpufabric/clouds/boot.py",
            "src/gpufabric/clouds/aws/bundle.py",
            "src/gpufabric/clouds/gcp/bundle.py",
            "src/gpufabric/clouds/azure/bundle.py",
            "src/gpufabric/clouds/oci/bundle.py",
        ],
        [
            "tests/pulumi/test_boot_plan.py",
            "tests/unit/test_permissions_boot.py",
            "tests/pulumi/test_user_data_secret.py",
            "tests/unit/test_cluster_wiring.py",
            "tests/pulumi/test_boot_wiring.py",
        ],
    ),
    # what a user reads as the verdict: the NCCL report page and summary, the storage goal
    "report": (
        [
            "src/gpufabric/nccl/report/html.py",
            "src/gpufabric/nccl/report/summary.py",
            "src/gpufabric/config/storage_goal.py",
        ],
        [
            "tests/unit/test_nccl_report.py",
            "tests/unit/test_nccl_report_order.py",
            "tests/unit/test_storage_goal.py",
            "tests/unit/test_config_goal_tiers.py",
            "tests/unit/test_nccl_report_page.py",
            "tests/unit/test_storage_goal_lines.py",
        ],
    ),
}

KILLED = {"killed", "timeout", "caught by type check"}
_RESULT = re.compile(r"^\s*(\S+)__mutmut_\d+: (.+)$")


def _workspace(group: str, modules: list[str], tests: list[str]) -> Path:
    work = SCRATCH / group
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in COPY:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, work / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.is_file():
            shutil.copy2(src, work / name)
    only = ", ".join(f'"{m}"' for m in modules)
    selection = ", ".join(f'"{t}"' for t in [*tests, "-m", "not lab", "-p", "no:cacheprovider"])
    with (work / "pyproject.toml").open("a") as fh:
        fh.write(
            "\n[tool.mutmut]\n"
            'source_paths = ["src"]\n'
            f"only_mutate = [{only}]\n"
            f"pytest_add_cli_args_test_selection = [{selection}]\n"
            f"also_copy = {json.dumps(EXTRA)}\n"
            # mutmut's wall limit is 15 x (the tests' own time + this): their import and
            # collection time is not in it, so on a loaded machine a mutant whose tests take a
            # second "timed out" while they were still loading (pulumi's providers)
            "timeout_constant = 10.0\n"
            # mutmut's default forks each mutant from the process that ran the clean tests: a
            # Pulumi plan there leaves an event loop whose executor threads the fork lost, and
            # every plan test of a mutant then waits for them until the timeout; a fork server
            # that only collected the tests forks clean children
            'process_isolation = "forkserver"\n'
        )
    return work


def _run(group: str, children: int, only: list[str]) -> dict[str, Counter[str]]:
    modules, tests = GROUPS[group]
    if only:
        modules = [m for m in modules if any(m.endswith(o) for o in only)]
    work = _workspace(group, modules, tests)
    return _mutmut(work, [], children)


def _again(group: str, children: int) -> dict[str, Counter[str]]:
    """Rerun only the kept run's survivors (and mutants no test reached) with this checkout's
    tests: the others were killed by a subset of today's tests. Refused when a mutated module
    changed since that run, since its mutants would then be stale; the other modules are taken
    from this checkout."""
    work = SCRATCH / group
    results = work / "results.txt"
    if not results.is_file():
        sys.exit(f"error: no kept run of {group} in {work}: run it without --again first")
    mutated = re.search(r"^only_mutate = \[(.*)\]$", (work / "pyproject.toml").read_text(), re.M)
    assert mutated, work / "pyproject.toml"
    modules = re.findall(r'"([^"]+)"', mutated[1])
    for module in modules:
        if (REPO / module).read_bytes() != (work / module).read_bytes():
            sys.exit(f"error: {module} changed since the kept run: rerun without --again")
    # the modules not mutated are taken as they are now (mutmut copies them into mutants/ on
    # each run): the new tests may need a fix made since in another module
    for path in (REPO / "src").rglob("*"):
        rel = path.relative_to(REPO).as_posix()
        if path.is_file() and "__pycache__" not in path.parts and rel not in modules:
            dest = work / rel
            if not dest.is_file() or dest.read_bytes() != path.read_bytes():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)
    selection = ", ".join(
        f'"{t}"' for t in [*GROUPS[group][1], "-m", "not lab", "-p", "no:cacheprovider"]
    )
    pyproject = work / "pyproject.toml"
    pyproject.write_text(
        re.sub(
            r"^pytest_add_cli_args_test_selection = .*$",
            lambda _: f"pytest_add_cli_args_test_selection = [{selection}]",
            pyproject.read_text(),
            flags=re.M,
        )
    )
    for name in ["tests", *EXTRA]:
        src = REPO / name
        if src.is_dir():
            shutil.rmtree(work / name, ignore_errors=True)
            shutil.copytree(src, work / name, ignore=shutil.ignore_patterns("__pycache__"))
            shutil.rmtree(work / "mutants" / name, ignore_errors=True)
    # mutmut marks the mutants not rerun "not checked" once the tests changed: those the
    # kept run killed keep that status (else the score after would count them as missed)
    kept = dict(filter(None, map(_status, results.read_text().splitlines())))
    # "not checked" in the kept run: a run stopped before it reached them resumes here
    again = ("survived", "no tests", "not checked")
    names = [name for name, status in kept.items() if status in again]
    return _mutmut(work, names or None, children, kept)


def _status(line: str) -> tuple[str, str] | None:
    """'  NAME: STATUS' of `mutmut results` -> (NAME, STATUS); None for another line."""
    name, sep, status = line.strip().partition(": ")
    return (name, status) if sep and "__mutmut_" in name else None


def _mutmut(
    work: Path, names: list[str] | None, children: int = 1, kept: dict[str, str] | None = None
) -> dict[str, Counter[str]]:
    """Run mutmut in `work` (all mutants, or only `names`; None: none, read the results);
    `kept`: an earlier run's statuses, kept for the mutants this run did not check."""
    mutmut = Path(sys.executable).parent / "mutmut"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # the copy's tests read the real captures where this checkout's tests do
    sys.path.insert(0, str(REPO))
    from tests.conftest import FIXTURES, REALCLIENTS

    env.setdefault("GPUFABRIC_FIXTURES", str(FIXTURES.resolve()))
    env.setdefault("GPUFABRIC_REALCLIENTS", str(REALCLIENTS.resolve()))
    if names is not None:
        with (work / "mutmut-run.log").open("a" if names else "w") as fh:
            subprocess.run(
                [str(mutmut), "run", "--max-children", str(children), *names],
                cwd=work,
                env=env,
                stdout=fh,
                stderr=subprocess.STDOUT,
                check=False,
            )
    done = subprocess.run(
        [str(mutmut), "results", "--all", "true"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    lines = []
    for line in done.stdout.splitlines():
        m = _RESULT.match(line)
        if m:
            name, status = line.strip().rsplit(": ", 1)
            if status == "not checked" and (kept or {}).get(name, "") in KILLED:
                status = (kept or {})[name]
                line = f"    {name}: {status}"
            by_module[_module_of(m[1])][status] += 1
        lines.append(line)
    (work / "results.txt").write_text("\n".join(lines) + "\n")
    return by_module


def _module_of(key: str) -> str:
    """'gpufabric.nccl.gate.verdict.x_gate' (or '...xǁClassǁmethod') -> the module."""
    parts = key.split(".")
    cut = max(i for i, p in enumerate(parts) if p.startswith(("x_", "x\u01c1")))
    return ".".join(parts[:cut])


def main() -> int:
    parser = argparse.ArgumentParser(description="Mutation score per module (mutmut).")
    parser.add_argument("groups", nargs="*", help=f"some of: {', '.join(GROUPS)} (default: all)")
    parser.add_argument("--children", type=int, default=1, help="mutmut --max-children")
    parser.add_argument("--survivors", action="store_true", help="list surviving mutants")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="FILE",
        help="mutate only the group's modules whose path ends with FILE (repeatable)",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="rerun only the kept run's survivors with this checkout's tests (sources unchanged)",
    )
    args = parser.parse_args()
    unknown = [g for g in args.groups if g not in GROUPS]
    if unknown:
        parser.error(f"unknown group {unknown[0]!r}; choose from {', '.join(GROUPS)}")
    for o in args.only:
        if not any(m.endswith(o) for g in args.groups or GROUPS for m in GROUPS[g][0]):
            parser.error(f"--only {o!r} names no module of the groups asked for")
    failed = False
    for group in args.groups or list(GROUPS):
        counts = (
            _again(group, args.children) if args.again else _run(group, args.children, args.only)
        )
        if not counts:
            print(f"{group}: no results (see {SCRATCH / group / 'mutmut-run.log'})")
            failed = True
            continue
        for module, c in sorted(counts.items()):
            total = sum(c.values())
            killed = sum(n for status, n in c.items() if status in KILLED)
            score = killed / total if total else 0.0
            print(
                f"{group:9} {module:45} {killed:4}/{total:<4} killed  "
                f"survived {c['survived']:3}  no tests {c['no tests']:3}  "
                f"timeout {c['timeout']:3}  score {score:6.1%}"
            )
            failed = failed or score < 0.90
        if args.survivors:
            for line in (SCRATCH / group / "results.txt").read_text().splitlines():
                if line.strip().endswith(("survived", "no tests")):
                    print(f"  {line.strip()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
