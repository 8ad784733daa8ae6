"""NCCL: parse nccl-tests output and NCCL_DEBUG=INFO logs, gate the fabric, tune and report.

Pure library (never imports pulumi). Grouped by what the code does:

- model     the parsed shapes (frozen dataclasses), shared by every group
- units     sizes as people read them (8 B, 64 KiB, 1 GiB)
- parse/    nccl-tests text and JSON, NCCL_DEBUG logs, transport detection
- gate/     ceilings, thresholds (with sources) and the pass/warn/fail verdicts, latency
- tune/     sweep planner, runners, tuner-plugin CSV, what NCCL accepts (ncclrules)
- report/   the HTML report
- profiles  the NCCL environment the nodes get, per fabric (profiles.yaml, and each cloud
            package's nccl_profiles.yaml), rendered for the nccl role
"""
