"""NCCL: parse nccl-tests output and NCCL_DEBUG=INFO logs, gate the fabric, tune and report.

Pure library (never imports pulumi). Modules:

- model        the parsed shapes (frozen dataclasses)
- lines        launcher prefixes (srun, mpirun, SkyPilot) and NCCL log-line anatomy
- tests_text   nccl-tests text tables (current and legacy formats)
- tests_json   nccl-tests ``-J`` JSON files
- debuglog     NCCL_DEBUG=INFO: version, net plugin, NICs, channels, ranks, tuner
- transport    which transport carried inter-node traffic (efa, ib, roce, socket, ...)
- parse        one entry point: ``parse_text`` / ``parse_file`` -> Capture
- ceilings     line-rate and algorithm-aware bus-bandwidth ceilings
- thresholds   thresholds.yaml (the gate's numbers, with sources)
- gate, gate_fabric   pass/warn/fail verdicts, one line each
- tunerconf    the example tuner plugin's CSV: writer and validator
- sweep, tune  sweep planner (sweep.yaml), runners, per-bucket picks, nccl.conf + tuner CSV
- report       self-contained HTML report with PNG plots
- profiles     NCCL environment per fabric for the nccl role (profiles.yaml; separate owner)
"""
