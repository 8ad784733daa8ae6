"""Judging a capture: pass / warn / fail verdicts, one line each.

- ceilings     line-rate and algorithm-aware bus-bandwidth ceilings
- thresholds   thresholds.yaml (the gate's numbers, with sources)
- verdict      the bandwidth verdicts and the GateReport
- fabric       the fabric verdicts (transport, NIC count, GPUDirect)
"""
