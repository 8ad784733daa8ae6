"""Reading NCCL output: nccl-tests tables (text and ``-J`` JSON) and NCCL_DEBUG=INFO logs.

- lines        launcher prefixes (srun, mpirun, SkyPilot) and NCCL log-line anatomy
- tests_text   nccl-tests text tables (current and legacy formats)
- tests_json   nccl-tests ``-J`` JSON files
- debuglog     NCCL_DEBUG=INFO: version, net plugin, NICs, channels, ranks, tuner
- transport    which transport carried inter-node traffic (efa, ib, roce, socket, ...)
- strict       what makes a parsed table unfit to judge (NaN, no rows, unread rows, ...)
- capture      one entry point: ``parse_text`` / ``parse_file`` -> Capture
"""
