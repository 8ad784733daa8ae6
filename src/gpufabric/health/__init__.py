"""Fabric health: no-traffic checks per host, group bisection with traffic, drain / taint.

checks   step 1: each host's fabric against its instance type and its peers (no traffic)
parsers  the tool output and sysfs files step 1 reads
expect   what a host should have (instance catalog + health.yaml)
judge    step 2: is a group's measured rate good enough (median-based, both directions)
bisect   step 2: which groups to test next, in as few rounds as possible
traffic  step 2: the measuring commands (iperf3 in the lab, nccl-tests on GPU nodes) and their parsers
act      step 3: Slurm drain / resume and Kubernetes taint plans
report   the JSON report and its HTML rendering
"""
