"""Tuning NCCL for a fabric: plan a sweep, run it, pick per-bucket winners.

- sweep        the sweep planner (sweep.yaml: the space and its pruning rules)
- run          runners, per-bucket picks, nccl.conf + tuner CSV
- tunerconf    the example tuner plugin's CSV: writer and validator
"""
