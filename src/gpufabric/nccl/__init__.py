"""NCCL: parse nccl-tests output and NCCL_DEBUG=INFO logs, gate the fabric, tune and report.

Pure library (never imports pulumi). Modules:

- model       the parsed shapes (frozen dataclasses)
- lines       launcher prefixes (srun, mpirun, SkyPilot) and NCCL log-line anatomy
- tests_text  nccl-tests text tables (current and legacy formats)
- tests_json  nccl-tests ``-J`` JSON files
- debuglog    NCCL_DEBUG=INFO: version, net plugin, transport, NICs, channels, ranks, tuner
- parse       one entry point: ``parse_text`` / ``parse_file`` -> Capture
- ceilings    line-rate and algorithm-aware bus-bandwidth ceilings
- gate        pass/fail verdicts against thresholds.yaml
- tunerconf   the example tuner plugin's CSV: writer and validator
- tune        sweep planner, runners, per-bucket picks
- report      self-contained HTML report with PNG plots
"""
