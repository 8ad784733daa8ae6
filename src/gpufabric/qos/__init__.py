"""Lossless RoCE QoS on NVIDIA ConnectX NICs: parse `mlnx_qos -i <if>` and decide what to change."""

from gpufabric.qos.gids import Gid, parse_show_gids, roce_v2_gid_index
from gpufabric.qos.mlnx_qos import QosState, TrafficClass, parse_mlnx_qos
from gpufabric.qos.plan import QosPlan, QosSpec, plan_qos

__all__ = [
    "Gid",
    "QosPlan",
    "QosSpec",
    "QosState",
    "TrafficClass",
    "parse_mlnx_qos",
    "parse_show_gids",
    "plan_qos",
    "roce_v2_gid_index",
]
