"""Lossless RoCE QoS on NVIDIA ConnectX NICs: parse `mlnx_qos -i <if>` and decide what to change."""

from gpufabric.qos.mlnx_qos import QosState, TrafficClass, parse_mlnx_qos
from gpufabric.qos.plan import QosPlan, QosSpec, plan_qos

__all__ = ["QosPlan", "QosSpec", "QosState", "TrafficClass", "parse_mlnx_qos", "plan_qos"]
