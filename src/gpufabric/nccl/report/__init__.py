"""The NCCL report: a self-contained HTML page with PNG plots (html)."""
