"""Output formats: Slurm topology.conf / topology.yaml, hostfiles, Kubernetes labels, JSON."""
