"""Shared file systems for checkpoints and data loaders: size them, measure them, gate them.

- sizing       a checkpoint goal -> the smallest valid file system on a cloud's steps (each
               cloud package's storage_steps.yaml, with sources)
- network      how fast the nodes reach the file system (per-node NIC capacity x nodes)
- fio / ior    parsers of the benchmark tools' output
- gate         measured figures against the goal and the rated throughput, one line each
"""
