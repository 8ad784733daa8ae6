"""Output formats: Slurm topology.conf / topology.yaml (slurm), launchers' hostfiles (hostfile),
Kubernetes node labels and a Kueue Topology (kubernetes), gpufabric JSON (topology_file)."""
