"""Node-side configuration data the roles apply (next to facts/, ipsec/ and qos/).

- nccl_profiles   NCCL environment per fabric for the nccl role (nccl_profiles.yaml)
"""
