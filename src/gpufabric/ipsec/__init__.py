"""IPsec mesh support: proposal policy, swanctl output parsing, offload decision, cluster CA."""
